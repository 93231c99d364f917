"""Pattern weights: the evaluation's local shapes, every 2x2 window of the board, one weight a shape.

The scalar features (``engine.features``) say how much of something a position has; they cannot say
which shapes it has. Pattern weights can: the board's 16 windows of 2x2 points fall into three
classes under its 8 symmetries (``PATTERN_CLASSES``: the 4 corner windows, the 8 edge windows and the
4 windows around the centre), and each window shows one of 81 contents (each point empty, the mover's
or the opponent's). Contents that a symmetry carries onto each other are one shape (a corner or centre
window maps onto itself by the reflection through its diagonal: 54 shapes each; an edge window by
none: 81): ``PATTERNS`` names the 189, class by class, each ``quad_<class>_<four digits>``, a digit a
point of the class's window in ``PatternClass.window`` order (0 empty, 1 the mover's, 2 the opponent's).
A position's pattern value is the sum of the weights of its 16 windows' shapes.

A params file gives the weights by name (``"patterns"``; a shape it leaves out weighs 0); without
them the evaluation is the features' alone, as before. ``pattern_indices`` is the hot path (a table
look-up a window: ``WINDOW_TABLES``); the compiled searcher gets the same tables from here
(``engine.native.search``). Fitted, not evolved: ``evolve fit --patterns`` fits them to the solver's
labels by their gradient.
"""

from typing import Dict, List, NamedTuple, Sequence, Tuple

from engine.constants import BOARD_SIZE
from engine.symmetry import SYMMETRIES

WINDOW_SIDE = 2  # a window's points: its top-left one, the next, and the two below them


class PatternClass(NamedTuple):
    """One class of windows: its name, what it holds (one line), and its window in the top-left of the
    board, whose points in this order give a shape's digits (the board's symmetries carry it onto the
    class's other windows)."""

    name: str
    meaning: str
    window: Tuple[int, int, int, int]


PATTERN_CLASSES = (
    PatternClass(name="corner", meaning="the 2x2 windows holding a corner of the board", window=(0, 1, 5, 6)),
    PatternClass(name="edge", meaning="the 2x2 windows on the first line that hold no corner", window=(1, 2, 6, 7)),
    PatternClass(name="centre", meaning="the 2x2 windows holding the centre point", window=(6, 7, 11, 12)),
)
PATTERN_BOUNDS = (-100.0, 100.0)  # a pattern weight's range: ten stones of margin either way

_DIGITS = 4  # points a window


def _windows() -> List[Tuple[int, ...]]:
    """The board's windows, each as its points in bit order (top-left, top-right, bottom-left, bottom-right)."""
    return [
        (top, top + 1, top + BOARD_SIZE, top + BOARD_SIZE + 1)
        for row in range(BOARD_SIZE - WINDOW_SIDE + 1)
        for top in range(row * BOARD_SIZE, row * BOARD_SIZE + BOARD_SIZE - WINDOW_SIDE + 1)
    ]


WINDOWS = tuple(_windows())


def _readings(window: Sequence[int]) -> Tuple[int, List[Tuple[int, ...]]]:
    """(the class of ``window``, its points in that class's digit order, once for each symmetry that carries
    the class's window onto it)."""
    for number, pattern_class in enumerate(PATTERN_CLASSES):
        readings = [
            tuple(image[point] for point in pattern_class.window)
            for image in SYMMETRIES
            if {image[point] for point in pattern_class.window} == set(window)
        ]
        if readings:
            return number, sorted(set(readings))
    raise AssertionError(f"no pattern class holds the window {window}")


def _code(contents: Dict[int, int], reading: Sequence[int]) -> str:
    return "".join(str(contents[point]) for point in reading)


def _contents(window: Sequence[int], own: int, opp: int) -> Dict[int, int]:
    """{point: 0, 1 or 2} of ``window``'s points, from bit ``i`` of the nibbles ``own`` and ``opp``."""
    return {point: (own >> bit & 1) + 2 * (opp >> bit & 1) for bit, point in enumerate(window)}


_READINGS = {window: _readings(window) for window in WINDOWS}  # read once: the agent builds its tables each move


def _shape(window: Tuple[int, ...], own: int, opp: int) -> str:
    """``quad_<class>_<digits>`` of a window whose points hold the nibbles ``own``/``opp`` (bit order)."""
    number, readings = _READINGS[window]
    contents = _contents(window, own, opp)
    return f"quad_{PATTERN_CLASSES[number].name}_{min(_code(contents, r) for r in readings)}"


_NIBBLES = [(own, opp) for own in range(16) for opp in range(16) if not own & opp]
PATTERNS = tuple(
    sorted(
        {_shape(window, own, opp) for window in WINDOWS for own, opp in _NIBBLES},
        key=lambda name: ([c.name for c in PATTERN_CLASSES].index(name.split("_")[1]), name),
    )
)
PATTERN_INDEX = {name: index for index, name in enumerate(PATTERNS)}
# WINDOW_TABLES[window][own nibble | opp nibble << 4]: the index in PATTERNS of its shape (-1: no such
# contents, a point both colours')
WINDOW_TABLES = tuple(
    tuple(PATTERN_INDEX[_shape(window, key & 15, key >> 4)] if not key & 15 & key >> 4 else -1 for key in range(256))
    for window in WINDOWS
)
WINDOW_TOPS = tuple(window[0] for window in WINDOWS)
_LOOKUPS = tuple(zip(WINDOW_TOPS, WINDOW_TABLES))
_LOW, _HIGH, _BELOW = 3, 12, BOARD_SIZE - 2  # a window's row pairs of bits: (x >> top) & 3, (x >> (top + 3)) & 12


def pattern_indices(own: int, opp: int) -> List[int]:
    """The index in PATTERNS of each of the 16 windows' shapes, sorted (a shape twice: twice), the mover's
    stones ``own``, the opponent's ``opp``."""
    return sorted(
        [
            table[
                (own >> top & _LOW)
                | (own >> (top + _BELOW) & _HIGH)
                | (opp >> top & _LOW) << 4
                | (opp >> (top + _BELOW) & _HIGH) << 4
            ]
            for top, table in _LOOKUPS
        ]
    )


def pattern_counts(own: int, opp: int) -> List[int]:
    """How many of the windows show each shape, in PATTERNS order."""
    counts = [0] * len(PATTERNS)
    for index in pattern_indices(own, opp):
        counts[index] += 1
    return counts
