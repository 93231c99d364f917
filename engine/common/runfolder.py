"""A run folder's files as ``evolve`` writes them, and reading them back.

``evolve`` writes run folders; ``evolve log``/``plot`` and the web app (``littlego serve``)
read them. The names of the files and the one reader of ``generations.jsonl`` live here,
in the tools both may import, so the format is said once. Whether a run is being written
now is whether a live process holds the POSIX record lock on ``run.lock``; ``lock_holder``
asks the kernel without taking the lock, so looking never gets in a run's way.
"""

import datetime
import fcntl
import json
import math
import os
import struct
import sys
from typing import Any, Dict, List, Optional

from engine.errors import UserError

# evolve names a run folder NAME-TIME, or NAME-TIME-N when that folder exists already.
FOLDER_TIME = "%Y%m%d-%H%M%S"
GENERATIONS = "generations.jsonl"
CONFIG_COPY = "config.toml"
START_WEIGHTS = "start.json"  # the weights of [start] params as read when the run began
LOG_FILE = "run.log"
LOCK = "run.lock"
EXTENDED = "extended.json"  # {"generations": N}: where `evolve resume --generations N` extended the run

Generation = Dict[str, Any]  # a line of generations.jsonl, as evolve writes it (checked by read_generations)


class RunError(UserError, ValueError):
    """A run folder that cannot be used; the message names the folder and the problem."""


class NoGenerations(RunError):
    """A run folder with no generation recorded yet (a run that has not finished its first)."""


def folder_time(name: str) -> Optional[datetime.datetime]:
    """The datetime in a run folder's name (when the run was created), or None when it has none."""
    parts = name.split("-")
    for end in (len(parts), len(parts) - 1):
        if end >= 3:
            try:
                return datetime.datetime.strptime("-".join(parts[end - 2 : end]), FOLDER_TIME)
            except ValueError:
                pass
    return None


def read_generations(run_dir: str) -> List[Generation]:
    """The records of generations.jsonl, in order; RunError naming the file and line of one
    that is not a generation's record, NoGenerations when none is recorded yet.

    A last line without its newline that does not parse is a record being appended (evolve
    writes a generation's line while others read): it is left out, not taken for damage.
    """
    path = os.path.join(run_dir, GENERATIONS)
    if not os.path.isdir(run_dir):
        raise RunError(f"{run_dir}: no such run folder")
    if not os.path.exists(path):
        raise NoGenerations(f"{run_dir}: no {GENERATIONS} (not a run folder, or no generation finished yet)")
    with open(path, "rb") as handle:
        lines = handle.read().split(b"\n")
    # After the last newline: b"" when the file ends with one, else a line still being written.
    unfinished = lines.pop()
    records = [
        _checked_generation(_parsed(line, path, number), f"{path}:{number}")
        for number, line in enumerate(lines, 1)
        if line.strip()
    ]
    if unfinished.strip():
        try:
            record = json.loads(unfinished.decode("utf-8"))
        except (ValueError, RecursionError):
            pass  # still being written
        else:
            records.append(_checked_generation(record, f"{path}:{len(lines) + 1}"))
    if not records:
        raise NoGenerations(f"{path}: no generation recorded yet")
    return records


def _parsed(line, path, number):
    try:
        return json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        raise RunError(f"{path}:{number}: not a JSON line")


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _checked_generation(record, where):
    """``record`` if it holds what the table and the plots read; RunError naming the field otherwise."""

    def need(ok, field, words):
        if not ok:
            raise RunError(f"{where}: not a generation's record: {field} must be {words}")

    need(isinstance(record, dict), "the line", "an object")
    need(
        isinstance(record.get("generation"), int) and not isinstance(record["generation"], bool),
        "generation",
        "an integer",
    )
    best = record.get("best_fitness")
    need(isinstance(best, list) and len(best) == 2 and all(map(_number, best)), "best_fitness", "two numbers")
    rates = record.get("win_rate")
    need(
        isinstance(rates, dict) and _number(rates.get("mean")) and _number(rates.get("std")),
        "win_rate",
        "an object with a mean and a std",
    )
    need(
        rates.get("standard_error") is None or _number(rates["standard_error"]),
        "win_rate.standard_error",
        "a number or null",
    )
    colours = record.get("best_by_colour", {})
    need(
        isinstance(colours, dict) and all(v is None or _number(v) for v in colours.values()),
        "best_by_colour",
        "an object of numbers",
    )
    for field in ("diversity", "games", "seconds", "games_per_second"):
        need(_number(record.get(field)), field, "a number")
    weights = record.get("best_weights")
    need(
        isinstance(weights, dict) and weights and all(map(_number, weights.values())),
        "best_weights",
        "an object of numbers",
    )
    return record


# struct flock as the kernel lays it out: Linux (l_type, l_whence, l_start, l_len, l_pid) and
# the BSDs and macOS (l_start, l_len, l_pid, l_type, l_whence); native alignment, padded.
_FLOCK = "qqihh" if sys.platform == "darwin" or "bsd" in sys.platform else "hhqqixxxx"


def _flock(kind):
    fields = (0, 0, 0, kind, os.SEEK_SET) if _FLOCK == "qqihh" else (kind, os.SEEK_SET, 0, 0, 0)
    return struct.pack(_FLOCK, *fields)


def lock_holder(run_dir: str) -> Optional[int]:
    """The id of the process that holds the run's lock (its writer), or None when no other
    process holds it (or the folder has no lock file). Takes no lock itself."""
    try:
        fd = os.open(os.path.join(run_dir, LOCK), os.O_RDONLY)
    except OSError:
        return None
    try:
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, _flock(fcntl.F_WRLCK))
    except OSError:
        return None
    finally:
        os.close(fd)
    fields = struct.unpack(_FLOCK, answer)
    kind, pid = (fields[3], fields[2]) if _FLOCK == "qqihh" else (fields[0], fields[4])
    return None if kind == fcntl.F_UNLCK else pid


def planned_generations(run_dir: str, configured: Optional[int]) -> Optional[int]:
    """The generation a run goes on to: its extension's (``EXTENDED``, where `evolve resume --generations N`
    wrote one), else ``configured`` (its config's)."""
    try:
        with open(os.path.join(run_dir, EXTENDED)) as handle:
            extended = json.load(handle).get("generations")
    except (OSError, ValueError, AttributeError):
        return configured
    return extended if isinstance(extended, int) and not isinstance(extended, bool) else configured
