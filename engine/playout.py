"""Random playouts: uniformly random legal placements, PASS only when none exists."""

import random as _random

from engine.bitboard import points_of
from engine.constants import PASS


def random_point(position, rng):
    """A uniformly random legal placement (flat point), or PASS when there is none."""
    legal = points_of(position.legal_mask())
    return rng.choice(legal) if legal else PASS


def random_playout(position, rng=None, max_plies=None):
    """Play random moves from ``position`` until the game ends (or ``max_plies``); return the last position."""
    rng = rng or _random.Random()
    plies = 0
    while not position.is_over and (max_plies is None or plies < max_plies):
        position = position.play_point(random_point(position, rng))
        plies += 1
    return position
