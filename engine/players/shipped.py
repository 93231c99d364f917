"""Our agent as it ships, at a node budget: the player evolution's fitness trusts.

``engine.agent.decide_move`` plays the course's games: the opening book, the evaluation search at
a CPU budget, exact play from ``solve_from`` on. CPU seconds differ from machine to machine and
run to run, so a fitness cannot use them and replay. ``ShippedPlayer`` makes the same choices in
the same order with nodes for seconds: the book's move where the book has the position; before
``solve_from`` the evaluation search with the budget, cap and ``close_stones`` of the params, each
in nodes (``NODES_PER_SECOND`` of the shipped agent's search on the machine that measured it);
from ``solve_from`` on a winning move from the compiled solver where the position is won, else the
evaluation search. Both searches are compiled (``engine.native``) where a C compiler is found: the
same moves as the Python searcher, tens of times sooner.
"""

import functools
import os
from typing import Optional, Tuple

from engine.book import Book, load_book
from engine.constants import BLACK, PASS, WINNING_FIRST_POINT, Move
from engine.data import SHIPPED_BOOK
from engine.features import stone_weight
from engine.native.solver import NativeSolver
from engine.params import Params
from engine.players.base import Player
from engine.players.searcher import SearcherName, searcher_for
from engine.position import Position

# Nodes the shipped agent's Python search visits in a CPU second, as measured and dated in
# experiments/node-budget-20261204 (rounded; 58,000 from 2026-11-25, of the flat weights alone). A params
# file's cpu_budget and cpu_cap, times this, are the node budget and cap its player searches with.
NODES_PER_SECOND = 79_000
ENDGAME_TABLE_BITS = 18  # the solver's table from ply 12 on: 8 MiB a process is plenty there


@functools.lru_cache(maxsize=1)
def _solver_of(pid: int) -> NativeSolver:
    """The compiled solver of process ``pid``, started at its first exact move: keyed by the process, so
    that a forked worker starts its own (a pool's worker then keeps one for all its games)."""
    return NativeSolver(ENDGAME_TABLE_BITS)


def _process_solver() -> NativeSolver:
    """The compiled solver of this process."""
    return _solver_of(os.getpid())


@functools.lru_cache(maxsize=1)
def shipped_book() -> Optional[Book]:
    """The shipped opening book (None where the installation has none), read once a process."""
    return load_book(SHIPPED_BOOK) if os.path.exists(SHIPPED_BOOK) else None


def node_plan(params: Params, nodes_per_second: float = NODES_PER_SECOND) -> Tuple[int, int]:
    """(node budget, node cap) of a move: the params' CPU budget and cap in nodes."""
    budget = max(int(params.cpu_budget * nodes_per_second), 1)
    return budget, max(int(params.cpu_cap * nodes_per_second), budget)


# How ShippedPlayer plays, for the records its matches keep (evolve ship's screen): 1, until 2026-11-27
# evening, one searcher a game and ties at random; 2, a fresh search a move and ties by move order.
PLAYS_AS = 2


class ShippedPlayer(Player):
    """The agent of ``params`` as it ships (book, evaluation search, exact from ``solve_from``), each
    move's search bounded in nodes, not seconds: a move depends on the position alone.

    As the agent does, each move starts a fresh search (the host runs the agent in a new process a
    move: no table, killers or history carried from the last move) and breaks ties at the root by
    the order of the moves, not at random. A searcher kept for the whole game searched deeper in the
    same nodes than the agent and chose otherwise in some positions, and matches of it misjudged
    candidates by up to 4 points (experiments/tuners-20261125, eighth section)."""

    def __init__(
        self,
        params: Params,
        book: Optional[Book] = None,
        spec: str = "shipped",
        searcher: SearcherName = SearcherName.NATIVE,
        nodes_per_second: float = NODES_PER_SECOND,
    ):
        self.params = params
        self.book = book
        self.spec = spec
        self.evaluate = params.evaluator()
        # The compiled searcher cannot tell the runner-up that close_stones asks for: those params search in Python.
        self.searcher_type = searcher_for(SearcherName.PYTHON if params.close_stones is not None else searcher)
        self.budget, self.cap = node_plan(params, nodes_per_second)

    def move(self, position: Position) -> Move:
        if position.player == BLACK and not (position.own | position.opp):
            return WINNING_FIRST_POINT
        if self.book is not None:
            move = self.book.move(position)
            if move is not None:
                return move
        if position.moves_played >= self.params.solve_from:
            winning = [move for move, wins in _process_solver().move_results(position).items() if wins]
            if winning:
                return min(winning, key=lambda move: (move == PASS, move))  # any keeps the win: the first
        close = None
        if self.params.close_stones is not None and position.moves_played < self.params.solve_from:
            close = self.params.close_stones * stone_weight(self.evaluate, position.moves_played)
        found = self.searcher_type(self.evaluate, rng=None).iterative_nodes(
            position,
            self.params.depth,
            self.budget,
            self.cap,
            hard_budget=self.cap if close is not None else None,
            close=close,
        )
        return found.move
