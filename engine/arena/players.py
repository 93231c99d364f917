"""The player interface, the course's scripted opponents, and our searcher as a player.

A player is told a game starts (``new_game``), is asked for moves (``move``: position
in, flat point or PASS out, for every kind of player) and is closed at the end. The
course's opponents, as its assignment describes them:

- ``random``: a uniformly random legal placement, PASS only when none exists;
- ``greedy``: the placement capturing the most stones, ties broken at random;
- ``aggressive``: two plies ahead: the placement maximising its captures minus the
  opponent's best capture in reply, ties at random;
- ``alphabeta``: minimax with alpha-beta at depth 2 over at most 10 candidates
  (the best by one-ply material), material evaluation.

``AgentPlayer`` is our search with a set of Params. Program and GNU Go players live in
``program`` and ``gnugo``; ``specs`` builds any player from its spec string.
"""

import random
import time

from engine.bitboard import count, points_of
from engine.constants import MAX_MOVES, PASS
from engine.agent import choose_move
from engine.params import make_evaluator
from engine.playout import random_point
from engine.search import Searcher

# Why a player lost without an illegal placement of its own making.
TIMEOUT, CRASH, BAD_OUTPUT, ILLEGAL = "timeout", "crash", "bad-output", "illegal"


class PlayerFault(Exception):
    """A player failed to produce a legal move; ``reason`` is TIMEOUT, CRASH, BAD_OUTPUT or ILLEGAL."""

    def __init__(self, reason, detail):
        super(PlayerFault, self).__init__("{}: {}".format(reason, detail))
        self.reason, self.detail = reason, detail


class Player(object):
    """Base player: subclasses implement ``move``; ``timed_move`` adds the CPU seconds used."""

    spec = "player"

    def new_game(self, colour, seed):
        """A game starts; ``seed`` makes the player's random choices reproducible."""
        self.colour = colour
        self.rng = random.Random(seed)

    def move(self, position):
        """The move (flat point or PASS) for ``position``."""
        raise NotImplementedError

    def timed_move(self, position):
        """(move, CPU seconds spent choosing it)."""
        start = time.process_time()
        move = self.move(position)
        return move, time.process_time() - start

    def close(self):
        """The game is over: release whatever the player holds."""


def _captures(position, point):
    """Stones captured by placing at ``point`` (a legal placement)."""
    return count(position.opp) - count(position.play_point(point).own)


def _best_by(points, score, rng):
    """A random choice among the points of highest score."""
    best, chosen = None, []
    for point in points:
        value = score(point)
        if best is None or value > best:
            best, chosen = value, [point]
        elif value == best:
            chosen.append(point)
    return rng.choice(chosen)


class RandomPlayer(Player):
    spec = "random"

    def move(self, position):
        return random_point(position, self.rng)


class _ScoringPlayer(Player):
    """Plays the legal placement of highest ``score``, ties at random; PASS when none exists."""

    def score(self, position, point):
        raise NotImplementedError

    def move(self, position):
        legal = points_of(position.legal_mask())
        if not legal:
            return PASS
        return _best_by(legal, lambda point: self.score(position, point), self.rng)


class GreedyPlayer(_ScoringPlayer):
    spec = "greedy"

    def score(self, position, point):
        return _captures(position, point)


class AggressivePlayer(_ScoringPlayer):
    spec = "aggressive"

    def score(self, position, point):
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

    def _candidates(self, position):
        """Up to ``branching`` (move, child) pairs, the best one-ply material first."""
        children = [(point, position.play_point(point)) for point in points_of(position.legal_mask())]
        self.rng.shuffle(children)                   # random among equal material
        # the child's margin is the opponent's: the smallest is the best material for us
        children.sort(key=lambda pair: pair[1].margin())
        return children[:self.branching] or [(PASS, position.play_point(PASS))]

    def _value(self, position, depth, alpha, beta):
        if position.is_over or depth == 0:
            return position.margin()
        best = -float("inf")
        for _, child in self._candidates(position):
            best = max(best, -self._value(child, depth - 1, -beta, -alpha))
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        return best

    def move(self, position):
        best, chosen = None, []
        for point, child in self._candidates(position):
            value = -self._value(child, self.depth - 1, -float("inf"), float("inf"))
            if best is None or value > best:
                best, chosen = value, [point]
            elif value == best:
                chosen.append(point)
        return self.rng.choice(chosen)


class AgentPlayer(Player):
    """Our agent with Params. Timed, it plays as ``my_player3.py`` does (``engine.agent.choose_move``:
    the opening book's move if it is given one, the exact solver late, the CPU budget), at
    ``depth`` at most if given. Untimed, it searches
    to a fixed depth, so that a move depends only on the position and the seed, never on the
    machine's speed (as evolution needs).
    """

    def __init__(self, params, depth=None, spec="agent", timed=True, book=None):
        # A depth given means a plain search to that depth: no exact solving late in the game.
        self.params = params if depth is None else params._replace(depth=depth, solve_from=MAX_MOVES)
        self.book = book                # the opening book, played first when timed (as my_player3.py does)
        self.depth = self.params.depth
        self.timed = timed
        self.evaluate = make_evaluator(params.weights)
        self.spec = spec

    def new_game(self, colour, seed):
        Player.new_game(self, colour, seed)
        self.searcher = Searcher(self.evaluate, rng=self.rng)

    def move(self, position):
        if self.timed:
            return choose_move(position, self.params, self.rng, self.book)
        return self.searcher.iterative(position, self.depth).move
