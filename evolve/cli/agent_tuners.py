"""``evolve agent-tuners``: the tuner benchmark's second problem, a student's agent tuned by each of
``evolve run``'s strategies on games and on the exact regret, at equal CPU."""

import argparse
import json
import os
import sys
import time
from typing import Any, Dict, List, Sequence

from engine.cli.parts.argument_types import positive_int, positive_seconds
from engine.cli.parts.arguments import add_json
from engine.cli.parts.commands import Subcommands, command
from engine.common.json_lines import ResultsFolder
from evolve.solved import agent_tuners as bench
from evolve.solved.tuners import spearman
from evolve.tuner import RUN_STRATEGIES


def register(commands: Subcommands) -> None:
    parser = command(commands, "agent-tuners", _agent_tuners)
    parser.add_argument("experiment", help="an agent's experiment (TOML with [individual] and a [[panel]])")
    parser.add_argument(
        "--positions",
        required=True,
        metavar="FILE",
        help="a positions file from 'evolve positions': the regret fitness asks its training split; every tuned "
        "agent is checked on both splits",
    )
    parser.add_argument(
        "--budget", type=positive_seconds, default=600.0, help="CPU seconds of fitness jobs a leg (default 600)"
    )
    parser.add_argument("--seeds", type=positive_int, default=5, help="seeds a tuner and fitness (default 5)")
    parser.add_argument("--first-seed", type=int, default=1, help="the first seed (default 1)")
    parser.add_argument(
        "--tuners", nargs="+", choices=RUN_STRATEGIES, default=list(RUN_STRATEGIES), help="strategies (default: all)"
    )
    parser.add_argument(
        "--fitnesses",
        nargs="+",
        choices=bench.AGENT_FITNESSES,
        default=list(bench.AGENT_FITNESSES),
        help="games (the experiment's panel) or regret (the positions' training split); default both",
    )
    parser.add_argument(
        "--grade-games", type=positive_int, default=10, help="games an opponent of each grade (default 10)"
    )
    parser.add_argument("--grade-seed", type=int, default=1, help="the grades' seed (default 1)")
    parser.add_argument(
        "--jobs", type=positive_int, default=os.cpu_count() or 1, help="workers of each leg (default: all cores)"
    )
    parser.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="legs.jsonl, start.json, summary.json and table.md, and each leg's config, run, tuned agent, "
        "measures and log; the same command with the same --out reads back the legs it holds and plays the rest",
    )
    add_json(parser, "the summary")


def _agent_tuners(args: argparse.Namespace) -> int:
    """tune a student's agent with each run strategy on games and on the exact regret, at equal CPU

    The experiment (examples/plain-python/evolve.toml, say) is run once a leg: each of evolve run's
    strategies (GA, CMA-ES, SPSA) from each seed, on its own panel's games or on the exact regret of the
    positions' training split (the panel dropped), stopped after the generation whose fitness jobs pass
    --budget CPU seconds. Each leg's best is exported as a tuned agent folder and measured as a student
    would: littlego check on the positions' training and held-out splits, and littlego grade. Prints a
    row a strategy and fitness (the medians, and the held-out share's and grade's range over the seeds)
    beside the agent as it is, and the rank correlation of the tuned agents' held-out shares with their
    grades. For example: evolve agent-tuners examples/plain-python/evolve.toml --positions
    experiments/regret-20261127/fresh-3-8.json.gz --out bench
    """
    experiment = bench.load_experiment(args.experiment)
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    legs = bench.agent_legs(args.tuners, args.fitnesses, seeds, args.budget)
    folder = ResultsFolder(
        args.out,
        {
            "experiment": args.experiment,
            "positions": args.positions,
            "grade_games": args.grade_games,
            "grade_seed": args.grade_seed,
        },
    )
    start = _start(args, experiment)
    results = _play(args, experiment, legs, folder)
    rows = bench.agent_rows(results)
    summary: Dict[str, Any] = {
        "experiment": args.experiment,
        "positions": args.positions,
        "budget": args.budget,
        "grade": {"games": args.grade_games, "seed": args.grade_seed},
        "start": bench.measure_json(start),
        "rows": [_row_json(row) for row in rows],
        "held_out_grade_correlation": _correlation(results),
        "legs": len(results),
    }
    table = bench.format_agent_table(start, rows)
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=2)
    with open(os.path.join(args.out, "table.md"), "w", encoding="utf-8") as handle:
        handle.write(table + "\n")
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        correlation = summary["held_out_grade_correlation"]
        print(table)
        if correlation is not None:
            print(f"\nrank correlation of the tuned agents' held-out shares with their grades: {correlation:+.2f}")
    return 0


