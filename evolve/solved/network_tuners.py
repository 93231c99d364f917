"""The tuner benchmark's network problem: how far evolution takes the evaluation's hidden layer, beside
the gradient fit that made the shipped one, at equal CPU on the exact ruler (``evolve network-tuners``).

The problem (``NetworkProblem``): the flat problem's positions and depth (``evolve.solved.tuners``: the
evaluation searched alone to a fixed depth, no book, no solver; the training split's won positions feed
the fitnesses, the held-out split's score each candidate), with a hidden layer of ``hidden`` units
(``engine.network``) beside the 13 features' weights.

A leg (``NetworkLeg``) is one tuner on one fitness, from one seed, for a CPU budget; its candidate is
noted at each tenth of the budget and, after the leg, each noted candidate is scored on the held-out
split (outside the budget). The legs (``NETWORK_LEGS``):

- ``fit`` on ``values``: the gradient fit of ``evolve network`` (its first round, no leaves: every leaf
  costs a solve), the layer and the features' weights together by L-BFGS on the log loss of the solver's
  values of the training positions and their children, from a start drawn with the seed;
- ``cmaes`` (or ``ga``, ``spsa``: ``evolve run``'s own strategies, ``evolve.solved.ask_tell``) on
  ``regret`` or ``games``, of the layer's out weights (``network.out``, one a unit) from the fit: the
  final candidate of the ``fit`` leg of the same seed and budget, the rest of the params carried; its
  marks' CPU counts the fit's before its own, so that its curve goes on where the fit's stops;
- ``cmaes`` on ``regret`` of every weight of the layer (``network``) from scratch: the hand-set features'
  weights and a layer drawn with the seed as the fit draws its start, out weights and all.

A gene's box is ``evolve run``'s for a run started from a params file (``evolve.params_genes``): its
start plus or minus the largest size of its group in the start. The ``regret`` and ``games`` fitnesses
are the flat problem's, of a candidate's whole params.
"""

import random
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy

from engine.constants import BLACK, NUM_POINTS
from engine.coords import move_to_text
from engine.errors import InvalidInput
from engine.features import FEATURES
from engine.network import Network, Unit
from engine.params import Params, default_params, make_params, params_from_dict, params_to_dict
from engine.ruler.fresh_search import FreshSearch
from engine.ruler.measure import MoveFault, measure
from engine.ruler.position_set import SolvedPosition, load_won
from evolve.params_genes import Genome, gene_values, layer_bounds, part_genes
from evolve.solved.ask_tell import TUNER_CLASSES
from evolve.solved.fit_figures import TEMPERATURE
from evolve.solved.network_fit import HIDDEN, LAYER_RIDGE, Fitted, fit_network, samples_of, value_rows
from evolve.solved.tuners import MARKS, games_score_of

FIT = "fit"  # the gradient fit, a leg's tuner
FROM_SCRATCH = "scratch"  # a leg's start: a layer drawn at random
NETWORK_FITNESSES = ("values", "regret", "games")
EVOLVING_TUNERS = ("ga", "cmaes", "spsa")
NETWORK_THRESHOLDS = (0.90, 0.95, 0.97, 0.99)  # held-out shares whose CPU the summary reports
FIT_ITERATIONS = 100_000  # the fit's L-BFGS iterations: its budget stops it, or it converges first


class NetworkLeg(NamedTuple):
    """One tuner on one fitness of the ``part`` it evolves (``evolve.params_genes.PARTS``), from ``start``
    (``FIT``: the fit leg of the same seed and budget; ``FROM_SCRATCH``: a layer drawn with the seed), for
    ``budget`` CPU seconds."""

    tuner: str
    fitness: str
    part: str
    start: str
    seed: int
    budget: float

    @property
    def name(self) -> str:
        """How the tables name the leg's kind: tuner, fitness, part and start."""
        if self.tuner == FIT:
            return "fit (values)"
        return f"{self.tuner} ({self.fitness}) of {self.part} from {'the fit' if self.start == FIT else 'scratch'}"


NETWORK_LEGS = (
    (FIT, "values", "network", FROM_SCRATCH),
    ("cmaes", "regret", "network.out", FIT),
    ("cmaes", "games", "network.out", FIT),
    ("cmaes", "regret", "network", FROM_SCRATCH),
)


