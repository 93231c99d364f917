"""``evolve tuners``: the tuner benchmark, every tuner on every fitness it can use, at equal CPU."""

import argparse
import json
import os
import random
import sys
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from engine.cli.parts.argument_types import positive_int, positive_seconds
from engine.cli.parts.arguments import add_json, add_store, store_path
from engine.cli.parts.commands import Subcommands, command
from engine.common.json_lines import ResultsFolder
from engine.common.pools import process_pool
from engine.errors import InvalidInput
from engine.native.solver import describe_position, position_from_text
from engine.native.stored_solver import StoredSolver, start_worker_solver, worker_solver
from engine.ruler.measure import measure
from evolve.solved import tuners
from evolve.solved.exploit import EXPLOIT_TABLE_BITS, OpeningsExploitability, won_openings
from evolve.solved.move_labels import label_loss, labels_of
from evolve.solved.tuners import Candidate
from evolve.solved.tuners_report import benchmark_table, plot_curves

MATCH_GAMES = 60  # the fixed match each final candidate plays for the rank correlations
EXPLOIT_CHOICES = ("final", "marks", "none")  # the candidates --exploit plays against the exact adversary


def add_problem_files(parser: argparse.ArgumentParser, splits: str) -> None:
    """--positions: the positions files of a tuner benchmark problem (their won positions by split, as
    ``engine.ruler.position_set.load_won`` reads them); ``splits`` says what the command does with their
    training and held-out splits."""
    help_text = f"positions files from 'evolve positions': {splits}"
    parser.add_argument("--positions", nargs="+", required=True, metavar="FILE", help=help_text)


def register(commands: Subcommands) -> None:
    parser = command(commands, "tuners", _tuners)
    add_problem_files(parser, "their training splits feed the fitnesses, their held-out splits score the candidates")
    parser.add_argument("--depth", type=positive_int, default=4, help="the search's depth (default %(default)s)")
    parser.add_argument("--budget", type=positive_seconds, default=60.0, help="CPU seconds a leg (default %(default)s)")
    parser.add_argument("--seeds", type=positive_int, default=5, help="seeds a tuner and fitness (default 5)")
    parser.add_argument("--first-seed", type=int, default=1, help="the first seed (default 1)")
    parser.add_argument(
        "--tuners", nargs="+", choices=tuners.TUNERS, default=list(tuners.TUNERS), help="tuners (default: all)"
    )
    parser.add_argument(
        "--fitnesses",
        nargs="+",
        choices=tuners.FITNESSES,
        default=list(tuners.FITNESSES),
        help="fitnesses (default: all); each tuner runs on each it can use",
    )
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=os.cpu_count() or 1,
        help="legs, then candidates against the exact adversary, run at once (default: all cores)",
    )
    parser.add_argument(
        "--exploit",
        choices=EXPLOIT_CHOICES,
        default="final",
        help="the second ruler: play candidates against the exact adversary from the empty board (as Black) and "
        "from the 273 won 2-ply openings: each leg's final candidate (default), its candidate at every mark, or "
        "none; minutes a candidate while the store of solved positions is cold, seconds once it is warm",
    )
    add_store(parser)
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="write legs.jsonl, openings.jsonl, summary.json, table.md, curves.png (and openings.png) here; the "
        "same command with the same --out reads back the legs and candidates it holds and plays the rest",
    )
    add_json(parser, "the summary")


def legs_of(args: argparse.Namespace) -> List[tuners.Leg]:
    """Every leg the options ask for: each tuner on each fitness it can use, from each seed."""
    legs = []
    for tuner in args.tuners:
        for fitness in args.fitnesses:
            if not tuners.tuner_uses(tuner, fitness):
                continue
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                legs.append(tuners.Leg(tuner, fitness, seed, args.budget))
    if not legs:
        raise InvalidInput("no leg: texel tunes the labels fitness only (add --fitnesses labels)")
    return legs


