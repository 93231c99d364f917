"""A person at the terminal: playing any player (``littlego play``) and watching a recorded game
(``littlego replay``). Both read lines and write text, so scripts and tests can drive them.
"""

from typing import Callable, List, Optional, Tuple, Union, cast

from engine.bitboard import count
from engine.constants import BLACK, MAX_MOVES, Colour, Move, colour_word
from engine.constants import opponent as other_colour
from engine.play.sgf import Replay, game_sgf, read_game, read_sgf_file
from engine.players.base import Player, PlayerFault
from engine.position import SYMBOLS, IllegalMove, Position
from engine.protocol import write_atomic
from engine.ui.board import HELP, board_diagram, game_result, move_and_vertex, parse_human_move, verdict

ReadLine = Callable[[str], Optional[str]]  # a prompt to the line typed, None at the end of input
Write = Callable[[str], object]  # writes text as it is (no newline added)


def play_in_terminal(
    opponent: Player, human_colour: Colour, read_line: ReadLine, write: Write, seed: int = 1
) -> Tuple[List[Move], Position, bool]:
    """A game between a person (lines from ``read_line``, None at the end of input) and ``opponent``.

    Returns (the moves, the last position, whether the person quit).
    """
    positions, moves = [Position.initial()], cast(List[Move], [])
    try:
        opponent.new_game(other_colour(human_colour), seed)
    except Exception as error:  # an opponent that cannot start loses before its first move
        write(f"{opponent.spec} loses before the game starts: {type(error).__name__}: {error}\n")
        return moves, positions[-1], True
    write(f"You play {colour_word(human_colour)} ({SYMBOLS[human_colour]}) against {opponent.spec}. {HELP}.\n")
    forfeit: Optional[str] = None
    try:
        while not positions[-1].is_over:
            position = positions[-1]
            if position.player != human_colour:
                played = _opponent_moves(opponent, position, write)
                if isinstance(played, str):
                    forfeit = played
                    break
                move, after = played
                positions.append(after)
                moves.append(move)
                continue
            write("\n" + board_diagram(position) + "\n")
            line = read_line(f"{colour_word(human_colour)} to move> ")
            if line is None or line.strip().lower() == "quit":
                write("quit.\n")
                return moves, positions[-1], True
            word = line.strip().lower()
            if not word:
                continue
            if word == "undo":
                _undo(positions, moves, human_colour, write)
                continue
            if word in ("help", "?"):
                write(HELP + "\n")
                continue
            try:
                move = parse_human_move(line)
                after = position.play_point(move)
            except (ValueError, IllegalMove) as error:
                write(f"refused: {error}; nothing changed\n")
                continue
            positions.append(after)
            moves.append(move)
    finally:
        opponent.close()
    final = positions[-1]
    write("\n" + board_diagram(final) + "\n")
    write((forfeit or verdict(final)) + "\n")
    return moves, final, False


def _opponent_moves(opponent: Player, position: Position, write: Write) -> Union[Tuple[Move, Position], str]:
    """(the opponent's move, the position after it), or why it forfeits when it fails or breaks the rules."""
    try:
        move, seconds = opponent.timed_move(position)
        after = position.play_point(move)
    except (PlayerFault, IllegalMove, ValueError, TypeError, IndexError) as error:
        return f"{opponent.spec} loses: {error}"
    write(f"{opponent.spec} plays {move_and_vertex(move)} ({seconds:.2f} s of CPU)\n")
    return move, after


def _undo(positions: List[Position], moves: List[Move], human_colour: Colour, write: Write) -> None:
    """Back to the person's previous turn: their last move and the reply to it."""
    last = max((k for k in range(len(moves)) if positions[k].player == human_colour), default=None)
    if last is None:
        write("nothing to undo\n")
    else:
        del positions[last + 1 :], moves[last:]


def offer_sgf(
    moves: List[Move], human_colour: Colour, opponent_spec: str, final: Position, read_line: ReadLine, write: Write
) -> Optional[str]:
    """Ask for a file name and save the game there as SGF (an empty answer, or ``quit``, skips it)."""
    name = read_line("save the game as SGF (file name; empty or quit to skip)> ")
    if not name or not name.strip() or name.strip().lower() == "quit":
        return None
    path = name.strip()
    black, white = ("you", opponent_spec) if human_colour == BLACK else (opponent_spec, "you")
    try:
        write_atomic(path, game_sgf(moves, black, white, game_result(final)))
    except OSError as error:
        write(f"could not save {path}: {error.strerror or error}\n")
        return None
    write(f"saved {path}\n")
    return path


def replay_record(path: str, write: Write, verdict_only: bool = False, read_line: Optional[ReadLine] = None) -> Replay:
    """Show a recorded game move by move (waiting for Enter when ``read_line`` is given); the Replay."""
    game = read_game(read_sgf_file(path), path)
    final = game.positions[-1]
    if not verdict_only:
        write(
            "{}: Black {}, White {}{}\n".format(
                path, game.black or "?", game.white or "?", f", recorded result {game.result}" if game.result else ""
            )
        )
        write(board_diagram(game.positions[0]) + "\n")
        for number, (before, move, after) in enumerate(zip(game.positions, game.moves, game.positions[1:]), 1):
            if read_line is not None and read_line("[Enter] next move, q to stop> ") in ("q", "Q", None):
                break
            captured = count(before.opp) - count(after.own)
            write(
                "\nmove {}: {} plays {}{}; {} plies left\n".format(
                    number,
                    colour_word(before.player).capitalize(),
                    move_and_vertex(move),
                    ", capturing {} stone{}".format(captured, "" if captured == 1 else "s") if captured else "",
                    MAX_MOVES - after.moves_played,
                )
            )
            write(board_diagram(after) + "\n")
    if final.is_over:
        write(f"result under Little-Go rules: {verdict(final)}\n")
    else:
        write(
            f"result under Little-Go rules: not finished after {final.moves_played} plies; if it ended "
            f"now, {verdict(final)}\n"
        )
    return game
