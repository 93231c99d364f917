"""``evolve network-tuners``: the tuner benchmark's network problem, the gradient fit of the hidden layer
against evolution of it, at equal CPU on the exact ruler."""

import argparse
import json
import os
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

from engine.cli.parts.argument_types import positive_int, positive_seconds
from engine.cli.parts.arguments import add_json
from engine.cli.parts.commands import Subcommands, command
from engine.common.json_lines import ResultsFolder
from engine.common.pools import process_pool
from engine.errors import InvalidInput
from engine.network import MAX_UNITS
from engine.params import Params
from evolve.cli.tuners import add_problem_files
from evolve.solved import network_tuners as bench
from evolve.solved.network_fit import HIDDEN

KINDS = {
    f"{tuner}:{fitness}:{part}:{start}": (tuner, fitness, part, start)
    for tuner, fitness, part, start in bench.NETWORK_LEGS
}


def register(commands: Subcommands) -> None:
    parser = command(commands, "network-tuners", _network_tuners)
    add_problem_files(
        parser, "their training splits feed the fit and the fitnesses, their held-out splits score the candidates"
    )
    parser.add_argument("--depth", type=positive_int, default=4, help="the search's depth (default %(default)s)")
    parser.add_argument(
        "--hidden", type=positive_int, default=HIDDEN, help=f"the layer's units, 1 to {MAX_UNITS} (default %(default)s)"
    )
    parser.add_argument(
        "--budget", type=positive_seconds, default=300.0, help="CPU seconds a leg (default %(default)s)"
    )
    parser.add_argument("--seeds", type=positive_int, default=5, help="seeds a leg kind (default 5)")
    parser.add_argument("--first-seed", type=int, default=1, help="the first seed (default 1)")
    parser.add_argument(
        "--legs",
        nargs="+",
        choices=list(KINDS),
        default=list(KINDS),
        metavar="KIND",
        help="leg kinds, tuner:fitness:part:start (default: all of " + ", ".join(KINDS) + "); a leg from the fit "
        "needs the fit's leg of its seed, which runs first",
    )
    parser.add_argument(
        "--jobs", type=positive_int, default=os.cpu_count() or 1, help="legs run at once (default: all cores)"
    )
    parser.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="legs.jsonl (every leg's marks and final params), summary.json, table.md, curves.png; the same "
        "command with the same --out reads back the legs it holds and plays the rest",
    )
    add_json(parser, "the summary")


def _network_tuners(args: argparse.Namespace) -> int:
    """how far evolution takes the evaluation's hidden layer, beside the gradient fit, at equal CPU

    The problem: the evaluation, the 13 features' weights and a hidden layer of --hidden units,
    searched to --depth with no book and no solver, scored by the share of the positions' held-out
    won positions whose move keeps the win (perfect play: 100%). The legs, each for --budget CPU
    seconds from each seed: the gradient fit (evolve network's first round: L-BFGS on the solver's
    values of the training positions and their children); CMA-ES on the layer's out weights from
    that fit, on the exact regret of the training split and on noisy games (their curves go on from
    the fit's CPU); CMA-ES on every weight of the layer from a random layer, on the regret. Each
    leg's candidate is noted at every tenth of its budget and scored after it. Prints a row a leg
    kind: the held-out share at the end and the CPU it took to reach 90%, 95%, 97% and 99%. For
    example: evolve network-tuners --positions experiments/regret-20261127/*.json.gz --out bench
    """
    if args.hidden > MAX_UNITS:
        raise InvalidInput(f"--hidden: 1 to {MAX_UNITS} units, not {args.hidden}")
    kinds = [KINDS[name] for name in args.legs]
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    legs = bench.network_legs(kinds, seeds, args.budget)
    missing = sorted(
        {leg.seed for leg in legs if leg.start == bench.FIT} - {leg.seed for leg in legs if leg.tuner == bench.FIT}
    )
    problem = bench.load_network_problem(args.positions, args.depth, args.hidden)
    if not problem.train or not problem.held_out:
        raise InvalidInput("the positions hold no won position in their training split or none in the held-out one")
    # the folder is made only once every check has passed: a refused command leaves nothing behind
    described = {"positions": args.positions, "depth": args.depth, "hidden": args.hidden}
    held = os.path.exists(os.path.join(args.out, "problem.json"))
    found = _legs_done(ResultsFolder(args.out, described)) if held else {}
    if missing and any(
        bench.NetworkLeg(*bench.NETWORK_LEGS[0], seed=s, budget=args.budget) not in found for s in missing
    ):
        raise InvalidInput(
            "a leg from the fit needs the fit's leg of its seed: add fit:values:network:scratch to --legs"
        )
    folder = ResultsFolder(args.out, described)
    results = _play(args, problem, legs, found, folder)
    rows = bench.network_rows(results)
    print(f"the atlas: {len(results)} final candidates on the held-out positions", file=sys.stderr, flush=True)
    misses = bench.common_misses(results, problem)
    kept = sum(1 for result in results if result.final is not None)
    table = bench.network_table(rows, problem) + "\n\n" + bench.misses_table(misses, kept)
    summary = {
        "positions": args.positions,
        "depth": args.depth,
        "hidden": args.hidden,
        "budget": args.budget,
        "train": len(problem.train),
        "held_out_won": len(problem.held_out),
        "rows": [row._asdict() for row in rows],
        "missed_by_every_final": [miss._asdict() for miss in misses],
    }
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=2)
    with open(os.path.join(args.out, "table.md"), "w", encoding="utf-8") as handle:
        handle.write(table + "\n")
    bench.plot_network_curves(results, os.path.join(args.out, "curves.png"))
    print(json.dumps(summary, indent=2) if args.json else table)
    return 0


