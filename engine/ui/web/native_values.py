"""The compiled solver kept running beside the board: each position's wins and losses asked in a
thread of its own, answered from the store of solved positions where it holds them.

``NativeValues`` keeps one ``NativeSolver`` process between positions (its transposition table
helps the next position of the same game) and asks it one position at a time. A question not
answered within ``seconds`` goes on in the background while the page shows the agent's search
(``engine.ui.web.analysis``), until answered, ``patience`` seconds pass, or a newer position is
asked for; then the solver's process is killed. Every answer, and the exact margins the board
has solved, go into the store.
"""

import threading
import time
from typing import Dict, Optional, Tuple

from engine.constants import Move
from engine.native.compiler import DEFAULT_TABLE_BITS, NativeError
from engine.native.solver import NativeSolver, describe_position
from engine.native.store import open_store
from engine.position import Position
from engine.ui.analyze import hand_set_evaluator, principal_move

SOLVE_PATIENCE = 600.0  # wall seconds the board's compiled solver goes on with a position past its time
PV_SOLVE_SECONDS = 5.0  # wall seconds an answer's principal variation is solved for behind it (``_extend_line``)


class _Question:
    """One position's question to the compiled solver, answered in a thread of its own: ``done`` once
    it ends, with ``results`` ({move: whether it wins}; None when stopped) or ``error``."""

    def __init__(self, key: str):
        self.key = key
        self.done = threading.Event()
        self.stopped = threading.Event()
        self.results: Optional[Dict[Move, bool]] = None
        self.error: Optional[Exception] = None
        self.solver: Optional[NativeSolver] = None  # the process at work on it, while one is

    def stop(self) -> None:
        self.stopped.set()
        solver = self.solver
        if solver is not None:
            solver.process.kill()


