"""Evaluation features: named numbers about a position, from the side to move.

``FEATURE_TABLE`` declares each feature once: its name, what it measures, its hand-set default
weight and the bounds evolution searches by default. Everything else derives from it: the
order of ``FEATURES`` (of a genome, of ``feature_values``, of the compiled twin's array, whose
indices the C gets from this table as it gets the game's numbers), the default weights
(``engine.params``) and the default bounds (``evolve.config_genome``). Each feature is "own minus
opponent" unless its name says whose it is. They run at every leaf of the search, so each is
a few bitboard operations or table look-ups; ``feature_values`` computes them all at once.

Adding a feature: its row here, its Python computation in ``feature_values`` and its C
computation in ``engine/native/search_features.h`` (``f[FEATURE_NAME] = ...``). The guide
``docs/add-a-feature.md`` walks through it.
"""

from fractions import Fraction
from itertools import chain
from operator import itemgetter, mul
from typing import TYPE_CHECKING, Callable, Dict, Iterable, NamedTuple, Optional, Sequence, Tuple, Union, cast

from engine.bitboard import (
    BIT,
    CENTRE,
    CORNERS,
    CROSS,
    DIAGONALS,
    EDGE,
    FULL,
    Bitboard,
    count,
    groups,
    neighbours,
    points_of,
)
from engine.constants import BOARD_SIZE, KOMI, MAX_MOVES
from engine.network import FixedLayer, LayerReader, Network, fixed_layer, layer_reader
from engine.patterns import PATTERNS, pattern_indices
from engine.position import Position

if TYPE_CHECKING:
    # Read by the type checker alone: typing.Protocol is Python 3.8, and the course runs 3.7.
    from typing import Protocol  # novermin

    class Evaluator(Protocol):
        """What a search calls at a leaf: the position's value for its mover, ``captured`` the
        mover's net captures since the search's root (the one term that depends on the path)."""

        def __call__(self, position: Position, captured: int = 0) -> float: ...

else:
    Evaluator = Callable


class Feature(NamedTuple):
    """One evaluation feature: its name, what it measures (one line), its hand-set default weight
    (a sensible start, not evolved) and the [low, high] bounds evolution searches by default."""

    name: str
    meaning: str
    default: float
    bounds: Tuple[float, float]
    # what every value of the feature times is a whole number (the hidden layer counts it so)
    denominator: int = 1


_KOMI_DENOMINATOR = Fraction(KOMI).denominator  # the margin moves by whole stones from komi's fraction

# Material dominates the defaults; stones in danger and liberties refine it.
FEATURE_TABLE = (
    Feature(
        name="margin",
        meaning="the stone margin if the game ended now, komi included",
        default=10.0,
        bounds=(0.0, 20.0),
        denominator=_KOMI_DENOMINATOR,
    ),
    Feature(
        name="margin_late",
        meaning="the margin scaled by how far the game has gone (0 at ply 0, 1 at ply 24)",
        default=4.0,
        bounds=(-10.0, 10.0),
        denominator=_KOMI_DENOMINATOR * MAX_MOVES,
    ),
    Feature(
        name="liberties",
        meaning="distinct empty points next to the mover's stones, minus the opponent's",
        default=1.0,
        bounds=(-5.0, 5.0),
    ),
    Feature(
        name="atari_own",
        meaning="the mover's stones in groups with one liberty (the opponent threatens them)",
        default=-3.0,
        bounds=(-10.0, 5.0),
    ),
    Feature(
        name="atari_opp",
        meaning="the opponent's stones in atari (the mover can capture them now)",
        default=1.5,
        bounds=(-5.0, 10.0),
    ),
    Feature(
        name="two_liberty",
        meaning="stones in two-liberty groups, mover minus opponent",
        default=0.5,
        bounds=(-5.0, 5.0),
    ),
    Feature(
        name="euler",
        meaning="Euler number (components minus holes) of the mover's stones minus the opponent's",
        default=-1.0,
        bounds=(-5.0, 5.0),
    ),
    Feature(name="edge", meaning="stones on the first line, mover minus opponent", default=-0.5, bounds=(-5.0, 5.0)),
    Feature(
        name="corner", meaning="stones on the four corners, mover minus opponent", default=-0.5, bounds=(-5.0, 5.0)
    ),
    Feature(name="eyes", meaning="real eyes of the mover minus the opponent's", default=2.0, bounds=(-5.0, 10.0)),
    Feature(
        name="captures",
        meaning="the mover's net captures since the search root (the search supplies it)",
        default=1.0,
        bounds=(-5.0, 10.0),
    ),
    # Added after the study of won openings given away (experiments/giveaways-20261124): the centre
    # point is the winning move of every Black give-away there, and no other feature tells it apart.
    Feature(
        name="centre",
        meaning="a stone on the centre point, the mover's (1), the opponent's (-1) or none",
        default=0.0,
        bounds=(-5.0, 20.0),
    ),
    # Added after the study of seed 3841: in 7 of its 9 give-aways (White's) a point next to the
    # centre wins where a diagonal one was played; in 6 of the 7 the other features value it no higher.
    Feature(
        name="cross",
        meaning="stones on the four points next to the centre, mover minus opponent",
        default=0.0,
        bounds=(-5.0, 20.0),
    ),
)
FEATURES = tuple(feature.name for feature in FEATURE_TABLE)
DENOMINATORS = tuple(feature.denominator for feature in FEATURE_TABLE)  # the hidden layer's (engine.network)
_IN_ORDER = itemgetter(*FEATURES)  # a computation's values by name -> their tuple in FEATURES order
# The one feature that depends on the search's path, not the position: the evaluator adds it apart.
PATH_FEATURE = "captures"


