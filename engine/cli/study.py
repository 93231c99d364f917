"""``littlego records``, ``littlego openings`` and ``littlego study``: a match's game records kept and read
back, which side each random opening leaves won, and where the agent gives won games away."""

import argparse
import os
import sys

from engine.cli.match import match_lines
from engine.cli.parts.argument_types import file_to_write, positive_int
from engine.cli.parts.arguments import (
    add_game_options,
    add_store,
    add_table_bits,
    game_settings,
    program_limits,
    progress_bar,
    solving,
    store_path,
)
from engine.cli.parts.commands import Subcommands, command, group
from engine.data import SHIPPED_PARAMS
from engine.errors import InvalidInput
from engine.native.compiler import OPENING_TABLE_BITS
from engine.params import load_params
from engine.play.records import pack, unpack
from engine.players.specs import KNOWN
from engine.study.giveaways import StudyPlan, run_study
from engine.study.mistakes import DEPTH_TABLE_BITS, WALK_TABLE_BITS, Case, case, depth_picks, walk_back
from engine.study.settle import build_table, kept_report, read_answers, solve_records, solve_seed

SOURCE_HELP = "the match's records: a folder of SGF records, a tar archive of one, or a match journal (.xz, .gz)"
RESUMED = "interrupted: the same command continues from OUT, keeping what is done"


def register(commands: Subcommands) -> None:
    _register_records(commands)
    _register_openings(commands)
    _register_study(commands)


def _register_records(commands: Subcommands) -> None:
    actions = group(commands, "records", "unpack or pack the game records of a match", "ACTION")
    unpack_records = command(actions, "unpack", _unpack)
    unpack_records.add_argument("source", metavar="SOURCE", help=SOURCE_HELP)
    unpack_records.add_argument(
        "folder", metavar="DIR", nargs="?", help="where to write them (default: the folder the match wrote)"
    )
    pack_records = command(actions, "pack", _pack)
    pack_records.add_argument("folder", metavar="DIR", help="a folder of SGF records")
    pack_records.add_argument("archive", metavar="ARCHIVE", nargs="?", help="the file to write (default: DIR.tar.xz)")


def _unpack(args: argparse.Namespace) -> int:
    """write a match's SGF records from its journal or packed folder

    Write the SGF records of SOURCE (a match journal, plain or compressed: byte for byte what
    'littlego match --sgf' writes; or a packed folder, .tar.xz) into DIR, by default the folder the
    match wrote (X.journal.xz -> X-sgf/, X-sgf.tar.xz -> X-sgf/), so that commands which read that
    folder run as written.
    """
    count, folder = unpack(args.source, args.folder)
    print(f"{count} records from {args.source} in {folder}")
    return 0


def _pack(args: argparse.Namespace) -> int:
    """pack a folder of SGF records into one reproducible tar.xz

    Write DIR's *.sgf as one tar.xz (default DIR.tar.xz), sorted, without times or owners: the same
    records always give the same bytes. 'littlego records unpack' gives the folder back.
    """
    if not os.path.isdir(args.folder):
        raise InvalidInput(f"{args.folder}: not a folder of SGF records")
    archive = pack(args.folder, args.archive)
    print(f"{args.folder} -> {archive} ({os.path.getsize(archive):,} bytes)")
    return 0


