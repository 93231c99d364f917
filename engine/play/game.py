"""One game as the course's host plays it: the record says who won, how, and why.

Every player answers a flat point or PASS; ``play_game`` judges it by the rules and never
raises for a player's fault: a ``PlayerFault`` (timeout, crash, bad output, a point off
the board), an exception inside an in-process player, a move over the CPU limit or an
illegal placement loses the game for that player, with the reason in the record. A failure of
the host itself (``HostError``: its disk full) is charged to no one: it ends the game unscored.
"""

from typing import List, NamedTuple, Optional, Sequence, Tuple

from engine.bitboard import count
from engine.common.seeds import derive_seed
from engine.constants import BLACK, COURSE_CPU_LIMIT, WHITE, Colour, Move, colour_word, opponent
from engine.coords import is_move, move_to_text
from engine.players.base import Player, PlayerFault, Reason
from engine.playout import random_opening
from engine.position import IllegalMove, Position
from engine.sandbox.limits import HostError


class GameRecord(NamedTuple):
    """One game: specs, winner colour, how it ended (a Reason) and why,
    the moves as course text, final stones, and CPU seconds per move as (colour, seconds)."""

    black: str
    white: str
    winner: Optional[Colour]
    reason: Reason
    detail: str
    moves: List[str]
    black_stones: int
    white_stones: int
    cpu: List[Tuple[Colour, float]]


class MatchGame(NamedTuple):
    """One game of a match (``engine.play.match``): its GameRecord's fields (``tests/test_match.py`` checks
    they stay the same), the game's index and A's colour in it."""

    black: str
    white: str
    winner: Optional[Colour]
    reason: Reason
    detail: str
    moves: List[str]
    black_stones: int
    white_stones: int
    cpu: List[Tuple[Colour, float]]
    index: int  # type: ignore[assignment]  # the field shadows tuple.index, as it always has
    a_colour: Colour

    @property
    def a_won(self) -> bool:
        """Whether A (the match's first player) won this game."""
        return self.winner == self.a_colour


# A player's fault that loses the game: (how it ended, why, the colour of the player at fault).
Fault = Tuple[Reason, str, Colour]


def play_game(
    black: Player,
    white: Player,
    seed: int = 0,
    opening_plies: int = 0,
    opening_seed: Optional[int] = None,
    cpu_limit: float = COURSE_CPU_LIMIT,
    opening: Optional[Sequence[Move]] = None,
) -> GameRecord:
    """Play one game between two players; a GameRecord. Never raises for a player's fault.

    The first ``opening_plies`` plies are random placements drawn from ``opening_seed``
    (default ``seed``), so a colour-swapped pair of games can share an opening; ``opening`` (points)
    gives the opening's moves instead. A player
    that fails to start (an engine that exits or errs while it is set up) loses the game
    before its first move, with the reason.
    """
    if opening is None:
        position, opening = random_opening(opening_plies, seed if opening_seed is None else opening_seed)
    else:
        position = Position.initial()
        for point in opening:
            position = position.play_point(point)
    moves = [move_to_text(m) for m in opening]
    players = {BLACK: black, WHITE: white}
    cpu = []
    try:
        fault = _start(black, BLACK, seed) or _start(white, WHITE, seed)
        while fault is None and not position.is_over:
            mover = position.player
            move, fault = _ask(players[mover], mover, position, cpu_limit)
            if fault is None:
                assert move is not None  # _ask answers a move or a fault
                cpu.append((mover, move[1]))
                try:
                    position = position.play_point(move[0])
                except IllegalMove as error:
                    fault = (Reason.ILLEGAL, str(error), mover)
                else:
                    moves.append(move_to_text(move[0]))
    finally:
        black.close()
        white.close()
    reason, detail, loser = fault or (Reason.END, "", None)
    winner = opponent(loser) if loser else position.winner
    return GameRecord(
        black.spec,
        white.spec,
        winner,
        reason,
        f"{colour_word(loser).capitalize()} {detail}" if loser else "",
        moves,
        count(position.black),
        count(position.white),
        cpu,
    )


def _start(player: Player, colour: Colour, seed: int) -> Optional[Fault]:
    """None when ``player`` is ready for a game as ``colour``; else (reason, detail, colour)."""
    try:
        player.new_game(colour, derive_seed(seed, colour))
    except PlayerFault as fault:
        return fault.reason, "at set-up: " + fault.detail, colour
    except HostError:
        raise  # the host failed, not the player: no game is scored
    except Exception as error:  # an in-process player's bug loses its game only
        return Reason.CRASH, f"at set-up: {type(error).__name__}: {error}", colour
    return None


def _ask(
    player: Player, colour: Colour, position: Position, cpu_limit: float
) -> Tuple[Optional[Tuple[Move, float]], Optional[Fault]]:
    """((move, CPU seconds), None) for a move within the rules' form and the CPU limit, else
    (None, (reason, detail, colour)): the fault that loses the game."""
    try:
        move, seconds = player.timed_move(position)
    except PlayerFault as fault:
        return None, (fault.reason, fault.detail, colour)
    except HostError:
        raise  # the host failed, not the player: no game is scored
    except Exception as error:  # an in-process player's bug loses its game only
        return None, (Reason.CRASH, f"{type(error).__name__}: {error}", colour)
    if seconds > cpu_limit:
        return None, (Reason.TIMEOUT, f"{seconds:.2f} s of CPU", colour)
    if not is_move(move):
        return None, (Reason.BAD_OUTPUT, f"{move!r} is not a point or PASS", colour)
    return (move, seconds), None
