"""What a constant of an agent's code is for, read from its name and value, and the range it is tuned in.

A ``Role`` is one of three: an evaluation ``WEIGHT`` (what a run is for), a search, time or rules
``SETTING`` (a depth, a time limit, the board's size, the komi, a colour's code) or a ``COUNTER``
(an accumulator that starts at 0, a loop index, an alpha-beta sentinel such as ``-1000``). A name's words
decide (``time_limit``, ``maxDepth``: split at ``_`` and at capitals), its value where they do not: a
local that starts at 0 under an accumulator's name is a counter, a weight never is. ``default_range``
keeps a setting within the course's limits: a depth at least 1, a time limit at most
``COURSE_CPU_LIMIT`` seconds (milliseconds where the name says ``ms``).
"""

import re
from enum import Enum
from typing import FrozenSet, Optional, Tuple

from engine.constants import COURSE_CPU_LIMIT


class Role(str, Enum):
    """What a constant is for; its string is what ``evolve constants`` shows and ``--json`` writes."""

    WEIGHT = "weight"
    SETTING = "setting"
    COUNTER = "counter"


_WEIGHT_WORDS = frozenset(("weight", "weights", "bonus", "penalty", "factor", "coef", "coeff", "scale"))
_DEPTH_WORDS = frozenset(("depth", "ply", "plies", "d"))  # d: the depth of many an alpha-beta
_TIME_WORDS = frozenset(("time", "timeout", "seconds", "secs", "sec", "deadline", "ms", "millis"))
_RULES_WORDS = frozenset(("size", "board", "komi", "moves", "pass", "empty", "black", "white", "colour", "color"))
_SEARCH_WORDS = frozenset(("nodes", "iterations", "simulations", "playouts", "rollouts", "budget", "limit"))
_SETTING_WORDS = _DEPTH_WORDS | _TIME_WORDS | _RULES_WORDS | _SEARCH_WORDS
_COUNT_WORDS = frozenset(("count", "counter", "calls", "num", "n", "i", "j", "k", "idx", "index", "inf", "infinity"))
_SENTINEL_WORDS = frozenset(("alpha", "beta"))
_ACCUMULATOR_WORDS = frozenset(("score", "value", "val", "v", "best", "result", "total", "sum"))
SENTINEL_SIZE = 1000  # an integer this large or larger is a bound of a search (-1000, 10**9), not a weight
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def name_words(name: str) -> FrozenSet[str]:
    """The words of a constant's own name, lower case: its last part, without an index or a place
    (``search.time_limit`` -> time, limit; ``maxDepth@a.cpp:3`` -> max, depth; ``T[1][2]`` -> t)."""
    own = re.split(r"[.\[]", name.split("@", 1)[0].rstrip("]'"))
    last = next((part for part in reversed(own) if part and not part.rstrip("]").isdigit()), name)
    return frozenset(word.lower() for word in _WORD.findall(last.strip("'")))


def role_of(name: str, value: float, integer: bool) -> Role:
    """The role of the constant ``name`` of ``value`` (whether written as an integer)."""
    words = name_words(name)
    if words & _WEIGHT_WORDS:
        return Role.WEIGHT
    if words & _SETTING_WORDS:
        return Role.SETTING
    if words & (_COUNT_WORDS | _SENTINEL_WORDS) or (integer and abs(value) >= SENTINEL_SIZE):
        return Role.COUNTER
    if words & _ACCUMULATOR_WORDS and value == 0:
        return Role.COUNTER
    return Role.WEIGHT


def default_range(name: str, value: float) -> Tuple[float, float]:
    """The range a constant is tuned in unless the experiment says: its value plus or minus its size, at
    least 1 (``8`` -> [0, 16], ``-0.5`` -> [-1.5, 0.5], ``0`` -> [-1, 1]); a depth's from 1 up, a time
    limit's from half its value up to the course's limit (``6.0`` -> [3, 10]), never past its own value."""
    spread = max(abs(value), 1.0)
    low, high = value - spread, value + spread
    words = name_words(name)
    if words & _DEPTH_WORDS and value >= 1:
        return max(low, 1.0), high
    if words & _TIME_WORDS and value > 0:
        limit = COURSE_CPU_LIMIT * (1000 if words & {"ms", "millis"} else 1)
        return value / 2, max(min(high, limit), value)
    return low, high


def untunable(name: str, value: float) -> Optional[str]:
    """Why the constant ``name`` of ``value`` has no default range to tune it in, or None: a rules setting (the
    course fixes the board, the komi and the colours' codes), a depth under 1, a time limit past the course's."""
    words = name_words(name)
    if words & _DEPTH_WORDS and value < 1:
        return f"a search depth of {value:g}, under the 1 a search needs: give its range in [individual.bounds]"
    if words & _TIME_WORDS and value > 0:
        limit = COURSE_CPU_LIMIT * (1000 if words & {"ms", "millis"} else 1)
        if value > limit:
            return (
                f"a time limit of {value:g}, past the course's {limit:g}: every move may forfeit; lower it in the "
                "code, or give its range in [individual.bounds]"
            )
    if words & _RULES_WORDS and not words & (_DEPTH_WORDS | _TIME_WORDS | _SEARCH_WORDS):
        return "a rules setting, which the course fixes: tuning it changes the game, not the agent"
    return None


def past_limits(name: str, low: float, high: float) -> Optional[str]:
    """Why the range [``low``, ``high``] given to the constant ``name`` crosses the course's limits, or None."""
    words = name_words(name)
    if words & _DEPTH_WORDS and low < 1:
        return f"{name}: a search depth tuned from {low:g}, under 1: a depth of 0 plays no search"
    if words & _TIME_WORDS:
        limit = COURSE_CPU_LIMIT * (1000 if words & {"ms", "millis"} else 1)
        if high > limit:
            return f"{name}: a time limit tuned up to {high:g}, past the course's {limit:g}: such a move is forfeit"
    return None


def cost_note(name: str, value: float) -> Optional[str]:
    """What tuning the constant ``name`` costs, where it is a depth or a time limit; None for any other."""
    words = name_words(name)
    if words & _DEPTH_WORDS:
        return (
            "a search depth: each ply more multiplies a move's time by about the moves a position has (up to 25), "
            "and so a run's time; never under 1"
        )
    if words & _TIME_WORDS:
        unit = "ms" if words & {"ms", "millis"} else "s"
        return (
            f"a time limit: a run's games take about as long as it allows each move ({value:g} {unit} now), and the "
            f"course forfeits a move past {COURSE_CPU_LIMIT:g} s"
        )
    return None
