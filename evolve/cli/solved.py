"""``evolve positions``, ``evolve regret`` and ``evolve exploit``: the solved game as a judge of weights
(positions with every move solved, the share of won ones a player's move keeps, and what it keeps
against the exact adversary)."""

import argparse
import functools
import json
import os
from typing import Any, Callable, Dict, List, Optional, Sequence

from engine.cli.parts.argument_types import file_to_write, ply_range, positive_int
from engine.cli.parts.arguments import (
    add_json,
    add_progress,
    add_solving,
    add_store,
    add_table_bits,
    progress_bar,
    solving,
    store_path,
)
from engine.cli.parts.commands import Subcommands, command
from engine.common.pools import process_pool
from engine.common.progress import counter
from engine.constants import colour_word
from engine.errors import UserError
from engine.native.stored_solver import StoredSolver
from engine.params import load_params
from engine.players.base import Player
from engine.players.shipped import NODES_PER_SECOND, ShippedPlayer, shipped_book
from engine.players.specs import make_player
from engine.ruler.fresh_search import FreshSearch
from engine.ruler.measure import Kept, RunJobs, measure
from engine.ruler.position_set import SolvedPosition, load_positions
from evolve.solved.exploit import exploitability, format_exploitability, openings_exploitability, won_openings
from evolve.solved.position_sources import DEFAULT_PLIES
from evolve.solved.positions import build_positions, merge_positions


def register(commands: Subcommands) -> None:
    positions = command(commands, "positions", _positions)
    positions.add_argument("out", help="positions file to write (gzipped JSON, e.g. positions.json.gz)")
    positions.add_argument(
        "--per-ply", type=positive_int, default=40, help="positions at each ply (default %(default)s)"
    )
    positions.add_argument(
        "--plies", type=ply_range, default=DEFAULT_PLIES, help="plies to draw, LOW-HIGH (default 2-11)"
    )
    positions.add_argument("--seed", type=int, default=1, help="the drawing's seed (default 1)")
    positions.add_argument(
        "--from-records",
        nargs="+",
        metavar="SOURCE",
        default=(),
        help="draw the positions from these game records instead of random play (match journals, plain or "
        ".xz; SGF folders or archives): the positions real games met, e.g. a give-away study's or a shipping "
        "test's; --per-ply of them at each ply",
    )
    positions.add_argument(
        "--merge",
        nargs="+",
        metavar="FILE",
        help="write OUT as the positions of these positions files in one set (a position met twice kept once), "
        "with each file's provenance; nothing is drawn or solved",
    )
    add_solving(positions)
    regret = command(commands, "regret", _regret)
    regret.add_argument("params", nargs="+", help="params files to score")
    regret.add_argument("--positions", required=True, help="a positions file from 'evolve positions'")
    regret.add_argument(
        "--nodes-per-second",
        type=positive_int,
        default=NODES_PER_SECOND,
        help="the nodes a CPU second of the params' budget buys (default %(default)s, measured)",
    )
    regret.add_argument(
        "--jobs", type=positive_int, default=os.cpu_count() or 1, help="searching processes (default: all cores)"
    )
    add_progress(regret)
    add_json(regret, "the scores")
    _register_exploit(commands)


def _register_exploit(commands: Subcommands) -> None:
    """``evolve exploit``'s parser."""
    exploit = command(commands, "exploit", _exploit)
    exploit.add_argument(
        "player",
        nargs="+",
        help="params files (each played as shipped: the book, its search in nodes, the exact endgame) or player "
        "specs (champion, cmd:BUNDLE_FOLDER, ...)",
    )
    start = exploit.add_mutually_exclusive_group(required=True)
    start.add_argument("--positions", help="a positions file from 'evolve positions': play from its won positions")
    start.add_argument(
        "--openings",
        action="store_true",
        help="play from the start of the game instead: as Black from the empty board, and from each of the "
        "273 won 2-ply openings (every position after two moves whose mover wins, symmetric images apart); one "
        "game each",
    )
    exploit.add_argument(
        "--split",
        choices=("all", "fitness", "held-out"),
        default="all",
        help="the positions played: all (default), the regret fitness's, or the held-out fifth",
    )
    add_table_bits(exploit, "the adversary's solver's")
    add_store(exploit)
    add_progress(exploit)
    add_json(exploit, "the reports")


def _positions(args: argparse.Namespace) -> int:
    """draw positions out of the book and solve every legal move of each: the regret fitness's set

    Draw --per-ply positions at each ply of --plies (half from uniform random legal play, half
    from games of mixed strength), none in the shipped book, each distinct under the board's
    symmetries, and have the compiled solver settle every legal move of each, on --jobs
    processes. A fifth of them (by canonical key) is held out. Every answer is kept in OUT.journal
    as it comes: the same command continues a stopped build. Needs a C compiler; early plies take
    the solver minutes a position.
    """
    file_to_write(args.out, "out", "positions.json.gz")
    if args.merge:
        if args.from_records:
            raise UserError("--merge and --from-records: merge files, or draw from records, not both")
        built = merge_positions(args.out, args.merge)
        info = built.info
        print(
            f"wrote {args.out}: {info['positions']} positions from {len(args.merge)} files, "
            f"{info['won']} won for the side to move, {info['critical']} of them critical"
        )
        return 0
    built = build_positions(
        args.out,
        args.per_ply,
        tuple(args.plies),
        seed=args.seed,
        progress=lambda total: counter("solving", "position", total, bar=progress_bar(args)),
        records=tuple(args.from_records),
        **solving(args)._asdict(),
    )
    info = built.info
    print(
        f"wrote {args.out}: {info['positions']} positions at plies {info['plies'][0]}-{info['plies'][1]}, "
        f"{info['won']} won for the side to move, {info['critical']} of them where at most a third of the moves win"
    )
    return 0


