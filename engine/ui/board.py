"""Positions as a person reads and writes them: the board with both coordinate systems, moves
typed or shown, the verdict, and a position named by moves or by a file."""

import os
from typing import Optional

from engine.agent import infer_moves_played
from engine.bitboard import count
from engine.constants import BLACK, BOARD_SIZE, KOMI, MAX_MOVES, PASS, WHITE, Move, colour_word
from engine.coords import move_from_text, move_to_text
from engine.errors import InvalidInput
from engine.play.sgf import read_game, read_sgf_file, result_text
from engine.players.gtp import VERTEX_COLUMNS, point_to_vertex, vertex_to_point
from engine.position import SYMBOLS, IllegalMove, Position
from engine.protocol import read_input

HELP = (
    "type a move as i,j (row, column from the top left, as the course writes it), a GTP vertex "
    "such as C3, or pass; undo; quit"
)


def parse_human_move(text: str) -> Move:
    """The point or PASS a person typed (``2,3``, ``C3`` or ``pass``, any case); ValueError saying why not."""
    word = text.strip()
    if word.lower() == "pass":
        return PASS
    if "," in word:
        return move_from_text(word)
    try:
        return vertex_to_point(word)
    except ValueError:
        raise InvalidInput(f"{word!r} is not a move: {HELP}")


def board_diagram(position: Position) -> str:
    """The board with the course's (i, j) and GTP's coordinates, and the state of the game."""
    lines = ["       j  " + " ".join(str(j) for j in range(BOARD_SIZE)), "          " + " ".join(VERTEX_COLUMNS)]
    for i in range(BOARD_SIZE):
        row = " ".join(SYMBOLS[position.colour_at(BOARD_SIZE * i + j)] for j in range(BOARD_SIZE))
        lines.append(f"  i {i}  {BOARD_SIZE - i}  {row}  {BOARD_SIZE - i}")
    black, white = position.score()
    lines.append(
        "ply {} of {}, {} left; {}".format(
            position.moves_played,
            MAX_MOVES,
            MAX_MOVES - position.moves_played,
            "game over" if position.is_over else colour_word(position.player).capitalize() + " to move",
        )
    )
    lines.append(f"score: Black (X) {black:g}, White (O) {white:g} with komi {KOMI:g}")
    return "\n".join(lines)


def move_and_vertex(move: Move) -> str:
    return "pass" if move == PASS else f"{move_to_text(move)} ({point_to_vertex(move)})"


def verdict(position: Position) -> str:
    """The result as the judge counts it, in words."""
    black, white = position.score()
    winner = BLACK if black > white else WHITE
    return (
        f"{colour_word(winner).capitalize()} wins: Black {black:g} stones, White {white - KOMI:g} + "
        f"{KOMI:g} komi = {white:g} ({result_text(winner, black, count(position.white))})"
    )


def game_result(position: Position) -> Optional[str]:
    """SGF's RE of a finished game (``B+3.5``, by ``Position.winner``), None while it goes on."""
    if not position.is_over:
        return None
    return result_text(position.winner, count(position.black), count(position.white))


def position_from_moves(text: str, option: str = "--moves") -> Position:
    """The position after ``text``'s moves from the empty board (i,j, C3 or pass, separated by
    spaces or semicolons); ValueError naming the move that is not one, or not legal."""
    position = Position.initial()
    for number, word in enumerate(text.replace(";", " ").split(), 1):
        try:
            position = position.play_point(parse_human_move(word))
        except (ValueError, IllegalMove) as error:
            raise InvalidInput(f"{option}: move {number} ({word}): {error}")
    return position


def read_position(path: str, plies: Optional[int] = None) -> Position:
    """The position a file names: the end of an SGF record, or a course input.txt (``plies``: the
    plies played before it, or before the record's setup stones; estimated from the stones when None)."""
    with open(path, "rb") as handle:
        head = handle.read(64).lstrip()
    if head.startswith(b"("):  # plies: those before its setup stones, where it starts from some
        return read_game(read_sgf_file(path), path, setup_plies=plies).positions[-1]
    game = read_input(path)
    plies = plies if plies is not None else infer_moves_played(game, os.devnull)
    return Position.from_boards(game.player, game.previous, game.current, plies)
