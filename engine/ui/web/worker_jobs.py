"""What the board's worker processes compute (``workers`` runs them; ``analysis`` asks): an
opponent's reply (``reply_job``), the shipped agent's move (``agent_job``), the Python solver's exact
margins (``margins_job``), the agent's evaluation search (``search_job``) and the replies that refute
each move of a lost position (``refutations_job``), with the records they answer.
"""

import functools
import logging
import threading
import time
from typing import Dict, List, NamedTuple, Optional, Tuple

from engine.agent import decide_move
from engine.book import Book, BookError
from engine.constants import Move
from engine.course.build import ensure_built
from engine.data import SHIPPED_PARAMS, SOLVED_PREFILL
from engine.native.compiler import DEFAULT_TABLE_BITS, NativeError
from engine.native.search import searcher_class
from engine.native.solver import NativeSolver
from engine.native.store import MoveResults, SolvedStore
from engine.params import Params, load_params
from engine.players.shipped import shipped_book
from engine.players.specs import make_player
from engine.position import Position
from engine.sandbox.limits import Limits
from engine.search import Searcher, SearchTimeout, terminal_value
from engine.solver import Solver
from engine.ui.web.board_game import BadRequest, position_after


class AgentChoice(NamedTuple):
    """The shipped agent's move and how it chose it (``engine.agent.Decision``'s fields:
    ``how`` "first", "book", "solver" or "search"), with ``seconds`` the CPU time it took."""

    move: Move
    how: str
    depth: Optional[int]
    value: Optional[float]
    seconds: float


class Reply(NamedTuple):
    """A scripted opponent's reply and the CPU seconds it took."""

    move: Move
    seconds: float


Searched = Tuple[int, Dict[Move, float]]  # (the depth reached, {move: the agent's search value})
log = logging.getLogger("littlego.serve")


class PlayerTrouble(RuntimeError):
    """A player that could not be made or gave no legal move; the message says why."""


@functools.lru_cache(maxsize=1)
def shipped_params() -> Params:
    """The shipped agent's params, read once per process."""
    return load_params(SHIPPED_PARAMS)


@functools.lru_cache(maxsize=1)
def board_book() -> Optional[Book]:
    """The shipped opening book (``engine.players.shipped.shipped_book``) as the board uses it: None where
    there is none or it cannot be used, said once a process."""
    try:
        return shipped_book()
    except BookError as error:
        log.warning("the board goes without the opening book: %s", error)
        return None


def reply_job(spec: str, moves: List[Move], seed: int, limits: Optional[Limits] = None) -> Reply:
    """The Reply of the player ``spec`` to the position after ``moves``; BadRequest with the spec
    parser's message for a spec it refuses, PlayerTrouble saying why a player gave no move."""
    position = position_after(moves)
    try:
        ensure_built(spec, limits)  # a C++ or Java agent's folder: built once a process, as the course builds it
        player = make_player(spec, limits=limits)
    except ValueError as error:  # the user's mistake: make_player names what is wrong with the spec
        raise BadRequest(str(error))
    except Exception as error:  # a player that cannot start
        raise PlayerTrouble(f"player {spec!r}: {error}")
    try:
        player.new_game(position.player, seed)
        move, seconds = player.timed_move(position)
        position.play_point(move)
    except Exception as error:  # whatever a player does, the page gets a message
        raise PlayerTrouble(f"{spec} gave no legal move: {error}")
    finally:
        player.close()
    return Reply(move, seconds)


def agent_job(moves: List[Move]) -> AgentChoice:
    """The shipped agent's AgentChoice after ``moves``: ``engine.agent.decide_move``, timed."""
    position = position_after(moves)
    if position.is_over:
        raise BadRequest("the game is over: the agent has no move to make")
    start = time.process_time()
    decision = decide_move(position, shipped_params(), book=board_book())
    return AgentChoice(*decision, seconds=time.process_time() - start)


