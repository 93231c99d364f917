"""The runs pages' data: the run folders under one directory, and everything one of them holds.

Only the direct subfolders of the runs directory are served, by the names it lists (no
path is ever built from a name that is not one of them), and only the files evolve
writes, plus the match reports (``littlego match --json``) found beside them. A folder
that is not a run, or whose ``generations.jsonl`` is damaged, is shown with the message
saying so; the others are unaffected.
"""

import json
import math
import os
import sys
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, TypeVar, cast, overload

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python < 3.11
    import tomli as tomllib

from engine.common.generation_record import GenerationRecord, read_generations
from engine.common.runfolder import (
    CONFIG_COPY,
    GENERATIONS,
    LOG_FILE,
    NoGenerations,
    RunError,
    folder_time,
    lock_holder,
    planned_generations,
)


class RunSummary(NamedTuple):
    """A line of the runs list: ``state`` is "running" (a live process holds its lock),
    "finished" (all its planned generations recorded), "stopped", or "not a run"; ``problem`` the
    message when its files cannot be read (None when they can)."""

    name: str
    experiment: Optional[str]
    state: str
    generations: int
    planned: Optional[int]
    best_fitness: Optional[Tuple[float, float]]
    executor: Optional[Dict[str, Any]]
    started: Optional[str]
    problem: Optional[str]


class MatchReport(NamedTuple):
    """A ``littlego match --json`` report found in a run folder; ``sprt`` its test's
    state (llr, lower, upper, elo0, elo1, decision) or None."""

    file: str
    a: Optional[str]
    b: Optional[str]
    games: Optional[int]
    wins: Optional[Dict[str, int]]
    elo: Optional[float]
    elo_margin: Optional[float]
    sprt: Optional[Dict[str, object]]
    interrupted: Optional[str]


# What the page shows of the bigger files: their ends, not all of them.
LOG_TAIL_BYTES = 64 * 1024
TEXT_LIMIT = 256 * 1024
REPORT_LIMIT = 4 * 1024 * 1024


Loaded = TypeVar("Loaded")
Stamp = Tuple[int, int]  # a file's modification time (ns) and size: it has changed when they have
Generations = Tuple[List[GenerationRecord], Optional[str]]  # (records without their individuals, the problem or None)
ConfigFile = Tuple[Optional[str], Optional[Dict[str, Any]]]  # (the config file's text, its parsed table)


class NoSuchRun(LookupError):
    """A run name the runs directory does not hold."""


def run_folder(runs_dir: str, name: str) -> str:
    """The path of the run ``name``: one of the folders the runs directory lists (not a link,
    not hidden); NoSuchRun otherwise, so no name reaches outside the directory."""
    try:
        names = os.listdir(runs_dir)
    except OSError:
        names = []
    path = os.path.join(runs_dir, name)
    if name not in names or name.startswith(".") or os.path.islink(path) or not os.path.isdir(path):
        raise NoSuchRun(f"no run {name!r} in {runs_dir}")
    return path


class FileCache:
    """What was read from a file, read again only when the file changes (its size or time):
    the pages ask every two seconds, and most files have not changed since."""

    def __init__(self) -> None:
        self.entries: Dict[Tuple[str, Callable[[str], Any]], Tuple[Optional[Stamp], Any]] = {}

    def read(self, path: str, loader: Callable[[str], Loaded]) -> Loaded:
        """``loader(path)``, or what it gave last time for the file as it is now."""
        try:
            info = os.stat(path)
            stamp: Optional[Stamp] = (info.st_mtime_ns, info.st_size)
        except OSError:
            stamp = None
        cached = self.entries.get((path, loader))
        if cached is None or cached[0] != stamp or stamp is None:
            cached = (stamp, loader(path))
            self.entries[(path, loader)] = cached
        return cached[1]

    def generations(self, run_dir: str) -> Generations:
        """(the run's generation records without their individuals, the problem reading them or None)."""
        return self.read(os.path.join(run_dir, GENERATIONS), _generations)


def _generations(path: str) -> Generations:
    try:
        return [_light(record) for record in read_generations(os.path.dirname(path))], None
    except NoGenerations:
        return [], None  # a run that has not finished its first generation yet
    except RunError as error:
        return [], str(error)


def _light(record: GenerationRecord) -> GenerationRecord:
    """A generation's record without its individuals (the page plots the generation's figures)."""
    return record._replace(individuals=None)


def page_record(record: GenerationRecord) -> Dict[str, Any]:
    """A generation's record as the page reads it: its JSON object, a number JSON cannot carry None."""
    return cast(Dict[str, Any], finite(record.to_json()))


@overload
def finite(value: Dict[str, Any]) -> Dict[str, Any]: ...


@overload
def finite(value: object) -> object: ...


