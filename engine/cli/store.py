"""``littlego store``: grow, describe and check the store of solved positions that the solving tools share."""

import argparse
import json
import os

from engine.cli.parts.argument_types import ply_range_from, positive_int
from engine.cli.parts.arguments import add_solving, add_store, progress_bar, store_path
from engine.cli.parts.commands import Subcommands, command, group
from engine.common.progress import counter
from engine.data import SOLVED_PREFILL
from engine.errors import InvalidInput
from engine.native.grow import grow_store, positions_to_grow, ship_store
from engine.native.store import SolvedStore
from engine.native.store_file import StoreError
from engine.native.store_schema import RULES_FINGERPRINT
from engine.position import Position
from engine.ui.board import position_from_moves

_PLIES = ply_range_from(0, "0-4")  # from the empty board on


def register(commands: Subcommands) -> None:
    actions = group(commands, "store", "grow, describe and check the store of solved positions", "ACTION")
    grow = command(actions, "grow", _grow)
    grow.add_argument("--plies", type=_PLIES, required=True, help="the plies to fill, LOW-HIGH (e.g. 0-4)")
    grow.add_argument(
        "--moves", help="start from the position after these moves (i,j or C3 or pass), not the empty board"
    )
    grow.add_argument(
        "--sample", type=positive_int, help="this many positions a ply, by random legal play (default: all)"
    )
    grow.add_argument("--seed", type=int, default=1, help="the sample's seed (default %(default)s)")
    add_solving(grow)
    info = command(actions, "info", _info)
    add_store(info)
    info.add_argument("--json", action="store_true", help="print the figures as JSON")
    check = command(actions, "check", _check)
    add_store(check)
    ship = command(actions, "ship", _ship)
    ship.add_argument("--plies", type=_PLIES, required=True, help="the plies to ship, LOW-HIGH (e.g. 0-2)")
    ship.add_argument("--out", default=SOLVED_PREFILL, help="the file to write (default: the package's prefill)")
    add_store(ship)


def _existing(args: argparse.Namespace) -> str:
    path = store_path(args)
    if path is None:
        raise InvalidInput("--no-store leaves no store to read")
    if not os.path.exists(path):
        raise StoreError(f"{path}: no store of solved positions here (littlego store grow makes one)")
    return path


def _grow(args: argparse.Namespace) -> int:
    """solve the positions up to a ply into the store, on a process pool; a rerun skips what is stored

    List the positions at each ply of --plies reached from the empty board (or from --moves),
    distinct under the board's symmetries: all of them, or --sample of them a ply by random legal
    play; have the compiled solver settle every legal move of each that the store does not hold yet,
    on --jobs processes, each answer stored as it comes. Ctrl-C stops it with the answers kept; the
    same command goes on. Prints, by ply, the positions solved, those held already, and the time.
    """
    path = store_path(args)
    if path is None:
        raise InvalidInput("--no-store leaves no store to grow")
    start = position_from_moves(args.moves) if args.moves else Position.initial()
    by_ply = positions_to_grow(start, args.plies, args.sample, args.seed)
    total = sum(len(positions) for positions in by_ply.values())
    update = counter("solving", "position", total, bar=progress_bar(args))
    try:
        grown = grow_store(path, by_ply, args.jobs, args.table_bits, update)
    finally:
        update.close()
    for ply in grown:
        mean = f"{ply.seconds / ply.solved:.2f} s a position" if ply.solved else "-"
        print(f"ply {ply.ply:>2}: {ply.solved} solved, {ply.held} held already; {mean}, {ply.nodes:,} nodes")
    summary = SolvedStore(path).summary()
    print(f"{path}: {summary['positions']} positions, {summary['bytes']:,} bytes")
    return 0


def _ship(args: argparse.Namespace) -> int:
    """write the package's prefill: every position of --plies from the empty board, from the store

    Copy out of the store (over the prefill shipped now) every position of --plies reached from the
    empty board, distinct under the board's symmetries, each with every move's result and the margins
    it holds, into --out as one compact read-only file: what every store reads beneath its own. Refused,
    writing nothing, where the store lacks one of them (littlego store grow --plies the same first).
    """
    by_ply = positions_to_grow(Position.initial(), args.plies)
    summary = ship_store(_existing(args), by_ply, args.out)
    low, high = args.plies
    print(f"{args.out}: {summary['positions']} positions (plies {low}-{high}), {summary['bytes']:,} bytes")
    return 0


def _info(args: argparse.Namespace) -> int:
    """the store's size, rules and positions by ply"""
    summary = SolvedStore(_existing(args)).summary()
    if args.json:
        by_ply = {ply: {"moves": moves, "value_only": value} for ply, (moves, value) in summary["by_ply"].items()}
        print(json.dumps(dict(summary, by_ply=by_ply), indent=2))
        return 0
    per = summary["bytes"] / summary["positions"] if summary["positions"] else 0
    print(f"{summary['path']}: {summary['format']}, rules {summary['rules']} (this littlego's: {RULES_FINGERPRINT})")
    print(f"{summary['positions']} positions in {summary['bytes']:,} bytes ({per:.0f} bytes a position)")
    for ply, (moves, value) in summary["by_ply"].items():
        print(f"  ply {ply:>2}: {moves} with every move{f', {value} value only' if value else ''}")
    prefill = summary["prefill"]
    if prefill is not None:
        shipped = ", ".join(f"ply {ply}: {moves}" for ply, (moves, _) in prefill["by_ply"].items())
        print(f"beneath it, read-only, the prefill {prefill['path']}: {prefill['positions']} positions ({shipped})")
    return 0


def _check(args: argparse.Namespace) -> int:
    """read every entry of the store and run SQLite's full integrity check; exit 1 on a problem"""
    path = _existing(args)
    problems = SolvedStore(path).check()
    for problem in problems[:20]:
        print(problem)
    if problems:
        print(f"{path}: {len(problems)} problems: remove it or use another store")
        return 1
    print(f"{path}: whole")
    return 0
