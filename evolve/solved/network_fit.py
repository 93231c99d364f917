"""The evaluation's hidden layer (``engine.network``) fitted to solved positions: ``evolve network``.

Data: the won positions of positions files by split (``engine.ruler.position_set.WonPositions``, as the
tuner benchmark reads them), and the depth of the searches that score them and draw leaves: every won
training position and every position one of its moves leads to, valued by the solver (``value_rows``: a
winning move leads to a lost position, any other to a won one); where asked, more positions beside them
(``extra_positions``: the lost positions of the same splits, every move of which leads to a won one, and
the training splits of positions files that are fitted but not scored); then, round by round, leaves the
depth-limited search of the fitted evaluation reads from each training position (``leaves``, ``per`` of
them drawn at random from each search), valued by the compiled solver: the positions where the search
asks the evaluation, with the captures along the search's line. After each fit the ruler
(``engine.ruler.measure``) counts the held-out won positions kept at that depth, with no book and no
solver.

Model: the log loss of the guess that the mover wins, logistic in the evaluation over ``TEMPERATURE``,
where the evaluation is the features' weights (all of FEATURES, the captures included: a leaf's captures
along its line) plus the hidden layer (``hidden`` tanh units reading the 50 board points and the
features, the captures apart), plus a constant, with an L2 penalty (``LAYER_RIDGE``) on the layer's weights;
each sample counted under the board's 8 symmetries. L-BFGS (SciPy) minimises it from a seeded random
start. The inputs are standardised during the fit and the standardisation folded into the exported
weights, so the engine evaluates the raw features. Without leaves nothing shows the captures' worth: they
weigh ``UNFITTED_CAPTURES``.
"""

import functools
import random
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy
from scipy.optimize import minimize

from engine.common.pools import cpu_with_children, process_pool
from engine.constants import NUM_POINTS
from engine.features import FEATURES, PATH_FEATURE, feature_values
from engine.native.solver import describe_position, position_from_text
from engine.native.stored_solver import Solving, start_worker_solver, worker_solver
from engine.network import MAX_UNITS, Network, Unit
from engine.params import Params, make_params
from engine.position import Position
from engine.ruler.fresh_search import FreshSearch
from engine.ruler.measure import measure
from engine.ruler.position_set import PositionSet, SolvedPosition, ValuedPosition, WonPositions
from engine.search import Searcher
from engine.symmetry import SYMMETRIES
from evolve.solved.fit_figures import TEMPERATURE, logistic_loss

HIDDEN = 32  # units: 32 kept 96.6% of the benchmark's held-out won positions with a round of leaves
LAYER_RIDGE = 1e-4  # on the mean log loss, per squared weight of the layer
ITERATIONS = 300  # L-BFGS iterations a fit
PER = 10  # leaves a training position a round
UNFITTED_CAPTURES = 0.5 * TEMPERATURE  # a captured stone's worth where no leaf shows it: half a logit
_PATH = FEATURES.index(PATH_FEATURE)
_STATIC = [index for index in range(len(FEATURES)) if index != _PATH]  # the features a unit reads


class NetworkOptions(NamedTuple):
    """How ``fit_rounds`` fits: ``hidden`` units, the ``ridge`` penalty, L-BFGS ``iterations`` a fit, the
    start's ``seed``, rounds of ``leaves`` and leaves drawn ``per`` training position a round."""

    hidden: int = HIDDEN
    ridge: float = LAYER_RIDGE
    iterations: int = ITERATIONS
    seed: int = 1
    leaves: int = 1
    per: int = PER


class Samples(NamedTuple):
    """Positions valued by the solver, as the fit reads them: ``own`` and ``opp`` (the mover's and the
    opponent's stones, 0/1 a point: samples x 25 each), ``features`` (samples x FEATURES, the captures
    along a leaf's line included) and ``wins`` (1.0 where the mover wins)."""

    own: numpy.ndarray
    opp: numpy.ndarray
    features: numpy.ndarray
    wins: numpy.ndarray


def samples_of(rows: Sequence[ValuedPosition]) -> Samples:
    """The Samples of valued positions."""
    bits = numpy.arange(NUM_POINTS)
    own = numpy.array([[row.position.own] for row in rows], dtype=numpy.int64) >> bits & 1
    opp = numpy.array([[row.position.opp] for row in rows], dtype=numpy.int64) >> bits & 1
    features = numpy.array([feature_values(row.position, row.captured) for row in rows], dtype=float)
    wins = numpy.array([1.0 if row.wins else 0.0 for row in rows])
    return Samples(own.astype(numpy.uint8), opp.astype(numpy.uint8), features, wins)


