"""Bitboards: a set of points as a 25-bit integer, bit ``point`` set when present.

Everything here is a module constant built once at import, so the hot loops of the
rules and the search do no bounds arithmetic.
"""

import random
from typing import Iterator, List, Tuple

from engine.constants import BOARD_SIZE, NUM_POINTS

Bitboard = int  # a set of points: bit ``point`` set when present

FULL = (1 << NUM_POINTS) - 1
BIT = tuple(1 << p for p in range(NUM_POINTS))

_COLUMN_0 = sum(BIT[BOARD_SIZE * i] for i in range(BOARD_SIZE))
_COLUMN_LAST = _COLUMN_0 << (BOARD_SIZE - 1)
NOT_COLUMN_0 = FULL ^ _COLUMN_0
NOT_COLUMN_LAST = FULL ^ _COLUMN_LAST

EDGE = FULL ^ sum(BIT[BOARD_SIZE * i + j] for i in range(1, BOARD_SIZE - 1) for j in range(1, BOARD_SIZE - 1))
CORNERS = BIT[0] | BIT[BOARD_SIZE - 1] | BIT[NUM_POINTS - BOARD_SIZE] | BIT[NUM_POINTS - 1]
CENTRE = BIT[NUM_POINTS // 2]


def neighbours(mask: Bitboard) -> Bitboard:
    """Points orthogonally next to some point of ``mask`` (may include ``mask`` itself)."""
    return (
        ((mask << 1) & NOT_COLUMN_0) | ((mask >> 1) & NOT_COLUMN_LAST) | (mask << BOARD_SIZE) | (mask >> BOARD_SIZE)
    ) & FULL


def _diagonals(point: int) -> Bitboard:
    i, j = divmod(point, BOARD_SIZE)
    return sum(
        BIT[BOARD_SIZE * a + b]
        for a, b in ((i - 1, j - 1), (i - 1, j + 1), (i + 1, j - 1), (i + 1, j + 1))
        if 0 <= a < BOARD_SIZE and 0 <= b < BOARD_SIZE
    )


NEIGHBOURS = tuple(neighbours(BIT[p]) for p in range(NUM_POINTS))
CROSS = NEIGHBOURS[NUM_POINTS // 2]  # the four points next to the centre
DIAGONALS = tuple(_diagonals(p) for p in range(NUM_POINTS))


def grow(seed: Bitboard, stones: Bitboard) -> Bitboard:
    """All points of ``stones`` connected to ``seed`` (the groups that ``seed`` touches)."""
    group = seed
    while True:
        grown = (
            group
            | ((group << 1) & NOT_COLUMN_0)
            | ((group >> 1) & NOT_COLUMN_LAST)
            | (group << BOARD_SIZE)
            | (group >> BOARD_SIZE)
        ) & stones
        if grown == group:
            return group
        group = grown


def groups(stones: Bitboard) -> Iterator[Bitboard]:
    """Each group (connected set) of ``stones``, one after another."""
    while stones:
        group = grow(stones & -stones, stones)
        stones ^= group
        yield group


def points_of(mask: Bitboard) -> List[int]:
    """The points of ``mask``, ascending."""
    points = []
    while mask:
        low = mask & -mask
        points.append(low.bit_length() - 1)
        mask ^= low
    return points


# The row-wise look-ups below are unrolled for five rows of five bits (shifts 0, 5, 10,
# 15, 20): the hot paths pay no loop. A different board size must rewrite them.
assert BOARD_SIZE == 5, "bitboard row look-ups are unrolled for the 5x5 board"

# Population count by 5-bit rows: bin(x).count is slower and int.bit_count needs 3.10.
_ROW_MASK = (1 << BOARD_SIZE) - 1
_ROW_COUNT = tuple(bin(m).count("1") for m in range(1 << BOARD_SIZE))


def count(mask: Bitboard) -> int:
    """Number of points in ``mask``."""
    return (
        _ROW_COUNT[mask & _ROW_MASK]
        + _ROW_COUNT[(mask >> 5) & _ROW_MASK]
        + _ROW_COUNT[(mask >> 10) & _ROW_MASK]
        + _ROW_COUNT[(mask >> 15) & _ROW_MASK]
        + _ROW_COUNT[mask >> 20]
    )


# Zobrist keys from a fixed seed, combined per 5-bit row so a whole board hashes in
# ten look-ups: ZOBRIST_ROWS[colour_index][row][bits] is the XOR of that row's keys.
_ZOBRIST_RANDOM = random.Random(0x5A5A)
ZOBRIST_POINT = tuple(tuple(_ZOBRIST_RANDOM.getrandbits(64) for _ in range(NUM_POINTS)) for _colour in range(2))
ZOBRIST_WHITE_TO_MOVE = _ZOBRIST_RANDOM.getrandbits(64)


def _row_table(keys: Tuple[int, ...], row: int) -> Tuple[int, ...]:
    table = []
    for bits in range(1 << BOARD_SIZE):
        h = 0
        for j in range(BOARD_SIZE):
            if bits >> j & 1:
                h ^= keys[BOARD_SIZE * row + j]
        table.append(h)
    return tuple(table)


ZOBRIST_ROWS = tuple(tuple(_row_table(keys, row) for row in range(BOARD_SIZE)) for keys in ZOBRIST_POINT)


def zobrist(mask: Bitboard, colour_index: int) -> int:
    """Zobrist hash of the stones ``mask`` of one colour (0 Black, 1 White)."""
    rows = ZOBRIST_ROWS[colour_index]
    return (
        rows[0][mask & _ROW_MASK]
        ^ rows[1][(mask >> 5) & _ROW_MASK]
        ^ rows[2][(mask >> 10) & _ROW_MASK]
        ^ rows[3][(mask >> 15) & _ROW_MASK]
        ^ rows[4][mask >> 20]
    )


# Public (i, j) lists from a mask, by 5-bit rows.
_ROW_MOVES = tuple(
    tuple(tuple((row, j) for j in range(BOARD_SIZE) if bits >> j & 1) for bits in range(1 << BOARD_SIZE))
    for row in range(BOARD_SIZE)
)


def ij_list(mask: Bitboard) -> List[Tuple[int, int]]:
    """The points of ``mask`` as (i, j) pairs, row-major."""
    return list(
        _ROW_MOVES[0][mask & _ROW_MASK]
        + _ROW_MOVES[1][(mask >> 5) & _ROW_MASK]
        + _ROW_MOVES[2][(mask >> 10) & _ROW_MASK]
        + _ROW_MOVES[3][(mask >> 15) & _ROW_MASK]
        + _ROW_MOVES[4][mask >> 20]
    )
