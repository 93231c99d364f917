"""Fixed-depth negamax alpha-beta with a transposition table, from the side to move.

The search takes its evaluator as an argument: ``evaluate(position, captured)``
scores a position for the side to move, ``captured`` being that side's net captures
since the root. Finished games are scored exactly: a win or a loss outweighs any
evaluation, the stone margin breaking ties, so when the 24-ply end lies within the
depth the last plies are played perfectly. Depth and time limits are the caller's.
"""

import random
import time
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

from engine.bitboard import FULL, count, groups, grow, neighbours, points_of
from engine.bitboard import NEIGHBOURS as POINT_NEIGHBOURS
from engine.constants import PASS, Colour, Move, Point
from engine.features import Evaluator
from engine.position import Position

# Above any evaluation (features are at most a few hundred, weights at most MAX_WEIGHT):
# a finished game's value is +-WIN + margin.
WIN = 1e7
INFINITY = float("inf")
TIE = 1e-9  # values this close count as equal for the random tie-break
_EXACT, _LOWER, _UPPER = 0, 1, 2
TABLE_LIMIT = 1000000  # the transposition table's entries: a search that finds more clears it first

TableKey = Tuple[int, ...]  # table_key's: the position exactly
Entry = Tuple[int, int, float, Optional[Move]]  # (depth, _EXACT/_LOWER/_UPPER, value, best move)
Settle = Callable[[Position], Optional[float]]  # a position's exact value where known without search, else None


class SearchResult(NamedTuple):
    """The chosen move (point or PASS), its value for the mover, the depth completed, nodes, CPU
    seconds, and ``runner_up``: where the search was asked whether another root move comes within
    ``Searcher.close`` of the best, a value one is proved to reach there, else None."""

    move: Move
    value: float
    depth: int
    nodes: int
    seconds: float
    runner_up: Optional[float] = None


class SearchTimeout(Exception):
    """A search limit was reached (the CPU deadline, or the node budget)."""


def terminal_value(position: Position) -> float:
    """Exact value of a finished game for the side to move: +-WIN plus the stone margin."""
    margin = position.margin()
    return WIN + margin if margin > 0 else -WIN + margin


def table_key(position: Position) -> TableKey:
    """Transposition key: the position exactly, with whatever changes its legal moves or its end.

    Legal moves depend on the previous board only through KO, which can bite only after
    the mover lost stones (then both previous boards are part of the key); a pass ends the
    game only when previous equals current (a flag). The ply count decides how far the
    game's 24-ply end is. Exact keys, not hashes: a collision would be a wrong value.
    """
    own, opp, prev_own, prev_opp = position.own, position.opp, position.prev_own, position.prev_opp
    if prev_own & ~own:
        return own, opp, position.player, position.moves_played, prev_own, prev_opp
    if position.passed:
        return own, opp, position.player, position.moves_played, True
    return own, opp, position.player, position.moves_played


def capturing_points(position: Position) -> Dict[Point, int]:
    """Liberties of the opponent's groups in atari, with the stones each would capture."""
    opp = position.opp
    empty = FULL ^ position.own ^ opp
    gains: Dict[Point, int] = {}
    for group in groups(opp):
        liberties = neighbours(group) & empty
        if liberties and not liberties & (liberties - 1):
            point = liberties.bit_length() - 1
            gains[point] = gains.get(point, 0) + count(group)
    return gains