def network_legs(kinds: Sequence[Tuple[str, str, str, str]], seeds: Sequence[int], budget: float) -> List[NetworkLeg]:
    """The legs of each kind (tuner, fitness, part, start) from each seed, the fits first."""
    legs = [NetworkLeg(*kind, seed=seed, budget=budget) for kind in kinds for seed in seeds]
    return sorted(legs, key=lambda leg: leg.tuner != FIT)


class NetworkProblem(NamedTuple):
    """What every leg tunes: the won positions of each split, the search's ``depth``, the layer's
    ``hidden`` units, and the hand-set params searched to that depth (``base``: the scratch legs' flat
    weights)."""

    train: Tuple[SolvedPosition, ...]
    held_out: Tuple[SolvedPosition, ...]
    depth: int
    hidden: int
    base: Params


def load_network_problem(paths: Sequence[str], depth: int = 4, hidden: int = HIDDEN) -> NetworkProblem:
    """The NetworkProblem of the positions files at ``paths`` (each won position once, in its file's split)."""
    won = load_won(paths)
    return NetworkProblem(won.train, won.held_out, depth, hidden, default_params().with_settings(depth=depth))


class NetworkMark(NamedTuple):
    """A leg's candidate at a mark: the CPU spent (the fit's before it, for a leg from the fit), the
    fitness evaluations (a fit's iterations) done, and once scored, the held-out share kept."""

    cpu: float
    evaluations: int
    held_out_share: Optional[float] = None


class NetworkLegResult(NamedTuple):
    """A leg's marks, each scored on the held-out split; its final candidate's params (as a params file
    holds them; None where a record left them out to stay small) and the held-out score of it by ply."""

    leg: NetworkLeg
    marks: List[NetworkMark]
    final: Optional[Dict[str, Any]]
    by_ply: Dict[int, Tuple[int, int]]
    spent: float  # the CPU its tuner ran (a leg from the fit: the fit's before it), its budget or less

    def to_json(self) -> Dict[str, Any]:
        """The result as a line of legs.jsonl."""
        return {
            "leg": self.leg._asdict(),
            "marks": [mark._asdict() for mark in self.marks],
            "final": self.final,
            "by_ply": {str(ply): list(pair) for ply, pair in self.by_ply.items()},
            "spent": self.spent,
        }


def result_from_json(data: Dict[str, Any]) -> NetworkLegResult:
    """A NetworkLegResult as ``to_json`` wrote it."""
    return NetworkLegResult(
        NetworkLeg(**data["leg"]),
        [NetworkMark(**mark) for mark in data["marks"]],
        data["final"],
        {int(ply): (int(pair[0]), int(pair[1])) for ply, pair in data["by_ply"].items()},
        float(data["spent"]),
    )


def scratch_params(problem: NetworkProblem, seed: int) -> Params:
    """The hand-set params with a layer of ``problem.hidden`` units drawn with ``seed`` as the fit draws
    its start (input weights N(0, 1/sqrt(inputs)), biases 0, out weights N(0, 1/sqrt(units)) logits);
    the units read no feature: a feature's weight starts at 0, as its bias."""
    rng = numpy.random.default_rng(seed)
    inputs = 2 * NUM_POINTS + len(FEATURES) - 1  # the fit's: the board's points, the features but the path's
    units = []
    for _ in range(problem.hidden):
        reads = rng.normal(0.0, inputs**-0.5, 2 * NUM_POINTS)
        out = TEMPERATURE * float(rng.normal(0.0, problem.hidden**-0.5))
        units.append(
            Unit(
                bias=0.0,
                own=tuple(float(w) for w in reads[:NUM_POINTS]),
                opp=tuple(float(w) for w in reads[NUM_POINTS:]),
                features=(0.0,) * len(FEATURES),
                out=out,
            )
        )
    return problem.base.with_network(Network(units=tuple(units)))


def regret_share(params: Params, positions: Sequence[SolvedPosition]) -> float:
    """The share of ``positions`` (won) whose move, searched alone to the params' depth, keeps the win."""
    return measure([FreshSearch(params, plain=True)], positions)[0].share


