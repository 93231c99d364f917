"""The compiled solver behind the store of solved positions (``engine.native.store``).

``StoredSolver`` answers from the store where it can (a position's moves from its children's values
too: a store filled at one ply answers the ply before it) and asks ``NativeSolver`` (started on the
first question it cannot answer) otherwise, storing the answer; every tool that asks the compiled solver
about a position goes through it. A pool of solvers starts one in each worker
(``start_worker_solver``), so that the worker's transposition table serves every task it is sent.
"""

import os
from typing import List, Literal, NamedTuple, Optional, Union

from engine.native.compiler import DEFAULT_TABLE_BITS
from engine.native.solver import NativeSolver
from engine.native.store import MoveResults, SolvedStore
from engine.position import Position


class Solving(NamedTuple):
    """How a tool solves many positions: ``jobs`` compiled solver processes at a time, each with a table
    of 2**``table_bits`` buckets, over the store of solved positions at ``store`` (a path; None for none)."""

    jobs: int = 1
    table_bits: int = DEFAULT_TABLE_BITS
    store: Optional[str] = None


class StoredSolver:
    """The compiled solver behind the store: ``wins`` and ``move_results`` answer from ``store`` (a
    SolvedStore, a path, or None for none) where it holds the position, and otherwise ask a
    ``NativeSolver`` (started on the first such question) and store its answer. ``asked`` counts the
    questions the compiled solver was asked."""

    def __init__(
        self,
        store: "Union[SolvedStore, str, os.PathLike[str], None]",
        table_bits: int = DEFAULT_TABLE_BITS,
        solver: Optional[NativeSolver] = None,
    ):
        self.store = store if store is None or isinstance(store, SolvedStore) else SolvedStore(store)
        self.table_bits = table_bits
        self._solver = solver
        self.asked = 0

    @property
    def solver(self) -> NativeSolver:
        """The compiled solver, started when first needed."""
        if self._solver is None:
            self._solver = NativeSolver(self.table_bits)
        return self._solver

    @property
    def nodes(self) -> int:
        """The compiled solver's nodes so far (0 while every answer came from the store)."""
        return 0 if self._solver is None else self._solver.nodes

    def wins(self, position: Position) -> bool:
        """Whether the side to move wins with perfect play."""
        if position.is_over:
            return position.margin() > 0
        known = None if self.store is None else self.store.value(position)
        if known is not None:
            return known
        self.asked += 1
        won = self.solver.wins(position)
        if self.store is not None:
            self.store.record(position, won=won)
        return won

    def move_results(self, position: Position) -> MoveResults:
        """{move: whether it wins} for every legal move and PASS: the store's, else followed from its
        children where the store holds every one (stored then), else the compiled solver's."""
        known = None if self.store is None else self.store.results(position)
        if known is None and self.store is not None:
            known = self._from_children(self.store, position)
            if known is not None:
                self.store.record(position, known)
        if known is not None:
            return known
        self.asked += 1
        results = self.solver.move_results(position)
        if self.store is not None:
            self.store.record(position, results)
        return results

    @staticmethod
    def _from_children(store: SolvedStore, position: Position) -> Optional[MoveResults]:
        """{move: whether it wins} where the store knows, or an ended game settles, every child; else None.
        A move wins where the side to move after it loses (a store filled a ply deeper fills this ply)."""
        results: MoveResults = {}
        for move in position.all_moves():
            child = position.play_point(move)
            child_wins = child.margin() > 0 if child.is_over else store.value(child)
            if child_wins is None:
                return None
            results[move] = not child_wins
        return results

    def close(self) -> None:
        if self._solver is not None:
            self._solver.close()
            self._solver = None

    def __enter__(self) -> "StoredSolver":
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.close()
        return False


_WORKER: List[StoredSolver] = []  # a pool worker's StoredSolver, kept for every position the worker is sent


def start_worker_solver(table_bits: int, store: Optional[str] = None) -> None:
    """A pool's initializer: this process's StoredSolver (``store`` a path, or None for none), which
    ``worker_solver`` gives to every task the worker runs, so that its table serves them all."""
    _WORKER[:] = [StoredSolver(store, table_bits)]


def worker_solver() -> StoredSolver:
    """The StoredSolver ``start_worker_solver`` started in this process."""
    return _WORKER[0]
