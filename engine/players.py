"""Players behind one small interface, each built from a short spec string.

A player is told a game starts (``new_game``), is asked for moves (``move``: position
in, flat point or PASS out) and is closed at the end. Specs:

- ``random``: a uniformly random legal placement, PASS only when none exists;
- ``greedy``: the placement capturing the most stones, ties broken at random;
- ``aggressive``: two plies ahead: the placement maximising its captures minus the
  opponent's best capture in reply, ties at random;
- ``alphabeta``: minimax with alpha-beta at depth 2 over at most 10 candidates
  (the best by one-ply material), material evaluation, as the course's opponent;
- ``agent[:PARAMS][@DEPTH]``: our searcher with a params file (default: the shipped
  ``params.json``) at that file's depth or ``DEPTH``;
- ``champion``: the shipped agent at its configured depth and CPU budget;
- ``handset[@DEPTH]``: our searcher with the built-in hand-set default weights, a fixed
  reference that does not change when ``params.json`` does;
- ``cmd:DIR[::COMMAND]``: a program speaking the course file protocol, run once per move
  in a private copy of DIR (default command: ``python3 my_player3.py``);
- ``gnugo[:LEVEL]``: GNU Go over GTP (see ``engine.gnugo``).
"""

import os
import random
import time

from engine.bitboard import count, points_of
from engine.constants import PASS
from engine.playout import random_point

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIPPED_PARAMS = os.path.join(ROOT, "params.json")


class PlayerFault(Exception):
    """A player failed to produce a move; ``reason`` is timeout, crash or bad-output."""

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
    """Our searcher with a params file, at its depth (or a given one) and CPU budget."""

    def __init__(self, params_path=SHIPPED_PARAMS, depth=None, spec=None, params=None):
        from engine.params import load_params, make_evaluator
        self.params = params if params is not None else load_params(params_path)
        self.depth = depth or self.params.depth
        self.evaluate = make_evaluator(self.params.weights)
        self.spec = spec or "agent:{}@{}".format(params_path, self.depth)

    def new_game(self, colour, seed):
        from engine.search import Searcher
        Player.new_game(self, colour, seed)
        self.searcher = Searcher(self.evaluate, rng=self.rng)

    def move(self, position):
        return self.searcher.iterative(position, self.depth, self.params.cpu_budget).move


def make_player(spec, cpu_limit=None):
    """A player from its spec string; ValueError naming what is wrong with the spec.

    ``cpu_limit`` (seconds a move) is enforced on program players (``cmd:``).
    """
    spec = spec.strip()
    name, _, argument = spec.partition(":")
    simple = {"random": RandomPlayer, "greedy": GreedyPlayer, "aggressive": AggressivePlayer,
              "alphabeta": AlphaBetaPlayer}
    if name in simple:
        if argument:
            raise ValueError("player {!r} takes no argument (got {!r})".format(name, argument))
        return simple[name]()
    if name == "champion" and not argument:
        return AgentPlayer(SHIPPED_PARAMS, spec="champion")
    if name.startswith("handset"):
        from engine.params import default_params
        depth_text = spec[len("handset"):]
        if depth_text and not (depth_text.startswith("@") and depth_text[1:].isdigit()
                               and 1 <= int(depth_text[1:]) <= 12):
            raise ValueError("player {!r}: expected handset or handset@DEPTH (1..12)".format(spec))
        return AgentPlayer(params=default_params(), depth=int(depth_text[1:]) if depth_text else None, spec=spec)
    if name.startswith("agent"):
        from engine.params import ParamsError
        rest = spec[len("agent"):]
        depth = None
        if "@" in rest:
            rest, _, depth_text = rest.rpartition("@")
            if not depth_text.isdigit() or not 1 <= int(depth_text) <= 12:
                raise ValueError("player {!r}: depth must be an integer 1..12".format(spec))
            depth = int(depth_text)
        if rest and not rest.startswith(":"):
            raise ValueError("unknown player {!r}".format(spec))
        path = rest[1:] or SHIPPED_PARAMS
        try:
            return AgentPlayer(path, depth, spec=spec)
        except ParamsError as error:
            raise ValueError("player {!r}: {}".format(spec, error))
    if name == "cmd":
        from engine.host import ProgramPlayer
        directory, _, command = argument.partition("::")
        if not directory:
            raise ValueError("player {!r}: expected cmd:DIR[::COMMAND]".format(spec))
        return ProgramPlayer(directory, command or None, spec=spec,
                             **({"cpu_limit": cpu_limit} if cpu_limit else {}))
    if name == "gnugo":
        from engine.gnugo import GnuGoPlayer
        if argument and not (argument.isdigit() and 0 <= int(argument) <= 10):
            raise ValueError("player {!r}: the GNU Go level is an integer 0..10".format(spec))
        return GnuGoPlayer(int(argument) if argument else None, spec=spec)
    raise ValueError("unknown player {!r} (known: random, greedy, aggressive, alphabeta, "
                     "agent[:PARAMS][@DEPTH], champion, handset[@DEPTH], cmd:DIR[::COMMAND], gnugo[:LEVEL])".format(spec))