def _leg_job(job: Tuple[tuners.Problem, tuners.Leg]) -> tuners.LegResult:
    """Worker: the LegResult of a leg on the problem it is given with (a worker plays one leg: the problem
    travels once a process either way)."""
    problem, leg = job
    return tuners.run_leg(problem, leg)


def _tuners(args: argparse.Namespace) -> int:
    """compare tuners at equal CPU where the evaluation decides alone, on an exact ruler

    Each tuner (random search, GA, CMA-ES, SPSA, Optuna's TPE, Texel's gradient fit, and the
    gradient fit of the pattern weights) tunes the evaluation's weights, searched to --depth with
    no book and no solver, from the hand-set defaults, on each fitness it can use: the exact regret
    on the positions' training split, the solver's exact labels of their moves, noisy games
    against a panel, or (the pattern fit's) the solver's values of the training positions and
    their children. Each leg (tuner, fitness, seed) runs for --budget CPU seconds; its candidate
    at each tenth is scored by the share of the held-out split's won positions whose move keeps
    the win (perfect play: 100%). Prints, for each tuner and fitness, that share at the end and
    the CPU it took to reach 80%, 90%, 95% and 99%; the rank correlations of the final
    candidates' measures. The second ruler (--exploit): each leg's final candidate (or every
    mark's) plays against the exact adversary from the empty board as Black and from the 273 won
    2-ply openings; the table adds the openings kept and the empty boards won. For example:
    evolve tuners --positions experiments/regret-20261127/*.json.gz --budget 60 --seeds 5
    """
    legs = legs_of(args)
    problem = tuners.load_problem(args.positions, args.depth)
    if not problem.train or not problem.held_out:
        raise InvalidInput("the positions hold no won position in their training split or none in the held-out one")
    (hand_set,) = measure([tuners.candidate_player(problem.start, args.depth)], problem.held_out)
    start_share, of = hand_set.share, hand_set.won
    print(
        f"{len(legs)} legs of {args.budget:g} CPU s; training {len(problem.train)} won positions, held out {of}; "
        f"the hand-set weights keep {hand_set.kept} of {of} ({start_share:.1%}) at depth {args.depth}",
        file=sys.stderr,
        flush=True,
    )
    folder = ResultsFolder(args.out, {"positions": args.positions, "depth": args.depth}) if args.out else None
    results = _play_legs(args, problem, legs, folder)
    results.sort(key=lambda r: (r.leg.tuner, r.leg.fitness, r.leg.seed))
    openings = _play_openings(args, problem, results, folder)
    rows = tuners.summary_rows(results, start_share, openings)
    correlations = _correlations(problem, results, args.depth, openings)
    summary = tuners.BenchmarkSummary(
        depth=args.depth,
        budget=args.budget,
        positions=list(args.positions),
        train=len(problem.train),
        held_out_won=of,
        start_held_out=start_share,
        start_openings=openings.get(problem.start),
        rows=rows,
        correlations=correlations,
    )
    table = benchmark_table(summary)
    if args.out:
        with open(os.path.join(args.out, "summary.json"), "w") as out:
            json.dump(summary.to_json(), out, indent=2)
        with open(os.path.join(args.out, "table.md"), "w") as out:
            out.write(table + "\n")
        plot_curves(results, start_share, os.path.join(args.out, "curves.png"))
        if args.exploit == "marks":
            start = openings[problem.start]
            plot_curves(results, start.kept / start.of, os.path.join(args.out, "openings.png"), openings)
    print(json.dumps(summary.to_json(), indent=2) if args.json else table)
    return 0