def joined(first: Samples, second: Samples) -> Samples:
    """The samples of both."""
    return Samples(*(numpy.concatenate([a, b]) for a, b in zip(first, second)))


def value_rows(positions: Sequence[SolvedPosition]) -> List[ValuedPosition]:
    """Each position (won or lost) and each position one of its moves leads to, valued
    (``SolvedPosition.valued``)."""
    return [row for solved in positions for row in solved.valued()]


def extra_positions(
    won: WonPositions, sets: Sequence[PositionSet], lost: bool, fit_only: Sequence[PositionSet] = ()
) -> List[SolvedPosition]:
    """Positions whose values join the fit beside the won training positions ``won`` (those of the positions
    files ``sets``, read once), each once and none of ``won``'s (either split): with ``lost``, the lost positions
    of the training splits of ``sets``; the training splits of the ``fit_only`` files (their won positions, and
    their lost ones with ``lost``), whose held-out splits are neither fitted nor scored."""
    seen = {solved.text for solved in won.train + won.held_out}
    found: List[SolvedPosition] = []
    for position_set, scored in [(s, True) for s in sets] + [(s, False) for s in fit_only]:
        for solved in position_set.split(False):
            if solved.text in seen or (not solved.won and not lost) or (solved.won and scored):
                continue
            seen.add(solved.text)
            found.append(solved)
    return found


class Fitted(NamedTuple):
    """A fit's result: the features' weights (FEATURES order, evaluation units), the layer, the fit's
    constant (evaluation units: the guess is logistic in (evaluation + offset) / TEMPERATURE; the engine
    drops it, which changes no move), and its figures (``data_loss``: the mean log loss without the penalty)."""

    weights: Dict[str, float]
    network: Network
    offset: float
    figures: Dict[str, Any]


def _images(samples: Samples) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """(the board inputs, own then opp, under each of the 8 symmetries stacked; the features, repeated)."""
    blocks = []
    for image in SYMMETRIES:
        order = numpy.empty(NUM_POINTS, dtype=int)
        order[list(image)] = numpy.arange(NUM_POINTS)  # the point each image point reads
        blocks.append(numpy.hstack([samples.own[:, order], samples.opp[:, order]]).astype(float))
    return numpy.vstack(blocks), numpy.tile(samples.features, (len(SYMMETRIES), 1))


def _unpacked(vector: numpy.ndarray, cuts: numpy.ndarray, width: int) -> List[numpy.ndarray]:
    """The fit's vector as its parts: the units' input weights (``width`` x units), their biases, their out
    weights, the constant, the features' weights."""
    first, bias, out, offset, linear = numpy.split(vector, cuts)
    return [first.reshape(width, len(bias)), bias, out, offset, linear]


def _loss(
    parts: List[numpy.ndarray], inputs: numpy.ndarray, standard: numpy.ndarray, targets: numpy.ndarray, ridge: float
) -> Tuple[float, numpy.ndarray]:
    """The regularised mean log loss at ``parts`` (``_unpacked``) and its gradient, as one flat vector."""
    first, bias, out, offset, linear = parts
    layer = numpy.tanh(inputs @ first + bias)
    z = layer @ out + offset[0] + standard @ linear
    value, dz = logistic_loss(z, targets)
    value += ridge * float(numpy.sum(first * first) + out @ out)
    dlayer = numpy.outer(dz, out) * (1.0 - layer * layer)
    gradient = [
        inputs.T @ dlayer + 2 * ridge * first,
        dlayer.sum(axis=0),
        layer.T @ dz + 2 * ridge * out,
        [dz.sum()],
        standard.T @ dz,
    ]
    return value, numpy.concatenate([numpy.ravel(part) for part in gradient])


