"""The course agent: read input.txt, search, write output.txt; never lose by crashing.

The host runs the agent once per move, in the same directory for a whole game and
the next, and never tells it the ply count. The agent keeps that count in a helper
state file beside input.txt and recognises a new game from the boards.
"""

import os
import random
import sys

from engine.constants import BLACK, PASS, MAX_MOVES
from engine.params import ParamsError, default_params, load_params, make_evaluator
from engine.playout import random_point
from engine.position import Position
from engine.protocol import InputFormatError, read_input, write_output, write_atomic
from engine.search import Searcher

STATE_FILE = "littlego_state.txt"
STATE_HEADER = "littlego-state 1"


def _warn(message):
    sys.stderr.write("my_player3: {}\n".format(message))


def infer_moves_played(game, state_path):
    """Plies played before this move: new game, state file, or an estimate from the stones."""
    previous_stones = game.previous.count("1") + game.previous.count("2")
    current_stones = game.current.count("1") + game.current.count("2")
    if previous_stones == 0 and current_stones <= 1:
        return 0 if game.player == BLACK else 1
    try:
        with open(state_path) as handle:
            lines = handle.read().split()
        header = " ".join(lines[:2])
        colour, plies_after, board = int(lines[2]), int(lines[3]), lines[4]
        if header == STATE_HEADER and colour == game.player and board == game.previous:
            return min(plies_after + 1, MAX_MOVES - 1)
    except (OSError, ValueError, IndexError):
        pass
    # Every placement adds a stone and captures only remove, so the stones on the board
    # bound the plies from below; the colour to move fixes the parity.
    # Black moves on even plies, White on odd ones; the last ply each can be asked is 22 / 23.
    estimate = current_stones
    if (estimate % 2 == 0) != (game.player == BLACK):
        estimate += 1
    estimate = min(estimate, MAX_MOVES - 2 if game.player == BLACK else MAX_MOVES - 1)
    _warn("no matching state file: estimating {} plies played".format(estimate))
    return estimate


def fallback_move(position):
    """A legal move without search: a random legal placement, else PASS."""
    return random_point(position, random.Random())


def choose_move(position, params, rng=None):
    """The agent's move for a position: iterative deepening within the CPU budget."""
    searcher = Searcher(make_evaluator(params.weights), rng=rng)
    return searcher.iterative(position, params.depth, params.cpu_budget).move


def main(params_path, workdir="."):
    """Play one move in ``workdir``; returns the exit status (0, or 2 for a bad input.txt)."""
    input_path = os.path.join(workdir, "input.txt")
    try:
        game = read_input(input_path)
    except InputFormatError as error:
        _warn("bad input: {}".format(error))
        return 2
    try:
        params = load_params(params_path)
    except ParamsError as error:
        _warn("{}; playing with the built-in defaults".format(error))
        params = default_params()
    state_path = os.path.join(workdir, STATE_FILE)
    moves_played = infer_moves_played(game, state_path)
    position = Position.from_boards(game.player, game.previous, game.current, moves_played)
    try:
        move = choose_move(position, params)
        if move != PASS:
            position.play_point(move)          # the judge must accept it
    except Exception as error:                 # never lose a game by crashing
        _warn("search failed ({}: {}); playing a legal move".format(type(error).__name__, error))
        move = fallback_move(position)
    write_output(os.path.join(workdir, "output.txt"), move)
    try:
        after = position.play_point(move) if not position.is_over else position
        write_atomic(state_path, "{}\n{}\n{}\n{}\n".format(
            STATE_HEADER, game.player, moves_played + 1, after.board_string()))
    except Exception as error:
        _warn("could not save the state file: {}".format(error))
    return 0
