"""Evaluation weights and search settings: the ``params.json`` format, validated on load.

Format (version 1)::

    {"format": 1,
     "weights": {"margin": 10.0, ...},          # one number per feature in FEATURES
     "endgame_weights": {"margin": 12.0, ...},  # optional, tapered: the weights at ply 24, "weights" being
                                                #   those at ply 0, each interpolated linearly in between
     "patterns": {"quad_corner_0000": 1.5, ...},  # optional: a weight for each shape (engine.patterns),
                                                #   a shape left out weighing 0; absent: no pattern weights
     "network": [{"bias": 0.1, "own": [...], ...}],  # optional: the hidden layer's units (engine.network)
     "search": {"depth": 4, "cpu_budget": 5.0,   # the search settings: engine.search_settings says what
                "cpu_cap": 5.0, "solve_from": 24,  #   each means, its default and its range
                "close_stones": 0.5},
     "provenance": {"source": "evolved", "run": ..., "generation": ..., "fitness": ..., "date": ...}}
"""

import functools
import json
import sys
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Set, Tuple

from engine.constants import MAX_WEIGHT
from engine.errors import ParamsError
from engine.features import FEATURE_TABLE, FEATURES, PATH_FEATURE, WeightedEvaluator, Weights, make_evaluator
from engine.network import Network, NetworkError, network_from_list, network_to_list, scaled
from engine.patterns import PATTERN_INDEX, PATTERNS
from engine.protocol import read_file, write_atomic
from engine.search_settings import SEARCH_SETTINGS, SEARCH_TABLE, check_number, search_settings, short_repr

FORMAT_VERSION = 1

# Hand-set defaults (the feature table's): a sensible starting point, not evolved.
DEFAULT_WEIGHTS = {feature.name: feature.default for feature in FEATURE_TABLE}
# A file from before a feature was added plays without it: its weight is this, and provenance says so.
ABSENT_WEIGHT = 0.0
ADDED_AT_ZERO = "features_added_at_zero"
DEFAULT_PROVENANCE: Dict[str, Any] = {"source": "hand-set defaults"}
Warn = Callable[[str], None]  # told each warning, a line of text


class Params(NamedTuple):
    """Validated parameters: weights (dict in FEATURES order); one field for each search setting of
    SEARCH_TABLE, in its order (their meanings are there); provenance; endgame: None (flat weights),
    or tapered, the weights at ply MAX_MOVES (dict in FEATURES order), ``weights`` being those at ply
    0; patterns: None, or a weight for each shape of engine.patterns (dict in PATTERNS order); network:
    None, or the evaluation's hidden layer (engine.network). Built by ``make_params`` or ``with_settings``,
    which check every value."""

    weights: Dict[str, float]
    depth: int
    cpu_budget: float
    cpu_cap: float
    solve_from: int
    close_stones: Optional[float]
    provenance: Dict[str, Any]
    endgame: Optional[Dict[str, float]]
    patterns: Optional[Dict[str, float]] = None
    network: Optional[Network] = None

    def evaluator(self) -> WeightedEvaluator:
        """The evaluation these Params' weights make (``engine.features.make_evaluator``)."""
        shapes = None if self.patterns is None else [self.patterns[name] for name in PATTERNS]
        return make_evaluator(self.weights, self.endgame, shapes, self.network)

    def search(self) -> Dict[str, Optional[float]]:
        """{setting name: value} of the search settings, in SEARCH_TABLE's order."""
        return {setting.name: getattr(self, setting.name) for setting in SEARCH_TABLE}

    def with_settings(self, provenance: Optional[Dict[str, Any]] = None, **settings: Optional[float]) -> "Params":
        """These Params with the search ``settings`` given by name changed (and the ``provenance``, if given),
        every check of ``make_params`` applied (``_replace`` would skip them); ParamsError naming a value out
        of its range."""
        return (
            make_params(
                self.weights,
                self.provenance if provenance is None else provenance,
                endgame=self.endgame,
                # the keys are search settings, never ``source``, which mypy cannot tell
                **dict(self.search(), **settings),  # type: ignore[arg-type]
            )
            .with_patterns(self.patterns)
            ._replace(network=self.network)
        )

    def with_patterns(self, patterns: Optional[Weights], source: str = "params") -> "Params":
        """These Params with pattern weights (by shape name, or a sequence in PATTERNS order; None: none),
        every check of a params file's ``patterns`` applied; ParamsError naming a bad one."""
        if patterns is None and self.patterns is None:
            return self
        data = params_to_dict(self)
        data.pop("patterns", None)
        if patterns is not None:
            if not isinstance(patterns, dict):
                patterns = list(patterns)
                if len(patterns) != len(PATTERNS):
                    raise ParamsError(f"{source}: expected {len(PATTERNS)} pattern weights, got {len(patterns)}")
                patterns = dict(zip(PATTERNS, patterns))
            data["patterns"] = patterns
        return params_from_dict(data, source)

    def with_network(self, network: Optional[Network]) -> "Params":
        """These Params with the hidden layer ``network`` (None: none), as a params file would load it."""
        data = params_to_dict(self)
        data.pop("network", None)
        if network is not None:
            data["network"] = network_to_list(network, FEATURES)
        return params_from_dict(data, "params")