def group_risk(stones: Bitboard, empty: Bitboard) -> Tuple[int, int]:
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
def _quad_row(upper: int, lower: int) -> int:
    total = 0
    for left in range(-1, BOARD_SIZE):
        cells = [
            (row >> column) & 1 if 0 <= column < BOARD_SIZE else 0
            for row in (upper, lower)
            for column in (left, left + 1)
        ]
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
_QUAD_ROWS = tuple(
    tuple(_quad_row(upper, lower) for lower in range(1 << BOARD_SIZE)) for upper in range(1 << BOARD_SIZE)
)


def euler_number(stones: Bitboard) -> int:
    """Components minus holes of a set of stones (4-connectivity), by bit-quads."""
    rows = [(stones >> (BOARD_SIZE * r)) & _ROW_BITS for r in range(BOARD_SIZE)]
    total = _QUAD_ROWS[0][rows[0]] + _QUAD_ROWS[rows[-1]][0]
    for upper, lower in zip(rows, rows[1:]):
        total += _QUAD_ROWS[upper][lower]
    return total // 4


def real_eyes(stones: Bitboard, other: Bitboard) -> int:
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


def feature_values(position: Position, captured: int = 0) -> Tuple[float, ...]:
    """All features in FEATURES order; ``captured`` is the mover's net captures since the root."""
    own, opp = position.own, position.opp
    empty = FULL ^ own ^ opp
    own_atari, own_two = group_risk(own, empty)
    opp_atari, opp_two = group_risk(opp, empty)
    stone_margin = position.margin()
    values = {
        "margin": stone_margin,
        "margin_late": stone_margin * position.moves_played / MAX_MOVES,
        "liberties": count(neighbours(own) & empty) - count(neighbours(opp) & empty),
        "atari_own": own_atari,
        "atari_opp": opp_atari,
        "two_liberty": own_two - opp_two,
        "euler": euler_number(own) - euler_number(opp),
        "edge": count(own & EDGE) - count(opp & EDGE),
        "corner": count(own & CORNERS) - count(opp & CORNERS),
        "eyes": real_eyes(own, opp) - real_eyes(opp, own),
        "captures": captured,
        "centre": count(own & CENTRE) - count(opp & CENTRE),
        "cross": count(own & CROSS) - count(opp & CROSS),
    }
    return cast(Tuple[float, ...], _IN_ORDER(values))


_EVALUATION_CACHE = 300000  # positions remembered by one evaluator before it starts afresh


# Weights: by feature name, or a sequence in FEATURES order (a genome).
Weights = Union[Dict[str, float], Sequence[float]]
ByPly = Tuple[Tuple[float, ...], ...]  # [ply 0..MAX_MOVES][feature, in FEATURES order]


def _vector(weights: Weights) -> Tuple[float, ...]:
    """Weights by feature name (a mapping) or a sequence in FEATURES order, as a tuple of floats."""
    if isinstance(weights, dict):
        return tuple(float(weights[name]) for name in FEATURES)
    vector = tuple(float(w) for w in weights)
    if len(vector) != len(FEATURES):
        raise ValueError(f"expected {len(FEATURES)} weights, got {len(vector)}")
    return vector


