"""The opening book: a perfect move for positions the agent cannot solve within its budget.

``book.json`` (beside ``my_player3.py``) maps a position's key to a move. Keys are
symmetry-free: ``book_key`` turns the board by each of the 8 symmetries of the square and
keeps the smallest form, so one entry serves all eight; the move is stored in that
canonical frame and turned back on the way out. The book is computed offline by the
exact solver (``littlego book build``); every move in it keeps a won position won.
"""

import json
import sys

from engine.bitboard import points_of
from engine.constants import BOARD_SIZE, NUM_POINTS, PASS
from engine.position import LEGAL

BOOK_FORMAT = "littlego-book 1"


def _symmetries():
    """The 8 symmetries of the board as point permutations: table[t][point] is the image."""
    tables = []
    last = BOARD_SIZE - 1
    for transpose in (False, True):
        for flip_rows in (False, True):
            for flip_columns in (False, True):
                table = []
                for point in range(NUM_POINTS):
                    i, j = divmod(point, BOARD_SIZE)
                    if flip_rows:
                        i = last - i
                    if flip_columns:
                        j = last - j
                    if transpose:
                        i, j = j, i
                    table.append(BOARD_SIZE * i + j)
                tables.append(tuple(table))
    return tuple(tables)


SYMMETRIES = _symmetries()
_INVERSE = tuple(tuple(table.index(p) for p in range(NUM_POINTS)) for table in SYMMETRIES)
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _base36(number):
    text = ""
    while True:
        number, digit = divmod(number, 36)
        text = _DIGITS[digit] + text
        if not number:
            return text


def _ko_point(position):
    ko = points_of(position.ko_mask())
    return ko[0] if ko else None


def book_key(position):
    """(key, symmetry index): the position's canonical key and the symmetry that gives it.

    The key holds the board (as a base-3 number in base 36), the ply, ``p`` when the last
    move was a pass (a pass now would end the game) and ``kN`` for the point the KO rule
    forbids: everything the rest of the game depends on.
    """
    board = position.board_string()
    ko = _ko_point(position)
    best = None
    for index, table in enumerate(SYMMETRIES):
        cells = ["0"] * NUM_POINTS
        for point in range(NUM_POINTS):
            cells[table[point]] = board[point]
        form = ("".join(cells), -1 if ko is None else table[ko])
        if best is None or form < best[0]:
            best = (form, index)
    (cells, ko_image), index = best
    passed = position.own == position.prev_own and position.opp == position.prev_opp
    key = "{}.{}{}{}".format(_base36(int(cells, 3)), position.moves_played, "p" if passed else "",
                             "" if ko_image < 0 else "k{}".format(ko_image))
    return key, index


def to_canonical(move, index):
    """A move in the position's own frame, in the canonical frame of symmetry ``index``."""
    return move if move == PASS else SYMMETRIES[index][move]


def from_canonical(move, index):
    """A move stored in the canonical frame, in the position's own frame."""
    return move if move == PASS else _INVERSE[index][move]


class BookError(ValueError):
    """A book file that cannot be used; the message names the file and the problem."""


def _check_move(value):
    if value == PASS or (isinstance(value, int) and not isinstance(value, bool) and 0 <= value < NUM_POINTS):
        return value
    raise ValueError("a move is a point 0..{} or {!r}, not {!r}".format(NUM_POINTS - 1, PASS, value))


class Book(object):
    """Moves by canonical key. ``move(position)`` is the book's legal move there, or None."""

    def __init__(self, moves, info=None):
        self.moves = moves
        self.info = info or {}

    def __len__(self):
        return len(self.moves)

    def move(self, position):
        if position.is_over:
            return None
        key, index = book_key(position)
        stored = self.moves.get(key)
        if stored is None:
            return None
        move = from_canonical(stored, index)
        if move != PASS and position.verdict(move) != LEGAL:
            return None          # a damaged book never makes the agent lose by an illegal move
        return move

    def to_json(self):
        document = dict(self.info)
        document["format"] = BOOK_FORMAT
        document["moves"] = dict(sorted(self.moves.items()))
        return json.dumps(document, indent=0, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text, path="book.json"):
        """The book in ``text``; BookError naming ``path`` when it is not one."""
        try:
            document = json.loads(text)
        except (ValueError, RecursionError) as error:
            raise BookError("{}: not JSON ({})".format(path, error))
        if not isinstance(document, dict) or document.get("format") != BOOK_FORMAT:
            raise BookError("{}: not a book (expected \"format\": \"{}\")".format(path, BOOK_FORMAT))
        moves = document.get("moves")
        if not isinstance(moves, dict):
            raise BookError("{}: \"moves\" must be an object of key: move".format(path))
        checked = {}
        for key, value in moves.items():
            try:
                checked[key] = _check_move(value)
            except ValueError as error:
                raise BookError("{}: entry {!r}: {}".format(path, key, error))
        info = {name: value for name, value in document.items() if name not in ("format", "moves")}
        return cls(checked, info)


def load_book(path, warn=None):
    """The book at ``path``; None (after a warning) when it is missing or unusable."""
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
        return Book.from_json(text, path)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, BookError) as error:
        (warn or (lambda message: sys.stderr.write(message + "\n")))(
            "{}: playing without the opening book".format(error))
        return None
