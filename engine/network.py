"""The evaluation's hidden layer: a few units that read the whole board and the features at once.

The weighted features (``engine.features``) and the pattern weights (``engine.patterns``) add up
linearly, and a linear sum stops near 92% of the won positions kept at depth 4 however it is fitted
(experiments/patterns-20261128: train and held-out alike, so capacity, not data). A hidden layer is
the capacity: each ``Unit`` sums a weight for each point holding the mover's stone (``own``), one for
each point holding the opponent's (``opp``) and each feature's value times its weight (``features``,
FEATURES order; the captures feature's weight is always 0: a unit reads the position, never the
search's path), squashes the sum by tanh and adds it to the evaluation times its ``out`` weight.

The arithmetic is fixed, because the compiled searcher (``engine/native/search.c``) must return the
same doubles: each unit starts from its ``bias``, adds its ``own`` weights in point order, then its
``opp`` weights, then the product of each feature whose value is not 0 with its weight, in FEATURES
order, one addition at a time; the layer's value is 0.0 plus each unit's ``out * tanh(sum)`` in unit
order. The evaluation adds it to the features' and patterns' sum (``make_evaluator``).

A params file gives the layer as ``"network"``: a list of units, each
``{"bias": b, "own": [25 numbers], "opp": [25 numbers], "features": {name: number}, "out": w}`` (a
feature left out weighs 0). Fitted by ``evolve network`` (``evolve.solved.network_fit``); a run may evolve
its weights from there (``[start] parts``, ``evolve.params_genes``).
"""

import math
from itertools import repeat
from operator import add, mul
from typing import Any, Dict, List, NamedTuple, Sequence, Tuple

from engine.constants import NUM_POINTS
from engine.errors import InvalidInput

MAX_UNITS = 64  # the compiled searcher's room (search.c's NETWORK_UNITS comes from here)
UNIT_KEYS = ("bias", "own", "opp", "features", "out")
_PRODUCTS = 4096  # a feature's values whose products a LayerReader keeps


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
        bias=_number(item["bias"], f"{where}.bias"),
        own=_points(item["own"], f"{where}.own"),
        opp=_points(item["opp"], f"{where}.opp"),
        features=tuple(_number(weights.get(name, 0.0), f"{where}.features.{name}") for name in features),
        out=_number(item["out"], f"{where}.out"),
    )


def _points(values: object, where: str) -> Tuple[float, ...]:
    if not isinstance(values, list) or len(values) != NUM_POINTS:
        found = f"{len(values)}" if isinstance(values, list) else type(values).__name__
        raise NetworkError(f"{where}: expected {NUM_POINTS} numbers (one a point), found {found}")
    return tuple(_number(value, f"{where}[{point}]") for point, value in enumerate(values))


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise NetworkError(f"{where}: expected a finite number, found {value!r:.60}")
    return float(value)


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


class LayerReader:
    """``LayerReader(network)(own, opp, features)``: the layer's value for the mover's stones ``own``, the
    opponent's ``opp`` (bitboards) and the position's ``features`` (FEATURES order). The weights are laid
    out input by input (each input's weights for every unit), so that a leaf adds one list a stone: the
    same additions as unit by unit, in the same order for each unit."""

    def __init__(self, network: Network):
        units = network.units
        self.biases = [unit.bias for unit in units]
        self.own = [tuple(unit.own[point] for unit in units) for point in range(NUM_POINTS)]
        self.opp = [tuple(unit.opp[point] for unit in units) for point in range(NUM_POINTS)]
        self.features = [tuple(unit.features[f] for unit in units) for f in range(len(units[0].features))]
        self.outs = [unit.out for unit in units]
        # each feature's products with its weights, by the feature's value: most values are small whole
        # numbers, met again and again (the products are the same doubles as computed afresh)
        self.products: List[Dict[float, Tuple[float, ...]]] = [{} for _ in self.features]

    def __call__(self, own: int, opp: int, features: Sequence[float]) -> float:
        sums = self.biases
        for bits, rows in ((own, self.own), (opp, self.opp)):
            while bits:
                low = bits & -bits
                sums = list(map(add, sums, rows[low.bit_length() - 1]))
                bits ^= low
        for value, row, products in zip(features, self.features, self.products):
            if value:
                product = products.get(value)
                if product is None:
                    if len(products) > _PRODUCTS:
                        products.clear()
                    product = products[value] = tuple(map(mul, row, repeat(value)))
                sums = list(map(add, sums, product))
        total = 0.0
        for term in map(mul, self.outs, map(math.tanh, sums)):
            total += term
        return total
