"""``littlego solve``: who wins a position with perfect play, and every move's value."""

import argparse
import time
from typing import List, Optional

from engine.cli.parts.argument_types import integer_range, positive_seconds
from engine.cli.parts.arguments import add_progress, add_store, progress_bar, store_path
from engine.cli.parts.commands import Subcommands, command
from engine.common.progress import counter
from engine.constants import MAX_MOVES, PASS, Move, colour_word
from engine.errors import InvalidInput
from engine.native.store import MoveResults
from engine.native.stored_solver import StoredSolver
from engine.position import Position
from engine.search import SearchTimeout
from engine.solver import Solver
from engine.ui.board import board_diagram, move_and_vertex, position_from_moves, read_position, verdict


def register(commands: Subcommands) -> None:
    solve = command(commands, "solve", _solve)
    solve.add_argument("position", nargs="?", help="SGF file or input.txt")
    solve.add_argument("--moves", help="moves from the empty board, as i,j or C3 or pass, separated by spaces")
    solve.add_argument(
        "--plies",
        type=integer_range(0, MAX_MOVES),
        help="plies played before an input.txt, or before an SGF record's setup stones (default: the fewest the "
        "stones fit)",
    )
    solve.add_argument(
        "--seconds", type=positive_seconds, default=120.0, help="CPU seconds to give up after (default %(default)s)"
    )
    solve.add_argument(
        "--native",
        action="store_true",
        help="use the compiled solver (needs a C compiler): any position, win or loss of every move",
    )
    add_store(solve)
    add_progress(solve)


def _solve(args: argparse.Namespace) -> int:
    """solve a position exactly: who wins with perfect play, by how much, every move's value

    Search a position to the end of the game (24 plies) and print who wins with perfect play
    and by how many stones (komi included), and the exact value of every legal move. The
    position is the end of an SGF record, a course input.txt (give --plies, the plies
    already played, or it is estimated from the stones), or --moves from the empty board.
    Pure Python: positions from about ply 10 on solve in seconds to minutes.
    """
    if args.moves is not None:
        position = position_from_moves(args.moves)
    elif args.position is not None:
        position = read_position(args.position, args.plies)
    else:
        raise InvalidInput("give a position: an SGF file, an input.txt (with --plies), or --moves")
    if position.is_over:
        print(f"the game is over: {verdict(position)}")
        return 0
    print(board_diagram(position))
    bar = progress_bar(args)
    return _solve_native(position, bar, store_path(args)) if args.native else _solve_python(position, args.seconds, bar)


def _solve_python(position: Position, seconds: float, bar: bool = True) -> int:
    solver = Solver()
    progress = counter("solving", "move", len(position.legal_points()) + 1, bar=bar)
    try:
        values = solver.move_values(position, time.process_time() + seconds, lambda done, total: progress(done))
    except SearchTimeout:
        progress.close()
        print(
            f"not solved within {seconds:g} s of CPU ({solver.nodes:,} nodes): try a later position, more "
            "--seconds, or --native "
            "(the compiled solver)"
        )
        return 1
    best = max(values.values())
    print(
        "{} to move {} with perfect play, by {:g} (komi included); {:,} nodes".format(
            colour_word(position.player).capitalize(), "wins" if best > 0 else "loses", abs(best), solver.nodes
        )
    )
    for move, margin in sorted(values.items(), key=lambda item: -item[1]):
        print("  {:<12} {}  {:+g}".format(move_and_vertex(move), "win " if margin > 0 else "loss", margin))
    return 0


def _solve_native(position: Position, bar: bool = True, store: Optional[str] = None) -> int:
    moves: List[Move] = [*position.legal_points(), PASS]
    progress = counter("solving", "move", len(moves), bar=bar)
    with StoredSolver(store) as solver:
        from_store = solver.store.results(position) if solver.store is not None else None
        stored = from_store is not None
        results: MoveResults = from_store if from_store is not None else {}
        if from_store is None:
            for move in moves:  # a move wins when the position it leads to is lost for the other side
                results[move] = not solver.wins(position.play_point(move))
                progress(len(results))
            if solver.store is not None:
                solver.store.record(position, results)
        nodes = solver.nodes
    progress.close()
    print(
        "{} to move {} with perfect play; {} (compiled solver: win or loss only)".format(
            colour_word(position.player).capitalize(),
            "wins" if any(results.values()) else "loses",
            f"from the store {store}" if stored else f"{nodes:,} nodes",
        )
    )
    for move, wins in sorted(results.items(), key=lambda item: not item[1]):
        print("  {:<12} {}".format(move_and_vertex(move), "win " if wins else "loss"))
    return 0
