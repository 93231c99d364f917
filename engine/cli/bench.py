"""``littlego bench``: the engine's speed on one core (rules, search, the exact solver)."""

import argparse
import json
from typing import List, Tuple

from engine.cli.parts.argument_types import (
    depth,
    file_to_write,
    integer_range,
    non_negative_int,
    positive_int,
    positive_seconds,
)
from engine.cli.parts.arguments import add_json, add_progress, progress_bar, reporter
from engine.cli.parts.commands import Subcommands, command, group
from engine.common.progress import counter
from engine.constants import MAX_MOVES
from engine.course.build import built_agents
from engine.data import RULES_VECTORS
from engine.errors import InvalidInput
from engine.native.compiler import MAX_TABLE_BITS, MIN_TABLE_BITS
from engine.native.solver_bench import BENCH_TABLE_BITS, bench_solver, compare_results, load_position_set, load_result
from engine.protocol import write_atomic
from engine.sandbox.limits import DEFAULT_LIMITS
from engine.submission.movecost import format_cost, measure_move_cost
from engine.submission.speed import bench_rules, bench_search, bench_solve


def register(commands: Subcommands) -> None:
    targets = group(commands, "bench", "measure the engine's speed on one core", "TARGET")
    for add in (_register_moves, _register_rules, _register_search, _register_solve, _register_solver):
        add(targets)


def _register_moves(targets: Subcommands) -> None:
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


def _register_rules(targets: Subcommands) -> None:
    rules = command(targets, "rules", _bench_rules)
    rules.add_argument("--vectors", default=RULES_VECTORS, help="rules-vectors file (.jsonl.gz); default: %(default)s")
    rules.add_argument("--repeats", type=positive_int, default=5, help="runs per figure (default 5)")
    rules.add_argument(
        "--playout-games", type=positive_int, default=2000, help="random games per playout run (default 2000)"
    )
    rules.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    add_json(rules)


def _register_search(targets: Subcommands) -> None:
    search = command(targets, "search", _bench_search)
    search.add_argument("--params", default=None, help="params file (default: the shipped params.json)")
    search.add_argument("--max-depth", type=depth, default=5, help="deepest depth (default 5)")
    search.add_argument(
        "--games",
        type=non_negative_int,
        default=1,
        help="whole-game pairs (agent as Black and as White) to time (default 1)",
    )
    search.add_argument(
        "--budgets",
        type=positive_seconds,
        nargs="*",
        default=[0.5, 2.5],
        metavar="SECONDS",
        help="CPU budgets to report the depth reached within (default: 0.5 2.5)",
    )
    add_json(search)


def _register_solve(targets: Subcommands) -> None:
    solve = command(targets, "solve", _bench_solve)
    solve.add_argument(
        "--plies",
        type=integer_range(6, MAX_MOVES - 1),
        nargs="+",
        default=[12, 10],
        help="plies to solve at (default: 12 10)",
    )
    solve.add_argument("--positions", type=non_negative_int, default=6, help="positions at each ply (default 6)")
    solve.add_argument("--seed", type=int, default=11, help="seed of the random moves (default 11)")
    solve.add_argument(
        "--records",
        nargs="+",
        metavar="SOURCE",
        default=(),
        help="solve positions of these games (match journals, SGF folders or archives) instead of random play: "
        "--positions of them at each ply, drawn by --seed",
    )
    add_json(solve)


def _register_solver(targets: Subcommands) -> None:
    solver = command(targets, "solver", _bench_solver)
    solver.add_argument(
        "--plies",
        type=_plies,
        default=DEFAULT_SOLVER_PLIES,
        help="plies of the set to solve, as 4,6 or 4-12 (default: {}; the set has 0-16)".format(
            ",".join(map(str, DEFAULT_SOLVER_PLIES))
        ),
    )
    solver.add_argument(
        "--table-bits",
        type=integer_range(MIN_TABLE_BITS, MAX_TABLE_BITS),
        default=BENCH_TABLE_BITS,
        help="log2 of the solver's table buckets (32 bytes each; default %(default)s: 512 MiB)",
    )
    solver.add_argument("--save", metavar="FILE", help="write the result (JSON) to FILE")
    solver.add_argument("--compare", metavar="FILE", help="a result saved earlier with --save, to set beside this one")
    add_json(solver)
    add_progress(solver)