class NativeValues:
    """The compiled solver kept running between positions (its table helps the next position of the
    same game), asked one position at a time. A question not answered within ``seconds`` (wall
    clock) goes on in the background until answered, ``patience`` seconds pass, or a newer position
    is asked for: asking again waits for it anew. Positions the store of solved positions at
    ``store`` (a path; None: none) holds, the package's prefill included, are answered from it, and
    every answer goes into it. ``lines``: after each answer, while idle, solve on along its principal
    variation for up to PV_SOLVE_SECONDS and keep it in the store (``littlego gtp``'s pv)."""

    def __init__(
        self,
        seconds: float,
        table_bits: int = DEFAULT_TABLE_BITS,
        store: Optional[str] = None,
        patience: float = SOLVE_PATIENCE,
        lines: bool = False,
    ):
        self.seconds = seconds
        self.lines = lines  # solve on along each answer's principal variation (``_extend_line``): GTP's pv
        self.patience = patience
        self.table_bits = table_bits
        self.store = open_store(store)  # solved positions: read first, and every answer kept
        self.lock = threading.Lock()  # guards ``question``
        self.solving = threading.Lock()  # one question at the solver at a time: the stopped one ends first
        self.question: Optional[_Question] = None  # the latest _Question
        self.thread: Optional[threading.Thread] = None  # the latest question's thread
        self.solver: Optional[NativeSolver] = None

    def results(self, position: Position) -> Tuple[Optional[Dict[Move, bool]], bool]:
        """({move: whether it wins} or None, pending): None when not answered within ``seconds``, with
        ``pending`` True while the solver goes on (ask again for its answer), False where it gave up
        (past ``patience``, or a newer position asked for); NativeError when there is no compiled
        solver, or it fails twice running."""
        known = None if self.store is None else self.store.results(position)
        key = describe_position(position)
        if known is not None:
            if self.lines:
                self._follow(key, position, known)
            return known, False
        with self.lock:
            question = self.question
            if question is None or question.key != key or question.error is not None:
                if question is not None:
                    question.stop()  # an older position's question: this one matters now
                question = self.question = _Question(key)
                self.thread = threading.Thread(target=self._answer, args=(question, position), daemon=True)
                self.thread.start()
        if not question.done.wait(self.seconds):
            return None, True
        if question.error is not None:
            raise question.error
        return question.results, False

    def _answer(self, question: _Question, position: Position) -> None:
        """Ask the compiled solver ``question`` (a second time if its process fails), until ``patience``."""
        try:
            with self.solving:
                for attempt in (1, 2):
                    if question.stopped.is_set():
                        return
                    try:
                        if self.solver is None:
                            self.solver = NativeSolver(self.table_bits)
                        question.solver = solver = self.solver
                        if question.stopped.is_set():  # stopped before the solver was named: kill it now
                            return
                        timer = threading.Timer(self.patience, question.stop)
                        timer.start()
                        try:
                            question.results = solver.move_results(position)
                        finally:
                            timer.cancel()
                            question.solver = None
                        if self.store is not None:
                            self.store.record(position, question.results)
                        question.done.set()  # answered: the line below goes on behind the answer
                        self._extend_line(question, position, question.results)
                        return
                    except NativeError as error:
                        if self.solver is not None:
                            self.solver.close()  # stopped or failed: its table goes with it
                        self.solver = None
                        if question.stopped.is_set():
                            return
                        if attempt == 2:
                            question.error = error
        except Exception as error:  # the request that waits for it gets it
            question.error = error
        finally:
            question.done.set()

    def _follow(self, key: str, position: Position, results: Dict[Move, bool]) -> None:
        """Solve on along the principal variation of a position the store answered (``_extend_line``), once,
        where the solver is idle: a question of its own that a newer one stops."""
        with self.lock:
            question = self.question
            if question is not None and (question.key == key or not question.done.is_set()):
                return
            question = self.question = _Question(key)
            question.done.set()
            self.thread = threading.Thread(target=self._follow_line, args=(question, position, results), daemon=True)
            self.thread.start()

    def _follow_line(self, question: _Question, position: Position, results: Dict[Move, bool]) -> None:
        try:
            with self.solving:
                if self.solver is None:
                    self.solver = NativeSolver(self.table_bits)
                self._extend_line(question, position, results)
        except Exception:  # no compiled solver, or it failed: the line is as long as the store has it
            pass

    def _extend_line(self, question: _Question, position: Position, results: Dict[Move, bool]) -> None:
        """Solve and keep in the store each position of ``position``'s principal variation (``principal_move``
        at each step) for up to PV_SOLVE_SECONDS, so that the analysis reads the line back from the store; what the
        store holds already is not solved again. Ends early when a newer question comes."""
        if self.store is None or self.solver is None or not self.lines:
            return
        deadline = time.monotonic() + PV_SOLVE_SECONDS
        evaluate = hand_set_evaluator()
        while time.monotonic() < deadline and not question.stopped.is_set():
            position = position.play_point(principal_move(position, results, evaluate))
            if position.is_over:
                return
            known = self.store.results(position)
            if known is None:
                question.solver = self.solver
                try:
                    known = self.solver.move_results(position)
                except NativeError:  # stopped by a newer question, or failed: the line ends, the answer stands
                    self.solver.close()
                    self.solver = None
                    return
                finally:
                    question.solver = None
                self.store.record(position, known)
            results = known

    def known(self, position: Position) -> Optional[Dict[Move, bool]]:
        """{move: whether it wins} where the store holds every move of ``position``, else None; never solves."""
        return None if self.store is None else self.store.results(position)

    def margins(self, position: Position) -> Optional[Dict[Move, float]]:
        """{move: exact margin} of every legal move and PASS where the store holds them all; else None."""
        found = None if self.store is None else self.store.margins(position)
        if found is None or len(found) != len(position.legal_points()) + 1:
            return None
        return found

    def keep_margins(self, position: Position, margins: Dict[Move, float]) -> None:
        """Keep in the store the exact margins ``margins`` ({move: margin}) of every move of ``position``."""
        if self.store is not None:
            self.store.record(position, {move: margin > 0 for move, margin in margins.items()}, margins=margins)

    def close(self) -> None:
        with self.lock:
            if self.question is not None:
                self.question.stop()
            thread = self.thread
        if thread is not None:
            thread.join(10)
        with self.solving:
            if self.solver is not None:
                self.solver.close()
                self.solver = None
        if self.store is not None:
            self.store.close()
