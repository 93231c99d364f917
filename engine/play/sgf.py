"""Games as SGF (FF[4], through sgfmill): written by matches (``--sgf``: ``write_sgf_games``) and
``littlego play``, read by ``littlego replay`` and the GTP engine's ``loadsgf``, and judged by our rules
on the way in.
"""

import os
import stat
from typing import Any, Iterable, List, NamedTuple, Optional, Tuple, Union

from sgfmill import sgf

from engine.bitboard import FULL, groups, neighbours, points_of
from engine.constants import BLACK, BOARD_SIZE, KOMI, MAX_MOVES, PASS, WHITE, Colour, Move, Point, colour_word, opponent
from engine.coords import move_to_text, to_ij, to_point
from engine.errors import UserError
from engine.play.game import MatchGame
from engine.players.base import Reason
from engine.position import IllegalMove, Position
from engine.protocol import write_atomic

_COLOUR = {BLACK: "b", WHITE: "w"}
SgfPoint = Tuple[int, int]  # sgfmill's (row from the bottom, column)


class SgfError(UserError, ValueError):
    """A file that is not a Little-Go game record; the message names the file and, for a move, which."""


class NotARecord(SgfError):
    """Bytes that hold no SGF game record at all."""


class SgfFileError(SgfError):
    """A named file that is not read as a record: missing or unreadable, not a regular file (a FIFO, a
    device), or larger than SGF_FILE_BYTES; the message names the file and why."""


SGF_FILE_BYTES = 2**20  # the largest record file read: a Little-Go game is a few kB
_READ_CHUNK = 65536


def read_sgf_file(path: str, limit: int = SGF_FILE_BYTES) -> bytes:
    """The bytes of the regular file at ``path`` (a link followed), at most ``limit`` of them; SgfFileError
    otherwise. Never opens a FIFO or a device for what it is, nor reads past ``limit``."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise SgfFileError(f"{path}: not a regular file")
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise SgfFileError(f"{path}: cannot be read ({error.strerror or error})")
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):  # replaced since it was looked at
            raise SgfFileError(f"{path}: not a regular file")
        data = b""
        while len(data) <= limit:
            chunk = os.read(handle, min(_READ_CHUNK, limit + 1 - len(data)))
            if not chunk:
                break
            data += chunk
    except OSError as error:
        raise SgfFileError(f"{path}: cannot be read ({error.strerror or error})")
    finally:
        os.close(handle)
    if len(data) > limit:
        raise SgfFileError(f"{path}: larger than {limit:,} bytes, which no Little-Go record is")
    return data


class Replay(NamedTuple):
    """A game read back: ``positions[k]`` is the position before ``moves[k]`` (the last
    one after the last move); ``moves`` are points or PASS; player names and the recorded result."""

    positions: List[Position]
    moves: List[Move]
    black: Optional[str]
    white: Optional[str]
    result: Optional[str]


def result_text(winner: Optional[Colour], black_stones: int, white_stones: int, by_fault: bool = False) -> str:
    """SGF's RE value: ``B+3.5``, ``W+2.5``, or ``B+F``/``W+F`` when the loser forfeited."""
    if by_fault:
        return "{}+F".format("B" if winner == BLACK else "W")
    return "{}+{}".format("B" if winner == BLACK else "W", abs(black_stones - white_stones - KOMI))


def game_sgf(
    moves: Iterable[Union[Move, str]],
    black: str = "Black",
    white: str = "White",
    result: Optional[str] = None,
    comment: Optional[str] = None,
    start: Optional[Position] = None,
) -> bytes:
    """The SGF text (bytes) of a game: ``moves`` (points or PASS, or the course's text) from ``start``."""
    game = sgf.Sgf_game(size=BOARD_SIZE)
    root = game.get_root()
    root.set("KM", KOMI)
    root.set("PB", black)
    root.set("PW", white)
    if result:
        root.set("RE", result)
    if comment:
        root.set("GC", comment)
    position = start or Position.initial()
    if position.black or position.white:
        root.set_setup_stones(
            [_sgf_point(p) for p in range(BOARD_SIZE * BOARD_SIZE) if position.colour_at(p) == BLACK],
            [_sgf_point(p) for p in range(BOARD_SIZE * BOARD_SIZE) if position.colour_at(p) == WHITE],
        )
        root.set("PL", _COLOUR[position.player])
    colour = position.player
    for move in moves:
        if isinstance(move, str) and move != PASS:
            i, j = (int(x) for x in move.split(","))
            move = to_point(i, j)
        # a move still text is PASS: any other was made a point above
        game.extend_main_sequence().set_move(_COLOUR[colour], None if isinstance(move, str) else _sgf_point(move))
        colour = opponent(colour)
    text: bytes = game.serialise()
    return text


def sgf_name(index: int) -> str:
    """The name ``--sgf`` gives game ``index``'s record."""
    return f"game-{index:04d}.sgf"


def game_record_sgf(game: MatchGame) -> bytes:
    """A MatchGame as the SGF record ``--sgf`` writes: players, result (a forfeit as ``+F``) and the
    detail of how it ended."""
    result = result_text(game.winner, game.black_stones, game.white_stones, game.reason != Reason.END)
    return game_sgf(game.moves, game.black, game.white, result, game.detail or None)


def write_sgf_games(directory: str, results: Iterable[MatchGame]) -> None:
    """Every game (MatchGames) as an SGF file in ``directory``, named by ``sgf_name``."""
    if not os.path.isdir(directory):
        os.makedirs(directory)
    for game in results:
        write_atomic(os.path.join(directory, sgf_name(game.index)), game_record_sgf(game))