DEFAULT_SOLVER_PLIES = tuple(range(4, 17))  # plies 0-3 take minutes a position: ask for them


def _plies(text: str) -> Tuple[int, ...]:
    """Plies as 4,6 or 4-12 or a mix (2,4-6)."""
    plies: List[int] = []
    for part in text.split(","):
        low_text, _, high_text = part.partition("-")
        try:
            low, high = int(low_text), int(high_text or low_text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected plies such as 4,6 or 4-12, got {text!r}")
        if not 0 <= low <= high < MAX_MOVES:
            raise argparse.ArgumentTypeError(f"expected plies from 0 to {MAX_MOVES - 1}, got {text!r}")
        plies.extend(range(low, high + 1))
    return tuple(dict.fromkeys(plies))


def _print_result(result: object, args: argparse.Namespace) -> int:
    """0, the result printed as JSON first where --json asks for it."""
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


def _bench_rules(args: argparse.Namespace) -> int:
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


def _bench_search(args: argparse.Namespace) -> int:
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


def _bench_solve(args: argparse.Namespace) -> int:
    """the exact solver's nodes and CPU to find a winning move, at chosen plies

    Play random moves from the empty board to each ply (reproducibly from --seed), or take
    positions of recorded games (--records), then time Solver().winning_move there, as the agent
    does from its solve_from ply; report the nodes (the same on any machine), the CPU seconds,
    and for each edition how many finish within the share of the move's CPU cap the agent gives
    its solver (the cap as 'bundle --edition' fits it).
    """
    return _print_result(
        bench_solve(
            plies=args.plies, positions=args.positions, seed=args.seed, report=reporter(args), records=args.records
        ),
        args,
    )


def _bench_solver(args: argparse.Namespace) -> int:
    """the compiled solver's nodes and CPU per ply on the committed position set

    Solve every legal move of each position of the set (engine/data/solver-positions.json: random
    positions at each ply) at the chosen plies, each position in a fresh solver process, one at a
    time; print the nodes and the CPU seconds (user + system) per ply, and how many positions'
    results differ from those the set records (the solver before issue 48). --save keeps the
    result; --compare sets it beside one saved earlier.
    """
    earlier = load_result(args.compare) if args.compare else None
    if args.save:
        file_to_write(args.save, "--save", "solver-bench.json")
    positions = load_position_set()
    total = sum(len(positions.by_ply.get(ply, ())) for ply in args.plies)
    progress = counter("solving", "position", total, bar=progress_bar(args))
    report = reporter(args)
    result = bench_solver(args.plies, args.table_bits, report=report, progress=progress)
    progress.close()
    if args.save:
        write_atomic(args.save, json.dumps(result, indent=1) + "\n")
    if earlier is not None:
        report("")
        compare_results(result, earlier, report)
    differ = sum(len(row["differ"]) for row in result["plies"])
    if differ:
        report(f"{differ} positions' results differ from those the set records: a defect of the solver")
    _print_result(result, args)
    return 1 if differ else 0


def _bench_moves(args: argparse.Namespace) -> int:
    """What a move of the agent in DIR costs in the sandbox, in parts: the move outside it, a sandbox
    a move, the game's sandbox and move server started, a move forked from it, and games/s."""
    with built_agents([args.folder], DEFAULT_LIMITS) as (built,):
        if built.error:
            raise InvalidInput(f"{args.folder} cannot be built: {built.error}")
        copy, shell_command = built.copy_and_command()
        cost = measure_move_cost(copy, shell_command or None, args.repeats, args.games)
    if args.json:
        print(json.dumps(dict(cost.to_json(), folder=args.folder, language=built.language), indent=1))
        return 0
    print(f"{args.folder} ({built.language}); moves {'served' if cost.served else 'a sandbox each'} here")
    for part, figure in format_cost(cost).items():
        print(f"  {part}: {figure}")
    return 0
