"""The search settings of ``params.json`` (its ``search`` object): one row of ``SEARCH_TABLE`` for each,
declared once with its range, default and meaning, as a feature is in the feature table; the Params
fields, the file's checks and the command-line options derive from it. ``search_settings`` reads a
file's ``search`` object; ``check_number`` is the check every number of a params file passes.
"""

import math
from typing import Dict, NamedTuple, Optional

from engine.constants import MAX_CPU_BUDGET, MAX_DEPTH, MAX_MOVES
from engine.errors import ParamsError

MAX_CLOSE_STONES = 25.0  # a runner-up within the whole board's stones: every move unclear


def check_number(value: object, where: str) -> float:
    """``value`` as a finite float; ParamsError naming ``where`` where it is not a number, or not finite."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParamsError(f"{where}: expected a number, found {short_repr(value)!r}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise ParamsError(f"{where}: expected a finite number, found {short_repr(value)}")
    return number


def short_repr(value: object, limit: int = 60) -> str:
    """``value``'s repr, cut to ``limit`` characters (as an error quotes what it found)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


class SearchSetting(NamedTuple):
    """One setting of params.json's ``search`` object, declared once, as a feature is in the feature
    table: the Params field, the file's check, the command-line option (``--`` and the name with
    dashes) and its help derive from it."""

    name: str  # the key in "search", the Params field
    kind: type  # int or float
    default: Optional[float]  # None: off where ``nullable``, else the value of ``at_least``
    low: float
    high: float
    unit: str  # in words and as the option's metavar: "plies", "seconds", "stones"
    meaning: str  # what it does
    low_open: bool = False  # ``low`` itself excluded
    nullable: bool = False  # null is a value: the setting off
    at_least: str = ""  # another setting this one may not be below, and its default

    def range_words(self) -> str:
        """The values allowed, in words, as an error states them."""
        kind = "an integer" if self.kind is int else self.unit
        low = f"({self.low:g}" if self.low_open else f"from {self.low:g}"
        if self.at_least:
            low = f"from {self.at_least}"
        span = f"{low}, {self.high:g}]" if self.low_open and not self.at_least else f"{low} to {self.high:g}"
        return f"{kind} {span}" + (" (or null: off)" if self.nullable else "")

    def check(self, value: object, source: str, floor: Optional[float] = None) -> Optional[float]:
        """``value`` (from a file or a caller) as this setting holds it; ParamsError naming it and the range.
        ``floor``: the value of ``at_least``."""
        where = f"{source}: search.{self.name}"
        if value is None and self.nullable:
            return None
        number: float
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ParamsError(f"{where}: expected {self.range_words()}, found {short_repr(value)}")
            number = value
        else:
            number = check_number(value, where)
        low = floor if floor is not None else self.low
        if number < low or number > self.high or (self.low_open and floor is None and number == low):
            raise ParamsError(f"{where}: expected {self.range_words()}, found {number!r}")
        return number


SEARCH_TABLE = (
    SearchSetting(
        name="depth", kind=int, default=4, low=1, high=MAX_DEPTH, unit="plies", meaning="the agent's deepest depth"
    ),
    SearchSetting(
        name="cpu_budget",
        kind=float,
        default=5.0,
        low=0,
        high=MAX_CPU_BUDGET,
        unit="seconds",
        meaning="CPU seconds a move is meant to take",
        low_open=True,
    ),
    SearchSetting(
        name="cpu_cap",
        kind=float,
        default=None,
        low=0,
        high=MAX_CPU_BUDGET,
        unit="seconds",
        meaning="CPU seconds no move may pass",
        low_open=True,
        at_least="cpu_budget",
    ),
    SearchSetting(
        name="solve_from",
        kind=int,
        default=MAX_MOVES,
        low=0,
        high=MAX_MOVES,
        unit="plies",
        meaning=f"the ply from which the agent solves the game exactly ({MAX_MOVES}: never)",
    ),
    SearchSetting(
        name="close_stones",
        kind=float,
        default=None,
        low=0,
        high=MAX_CLOSE_STONES,
        unit="stones",
        meaning="before the solving ply, a move whose best move changed between depths or whose runner-up is within "
        "this many stones (of the margin weight) of the best may plan its depths to the CPU cap",
        nullable=True,
    ),
)
SEARCH_SETTINGS = {setting.name: setting for setting in SEARCH_TABLE}
DEFAULT_SEARCH = {setting.name: setting.default for setting in SEARCH_TABLE}


def search_settings(search: object, source: str = "params") -> Dict[str, Optional[float]]:
    """{name: value} of every search setting from a params file's ``search`` object (each one left out
    at its default, one bounded by another at least that one); ParamsError naming a bad or unknown one."""
    if not isinstance(search, dict):
        raise ParamsError(f"{source}: 'search' must be an object")
    unknown = sorted(set(search) - set(SEARCH_SETTINGS))
    if unknown:
        raise ParamsError(f"{source}: search: unknown setting {unknown[0]!r}")
    chosen: Dict[str, Optional[float]] = {}
    for setting in SEARCH_TABLE:
        value = search.get(setting.name)
        floor = chosen[setting.at_least] if setting.at_least else None
        if value is None and not setting.nullable:
            value = floor if setting.at_least else setting.default
        chosen[setting.name] = setting.check(value, source, floor)
    return chosen
