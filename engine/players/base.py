"""The player interface: how the tools ask any player for a move, and how a player fails.

A player is told a game starts (``new_game``), is asked for moves (``move``: position
in, flat point or PASS out, for every kind of player) and is closed at the end.
"""

import enum
import random
import time
from typing import Tuple

from engine.constants import Colour, Move
from engine.position import Position


class Reason(str, enum.Enum):
    """How a game ended: by the rules (``END``), or by a player's fault that lost it."""

    END = "end"  # the game's own end: two passes or the last ply
    ILLEGAL = "illegal"  # a placement the rules refuse
    TIMEOUT = "timeout"  # over the CPU limit of a move, or no answer in time
    CRASH = "crash"  # the player's process or code failed
    BAD_OUTPUT = "bad-output"  # an answer that is no move at all

    def __str__(self) -> str:
        return self.value


class PlayerFault(Exception):
    """A player failed to produce a legal move; ``reason`` is TIMEOUT, CRASH, BAD_OUTPUT or ILLEGAL."""

    def __init__(self, reason: Reason, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


class Player:
    """Base player: subclasses implement ``move``; ``timed_move`` adds the CPU seconds used."""

    spec = "player"
    colour: Colour  # the player's colour in the game it plays (set by new_game)
    rng: random.Random  # its random choices in the game, seeded by new_game

    def new_game(self, colour: Colour, seed: int) -> None:
        """A game starts; ``seed`` makes the player's random choices reproducible."""
        self.colour = colour
        self.rng = random.Random(seed)

    def move(self, position: Position) -> Move:
        """The move (flat point or PASS) for ``position``."""
        raise NotImplementedError

    def timed_move(self, position: Position) -> Tuple[Move, float]:
        """(move, CPU seconds spent choosing it)."""
        start = time.process_time()
        move = self.move(position)
        return move, time.process_time() - start

    def close(self) -> None:
        """The game is over: release whatever the player holds."""
