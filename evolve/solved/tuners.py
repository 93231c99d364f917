"""The tuner benchmark: tuners compared at equal CPU where the evaluation decides alone, against an exact ruler.

The problem (``Problem``): the evaluation searched to a fixed depth (4 by default) with no book and no
solver, started from the hand-set defaults, its weights in the feature table's bounds. The ruler
(``engine.ruler``): won positions with every legal move solved (``evolve.solved.positions``), where a
move keeps the win or gives it away, each searched alone by the candidate (``candidate_player``). Their
training split feeds the fitnesses; their held-out split scores each tuner's candidate, and its optimum
is known: perfect play keeps every won position (100%).

A leg is one tuner on one fitness from one seed, given a CPU budget (``time.process_time``, the leg's own
process: the compiled searcher runs in it). At each tenth of the budget the tuner's recommendation is
noted; after the leg, each noted candidate is scored on the held-out positions (outside the budget).

Fitnesses (``FITNESSES``), each higher-is-better:
- ``regret``: the share of the training split's won positions whose move keeps the win (exact);
- ``labels``: minus the cross-entropy of the winning moves of each won training position under a
  softmax of the one-ply evaluations of its moves (the solver's exact labels, Texel's way: no search;
  ``evolve.solved.move_labels``);
- ``games``: the score of games against a panel from random two-ply openings (noisy: fresh seeds at
  every evaluation), as a user without a solver would tune;
- ``values``: the log loss of the evaluation's guess that the mover wins, over the training split's won
  positions and every position their moves lead to, each labelled by the solver (``evolve fit``'s loss,
  on the benchmark's own training split; ``values_of``).

Tuners (``TUNERS``), each an ask/tell object over the weights scaled to [0, 1] a gene
(``evolve.solved.ask_tell``): ``ga``, ``cmaes`` and ``spsa`` are ``evolve run``'s own strategies with
its defaults and hall of fame (``evolve.tuner``; since 2026-12-02, before which the benchmark ran copies
of its own); ``random`` (uniform search, the baseline), ``tpe`` (Optuna's), ``texel`` (gradient descent with Adam on the
``labels`` loss: the labels fitness only), and ``patterns`` (the features' weights with the 189 pattern
weights of ``engine.patterns``, by L-BFGS-B on the ``values`` loss: ``evolve.solved.pattern_fit``; its
candidates are the features' weights followed by the pattern weights). A gradient tuner that converges
before its budget is spent stops there: its later marks hold its last candidate.
"""

import math
import random
import time
from typing import Any, Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy

from engine.constants import BLACK, WHITE
from engine.features import FEATURE_TABLE, FEATURES
from engine.native.stored_solver import StoredSolver
from engine.params import Params, default_params, make_params
from engine.patterns import PATTERN_BOUNDS, PATTERNS
from engine.play.game import play_game
from engine.players.searcher import AgentPlayer, SearcherName
from engine.players.specs import make_player
from engine.position import Position
from engine.ruler.fresh_search import FreshSearch
from engine.ruler.measure import measure
from engine.ruler.position_set import SolvedPosition, load_won
from evolve.solved.ask_tell import TUNER_CLASSES
from evolve.solved.exploit import OpeningsExploitability, openings_exploitability
from evolve.solved.move_labels import label_loss, labels_of
from evolve.solved.pattern_fit import minimise_log_loss, values_of

MARKS = 10  # the budget's tenths, at which a leg's candidate is noted
FITNESSES = ("regret", "labels", "games", "values")
TUNERS = ("random", "ga", "cmaes", "spsa", "tpe", "texel", "patterns")
# tuners that need a fitness's gradient, and those they take; the values fitness is theirs alone
GRADIENT_TUNERS = {"texel": ("labels",), "patterns": ("values",)}
GRADIENT_FITNESSES = ("values",)
GAMES_PANEL = ("greedy", "aggressive", "handset@1")  # the games fitness's opponents, round-robin
GAMES_PER_EVALUATION = 12  # two a pair of colours for each of the panel, from fresh openings
THRESHOLDS = (0.80, 0.90, 0.95, 0.99)  # held-out shares whose CPU the summary reports


