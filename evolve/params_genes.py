"""A params file's weights as genes: which parts of a start file a run evolves, the name and default
bounds of each weight, and the Params an individual plays.

By default a run's genes are the features' weights (``weights``: ``margin``, tapered ``endgame.margin``).
A run started from a fitted params file (``[start] params``) may evolve other parts of it, named by
``[start] parts``:

- ``network.out``: each hidden unit's weight in the evaluation, ``network[3].out``;
- ``network``: every weight of the layer, ``network[3].bias``, ``network[3].own[12]`` (a point, 0-24),
  ``network[3].opp[12]``, ``network[3].features.margin`` and ``network[3].out``;
- ``patterns``: the pattern weights, ``patterns.quad_corner_0102``.

Whatever the genes leave out plays as the first start file has it: the run's ``base``, which it keeps in
its checkpoint (``Start.base``, the file as plain data), so that a resume never reads the file again.

A gene's bounds: the features' as ``[bounds]`` or the feature table says; a layer or pattern weight's,
``[bounds]``'s for its group (``"network.out" = [-40, 40]``, ``"network.own"``, ``"network.opp"``,
``"network.bias"``, ``"network.features"``, ``"patterns"``), else its start value plus or minus the
largest size of any weight of its group in the base (so a unit's out weight may swing as far as the
largest out weight is from 0).
"""

import re
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from engine.constants import MAX_WEIGHT, NUM_POINTS
from engine.errors import ParamsError
from engine.features import FEATURES, PATH_FEATURE
from engine.params import Params, make_params, params_from_dict, params_to_dict
from engine.patterns import PATTERNS
from evolve.genome import ENDGAME, as_features, genes

# The parts of a params file a run may evolve, and what each holds.
PARTS: Dict[str, str] = {
    "weights": "the features' weights (tapered: the endgame's too)",
    "network.out": "each hidden unit's weight in the evaluation",
    "network": "every weight of the hidden layer (bias, own, opp, features, out)",
    "patterns": "the pattern weights",
}
WEIGHTS = "weights"
# The groups a layer or pattern gene is bounded by ([bounds] names them).
LAYER_GROUPS = ("network.bias", "network.own", "network.opp", "network.features", "network.out", "patterns")

_UNIT = re.compile(r"network\[(\d+)\]\.(bias|out|own|opp|features)(?:\[(\d+)\]|\.(\w+))?\Z")
_PATTERN = "patterns."


class Genome(NamedTuple):
    """How an individual's numbers become Params: the run's ``genes`` (names, genome order) and its
    ``base`` (None: the genes are the features' weights and nothing else is carried)."""

    genes: Tuple[str, ...]
    base: Optional[Params]

    def params(
        self,
        values: Sequence[float],
        source: str,
        settings: Optional[Mapping[str, Optional[float]]] = None,
        provenance: Optional[Dict[str, Any]] = None,
    ) -> Params:
        """The Params of an individual's ``values`` with the search ``settings`` given (by name; one left out,
        or None, takes its default), every check of a params file applied; ParamsError naming ``source``."""
        settings = settings or {}
        if self.base is None:
            return make_params(as_features(values, self.genes), provenance, source, None, **settings)
        if len(values) != len(self.genes):
            raise ValueError(f"an individual of {len(values)} numbers for {len(self.genes)} genes")
        data = params_to_dict(self.base)
        for gene, value in zip(self.genes, values):
            _set(data, gene, float(value))
        data["search"] = {name: value for name, value in settings.items() if value is not None}
        data["provenance"] = self.base.provenance if provenance is None else provenance
        return params_from_dict(data, source)


def run_genome(genes: Sequence[str], base: Optional[Mapping[str, Any]]) -> Genome:
    """The Genome of a run's genes and its base as the config keeps it (plain data, or None)."""
    return Genome(tuple(genes), None if base is None else params_from_dict(dict(base), "the run's base params"))


