"""A game that reaches a solved position: the moves the board of ``littlego serve`` replays to show it.

A solved position has no history, only its board, the board before the last move (for the KO rule), its
ply and the side to move; the board page names a position by the moves that reach it from the empty board
(``#/board?moves=C3,B4,pass``, GTP vertices). ``moves_to`` makes such moves: the stones of the board before
the last move placed colour by colour in turn, without a capture, a pass where a colour has fewer stones
than turns (never two in a row, never Black's first move: either would end the game), then the last move
itself. No placement can capture or be suicide: every group of a real board has a liberty, and a stone
placed early has at least the liberties its whole group will have. The moves are replayed as the board
page replays them (``engine.ui.web.board_game.position_after``: the rules from the empty board) and must
reach exactly the position asked for; ``NoHistory`` says where none does (a board no game reaches).
"""

from functools import lru_cache
from typing import List, Optional, Tuple

from engine.bitboard import points_of
from engine.constants import BLACK, EMPTY, PASS, WHITE, Colour, Move, colour_word
from engine.errors import UserError
from engine.players.gtp import point_to_vertex
from engine.position import Position
from engine.ui.web.board_game import BadRequest, position_after

BOARD_PAGE = "#/board"  # the board page's place in the address of ``littlego serve``


class NoHistory(UserError, ValueError):
    """A position that no game of these rules reaches by the moves ``moves_to`` tries."""


def _mover(ply: int) -> Colour:
    """The colour that plays the move at ``ply`` (Black moves first)."""
    return BLACK if ply % 2 == 0 else WHITE


def _turns(black: int, white: int, plies: int, then_pass: bool) -> Optional[Tuple[bool, ...]]:
    """For ``plies`` moves from the empty board that place ``black`` and ``white`` stones: whether each move
    passes, with no two passes in a row and no pass first, nor last where a pass follows (``then_pass``);
    None where no such order exists."""

    @lru_cache(maxsize=None)
    def order(ply: int, black_left: int, white_left: int, passed: bool) -> Optional[Tuple[bool, ...]]:
        if ply == plies:
            return () if black_left == white_left == 0 and not (passed and then_pass) else None
        own = black_left if _mover(ply) == BLACK else white_left
        if own:  # a stone of the mover's, placed
            rest = order(
                ply + 1, black_left - (_mover(ply) == BLACK), white_left - (_mover(ply) == WHITE), passed=False
            )
            if rest is not None:
                return (False,) + rest
        if ply and not passed:  # a pass: never the first move (it ends the game), never after one
            rest = order(ply + 1, black_left, white_left, passed=True)
            if rest is not None:
                return (True,) + rest
        return None

    return order(0, black, white, False)


def _last_move(position: Position) -> Tuple[Move, Position]:
    """(the move that made ``position``, the position's board before it as a Position of its mover's turn)."""
    mover = _mover(position.moves_played - 1)
    before = Position.from_boards(mover, position.previous_string(), position.previous_string(), 0)
    if position.passed:
        return PASS, before
    placed = points_of(position.opp & ~position.prev_opp)  # the mover's stone new on the board
    if len(placed) != 1 or before.colour_at(placed[0]) != EMPTY:
        raise NoHistory(f"no single move turns the previous board into this one:\n{position}")
    return placed[0], before


def moves_to(position: Position) -> List[Move]:
    """Moves from the empty board that reach ``position`` exactly (board, previous board, ply, side to
    move); NoHistory where the rules reach it by none of them."""
    plies = position.moves_played
    if position.player != _mover(plies):
        raise NoHistory(f"{colour_word(position.player)} to move after {plies} plies: Black moves at even plies")
    if plies == 0:
        moves: List[Move] = []
    else:
        last, before = _last_move(position)
        stones = {colour: points_of(before.own if colour == before.player else before.opp) for colour in (BLACK, WHITE)}
        turns = _turns(len(stones[BLACK]), len(stones[WHITE]), plies - 1, last == PASS)
        if turns is None:
            raise NoHistory(f"the stones of the board before the last move fit no {plies - 1} plies:\n{position}")
        placing = {colour: iter(points) for colour, points in stones.items()}
        moves = [PASS if passes else next(placing[_mover(ply)]) for ply, passes in enumerate(turns)]
        moves.append(last)
    replayed = shown_position(moves)
    if replayed != position:
        raise NoHistory(f"the moves {board_address(moves)} reach another position:\n{replayed}\nnot\n{position}")
    return moves


def shown_position(moves: List[Move]) -> Position:
    """The position the board page shows for ``moves`` (``board_game.position_after``: the rules from the
    empty board); NoHistory naming a move they refuse."""
    try:
        return position_after(moves)
    except BadRequest as error:
        raise NoHistory(f"{board_address(moves)}: {error}")


def board_address(moves: List[Move]) -> str:
    """The board page's place in the address of ``littlego serve`` showing the position ``moves`` reach
    (``#/board?moves=C3,B4,pass``); it follows the address the server prints (with its token)."""
    return BOARD_PAGE + ("?moves=" + ",".join(point_to_vertex(move) for move in moves) if moves else "")