Candidate = Tuple[float, ...]  # a tuner's candidate: the features' weights (FEATURES order), then any pattern weights


class Problem(NamedTuple):
    """What every leg tunes: ``train`` and ``held_out``, the won positions of each split; ``depth``, the
    search's; ``start`` and ``bounds`` of the weights, in FEATURES order."""

    train: Tuple[SolvedPosition, ...]
    held_out: Tuple[SolvedPosition, ...]
    depth: int
    start: Tuple[float, ...]
    bounds: Tuple[Tuple[float, float], ...]


def load_problem(paths: Sequence[str], depth: int = 4) -> Problem:
    """The Problem of the positions files at ``paths``: each won position once (by its text), in the split
    its file gives it (``engine.ruler.position_set.load_won``)."""
    won = load_won(paths)
    start = tuple(default_params().weights[name] for name in FEATURES)
    bounds = tuple((float(low), float(high)) for low, high in (feature.bounds for feature in FEATURE_TABLE))
    return Problem(won.train, won.held_out, depth, start, bounds)


# --- the fitnesses -----------------------------------------------------------------------------------


def candidate_params(weights: Sequence[float], depth: int) -> Params:
    """The Params of a candidate: the features' weights (FEATURES order), then the pattern weights if any
    (PATTERNS order), searched to ``depth``."""
    params = make_params(weights[: len(FEATURES)], source="a tuner's candidate", depth=depth)
    return params.with_patterns(weights[len(FEATURES) :] or None, "a tuner's candidate")


def candidate_player(weights: Sequence[float], depth: int) -> FreshSearch:
    """A candidate as the ruler asks it (``engine.ruler.measure``): searched alone to ``depth`` in each
    position, with no book, no solver and no limit, so that the evaluation decides."""
    return FreshSearch(candidate_params(weights, depth), plain=True)


def candidate_openings(
    weights: Sequence[float], depth: int, solver: StoredSolver, openings: Sequence[Position]
) -> OpeningsExploitability:
    """The OpeningsExploitability of a candidate searched to ``depth`` (the compiled searcher, no book, no
    solver) against the exact adversary of ``solver``, from the empty board and the won ``openings``."""
    params = candidate_params(weights, depth)
    return openings_exploitability(
        lambda: AgentPlayer(params, depth, spec="candidate", timed=False, searcher=SearcherName.NATIVE),
        solver,
        openings,
    )


def games_score(weights: Sequence[float], depth: int, rng: random.Random) -> float:
    """The games fitness of a candidate's ``weights``: ``games_score_of`` their params."""
    return games_score_of(candidate_params(weights, depth), depth, rng)