class _Marks:
    """The marks of a leg's budget. ``note`` is told each new candidate as it comes (a function that makes
    its params, called only where a mark needs it); a mark holds the candidate that stood when it passed."""

    def __init__(self, budget: float, offset: float):
        self.started = time.process_time()
        self.offset = offset
        self.at = [budget * (k + 1) / MARKS for k in range(MARKS)]
        self.noted: List[Tuple[NetworkMark, Params]] = []
        self.standing: Optional[Callable[[], Params]] = None
        self.done = 0

    def spent(self) -> float:
        """The CPU of the leg so far, the offset included."""
        return self.offset + time.process_time() - self.started

    def note(self, done: int, candidate: Callable[[], Params], used: Optional[float] = None) -> bool:
        """The marks passed by now (every one left where ``used`` is the whole budget) get the candidate
        that stood until now, then ``candidate`` (after ``done`` evaluations) stands; whether budget is
        left."""
        used = time.process_time() - self.started if used is None else used
        standing, made = self.standing or candidate, None
        while self.at and used >= self.at[0]:
            made = made or standing()
            self.noted.append((NetworkMark(self.offset + self.at.pop(0), self.done), made))
        self.standing, self.done = candidate, done
        return bool(self.at)

    def last(self) -> None:
        """Every mark left gets the candidate standing: the tuner has stopped (a fit that converged)."""
        standing = self.standing
        assert standing is not None, "a leg notes its start first"
        self.note(self.done, standing, used=float("inf"))


def run_network_leg(
    problem: NetworkProblem, leg: NetworkLeg, fitted: Optional[Tuple[Params, float]] = None
) -> NetworkLegResult:
    """The NetworkLegResult of ``leg``: its tuner run until its CPU budget is spent, the candidate noted at
    each tenth, then each noted candidate scored on the held-out split. ``fitted``: for a leg from the
    fit, the fit leg's final params and the CPU it spent."""
    if leg.tuner == FIT:
        marks, spent = _fit(problem, leg)
    elif leg.tuner in EVOLVING_TUNERS and leg.fitness in ("regret", "games"):
        if leg.start == FIT:
            if fitted is None:
                raise ValueError("a leg from the fit needs the fit leg's params")
            start, offset = fitted
        else:
            start, offset = scratch_params(problem, leg.seed), 0.0
        marks = _evolve(problem, leg, start, offset)
        spent = marks.spent()
    else:
        raise ValueError(f"no network leg {leg.tuner} on {leg.fitness}")
    found = measure([FreshSearch(params, plain=True) for _, params in marks.noted], problem.held_out)
    scored = [mark._replace(held_out_share=kept.share) for (mark, _), kept in zip(marks.noted, found)]
    return NetworkLegResult(leg, scored, params_to_dict(marks.noted[-1][1]), found[-1].by_ply, spent)


def _fit(problem: NetworkProblem, leg: NetworkLeg) -> Tuple[_Marks, float]:
    """The gradient fit's leg, the samples built and L-BFGS run inside the budget: its marks and the CPU
    it ran (less than the budget where it converged first)."""
    marks = _Marks(leg.budget, 0.0)
    samples = samples_of(value_rows(problem.train))
    settings = problem.base.with_settings(depth=problem.depth)

    def params_of(fitted: Fitted) -> Params:
        # the keys are search settings, never ``endgame``, which mypy cannot tell
        params = make_params(fitted.weights, settings.provenance, "the fitted weights", **settings.search())  # type: ignore[arg-type]
        return params.with_network(fitted.network)

    iterations = [0]

    def step(iterate: Callable[[], Fitted]) -> bool:
        iterations[0] += 1
        return marks.note(iterations[0], lambda: params_of(iterate()))

    fit_network(samples, problem.hidden, LAYER_RIDGE, FIT_ITERATIONS, leg.seed, step=step)
    spent = marks.spent()
    marks.last()  # converged: its last iterate on
    return marks, spent


