"""``evolve bench``: fitness games per second, by worker count, searcher and depth."""

import argparse
import json

from engine.cli.parts.argument_types import depth, positive_int, scheduler
from engine.cli.parts.arguments import add_cluster_options, add_json, add_renamed, reporter
from engine.cli.parts.commands import Subcommands, command
from engine.play.executors import SCHEDULER_FORMS
from engine.players.searcher import SEARCHERS, SearcherName
from engine.players.specs import make_player
from evolve.bench import bench_games


def register(commands: Subcommands) -> None:
    bench = command(commands, "bench", _bench)
    bench.add_argument(
        "--jobs",
        type=positive_int,
        nargs="+",
        default=[1, 2],
        help="parallel games, each measured (default: 1 2)",
    )
    add_renamed(bench, "--workers", "--jobs", type=positive_int, nargs="+", dest="jobs")
    bench.add_argument("--games", type=positive_int, default=40, help="games per measurement (default 40)")
    bench.add_argument("--depth", type=depth, nargs="+", default=[2], help="search depths (default: 2)")
    bench.add_argument(
        "--searcher",
        choices=SEARCHERS,
        nargs="+",
        default=["native"],
        help="our searcher in C (native) or Python: the same moves at different speeds (default: native)",
    )
    add_renamed(bench, "--engine", "--searcher", choices=SEARCHERS, nargs="+", dest="searcher")
    bench.add_argument("--opponent", default="greedy", help="opponent spec (default greedy)")
    bench.add_argument(
        "--scheduler",
        type=scheduler,
        default=None,
        help="also measure a Dask cluster (" + SCHEDULER_FORMS + ") against the local pool",
    )
    add_cluster_options(bench)
    add_json(bench)


def _bench(args: argparse.Namespace) -> int:
    """fitness games per second with 1 and 2 workers, for each searcher and depth

    Play a fixed batch of fitness games (varied weights against --opponent) on the local pool
    with each worker count, for each --searcher and --depth, and report games per second; with
    both searchers, how many times the native searcher's games/s the Python one's are. For
    example: evolve bench --searcher native python --depth 4 6 --jobs 1
    """
    make_player(args.opponent).close()  # a bad spec fails before any pool starts
    result = bench_games(
        worker_counts=tuple(args.jobs),
        games=args.games,
        depths=tuple(args.depth),
        searchers=tuple(dict.fromkeys(map(SearcherName, args.searcher))),
        opponent=args.opponent,
        scheduler=args.scheduler,
        report=reporter(args),
    )
    if args.json:
        print(json.dumps(result, indent=2))
    return 0