@functools.lru_cache(maxsize=None)  # each warning once a process: a file loaded for every game says it once
def _warn_on_stderr(message: str) -> None:
    sys.stderr.write(f"params: {message}\n")


def _tame(sets: List[Dict[str, float]], source: str, warn: Warn) -> Tuple[List[Dict[str, float]], float]:
    """Weight sets (the flat weights, or a tapered file's two, and any pattern or network out weights)
    scaled down by one factor so that none exceeds MAX_WEIGHT in size, with a warning if any did; and
    the factor (1.0: none).

    Scaling every weight by one positive factor changes no move the search chooses, and
    keeps every evaluation far below the value of a won game.
    """
    largest = max(abs(w) for weights in sets for w in weights.values())
    if largest <= MAX_WEIGHT:
        return sets, 1.0
    factor = MAX_WEIGHT / largest
    warn(
        f"{source}: weights up to {largest:g} would swamp the value of a won game; all scaled by {factor:.3g} "
        f"(the same moves, largest weight {MAX_WEIGHT:g})"
    )
    return [dict((name, w * factor) for name, w in weights.items()) for weights in sets], factor


def _weights(weights: object, key: str, source: str, warn: Warn, missing: Set[str]) -> Dict[str, float]:
    """One weights object (``key``: weights or endgame_weights) checked, in FEATURES order; the
    features it lacks (a file older than them) load at ABSENT_WEIGHT, said once and added to
    ``missing``."""
    if not isinstance(weights, dict):
        raise ParamsError(f"{source}: {key!r} must be an object of feature: number")
    unknown = sorted(set(weights) - set(FEATURES))
    if unknown:
        raise ParamsError(
            "{}: {}: unknown feature {!r} (known: {})".format(source, key, unknown[0], ", ".join(FEATURES))
        )
    absent = [name for name in FEATURES if name not in weights]
    if len(absent) == len(FEATURES):
        raise ParamsError("{}: {}: no weight for any feature (known: {})".format(source, key, ", ".join(FEATURES)))
    if absent and not missing:  # a file older than these features: it plays as it was evolved, without them
        warn(
            "{}: no weight for {} (added after these weights were made): weight {:g}, the evaluation they were "
            "made with".format(source, ", ".join(repr(name) for name in absent), ABSENT_WEIGHT)
        )
    missing.update(absent)
    return dict(
        (name, check_number(weights[name], f"{source}: {key}.{name}") if name in weights else ABSENT_WEIGHT)
        for name in FEATURES
    )


def params_from_dict(data: object, source: str = "params", warn: Warn = _warn_on_stderr) -> Params:
    """Params from a decoded params.json object; ParamsError naming the bad key.

    Weights larger than MAX_WEIGHT are scaled down, and ``warn`` is told.
    """
    if not isinstance(data, dict):
        raise ParamsError(f"{source}: expected a JSON object at the top level")
    unknown = sorted(
        set(data) - {"format", "weights", "endgame_weights", "patterns", "network", "search", "provenance"}
    )
    if unknown:
        raise ParamsError(f"{source}: unknown key {unknown[0]!r}")
    if data.get("format", FORMAT_VERSION) != FORMAT_VERSION:
        raise ParamsError(
            "{}: format {!r} is not supported (expected {})".format(source, data.get("format"), FORMAT_VERSION)
        )
    missing: Set[str] = set()
    sets = [_weights(data.get("weights"), "weights", source, warn, missing)]
    if data.get("endgame_weights") is not None:
        sets.append(_weights(data["endgame_weights"], "endgame_weights", source, warn, missing))
    shapes = None if data.get("patterns") is None else _patterns(data["patterns"], source)
    network = None if data.get("network") is None else _network(data["network"], source)
    outs = None if network is None else {f"network[{k}].out": unit.out for k, unit in enumerate(network.units)}
    sets, factor = _tame(sets + [extra for extra in (shapes, outs) if extra is not None], source, warn)
    if network is not None:
        sets.pop()
        network = network if factor == 1.0 else scaled(network, factor)
    if shapes is not None:
        shapes = sets.pop()
    checked, endgame = sets[0], sets[1] if len(sets) > 1 else None
    settings = search_settings(data.get("search", {}), source)
    provenance = data.get("provenance", {})
    if not isinstance(provenance, dict):
        raise ParamsError(f"{source}: 'provenance' must be an object")
    if missing:
        provenance = dict(provenance, **{ADDED_AT_ZERO: sorted(set(provenance.get(ADDED_AT_ZERO, [])) | set(missing))})
    return Params(
        weights=checked,
        provenance=provenance,
        endgame=endgame,
        patterns=shapes,
        network=network,
        **settings,  # type: ignore[arg-type]
    )


