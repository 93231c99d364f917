"""``littlego play`` and ``littlego replay``: a person at the terminal, playing or watching a game."""

import argparse
import sys
from typing import Optional

from engine.cli.parts.arguments import add_sandbox, player_with_sandbox
from engine.cli.parts.commands import Subcommands, command
from engine.constants import BLACK, WHITE
from engine.ui.terminal import offer_sgf, play_in_terminal, replay_record


def register(commands: Subcommands) -> None:
    play = command(commands, "play", _play)
    play.add_argument("opponent", nargs="?", default="champion", help="player spec (default: %(default)s)")
    play.add_argument(
        "--colour",
        "--color",
        choices=("black", "white"),
        default="black",
        help="the colour you play (default: black, who moves first)",
    )
    play.add_argument("--seed", type=int, default=1, help="seed of the opponent's random choices (default 1)")
    add_sandbox(play)
    watch = command(commands, "replay", _replay)
    watch.add_argument("game", help="SGF file")
    watch.add_argument("--verdict-only", action="store_true", help="print only the result")
    watch.add_argument("--step", action="store_true", help="wait for Enter before each move")


def _read_line(prompt: str) -> Optional[str]:
    """A line typed at the terminal (or piped in), None at the end of input."""
    try:
        return input(prompt)
    except EOFError:
        print()
        return None


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _play(args: argparse.Namespace) -> int:
    """play a game against any player in the terminal

    Play Little-Go in the terminal against OPPONENT. Type moves as i,j (the course's row,
    column), a GTP vertex such as C3, or pass; undo takes back your last move; quit stops.
    At the end the game can be saved as SGF.
    """
    human = BLACK if args.colour == "black" else WHITE
    opponent = player_with_sandbox(args, args.opponent)
    moves, final, quit = play_in_terminal(opponent, human, _read_line, _write, seed=args.seed)
    if moves and not quit:
        offer_sgf(moves, human, args.opponent, final, _read_line, _write)
    return 0


def _replay(args: argparse.Namespace) -> int:
    """step through a recorded game (SGF), judged by Little-Go rules

    Show a 5x5 SGF game move by move: the board, captures and plies left after each move,
    then the result under Little-Go rules. A move the rules refuse is an error naming it.
    """
    replay_record(args.game, _write, verdict_only=args.verdict_only, read_line=_read_line if args.step else None)
    return 0
