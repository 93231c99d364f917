"""Evaluation weights fitted to the solver's labels by CMA-ES: a fitness without noise.

The evaluation is a weighted sum of features, from the side to move; read through a
logistic curve, ``1 / (1 + exp(-evaluation / TEMPERATURE))`` is its guess that the mover
wins. The fitness of a set of weights is the mean log loss of that guess over labelled
positions (``evolve.solved.labels``): the same weights always score the same, and every position
counts, not one game's outcome. DEAP's CMA-ES minimises it, in DEAP's own loop
(``algorithms.eaGenerateUpdate``). A fifth of the positions, chosen by their canonical
key, are held out: the fit never sees them, and the report gives their figures.

The search compares positions of one ply with each other (the leaves of one iteration),
so a constant added to every evaluation at a ply changes no move it picks; the fit gives
each ply such a constant of its own (not part of the evaluation), and ranks weights by how
well they order the positions within a ply. The figure that says so is the ranking
accuracy by ply (the area under the ROC curve): the chance that a won position of a ply
evaluates above a lost one of the same ply, 0.5 for a coin. The figures, the log loss among them,
are ``evolve.solved.fit_figures``'s.

The ``captures`` weight scores captures made along the search's line, which a position
alone does not show; the fit leaves it where the caller sets it.
"""

import datetime
import os
import zlib
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy
from deap import algorithms, base, cma, creator, tools

from engine.book import book_key
from engine.common.progress import counter
from engine.constants import MAX_MOVES, MAX_WEIGHT
from engine.errors import InvalidInput
from engine.features import FEATURES, feature_values
from engine.params import Params, make_params
from engine.position import Position
from evolve.genome import Bounds, Individual, Strategy, clip, feature_of, genes
from evolve.solved.fit_figures import TEMPERATURE, Array, ColumnWeights, log_loss, ranking_accuracy, weight_figures

HELD_OUT = 5  # one position in HELD_OUT (by its key) is kept out of the fit
FIXED = ("captures",)  # weights a static position cannot tell anything about
SCALE_OCTAVES = 6.0  # fitting some weights only: the factor on the others is within 2**+-6

if not hasattr(creator, "LogLoss"):
    creator.create("LogLoss", base.Fitness, weights=(-1.0,))
if not hasattr(creator, "FitIndividual"):
    creator.create("FitIndividual", list, fitness=creator.LogLoss)


def feature_matrix(positions: Sequence[Position], tapered: bool = False) -> Array:
    """One row of feature values per position (FEATURES order; no captures along a line).

    Tapered, twice as many columns: each feature times (1 - t), then times t, where t is the
    position's ply over MAX_MOVES. Their weights are the opening's and the endgame's: the sum
    is the tapered evaluation's, whose weight at ply p is opening + t * (endgame - opening)."""
    rows = numpy.array([feature_values(position, 0) for position in positions], dtype=float)
    if not tapered:
        return rows
    share = numpy.array([min(p.moves_played, MAX_MOVES) / MAX_MOVES for p in positions])[:, None]
    return numpy.hstack([rows * (1.0 - share), rows * share])


def _fixed(name: str) -> bool:
    """Whether a gene (a feature's weight, or its endgame weight) is one the fit leaves alone."""
    return feature_of(name) in FIXED


def held_out_mask(positions: Sequence[Position]) -> Array:
    """True for the positions kept out of the fit: decided by the canonical key alone, so the
    same position (in any of its 8 symmetric forms) is always on the same side."""
    return numpy.array([zlib.crc32(book_key(p)[0].encode("ascii")) % HELD_OUT == 0 for p in positions])


def ply_columns(plies: Array) -> Tuple[Array, List[int]]:
    """(one-hot columns, one per ply present: where the fit's constants per ply apply; the plies)."""
    present = sorted(set(int(p) for p in plies))
    return numpy.array([[1.0 if p == q else 0.0 for q in present] for p in plies]), present