def _register_openings(commands: Subcommands) -> None:
    actions = group(commands, "openings", "settle which side each random opening leaves won", "ACTION")
    solve = command(actions, "solve", _solve)
    solve.add_argument("source", metavar="SOURCE", help=SOURCE_HELP)
    solve.add_argument("out", metavar="OUT", help="the answers file (JSON; the same OUT continues)")
    seed = command(actions, "solve-seed", _solve_seed)
    seed.add_argument("seed", type=int, metavar="SEED", help="the match's seed")
    seed.add_argument("games", type=positive_int, metavar="GAMES", help="the match's games")
    seed.add_argument("out", metavar="OUT", help="the answers file (JSON; the same OUT continues)")
    table = command(actions, "table", _table)
    table.add_argument("out", metavar="OUT", help="the openings file to write (engine/data/openings.json)")
    for action in (solve, seed, table):
        action.add_argument(
            "--jobs", type=positive_int, default=2, help="solver processes at a time (default %(default)s)"
        )
        add_table_bits(action, default=OPENING_TABLE_BITS)
        add_store(action)
    for action in (seed, table):
        action.add_argument(
            "--earlier",
            action="append",
            default=[],
            metavar="FILE",
            help="an answers file of an earlier match to take answers from (repeat for more)",
        )
    report = command(actions, "report", _report)
    report.add_argument("source", metavar="SOURCE", help=SOURCE_HELP)
    report.add_argument("answers", metavar="ANSWERS", help="the answers file of its openings")
    report.add_argument("--agent", default="champion", help="the player's name in the records (default %(default)s)")


def _solve(args: argparse.Namespace) -> int:
    """solve every distinct opening of a match's records with the compiled solver

    Give every distinct opening of SOURCE (the position after the games' first two plies, one per
    symmetry class: the book's key) to the compiled solver, --jobs processes at a time (those the
    store of solved positions, --store, holds are read from it, and every answer kept there), and write
    {key: true when Black to move wins} to OUT after each answer, so that a cut-off run keeps what
    it has and the same command continues.
    """
    solve_records(args.source, args.out, solving(args))
    return 0


def _solve_seed(args: argparse.Namespace) -> int:
    """settle the openings of a match from its seed, before or while it is played

    Draw the openings exactly as 'littlego match --random-opening 2 --seed SEED' does for GAMES
    games (both colours from each opening) and settle each distinct one: from the shipped table
    (engine/data/openings.json) or an --earlier answers file; Black to move at a position of the
    shipped book's Black section (a proven win): Black wins; otherwise the store of solved positions
    (--store) or the compiled solver. OUT
    is written as 'openings solve' writes it.
    """
    solve_seed(args.seed, args.games, args.out, solving(args), args.earlier)
    return 0


def _table(args: argparse.Namespace) -> int:
    """build the table of every 2-ply opening's winner (engine/data/openings.json)

    Settle every distinct opening of two plies (85 symmetry classes) as 'openings solve-seed' does
    (the shipped table, the --earlier files, else the store or the compiled solver, its answers kept in OUT.work
    as they come) and write them as an openings file, the one evolve's won_side games and the give-away
    study read.
    """
    file_to_write(args.out, "OUT", "openings.json")
    build_table(args.out, solving(args), args.earlier)
    return 0


def _report(args: argparse.Namespace) -> int:
    """count the games a player kept from the openings won for it

    For the player named --agent in SOURCE's records, list the games it lost from an opening that
    left its colour won, then count, by colour, the games whose opening left it the won side and how
    many of them it won, and the games from openings lost for it that it won anyway.
    """
    answers = read_answers(args.answers)
    if not answers:
        raise InvalidInput(f"{args.answers}: no answers (write them with 'littlego openings solve')")
    for line in kept_report(args.source, answers, args.agent):
        print(line)
    return 0


