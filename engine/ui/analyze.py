"""GTP analysis for GUIs: ``lz-analyze`` and ``kata-analyze`` answered as Sabaki reads them.

A GUI sends ``lz-analyze [COLOUR] [INTERVAL]`` (``kata-analyze`` likewise); the engine answers
``=`` and then, every INTERVAL centiseconds until the next command arrives, one line giving each
legal move (pass included) with its value for the side to move, a visit count, its order and a
principal variation. Here a value is exact where the compiled solver (or the store of solved
positions) has settled the position: a win is a win rate of 100%, a loss 0%. Until then, and where
there is no C compiler, it is our searcher's value at the depth reached (a stone margin, shown as a
win rate through a logistic curve). The next command ends the answer with a blank line.

Leela Zero's form: ``info move C3 visits 10000 winrate 10000 prior 0 lcb 10000 order 0 pv C3 C2 ...``
(win rates in ten-thousandths), every move in one line; KataGo's: the same words, win rates as
fractions, and ``scoreLead``, the exact stone margin where it is known. An exact move's ``pv`` is the
solver's winning line as far as the store holds it; an estimate's is the move alone.
"""

import math
import time
from typing import Dict, Iterable, List, Mapping, NamedTuple, Optional, Protocol, Tuple

from engine.constants import PASS, Colour, Move
from engine.features import Evaluator, make_evaluator
from engine.native.compiler import NativeError
from engine.params import default_params
from engine.players.gtp import point_to_vertex
from engine.position import Position
from engine.search import WIN, Searcher, SearchTimeout, table_key, terminal_value

# Visits as Lizzie and Sabaki weigh them: a GUI's win rate of the position is the moves' win rates weighted
# by their visits, so the visits go to the best moves. Exact: the winning moves share EXACT_VISITS and each
# losing one has 1 (the position's rate is then within 0.3% of 100% where it is won, exactly 0% where lost);
# estimates: the moves within ESTIMATE_BAND of the best share ESTIMATE_VISITS, the others 1, so an estimate
# never looks as settled as an exact value.
EXACT_VISITS = 10000
ESTIMATE_VISITS = 100
ESTIMATE_BAND = 0.01
# An estimate's win rate stays within [ESTIMATE_FLOOR, 1 - ESTIMATE_FLOOR], so that 0% and 100%, in both GUIs'
# labels, mean exact and nothing else.
ESTIMATE_FLOOR = 0.01
LINE_PLIES = 24  # the longest principal variation shown: a whole game
SEARCH_SECONDS = 0.2  # CPU seconds of search for one line's values where nothing is exact yet
MARGIN_SCALE = 10.0  # a search value of this much reads as a win rate of about 73%: an estimate, no more


class MoveAnalysis(NamedTuple):
    """One move's line item: the ``move`` (a point or PASS), its win rate for the side to move in [0, 1],
    whether that is ``exact``, the exact stone margin (``margin``; None where not known) and the moves
    after it of its principal variation (``line``; empty where not known)."""

    move: Move
    winrate: float
    exact: bool
    margin: Optional[float] = None
    line: Tuple[Move, ...] = ()


def win_rate(value: float) -> float:
    """A search value (the evaluation's, from the side to move) read as a win rate, an estimate's: within
    [ESTIMATE_FLOOR, 1 - ESTIMATE_FLOOR], never the 0 or 1 of an exact value."""
    rate = 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, -value / MARGIN_SCALE))))
    return min(max(rate, ESTIMATE_FLOOR), 1.0 - ESTIMATE_FLOOR)


def searched(move: Move, value: float) -> MoveAnalysis:
    """The MoveAnalysis of a search's ``value`` for ``move``: a forced end of the game within the search's
    depth (a value past WIN / 2) is exact, with its margin; anything else an estimate."""
    if abs(value) >= WIN / 2:
        return MoveAnalysis(move, 1.0 if value > 0 else 0.0, True, value - WIN if value > 0 else value + WIN)
    return MoveAnalysis(move, win_rate(value), False)


def hand_set_evaluator() -> Evaluator:
    """The evaluation an analysis uses where nothing is exact, and to choose among a line's equal moves."""
    return make_evaluator(default_params().weights)


def principal_move(position: Position, results: Mapping[Move, bool], evaluate: Evaluator) -> Move:
    """The move a principal variation takes from ``position``, whose every move's result is ``results``:
    of the winning moves (all, where every move loses) the one ``evaluate`` likes best for the side to move,
    the first in board order (PASS last) among equals. One rule for the line the compiled solver extends
    (``engine.ui.web.native_values``) and the line the analysis reads back."""

    def worth(move: Move) -> float:
        child = position.play_point(move)
        return -(terminal_value(child) if child.is_over else evaluate(child))

    winning = [move for move in results if results[move]] or list(results)
    return max(sorted(winning, key=lambda move: (move == PASS, move)), key=worth)


class ExactSolver(Protocol):
    """What ``Analysis`` asks for exact values (the board's NativeValues is one)."""

    def results(self, position: Position) -> Tuple[Optional[Dict[Move, bool]], bool]:
        """({move: whether it wins} or None when not answered yet, whether the solver is still at work)."""
        ...

    def known(self, position: Position) -> Optional[Dict[Move, bool]]:
        """{move: whether it wins} where already known (the store), else None: never starts solving."""
        ...

    def margins(self, position: Position) -> Optional[Dict[Move, float]]:
        """{move: exact margin} of every move where known, else None."""
        ...