def _evolve(problem: NetworkProblem, leg: NetworkLeg, start: Params, offset: float) -> _Marks:
    """An evolving leg: ``leg.tuner`` on the unit box of ``leg.part``'s genes in ``start``."""
    marks = _Marks(leg.budget, offset)
    rng = random.Random(leg.seed)
    genes = part_genes(leg.part, start, tapered=False)
    genome = Genome(tuple(genes), start)
    bounds = layer_bounds(start, genes, {})
    boxes = [bounds[gene] for gene in genes]
    values = gene_values(start, genes)
    tuner = TUNER_CLASSES[leg.tuner](_unit(values, boxes), rng, budget_hint=100)

    def params_of(point: Sequence[float]) -> Params:
        return genome.params(_weights(point, boxes), "a network tuner's candidate", start.search())

    if leg.fitness == "regret":
        fitness: Callable[[Params], float] = lambda params: regret_share(params, problem.train)  # noqa: E731
    else:
        fitness = lambda params: games_score_of(params, problem.depth, rng)  # noqa: E731
    evaluations = 0

    def recommended() -> Callable[[], Params]:
        point = list(tuner.recommend())  # as it stands now: the thunk is called later
        return lambda: params_of(point)

    while marks.note(evaluations, recommended()):
        asked = tuner.ask()
        scores = [fitness(params_of(point)) for point in asked]
        evaluations += len(scores)
        tuner.tell(asked, scores)
    return marks


def _weights(point: Sequence[float], boxes: Sequence[Tuple[float, float]]) -> List[float]:
    return [low + min(max(x, 0.0), 1.0) * (high - low) for x, (low, high) in zip(point, boxes)]


def _unit(values: Sequence[float], boxes: Sequence[Tuple[float, float]]) -> List[float]:
    return [
        min(max((v - low) / (high - low), 0.0), 1.0) if high > low else 0.5 for v, (low, high) in zip(values, boxes)
    ]


def final_params(result: NetworkLegResult) -> Params:
    """A leg's final candidate's params; InvalidInput where its record left them out."""
    where = f"the final candidate of {result.leg.name}, seed {result.leg.seed}"
    if result.final is None:
        raise InvalidInput(f"{where}: its record keeps no params (play the leg again in another --out)")
    return params_from_dict(dict(result.final), where)


# --- the summary --------------------------------------------------------------------------------------


class NetworkRow(NamedTuple):
    """A leg kind's line of the summary: its seeds, the held-out share of their final candidates (median,
    min, max) and the median CPU at which they first kept each of NETWORK_THRESHOLDS (None where most never did)."""

    name: str
    seeds: int
    budget: float
    final_median: float
    final_min: float
    final_max: float
    cpu_to_reach: Dict[str, Optional[float]]


