"""The evaluation's hidden layer: a few units that read the whole board and the features at once.

The weighted features (``engine.features``) and the pattern weights (``engine.patterns``) add up
linearly, and a linear sum stops near 92% of the won positions kept at depth 4 however it is fitted
(experiments/patterns-20261128: train and held-out alike, so capacity, not data). A hidden layer is
the capacity: each ``Unit`` sums a weight for each point holding the mover's stone (``own``), one for
each point holding the opponent's (``opp``) and each feature's value times its weight (``features``,
FEATURES order; the captures feature's weight is always 0: a unit reads the position, never the
search's path), squashes the sum by tanh and adds it to the evaluation times its ``out`` weight.

The arithmetic is fixed, because the compiled searcher (``engine/native/search.c``) must return the
same doubles, and it is whole numbers, so that no order of additions can change a sum (``FixedLayer``):
each weight but ``out`` counts in ``2**-FRACTION_BITS`` (rounded to the nearest), a feature's weight per
``1/denominator`` of its value (FEATURE_TABLE's ``denominator``: the margin moves by half points), and a
unit's sum is its bias, plus its ``own`` weight at each of the mover's stones, its ``opp`` weight at each
of the opponent's, plus each feature's value in ``1/denominator`` (rounded to the nearest whole number)
times its weight: exact in any order. The sum times ``2**-FRACTION_BITS`` as a double goes through tanh,
times ``out``; the layer's value is the units' terms added as ``sum()`` adds them, in unit order (Python
3.12+ compensates, and search.c follows). The evaluation adds it to the features' and patterns' sum
(``make_evaluator``).

Exact sums let the Python evaluation read the stones a row of the board at a time: ``LayerReader`` packs
every unit's sum into one integer of 64-bit lanes (adding packed integers adds each lane) and keeps, for
each row and each way the row's points can be filled, the packed sum of its stones' weights; a leaf adds
five of them and a few features' packed products, then unpacks the lanes once. The rounding moves a
unit's sum by at most about ``2**-33`` a weight (a feature's weight times its value in ``1/denominator``).

A params file gives the layer as ``"network"``: a list of units, each
``{"bias": b, "own": [25 numbers], "opp": [25 numbers], "features": {name: number}, "out": w}`` (a
feature left out weighs 0). Fitted by ``evolve network`` (``evolve.solved.network_fit``); a run may evolve
its weights from there (``[start] parts``, ``evolve.params_genes``).
"""

import functools
import math
import struct
from itertools import repeat
from operator import mul
from typing import Any, Dict, List, NamedTuple, Sequence, Tuple

from engine.constants import BOARD_SIZE, MAX_WEIGHT, NUM_POINTS
from engine.errors import InvalidInput

MAX_UNITS = 64  # the compiled searcher's room (search.c's NETWORK_UNITS comes from here)
UNIT_KEYS = ("bias", "own", "opp", "features", "out")
FRACTION_BITS = 32  # a unit's weights and sum count in 2**-FRACTION_BITS (search.c gets it from here)
# the size a feature's value in 1/denominator never reaches (the margin late in the game: 48 * 27.5 = 1,320)
WHOLE_VALUE_LIMIT = 1 << 12
_SUM_LIMIT = 1 << 62  # what a unit's sum stays below in size: its lane of 64 bits, or search.c's int64_t
_LANE = 64
_PRODUCTS = 4096  # a feature's values whose packed products a LayerReader keeps
_REMEMBERED = 8  # the networks whose whole-number weights and tables are kept for the next evaluator


class Unit(NamedTuple):
    """One hidden unit: its bias, a weight a point for the mover's stones (``own``) and the opponent's
    (``opp``), a weight a feature (FEATURES order, the captures' 0.0), and its weight in the evaluation."""

    bias: float
    own: Tuple[float, ...]
    opp: Tuple[float, ...]
    features: Tuple[float, ...]
    out: float


class Network(NamedTuple):
    """The hidden layer: its units, in the order their values are added."""

    units: Tuple[Unit, ...]


class NetworkError(InvalidInput):
    """A ``network`` object that cannot be used; the message names the unit and key."""


def network_from_list(data: object, features: Sequence[str], path: str, source: str = "params") -> Network:
    """A Network from a params file's ``network`` list (``features``: FEATURES, in order; ``path``: the
    feature a unit may not read, engine.features.PATH_FEATURE); NetworkError naming what is wrong, e.g.
    ``params: network[3].own: expected 25 numbers (one a point), found 24``."""
    if not isinstance(data, list) or not data:
        raise NetworkError(f"{source}: 'network' must be a list of 1 to {MAX_UNITS} units")
    if len(data) > MAX_UNITS:
        raise NetworkError(f"{source}: network: {len(data)} units; at most {MAX_UNITS}")
    return Network(units=tuple(_unit(item, features, path, f"{source}: network[{k}]") for k, item in enumerate(data)))


