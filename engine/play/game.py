"""One game as the course's host plays it: the record says who won, how, and why.

Every player answers a flat point or PASS; ``play_game`` judges it by the rules and never
raises for a player's fault: a ``PlayerFault`` (timeout, crash, bad output, a point off
the board), an exception inside an in-process player, a move over the CPU limit or an
illegal placement loses the game for that player, with the reason in the record.
"""

from collections import namedtuple

from engine.bitboard import count
from engine.constants import BLACK, WHITE, COURSE_CPU_LIMIT, NUM_POINTS, PASS, opponent
from engine.coords import move_to_text
from engine.playout import random_opening
from engine.position import IllegalMove
from engine.players.base import PlayerFault, Reason
from engine.common.seeds import derive_seed

GameRecord = namedtuple("GameRecord", "black white winner reason detail moves black_stones white_stones cpu")
GameRecord.__doc__ = """One game: specs, winner colour, how it ended (one of REASONS) and why,
the moves as course text, final stones, and CPU seconds per move as (colour, seconds)."""


def _is_move(move):
    return move == PASS or (isinstance(move, int) and not isinstance(move, bool) and 0 <= move < NUM_POINTS)


def play_game(black, white, seed=0, opening_plies=0, opening_seed=None, cpu_limit=COURSE_CPU_LIMIT):
    """Play one game between two players; a GameRecord. Never raises for a player's fault.

    The first ``opening_plies`` plies are random placements drawn from ``opening_seed``
    (default ``seed``), so a colour-swapped pair of games can share an opening.
    """
    position, opening = random_opening(opening_plies, seed if opening_seed is None else opening_seed)
    moves = [move_to_text(m) for m in opening]
    players = {BLACK: black, WHITE: white}
    cpu = []
    black.new_game(BLACK, derive_seed(seed, BLACK))
    white.new_game(WHITE, derive_seed(seed, WHITE))
    reason, detail, loser = Reason.END, "", None
    try:
        while not position.is_over:
            mover = position.player
            try:
                move, seconds = players[mover].timed_move(position)
            except PlayerFault as fault:
                reason, detail, loser = fault.reason, fault.detail, mover
                break
            except Exception as error:      # an in-process player's bug loses its game only
                reason, detail, loser = Reason.CRASH, "{}: {}".format(type(error).__name__, error), mover
                break
            cpu.append((mover, seconds))
            if seconds > cpu_limit:
                reason, detail, loser = Reason.TIMEOUT, "{:.2f} s of CPU".format(seconds), mover
                break
            if not _is_move(move):
                reason, detail, loser = Reason.BAD_OUTPUT, "{!r} is not a point or PASS".format(move), mover
                break
            try:
                position = position.play_point(move)
            except IllegalMove as error:
                reason, detail, loser = Reason.ILLEGAL, str(error), mover
                break
            moves.append(move_to_text(move))
    finally:
        black.close()
        white.close()
    winner = opponent(loser) if loser else position.winner
    return GameRecord(black.spec, white.spec, winner, reason,
                      "{} {}".format("Black" if loser == BLACK else "White", detail) if loser else "",
                      moves, count(position.black), count(position.white), cpu)