def _start(args: argparse.Namespace, experiment: Dict[str, Any]) -> bench.AgentMeasure:
    """The agent as it is, measured as the legs' agents are (kept in ``--out``'s start.json)."""
    path = os.path.join(args.out, "start.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            return bench.measure_of_json(json.load(handle))
    program = experiment["individual"]["program"]
    print(f"measuring {program} as it is", file=sys.stderr, flush=True)
    with open(os.path.join(args.out, "start.log"), "w", encoding="utf-8") as log:
        folder = os.path.join(args.out, "measures", "start")
        start = bench.measure_agent(program, args.positions, args.grade_games, args.grade_seed, args.jobs, folder, log)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(bench.measure_json(start), handle)
    return start


def _play(
    args: argparse.Namespace, experiment: Dict[str, Any], legs: Sequence[bench.AgentLeg], folder: ResultsFolder
) -> List[bench.AgentLegResult]:
    """The results of ``legs``: those legs.jsonl holds read back, the others played one after another, each
    said as it ends and kept at once."""
    path = folder.path("legs.jsonl")
    wanted = set(legs)
    results: Dict[bench.AgentLeg, bench.AgentLegResult] = {}
    for result in folder.read("legs.jsonl", bench.AgentLegResult.from_json):
        if result.leg in wanted:
            results.setdefault(result.leg, result)
    todo = [leg for leg in legs if leg not in results]
    if results:
        print(f"{len(results)} legs read back from {path}", file=sys.stderr, flush=True)
    if todo:
        minutes = len(todo) * args.budget / args.jobs / 60
        print(
            f"{len(todo)} legs to play on {args.jobs} workers, one after another: at least "
            + (f"{minutes:.0f} min" if minutes >= 1 else "a few minutes")
            + " (their CPU budgets, a generation's grain over them), and each leg's check and grade after it",
            file=sys.stderr,
            flush=True,
        )
    started = time.time()
    for number, leg in enumerate(todo, 1):
        result = bench.run_agent_leg(
            experiment, leg, args.positions, args.out, args.jobs, (args.grade_games, args.grade_seed)
        )
        folder.append("legs.jsonl", result.to_json())
        results[leg] = result
        measured = result.measure
        print(
            f"{number} of {len(todo)} ({time.time() - started:.0f} s): {leg.tuner} on {leg.fitness}, seed {leg.seed}: "
            f"{result.generations} generations, {result.cpu_seconds:.0f} CPU s; held out "
            f"{measured.held_out.kept}/{measured.held_out.won}, training {measured.train.kept}/{measured.train.won}, "
            f"grade {measured.grade:g}"
            + (
                f"; about {_duration((time.time() - started) / number * (len(todo) - number))} left"
                if number < len(todo)
                else ""
            ),
            file=sys.stderr,
            flush=True,
        )
    return [results[leg] for leg in legs]


def _duration(seconds: float) -> str:
    """``seconds`` as people say it: ``7 min``, ``2 h 10 min``."""
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{max(minutes, 1)} min"


def _row_json(row: bench.AgentRow) -> Dict[str, Any]:
    """A row of the summary as a JSON object."""
    return {
        "tuner": row.tuner,
        "fitness": row.fitness,
        "seeds": list(row.seeds),
        **{name: getattr(row, name)._asdict() for name in ("generations", "cpu_seconds", "train", "held_out", "grade")},
    }


def _correlation(results: Sequence[bench.AgentLegResult]) -> Any:
    """Spearman's rank correlation of the legs' held-out shares with their grades (None under 3 legs)."""
    if len(results) < 3:
        return None
    return round(spearman([r.measure.held_out.share for r in results], [r.measure.grade for r in results]), 3)
