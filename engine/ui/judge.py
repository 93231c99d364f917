"""``littlego judge -m MOVES``: a drop-in for the course's host.py judge.

Run after each ply in the player's folder, as the course's build.sh runs host.py: it
reads ``input.txt`` (the position the mover saw) and ``output.txt`` (its answer),
judges the move, and either writes the next ``input.txt`` and exits 0, or ends the
game: exit 1 when Black wins, 2 when White wins. An unreadable output or an illegal
move loses for the mover. MOVES is the ply count, this ply included.
"""

import os
import sys
from typing import TextIO

from engine.constants import MAX_MOVES, PASS, opponent
from engine.coords import on_board, to_point
from engine.players.host import OutputFormatError, read_output, write_input
from engine.position import SYMBOLS, IllegalMove, Position
from engine.protocol import InputFormatError, read_input

BAD_INPUT = 4  # not one of the course's codes: our input.txt itself is unusable


def judge(moves: int, workdir: str = ".", verbose: bool = False, out: TextIO = sys.stdout) -> int:
    """Judge one ply; the course's exit code."""
    try:
        game = read_input(os.path.join(workdir, "input.txt"))
    except InputFormatError as error:
        out.write(f"judge: {error}\n")
        return BAD_INPUT
    before = min(max(moves - 1, 0), MAX_MOVES - 1)
    position = Position.from_boards(game.player, game.previous, game.current, before)
    try:
        answer = read_output(os.path.join(workdir, "output.txt"))
    except (OSError, OutputFormatError):
        out.write("output.txt not found or invalid format\n")
        return opponent(game.player)
    try:
        if answer != PASS and not on_board(*answer):
            raise IllegalMove("{},{} is off the board".format(*answer))
        after = position.play_point(PASS if answer == PASS else to_point(*answer))
    except IllegalMove as error:
        out.write(f"Invalid move: {error}\nGame end.\nThe winner is {SYMBOLS[opponent(game.player)]}\n")
        return opponent(game.player)
    if verbose:
        out.write(after.picture() + "\n\n")
    if after.is_over:
        winner = after.winner
        assert winner is not None, "a game that is over has a winner"
        out.write(f"Game end.\nThe winner is {SYMBOLS[winner]}\n")
        return winner
    write_input(os.path.join(workdir, "input.txt"), after.player, after.previous_string(), after.board_string())
    return 0