def network_rows(results: Sequence[NetworkLegResult]) -> List[NetworkRow]:
    """A row for each leg kind, in NETWORK_LEGS order where they are among them."""
    groups: Dict[str, List[NetworkLegResult]] = {}
    for result in results:
        groups.setdefault(result.leg.name, []).append(result)
    rows = []
    for name, legs in groups.items():
        finals = sorted(float(leg.marks[-1].held_out_share or 0.0) for leg in legs)
        reach: Dict[str, Optional[float]] = {}
        for share in NETWORK_THRESHOLDS:
            times = sorted(t for t in (_cpu_to_reach(leg, share) for leg in legs) if t is not None)
            reach[f"{share:.2f}"] = times[len(legs) // 2] if len(times) * 2 > len(legs) else None
        rows.append(
            NetworkRow(name, len(legs), legs[0].leg.budget, finals[len(finals) // 2], finals[0], finals[-1], reach)
        )
    return rows


def _cpu_to_reach(result: NetworkLegResult, share: float) -> Optional[float]:
    return next((m.cpu for m in result.marks if m.held_out_share is not None and m.held_out_share >= share), None)


class CommonMiss(NamedTuple):
    """A held-out won position that every final candidate gives away: the atlas of the misses."""

    text: str
    ply: int
    board: str  # rows 0-4 joined by spaces: X Black, O White
    to_play: str  # Black or White
    winning: Tuple[str, ...]  # the moves that keep the win, as the course writes them
    played: Dict[str, int]  # the moves the candidates played instead, and how many played each


def common_misses(results: Sequence[NetworkLegResult], problem: NetworkProblem) -> List[CommonMiss]:
    """The held-out won positions every leg's final candidate gives away (each searched alone to the
    problem's depth), by ply: what no fit or evolution of this problem found. A leg whose record keeps
    no final params is left out."""
    finals = [FreshSearch(final_params(result), plain=True) for result in results if result.final is not None]
    if not finals:
        return []
    kept = measure(finals, problem.held_out)
    every = set.intersection(*({miss.solved.text for miss in player.misses} for player in kept))
    missed: Dict[str, Dict[str, int]] = {text: {} for text in every}
    for player in kept:
        for miss in player.misses:
            if miss.solved.text in every:
                played = missed[miss.solved.text]
                answer = str(miss.answer) if isinstance(miss.answer, MoveFault) else move_to_text(miss.answer)
                played[answer] = played.get(answer, 0) + 1
    positions = {solved.text: solved for solved in problem.held_out}
    found = []
    for text, played in missed.items():
        solved = positions[text]
        position = solved.position()
        found.append(
            CommonMiss(
                text,
                solved.ply,
                position.picture().replace("\n", " "),
                "Black" if position.player == BLACK else "White",
                tuple(sorted(move_to_text(move) for move in solved.winning)),
                dict(sorted(played.items(), key=lambda item: -item[1])),
            )
        )
    return sorted(found, key=lambda miss: (miss.ply, miss.text))


def misses_table(misses: Sequence[CommonMiss], candidates: int) -> str:
    """The atlas of the misses as a Markdown table."""
    lines = [
        f"Held-out won positions that all {candidates} final candidates give away: {len(misses)}.",
        "",
        "| ply, to play | board (rows 0-4; X Black, O White) | winning | played instead (candidates) |",
        "| --- | --- | --- | --- |",
    ]
    for miss in misses:
        played = ", ".join(f"{move} ({count})" for move, count in miss.played.items())
        lines.append(
            f"| {miss.ply}, {miss.to_play} | `{'` `'.join(miss.board.split())}` | {' '.join(miss.winning)} | {played} |"
        )
    return "\n".join(lines)


def network_table(rows: Sequence[NetworkRow], problem: NetworkProblem) -> str:
    """The summary's rows as a Markdown table."""
    lines = [
        f"The network problem: {problem.hidden} hidden units, depth {problem.depth}, {len(problem.train)} training and "
        f"{len(problem.held_out)} held-out won positions.",
        "",
        "| legs | seeds | CPU s a leg | held out at the end: median (min-max) | "
        + " | ".join(f"CPU to {share:.0%}" for share in NETWORK_THRESHOLDS)
        + " |",
        "| --- | --- | --- | --- | " + " | ".join("---" for _ in NETWORK_THRESHOLDS) + " |",
    ]
    for row in rows:
        reach = " | ".join("-" if cpu is None else f"{cpu:.0f} s" for cpu in row.cpu_to_reach.values())
        lines.append(
            f"| {row.name} | {row.seeds} | {row.budget:g} | {row.final_median:.1%} ({row.final_min:.1%}-"
            f"{row.final_max:.1%}) | {reach} |"
        )
    lines += [
        "",
        "CPU to N%: the median over seeds of the CPU at the first tenth whose candidate kept N% of the held-out "
        "won positions, where most seeds reached it; a leg from the fit counts the fit's CPU first.",
    ]
    return "\n".join(lines)


def plot_network_curves(results: Sequence[NetworkLegResult], path: str) -> None:
    """The held-out share against CPU seconds, a line a leg kind (the median over seeds at each tenth, the
    band their range)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    groups: Dict[str, List[NetworkLegResult]] = {}
    for result in results:
        groups.setdefault(result.leg.name, []).append(result)
    figure, panel = pyplot.subplots(figsize=(8, 5))
    for name, legs in groups.items():
        cpu = [sorted(column)[len(column) // 2] for column in zip(*[[m.cpu for m in leg.marks] for leg in legs])]
        columns = list(zip(*[[m.held_out_share or 0.0 for m in leg.marks] for leg in legs]))
        medians = [sorted(column)[len(column) // 2] for column in columns]
        (line,) = panel.plot(cpu, medians, marker="o", markersize=3, label=f"{name} ({len(legs)} seeds)")
        panel.fill_between(
            cpu, [min(c) for c in columns], [max(c) for c in columns], alpha=0.15, color=line.get_color()
        )
    panel.axhline(1.0, color="black", linewidth=0.8, label="perfect play")
    panel.set_xlabel("CPU seconds (a leg from the fit: the fit's, then its own)")
    panel.set_ylabel("held-out won positions kept")
    panel.legend(fontsize=7, loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)
