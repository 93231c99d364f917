"""Random moves: the one uniformly random legal move, and games and openings made of them."""

import random
from typing import List, Optional, Tuple

from engine.bitboard import points_of
from engine.constants import PASS, Move
from engine.position import Position


def random_point(position: Position, rng: random.Random) -> Move:
    """A uniformly random legal placement (flat point), or PASS when there is none."""
    legal = points_of(position.legal_mask())
    return rng.choice(legal) if legal else PASS


def random_playout(
    position: Position, rng: random.Random, max_plies: Optional[int] = None
) -> Tuple[Position, List[Move]]:
    """Random moves from ``position`` until the game ends (or ``max_plies``): (last position, moves)."""
    moves: List[Move] = []
    while not position.is_over and (max_plies is None or len(moves) < max_plies):
        move = random_point(position, rng)
        moves.append(move)
        position = position.play_point(move)
    return position, moves


# The longest openings a match plays every one of: up to three plies each is as likely as any other
# to be drawn at random (from four, a point made suicide by the stones before it makes some likelier),
# and there are 13,800 of three plies (303,600 of four).
SEQUENCES_MOST_PLIES = 3


def opening_sequences(plies: int) -> List[Tuple[Move, ...]]:
    """Every sequence of ``plies`` legal placements from the empty board, in order of the points: the
    openings ``random_opening`` draws from (25 of one ply, 600 of two, 13,800 of three). Unlike
    ``engine.play.openings.every_opening`` (the distinct positions, under symmetry), sequences that
    reach one position by two orders or turned are each kept."""
    openings: List[Tuple[Tuple[Move, ...], Position]] = [((), Position.initial())]
    for _ in range(plies):
        openings = [
            (moves + (point,), position.play_point(point))
            for moves, position in openings
            for point in points_of(position.legal_mask())
        ]
    return [moves for moves, _ in openings]


def random_opening(plies: int, seed: int) -> Tuple[Position, List[Move]]:
    """The position after ``plies`` random moves from the empty board, reproducibly from ``seed``: (position, moves)."""
    return random_playout(Position.initial(), random.Random(seed), plies)
