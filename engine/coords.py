"""Conversions between the engine's flat points and the course's (i, j) / "i,j" forms."""

from typing import Any, Tuple

from engine.constants import BOARD_SIZE, NUM_POINTS, PASS, Move, Point
from engine.errors import InvalidInput


def on_board(i: int, j: int) -> bool:
    """Whether row ``i``, column ``j`` is a point of the board."""
    return 0 <= i < BOARD_SIZE and 0 <= j < BOARD_SIZE


def is_move(value: object) -> bool:
    """Whether ``value`` is a move: a point 0..24 or PASS."""
    return value == PASS or (isinstance(value, int) and not isinstance(value, bool) and 0 <= value < NUM_POINTS)


def to_point(i: int, j: int) -> Point:
    """Flat point of row ``i``, column ``j``; ValueError when off the board."""
    if not on_board(i, j):
        raise InvalidInput(f"({i}, {j}) is off the {BOARD_SIZE}x{BOARD_SIZE} board")
    return BOARD_SIZE * i + j


def to_ij(point: Point) -> Tuple[int, int]:
    """(i, j) of a flat point."""
    return divmod(point, BOARD_SIZE)


def move_from_public(move: Any) -> Move:
    """Engine move (point or PASS) from a public move ((i, j) or PASS)."""
    if move == PASS:
        return PASS
    try:
        i, j = move
    except (TypeError, ValueError):
        raise InvalidInput(f"a move is (i, j) or PASS, not {move!r}")
    if not isinstance(i, int) or not isinstance(j, int):
        raise InvalidInput(f"a move's coordinates are integers, not {move!r}")
    return to_point(i, j)


def move_to_text(move: Move) -> str:
    """The course's text for a move: ``"i,j"`` or ``"PASS"``."""
    if move == PASS:
        return PASS
    i, j = divmod(move, BOARD_SIZE)
    return f"{i},{j}"


def move_from_text(text: str) -> Move:
    """Engine move from the course's text; ValueError naming the text when it is not one."""
    text = text.strip()
    if text == PASS:
        return PASS
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().lstrip("-").isdigit() for p in parts):
        raise InvalidInput(f"{text!r} is not a move: expected 'i,j' or 'PASS'")
    return to_point(int(parts[0]), int(parts[1]))