def fit_weights(
    features: Array,
    labels: Array,
    plies: Array,
    start: Sequence[float],
    bounds: Bounds,
    generations: int = 300,
    population: int = 24,
    sigma: float = 0.3,
    seed: int = 1,
    report: Optional[Callable[[str], object]] = None,
    names: Sequence[str] = FEATURES,
    only: Optional[Sequence[str]] = None,
) -> Tuple[Array, Any]:
    """CMA-ES over the free weights and a constant per ply; (best weights in FEATURES order,
    DEAP logbook).

    ``start``: weights (FEATURES order) to start from, which also gives the fixed ones;
    ``bounds``: (low, high) per feature; ``sigma``: the first step, a share of each range;
    ``names``: the features' names, the columns of ``features`` (FEATURES, or more to try some);
    ``only``: features whose weights alone are fitted, with one factor scaling all of ``start``
    (which changes no move): the others come back exactly as ``start`` has them, the fitted ones
    in its units.
    """
    free = [k for k, name in enumerate(names) if not _fixed(name) and (only is None or feature_of(name) in only)]
    base_weights = numpy.asarray(start, dtype=float)
    columns, present = ply_columns(plies)
    limit = max(high for _, high in bounds)
    scaled = [(-SCALE_OCTAVES, SCALE_OCTAVES)] if only is not None else []  # log2 of the factor on start
    free_bounds = [bounds[k] for k in free] + scaled + [(-limit, limit)] * len(present)
    ranges = numpy.array([high - low for low, high in free_bounds])
    centre = [min(max(base_weights[k], low), high) for k, (low, high) in zip(free, free_bounds)]
    centre += [0.0] * (len(scaled) + len(present))
    numpy.random.seed(seed % (2**32))  # DEAP's CMA-ES draws from numpy's generator
    strategy = cma.Strategy(centroid=centre, sigma=sigma, lambda_=population, cmatrix=numpy.diag(ranges**2))
    first_offset = len(free) + len(scaled)

    def full(individual: Individual) -> Array:
        weights = base_weights * (2.0 ** individual[len(free)] if scaled else 1.0)
        weights[free] = individual[: len(free)]
        return weights

    def unscaled(individual: Individual) -> Array:
        """The weights in start's units: the fitted ones divided by the factor, the rest as start."""
        weights = base_weights.copy()
        weights[free] = numpy.asarray(individual[: len(free)]) / (2.0 ** individual[len(free)] if scaled else 1.0)
        return weights

    def evaluate(individual: Individual) -> Tuple[float]:
        return (log_loss(full(individual), features, labels, numpy.asarray(individual[first_offset:]), columns),)

    best, logbook = _minimise(strategy, evaluate, free_bounds, generations, report)
    return unscaled(best), logbook