class Analysis:
    """The values ``lz-analyze`` shows, position by position: exact from ``solver`` (an object with
    ``results(position) -> ({move: wins} or None, pending)``, such as the board's NativeValues; None:
    none), else from a short search with the hand-set weights."""

    def __init__(self, solver: Optional[ExactSolver] = None):
        self.solver = solver
        self.evaluate = hand_set_evaluator()
        self.searcher = Searcher(self.evaluate)
        # Whole principal variations (to the game's end), by the search's key of the position they start from:
        # they never change, while a line the store holds only part of is read again, as it may have grown.
        self.lines: Dict[object, Tuple[Move, ...]] = {}

    def moves(self, position: Position) -> List[MoveAnalysis]:
        """Every legal move of ``position`` and PASS, best first for the side to move."""
        exact = self._exact(position)
        if exact is None:
            return sorted(self._searched(position), key=lambda item: (-item.winrate, item.move == PASS, item.move))
        # the principal variation's move first: the one a GUI shows as best, and whose line is solved on
        first = principal_move(position, {item.move: item.winrate == 1.0 for item in exact}, self.evaluate)
        return sorted(exact, key=lambda item: (-item.winrate, item.move != first, item.move == PASS, item.move))

    def _exact(self, position: Position) -> Optional[List[MoveAnalysis]]:
        if self.solver is None:
            return None
        try:
            results, _ = self.solver.results(position)
        except NativeError:
            self.solver = None  # no compiled solver here: the search's values from now on
            return None
        if results is None:
            return None
        margins = self.solver.margins(position) or {}
        found = []
        for move, wins in results.items():
            child = position.play_point(move)
            margin = margins.get(move)
            if margin is None and child.is_over:  # a move that ends the game: its margin is the board's
                margin = searched(move, -terminal_value(child)).margin
            found.append(MoveAnalysis(move, 1.0 if wins else 0.0, True, margin, self._line(child)))
        return found

    def _line(self, position: Position) -> Tuple[Move, ...]:
        """The principal variation from ``position`` (``principal_move`` at each step), as far as the solver
        knows it without solving: the store's, which the compiled solver extends along the line it answers."""
        assert self.solver is not None
        start = table_key(position)
        if start in self.lines:
            return self.lines[start]
        line: List[Move] = []
        while not position.is_over and len(line) < LINE_PLIES - 1:
            results = self.solver.known(position)
            if results is None:
                return tuple(line)
            move = principal_move(position, results, self.evaluate)
            line.append(move)
            position = position.play_point(move)
        self.lines[start] = tuple(line)
        return self.lines[start]

    def _searched(self, position: Position) -> List[MoveAnalysis]:
        deadline = time.process_time() + SEARCH_SECONDS
        every: List[Move] = position.all_moves()
        children = {move: position.play_point(move) for move in every}
        found = {move: -terminal_value(child) if child.is_over else None for move, child in children.items()}
        values = {move: value for move, value in found.items() if value is not None}
        for depth in (1, 2, 3, 4):
            try:
                values.update(
                    {
                        move: -self.searcher.search(child, depth, deadline if depth > 1 else None).value
                        for move, child in children.items()
                        if found[move] is None
                    }
                )
            except SearchTimeout:
                break
        return [searched(move, value) for move, value in values.items()]


def visits_of(items: List[MoveAnalysis]) -> List[int]:
    """The visit count of each of ``items`` (best first), ranking them by value (``EXACT_VISITS``)."""
    if not items:
        return []
    exact = all(item.exact for item in items)
    best = max(item.winrate for item in items)
    if exact:
        chosen = [item.winrate == 1.0 for item in items]
        total = EXACT_VISITS
    else:
        chosen = [item.winrate >= best - ESTIMATE_BAND for item in items]
        total = ESTIMATE_VISITS
    share = max(1, total // max(1, sum(chosen)))
    return [share if good else 1 for good in chosen]


def variation(item: MoveAnalysis) -> str:
    """``item``'s ``pv``: its move and the line after it, as vertices."""
    return " ".join(point_to_vertex(move) for move in (item.move,) + item.line)


def lz_line(items: List[MoveAnalysis]) -> str:
    """One ``lz-analyze`` line (Leela Zero's form) for the moves ``items``, best first."""
    parts = []
    for order, (item, visits) in enumerate(zip(items, visits_of(items))):
        vertex = point_to_vertex(item.move)
        rate = int(round(item.winrate * 10000))
        parts.append(
            f"info move {vertex} visits {visits} winrate {rate} prior 0 lcb {rate} order {order} pv {variation(item)}"
        )
    return " ".join(parts)


def kata_line(items: List[MoveAnalysis]) -> str:
    """One ``kata-analyze`` line (KataGo's form) for the moves ``items``, best first."""
    parts = []
    for order, (item, visits) in enumerate(zip(items, visits_of(items))):
        vertex = point_to_vertex(item.move)
        lead = "" if item.margin is None else f" scoreLead {item.margin:g}"
        parts.append(
            f"info move {vertex} visits {visits} winrate {item.winrate:.4f}{lead} prior 0 lcb {item.winrate:.4f} "
            f"order {order} pv {variation(item)}"
        )
    return " ".join(parts)


def analysis_interval(arguments: Iterable[str], colour_words: Mapping[str, Colour]) -> Tuple[Optional[str], float]:
    """(colour word or None, interval in seconds) of ``lz-analyze``'s arguments: ``[COLOUR] [INTERVAL]``
    and any keyword pairs after them (ignored); ValueError where they cannot be read."""
    words = list(arguments)
    colour = words.pop(0) if words and words[0].lower() in colour_words else None
    centiseconds = 100
    if words and words[0].isdigit():
        centiseconds = int(words.pop(0))
    elif words and words[0] == "interval" and len(words) > 1 and words[1].isdigit():
        centiseconds = int(words[1])
    return colour, max(centiseconds, 1) / 100.0
