"""The course agent: read input.txt, search, write output.txt; never lose by crashing.

The host runs the agent once per move, in the same directory for a whole game and
the next, and never tells it the ply count. The agent keeps that count in a helper
state file beside input.txt and recognises a new game from the boards.
"""

import os
import random
import sys
import time
from typing import NamedTuple, Optional

from engine.book import Book, BookError, load_book
from engine.constants import BLACK, MAX_MOVES, PASS, WINNING_FIRST_POINT, Move
from engine.errors import ParamsError
from engine.features import stone_weight
from engine.params import Params, default_params, load_params
from engine.playout import random_point
from engine.position import Position
from engine.protocol import GameInput, InputFormatError, read_input, write_atomic, write_output
from engine.search import Searcher, SearchTimeout
from engine.solver import Solver

STATE_FILE = "littlego_state.txt"
# CPU seconds a move may spend outside its capped search: the interpreter's start, reading params and
# book (0.15-0.2 s measured on the bundle, 0.27 s under load), the search's overrun of its deadline
# and the exit (0.05-0.08 s). The search ends by its cap, and by the cap plus STARTUP_CPU - _EXIT_CPU
# of the process's CPU: a slow start leaves the search less.
STARTUP_CPU = 0.25
_EXIT_CPU = 0.15  # of STARTUP_CPU, what is kept for the search's overrun and the exit
_LEAST_CPU = 0.05  # the CPU a search is always given, whatever the move has spent: depth 1 and a legal move
STATE_HEADER = "littlego-state 1"


def _warn(message: str) -> None:
    sys.stderr.write(f"my_player3: {message}\n")


def _stones(board: str) -> int:
    return len(board) - board.count("0")


def plausible_plies(game: GameInput, plies: int) -> bool:
    """Whether ``plies`` played before this move agrees with the boards and the colour to move.

    Black moves on even plies, White on odd ones, the last ply each can be asked being 22 / 23;
    every placement adds one stone and captures only remove, so the stones bound the plies.
    """
    last = MAX_MOVES - 2 if game.player == BLACK else MAX_MOVES - 1
    return 0 <= plies <= last and (plies % 2 == 0) == (game.player == BLACK) and _stones(game.current) <= plies


def infer_moves_played(game: GameInput, state_path: str) -> int:
    """Plies played before this move: new game, a state file that agrees with the boards, or an estimate."""
    if _stones(game.previous) == 0 and _stones(game.current) <= 1:
        return 0 if game.player == BLACK else 1
    try:
        with open(state_path, "rb") as handle:
            lines = handle.read(1000).decode("ascii").split()
        header = " ".join(lines[:2])
        colour, plies_after, board = int(lines[2]), int(lines[3]), lines[4]
        if header == STATE_HEADER and colour == game.player and board == game.previous:
            if plausible_plies(game, plies_after + 1):
                return plies_after + 1
            _warn(f"the state file's ply count {plies_after + 1} does not fit the boards")
    except (OSError, ValueError, IndexError):
        pass
    # The fewest plies that fit: the stones on the board, of the mover's parity.
    estimate = _stones(game.current)
    if (estimate % 2 == 0) != (game.player == BLACK):
        estimate += 1
    estimate = min(estimate, MAX_MOVES - 2 if game.player == BLACK else MAX_MOVES - 1)
    _warn(f"no matching state file: estimating {estimate} plies played")
    return estimate


def fallback_move(position: Position) -> Move:
    """A legal move without search: a random legal placement, else PASS."""
    return random_point(position, random.Random())


# The share of a move's CPU cap the exact solver may use before the evaluation search takes over.
SOLVE_SHARE = 0.7


class Decision(NamedTuple):
    """The agent's move and how it chose it: ``how`` is "first" (the solved game's winning
    first move), "book", "solver" (a winning move; ``value`` its exact stone margin where the solver
    settled it in time, else None) or "search" (the evaluation search to ``depth``, with its ``value``)."""

    move: Move
    how: str
    depth: Optional[int]
    value: Optional[float]


