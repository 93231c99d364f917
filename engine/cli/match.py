"""``littlego match``: two players, many games, the figures and (optionally) an SPRT."""

import argparse
import json
import sys
import time
from typing import Callable, Optional

from engine.cli.parts.argument_types import elo_pair, file_to_write, folder_to_write, integer_range, positive_int
from engine.cli.parts.arguments import add_game_options, game_settings, program_limits, progress_bar
from engine.cli.parts.commands import Subcommands, command
from engine.constants import BLACK, MAX_MOVES, WHITE
from engine.course.build import agents_built
from engine.play.match import every_opening_games, run_match
from engine.play.stats import SprtState
from engine.play.summary import format_report
from engine.players.specs import KNOWN


def register(commands: Subcommands) -> None:
    match = command(commands, "match", _match)
    match.add_argument("a", metavar="A", help="first player spec: " + KNOWN)
    match.add_argument("b", metavar="B", help="second player spec")
    match.add_argument("--games", type=positive_int, default=20, help="games to play (default 20)")
    match.add_argument(
        "--random-opening",
        type=integer_range(0, MAX_MOVES - 2),
        default=0,
        metavar="K",
        help="start each colour-swapped pair from the same K random plies",
    )
    match.add_argument(
        "--every-opening",
        action="store_true",
        help="instead of --games random openings, play every opening of --random-opening K plies (K from 1 to "
        "3) once with each colour (50 games for K = 1, 1,200 for K = 2): for players that play a position the "
        "same way every time (shipped:), the exact score over random openings, with no noise from drawing "
        "them; no --sprt",
    )
    match.add_argument(
        "--colour",
        choices=("alternate", "black", "white"),
        default="alternate",
        help="A's colour: alternating (default; pairs share an opening), or the same in every "
        "game, each game with its own opening (to measure A as Black, say)",
    )
    match.add_argument("--sgf", metavar="DIR", help="write every game as SGF into DIR")
    match.add_argument(
        "--sprt",
        type=elo_pair,
        metavar="ELO0,ELO1",
        help="stop when a sequential probability ratio test (alpha = beta = 0.05) accepts H0 (A is "
        "ELO0 Elo stronger than B) or H1 (ELO1); --games is then the most to play",
    )
    match.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object instead of the table (progress: lines on stderr, as whenever "
        "stderr is not a terminal)",
    )
    add_game_options(match, "match seed")


def _match(args: argparse.Namespace) -> int:
    """play a match between two players and report it

    Play GAMES games between players A and B, colours alternating, in parallel and
    reproducibly from --seed. Ctrl-C (SIGINT) ends the match early and reports the games
    finished (exit status 130). A and B are player specs (listed under A below).
    """
    if args.sgf:
        folder_to_write(args.sgf, "--sgf")  # before any game is played
    if args.resume:
        file_to_write(args.resume, "--resume", "match.jsonl")
    games = every_opening_games(args.random_opening) if args.every_opening else args.games
    settings = game_settings(
        args,
        limits=program_limits(args, (args.a, args.b)),
        progress=True if not args.json and progress_bar(args) else match_lines(args.a, games),
    )
    with agents_built(
        (args.a, args.b), settings.limits, settings.scheduler
    ):  # a C++ or Java agent: built once, before any game
        summary, _ = run_match(
            args.a,
            args.b,
            games,
            settings,
            opening_plies=args.random_opening,
            sgf_dir=args.sgf,
            sprt=args.sprt,
            a_colour={"black": BLACK, "white": WHITE}.get(args.colour),
            every_opening=args.every_opening,
        )
    print(json.dumps(summary.to_json(), indent=2) if args.json else format_report(summary))
    if summary.interrupted:
        print(
            "interrupted {}: the figures are for those{}".format(
                summary.interrupted,
                (
                    f"; the same command continues the match from {args.resume}"
                    if args.resume
                    else " (--resume FILE keeps a match's games, so that it can continue)"
                ),
            ),
            file=sys.stderr,
        )
        return 130
    return 0


def match_lines(name_a: str, games: int) -> Callable[[int, int, Optional[SprtState], int], None]:
    """Progress for a match whose stderr is no terminal (a log file, or beside --json): a line
    every twentieth of the games with A's score so far, and the SPRT's state when there is one."""
    step = max(1, games // 20)
    started = time.time()

    def report(done: int, total: int, test: Optional[SprtState], a_wins: int) -> None:
        if done % step == 0 or done == total or (test and test.decision):
            elapsed = time.time() - started
            line = f"{done} of {total} games played ({elapsed:.0f} s): {name_a} won {a_wins}, lost {done - a_wins}"
            if test:
                line += f", SPRT LLR {test.llr:.2f} in ({test.lower:.2f}, {test.upper:.2f})"
            print(line, file=sys.stderr, flush=True)

    return report
