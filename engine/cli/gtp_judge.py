"""``littlego gtp`` and ``littlego judge``: the tool as another program's engine or judge."""

import argparse
import sys

from engine.cli.parts.argument_types import non_negative_int
from engine.cli.parts.arguments import add_sandbox, add_store, player_with_sandbox, store_path
from engine.cli.parts.commands import Subcommands, command
from engine.constants import MAX_MOVES
from engine.ui.gtp_server import serve_gtp
from engine.ui.judge import judge
from engine.ui.web.native_values import NativeValues

ANALYSIS_WAIT = 0.05  # wall seconds an analysis line waits for the compiled solver before showing the search's


def register(commands: Subcommands) -> None:
    gtp = command(commands, "gtp", _gtp)
    gtp.add_argument("--player", default="champion", help="the player answering genmove (default: %(default)s)")
    gtp.add_argument("--seed", type=int, default=1, help="seed of the player's random choices (default 1)")
    add_sandbox(gtp)
    add_store(gtp)
    referee = command(commands, "judge", _judge)
    referee.add_argument(
        "-m",
        "--moves",
        type=non_negative_int,
        required=True,
        help=f"plies played, this one included (the game ends at {MAX_MOVES})",
    )
    referee.add_argument("-v", "--verbose", action="store_true", help="print the board")
    referee.add_argument("--dir", default=".", help="the player's folder (default: current)")


def _gtp(args: argparse.Namespace) -> int:
    """be a GTP (Go Text Protocol 2) engine on stdin/stdout, for GUIs and tournament tools

    Answer GTP commands on stdin/stdout under Little-Go rules (5x5, komi 2.5, the course's KO
    rule, 24 plies), playing genmove with any player. A GUI such as Sabaki or GoGui runs it as
    the command: littlego gtp --player champion. Sabaki's analysis (lz-analyze, kata-analyze)
    shows each move's exact result where the compiled solver or the store has it (a win 100%,
    a loss 0%), else the search's value, until the next command.
    """
    player = player_with_sandbox(args, args.player)
    solver = NativeValues(ANALYSIS_WAIT, store=store_path(args), lines=True)
    try:
        return serve_gtp(player, sys.stdin, sys.stdout, seed=args.seed, solver=solver)
    finally:
        solver.close()


def _judge(args: argparse.Namespace) -> int:
    """judge one ply like the course's host.py (for the course's build.sh)

    Read input.txt and output.txt, judge the move, write the next input.txt. Exit 0: game goes
    on; 1: Black wins; 2: White wins; 4: input.txt unusable.
    """
    return judge(args.moves, args.dir, args.verbose)