def decide_move(
    position: Position,
    params: Params,
    rng: Optional[random.Random] = None,
    book: Optional[Book] = None,
    overrun: float = 0.0,
) -> Decision:
    """The agent's Decision: the book's move, else exact from ``params.solve_from`` on, else
    iterative deepening on the evaluation.

    From the solving ply, a won position is kept won (the move of the largest winning
    margin if that search ends in time, else the first winning move found); a lost one,
    or one the solver cannot settle within its share of the cap, is played by the
    evaluation search, which hopes for the opponent's mistakes. Out of book before the solving
    ply the evaluation alone decides, and a won game given away there stays lost: with
    ``params.close_stones`` set, a move there is unclear when its best move changed between depths
    or another move is within that many stones (of the margin weight) of the best, and an unclear
    move may plan its depths up to the cap, not only to the budget. No move passes ``cpu_cap``, less the
    CPU (``overrun``) the move already spent before the call beyond its start-up allowance.
    On the empty board Black plays the solved game's only winning first move, book or none.
    """
    if position.player == BLACK and not (position.own | position.opp):
        return Decision(WINNING_FIRST_POINT, "first", None, None)
    if book is not None:
        move = book.move(position)
        if move is not None:
            return Decision(move, "book", None, None)
    start = time.process_time()
    cap = max(params.cpu_cap - overrun, _LEAST_CPU)
    cap_deadline = start + cap
    if position.moves_played >= params.solve_from:
        solver = Solver()
        try:
            winning = solver.winning_move(position, start + cap * SOLVE_SHARE)
        except SearchTimeout:
            winning = None
        if winning is not None:
            try:
                move, margin = solver.best_move(position, min(start + params.cpu_budget, cap_deadline))
                if margin > 0:
                    return Decision(move, "solver", None, margin)
            except SearchTimeout:
                pass
            return Decision(winning, "solver", None, None)
    left = max(cap_deadline - time.process_time(), _LEAST_CPU)
    evaluate = params.evaluator()
    searcher = Searcher(evaluate, rng=rng)
    budget = min(params.cpu_budget, left)
    if params.close_stones is not None and position.moves_played < params.solve_from:
        close = params.close_stones * stone_weight(evaluate, position.moves_played)
        found = searcher.iterative(position, params.depth, budget, left, hard_budget=left, close=close)
    else:
        found = searcher.iterative(position, params.depth, budget, left)
    assert found is not None  # depth 1 always ends
    return Decision(found.move, "search", found.depth, found.value)


def choose_move(
    position: Position,
    params: Params,
    rng: Optional[random.Random] = None,
    book: Optional[Book] = None,
    overrun: float = 0.0,
) -> Move:
    """The agent's move (``decide_move``'s, without how it was chosen)."""
    return decide_move(position, params, rng, book, overrun).move


def _params(path: str) -> Params:
    """The params at ``path``, else the built-in defaults, with a warning saying why."""
    try:
        return load_params(path, warn=_warn)
    except ParamsError as error:
        _warn(f"{error}; playing with the built-in defaults")
    except Exception as error:  # whatever the file holds, the agent plays
        _warn(f"{path}: unusable ({type(error).__name__}: {error}); playing with the built-in defaults")
    return default_params()


def _book(path: str) -> Optional[Book]:
    """The opening book at ``path``, or None (with a warning when it exists but is unusable)."""
    try:
        return load_book(path)
    except BookError as error:
        if os.path.exists(path):
            _warn(f"{error}; playing without the opening book")
        return None
    except Exception as error:  # whatever the file holds, the agent plays
        _warn(f"{path}: unusable ({type(error).__name__}: {error}); playing without the book")
        return None


def _move(position: Position, params: Params, book: Optional[Book] = None) -> Move:
    """The searched move, or a legal one when the search fails; the judge accepts either. The process
    is this move's alone: what its start spent beyond STARTUP_CPU's share comes off the cap."""
    try:
        overrun = max(time.process_time() - (STARTUP_CPU - _EXIT_CPU), 0.0)
        move = choose_move(position, params, book=book, overrun=overrun)
        if move != PASS:
            position.play_point(move)  # the judge must accept it
        return move
    except Exception as error:  # never lose a game by crashing
        _warn(f"search failed ({type(error).__name__}: {error}); playing a legal move")
        return fallback_move(position)


def main(params_path: str, workdir: str = ".", book_path: Optional[str] = None) -> int:
    """Play one move in ``workdir`` (with the opening book at ``book_path`` if given).

    The exit status: 0, 2 for a bad input.txt, 3 when output.txt cannot be written.
    """
    input_path = os.path.join(workdir, "input.txt")
    try:
        game = read_input(input_path)
    except InputFormatError as error:
        _warn(f"bad input: {error}")
        return 2
    state_path = os.path.join(workdir, STATE_FILE)
    try:
        moves_played = infer_moves_played(game, state_path)
    except Exception as error:
        _warn(f"cannot tell the ply count ({error}); assuming the fewest that fit")
        moves_played = 0 if game.player == BLACK else 1
    position = Position.from_boards(game.player, game.previous, game.current, moves_played)
    move: Move
    if position.is_over:
        move = PASS
    else:
        params = _params(params_path)
        # the book serves the plies before exact solving: from solve_from on, it is not even read
        book = _book(book_path) if book_path and position.moves_played < params.solve_from else None
        move = _move(position, params, book)
    try:
        write_output(os.path.join(workdir, "output.txt"), move)
    except OSError as error:
        _warn(f"cannot write output.txt: {error}")
        return 3
    try:
        after = position.play_point(move) if not position.is_over else position
        write_atomic(state_path, f"{STATE_HEADER}\n{game.player}\n{moves_played + 1}\n{after.board_string()}\n")
    except Exception as error:
        _warn(f"could not save the state file: {error}")
    return 0
