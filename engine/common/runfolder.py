"""A run folder's files as ``evolve`` writes them: their names, and whether a run is under way.

``evolve`` writes run folders; ``evolve log``/``plot`` and the web app (``littlego serve``)
read them. The names of the files live here, in the tools both may import, so they are said once
(the record of a generation and its one reader, ``generation_record``). Whether a run is being
written now is whether a live process holds the POSIX record lock on ``run.lock``; ``lock_holder``
asks the kernel without taking the lock, so looking never gets in a run's way.

What a run says in ``run.log`` and on the terminal carries text it did not write (a student's file
names, an agent's words, a compiler's): ``safe_text`` shows such text so that it can neither drive
the terminal nor forge a line, and ``LogFormatter`` writes every record of ``run.log`` through it.
"""

import datetime
import fcntl
import json
import logging
import os
import struct
import sys
from typing import Optional

from engine.errors import UserError
from engine.sandbox.files import excerpt

# evolve names a run folder NAME-TIME, or NAME-TIME-N when that folder exists already.
FOLDER_TIME = "%Y%m%d-%H%M%S"
GENERATIONS = "generations.jsonl"
CONFIG_COPY = "config.toml"
START_WEIGHTS = "start.json"  # the weights of [start] params as read when the run began
LOG_FILE = "run.log"
LOCK = "run.lock"
EXTENDED = "extended.json"  # {"generations": N}: where `evolve resume --generations N` extended the run


LOG_FORMAT = "%(asctime)s %(processName)s %(levelname)s %(name)s: %(message)s"  # a record's line in run.log


def safe_text(text: str) -> str:
    """``text`` as ``run.log`` and a terminal show it: each character that is not printable (a control
    character, the ESC of an escape sequence, a carriage return, DEL, a C1 control, a line or paragraph
    separator, a bidi override) escaped as ``excerpt`` escapes it (``\\x1b``, ``\\u202e``), and a line break
    kept only before an indented line: no text can move the cursor, colour or reorder what a terminal
    shows, or pass for a line of its own (a record of run.log starts at its first column)."""
    first, *rest = [excerpt(line, sys.maxsize) for line in text.split("\n")]
    return "\n".join([first] + [line if not line or line.startswith(" ") else "  " + line for line in rest])


class LogFormatter(logging.Formatter):
    """A record of ``run.log`` (``LOG_FORMAT``), its whole text shown by ``safe_text``: a worker's too, whose
    message comes formatted already (``multiprocessing_logging`` sends the text, not its parts)."""

    def __init__(self) -> None:
        super().__init__(LOG_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        return safe_text(super().format(record))


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


# struct flock as the kernel lays it out: Linux (l_type, l_whence, l_start, l_len, l_pid) and
# the BSDs and macOS (l_start, l_len, l_pid, l_type, l_whence); native alignment, padded.
_FLOCK = "qqihh" if sys.platform == "darwin" or "bsd" in sys.platform else "hhqqixxxx"


def _flock(kind: int) -> bytes:
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
