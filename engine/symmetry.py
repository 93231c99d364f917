"""The 8 symmetries of the board (the square's rotations and reflections) and the one canonical
form of a board under them.

Symmetry ``t`` (0..7) flips the columns when ``t & 1``, the rows when ``t & 2``, then
transposes when ``t & 4``. ``SYMMETRIES[t][point]`` is a point's image; ``turn`` moves a
bitboard. The canonical form of a board is the smallest of its 8 images read as a base-3
number (point 0 the most significant digit, 1 for Black, 2 for White), the KO point's image
breaking ties, the first symmetry that gives it winning a tie between symmetries: the opening
book and the Q-learner key their tables by it, and the compiled solver gets the same table of
images (``engine.native.compiler``).
"""

from typing import Callable, Optional, Tuple

from engine.bitboard import Bitboard
from engine.constants import BOARD_SIZE, NUM_POINTS, PASS, Move, Point

Table = Tuple[Tuple[int, ...], ...]  # [symmetry][point] -> its image
RowTables = Tuple[Table, ...]  # [symmetry][row][bits of the row] -> a sum over their images
# (the board as a base-3 number, the KO point's image or -1): what sorts the 8 images
Form = Tuple[int, int]


def _images() -> Table:
    last = BOARD_SIZE - 1
    tables = []
    for t in range(8):
        table = []
        for point in range(NUM_POINTS):
            i, j = divmod(point, BOARD_SIZE)
            if t & 1:
                j = last - j
            if t & 2:
                i = last - i
            if t & 4:
                i, j = j, i
            table.append(BOARD_SIZE * i + j)
        tables.append(tuple(table))
    return tuple(tables)


SYMMETRIES = _images()
INVERSES = tuple(tuple(table.index(p) for p in range(NUM_POINTS)) for table in SYMMETRIES)
_ROW = (1 << BOARD_SIZE) - 1


def _row_tables(weight: Callable[[Point], int]) -> RowTables:
    """[t][row][bits of the row]: the sum of ``weight(image)`` over the row's set points' images."""
    return tuple(
        tuple(
            tuple(
                sum(weight(image[BOARD_SIZE * row + j]) for j in range(BOARD_SIZE) if bits >> j & 1)
                for bits in range(1 << BOARD_SIZE)
            )
            for row in range(BOARD_SIZE)
        )
        for image in SYMMETRIES
    )


_TURN = _row_tables(lambda point: 1 << point)
_DIGIT = _row_tables(lambda point: 3 ** (NUM_POINTS - 1 - point))  # a stone's base-3 digit place


def _by_rows(tables: Table, mask: Bitboard) -> int:
    total = 0
    for row in range(BOARD_SIZE):
        total += tables[row][(mask >> (BOARD_SIZE * row)) & _ROW]
    return total


def turn(mask: Bitboard, t: int) -> Bitboard:
    """A bitboard under symmetry ``t``."""
    return _by_rows(_TURN[t], mask)


def turn_move(move: Move, t: int) -> Move:
    """A move under symmetry ``t`` (PASS stays PASS)."""
    return move if move == PASS else SYMMETRIES[t][move]


def unturn_move(move: Move, t: int) -> Move:
    """The move that symmetry ``t`` takes to ``move``."""
    return move if move == PASS else INVERSES[t][move]


def canonical(black: Bitboard, white: Bitboard, ko: Optional[Point] = None) -> Tuple[Form, int]:
    """((the canonical board as a base-3 number, the KO point's image or -1), the symmetry that gives it)."""
    best: Optional[Tuple[Form, int]] = None
    for t in range(8):
        form = (_by_rows(_DIGIT[t], black) + 2 * _by_rows(_DIGIT[t], white), -1 if ko is None else SYMMETRIES[t][ko])
        if best is None or form < best[0]:
            best = (form, t)
    assert best is not None
    return best