def _legs_done(folder: ResultsFolder) -> Dict[bench.NetworkLeg, bench.NetworkLegResult]:
    """The results ``folder``'s legs.jsonl holds, by leg (a line that is not a leg's is skipped: it runs again)."""
    found: Dict[bench.NetworkLeg, bench.NetworkLegResult] = {}
    for result in folder.read("legs.jsonl", bench.result_from_json):
        found.setdefault(result.leg, result)
    return found


LegJob = Tuple[bench.NetworkProblem, bench.NetworkLeg, Optional[Tuple[Params, float]]]


def _leg_job(job: LegJob) -> bench.NetworkLegResult:
    """Worker: a leg played (one a worker: its problem travels once a process either way)."""
    return bench.run_network_leg(*job)


def _play(
    args: argparse.Namespace,
    problem: bench.NetworkProblem,
    legs: Sequence[bench.NetworkLeg],
    found: Dict[bench.NetworkLeg, bench.NetworkLegResult],
    folder: ResultsFolder,
) -> List[bench.NetworkLegResult]:
    """The results of ``legs``: those ``found`` read back, the others played on ``--jobs`` processes, the
    fits and the legs from scratch first, then the legs from the fit; each kept in ``--out`` as it ends."""
    results = [found[leg] for leg in legs if leg in found]
    if results:
        print(f"{len(results)} legs read back from {args.out}/legs.jsonl", file=sys.stderr, flush=True)
    todo = [leg for leg in legs if leg not in found]
    first = [leg for leg in todo if leg.start != bench.FIT]
    second = [leg for leg in todo if leg.start == bench.FIT]
    if todo:
        waves = (len(first) + args.jobs - 1) // args.jobs + (len(second) + args.jobs - 1) // args.jobs
        print(
            f"{len(todo)} legs to play on {args.jobs} processes: about {waves * args.budget / 60:.0f} min of their "
            "CPU budgets, and each leg's scoring (more on a busy machine)",
            file=sys.stderr,
            flush=True,
        )
    started = time.time()
    for wave in (first, second):
        if not wave:
            continue
        fits = {
            r.leg.seed: r
            for r in list(found.values()) + results
            if r.leg.tuner == bench.FIT and r.leg.budget == args.budget
        }
        jobs: List[LegJob] = [
            (
                problem,
                leg,
                (bench.final_params(fits[leg.seed]), fits[leg.seed].spent) if leg.start == bench.FIT else None,
            )
            for leg in wave
        ]
        # spawned, not forked: a fork of a process with threads can hang on a lock another thread held
        with process_pool(min(args.jobs, len(jobs)), "spawn", tasks_per_worker=1) as pool:
            for result in pool.imap_unordered(_leg_job, jobs):
                results.append(result)
                folder.append("legs.jsonl", result.to_json())
                last = result.marks[-1]
                print(
                    f"{len(results)} of {len(legs)} legs ({time.time() - started:.0f} s): {result.leg.name}, seed "
                    f"{result.leg.seed}: held out {last.held_out_share or 0.0:.1%} after {last.evaluations} "
                    f"evaluations, {result.spent:.0f} CPU s",
                    file=sys.stderr,
                    flush=True,
                )
    order = {leg: k for k, leg in enumerate(legs)}
    return sorted(results, key=lambda result: order[result.leg])