def games_score_of(params: Params, depth: int, rng: random.Random) -> float:
    """The share of points of ``params`` (searched to ``depth``, the compiled searcher, no limit) in
    GAMES_PER_EVALUATION games against GAMES_PANEL from random two-ply openings whose seeds ``rng`` draws:
    a draw of the noisy fitness."""
    points = 0
    for game in range(GAMES_PER_EVALUATION):
        opponent = make_player(GAMES_PANEL[(game // 2) % len(GAMES_PANEL)])
        ours = AgentPlayer(params, depth, spec="candidate", timed=False, searcher=SearcherName.NATIVE)
        seed = rng.randrange(2**31)
        black, white = (ours, opponent) if game % 2 == 0 else (opponent, ours)
        record = play_game(black, white, seed=seed, opening_plies=2, opening_seed=seed)
        ours_colour = BLACK if game % 2 == 0 else WHITE
        points += record.winner == ours_colour
    return points / GAMES_PER_EVALUATION


# --- a leg ------------------------------------------------------------------------------------------


class Leg(NamedTuple):
    """One tuner on one fitness from one seed, for ``budget`` CPU seconds."""

    tuner: str
    fitness: str
    seed: int
    budget: float


class Mark(NamedTuple):
    """A leg's candidate at a mark of its budget: the CPU spent, the evaluations done, the weights, and
    (once scored) the held-out share kept."""

    cpu: float
    evaluations: int
    weights: Tuple[float, ...]
    held_out_share: Optional[float] = None

    def to_json(self) -> Dict[str, Any]:
        """The mark as a leg's line in legs.jsonl holds it (the share under its key of old, ``held_out``)."""
        return {
            "cpu": self.cpu,
            "evaluations": self.evaluations,
            "weights": self.weights,
            "held_out": self.held_out_share,
        }


class LegResult(NamedTuple):
    """A leg's noted candidates, each scored on the held-out split, and the last one's score by ply."""

    leg: Leg
    marks: List[Mark]
    by_ply: Dict[int, Tuple[int, int]]  # the last candidate's held-out score by ply


def _weights(point: Iterable[float], bounds: Sequence[Tuple[float, float]]) -> Tuple[float, ...]:
    return tuple(low + min(max(x, 0.0), 1.0) * (high - low) for x, (low, high) in zip(point, bounds))


def _unit(weights: Sequence[float], bounds: Sequence[Tuple[float, float]]) -> List[float]:
    return [min(max((w - low) / (high - low), 0.0), 1.0) for w, (low, high) in zip(weights, bounds)]


def fitness_function(problem: Problem, fitness: str, rng: random.Random) -> Callable[[Sequence[float]], float]:
    """The fitness ``fitness`` of weights (in weight units) on ``problem``: higher is better."""
    if fitness == "regret":
        return lambda weights: measure([candidate_player(weights, problem.depth)], problem.train)[0].share
    if fitness == "labels":
        labels = labels_of(problem.train)
        return lambda weights: -label_loss(weights, labels)
    if fitness == "games":
        return lambda weights: games_score(weights, problem.depth, rng)
    if fitness in GRADIENT_FITNESSES:
        raise ValueError(f"the {fitness} fitness is a gradient tuner's: {', '.join(GRADIENT_TUNERS)}")
    raise ValueError(f"no fitness {fitness!r}: one of {', '.join(FITNESSES)}")


def _texel(problem: Problem, note: Callable[[int, List[float]], bool]) -> None:
    """Adam on the label loss, in unit space (a step of 0.01 of each range); the current point noted."""
    labels = labels_of(problem.train)
    spans = numpy.array([high - low for low, high in problem.bounds])
    point = numpy.array(_unit(problem.start, problem.bounds))
    first, second, step = numpy.zeros_like(point), numpy.zeros_like(point), 0
    while note(step, list(point)):
        _, grad = label_loss(_weights(point, problem.bounds), labels, gradient=True)
        grad = grad * spans  # d loss / d unit
        step += 1
        first = 0.9 * first + 0.1 * grad
        second = 0.999 * second + 0.001 * grad * grad
        point = numpy.clip(
            point - 0.01 * (first / (1 - 0.9**step)) / (numpy.sqrt(second / (1 - 0.999**step)) + 1e-8), 0.0, 1.0
        )


def _pattern_bounds(problem: Problem) -> List[Tuple[float, float]]:
    """The bounds of a ``patterns`` candidate: the features', then the pattern weights'. (The captures
    weight stays at its start: a position's values count no captures, so its gradient is 0.)"""
    return list(problem.bounds) + [PATTERN_BOUNDS] * len(PATTERNS)


def _patterns(problem: Problem, note: Callable[[int, List[float]], bool]) -> List[float]:
    """L-BFGS-B on the values loss, every iterate noted (in unit space over ``_pattern_bounds``) until the
    budget is spent or the fit converges; the last iterate."""
    values = values_of(problem.train)
    bounds = _pattern_bounds(problem)
    start = list(problem.start) + [0.0] * len(PATTERNS)
    iterations = 0
    if not note(iterations, _unit(start, bounds)):
        return _unit(start, bounds)

    def step(weights: numpy.ndarray) -> bool:
        nonlocal iterations
        iterations += 1
        return note(iterations, _unit(weights.tolist(), bounds))

    weights, _ = minimise_log_loss(values.features, values.wins, values.plies, start, bounds, step=step)
    return _unit(weights.tolist(), bounds)


def tuner_uses(tuner: str, fitness: str) -> bool:
    """Whether ``tuner`` can tune on ``fitness``: a gradient tuner on those whose gradient it follows, any
    other on the fitnesses that are not a gradient tuner's alone."""
    if tuner in GRADIENT_TUNERS:
        return fitness in GRADIENT_TUNERS[tuner]
    return fitness not in GRADIENT_FITNESSES


def run_leg(problem: Problem, leg: Leg) -> LegResult:
    """The LegResult of ``leg`` on ``problem``: its tuner run until the leg's CPU budget is spent, its
    candidate noted at each tenth, then each noted candidate scored on the held-out split."""
    if not tuner_uses(leg.tuner, leg.fitness):
        raise ValueError(f"the tuner {leg.tuner} cannot tune on the {leg.fitness} fitness")
    rng = random.Random(leg.seed)
    started = time.process_time()
    marks_at = [leg.budget * (k + 1) / MARKS for k in range(MARKS)]
    marks: List[Mark] = []

    bounds = _pattern_bounds(problem) if leg.tuner == "patterns" else problem.bounds
    evaluations = 0

    def note(done: int, point: List[float], used: Optional[float] = None) -> bool:
        """Note the candidate at every mark passed (all of them where ``used`` is the whole budget);
        whether budget is left."""
        nonlocal evaluations
        evaluations = done
        used = time.process_time() - started if used is None else used
        while marks_at and used >= marks_at[0]:
            marks.append(Mark(marks_at.pop(0), done, _weights(point, bounds)))
        return bool(marks_at)

    if leg.tuner == "texel":
        _texel(problem, note)
    elif leg.tuner == "patterns":
        last = _patterns(problem, note)
        note(evaluations, last, used=leg.budget)  # converged: the rest of the marks hold its last iterate
    else:
        start = _unit(problem.start, problem.bounds)
        tuner = TUNER_CLASSES[leg.tuner](start, rng, budget_hint=100)
        fitness = fitness_function(problem, leg.fitness, rng)
        while note(evaluations, tuner.recommend()):
            asked = tuner.ask()
            values = [fitness(_weights(point, problem.bounds)) for point in asked]
            evaluations += len(values)
            tuner.tell(asked, values)
    found = measure([candidate_player(mark.weights, problem.depth) for mark in marks], problem.held_out)
    scored = [mark._replace(held_out_share=kept.share) for mark, kept in zip(marks, found)]
    return LegResult(leg, scored, found[-1].by_ply)


# --- the summary --------------------------------------------------------------------------------------


def cpu_to_reach(result: LegResult, share: float) -> Optional[float]:
    """The CPU at the first mark whose candidate keeps ``share`` of the held-out positions, or None."""
    return next(
        (mark.cpu for mark in result.marks if mark.held_out_share is not None and mark.held_out_share >= share), None
    )


class OpeningsRow(NamedTuple):
    """The won openings a (tuner, fitness)'s final candidates keep against the exact adversary."""

    median: int
    min: int
    max: int
    of: int  # the won openings each is played from
    empty_board: int  # how many of the candidates win the empty board as Black


class SummaryRow(NamedTuple):
    """A (tuner, fitness)'s line of the benchmark's summary (``summary_rows``)."""

    tuner: str
    fitness: str
    seeds: int
    budget: float  # CPU seconds a leg
    start: float  # the hand-set weights' held-out share
    final_median: float  # the held-out share of the legs' final candidates
    final_min: float
    final_max: float
    cpu_to_reach: Dict[str, Optional[float]]  # {"0.80": median CPU s to reach that share, None: most never did}
    openings: Optional[OpeningsRow]  # None where not every final candidate was played from the openings

    def to_json(self) -> Dict[str, Any]:
        """The row as summary.json holds it."""
        return dict(self._asdict(), openings=None if self.openings is None else self.openings._asdict())


class BenchmarkSummary(NamedTuple):
    """What ``evolve tuners`` found: its problem, a row for each (tuner, fitness), and the correlations."""

    depth: int
    budget: float
    positions: List[str]
    train: int  # won positions in the training split
    held_out_won: int  # won positions in the held-out split
    start_held_out: float  # the hand-set weights' share of them
    start_openings: Optional[OpeningsExploitability]  # the hand-set weights against the exact adversary
    rows: List[SummaryRow]
    correlations: Dict[str, float]  # {measure: Spearman's correlation with the held-out share}

    def to_json(self) -> Dict[str, Any]:
        """The summary as summary.json holds it."""
        data = self._asdict()
        data["held_out"] = data.pop("held_out_won")  # summary.json's key, as it always was
        return dict(
            data,
            start_openings=None if self.start_openings is None else self.start_openings.to_json(),
            rows=[row.to_json() for row in self.rows],
        )


def summary_rows(
    results: Sequence[LegResult],
    start_share: float,
    openings: Optional[Mapping[Candidate, OpeningsExploitability]] = None,
) -> List[SummaryRow]:
    """A row for each (tuner, fitness): seeds, the held-out share at the end (median, min, max), the
    median CPU to reach each of THRESHOLDS (None where fewer than half the seeds reached it), and where
    ``openings`` (by candidate) holds every final candidate, the won openings they keep (median, min,
    max, of) and how many win the empty board as Black."""
    groups: Dict[Tuple[str, str], List[LegResult]] = {}
    for result in results:
        groups.setdefault((result.leg.tuner, result.leg.fitness), []).append(result)
    rows = []
    for (tuner, fitness), legs in sorted(groups.items()):
        finals = sorted(s for s in (leg.marks[-1].held_out_share for leg in legs) if s is not None)
        reach = {}
        for share in THRESHOLDS:
            times = sorted(t for t in (cpu_to_reach(leg, share) for leg in legs) if t is not None)
            reach[share] = times[len(legs) // 2] if len(times) * 2 > len(legs) else None
        rows.append(
            SummaryRow(
                tuner=tuner,
                fitness=fitness,
                seeds=len(legs),
                budget=legs[0].leg.budget,
                start=start_share,
                final_median=finals[len(finals) // 2],
                final_min=finals[0],
                final_max=finals[-1],
                cpu_to_reach={f"{share:.2f}": reach[share] for share in THRESHOLDS},
                openings=_openings_row([leg.marks[-1].weights for leg in legs], openings or {}),
            )
        )
    return rows


def _openings_row(
    finals: Sequence[Candidate], openings: Mapping[Candidate, OpeningsExploitability]
) -> Optional[OpeningsRow]:
    """The won openings the final candidates ``finals`` keep (median, min, max, of) and how many of them win
    the empty board, from ``openings``; None where it lacks one of them."""
    if not finals or not all(weights in openings for weights in finals):
        return None
    reports = [openings[weights] for weights in finals]
    kept = sorted(report.kept for report in reports)
    return OpeningsRow(
        kept[len(kept) // 2], kept[0], kept[-1], reports[0].of, sum(report.empty_board for report in reports)
    )


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation of two equal-length sequences (ties at their mean rank)."""

    def ranks(values: Sequence[float]) -> List[float]:
        order = sorted(range(len(values)), key=lambda k: values[k])
        result = [0.0] * len(values)
        k = 0
        while k < len(order):
            j = k
            while j + 1 < len(order) and values[order[j + 1]] == values[order[k]]:
                j += 1
            for m in range(k, j + 1):
                result[order[m]] = (k + j) / 2
            k = j + 1
        return result

    rx, ry = ranks(list(xs)), ranks(list(ys))
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return num / den if den else 0.0
