"""Exact play to the end of the game: who wins with perfect play, then by how many stones.

The solver is our alpha-beta searcher (``engine.search``) searching to the 24th ply, so its
leaves are finished games and no evaluation is ever asked for. Win or loss comes first,
from a search whose only values are +1 and -1 (a null window: the first winning reply
settles a node), which is far cheaper than the exact margin; the margin search (values
+-WIN plus the stone margin, komi included) then picks the best of the winning moves.
"""

from typing import Callable, Dict, List, NoReturn, Optional, Tuple

from engine.bitboard import FULL, Bitboard, count, groups, neighbours, points_of
from engine.constants import BLACK, KOMI, MAX_MOVES, PASS, Move
from engine.position import Position
from engine.search import INFINITY, WIN, Searcher, capturing_points, table_key, terminal_value


def win_loss_value(position: Position) -> float:
    """+1 if the side to move has won the finished game, else -1."""
    return 1.0 if position.margin() > 0 else -1.0


def safe_stones(stones: Bitboard, empty: Bitboard, plies: int) -> Bitboard:
    """The stones in groups with more liberties than ``plies``: a move takes at most one
    liberty from a group (a capture only gives some back), so nothing captures them in time."""
    if count(neighbours(stones) & empty) <= plies:
        return 0  # not even all the groups' liberties together are enough
    safe = 0
    for group in groups(stones):
        if count(neighbours(group) & empty) > plies:
            safe |= group
    return safe


def _last_move_wins(position: Position, margin: float, empty: Bitboard) -> bool:
    """Whether the game's last move can win: a pass keeps ``margin``, any placement adds a
    stone (a move never loses its own stones), a capture adds the stones it takes too."""
    if margin > 0:
        return True
    if margin + 1 > 0 and (empty & neighbours(empty) or position.legal_mask()):
        return True
    ko = position.ko_mask()
    return any(margin + 1 + gain > 0 for point, gain in capturing_points(position).items() if not ko >> point & 1)


def settled_win_loss(position: Position) -> Optional[float]:
    """+1 or -1 when the game's winner is certain whatever both sides play, else None.

    At the end the mover has at most its stones now plus one per move it has left, the
    opponent at least its safe stones (and the other way round)."""
    left = MAX_MOVES - position.moves_played
    own, opp = count(position.own), count(position.opp)
    komi = -KOMI if position.player == BLACK else KOMI
    empty = FULL ^ position.own ^ position.opp
    if left == 1:
        return 1.0 if _last_move_wins(position, own - opp + komi, empty) else -1.0
    if own - opp - left // 2 + komi > 0 and count(safe_stones(position.own, empty, left)) - opp - left // 2 + komi > 0:
        return 1.0
    most = own + (left + 1) // 2 + komi
    if most - opp < 0 and most - count(safe_stones(position.opp, empty, left)) < 0:
        return -1.0
    return None


def _no_evaluation(position: Position, captured: int = 0) -> NoReturn:
    raise AssertionError("the solver searches to the end: no position needs an evaluation")


def plies_left(position: Position) -> int:
    return MAX_MOVES - position.moves_played


def margin_of(value: float) -> float:
    """The stone margin (komi included) in a margin-search value."""
    return value - WIN if value > 0 else value + WIN


class Solver:
    """Exact results, with transposition tables kept across calls (one game's positions share them)."""

    def __init__(self) -> None:
        # shape ordering from 6 plies left: 14 positions at ply 10, 49.5 s -> 31.1 s of CPU
        self.win_loss = Searcher(_no_evaluation, terminal=win_loss_value, settle=settled_win_loss, shape_depth=6)
        self.margins = Searcher(_no_evaluation, terminal=terminal_value, shape_depth=6)

    @property
    def nodes(self) -> int:
        return self.win_loss.nodes + self.margins.nodes

    def wins(self, position: Position, deadline: Optional[float] = None) -> bool:
        """Whether the side to move wins with perfect play; SearchTimeout past ``deadline``."""
        if position.is_over:
            return win_loss_value(position) > 0
        return self.win_loss.value(position, plies_left(position), -1.0, 1.0, deadline) > 0

    def winning_moves(self, position: Position, deadline: Optional[float] = None) -> List[Move]:
        """Every move that keeps a won position won (empty when the position is lost)."""
        moves: List[Move] = [*points_of(position.legal_mask()), PASS]
        return [move for move in moves if not self.wins(position.play_point(move), deadline)]

    def winning_move(self, position: Position, deadline: Optional[float] = None) -> Optional[Move]:
        """A move that wins, or None when every move loses; SearchTimeout past ``deadline``.

        One search of the position, its moves in the searcher's order (captures, killers,
        replies near the last stone...): the move that settled it is in the table."""
        if not self.wins(position, deadline):
            return None
        entry = self.win_loss.table.get(table_key(position))
        if entry is not None and entry[3] is not None and not self.wins(position.play_point(entry[3]), deadline):
            return entry[3]
        moves: List[Move] = [PASS, *points_of(position.legal_mask())]
        for move in moves:  # settled without a search: any move
            if not self.wins(position.play_point(move), deadline):
                return move
        return None

    def margin(self, position: Position, deadline: Optional[float] = None) -> float:
        """The exact margin for the side to move with perfect play (won games first, then stones)."""
        if position.is_over:
            return position.margin()
        return margin_of(self.margins.value(position, plies_left(position), -INFINITY, INFINITY, deadline))

    def best_move(self, position: Position, deadline: Optional[float] = None) -> Tuple[Move, float]:
        """(the move of best exact value, its margin): a win if there is one, by the most stones."""
        result = self.margins.search(position, plies_left(position), deadline)
        return result.move, margin_of(result.value)

    def move_values(
        self,
        position: Position,
        deadline: Optional[float] = None,
        progress: Optional[Callable[[int, int], None]] = None,
    ) -> Dict[Move, float]:
        """{move: the mover's exact margin after it}, for every legal move and PASS;
        ``progress(done, total)`` hears of each move settled."""
        values: Dict[Move, float] = {}
        moves: List[Move] = [*points_of(position.legal_mask()), PASS]
        for move in moves:
            values[move] = -self.margin(position.play_point(move), deadline)
            if progress:
                progress(len(values), len(moves))
        return values