def _play_legs(
    args: argparse.Namespace, problem: tuners.Problem, legs: Sequence[tuners.Leg], folder: Optional[ResultsFolder]
) -> List[tuners.LegResult]:
    """The LegResults of ``legs`` on ``problem``: those ``folder`` (``--out``) holds read back, the others
    played on ``--jobs`` processes, each said as it ends and kept in ``folder`` at once."""
    wanted = set(legs)
    results: List[tuners.LegResult] = []
    for result in folder.read("legs.jsonl", _leg_of_json) if folder else []:
        if result.leg in wanted and result.leg not in {found.leg for found in results}:
            results.append(result)
    if results:
        print(f"{len(results)} legs read back from {args.out}/legs.jsonl", file=sys.stderr, flush=True)
    done = {result.leg for result in results}
    if len(done) < len(legs):
        minutes = (len(legs) - len(done)) * args.budget / min(args.jobs, len(legs) - len(done)) / 60
        print(
            f"{len(legs) - len(done)} legs to play on {args.jobs} processes: about {minutes:.0f} min "
            "(their CPU budgets; more on a busy machine)",
            file=sys.stderr,
            flush=True,
        )
    started = time.time()
    # Spawned, not forked: a fork of a process with threads (a test runner's, a notebook's) can hang on a
    # lock another thread held; each worker plays one leg, given with its problem.
    todo = [leg for leg in legs if leg not in done]
    if not todo:
        return results
    with process_pool(min(args.jobs, len(todo)), "spawn", tasks_per_worker=1) as pool:
        for result in pool.imap_unordered(_leg_job, [(problem, leg) for leg in todo]):
            results.append(result)
            last = result.marks[-1]
            print(
                f"{len(results)} of {len(legs)} legs ({time.time() - started:.0f} s): {result.leg.tuner} on "
                f"{result.leg.fitness}, seed {result.leg.seed}: held out {last.held_out_share:.1%} after "
                f"{last.evaluations} evaluations",
                file=sys.stderr,
                flush=True,
            )
            if folder:
                folder.append("legs.jsonl", _leg_json(result))
    return results


def _leg_of_json(data: Dict[str, Any]) -> tuners.LegResult:
    """A LegResult as ``_leg_json`` wrote it."""
    leg = tuners.Leg(data["tuner"], data["fitness"], data["seed"], data["budget"])
    marks = [tuners.Mark(m["cpu"], m["evaluations"], tuple(m["weights"]), m["held_out"]) for m in data["marks"]]
    by_ply = {int(ply): (int(pair[0]), int(pair[1])) for ply, pair in data["by_ply"].items()}
    return tuners.LegResult(leg, marks, by_ply)


OpeningsJob = Tuple[Candidate, int, Tuple[str, ...]]  # a candidate, its search's depth, the openings' texts


def _openings_job(job: OpeningsJob) -> Tuple[Candidate, OpeningsExploitability]:
    """Worker: the OpeningsExploitability of a candidate, against this process's adversary (``worker_solver``)."""
    weights, depth, texts = job
    openings = [position_from_text(text) for text in texts]
    return weights, tuners.candidate_openings(weights, depth, worker_solver(), openings)


def _play_openings(
    args: argparse.Namespace,
    problem: tuners.Problem,
    results: Sequence[tuners.LegResult],
    folder: Optional[ResultsFolder],
) -> Dict[Candidate, OpeningsExploitability]:
    """The OpeningsExploitability of the hand-set start and of the candidates ``--exploit`` names: those ``--out``'s
    openings.jsonl holds (from the same openings) read back, the others played on ``--jobs`` processes,
    each said as it ends and kept in ``--out`` at once. Equal candidates (a converged leg's marks, a
    deterministic tuner's seeds) are played once."""
    if args.exploit == "none":
        return {}
    store = store_path(args)
    with StoredSolver(store, EXPLOIT_TABLE_BITS) as solver:
        texts = tuple(describe_position(position) for position in won_openings(solver))
    wanted = [problem.start] + [
        mark.weights for result in results for mark in (result.marks if args.exploit == "marks" else result.marks[-1:])
    ]
    found = _openings_done(folder, problem.depth, len(texts)) if folder else {}
    todo = [(weights, problem.depth, texts) for weights in dict.fromkeys(wanted) if weights not in found]
    if not todo:
        return found
    jobs = min(args.jobs, len(todo))
    print(
        f"against the exact adversary: {len(todo)} candidates from the empty board and {len(texts)} won openings "
        f"on {jobs} processes ({len(found)} read back; seconds to minutes a candidate, fewer as the store grows)",
        file=sys.stderr,
        flush=True,
    )
    started = time.time()
    # Spawned, as the legs' workers are; each keeps one adversary (and its table) for all its candidates.
    pool = process_pool(jobs, "spawn", start_worker_solver, (EXPLOIT_TABLE_BITS, store)) if jobs > 1 else None
    if pool is None:
        start_worker_solver(EXPLOIT_TABLE_BITS, store)
    try:
        played = pool.imap_unordered(_openings_job, todo) if pool else map(_openings_job, todo)
        for done, (weights, report) in enumerate(played, 1):
            found[weights] = report
            print(
                f"{done} of {len(todo)} candidates ({time.time() - started:.0f} s): empty board "
                f"{'won' if report.empty_board else 'lost'}, kept {report.kept} of {report.of} won openings",
                file=sys.stderr,
                flush=True,
            )
            if folder:
                folder.append("openings.jsonl", {"depth": problem.depth, "weights": list(weights), **report.to_json()})
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        else:
            worker_solver().close()
    return found


