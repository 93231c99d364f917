"""Pattern weights fitted to the solver's labels by their gradient: ``evolve fit --patterns``.

The pattern weights (``engine.patterns``: 189 shapes of 2x2 windows) are too many for CMA-ES, and the
evaluation is linear in them, so the log loss of ``evolve.solved.fit`` has an exact gradient: L-BFGS-B
(SciPy) minimises it over the features' weights (the captures weight apart, which positions cannot
show), the pattern weights and a constant per ply together, each within its bounds, with a ridge
penalty on the pattern weights (``PATTERN_RIDGE``) so that a shape seen in a handful of positions stays near 0.
The fit is deterministic: no seed. A fifth of the positions are held out as ``evolve fit`` holds them.
"""

from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy
from scipy.optimize import OptimizeResult, minimize

from engine.patterns import PATTERN_BOUNDS, PATTERNS, pattern_counts
from engine.position import Position
from engine.ruler.position_set import SolvedPosition
from evolve.genome import feature_of, genes
from evolve.solved.fit import (
    FIXED,
    checked_held_out,
    feature_bounds,
    feature_matrix,
    on_bounds,
    ply_columns,
)
from evolve.solved.fit_figures import TEMPERATURE, Array, logistic_loss, weight_figures

# The ridge penalty's weight a pattern weight, on the mean log loss per (pattern weight / TEMPERATURE)^2:
# on the labels of experiments/labels-20261123, 1e-5 to 1e-3 kept 90-92% of the tuner benchmark's
# held-out won positions at depth 4 (experiments/patterns-20261128).
PATTERN_RIDGE = 1e-4
Bound = Tuple[float, float]
MAX_ITERATIONS = 3000


def pattern_matrix(positions: Sequence[Position]) -> Array:
    """One row of shape counts per position (PATTERNS order), from its mover's side."""
    return numpy.array([pattern_counts(p.own, p.opp) for p in positions], dtype=float)


class FitPositions(NamedTuple):
    """Positions valued by the solver, as the fit reads them: ``features`` (positions x FEATURES, then
    PATTERNS' counts), ``wins`` (1 where the mover wins), ``plies``."""

    features: Array
    wins: Array
    plies: Array


def values_of(positions: Sequence[SolvedPosition]) -> FitPositions:
    """The FitPositions of the won ``positions`` and of every position a legal move leads to from each, valued
    (``SolvedPosition.valued``)."""
    rows = [row for solved in positions for row in solved.valued()]
    found = [row.position for row in rows]
    features = numpy.hstack([feature_matrix(found), pattern_matrix(found)])
    wins = numpy.array([1.0 if row.wins else 0.0 for row in rows])
    return FitPositions(features, wins, numpy.array([p.moves_played for p in found]))


def fit_patterns(
    positions: Sequence[Position],
    labels: Sequence[int],
    start: Sequence[float],
    start_patterns: Optional[Sequence[float]] = None,
    limit: float = 100.0,
    ridge: float = PATTERN_RIDGE,
    report: Callable[[str], object] = print,
) -> Tuple[Dict[str, float], List[float], Dict[str, Any]]:
    """Fit the features' and the pattern weights to labelled positions; (feature weights by gene name,
    pattern weights in PATTERNS order, figures comparing them with the start on the positions fitted and
    held out). ``start``: a genome (FEATURES' weights, or twice as many, tapered); ``start_patterns``: the
    pattern weights to start from (None: 0)."""
    tapered = len(start) == 2 * len(genes(False))
    names = genes(tapered) + list(PATTERNS)
    begin = [float(w) for w in start] + [float(w) for w in (start_patterns or [0.0] * len(PATTERNS))]
    features = numpy.hstack([feature_matrix(positions, tapered), pattern_matrix(positions)])
    marks = numpy.asarray(labels, dtype=float)
    plies = numpy.array([p.moves_played for p in positions])
    held = checked_held_out(positions, begin, features, marks, plies)
    bounds_of_features = feature_bounds(limit, genes(tapered))
    bounds = [
        (w, w) if feature_of(name) in FIXED else bound
        for name, w, bound in zip(genes(tapered), begin, bounds_of_features)
    ] + [PATTERN_BOUNDS] * len(PATTERNS)
    report(f"fitting {int((~held).sum())} positions ({int(held.sum())} held out), {len(names)} weights, by L-BFGS-B")
    weights, result = minimise_log_loss(features[~held], marks[~held], plies[~held], begin, bounds, ridge)
    figures: Dict[str, Any] = {
        "temperature": TEMPERATURE,
        "bound": limit,
        "ridge": ridge,
        "tapered": tapered,
        "patterns": len(PATTERNS),
        "iterations": int(result.nit),
        "converged": bool(result.success),
        "on_bound": on_bounds(weights, bounds, names),
    }
    for name, chosen in (("fitted", ~held), ("held_out", held)):
        figures[name] = {
            "new": weight_figures(weights, features[chosen], marks[chosen], plies[chosen]),
            "start": weight_figures(begin, features[chosen], marks[chosen], plies[chosen]),
        }
    count = len(genes(tapered))
    fitted = dict(zip(genes(tapered), (float(w) for w in weights[:count])))
    return fitted, [float(w) for w in weights[count:]], figures


def minimise_log_loss(
    features: Array,
    labels: Array,
    plies: Array,
    start: Sequence[float],
    bounds: List[Bound],
    ridge: float = PATTERN_RIDGE,
    step: Optional[Callable[[Array], bool]] = None,
) -> Tuple[Array, Any]:
    """L-BFGS-B on the log loss (a constant per ply beside the weights) plus the ridge on the pattern
    weights, the last len(PATTERNS) columns of ``features``; (the weights, SciPy's result). ``step`` is
    told the weights after each iteration, and stops the fit where it answers False."""
    columns, present = ply_columns(plies)
    weights_count, patterns_from = len(start), len(start) - len(PATTERNS)
    limit = max(high for _, high in bounds)

    def loss(vector: Array) -> Tuple[float, Array]:
        weights, offsets = vector[:weights_count], vector[weights_count:]
        value, by_logit = logistic_loss((features.dot(weights) + columns.dot(offsets)) / TEMPERATURE, labels)
        slope = by_logit / TEMPERATURE  # d loss / d evaluation
        gradient = numpy.concatenate([features.T.dot(slope), columns.T.dot(slope)])
        shapes = weights[patterns_from:] / TEMPERATURE
        value += ridge * float(shapes.dot(shapes))
        gradient[patterns_from:weights_count] += 2.0 * ridge * shapes / TEMPERATURE
        return value, gradient

    lows, highs = zip(*bounds)
    begin = numpy.concatenate([numpy.clip(start, lows, highs), numpy.zeros(len(present))])

    last = [begin]

    def after(vector: Array) -> None:
        last[0] = numpy.array(vector)
        if step is not None and not step(vector[:weights_count]):
            raise _Stopped

    try:
        result = minimize(
            loss,
            begin,
            jac=True,
            method="L-BFGS-B",
            bounds=bounds + [(-limit, limit)] * len(present),
            options={"maxiter": MAX_ITERATIONS},
            callback=after,
        )
    except _Stopped:  # ``step`` said stop: the last iterate is the answer
        result = OptimizeResult(x=last[0], nit=-1, success=False, fun=loss(last[0])[0])
    return result.x[:weights_count], result


class _Stopped(Exception):
    """Raised in SciPy's callback where ``minimise_log_loss``'s ``step`` says stop."""