def margins_job(moves: List[Move], seconds: float) -> Optional[Dict[Move, float]]:
    """{move: exact margin} after ``moves`` from the Python solver, or None past ``seconds`` of CPU."""
    position = position_after(moves)
    try:
        return Solver().move_values(position, time.process_time() + seconds)
    except SearchTimeout:
        return None


def search_job(moves: List[Move], seconds: float) -> Searched:
    """(depth, {move: the agent's search value}) after ``moves``: every move searched one depth
    deeper at a time while ``seconds`` of CPU last (depth 1 at least)."""
    position = position_after(moves)
    params = shipped_params()
    searcher = Searcher(params.evaluator())
    deadline = time.process_time() + seconds
    every: List[Move] = position.all_moves()
    children = {move: position.play_point(move) for move in every}
    found: Dict[Move, float] = {}
    depth = 0
    for next_depth in range(1, params.depth + 1):
        try:
            values = {
                move: -terminal_value(child)
                if child.is_over
                else -searcher.search(child, next_depth, deadline if next_depth > 1 else None).value
                for move, child in children.items()
            }
        except SearchTimeout:
            break
        found, depth = values, next_depth
    return depth, found


# The deepest fixed depth at which the board asks whether the agent's search finds a refutation.
REFUTATION_DEPTH = 6


class Refutation(NamedTuple):
    """How hard a losing move is to answer: the opponent's replies that keep its win (``keeping``) of all
    its ``replies``, and ``depth``: the shallowest fixed depth (1 to REFUTATION_DEPTH) at which the shipped
    agent's evaluation search, as the opponent, picks one of them (None: not within REFUTATION_DEPTH, or
    not reached in time). A move that ends the game is (0, 0, None): lost, with no reply to find."""

    keeping: int
    replies: int
    depth: Optional[int]


def refutations_job(moves: List[Move], seconds: float, store: Optional[str] = None) -> Dict[Move, Refutation]:
    """For a position after ``moves``: {move: its Refutation}, each reply's result from the store of solved
    positions at ``store`` (None: the package's prefill alone) or the compiled solver, move by move while
    ``seconds`` of wall time last (the moves left out were not reached; the solver is stopped at the
    deadline, even within a move, so the worker is free by then), then each move's depth while time is
    left."""
    position = position_after(moves)
    deadline = time.time() + seconds
    replies: Dict[Move, MoveResults] = {}
    every: List[Move] = position.all_moves()
    solved = SolvedStore(store) if store else SolvedStore(SOLVED_PREFILL, prefill=None, read_only=True)
    native = NativeSolver(DEFAULT_TABLE_BITS)
    watchdog = threading.Timer(seconds, native.process.kill)
    watchdog.start()
    try:
        for move in every:
            child = position.play_point(move)
            results = {} if child.is_over else solved.results(child)
            if results is None:
                results = native.move_results(child)
                if not solved.read_only:
                    solved.record(child, results)
            replies[move] = results
            if time.time() > deadline:
                break
    except NativeError:  # stopped at the deadline
        pass
    finally:
        watchdog.cancel()
        native.close()
        solved.close()
    return {
        move: Refutation(
            sum(1 for wins in results.values() if wins),
            len(results),
            refutation_depth(position.play_point(move), results, deadline) if results else None,
        )
        for move, results in replies.items()
    }


def refutation_depth(position: Position, results: MoveResults, deadline: float) -> Optional[int]:
    """The shallowest fixed depth, 1 to REFUTATION_DEPTH, at which the shipped agent's evaluation search
    picks at ``position`` a move that ``results`` ({move: whether it wins}) says wins; None where none does,
    or where the wall clock passes ``deadline`` first."""
    params = shipped_params()
    searcher = searcher_class()(params.evaluator())
    for depth in range(1, REFUTATION_DEPTH + 1):
        left = deadline - time.time()
        if left <= 0:
            return None
        try:
            if results[searcher.search(position, depth, time.process_time() + left).move]:
                return depth
        except SearchTimeout:
            return None
    return None