def finite(value: object) -> object:
    """``value`` with every infinite or NaN number (which JSON cannot carry) turned into None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [finite(item) for item in value]
    return value


def _config(run_dir: str) -> ConfigFile:
    """(the config file's text, its parsed table or None); text None when there is no file."""
    try:
        with open(os.path.join(run_dir, CONFIG_COPY), "rb") as handle:
            raw = handle.read(TEXT_LIMIT)
    except OSError:
        return None, None
    text = raw.decode("utf-8", "replace")
    try:
        return text, tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return text, None


def _started(run_dir: str) -> Optional[str]:
    """When the run started, as ``YYYY-MM-DD HH:MM:SS``: the time stamp of its log's first line,
    else the time in its folder's name, else None."""
    try:
        with open(os.path.join(run_dir, LOG_FILE), "rb") as handle:
            first = handle.readline(200).decode("utf-8", "replace")
    except OSError:
        first = ""
    stamp = first[:19]
    if len(stamp) == 19 and stamp[:4].isdigit() and stamp[10] == " ":
        return stamp
    created = folder_time(os.path.basename(run_dir))
    return created.strftime("%Y-%m-%d %H:%M:%S") if created is not None else None


def summary(runs_dir: str, name: str, cache: FileCache) -> RunSummary:
    """The RunSummary of the run ``name``."""
    run_dir = run_folder(runs_dir, name)
    return _summary(name, run_dir, cache.generations(run_dir), _config(run_dir))


def _summary(name: str, run_dir: str, generations: Generations, config_file: ConfigFile) -> RunSummary:
    """The RunSummary of the run ``name`` at ``run_dir`` from what was read of it: ``generations``
    (records, problem) and ``config_file`` (text, table)."""
    (records, problem), (text, config) = generations, config_file
    is_run = text is not None or os.path.exists(os.path.join(run_dir, GENERATIONS))
    config = config if isinstance(config, dict) else {}
    planned = config.get("generations") if isinstance(config.get("generations"), int) else None
    planned = planned_generations(run_dir, planned)
    last = records[-1] if records else None
    if not is_run:
        state, problem = "not a run", f"{name}: not a run folder (no {CONFIG_COPY} nor {GENERATIONS})"
    elif lock_holder(run_dir) is not None:
        state = "running"
    elif last is not None and planned is not None and last.generation >= planned:
        state = "finished"
    else:
        state = "stopped"
    return RunSummary(
        name,
        config.get("name") if isinstance(config.get("name"), str) else None,
        state,
        len(records),
        planned,
        last.best_fitness if last else None,
        last.executor if last else None,
        _started(run_dir),
        problem,
    )


def list_runs(runs_dir: str, cache: FileCache) -> List[RunSummary]:
    """The RunSummary of every folder in ``runs_dir``, the latest started first (those whose start
    is not known last)."""
    try:
        names = os.listdir(runs_dir)
    except OSError:
        return []
    found = [
        summary(runs_dir, name, cache)
        for name in names
        if not name.startswith(".")
        and os.path.isdir(os.path.join(runs_dir, name))
        and not os.path.islink(os.path.join(runs_dir, name))
    ]
    return sorted(found, key=lambda run: (run.started or "", run.name), reverse=True)


def _log_tail(run_dir: str) -> Optional[str]:
    try:
        with open(os.path.join(run_dir, LOG_FILE), "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - LOG_TAIL_BYTES))
            data = handle.read()
    except OSError:
        return None
    text = data.decode("utf-8", "replace")
    return text if size <= LOG_TAIL_BYTES else text.partition("\n")[2]


def _report(path: str) -> Optional[MatchReport]:
    """The MatchReport in a JSON file, or None when the file is no match report."""
    try:
        if os.path.getsize(path) > REPORT_LIMIT:
            return None
        with open(path, "rb") as handle:
            document = json.loads(handle.read().decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(document, dict) or not all(key in document for key in ("a", "b", "games", "wins")):
        return None
    document = finite(document)
    sprt = document.get("sprt") if isinstance(document.get("sprt"), dict) else None
    if sprt is not None:
        sprt = {key: sprt.get(key) for key in ("llr", "lower", "upper", "elo0", "elo1", "decision")}
    return MatchReport(
        os.path.basename(path),
        document.get("a"),
        document.get("b"),
        document.get("games"),
        document.get("wins"),
        document.get("elo"),
        document.get("elo_95_margin"),
        sprt,
        document.get("interrupted"),
    )


def reports(run_dir: str, cache: FileCache) -> List[MatchReport]:
    """The match reports among the folder's JSON files, by file name."""
    found = []
    for name in sorted(os.listdir(run_dir)):
        path = os.path.join(run_dir, name)
        if name.endswith(".json") and os.path.isfile(path) and not os.path.islink(path):
            report = cache.read(path, _report)
            if report is not None:
                found.append(report)
    return found


def run_page(runs_dir: str, name: str, cache: FileCache, after: int = 0) -> Dict[str, object]:
    """Everything the run's page shows, as a dict of plain values; with ``after``, only the
    generations past the first ``after`` (the page asks for what is new)."""
    run_dir = run_folder(runs_dir, name)
    generations, config_file = cache.generations(run_dir), _config(run_dir)
    records, text = generations[0], config_file[0]
    head = _summary(name, run_dir, generations, config_file)
    configured = config_file[1].get("generations") if isinstance(config_file[1], dict) else None
    if text is not None and head.planned is not None and head.planned != configured:
        text += f"\n# extended to {head.planned} generations by evolve resume --generations {head.planned}\n"
    return {
        "summary": head._asdict(),
        "total": len(records),
        "generations": [page_record(record) for record in (records[after:] if after <= len(records) else records)],
        "restart": after > len(records),
        "config": text,
        "log": _log_tail(run_dir),
        "reports": [report._asdict() for report in reports(run_dir, cache)],
    }
