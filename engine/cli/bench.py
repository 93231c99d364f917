"""``littlego bench``: the engine's speed on one core (rules, search, the exact solver)."""

import json

from engine.cli.argument_types import count, depth, integer_range, positive_int, positive_seconds
from engine.cli.arguments import add_json, command, group, reporter
from engine.constants import MAX_MOVES
from engine.course.build import built_agents
from engine.data import RULES_VECTORS
from engine.errors import InvalidInput
from engine.sandbox.limits import DEFAULT_LIMITS
from engine.submission.bench import bench_rules, bench_search, bench_solve
from engine.submission.movecost import format_cost, measure


def register(commands):
    targets = group(commands, "bench", "measure the engine's speed on one core", "TARGET")
    moves = command(targets, "moves", _bench_moves)
    moves.add_argument("folder", metavar="DIR", help="a course agent's folder (built first, as grade builds it)")
    moves.add_argument(
        "--repeats",
        type=positive_int,
        default=20,
        help="samples of each figure outside the move server (default 20); its start is sampled at least 3 "
        "times and its moves REPEATS/3 times for each start",
    )
    moves.add_argument(
        "--games", type=positive_int, default=40, help="games against greedy for games/s, one worker (default 40)"
    )
    add_json(moves)
    rules = command(targets, "rules", _bench_rules)
    rules.add_argument("--vectors", default=RULES_VECTORS, help="rules-vectors file (.jsonl.gz); default: %(default)s")
    rules.add_argument("--repeats", type=positive_int, default=5, help="runs per figure (default 5)")
    rules.add_argument(
        "--playout-games", type=positive_int, default=2000, help="random games per playout run (default 2000)"
    )
    rules.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    search = command(targets, "search", _bench_search)
    search.add_argument("--params", default=None, help="params file (default: the shipped params.json)")
    search.add_argument("--max-depth", type=depth, default=5, help="deepest depth (default 5)")
    search.add_argument(
        "--games", type=count, default=1, help="whole-game pairs (agent as Black and as White) to time (default 1)"
    )
    search.add_argument(
        "--budgets",
        type=positive_seconds,
        nargs="*",
        default=[0.5, 2.5],
        metavar="SECONDS",
        help="CPU budgets to report the depth reached within (default: 0.5 2.5)",
    )
    solve = command(targets, "solve", _bench_solve)
    solve.add_argument(
        "--plies",
        type=integer_range(6, MAX_MOVES - 1),
        nargs="+",
        default=[12, 10],
        help="plies to solve at (default: 12 10)",
    )
    solve.add_argument("--positions", type=count, default=6, help="positions at each ply (default 6)")
    solve.add_argument("--seed", type=int, default=11, help="seed of the random moves (default 11)")
    for target in (rules, search, solve):
        add_json(target)


def _print_result(result, args):
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


def _bench_rules(args):
    """legal-move generation (positions/s) and random playouts (moves/s)

    Measure Position.legal_moves() over every position of the rules vectors (the rules vectors
    shipped with the package, by default) and random playouts from the empty board; each
    figure is the median of --repeats runs on one core.
    """
    return _print_result(
        bench_rules(
            vectors=args.vectors,
            repeats=args.repeats,
            playout_games=args.playout_games,
            seed=args.seed,
            report=reporter(args),
        ),
        args,
    )


def _bench_search(args):
    """alpha-beta nodes/s and seconds per move at depths 1..5; whole-game CPU

    Search a fixed set of opening, middle-game and end-game positions at each depth (one
    core), then play whole games of the shipped agent against random, one process per move
    as the course runs it, and report the agent's CPU.
    """
    return _print_result(
        bench_search(
            depths=range(1, args.max_depth + 1),
            params_path=args.params,
            game_seeds=range(1, args.games + 1),
            report=reporter(args),
            budgets=args.budgets,
        ),
        args,
    )


def _bench_solve(args):
    """the exact solver's nodes and CPU to find a winning move, at chosen plies

    Play random moves from the empty board to each ply (reproducibly from --seed), then time
    Solver().winning_move there, as the agent does from its solve_from ply; report the nodes
    (the same on any machine) and the CPU seconds.
    """
    return _print_result(
        bench_solve(plies=args.plies, positions=args.positions, seed=args.seed, report=reporter(args)), args
    )


def _bench_moves(args):
    """What a move of the agent in DIR costs in the sandbox, in parts: the move outside it, a sandbox
    a move, the game's sandbox and move server started, a move forked from it, and games/s."""
    with built_agents([args.folder], DEFAULT_LIMITS) as (built,):
        if built.error:
            raise InvalidInput(f"{args.folder} cannot be built: {built.error}")
        copy, _, shell_command = built.spec[len("cmd:") :].partition("::")
        cost = measure(copy, shell_command or None, args.repeats, args.games)
    if args.json:
        print(json.dumps(dict(cost.to_json(), folder=args.folder, language=built.language), indent=1))
        return 0
    print(f"{args.folder} ({built.language}); moves {'served' if cost.served else 'a sandbox each'} here")
    for part, figure in format_cost(cost).items():
        print(f"  {part}: {figure}")
    return 0