def _openings_done(folder: ResultsFolder, depth: int, openings: int) -> Dict[Candidate, OpeningsExploitability]:
    """The OpeningsExploitability that ``folder``'s openings.jsonl holds, by candidate, at ``depth`` from as
    many won openings as ``openings`` (another count: another set of openings, played again)."""

    def parse(data: Dict[str, Any]) -> Optional[Tuple[Candidate, OpeningsExploitability]]:
        report = OpeningsExploitability.from_json(data)
        return (tuple(data["weights"]), report) if data["depth"] == depth and report.of == openings else None

    return dict(folder.read("openings.jsonl", parse))


def _leg_json(result: tuners.LegResult) -> Dict[str, Any]:
    return {
        "tuner": result.leg.tuner,
        "fitness": result.leg.fitness,
        "seed": result.leg.seed,
        "budget": result.leg.budget,
        "marks": [mark.to_json() for mark in result.marks],
        "by_ply": {str(ply): list(pair) for ply, pair in result.by_ply.items()},
    }


def _correlations(
    problem: tuners.Problem,
    results: Sequence[tuners.LegResult],
    depth: int,
    openings: Mapping[Candidate, OpeningsExploitability],
) -> Dict[str, float]:
    """Spearman's rank correlations, over the legs' final candidates, of the held-out share with the
    training regret, the labels fitness, one noisy games draw, a fixed match of MATCH_GAMES games, and
    (where ``openings`` has them all) the won openings kept against the exact adversary; the candidates
    of the features' weights alone (the labels fitness knows no pattern weights)."""
    finals = [result.marks[-1] for result in results if len(result.marks[-1].weights) == len(problem.start)]
    if len(finals) < 3:
        return {}
    labels = labels_of(problem.train)
    trained = measure([tuners.candidate_player(mark.weights, depth) for mark in finals], problem.train)
    measures: Dict[str, List[Any]] = {  # numbers: every final mark is scored
        "held_out": [mark.held_out_share for mark in finals],
        "regret": [kept.kept for kept in trained],
        "labels": [-label_loss(mark.weights, labels) for mark in finals],
        "games": [tuners.games_score(mark.weights, depth, random.Random(k)) for k, mark in enumerate(finals)],
        "match": [_match(mark.weights, depth) for mark in finals],
    }
    if all(mark.weights in openings for mark in finals):
        measures["openings"] = [openings[mark.weights].kept for mark in finals]
    return {name: round(tuners.spearman(measures["held_out"], values), 3) for name, values in measures.items()}


def _match(weights: Sequence[float], depth: int) -> float:
    """The share of points in MATCH_GAMES games against the panel from fixed openings: the same for all."""
    rng, total = random.Random(20261128), 0.0
    for _ in range(MATCH_GAMES // tuners.GAMES_PER_EVALUATION):
        total += tuners.games_score(weights, depth, rng)
    return total / (MATCH_GAMES // tuners.GAMES_PER_EVALUATION)
