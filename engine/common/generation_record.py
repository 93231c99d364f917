"""The record of a generation (``GenerationRecord``, a line of a run folder's ``generations.jsonl``,
with ``WinRates``, ``MarginFigures``, ``ByColour`` and ``HeldOut``) and the file's one reader,
``read_generations``: what ``evolve`` writes and ``evolve log``/``plot`` and the web app read, said once.
"""

import gzip
import json
import math
import os
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union

from engine.common.runfolder import GENERATIONS, NoGenerations, RunError


class WinRates(NamedTuple):
    """A generation's win rates (each individual's first fitness): the ``best``, ``mean``, spread (``std``)
    and ``min`` of its individuals', and ``standard_error``, the mean standard error of one fitness (None
    where none was measured, and in runs from before it was kept). ``best`` and ``min`` are None only in a
    line no run wrote (the table and the plots read the mean and the spread alone)."""

    best: Optional[float]
    mean: float
    std: float
    min: Optional[float]
    standard_error: Optional[float]


class MarginFigures(NamedTuple):
    """A generation's stone margins (each individual's second fitness): the best, mean and spread (std)."""

    best: float
    mean: float
    std: float


class ByColour(NamedTuple):
    """The best individual's win rates as Black and as White (None: no game of that colour)."""

    black: Optional[float]
    white: Optional[float]


class HeldOut(NamedTuple):
    """The best individual on the held-out won positions of [regret]: how many of the ``won`` it ``kept``,
    and that share (None where there were none)."""

    kept: int
    won: int
    share: Optional[float]


class GenerationRecord(NamedTuple):
    """A generation's line of generations.jsonl: what ``evolve log``, ``plot`` and the runs pages read.

    ``generation`` (0: the first population), the individuals ``evaluated``, the ``games`` they played,
    the ``searcher`` of the individuals' moves ("native" or "python"; None for a program individual, whose
    moves are its own code's), the ``seconds`` the generation took and
    the workers' ``cpu_seconds`` on it (None where a worker runs several jobs at once, Dask's threads), the
    ``games_per_second`` overall and ``games_per_second_per_worker`` on the ``executor`` described
    (``engine.play.executors``), the population's ``diversity``; the hall of fame's best: its
    ``best_fitness`` (win rate, mean stone margin), ``best_weights`` by gene name and ``best_by_colour``;
    where the strategy stands (``centre``, by gene name), how the individuals played (``play``: "depth" or
    "as-shipped"; None for a program individual); with [regret], the best's share of the fitness's won
    positions kept (``best_regret_kept``),
    its ``best_held_out`` figures (our searcher's or a program individual's alike), the won ``positions``
    asked of the individuals and the ruler's ``positions_per_second`` (every won position it asked this
    generation, the held-out ones too, over the wall time it took: ``games_per_second`` is over the
    generation's); the population's ``win_rate`` and
    ``margin`` figures and its ``individuals`` (each a JSON object: its ``weights``, ``fitness`` and the
    report of its games).

    A field None that a run writes now is one older runs did not record (each is said where it is read):
    ``from_json`` reads every line evolve has written, ``to_json`` writes the line as evolve writes it."""

    generation: int
    evaluated: Optional[int]
    games: int
    searcher: Optional[str]  # a line from before 2026-11-28 names it "engine"
    seconds: float
    cpu_seconds: Optional[float]
    games_per_second: float
    executor: Optional[Dict[str, Any]]
    games_per_second_per_worker: Optional[float]
    diversity: float
    best_fitness: Tuple[float, float]
    best_weights: Dict[str, float]
    best_by_colour: Optional[ByColour]
    centre: Optional[Dict[str, float]]
    play: Optional[str]
    best_regret_kept: Optional[float]  # the regret fields: all three, or none without [regret]
    best_held_out: Optional[HeldOut]
    positions: Optional[int]
    positions_per_second: Optional[float]  # the ruler's: kept from 2026-12-02, with the regret fields
    win_rate: WinRates
    margin: Optional[MarginFigures]
    individuals: Optional[List[Dict[str, Any]]]

    def to_json(self) -> Dict[str, Any]:
        """The line's JSON object, its keys in the order evolve writes them; a field older runs lack is left
        out where it is None, so a line read and written again keeps its keys."""
        fields: List[Tuple[str, Any, bool]] = [  # (key, value, written even when None)
            ("generation", self.generation, True),
            ("evaluated", self.evaluated, False),
            ("games", self.games, True),
            ("searcher", self.searcher, False),
            ("seconds", self.seconds, True),
            ("cpu_seconds", self.cpu_seconds, True),
            ("games_per_second", self.games_per_second, True),
            ("executor", self.executor, False),
            ("games_per_second_per_worker", self.games_per_second_per_worker, False),
            ("diversity", self.diversity, True),
            ("best_fitness", list(self.best_fitness), True),
            ("best_weights", self.best_weights, True),
            ("best_by_colour", _plain(self.best_by_colour), False),
            ("centre", self.centre, False),
            ("play", self.play, False),
        ]
        if self.positions is not None:
            fields += [
                ("best_regret_kept", self.best_regret_kept, True),
                ("best_held_out", _plain(self.best_held_out), True),
                ("positions", self.positions, True),
                ("positions_per_second", self.positions_per_second, False),
            ]
        rates = dict(self.win_rate._asdict())
        fields += [
            ("win_rate", {k: v for k, v in rates.items() if v is not None or k == "standard_error"}, True),
            ("margin", _plain(self.margin), False),
            ("individuals", self.individuals, False),
        ]
        return {key: value for key, value, always in fields if always or value is not None}

    @classmethod
    def from_json(cls, record: object, where: str) -> "GenerationRecord":
        """The record of a line's JSON object, as any run has written it (a key it lacks: None, or the
        default its readers took); RunError naming ``where`` (the file and line) and the field that is not
        what it must be. Keys no field names are ignored."""
        return _generation(record, where)


