"""The board page's game: moves from the empty board as the browser sends them, the position
they lead to as the page draws it, and SGF in and out.

The browser keeps the game as a list of moves (points 0..24 or ``"PASS"``) and sends it
with every request, so the server holds no game state: each answer is a function of the
moves alone. The rules are ``engine.position``'s: a refused move carries its reason.
"""

from typing import Dict, Iterable, List, NamedTuple, Optional, cast

from engine.book import Book
from engine.constants import BLACK, MAX_MOVES, NUM_POINTS, Colour, Move, Point, colour_word
from engine.coords import is_move
from engine.play.sgf import game_sgf, read_game
from engine.position import IllegalMove, Position
from engine.ui.board import game_result, move_and_vertex, verdict


class BadRequest(ValueError):
    """A request the page never sends: the message says what is wrong with it."""


class PositionView(NamedTuple):
    """A position as the page draws it: ``points`` the colour on each point (0 empty, 1
    Black, 2 White), ``legal`` the legal placements, ``last`` the last move, ``score`` (Black's,
    White's with komi), ``verdict`` the result in words once the game is over, ``book`` the
    opening book's move here (None where it has none)."""

    moves: List[Move]
    ply: int
    player: str
    over: bool
    points: List[Colour]
    legal: List[Point]
    last: Optional[Move]
    score: Dict[str, float]
    plies_left: int
    verdict: Optional[str]
    book: Optional[Move]


def read_moves(value: object, what: str = "moves") -> List[Move]:
    """The moves of a request (a list of points and "PASS"); BadRequest naming the bad one."""
    if not isinstance(value, list):
        raise BadRequest(f'{what} must be a list of moves (points 0..{NUM_POINTS - 1} or "PASS")')
    if len(value) > MAX_MOVES:
        raise BadRequest(f"{what}: a game has at most {MAX_MOVES} moves, not {len(value)}")
    for number, move in enumerate(value, 1):
        if not is_move(move):
            raise BadRequest(f'{what}: move {number} is {move!r}, not a point 0..{NUM_POINTS - 1} or "PASS"')
    return list(value)


def position_after(moves: Iterable[Move]) -> Position:
    """The position after ``moves`` from the empty board; BadRequest naming the move the rules refuse."""
    position = Position.initial()
    for number, move in enumerate(moves, 1):
        try:
            position = position.play_point(move)
        except IllegalMove as error:
            raise BadRequest(f"move {number} ({move_and_vertex(move)}): {error}")
    return position


def with_move(moves: List[Move], move: object) -> List[Move]:
    """The moves with ``move`` played after them; IllegalMove with the rule that forbids it."""
    if not is_move(move):
        raise BadRequest(f'move must be a point 0..{NUM_POINTS - 1} or "PASS", not {move!r}')
    checked = cast(Move, move)  # is_move says so
    position_after(moves).play_point(checked)
    return moves + [checked]


def view(moves: List[Move], book: Optional[Book] = None) -> PositionView:
    """The PositionView after ``moves`` (``book``: the opening book whose move to show, if any)."""
    position = position_after(moves)
    black, white = position.score()
    return PositionView(
        moves=moves,
        ply=position.moves_played,
        player=colour_word(position.player),
        over=position.is_over,
        points=[position.colour_at(point) for point in range(NUM_POINTS)],
        legal=position.legal_points(),
        last=moves[-1] if moves else None,
        score={"black": black, "white": white},
        plies_left=MAX_MOVES - position.moves_played,
        verdict=verdict(position) if position.is_over else None,
        book=book.move(position) if book is not None else None,
    )


def sgf_of(moves: List[Move], black: object, white: object) -> str:
    """The SGF text of the game, its result recorded once it is over."""
    return game_sgf(moves, str(black)[:100], str(white)[:100], game_result(position_after(moves))).decode("utf-8")


class OpenedGame(NamedTuple):
    """An SGF record opened for the page: its moves (points, PASS), the players' names and the result."""

    moves: List[Move]
    black: Optional[str]
    white: Optional[str]
    result: Optional[str]


def open_sgf(data: bytes) -> OpenedGame:
    """The moves, players and recorded result of an SGF record; SgfError or BadRequest saying what
    is wrong (the board starts from the empty board, so set-up stones are refused)."""
    game = read_game(data, "the SGF file")
    start = game.positions[0]
    if start.black or start.white or start.player != BLACK:
        raise BadRequest("the SGF file starts from set-up stones; the board plays games from the empty board")
    return OpenedGame(list(game.moves), game.black, game.white, game.result)