def _register_study(commands: Subcommands) -> None:
    actions = group(commands, "study", "find where the agent gives won games away", "STUDY")
    giveaways = command(actions, "giveaways", _giveaways)
    giveaways.add_argument("out", metavar="OUT", help="the study's folder (created; the same OUT resumes)")
    giveaways.add_argument(
        "--openings", type=positive_int, default=200, help="random openings, 2 games each (default %(default)s)"
    )
    giveaways.add_argument("--against", default="gnugo", help="the opponent's player spec (default %(default)s)")
    giveaways.add_argument(
        "--agent", default="champion", help=f"the agent's player spec (default %(default)s; {KNOWN})"
    )
    add_table_bits(giveaways, "each give-away solver process's")
    add_store(giveaways)
    add_game_options(
        giveaways, "the match's seed, required (its openings follow from it)", seed_default=None, omit=("journal",)
    )
    mistakes = command(actions, "mistakes", _mistakes)
    mistakes.add_argument("source", metavar="SOURCE", help=SOURCE_HELP)
    mistakes.add_argument("records", nargs="+", metavar="NAME", help="records of games to walk back (game-0006.sgf)")
    mistakes.add_argument("--agent", default="champion", help="the agent's name in the records (default %(default)s)")
    add_table_bits(mistakes, "the solver's", WALK_TABLE_BITS)
    add_store(mistakes)
    depth = command(actions, "depth", _depth)
    depth.add_argument("source", metavar="SOURCE", help=SOURCE_HELP)
    depth.add_argument(
        "cases", nargs="+", type=_case, metavar="NAME:PLY", help="positions: a record and the plies before it"
    )
    depth.add_argument("--params", default=SHIPPED_PARAMS, help="the evaluation's params file (default: the shipped)")
    depth.add_argument(
        "--deepest", type=positive_int, default=8, help="the deepest fixed depth to search (default %(default)s)"
    )
    add_table_bits(depth, "the solver's", DEPTH_TABLE_BITS)
    add_store(depth)


def _case(text: str) -> Case:
    """A position NAME:PLY, for argparse."""
    try:
        return case(text)
    except InvalidInput as error:
        raise argparse.ArgumentTypeError(str(error))


def _giveaways(args: argparse.Namespace) -> int:
    """play a match from random openings and find each won opening the agent gave away

    Three steps, each continued from OUT when the same command runs again: the match (OUT/match.journal,
    the games as they end; OUT/match.json its report), which side each opening leaves won
    (OUT/openings.json, as 'openings solve-seed'), and in each game the agent lost from a won opening,
    its first move after which the compiled solver says the other side wins, with the winning move
    there its evaluation rates highest and what its search decides there again (OUT/giveaways.json).
    The summary (OUT/report.txt): won openings kept by colour, each give-away, a histogram by ply.
    --jobs sets the parallel games, then the parallel solver processes. Needs a C compiler, and
    GNU Go against gnugo (apt-get install gnugo).
    """
    if args.seed is None:
        raise InvalidInput("give --seed: the match's seed (its openings follow from it)")
    settings = game_settings(
        args,
        limits=program_limits(args, (args.agent, args.against)),
        progress=True if progress_bar(args) else match_lines(args.agent, 2 * args.openings),
    )
    plan = StudyPlan(args.out, args.openings, args.agent, args.against, args.table_bits, settings, store_path(args))
    try:
        run_study(plan)
    except KeyboardInterrupt:
        print("\n" + RESUMED, file=sys.stderr)
        return 130
    return 0


def _mistakes(args: argparse.Namespace) -> int:
    """walk lost games back to the agent's move that gave the win away

    For each named record of SOURCE, walk back from ply 12 over the turns of the agent (the player
    named --agent) and ask the compiled solver whether each position was won; the latest won one is
    where the agent's move lost the win (it solves exactly from ply 12 on). Positions the store of
    solved positions (--store) holds are read from it, and every answer is kept there. Moves are points 0..24.
    """
    walk_back(args.source, args.records, args.agent, args.table_bits, store=store_path(args))
    return 0


def _depth(args: argparse.Namespace) -> int:
    """search positions at fixed depths and judge each pick with the solver

    At each position NAME:PLY of SOURCE (the record's position after PLY plies): the move the
    evaluation of --params picks at fixed depths 2 to --deepest, W when the compiled solver says it
    keeps the win, L when it loses it, and the CPU seconds of that depth (a position stops after a
    depth of over a minute). Moves are points 0..24.
    """
    depth_picks(
        args.source, args.cases, load_params(args.params), args.deepest, args.table_bits, store=store_path(args)
    )
    return 0