def _plain(record: Union[ByColour, HeldOut, MarginFigures, None]) -> Optional[Dict[str, Any]]:
    """A record's fields as a JSON object (None: None)."""
    return None if record is None else dict(record._asdict())


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _numbers(value: object) -> bool:
    """A JSON object of numbers (finite or not: the plots draw what they are given)."""
    return isinstance(value, dict) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in value.values()
    )


class _Line(Dict[str, Any]):
    """A line's JSON object, read with checks that name ``where`` (its file and line) and the field."""

    def __init__(self, record: object, where: str) -> None:
        self.where = where
        self.need(isinstance(record, dict), "the line", "an object")
        super().__init__(record)  # type: ignore[call-overload]

    def need(self, ok: bool, field: str, words: str) -> None:
        if not ok:
            raise RunError(f"{self.where}: not a generation's record: {field} must be {words}")

    def optional(self, key: str, ok: Callable[[Any], bool], words: str) -> Any:
        """The value of a key older runs lack (None where it is absent)."""
        value = self.get(key)
        self.need(value is None or ok(value), key, words)
        return value


def _generation(record: object, where: str) -> GenerationRecord:
    line = _Line(record, where)
    line.need(_integer(line.get("generation")), "generation", "an integer")
    best: Any = line.get("best_fitness")
    line.need(isinstance(best, list) and len(best) == 2 and all(map(_number, best)), "best_fitness", "two numbers")
    win_rate, best_by_colour = _win_rates(line), _by_colour(line)
    for field in ("diversity", "games", "seconds", "games_per_second"):
        line.need(_number(line.get(field)), field, "a number")
    weights: Any = line.get("best_weights")
    line.need(
        isinstance(weights, dict) and bool(weights) and all(map(_number, weights.values())),
        "best_weights",
        "an object of numbers",
    )
    margin, best_held_out = _margins(line), _held_out(line)
    return GenerationRecord(
        generation=line["generation"],
        evaluated=line.optional("evaluated", _integer, "an integer"),
        games=line["games"],
        searcher=line.optional(
            "searcher" if "searcher" in line else "engine", lambda v: isinstance(v, str), "a string"
        ),
        seconds=line["seconds"],
        cpu_seconds=line.optional("cpu_seconds", _number, "a number or null"),
        games_per_second=line["games_per_second"],
        executor=line.optional("executor", lambda v: isinstance(v, dict), "an object"),
        games_per_second_per_worker=line.optional("games_per_second_per_worker", _number, "a number"),
        diversity=line["diversity"],
        best_fitness=(best[0], best[1]),
        best_weights=weights,
        best_by_colour=best_by_colour,
        centre=line.optional("centre", _numbers, "an object of numbers"),
        play=line.optional("play", lambda v: isinstance(v, str), "a string"),
        best_regret_kept=line.optional("best_regret_kept", _number, "a number or null"),
        best_held_out=best_held_out,
        positions=line.optional("positions", _integer, "an integer"),
        positions_per_second=line.optional("positions_per_second", _number, "a number"),
        win_rate=win_rate,
        margin=margin,
        individuals=line.optional(
            "individuals", lambda v: isinstance(v, list) and all(isinstance(i, dict) for i in v), "a list of objects"
        ),
    )