def fit_network(
    samples: Samples,
    hidden: int = HIDDEN,
    ridge: float = LAYER_RIDGE,
    iterations: int = ITERATIONS,
    seed: int = 1,
    step: Optional[Callable[[Callable[[], "Fitted"]], bool]] = None,
) -> Fitted:
    """The features' weights and a layer of ``hidden`` units minimising the regularised log loss of
    ``samples`` (each under the board's 8 symmetries), by L-BFGS from a start drawn with ``seed``. After
    each iteration ``step`` (where given) is called with a function that gives the iterate as a Fitted;
    where it returns False the fit stops there, and that iterate is the answer."""
    if not 1 <= hidden <= MAX_UNITS:
        raise ValueError(f"hidden units: 1 to {MAX_UNITS}, not {hidden}")
    board, features = _images(samples)
    mean, spread = features.mean(axis=0), features.std(axis=0)
    spread[spread == 0] = 1.0  # a feature that never varies (the captures without leaves) reads 0
    standard = (features - mean) / spread
    inputs = numpy.hstack([board, standard[:, _STATIC]])
    targets = numpy.tile(samples.wins, len(SYMMETRIES))
    width = inputs.shape[1]
    cuts = numpy.cumsum([width * hidden, hidden, hidden, 1])

    def loss(vector: numpy.ndarray) -> Tuple[float, numpy.ndarray]:
        return _loss(_unpacked(vector, cuts, width), inputs, standard, targets, ridge)

    def exported(vector: numpy.ndarray, fitted: Dict[str, Any]) -> Fitted:
        first, bias, out, offset, linear = _unpacked(vector, cuts, width)
        weights = {name: TEMPERATURE * float(linear[k] / spread[k]) for k, name in enumerate(FEATURES)}
        if not samples.features[:, _PATH].any():
            weights[PATH_FEATURE] = UNFITTED_CAPTURES
        units = [_exported_unit(first[:, j], bias[j], out[j], mean, spread) for j in range(hidden)]
        penalty = ridge * float(numpy.sum(first * first) + out @ out)
        figures = dict(samples=len(samples.wins), hidden=hidden, ridge=ridge, seed=seed, **fitted)
        figures["data_loss"] = figures["log_loss"] - penalty
        constant = float(offset[0] - linear @ (mean / spread))
        return Fitted(weights, Network(units=tuple(units)), TEMPERATURE * constant, figures)

    start = _start(width, hidden, seed)
    done = [0]

    def after(vector: numpy.ndarray) -> None:
        done[0] += 1
        if step is None:
            return
        iterate, count = numpy.array(vector), done[0]  # as it is now: the function may be called later
        if not step(lambda: exported(iterate, _figures(loss(iterate)[0], count, False))):
            raise _Stopped(iterate)

    try:
        result = minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": iterations}, callback=after)
    except _Stopped as stopped:  # ``step`` said stop: its iterate is the answer
        return exported(stopped.vector, _figures(loss(stopped.vector)[0], done[0], False))
    return exported(result.x, _figures(float(result.fun), int(result.nit), bool(result.success)))


def _start(width: int, hidden: int, seed: int) -> numpy.ndarray:
    """The fit's start, drawn with ``seed``: input weights N(0, 1/sqrt(width)), biases 0, out weights
    N(0, 1/sqrt(hidden)), the constant and the features' weights 0."""
    rng = numpy.random.default_rng(seed)
    return numpy.concatenate(
        [
            rng.normal(0.0, width**-0.5, width * hidden),
            numpy.zeros(hidden),
            rng.normal(0.0, hidden**-0.5, hidden),
            numpy.zeros(1 + len(FEATURES)),
        ]
    )


def _figures(log_loss: float, iterations: int, converged: bool) -> Dict[str, Any]:
    return {"iterations": iterations, "converged": converged, "log_loss": float(log_loss)}


class _Stopped(Exception):
    """Raised in SciPy's callback where ``fit_network``'s ``step`` says stop, with the iterate."""

    def __init__(self, vector: numpy.ndarray):
        super().__init__("stopped")
        self.vector = vector


def _exported_unit(reads: numpy.ndarray, bias: float, out: float, mean: numpy.ndarray, spread: numpy.ndarray) -> Unit:
    """One fitted unit as the engine reads it: ``reads`` its input weights (own points, opp points, then the
    standardised static features), the standardisation folded into its feature weights and bias, its out
    weight in evaluation units."""
    folded = reads[2 * NUM_POINTS :] / spread[_STATIC]
    unit_features = [0.0] * len(FEATURES)
    for k, w in zip(_STATIC, folded):
        unit_features[k] = float(w)
    return Unit(
        bias=float(bias - folded @ mean[_STATIC]),
        own=tuple(float(w) for w in reads[:NUM_POINTS]),
        opp=tuple(float(w) for w in reads[NUM_POINTS : 2 * NUM_POINTS]),
        features=tuple(unit_features),
        out=TEMPERATURE * float(out),
    )


# --- a pool's work: the held-out positions kept, and the search's leaves --------------------------------