def _minimise(
    strategy: Strategy,
    evaluate: Callable[[Individual], Tuple[float]],
    bounds: Bounds,
    generations: int,
    report: Optional[Callable[[str], object]] = None,
) -> Tuple[Individual, Any]:
    """Run the CMA-ES ``strategy`` on ``evaluate`` (to be minimised) within ``bounds`` for ``generations``;
    (the best individual, DEAP's logbook), with a progress counter and ten lines to ``report`` if given."""
    toolbox = base.Toolbox()
    toolbox.register("generate", strategy.generate, creator.FitIndividual)
    toolbox.decorate("generate", clip(bounds))
    progress = counter("fitting", "generation", generations) if report else None

    done = 0

    def update(population: List[Individual]) -> None:
        nonlocal done
        strategy.update(population)
        if progress:
            done += 1
            progress(done)

    toolbox.register("update", update)
    toolbox.register("evaluate", evaluate)
    best = tools.HallOfFame(1)
    stats = tools.Statistics(lambda ind: ind.fitness.values[0])
    stats.register("best", numpy.min)
    stats.register("mean", numpy.mean)
    _, logbook = algorithms.eaGenerateUpdate(toolbox, ngen=generations, stats=stats, halloffame=best, verbose=False)
    if report:
        for record in logbook:
            if record["gen"] % max(1, generations // 10) == 0 or record["gen"] == generations - 1:
                report(
                    "gen {gen:>4}  log loss with a constant per ply: best {best:.4f}, mean {mean:.4f}".format(**record)
                )
    return best[0], logbook


def on_bounds(weights: ColumnWeights, bounds: Bounds, names: Sequence[str] = FEATURES) -> List[str]:
    """The genes whose weight ended within 1% of the range from a bound."""
    ended = []
    for name, weight, (low, high) in zip(names, weights, bounds):
        if not _fixed(name) and min(weight - low, high - weight) <= 0.01 * (high - low):
            ended.append(name)
    return ended


def feature_bounds(limit: float, names: Sequence[str] = FEATURES) -> List[Tuple[float, float]]:
    """Every weight in [-limit, limit], the margin's at least 0 (more stones never hurt)."""
    return [(0.0, limit) if feature_of(name) == "margin" else (-limit, limit) for name in names]


def _check_bound_and_only(limit: float, only: Optional[Sequence[str]]) -> None:
    """InvalidInput where the weights' bound or ``only``'s feature names cannot be fitted."""
    if not 0 < limit <= MAX_WEIGHT:
        raise InvalidInput(f"the weights' bound must be in (0, {MAX_WEIGHT:g}], not {limit!r}")
    if only is not None:
        unknown = sorted(set(only) - set(FEATURES)) or sorted(set(only) & set(FIXED))
        if unknown:
            raise InvalidInput(
                f"--only {unknown[0]!r}: not a feature the fit can weigh (features: "
                f"{', '.join(name for name in FEATURES if name not in FIXED)})"
            )


def checked_held_out(
    positions: Sequence[Position], start: Sequence[float], features: Array, labels: Array, plies: Array
) -> Array:
    """The held-out mask of ``positions``; InvalidInput where either side of it is empty or has no ply
    with both won and lost positions to rank."""
    held = held_out_mask(positions)
    if held.all() or not held.any():
        raise InvalidInput(f"too few positions to hold a fifth out ({len(positions)} positions)")
    for name, chosen in (("fitted", ~held), ("held-out", held)):
        if ranking_accuracy(start, features[chosen], labels[chosen], plies[chosen]) is None:
            raise InvalidInput(f"no ply of the {name} positions has both won and lost ones: nothing to rank")
    return held


CMAES_DEFAULTS = {"generations": 300, "population": 24, "seed": 1}  # fit_labels' CMA-ES, unless told


def fit_labels(
    positions: Sequence[Position],
    labels: Sequence[int],
    start: Sequence[float],
    limit: float = 100.0,
    generations: int = CMAES_DEFAULTS["generations"],
    population: int = CMAES_DEFAULTS["population"],
    seed: int = CMAES_DEFAULTS["seed"],
    report: Callable[[str], object] = print,
    only: Optional[Sequence[str]] = None,
) -> Tuple[Dict[str, float], Dict[str, Any]]:
    """Fit weights to labelled positions; (weights by gene name, figures) where the figures compare
    the fitted weights with ``start`` on the positions fitted and on those held out.

    ``start``: a genome (``engine.params.genome_of``): FEATURES' weights, or twice as many for
    tapered weights (the opening's, then the endgame's), which the fit then is. ``only``: feature
    names whose weights alone are fitted, the others kept as ``start`` has them (``fit_weights``)."""
    _check_bound_and_only(limit, only)
    tapered = len(start) == 2 * len(FEATURES)
    names = genes(tapered)
    start = [float(w) for w in start]
    features = feature_matrix(positions, tapered)
    marks = numpy.asarray(labels, dtype=float)
    plies = numpy.array([p.moves_played for p in positions])
    held = checked_held_out(positions, start, features, marks, plies)
    bounds = feature_bounds(limit, names)
    report(
        f"fitting {int((~held).sum())} positions ({int(held.sum())} held out), {generations} "
        f"generations of {population}"
    )
    weights, _ = fit_weights(
        features[~held],
        marks[~held],
        plies[~held],
        start,
        bounds,
        generations,
        population,
        seed=seed,
        report=report,
        names=names,
        only=only,
    )
    figures: Dict[str, Any] = {
        "temperature": TEMPERATURE,
        "bound": limit,
        "generations": generations,
        "population": population,
        "seed": seed,
        "tapered": tapered,
        "only": None if only is None else sorted(only),
        "on_bound": on_bounds(weights, bounds, names) if only is None else [],
    }
    for name, chosen in (("fitted", ~held), ("held_out", held)):
        figures[name] = {
            "new": weight_figures(weights, features[chosen], marks[chosen], plies[chosen]),
            "start": weight_figures(start, features[chosen], marks[chosen], plies[chosen]),
        }
    return dict(zip(names, (float(w) for w in weights))), figures


def fitted_params(
    weights: Mapping[str, float],
    figures: Mapping[str, Any],
    labels_path: Sequence[str],
    labels_info: Mapping[str, Any],
    settings: Params,
    strategy: str = "cmaes",
) -> Params:
    """Validated Params for fitted weights (by gene name, as ``fit_labels`` gives them): the search
    ``settings`` (a Params) and provenance; ``labels_path``: the labels files fitted; ``strategy``: how
    (``cmaes``, or ``l-bfgs-b`` for ``evolve.solved.pattern_fit``)."""
    provenance = {
        "source": "fitted to solver labels",
        "labels": [os.path.basename(path) for path in labels_path],
        "labels_info": labels_info,
        "strategy": strategy,
        "fit": figures,
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
    }
    # endgame None: a tapered genome's second half is its endgame (make_params)
    return make_params(list(weights.values()), provenance, "fitted weights", None, **settings.search())