def _win_rates(line: _Line) -> WinRates:
    """The line's ``win_rate``: a mean and a std every run wrote, the rest where it was kept."""
    rates: Any = line.get("win_rate")
    line.need(
        isinstance(rates, dict) and _number(rates.get("mean")) and _number(rates.get("std")),
        "win_rate",
        "an object with a mean and a std",
    )
    for field in ("standard_error", "best", "min"):
        words = "a number or null" if field == "standard_error" else "a number"
        line.need(rates.get(field) is None or _number(rates[field]), f"win_rate.{field}", words)
    return WinRates(rates.get("best"), rates["mean"], rates["std"], rates.get("min"), rates.get("standard_error"))


def _by_colour(line: _Line) -> Optional[ByColour]:
    """The line's ``best_by_colour`` (None where the run did not keep it)."""
    colours = line.get("best_by_colour", {})
    line.need(
        isinstance(colours, dict) and all(v is None or _number(v) for v in colours.values()),
        "best_by_colour",
        "an object of numbers",
    )
    return ByColour(colours.get("black"), colours.get("white")) if "best_by_colour" in line else None


def _margins(line: _Line) -> Optional[MarginFigures]:
    """The line's ``margin`` (None where the run did not keep it)."""
    margin = line.optional(
        "margin",
        lambda v: isinstance(v, dict) and all(_number(v.get(k)) for k in MarginFigures._fields),
        "an object with a best, a mean and a std",
    )
    return None if margin is None else MarginFigures(margin["best"], margin["mean"], margin["std"])


def _held_out(line: _Line) -> Optional[HeldOut]:
    """The line's ``best_held_out`` (None without [regret], and in runs from before it was kept)."""
    held_out = line.optional(
        "best_held_out",
        lambda v: (
            isinstance(v, dict)
            and _integer(v.get("kept"))
            and _integer(v.get("won"))
            and (v.get("share") is None or _number(v["share"]))
        ),
        "an object with kept, won and share",
    )
    return None if held_out is None else HeldOut(held_out["kept"], held_out["won"], held_out.get("share"))


def read_generations(run_dir: str) -> List["GenerationRecord"]:
    """The records of generations.jsonl, in order; RunError naming the file and line of one
    that is not a generation's record, NoGenerations when none is recorded yet.

    A last line without its newline that does not parse is a record being appended (evolve
    writes a generation's line while others read): it is left out, not taken for damage. A run
    kept as a record may hold it gzipped (``generations.jsonl.gz``), read the same.
    """
    path = os.path.join(run_dir, GENERATIONS)
    if not os.path.isdir(run_dir):
        raise RunError(f"{run_dir}: no such run folder")
    packed = not os.path.exists(path) and os.path.exists(path + ".gz")
    if packed:
        path += ".gz"
    elif not os.path.exists(path):
        raise NoGenerations(f"{run_dir}: no {GENERATIONS} (not a run folder, or no generation finished yet)")
    try:
        with gzip.open(path, "rb") if packed else open(path, "rb") as handle:
            lines = handle.read().split(b"\n")
    except (OSError, EOFError) as error:  # a damaged gzip file
        raise RunError(f"{path}: unreadable: {error}")
    # After the last newline: b"" when the file ends with one, else a line still being written.
    unfinished = lines.pop()
    records = [
        GenerationRecord.from_json(_parsed(line, path, number), f"{path}:{number}")
        for number, line in enumerate(lines, 1)
        if line.strip()
    ]
    if unfinished.strip():
        try:
            record = json.loads(unfinished.decode("utf-8"))
        except (ValueError, RecursionError):
            pass  # still being written
        else:
            records.append(GenerationRecord.from_json(record, f"{path}:{len(lines) + 1}"))
    if not records:
        raise NoGenerations(f"{path}: no generation recorded yet")
    return records


def _parsed(line: bytes, path: str, number: int) -> object:
    try:
        return json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        raise RunError(f"{path}:{number}: not a JSON line")