class LeavesJob(NamedTuple):
    """Draw ``per`` of the leaves that the search of ``params`` (to their depth) reads from the won position
    ``solved``, with ``seed``."""

    params: Params
    solved: SolvedPosition
    per: int
    seed: int


def leaves(job: LeavesJob) -> List[Tuple[str, int, bool]]:
    """Worker: up to ``job.per`` of the leaves the search of ``job.params`` (their depth, the Python
    searcher) reads from its position, drawn with its seed: (the leaf as text, the mover's captures along
    the line, whether the mover wins, by this process's solver: ``start_worker_solver``)."""
    evaluate = job.params.evaluator()
    seen: List[Tuple[Position, int]] = []

    def recording(position: Position, captured: int = 0) -> float:
        seen.append((position, captured))
        return evaluate(position, captured)

    Searcher(recording, rng=None).iterative(job.solved.position(), job.params.depth)
    drawn = random.Random(job.seed).sample(seen, min(job.per, len(seen)))
    solver = worker_solver()
    return [(describe_position(p), captured, solver.wins(p)) for p, captured in drawn if not p.is_over]


class RoundFigures(NamedTuple):
    """One round of ``fit_rounds``: the samples fitted, the fit's final loss, the held-out won positions
    kept at the benchmark's depth (of how many), and the CPU seconds the round took (this process and its
    pool's workers, the leaves' searches included; not the compiled solver processes the workers leave
    running when the pool ends)."""

    samples: int
    log_loss: float
    kept: int
    of: int
    cpu_seconds: float


def fit_rounds(
    won: WonPositions,
    depth: int,
    settings: Params,
    options: NetworkOptions,
    solving: Solving,
    report: Callable[[str], object] = print,
    extra: Sequence[SolvedPosition] = (),
) -> Tuple[Params, List[RoundFigures]]:
    """Fit the layer on the won training positions ``won.train`` and the ``extra`` positions
    (``extra_positions``), count the held-out won positions kept at ``depth``, then for each of
    ``options.leaves`` rounds add ``options.per`` leaves of each won training position's search (to
    ``depth``) and fit again; (the last fit's Params: its weights and layer with ``settings``' search
    settings, every round's figures)."""
    samples = samples_of(value_rows(won.train + tuple(extra)))
    searched = won.train + tuple(solved for solved in extra if solved.won)  # the won ones: their leaves
    history: List[RoundFigures] = []
    for round_ in range(options.leaves + 1):
        started = cpu_with_children()
        report(
            f"round {round_}: fitting {len(samples.wins)} samples x {len(SYMMETRIES)} symmetries, "
            f"{options.hidden} units"
        )
        fitted = fit_network(samples, options.hidden, options.ridge, options.iterations, options.seed)
        # the keys are search settings, never ``endgame``, which mypy cannot tell
        params = make_params(fitted.weights, settings.provenance, "the fitted weights", **settings.search())  # type: ignore[arg-type]
        params = params.with_network(fitted.network)
        searching = params.with_settings(depth=depth)  # no book, no solver, no limit: the evaluation decides
        # a pool a round, so that the round's CPU counts its workers' (they end with it)
        with process_pool(
            solving.jobs, initializer=start_worker_solver, initargs=(solving.table_bits, solving.store)
        ) as pool:
            run = functools.partial(pool.imap, chunksize=1)
            (held_out,) = measure([FreshSearch(searching, plain=True)], won.held_out, run=run)
            report(
                f"round {round_}: log loss {fitted.figures['log_loss']:.4f}; kept {held_out.kept} of "
                f"{held_out.won} held-out won positions at depth {depth} ({held_out.share:.1%})"
            )
            if round_ < options.leaves:
                report(
                    f"round {round_}: drawing {options.per} leaves of each of {len(searched)} training "
                    f"searches and solving them"
                )
                jobs = [
                    LeavesJob(searching, solved, options.per, 1000 * round_ + k) for k, solved in enumerate(searched)
                ]
                found = [leaf for batch in pool.imap(leaves, jobs, chunksize=8) for leaf in batch]
        history.append(
            RoundFigures(
                len(samples.wins),
                fitted.figures["log_loss"],
                held_out.kept,
                held_out.won,
                cpu_with_children() - started,
            )
        )
        if round_ < options.leaves:
            samples = joined(samples, samples_of([ValuedPosition(position_from_text(t), c, w) for t, c, w in found]))
    return params, history
