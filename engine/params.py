"""Evaluation weights and search settings: the ``params.json`` format, validated on load.

Format (version 1)::

    {"format": 1,
     "weights": {"margin": 10.0, ...},          # one number per feature in FEATURES
     "endgame_weights": {"margin": 12.0, ...},  # optional, tapered: the weights at ply 24, "weights" being
                                                #   those at ply 0, each interpolated linearly in between
     "search": {"depth": 4, "cpu_budget": 5.0,   # deepest plies; CPU seconds a move is meant to take
                "cpu_cap": 5.0,                  # CPU seconds no move may pass (default: cpu_budget)
                "solve_from": 24,                # from this ply on, solve the game exactly (24: never)
                "close_stones": 0.5},            # optional: before solve_from, a move whose best move
                                                 #   changed between depths or whose runner-up is within
                                                 #   this many stones of the best may plan to cpu_cap
     "provenance": {"source": "evolved", "run": ..., "generation": ..., "fitness": ..., "date": ...}}
"""

import json
import math
import sys
from typing import Dict, NamedTuple, Optional

from engine.constants import MAX_CPU_BUDGET, MAX_DEPTH, MAX_MOVES, MAX_WEIGHT
from engine.errors import UserError
from engine.features import FEATURE_TABLE, FEATURES
from engine.protocol import read_file, write_atomic

FORMAT_VERSION = 1

# Hand-set defaults (the feature table's): a sensible starting point, not evolved.
DEFAULT_WEIGHTS = {feature.name: feature.default for feature in FEATURE_TABLE}
# A file from before a feature was added plays without it: its weight is this, and provenance says so.
ABSENT_WEIGHT = 0.0
ADDED_AT_ZERO = "features_added_at_zero"
DEFAULT_SEARCH = {"depth": 4, "cpu_budget": 5.0, "cpu_cap": None, "solve_from": MAX_MOVES, "close_stones": None}
MAX_CLOSE_STONES = 25.0  # a runner-up within the whole board's stones: every move unclear
DEFAULT_PROVENANCE = {"source": "hand-set defaults"}


class ParamsError(UserError, ValueError):
    """A params file or object that cannot be used; the message says what and where."""


class Params(NamedTuple):
    """Validated parameters: weights (dict in FEATURES order); the search's deepest depth, the CPU
    seconds a move is meant to take and the most it may take, the ply from which the game is
    solved exactly; provenance; endgame: None (flat weights), or tapered, the weights at ply
    MAX_MOVES (dict in FEATURES order), ``weights`` being those at ply 0; close_stones: None, or
    how close (in stones of the margin weight) a runner-up makes a move before the solving ply
    unclear, so that it may plan its depths up to the cap (``engine.agent``)."""

    weights: Dict[str, float]
    depth: int
    cpu_budget: float
    cpu_cap: float
    solve_from: int
    provenance: Optional[dict]
    endgame: Optional[Dict[str, float]] = None
    close_stones: Optional[float] = None


