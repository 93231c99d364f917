"""Which side wins each random opening, solved: the ground truth of matches and fitness from
random openings.

Little-Go has no draws (komi 2.5), so exactly one colour wins from every position with perfect
play. There are only 85 distinct positions after two random plies (one per symmetry class, the
book's key), and ``engine/data/openings.json`` holds the compiled solver's answer for each
(``littlego openings table`` builds it: ``engine.study.settle``, which reads the store of solved
positions first and keeps what it solves there). With it a game from a random
opening can be played from the won side only: what keeping a won game means.

The file::

    {"format": "littlego-openings 1", "plies": 2,
     "black_wins": {"<book key>": true, ...}}   # true: Black (to move after two plies) wins
"""

import json
from typing import Dict, List, NamedTuple, Sequence

from engine.bitboard import points_of
from engine.book import book_key
from engine.common.seeds import derive_seed
from engine.constants import BLACK, PASS, WHITE, Colour, Move
from engine.coords import move_from_text
from engine.data import SOLVED_OPENINGS
from engine.errors import UserError
from engine.playout import random_opening
from engine.position import Position
from engine.protocol import read_document

OPENINGS_FORMAT = "littlego-openings 1"


class OpeningsError(UserError, ValueError):
    """An openings file that cannot be used, or an opening it does not hold; the message says which."""


class SolvedOpenings(NamedTuple):
    """The winner of every opening of ``plies`` random plies: ``black_wins`` by book key, and
    where the table came from."""

    plies: int
    black_wins: Dict[str, bool]
    path: str

    def winner(self, position: Position) -> Colour:
        """BLACK or WHITE: the colour that wins ``position`` (an opening of the table's plies)."""
        key = book_key(position)[0]
        if key not in self.black_wins:
            raise OpeningsError(f"{self.path}: no answer for the opening {key} (is it {self.plies} plies?)")
        return BLACK if self.black_wins[key] else WHITE

    def won_side(self, opening_seed: int) -> Colour:
        """The colour that wins the opening ``random_opening(self.plies, opening_seed)`` draws."""
        position, _ = random_opening(self.plies, opening_seed)
        return self.winner(position)


def load_openings(path: str = SOLVED_OPENINGS) -> SolvedOpenings:
    """SolvedOpenings from a file; OpeningsError naming the file and what is wrong."""
    data = read_document(path, OpeningsError, "an openings file", OPENINGS_FORMAT)
    plies, answers = data.get("plies"), data.get("black_wins")
    if isinstance(plies, bool) or not isinstance(plies, int) or plies < 0:
        raise OpeningsError(f"{path}: 'plies' must be a whole number of plies, found {plies!r}")
    if not isinstance(answers, dict) or not all(isinstance(won, bool) for won in answers.values()):
        raise OpeningsError(f"{path}: 'black_wins' must map each opening's key to true or false")
    return SolvedOpenings(plies, answers, path)


def every_opening(plies: int) -> Dict[str, Position]:
    """{key: position} of every distinct position after ``plies`` random plies (the moves a
    random opening can draw: placements, and a pass only where none is legal)."""
    found: Dict[str, Position] = {}
    frontier = [Position.initial()]
    for _ in range(plies):
        following: List[Position] = []
        for position in frontier:
            if position.is_over:
                continue
            points: Sequence[Move] = points_of(position.legal_mask())
            following += [position.play_point(point) for point in points or [PASS]]
        frontier = list({book_key(position)[0]: position for position in following}.values())
    for position in frontier:
        found.setdefault(book_key(position)[0], position)
    return found


def match_openings(plies: int, seed: int, games: int) -> Dict[str, Position]:
    """{key: position} of the distinct openings a match of ``games`` games from ``plies`` random plies
    draws with ``seed``, colours alternating: game i opens from ``derive_seed(seed, i // 2)``, both
    colours from each opening (``engine.play.match.game_job``)."""
    found: Dict[str, Position] = {}
    for pair in range((games + 1) // 2):
        position, _ = random_opening(plies, derive_seed(seed, pair))
        found.setdefault(book_key(position)[0], position)
    return found


def opening_position(moves: Sequence[str], plies: int) -> Position:
    """The position after the first ``plies`` of a game's ``moves`` (the course's text): its random opening."""
    position = Position.initial()
    for text in moves[:plies]:
        position = position.play_point(move_from_text(text))
    return position


def openings_json(plies: int, black_wins: Dict[str, bool]) -> str:
    """The text of an openings file."""
    data = {"format": OPENINGS_FORMAT, "plies": plies, "black_wins": dict(sorted(black_wins.items()))}
    return json.dumps(data, indent=1) + "\n"