def _unit(item: object, features: Sequence[str], path: str, where: str) -> Unit:
    if not isinstance(item, dict):
        raise NetworkError(f"{where}: expected an object with keys {', '.join(UNIT_KEYS)}")
    unknown = sorted(set(item) - set(UNIT_KEYS))
    if unknown:
        raise NetworkError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(UNIT_KEYS)})")
    missing = [key for key in UNIT_KEYS if key not in item and key != "features"]
    if missing:
        raise NetworkError(f"{where}: no {missing[0]!r}")
    weights = item.get("features", {})
    if not isinstance(weights, dict):
        raise NetworkError(f"{where}.features: expected an object of feature: number")
    unknown = sorted(set(weights) - set(features))
    if unknown:
        raise NetworkError(f"{where}.features: unknown feature {unknown[0]!r} (known: {', '.join(features)})")
    if weights.get(path, 0.0) != 0.0:
        raise NetworkError(f"{where}.features.{path}: a unit reads the position, not the search's path: must be 0")
    return Unit(
        bias=_weight(item["bias"], f"{where}.bias"),
        own=_points(item["own"], f"{where}.own"),
        opp=_points(item["opp"], f"{where}.opp"),
        features=tuple(_weight(weights.get(name, 0.0), f"{where}.features.{name}") for name in features),
        out=_number(item["out"], f"{where}.out"),
    )


def _points(values: object, where: str) -> Tuple[float, ...]:
    if not isinstance(values, list) or len(values) != NUM_POINTS:
        found = f"{len(values)}" if isinstance(values, list) else type(values).__name__
        raise NetworkError(f"{where}: expected {NUM_POINTS} numbers (one a point), found {found}")
    return tuple(_weight(value, f"{where}[{point}]") for point, value in enumerate(values))


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise NetworkError(f"{where}: expected a finite number, found {value!r:.60}")
    return float(value)


def _weight(value: object, where: str) -> float:
    """A unit's weight (all but ``out``): a finite number at most MAX_WEIGHT in size."""
    number = _number(value, where)
    if abs(number) > MAX_WEIGHT:
        raise NetworkError(f"{where}: {number:g} is larger than {MAX_WEIGHT:g} in size (a unit's weights' limit)")
    return number


def network_to_list(network: Network, features: Sequence[str]) -> List[Dict[str, Any]]:
    """The params file's ``network`` list of ``network`` (a feature weighing 0.0 left out)."""
    return [
        {
            "bias": unit.bias,
            "own": list(unit.own),
            "opp": list(unit.opp),
            "features": {name: w for name, w in zip(features, unit.features) if w != 0.0},
            "out": unit.out,
        }
        for unit in network.units
    ]


def scaled(network: Network, factor: float) -> Network:
    """``network`` with every ``out`` weight times ``factor``: its value times ``factor``, no unit changed."""
    return Network(units=tuple(unit._replace(out=unit.out * factor) for unit in network.units))


class FixedLayer(NamedTuple):
    """A layer's weights as the evaluation adds them (the module's arithmetic): whole numbers of
    ``2**-FRACTION_BITS``, a feature's per ``1/denominator`` of its value; ``out`` as it is."""

    bias: Tuple[int, ...]  # a unit's
    own: Tuple[Tuple[int, ...], ...]  # [unit][point]
    opp: Tuple[Tuple[int, ...], ...]  # [unit][point]
    features: Tuple[Tuple[int, ...], ...]  # [unit][feature, FEATURES order]
    denominators: Tuple[int, ...]  # [feature]: its value times this is a whole number
    out: Tuple[float, ...]  # a unit's


