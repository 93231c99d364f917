"""The course's scripted opponents, as its assignment describes them.

- ``random``: a uniformly random legal placement, PASS only when none exists;
- ``greedy``: the placement capturing the most stones, ties broken at random;
- ``aggressive``: two plies ahead: the placement maximising its captures minus the
  opponent's best capture in reply, ties at random;
- ``alphabeta``: minimax with alpha-beta at depth 2 over at most 10 candidates
  (the best by one-ply material), material evaluation.
"""

import random
from typing import Callable, Iterable, List, Optional, Tuple

from engine.bitboard import count, points_of
from engine.constants import PASS, Move, Point
from engine.players.base import Player
from engine.playout import random_point
from engine.position import Position


def _captures(position: Position, point: Point) -> int:
    """Stones captured by placing at ``point`` (a legal placement)."""
    return count(position.opp) - count(position.play_point(point).own)


def _best_by(points: Iterable[Point], score: Callable[[Point], float], rng: random.Random) -> Point:
    """A random choice among the points of highest score."""
    best: Optional[float] = None
    chosen: List[Point] = []
    for point in points:
        value = score(point)
        if best is None or value > best:
            best, chosen = value, [point]
        elif value == best:
            chosen.append(point)
    return rng.choice(chosen)


class RandomPlayer(Player):
    spec = "random"

    def move(self, position: Position) -> Move:
        return random_point(position, self.rng)


class _ScoringPlayer(Player):
    """Plays the legal placement of highest ``score``, ties at random; PASS when none exists."""

    def score(self, position: Position, point: Point) -> float:
        raise NotImplementedError

    def move(self, position: Position) -> Move:
        legal = points_of(position.legal_mask())
        if not legal:
            return PASS
        return _best_by(legal, lambda point: self.score(position, point), self.rng)


class GreedyPlayer(_ScoringPlayer):
    spec = "greedy"

    def score(self, position: Position, point: Point) -> float:
        return _captures(position, point)


class AggressivePlayer(_ScoringPlayer):
    spec = "aggressive"

    def score(self, position: Position, point: Point) -> float:
        """Stones captured now minus the most the opponent can capture in reply."""
        child = position.play_point(point)
        gained = count(position.opp) - count(child.own)
        replies = points_of(child.legal_mask())
        lost = max([count(child.opp) - count(child.play_point(r).own) for r in replies] or [0])
        return gained - lost


class AlphaBetaPlayer(Player):
    """The course's alpha-beta opponent: depth 2, at most 10 candidates, material evaluation."""

    spec = "alphabeta"
    depth = 2
    branching = 10

    def _candidates(self, position: Position) -> List[Tuple[Move, Position]]:
        """Up to ``branching`` (move, child) pairs, the best one-ply material first."""
        children: List[Tuple[Move, Position]] = [
            (point, position.play_point(point)) for point in points_of(position.legal_mask())
        ]
        self.rng.shuffle(children)  # random among equal material
        # the child's margin is the opponent's: the smallest is the best material for us
        children.sort(key=lambda pair: pair[1].margin())
        return children[: self.branching] or [(PASS, position.play_point(PASS))]

    def _value(self, position: Position, depth: int, alpha: float, beta: float) -> float:
        if position.is_over or depth == 0:
            return position.margin()
        best = -float("inf")
        for _, child in self._candidates(position):
            best = max(best, -self._value(child, depth - 1, -beta, -alpha))
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        return best

    def move(self, position: Position) -> Move:
        best: Optional[float] = None
        chosen: List[Move] = []
        for point, child in self._candidates(position):
            value = -self._value(child, self.depth - 1, -float("inf"), float("inf"))
            if best is None or value > best:
                best, chosen = value, [point]
            elif value == best:
                chosen.append(point)
        return self.rng.choice(chosen)