def weights_by_ply(weights: Weights, endgame: Optional[Weights] = None) -> ByPly:
    """The weight vector the evaluation uses at each ply 0..MAX_MOVES (FEATURES order).

    Flat weights are the same at every ply. Tapered weights go in a straight line from
    ``weights`` at ply 0 (the opening's) to ``endgame`` at ply MAX_MOVES: at ply p each weight
    is ``opening + (p / MAX_MOVES) * (endgame - opening)``. The compiled twin is given this
    table, so both evaluate with the very same numbers."""
    opening = _vector(weights)
    if endgame is None:
        return (opening,) * (MAX_MOVES + 1)
    end = _vector(endgame)
    return tuple(tuple(o + (ply / MAX_MOVES) * (e - o) for o, e in zip(opening, end)) for ply in range(MAX_MOVES + 1))


class WeightedEvaluator:
    """An evaluator of weights: ``evaluator(position, captured) -> float``, the position's value for its
    mover. Its fields are what it evaluates with, and what the compiled twin reads: the weights at each
    ply (``by_ply``), the pattern weights (``patterns``, PATTERNS order; None: none) and the hidden layer
    (``network``; None: none). Built by ``make_evaluator``.

    Every term but the captures depends on the position alone, and a search meets the same positions
    again and again (each deepening iteration, transpositions): that part is remembered (``cache``), the
    captures term (the path's) added each time."""

    __slots__ = ("by_ply", "patterns", "network", "layer", "cache", "_statics", "_captures", "_reader")

    def __init__(self, by_ply: ByPly, patterns: Optional[Tuple[float, ...]], network: Optional[Network]):
        self.by_ply, self.patterns, self.network = by_ply, patterns, network
        path = FEATURES.index(PATH_FEATURE)
        self._statics = tuple(vector[:path] + (0.0,) + vector[path + 1 :] for vector in by_ply)
        self._captures = tuple(vector[path] for vector in by_ply)
        # the layer in whole numbers (what the compiled twin reads); its reader made at the first evaluation
        self.layer: Optional[FixedLayer] = None if network is None else fixed_layer(network, DENOMINATORS)
        self._reader: Optional[LayerReader] = None
        self.cache: Dict[Tuple[int, int, int, int], float] = {}

    def __call__(self, position: Position, captured: int = 0) -> float:
        ply = min(position.moves_played, MAX_MOVES)
        key = (position.own, position.opp, position.player, position.moves_played)
        cache = self.cache
        value = cache.get(key)
        if value is None:
            if len(cache) > _EVALUATION_CACHE:
                cache.clear()
            values = feature_values(position, 0)
            terms: Iterable[float] = map(mul, self._statics[ply], values)
            shapes = self.patterns
            if shapes is not None:  # one sum, as the compiled twin adds them
                terms = chain(terms, [shapes[index] for index in pattern_indices(position.own, position.opp)])
            value = sum(terms)
            if self.layer is not None:
                reader = self._reader
                if reader is None:
                    reader = self._reader = layer_reader(self.layer)
                value += reader(position.own, position.opp, values)
            cache[key] = value
        return value + self._captures[ply] * captured


def make_evaluator(
    weights: Weights,
    endgame: Optional[Weights] = None,
    patterns: Optional[Sequence[float]] = None,
    network: Optional[Network] = None,
) -> WeightedEvaluator:
    """A WeightedEvaluator from weights by feature name (a mapping) or a sequence in FEATURES order (a
    genome); with ``endgame`` weights too, tapered: each weight interpolated by ply between the two
    (``weights_by_ply``); with ``patterns`` (a weight for each shape of engine.patterns' PATTERNS, in its
    order), the weights of the board's windows' shapes added after the features', window by window in
    the order of their shapes; with a ``network`` (engine.network), its layer's value added to that sum."""
    shapes = None if patterns is None else tuple(float(w) for w in patterns)
    if shapes is not None and len(shapes) != len(PATTERNS):
        raise ValueError(f"expected {len(PATTERNS)} pattern weights, got {len(shapes)}")
    return WeightedEvaluator(weights_by_ply(weights, endgame), shapes, network)


def stone_weight(evaluate: WeightedEvaluator, ply: int) -> float:
    """What one stone of margin is worth to an evaluator from ``make_evaluator`` at ``ply``: the
    ``margin`` weight there, the evaluation's natural unit."""
    return abs(evaluate.by_ply[min(ply, MAX_MOVES)][FEATURES.index("margin")])