@functools.lru_cache(maxsize=_REMEMBERED)
def fixed_layer(network: Network, denominators: Tuple[int, ...]) -> FixedLayer:
    """``network``'s weights in whole numbers of ``2**-FRACTION_BITS`` (``denominators``: FEATURE_TABLE's,
    in FEATURES order); NetworkError if a unit's sum could outgrow its 64 bits. Remembered for the last
    few networks (a value of its arguments alone): the ruler builds an evaluator a position."""

    def whole(weight: float, denominator: int = 1) -> int:
        return round(math.ldexp(weight / denominator, FRACTION_BITS))

    units = network.units
    layer = FixedLayer(
        bias=tuple(whole(unit.bias) for unit in units),
        own=tuple(tuple(map(whole, unit.own)) for unit in units),
        opp=tuple(tuple(map(whole, unit.opp)) for unit in units),
        features=tuple(tuple(map(whole, unit.features, denominators)) for unit in units),
        denominators=tuple(denominators),
        out=tuple(unit.out for unit in units),
    )
    for k in range(len(units)):
        largest = abs(layer.bias[k]) + sum(map(max, map(abs, layer.own[k]), map(abs, layer.opp[k])))
        largest += sum(abs(w) for w in layer.features[k]) * WHOLE_VALUE_LIMIT
        if largest >= _SUM_LIMIT:
            raise NetworkError(f"network[{k}]: its weights are too large for its sum to stay exact")
    return layer


def _packed(lanes: Sequence[int]) -> int:
    """One integer holding ``lanes`` (signed, each below 2**63 in size) 64 bits each, lane 0 lowest: adding
    two such integers adds their lanes, and so does multiplying one by a whole number."""
    return sum(lane << (_LANE * k) for k, lane in enumerate(lanes))


@functools.lru_cache(maxsize=_REMEMBERED)
def layer_reader(layer: FixedLayer) -> "LayerReader":
    """The LayerReader of ``layer``, remembered like ``fixed_layer``: its tables are built once a layer."""
    return LayerReader(layer)


class LayerReader:
    """``LayerReader(fixed_layer(network, denominators))(own, opp, features)``: the layer's value for the
    mover's stones ``own``, the opponent's ``opp`` (bitboards) and the position's ``features`` (FEATURES
    order), by the module's arithmetic, with every unit's sum in one packed integer (``_packed``)."""

    def __init__(self, layer: FixedLayer):
        units = len(layer.bias)
        # each lane starts at 2**63 so that it stays in [0, 2**64); flipping its top bit reads it signed
        self.flip = _packed([1 << (_LANE - 1)] * units)
        self.start = self.flip + _packed(layer.bias)
        own = [_packed([weights[point] for weights in layer.own]) for point in range(NUM_POINTS)]
        opp = [_packed([weights[point] for weights in layer.opp]) for point in range(NUM_POINTS)]
        self.rows = tuple(
            (BOARD_SIZE * row, _row_sums(own[BOARD_SIZE * row :][:BOARD_SIZE], opp[BOARD_SIZE * row :][:BOARD_SIZE]))
            for row in range(BOARD_SIZE)
        )
        # the features some unit weighs: (index, denominator, packed weights, products by value)
        self.features: List[Tuple[int, int, int, Dict[float, int]]] = [
            (f, layer.denominators[f], _packed(column), {})
            for f, column in enumerate(zip(*layer.features))
            if any(column)
        ]
        self.out = layer.out
        self.lanes = struct.Struct(f"<{units}q")
        self.size = units * _LANE // 8

    def __call__(self, own: int, opp: int, features: Sequence[float]) -> float:
        mask = (1 << BOARD_SIZE) - 1
        packed = self.start
        for shift, sums in self.rows:
            packed += sums[(own >> shift & mask) << BOARD_SIZE | opp >> shift & mask]
        for index, denominator, weights, products in self.features:
            value = features[index]
            if value:
                product = products.get(value)
                if product is None:
                    if len(products) > _PRODUCTS:
                        products.clear()
                    product = products[value] = round(value * denominator) * weights
                packed += product
        lanes: Tuple[int, ...] = self.lanes.unpack((packed ^ self.flip).to_bytes(self.size, "little"))
        total: float = sum(map(mul, self.out, map(math.tanh, map(mul, lanes, repeat(_SCALE)))))
        return total


_SCALE = math.ldexp(1.0, -FRACTION_BITS)


def _row_sums(own: Sequence[int], opp: Sequence[int]) -> List[int]:
    """The packed sums of one row's stones, by ``own_bits << BOARD_SIZE | opp_bits`` (the row's points
    in order, lowest bit first; a point in both is never looked up): each from the sum with one stone
    fewer."""
    width = len(own)
    stones = list(opp) + list(own)  # bit b of the index: opp[b], then own[b - width]
    sums = [0] * (1 << (2 * width))
    for index in range(1, len(sums)):
        if (index >> width) & index:
            continue
        low = (index & -index).bit_length() - 1
        sums[index] = sums[index & (index - 1)] + stones[low]
    return sums
