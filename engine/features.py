"""Evaluation features: named numbers about a position, from the side to move.

Each feature is "own minus opponent" unless its name says whose it is. They run at
every leaf of the search, so each is a few bitboard operations or table look-ups, and
``feature_values`` computes them all at once, in ``FEATURES`` order: the one place where
each feature is defined. The terms, in that order:

- ``margin``: the stone margin if the game ended now, komi included;
- ``margin_late``: the margin scaled by how far the game has gone (0 at ply 0, 1 at ply 24);
- ``liberties``: distinct empty points next to the mover's stones, minus the opponent's;
- ``atari_own``: the mover's stones in groups with one liberty (the opponent threatens them);
- ``atari_opp``: the opponent's stones in atari (the mover can capture them now);
- ``two_liberty``: stones in two-liberty groups, mover minus opponent;
- ``euler``: Euler number (components minus holes) of the mover's stones minus the opponent's;
- ``edge``, ``corner``: stones on the first line, on the four corners, mover minus opponent;
- ``eyes``: real eyes of the mover minus the opponent's;
- ``captures``: the mover's net captures since the search root (the search supplies it).
"""

from operator import mul

from engine.bitboard import (
    FULL, BIT, EDGE, CORNERS, DIAGONALS, neighbours, groups, count, points_of,
)
from engine.constants import BOARD_SIZE, MAX_MOVES

FEATURES = (
    "margin", "margin_late", "liberties", "atari_own", "atari_opp", "two_liberty",
    "euler", "edge", "corner", "eyes", "captures",
)


def group_risk(stones, empty):
    """(stones in groups with one liberty, stones in groups with two liberties)."""
    in_atari = in_two = 0
    for group in groups(stones):
        group_liberties = neighbours(group) & empty
        if group_liberties & (group_liberties - 1) == 0:
            in_atari += count(group)
        else:
            rest = group_liberties & (group_liberties - 1)
            if rest & (rest - 1) == 0:
                in_two += count(group)
    return in_atari, in_two


# Gray's bit-quads: over the board padded with an empty border, count the 2x2 windows
# with one stone (Q1), three stones (Q3) and two diagonal stones (QD); with
# 4-connectivity the Euler number (components minus holes) is (Q1 - Q3 + 2 QD) / 4.
# The windows straddling two adjacent rows depend only on those two rows' bits, so
# a table over (upper row, lower row) sums a whole row of windows in one look-up.
def _quad_row(upper, lower):
    total = 0
    for left in range(-1, BOARD_SIZE):
        cells = [(row >> column) & 1 if 0 <= column < BOARD_SIZE else 0
                 for row in (upper, lower) for column in (left, left + 1)]
        top_left, top_right, bottom_left, bottom_right = cells
        stones = sum(cells)
        if stones == 1:
            total += 1
        elif stones == 3:
            total -= 1
        elif stones == 2 and top_left == bottom_right:
            total += 2
    return total


_ROW_BITS = (1 << BOARD_SIZE) - 1
_QUAD_ROWS = tuple(tuple(_quad_row(upper, lower) for lower in range(1 << BOARD_SIZE))
                   for upper in range(1 << BOARD_SIZE))


def euler_number(stones):
    """Components minus holes of a set of stones (4-connectivity), by bit-quads."""
    rows = [(stones >> (BOARD_SIZE * r)) & _ROW_BITS for r in range(BOARD_SIZE)]
    total = _QUAD_ROWS[0][rows[0]] + _QUAD_ROWS[rows[-1]][0]
    for upper, lower in zip(rows, rows[1:]):
        total += _QUAD_ROWS[upper][lower]
    return total // 4


def real_eyes(stones, other):
    """Empty points whose orthogonal neighbours are all ``stones`` and that are not false eyes.

    An eye is false when the opponent holds two of its diagonals in the centre, or one
    on the edge or in the corner (where there are fewer than four diagonals).
    """
    empty = FULL ^ stones ^ other
    eyes = 0
    for point in points_of(empty & ~neighbours(empty | other)):
        enemy_diagonals = count(DIAGONALS[point] & other)
        if enemy_diagonals < (2 if BIT[point] & ~EDGE else 1):
            eyes += 1
    return eyes


def feature_values(position, captured=0):
    """All features in FEATURES order; ``captured`` is the mover's net captures since the root."""
    own, opp = position.own, position.opp
    empty = FULL ^ own ^ opp
    own_atari, own_two = group_risk(own, empty)
    opp_atari, opp_two = group_risk(opp, empty)
    stone_margin = position.margin()
    return (
        stone_margin,
        stone_margin * position.moves_played / MAX_MOVES,
        count(neighbours(own) & empty) - count(neighbours(opp) & empty),
        own_atari,
        opp_atari,
        own_two - opp_two,
        euler_number(own) - euler_number(opp),
        count(own & EDGE) - count(opp & EDGE),
        count(own & CORNERS) - count(opp & CORNERS),
        real_eyes(own, opp) - real_eyes(opp, own),
        captured,
    )


_EVALUATION_CACHE = 300000       # positions remembered by one evaluator before it starts afresh


def make_evaluator(weights):
    """An evaluator ``evaluate(position, captured) -> float`` from weights by feature name
    (a mapping) or a sequence in FEATURES order (a genome)."""
    if isinstance(weights, dict):
        vector = tuple(float(weights[name]) for name in FEATURES)
    else:
        vector = tuple(float(w) for w in weights)
        if len(vector) != len(FEATURES):
            raise ValueError("expected {} weights, got {}".format(len(FEATURES), len(vector)))

    # Every term but the captures depends on the position alone, and a search meets the same
    # positions again and again (each deepening iteration, transpositions): that part is
    # remembered, the captures term (the path's) added each time.
    captures_weight = vector[FEATURES.index("captures")]
    static = vector[:FEATURES.index("captures")] + (0.0,) + vector[FEATURES.index("captures") + 1:]
    cache = {}

    def evaluate(position, captured=0):
        key = (position.own, position.opp, position.player, position.moves_played)
        value = cache.get(key)
        if value is None:
            if len(cache) > _EVALUATION_CACHE:
                cache.clear()
            value = cache[key] = sum(map(mul, static, feature_values(position, 0)))
        return value + captures_weight * captured

    evaluate.weights = vector
    return evaluate
