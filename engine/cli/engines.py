"""``littlego gtp`` and ``littlego judge``: the tool as another program's engine or judge."""

import sys

from engine.cli.argument_types import count
from engine.cli.arguments import add_sandbox, command, player_with_sandbox
from engine.constants import MAX_MOVES
from engine.ui.gtp import serve
from engine.ui.judge import judge


def register(commands):
    gtp = command(commands, "gtp", _gtp)
    gtp.add_argument("--player", default="champion", help="the player answering genmove (default: %(default)s)")
    gtp.add_argument("--seed", type=int, default=1, help="seed of the player's random choices (default 1)")
    add_sandbox(gtp)
    referee = command(commands, "judge", _judge)
    referee.add_argument(
        "-m",
        "--moves",
        type=count,
        required=True,
        help=f"plies played, this one included (the game ends at {MAX_MOVES})",
    )
    referee.add_argument("-v", "--verbose", action="store_true", help="print the board")
    referee.add_argument("--dir", default=".", help="the player's folder (default: current)")


def _gtp(args):
    """be a GTP (Go Text Protocol 2) engine on stdin/stdout, for GUIs and tournament tools

    Answer GTP commands on stdin/stdout under Little-Go rules (5x5, komi 2.5, the course's KO
    rule, 24 plies), playing genmove with any player. A GUI such as Sabaki or GoGui runs it as
    the command: littlego gtp --player champion
    """
    return serve(player_with_sandbox(args, args.player), sys.stdin, sys.stdout, seed=args.seed)


def _judge(args):
    """judge one ply like the course's host.py (for the course's build.sh)

    Read input.txt and output.txt, judge the move, write the next input.txt. Exit 0: game goes
    on; 1: Black wins; 2: White wins; 4: input.txt unusable.
    """
    return judge(args.moves, args.dir, args.verbose)