def _sgf_point(point: Point) -> SgfPoint:
    i, j = to_ij(point)
    return BOARD_SIZE - 1 - i, j  # sgfmill counts rows from the bottom


def read_game(data: bytes, name: str = "game", setup_plies: Optional[int] = None) -> Replay:
    """A Replay of SGF bytes, every move judged by our rules; SgfError saying what is wrong and where.
    A record that starts from setup stones (AB, AW, AE, PL) starts at ``setup_plies`` plies played, or,
    where that is None, at the fewest plies its stones fit (``setup_plies_of``)."""
    try:
        game = sgf.Sgf_game.from_bytes(data)
    except ValueError as error:
        raise NotARecord(f"{name}: not an SGF game record ({error})")
    if game.get_size() != BOARD_SIZE:
        raise SgfError(f"{name}: a {game.get_size()}x{game.get_size()} board; Little-Go is {BOARD_SIZE}x{BOARD_SIZE}")
    root = game.get_root()
    position = _setup(root, name, setup_plies)
    positions = [position]
    moves: List[Move] = []
    for number, node in enumerate(game.get_main_sequence()[1:], 1):
        try:
            colour, point = node.get_move()
        except ValueError as error:
            raise SgfError(
                "{}: move {}: {}".format(
                    name,
                    number,
                    str(error) or f"{_raw_move(node)!r} is not a point of the {BOARD_SIZE}x{BOARD_SIZE} board",
                )
            )
        if colour is None:
            continue  # a node without a move (comments, setup)
        mover = BLACK if colour == "b" else WHITE
        where = "{}: move {} ({} {})".format(
            name, number, colour_word(mover).capitalize(), "pass" if point is None else move_to_text(_our_point(point))
        )
        if position.is_over:
            raise SgfError(f"{where}: the game was already over (after ply {position.moves_played})")
        if mover != position.player:
            raise SgfError(f"{where}: it was {colour_word(position.player).capitalize()}'s turn (Little-Go alternates)")
        move: Move = PASS if point is None else _our_point(point)
        try:
            position = position.play_point(move)
        except IllegalMove as error:
            raise SgfError(f"{where}: illegal under Little-Go rules: {error}")
        positions.append(position)
        moves.append(move)
    return Replay(positions, moves, _text(root, "PB"), _text(root, "PW"), _text(root, "RE"))


def _raw_move(node: Any) -> str:
    """The text of a node's B or W property, as the file has it."""
    for identifier in ("B", "W"):
        if node.has_property(identifier):
            raw: bytes = node.get_raw(identifier)
            return raw.decode("utf-8", "replace")
    return ""


def _raw_setup(root: Any) -> str:
    """The root's set-up properties as the file has them: ``AB[cc][dd] AW[zz]``."""
    return " ".join(
        identifier + "".join("[{}]".format(value.decode("utf-8", "replace")) for value in root.get_raw_list(identifier))
        for identifier in ("AB", "AW", "AE")
        if root.has_property(identifier)
    )


def _our_point(sgf_point: SgfPoint) -> Point:
    row, column = sgf_point
    return to_point(BOARD_SIZE - 1 - row, column)


def _text(node: Any, identifier: str) -> Optional[str]:
    try:
        return node.get(identifier) if node.has_property(identifier) else None
    except ValueError:
        return None


def setup_plies_of(stones: int, player: Colour) -> int:
    """The fewest plies a game reaches ``stones`` stones in with ``player`` to move: the stones, of the
    mover's parity (Black moves at even plies), at most the last ply the mover can have."""
    plies = stones + ((stones % 2 == 0) != (player == BLACK))
    return min(plies, MAX_MOVES - 2 if player == BLACK else MAX_MOVES - 1)


def _setup(root: Any, name: str, plies: Optional[int] = None) -> Position:
    """The starting position: empty, or the root's setup stones with PL to move, ``plies`` plies played
    (None: the fewest its stones fit)."""
    try:
        black, white, empty = root.get_setup_stones()
    except ValueError as error:
        raise SgfError(
            "{}: bad setup stones: {}".format(
                name, str(error) or f"a point off the {BOARD_SIZE}x{BOARD_SIZE} board in {_raw_setup(root)}"
            )
        )
    if not black and not white:
        return Position.initial()
    twice = sorted(_our_point(p) for p in (black & white) | ((black | white) & empty))
    if twice:
        raise SgfError(f"{name}: setup sets {_points_text(twice)} more than once (in AB, AW or AE): {_raw_setup(root)}")
    cells = ["0"] * (BOARD_SIZE * BOARD_SIZE)
    for stones, digit in ((black, "1"), (white, "2")):
        for point in stones:
            cells[_our_point(point)] = digit
    player = WHITE if _text(root, "PL") == "w" else BLACK
    board = "".join(cells)
    if plies is None:
        plies = setup_plies_of(len(black) + len(white), player)
    elif plies >= MAX_MOVES or (plies % 2 == 0) != (player == BLACK):
        whose = colour_word(player).capitalize()
        raise SgfError(
            f"{name}: {whose} to move after {plies} plies: Black moves at even plies, and before ply {MAX_MOVES}"
        )
    position = Position.from_boards(player, board, board, plies)
    if not position.regular:
        empty_points = FULL ^ (position.own | position.opp)
        sides = (position.own, position.opp)
        breathless = [group for side in sides for group in groups(side) if not neighbours(group) & empty_points]
        raise SgfError(
            "{}: setup stones with no liberty, which no game reaches: {}".format(
                name, "; ".join(_points_text(points_of(group)) for group in breathless)
            )
        )
    return position


def _points_text(points: Iterable[Point]) -> str:
    return " ".join(move_to_text(point) for point in points)