def part_genes(part: str, params: Params, tapered: bool) -> List[str]:
    """The genes of ``part`` (a key of PARTS) in ``params``, in file order; ValueError saying what the file
    lacks."""
    if part == WEIGHTS:
        return genes(tapered)
    if part == "patterns":
        if params.patterns is None:
            raise ValueError("has no pattern weights")
        return [_PATTERN + name for name in PATTERNS]
    if params.network is None:
        raise ValueError("has no hidden layer ('network')")
    units = range(len(params.network.units))
    if part == "network.out":
        return [f"network[{k}].out" for k in units]
    names: List[str] = []
    for k in units:
        names.append(f"network[{k}].bias")
        names += [f"network[{k}].{side}[{point}]" for side in ("own", "opp") for point in range(NUM_POINTS)]
        names += [f"network[{k}].features.{name}" for name in FEATURES if name != PATH_FEATURE]
        names.append(f"network[{k}].out")
    return names


def group_of(gene: str) -> Optional[str]:
    """The group of LAYER_GROUPS a layer or pattern gene belongs to; None for a feature's weight."""
    if gene.startswith(_PATTERN):
        return "patterns"
    match = _UNIT.match(gene)
    return None if match is None else f"network.{match.group(2)}"


def gene_values(params: Params, names: Sequence[str]) -> List[float]:
    """The values ``params`` gives the genes ``names``."""
    data = params_to_dict(params)
    return [_get(data, gene) for gene in names]


def layer_bounds(
    params: Params, names: Sequence[str], groups: Mapping[str, Tuple[float, float]]
) -> Dict[str, Tuple[float, float]]:
    """The bounds of the layer and pattern genes among ``names``: ``groups``' pair for the gene's group
    where it names one, else its value in ``params`` plus or minus the group's largest size there."""
    data = params_to_dict(params)
    values = {gene: _get(data, gene) for gene in names if group_of(gene) is not None}
    largest: Dict[str, float] = {}
    for gene, value in values.items():
        group = str(group_of(gene))
        largest[group] = max(largest.get(group, 0.0), abs(value))
    bounds = {}
    for gene, value in values.items():
        group = str(group_of(gene))
        if group in groups:
            bounds[gene] = groups[group]
            continue
        reach = largest[group] or 1.0  # a group all at 0 (patterns never fitted): a reach of 1
        bounds[gene] = (max(value - reach, -MAX_WEIGHT), min(value + reach, MAX_WEIGHT))
    return bounds


def _get(data: Mapping[str, Any], gene: str) -> float:
    container, key = _place(data, gene)
    return float(container[key])


def _set(data: Dict[str, Any], gene: str, value: float) -> None:
    container, key = _place(data, gene)
    container[key] = value


def _place(data: Mapping[str, Any], gene: str) -> Tuple[Any, Any]:
    """The container in params.json data that holds ``gene``, and its key there; ParamsError for a gene
    the data has no place for."""
    if gene.startswith(_PATTERN) and "patterns" in data:
        return data["patterns"], gene[len(_PATTERN) :]
    match = _UNIT.match(gene)
    if match is not None and "network" in data and int(match.group(1)) < len(data["network"]):
        unit = data["network"][int(match.group(1))]
        key = match.group(2)
        if key in ("bias", "out") and match.group(3) is None and match.group(4) is None:
            return unit, key
        if key in ("own", "opp") and match.group(3) is not None and int(match.group(3)) < NUM_POINTS:
            return unit[key], int(match.group(3))
        if key == "features" and match.group(4) in FEATURES and match.group(4) != PATH_FEATURE:
            features = unit.setdefault("features", {})
            features.setdefault(match.group(4), 0.0)  # a feature a unit leaves out weighs 0
            return features, match.group(4)
    if gene.startswith(ENDGAME) and gene[len(ENDGAME) :] in FEATURES and "endgame_weights" in data:
        return data["endgame_weights"], gene[len(ENDGAME) :]
    if gene in FEATURES:
        return data["weights"], gene
    raise ParamsError(f"no weight {gene!r} in these params")