def _network(data: object, source: str) -> Network:
    """The ``network`` list checked (engine.network's rules); ParamsError naming the unit and key."""
    try:
        return network_from_list(data, FEATURES, PATH_FEATURE, source)
    except NetworkError as error:
        raise ParamsError(str(error))


def _patterns(shapes: object, source: str) -> Dict[str, float]:
    """The ``patterns`` object checked, in PATTERNS order, a shape it leaves out at 0."""
    if not isinstance(shapes, dict):
        raise ParamsError(f"{source}: 'patterns' must be an object of shape: number")
    unknown = sorted(set(shapes) - set(PATTERN_INDEX))
    if unknown:
        raise ParamsError(
            f"{source}: patterns: unknown shape {short_repr(unknown[0])} (a shape is quad_<corner, edge or "
            f"centre>_<four digits 0-2>, as engine.patterns names them, e.g. {PATTERNS[0]!r})"
        )
    return dict(
        (name, check_number(shapes[name], f"{source}: patterns.{name}") if name in shapes else 0.0) for name in PATTERNS
    )


def make_params(
    weights: Weights,
    provenance: Optional[Dict[str, Any]] = None,
    source: str = "params",
    endgame: Optional[Weights] = None,
    **settings: Optional[float],
) -> Params:
    """Validated Params from weights (by feature name, or a sequence in FEATURES order) and, for
    tapered weights, ``endgame`` weights likewise; a sequence of twice FEATURES (a tapered genome:
    the opening's weights, then the endgame's) gives both. ``settings``: search settings by name
    (SEARCH_TABLE); one left out, or None, takes its default. Pattern weights: ``Params.with_patterns``.

    The one way to build Params: every check of params.json applies.
    """
    unknown = sorted(set(settings) - set(SEARCH_SETTINGS))
    if unknown:
        raise TypeError(f"make_params: no search setting {unknown[0]!r}")
    if not isinstance(weights, dict):
        weights = list(weights)
        if len(weights) == 2 * len(FEATURES) and endgame is None:
            weights, endgame = weights[: len(FEATURES)], weights[len(FEATURES) :]
        if len(weights) != len(FEATURES):
            raise ParamsError(
                f"{source}: expected {len(FEATURES)} weights (or {2 * len(FEATURES)}, tapered), got {len(weights)}"
            )
        weights = dict(zip(FEATURES, weights))
    if endgame is not None and not isinstance(endgame, dict):
        endgame = dict(zip(FEATURES, endgame))
    data = {
        "weights": weights,
        "search": {name: value for name, value in settings.items() if value is not None},
        "provenance": DEFAULT_PROVENANCE if provenance is None else provenance,
    }
    if endgame is not None:
        data["endgame_weights"] = endgame
    return params_from_dict(data, source)


def load_params(path: str, warn: Warn = _warn_on_stderr) -> Params:
    """Params from a params.json file; ParamsError saying precisely what is wrong."""
    raw = read_file(path, ParamsError)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ParamsError(f"{path}: not UTF-8 text (byte {error.start} is {raw[error.start]:#x})")
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ParamsError(f"{path}: not valid JSON: {error}")
    except RecursionError:
        raise ParamsError(f"{path}: not usable JSON: nested too deeply")
    return params_from_dict(data, path, warn)


def default_params() -> Params:
    """The built-in hand-set defaults."""
    return make_params(DEFAULT_WEIGHTS, source="built-in defaults")


def params_to_dict(params: Params) -> Dict[str, Any]:
    """The params.json object for Params."""
    data = {"format": FORMAT_VERSION, "weights": dict((name, params.weights[name]) for name in FEATURES)}
    if params.endgame is not None:
        data["endgame_weights"] = dict((name, params.endgame[name]) for name in FEATURES)
    if params.patterns is not None:
        data["patterns"] = dict(params.patterns)
    if params.network is not None:
        data["network"] = network_to_list(params.network, FEATURES)
    search = {name: value for name, value in params.search().items() if value is not None}  # null: off
    data.update({"search": search, "provenance": params.provenance})
    return data


def genome_of(params: Params) -> List[float]:
    """Params' weights as a genome: FEATURES order, then the endgame's for tapered weights."""
    vector = [params.weights[name] for name in FEATURES]
    return vector + ([params.endgame[name] for name in FEATURES] if params.endgame is not None else [])


def save_params(path: str, params: Params) -> None:
    """Write Params to a params.json file atomically."""
    write_atomic(path, json.dumps(params_to_dict(params), indent=2) + "\n")