class Searcher:
    """Alpha-beta search state: transposition table, killer moves, history, counters."""

    def __init__(
        self,
        evaluate: Evaluator,
        rng: Optional[random.Random] = None,
        terminal: Callable[[Position], float] = terminal_value,
        settle: Optional[Settle] = None,
        shape_depth: Optional[int] = None,
    ) -> None:
        self.evaluate = evaluate
        self.terminal = terminal  # the value of a finished game for the side to move
        self.settle = settle  # settle(position): its exact value known without search, or None
        # At this depth left and more, quiet moves are ordered by shape too: a move that puts an
        # opponent group in atari first, one leaving its own group in atari last, more
        # liberties before fewer (too dear near the leaves: worth it only high in the tree).
        self.shape_depth = shape_depth
        self.rng = rng  # when set, ties at the root are broken at random
        self.table: Dict[TableKey, Entry] = {}
        self.killers: Dict[int, Tuple[Move, ...]] = {}  # by ply
        self.history: Dict[Tuple[Colour, Move], int] = {}
        self.nodes = 0
        self.deadline: Optional[float] = None
        self.node_stop: Optional[int] = None  # abandon the search past this node count (set by iterative)
        # When set, each search also asks whether another root move comes within this much of the
        # best (SearchResult.runner_up; set by iterative; None: not asked).
        self.close: Optional[float] = None

    # -- the entry points -------------------------------------------------------------------
    def search(self, position: Position, depth: int, deadline: Optional[float] = None) -> SearchResult:
        """Best move at a fixed depth; SearchTimeout if ``deadline`` (process CPU time) passes."""
        if position.is_over:
            raise ValueError("the game is over: there is no move to search")
        if len(self.table) > TABLE_LIMIT:
            self.table.clear()
        self.deadline = deadline
        start_nodes, start = self.nodes, time.process_time()
        move, value, runner_up = self._root(position, depth)
        return SearchResult(move, value, depth, self.nodes - start_nodes, time.process_time() - start, runner_up)

    def value(
        self, position: Position, depth: int, alpha: float, beta: float, deadline: Optional[float] = None
    ) -> float:
        """The negamax value of a position within (alpha, beta), fail-hard; SearchTimeout past ``deadline``."""
        if len(self.table) > TABLE_LIMIT:
            self.table.clear()
        self.deadline = deadline
        return self._negamax(position, depth, alpha, beta, 1, 0)

    def iterative(
        self,
        position: Position,
        max_depth: int,
        cpu_budget: Optional[float] = None,
        cpu_cap: Optional[float] = None,
        node_budget: Optional[int] = None,
        hard_budget: Optional[float] = None,
        close: Optional[float] = None,
    ) -> Optional[SearchResult]:
        """Search depths 1..max_depth; the move of the deepest depth completed within the limits.

        The limits are the caller's choice. ``node_budget``: a search past that many nodes is
        abandoned (the same seed gives the same moves on any machine). ``cpu_budget``: the
        CPU seconds the move is meant to take: a depth is begun only if it looks likely to
        end within it, or within ``hard_budget`` (default: twice the budget) when the position
        is unclear: the best move has just changed, or (given ``close``, in evaluation units)
        another move's value is within ``close`` of the best. ``cpu_cap``: a search running
        past that many seconds (default: the budget) is abandoned at once.
        """
        start = time.process_time()
        cap = cpu_cap or cpu_budget
        self.node_stop = self.nodes + node_budget if node_budget else None
        return self._deepen(
            position,
            max_depth,
            cpu_budget,
            hard_budget,
            close,
            spent=lambda: time.process_time() - start,
            cost=lambda found: found.seconds,
            least=0.005,
            deadline=start + cap if cap else None,
        )

    def iterative_nodes(
        self,
        position: Position,
        max_depth: int,
        node_budget: int,
        node_cap: int,
        hard_budget: Optional[float] = None,
        close: Optional[float] = None,
    ) -> SearchResult:
        """``iterative`` with nodes for CPU seconds: a depth is begun only if it looks likely to end within
        ``node_budget`` nodes (``hard_budget``, default twice that, when the position is unclear), and a
        search past ``node_cap`` nodes in all is abandoned; depth 1 always ends. The same position and seed
        give the same move on any machine, at about the cost a CPU budget buys on the machine that measured
        how many nodes it searches."""
        start, self.close = self.nodes, close
        result = self.search(position, 1)
        self.node_stop = start + node_cap
        deeper = self._deepen(
            position,
            max_depth,
            node_budget,
            hard_budget,
            close,
            spent=lambda: self.nodes - start,
            cost=lambda found: found.nodes,
            least=1,
            deadline=None,
            first=result,
        )
        return deeper or result

    def _deepen(
        self,
        position: Position,
        max_depth: int,
        budget: Optional[float],
        hard_budget: Optional[float],
        close: Optional[float],
        spent: Callable[[], float],
        cost: Callable[[SearchResult], float],
        least: float,
        deadline: Optional[float],
        first: Optional[SearchResult] = None,
    ) -> Optional[SearchResult]:
        """The iterative deepening of ``iterative`` and ``iterative_nodes``: ``spent()`` the budget's units
        used so far, ``cost(found)`` a depth's, ``least`` the cost below which a depth's growth is noise;
        ``first``: depth 1, already searched."""
        hard = hard_budget if hard_budget is not None else 2 * (budget or 0)
        self.close = close
        result: Optional[SearchResult] = None
        unclear, last_cost, growth = False, 0.0, 4.0
        if first is not None:
            result, last_cost, unclear = first, cost(first), first.runner_up is not None
        try:
            for depth in range(2 if first is not None else 1, max_depth + 1):
                if result is not None and abs(result.value) >= WIN / 2:
                    break  # the game's result is decided: deeper cannot change it
                if result is not None and budget:
                    if spent() + last_cost * growth > (hard if unclear else budget):
                        break
                try:
                    found = self.search(position, depth, deadline if depth > 1 else None)
                except SearchTimeout:
                    break
                if result is not None and last_cost > least:
                    growth = min(max(cost(found) / last_cost, 2.0), 8.0)
                unclear = (result is not None and found.move != result.move) or found.runner_up is not None
                result, last_cost = found, cost(found)
        finally:
            self.node_stop = None
            self.close = None
        return result

    # -- the search ---------------------------------------------------------------------------
    def _ordered_moves(self, position: Position, table_move: Optional[Move], ply: int, depth: int = 0) -> List[Move]:
        """The table's move, captures by size, killers, points near the opponent's last stone
        (replies are mostly local), then history (with shape, at ``shape_depth`` and above);
        a pass last, or first when it is the table's move or when the opponent has just
        passed (then passing ends the game at once)."""
        points = points_of(position.legal_mask())
        gains = capturing_points(position)
        killers = self.killers.get(ply, ())
        history = self.history
        player = position.player
        last = position.opp & ~position.prev_opp
        near = neighbours(last | neighbours(last)) if last else 0

        shaped = self.shape_depth is not None and depth >= self.shape_depth
        own, opp = position.own, position.opp
        empty = FULL ^ own ^ opp

        def priority(point: Point) -> float:
            if point == table_move:
                return 1e12
            if point in gains:
                return 1e9 + gains[point]
            if point in killers:
                return 1e8
            value = history.get((player, point), 0) + (1e7 if near >> point & 1 else 0)
            if shaped:
                bit = 1 << point
                after = empty ^ bit
                liberties = count(neighbours(grow(bit, own | bit)) & after)
                value += 1e7 * min(liberties, 3) - (4e7 if liberties <= 1 else 0)
                touching = POINT_NEIGHBOURS[point] & opp
                if touching and count(neighbours(grow(touching, opp)) & after) == 1:
                    value += 5e7  # puts a group in atari
            return value

        points.sort(key=priority, reverse=True)
        legal: List[Move] = points  # type: ignore[assignment]  # (points, then PASS: a copy would cost)
        if table_move == PASS or (position.passed and table_move is None):
            legal.insert(0, PASS)
        else:
            legal.append(PASS)
        return legal

    def _root(self, position: Position, depth: int) -> Tuple[Move, float, Optional[float]]:
        """(move, value, runner_up) at ``depth``; with ``self.close`` set, runner_up is a value that
        another move is proved to reach within ``close`` of the best (None where none does)."""
        key = table_key(position)
        entry = self.table.get(key)
        moves = self._ordered_moves(position, entry[3] if entry else None, 0, depth)
        best_value = -INFINITY
        best_moves: List[Move] = []
        opp_stones = count(position.opp)
        for move in moves:
            child = position.play_point(move)
            captured = opp_stones - count(child.own)
            floor = best_value - TIE if self.rng is not None else best_value
            value = -self._negamax(child, depth - 1, -INFINITY, -floor, 1, -captured)
            if value > best_value + TIE or not best_moves:
                best_value, best_moves = value, [move]
            elif self.rng is not None and value >= best_value - TIE:
                best_moves.append(move)
        move = best_moves[0] if self.rng is None else self.rng.choice(best_moves)
        self.table[key] = (depth, _EXACT, best_value, move)
        runner_up = None
        if self.close is not None:
            try:
                runner_up = self._contender(position, depth, moves, move, best_value - self.close)
            except SearchTimeout:  # the depth is done: keep it, unasked
                pass
        return move, best_value, runner_up

    def _contender(
        self, position: Position, depth: int, moves: List[Move], chosen: Move, threshold: float
    ) -> Optional[float]:
        """A value above ``threshold`` that a root move other than ``chosen`` is proved to reach,
        else None: one null-window search a move (on the table the search just filled), stopping
        at the first that reaches it."""
        opp_stones = count(position.opp)
        for move in moves:
            if move == chosen:
                continue
            child = position.play_point(move)
            value = -self._negamax(child, depth - 1, -threshold - TIE, -threshold, 1, -(opp_stones - count(child.own)))
            if value > threshold:
                return value
        return None

    def _negamax(self, position: Position, depth: int, alpha: float, beta: float, ply: int, captured: int) -> float:
        self.nodes += 1
        if not self.nodes & 1023:
            if self.deadline is not None and time.process_time() > self.deadline:
                raise SearchTimeout()
            if self.node_stop is not None and self.nodes > self.node_stop:
                raise SearchTimeout()
        if position.is_over:
            return self.terminal(position)
        if self.settle is not None:
            settled = self.settle(position)
            if settled is not None:
                return settled
        if depth == 0:
            return self.evaluate(position, captured)
        key = table_key(position)
        entry = self.table.get(key)
        table_move: Optional[Move] = None
        if entry is not None:
            entry_depth, flag, value, table_move = entry
            if entry_depth >= depth:
                if flag == _EXACT:
                    return value
                if flag == _LOWER and value >= beta:
                    return value
                if flag == _UPPER and value <= alpha:
                    return value
        original_alpha = alpha
        best_value = -INFINITY
        best_move: Optional[Move] = None
        opp_stones = count(position.opp)
        for move in self._ordered_moves(position, table_move, ply, depth):
            child = position.play_point(move)
            value = -self._negamax(
                child, depth - 1, -beta, -alpha, ply + 1, -(captured + opp_stones - count(child.own))
            )
            if value > best_value:
                best_value, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if move != PASS:
                            killers = self.killers.get(ply, ())
                            if move not in killers:
                                self.killers[ply] = (move,) + killers[:1]
                            history_key = (position.player, move)
                            self.history[history_key] = self.history.get(history_key, 0) + depth * depth
                        break
        if best_value <= original_alpha:
            flag = _UPPER
        elif best_value >= beta:
            flag = _LOWER
        else:
            flag = _EXACT
        self.table[key] = (depth, flag, best_value, best_move)
        return best_value