_SPLITS = (("fitness", False), ("held_out", True))  # ``evolve regret``'s splits: its name for each, held out


def _regret(args: argparse.Namespace) -> int:
    """score params by the share of won positions where their move keeps the win

    For each won position of --positions, search it alone with the params' weights at their
    depth, CPU budget and cap counted in nodes (as 'play = "as-shipped"' does), and count the
    moves that keep the win; for the fitness split and the held-out one, by ply and by colour.
    The same params score the same on every machine and with any --jobs.
    """
    found = load_positions(args.positions)
    players = [FreshSearch(load_params(path), nodes_per_second=args.nodes_per_second) for path in args.params]
    pool = process_pool(args.jobs) if args.jobs > 1 else None
    try:
        run: Optional[RunJobs] = functools.partial(pool.imap, chunksize=1) if pool else None
        scores = {name: _measured(args, players, found.won(held_out), name, run) for name, held_out in _SPLITS}
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    rows = [
        {"params": path, **{name: _score_json(scores[name][index]) for name, _ in _SPLITS}}
        for index, path in enumerate(args.params)
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        print(row["params"])
        for name, _ in _SPLITS:
            score = row[name]
            plies = " ".join(f"{ply}:{kept}/{won}" for ply, (kept, won) in score["by_ply"].items())
            colours = " ".join(f"{colour} {kept}/{won}" for colour, (kept, won) in score["by_colour"].items())
            print(
                f"  {name}: kept {score['kept']} of {score['won']} won positions ({score['share']:.1%}); {plies}; "
                f"{colours}"
            )
    return 0


def _measured(
    args: argparse.Namespace,
    players: Sequence[FreshSearch],
    won: Sequence[SolvedPosition],
    name: str,
    run: Optional[RunJobs],
) -> List[Kept]:
    """Each player's Kept on the won positions of the split ``name``, the jobs run by ``run`` (None: here),
    a bar said as they come."""
    update = counter(f"regret, {name}", "position", len(won) * len(players), bar=progress_bar(args))
    try:
        return measure(players, won, run=run, progress=update)
    finally:
        update.close()


def _score_json(kept: Kept) -> Dict[str, Any]:
    """``evolve regret``'s figures of one params file on one split, as plain data."""
    return {
        "kept": kept.kept,
        "won": kept.won,
        "share": round(kept.share, 4),
        "by_ply": kept.by_ply,
        "by_colour": {colour_word(colour): counts for colour, counts in kept.by_colour.items()},
    }


def _exploit(args: argparse.Namespace) -> int:
    """play won positions against the exact adversary: what a player keeps, by ply and colour

    From every won position of --positions, the player plays on against an adversary that asks the
    compiled solver about each of its replies and plays the one that leaves the player the fewest
    winning moves. Prints the positions kept by ply and colour, a random mover's on the same
    positions, and the share of the gap to perfect play closed. With --openings instead, from the
    start of the game: whether the player wins as Black from the empty board, and how many of the
    273 won 2-ply openings it keeps (the tuner benchmark's second ruler; 'native:PARAMS@4' is an
    evaluation alone at depth 4). A params file plays as 'play =
    "as-shipped"' does (deterministic); a player spec plays as it is (a timed one, at its CPU budget).
    """
    if args.openings:
        return _exploit_openings(args)
    found = load_positions(args.positions)
    positions = found.positions if args.split == "all" else found.split(args.split == "held-out")
    reports = []
    for player in args.player:
        make = _exploit_player(player)
        update = counter(f"exploit {player}", "position", sum(p.won for p in positions), bar=progress_bar(args))
        try:
            reports.append(exploitability(make, player, positions, args.table_bits, update, store_path(args)))
        finally:
            update.close()
    if args.json:
        print(json.dumps([report.to_json() for report in reports], indent=2))
        return 0
    for report in reports:
        print(format_exploitability(report))
    return 0


def _exploit_openings(args: argparse.Namespace) -> int:
    """``evolve exploit --openings``: each player from the empty board and the won 2-ply openings."""
    if args.split != "all":
        raise UserError("--split picks a positions file's positions: give it with --positions, not --openings")
    makers = [(player, _exploit_player(player)) for player in args.player]  # a bad one fails before any game
    reports = []
    with StoredSolver(store_path(args), args.table_bits) as solver:
        openings = won_openings(solver)
        for player, make in makers:
            update = counter(f"exploit {player}", "game", len(openings) + 1, bar=progress_bar(args))
            try:
                reports.append((player, openings_exploitability(make, solver, openings, update)))
            finally:
                update.close()
    if args.json:
        print(json.dumps([{"player": player, **report.to_json()} for player, report in reports], indent=2))
        return 0
    for player, report in reports:
        print(
            f"{player}: the empty board as Black {'won' if report.empty_board else 'lost'}; won 2-ply openings "
            f"kept {report.kept} of {report.of} ({report.kept / report.of:.1%}) against the exact adversary"
        )
    return 0


def _exploit_player(player: str) -> Callable[[], Player]:
    """A function making a fresh player of a params file (as shipped) or a player spec; ValueError for neither."""
    if os.path.isfile(player) and player.endswith(".json"):
        params = load_params(player)
        return lambda: ShippedPlayer(params, shipped_book(), spec=player)
    make_player(player).close()  # a bad spec fails here, naming itself
    return lambda: make_player(player)