def _number(value, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParamsError(f"{where}: expected a number, found {_short(value)!r}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise ParamsError(f"{where}: expected a finite number, found {_short(value)}")
    return number


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


_SAID = set()  # the warnings this process has written: a file loaded for every game says it once


def _warn_on_stderr(message):
    if message not in _SAID:
        _SAID.add(message)
        sys.stderr.write(f"params: {message}\n")


def _tame(sets, source, warn):
    """Weight sets (the flat weights, or a tapered file's two) scaled down by one factor so that none
    exceeds MAX_WEIGHT in size, with a warning if any did.

    Scaling every weight by one positive factor changes no move the search chooses, and
    keeps every evaluation far below the value of a won game.
    """
    largest = max(abs(w) for weights in sets for w in weights.values())
    if largest <= MAX_WEIGHT:
        return sets
    factor = MAX_WEIGHT / largest
    warn(
        f"{source}: weights up to {largest:g} would swamp the value of a won game; all scaled by {factor:.3g} "
        f"(the same moves, largest weight {MAX_WEIGHT:g})"
    )
    return [dict((name, w * factor) for name, w in weights.items()) for weights in sets]


def _weights(weights, key, source, warn, missing):
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
        (name, _number(weights[name], f"{source}: {key}.{name}") if name in weights else ABSENT_WEIGHT)
        for name in FEATURES
    )


def params_from_dict(data, source="params", warn=_warn_on_stderr):
    """Params from a decoded params.json object; ParamsError naming the bad key.

    Weights larger than MAX_WEIGHT are scaled down, and ``warn`` is told.
    """
    if not isinstance(data, dict):
        raise ParamsError(f"{source}: expected a JSON object at the top level")
    unknown = sorted(set(data) - {"format", "weights", "endgame_weights", "search", "provenance"})
    if unknown:
        raise ParamsError(f"{source}: unknown key {unknown[0]!r}")
    if data.get("format", FORMAT_VERSION) != FORMAT_VERSION:
        raise ParamsError(
            "{}: format {!r} is not supported (expected {})".format(source, data.get("format"), FORMAT_VERSION)
        )
    missing = set()
    sets = [_weights(data.get("weights"), "weights", source, warn, missing)]
    if data.get("endgame_weights") is not None:
        sets.append(_weights(data["endgame_weights"], "endgame_weights", source, warn, missing))
    sets = _tame(sets, source, warn)
    checked, endgame = sets[0], sets[1] if len(sets) > 1 else None
    search = data.get("search", {})
    if not isinstance(search, dict):
        raise ParamsError(f"{source}: 'search' must be an object")
    unknown = sorted(set(search) - set(DEFAULT_SEARCH))
    if unknown:
        raise ParamsError(f"{source}: search: unknown setting {unknown[0]!r}")
    depth = search.get("depth", DEFAULT_SEARCH["depth"])
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise ParamsError(f"{source}: search.depth: expected an integer from 1 to {MAX_DEPTH}, found {_short(depth)}")
    budget = _number(search.get("cpu_budget", DEFAULT_SEARCH["cpu_budget"]), f"{source}: search.cpu_budget")
    if not 0 < budget <= MAX_CPU_BUDGET:
        raise ParamsError(f"{source}: search.cpu_budget: expected seconds in (0, {MAX_CPU_BUDGET}], found {budget!r}")
    cap = search.get("cpu_cap")
    cap = budget if cap is None else _number(cap, f"{source}: search.cpu_cap")
    if not budget <= cap <= MAX_CPU_BUDGET:
        raise ParamsError(
            f"{source}: search.cpu_cap: expected seconds from cpu_budget ({budget}) to {MAX_CPU_BUDGET}, found {cap!r}"
        )
    solve_from = search.get("solve_from", MAX_MOVES)
    if isinstance(solve_from, bool) or not isinstance(solve_from, int) or not 0 <= solve_from <= MAX_MOVES:
        raise ParamsError(
            f"{source}: search.solve_from: expected a ply from 0 to {MAX_MOVES} ({MAX_MOVES}: never), "
            f"found {_short(solve_from)}"
        )
    close = search.get("close_stones")
    if close is not None:
        close = _number(close, f"{source}: search.close_stones")
        if not 0 <= close <= MAX_CLOSE_STONES:
            raise ParamsError(
                f"{source}: search.close_stones: expected stones from 0 to {MAX_CLOSE_STONES:g} (or null: off), "
                f"found {close!r}"
            )
    provenance = data.get("provenance", {})
    if not isinstance(provenance, dict):
        raise ParamsError(f"{source}: 'provenance' must be an object")
    if missing:
        provenance = dict(provenance, **{ADDED_AT_ZERO: sorted(set(provenance.get(ADDED_AT_ZERO, [])) | set(missing))})
    return Params(checked, depth, budget, cap, solve_from, provenance, endgame, close)


def make_params(
    weights,
    depth=None,
    cpu_budget=None,
    provenance=None,
    source="params",
    cpu_cap=None,
    solve_from=None,
    endgame=None,
    close_stones=None,
):
    """Validated Params from weights (by feature name, or a sequence in FEATURES order) and, for
    tapered weights, ``endgame`` weights likewise; a sequence of twice FEATURES (a tapered genome:
    the opening's weights, then the endgame's) gives both.

    The one way to build Params: every check of params.json applies; depth and CPU
    budget default to DEFAULT_SEARCH's.
    """
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
    search = {
        "depth": DEFAULT_SEARCH["depth"] if depth is None else depth,
        "cpu_budget": DEFAULT_SEARCH["cpu_budget"] if cpu_budget is None else cpu_budget,
        "cpu_cap": cpu_cap,
        "solve_from": DEFAULT_SEARCH["solve_from"] if solve_from is None else solve_from,
        "close_stones": close_stones,
    }
    data = {
        "weights": weights,
        "search": search,
        "provenance": DEFAULT_PROVENANCE if provenance is None else provenance,
    }
    if endgame is not None:
        data["endgame_weights"] = endgame
    return params_from_dict(data, source)


def load_params(path, warn=_warn_on_stderr):
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


def default_params():
    """The built-in hand-set defaults."""
    return make_params(DEFAULT_WEIGHTS, source="built-in defaults")


def params_to_dict(params):
    """The params.json object for Params."""
    data = {"format": FORMAT_VERSION, "weights": dict((name, params.weights[name]) for name in FEATURES)}
    if params.endgame is not None:
        data["endgame_weights"] = dict((name, params.endgame[name]) for name in FEATURES)
    data.update(
        {
            "search": {
                "depth": params.depth,
                "cpu_budget": params.cpu_budget,
                "cpu_cap": params.cpu_cap,
                "solve_from": params.solve_from,
            },
            "provenance": params.provenance,
        }
    )
    if params.close_stones is not None:
        data["search"]["close_stones"] = params.close_stones
    return data


def genome_of(params):
    """Params' weights as a genome: FEATURES order, then the endgame's for tapered weights."""
    vector = [params.weights[name] for name in FEATURES]
    return vector + ([params.endgame[name] for name in FEATURES] if params.endgame is not None else [])


def save_params(path, params):
    """Write Params to a params.json file atomically."""
    write_atomic(path, json.dumps(params_to_dict(params), indent=2) + "\n")
