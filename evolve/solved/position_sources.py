"""Where the positions of a positions file (``evolve.solved.positions``) come from: random play, games, records.

``draw_position_texts`` draws positions out of the book at plies 2-11 (both colours) by default, half from
uniform random legal play and half from quick games of mixed strength (``evolve.solved.labels``), each distinct
under the board's symmetries; ``recorded_position_texts`` takes those that recorded games met (match journals,
SGF). Each is a (text, source) pair: the position as the compiled solver reads it, and one of
``engine.ruler.position_set.SOURCES`` ("random": uniform random legal play; "games": games of mixed
strength; "recorded": recorded games, a match's or a study's).
"""

import random
from typing import Iterable, List, Optional, Tuple

from engine.book import Book, book_key
from engine.common.seeds import derive_seed
from engine.native.solver import describe_position, position_from_text
from engine.play.records import recorded_positions as records_by_ply
from engine.playout import random_point
from engine.position import Position
from engine.ruler.position_set import SOURCES
from evolve.solved.labels import sample_game

DEFAULT_PLIES = (2, 11)  # out of the book, before the shipped agent solves exactly (ply 12)


def _random_position(seed: int, ply: int) -> Position:
    """The position after ``ply`` uniformly random legal moves (passes only where nothing else is legal)."""
    rng = random.Random(seed)
    position = Position.initial()
    while position.moves_played < ply and not position.is_over:
        position = position.play_point(random_point(position, rng))
    return position


def draw_position_texts(
    per_ply: int, plies: Tuple[int, int] = DEFAULT_PLIES, seed: int = 1, book: Optional[Book] = None
) -> List[Tuple[str, str]]:
    """[(text, source)]: ``per_ply`` positions at each ply of ``plies`` (low, high), half from uniform
    random legal play, half from games of mixed strength; none in ``book``, none over, each distinct
    under the board's symmetries. Fewer at a ply that holds fewer (ply 2 has 85 up to symmetry)."""
    drawn: List[Tuple[str, str]] = []
    keys = set()
    for ply in range(plies[0], plies[1] + 1):
        found, attempt, stale = 0, 0, 0
        while found < per_ply and stale < 200:
            source = SOURCES[attempt % 2]
            attempt_seed = derive_seed(seed, ply * 1_000_003 + attempt)
            attempt += 1
            if source == "random":
                position = _random_position(attempt_seed, ply)
                texts = [] if position.is_over or position.moves_played != ply else [describe_position(position)]
            else:
                texts = [text for text, _ in sample_game(attempt_seed, (ply, ply), 1)]
            new = False
            for text in texts:
                position = position_from_text(text)
                key = book_key(position)[0]
                if position.is_over or key in keys or (book is not None and book.move(position) is not None):
                    continue
                keys.add(key)
                drawn.append((text, source))
                found, new = found + 1, True
            stale = 0 if new else stale + 1
    return drawn


def recorded_position_texts(
    sources: Iterable[str],
    plies: Tuple[int, int] = DEFAULT_PLIES,
    seed: int = 1,
    per_ply: Optional[int] = None,
    book: Optional[Book] = None,
) -> List[Tuple[str, str]]:
    """[(text, "recorded")]: positions of the game records in ``sources`` (``engine.play.records``) at
    plies ``plies`` (low, high), none in ``book``; at each ply all of them, or ``per_ply`` drawn by
    ``seed``. These are the positions real games meet: a study's or a shipping test's games."""
    skip = None if book is None else (lambda position: book.move(position) is not None)
    by_ply = records_by_ply(sources, plies, seed, per_ply, skip)
    return [(describe_position(position), "recorded") for found in by_ply.values() for position in found]
