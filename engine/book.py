"""The opening book: a perfect move for positions the agent cannot solve within its budget.

``book.json`` (beside ``my_player3.py``) maps a position's key to a move: Black's moves from
the empty board and White's after each of Black's losing first moves (the key holds the ply,
so the colours never share an entry; the file's ``sections`` say which lines it serves). Keys are
symmetry-free: ``book_key`` turns the board by each of the 8 symmetries of the square and
keeps the smallest form, so one entry serves all eight; the move is stored in that
canonical frame and turned back on the way out. The book is computed offline by the
exact solver (``littlego book build``); every move in it keeps a won position won.

The file groups the keys by ply and then by move: ``"plies": {"10": {"7": "key key ..."}}``,
each key written without its ply. That halves the file, and the agent, which asks one
position a move, reads it in about a millisecond: it looks its key up in the strings of its
ply without ever building a table of every entry (the tools, which need one, get it from
``Book.moves``). A book of the first format (one ``"moves"`` object of full keys) is refused
with a message naming ``littlego book upgrade``, which rewrites it.
"""

import json
import re
from typing import Any, Dict, List, Optional, Tuple, Type

from engine.bitboard import points_of
from engine.constants import MAX_MOVES, NUM_POINTS, PASS, Move, Point
from engine.coords import is_move
from engine.errors import UserError
from engine.position import LEGAL, Position
from engine.protocol import read_file
from engine.symmetry import canonical, unturn_move

BOOK_FORMAT = "littlego-book 2"
FIRST_FORMAT = "littlego-book 1"  # one "moves" object of full keys: only ``littlego book upgrade`` reads it


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
# A ply's entries as the file groups them: (move, " key key ... "), each key without its ply.
PlyEntries = List[Tuple[Move, str]]


def _base36(number: int) -> str:
    text = ""
    while True:
        number, digit = divmod(number, 36)
        text = _DIGITS[digit] + text
        if not number:
            return text


def _ko_point(position: Position) -> Optional[Point]:
    ko = points_of(position.ko_mask())
    return ko[0] if ko else None


def book_key(position: Position) -> Tuple[str, int]:
    """(key, symmetry index): the position's canonical key and the symmetry that gives it.

    The key holds the board (as a base-3 number in base 36), the ply, ``p`` when the last
    move was a pass (a pass now would end the game) and ``kN`` for the point the KO rule
    forbids: everything the rest of the game depends on.
    """
    (value, ko_image), index = canonical(position.black, position.white, _ko_point(position))
    key = "{}.{}{}{}".format(
        _base36(value), position.moves_played, "p" if position.passed else "", "" if ko_image < 0 else f"k{ko_image}"
    )
    return key, index


class BookError(UserError, ValueError):
    """A book file that cannot be used; the message names the file and the problem."""


def check_move(value: object) -> Move:
    """``value`` if it is a move (a point or PASS); ValueError otherwise."""
    if isinstance(value, int) and is_move(value):
        return value
    if value == PASS:
        return PASS
    raise ValueError(f"a move is a point 0..{NUM_POINTS - 1} or {PASS!r}, not {value!r}")


_KEY = re.compile(r"([0-9a-z]+)\.([0-9]+)([pk0-9]*)\Z")  # board, ply, pass and KO marks


def _split_key(key: str) -> Tuple[int, str]:
    """(ply, the key as the file writes it under its ply): the board, then ``.`` and the
    marks when there are any."""
    match = _KEY.match(key)
    if not match:
        raise ValueError(f"not a book key: {key!r}")
    board, ply, marks = match.groups()
    return int(ply), board + ("." + marks if marks else "")


def key_ply(key: str) -> int:
    """The ply of a book key (its mover: Black at even plies, White at odd)."""
    return _split_key(key)[0]


def _join_key(ply: int, entry: str) -> str:
    board, _, marks = entry.partition(".")
    return f"{board}.{ply}{marks}"


def _points_then_pass(move: Move) -> int:
    return NUM_POINTS if move == PASS else move


class Book:
    """Moves by canonical key. ``move(position)`` is the book's legal move there, or None.

    A book read from a file keeps the file's strings and answers from them; ``moves`` (the
    table of every key and its move, which the tools read and change) is built on first use
    and from then on is the book.
    """

    def __init__(
        self,
        moves: Optional[Dict[str, Move]],
        info: Optional[Dict[str, Any]] = None,
        plies: Optional[Dict[int, PlyEntries]] = None,
        path: str = "book",
    ) -> None:
        self._moves = moves  # None while the book answers from ``plies``:
        self._plies = plies  # {ply: [(move, " key key ... ")]}, as the file groups them
        self.path = path
        self.info = info or {}

    @property
    def moves(self) -> Dict[str, Move]:
        if self._moves is None:
            assert self._plies is not None
            moves: Dict[str, Move] = {}
            for ply, groups in self._plies.items():
                for move, entries in groups:
                    for entry in entries.split():
                        key = _join_key(ply, entry)
                        if key in moves or not _KEY.match(key):
                            raise BookError(
                                "{}: ply {}: {} key {!r}".format(
                                    self.path, ply, "a second move for" if key in moves else "not a", entry
                                )
                            )
                        moves[key] = move
            self._moves, self._plies = moves, None
        return self._moves

    def __len__(self) -> int:
        if self._moves is not None:
            return len(self._moves)
        assert self._plies is not None
        return sum(len(entries.split()) for groups in self._plies.values() for move, entries in groups)

    def _stored(self, key: str) -> Optional[Move]:
        if self._moves is not None:
            return self._moves.get(key)
        assert self._plies is not None
        ply, entry = _split_key(key)
        needle = " " + entry + " "
        for move, entries in self._plies.get(ply, ()):
            if needle in entries:
                return move
        return None

    def move(self, position: Position) -> Optional[Move]:
        if position.is_over:
            return None
        key, index = book_key(position)
        stored = self._stored(key)
        if stored is None:
            return None
        move = unturn_move(stored, index)
        if move != PASS and position.verdict(move) != LEGAL:
            return None  # a damaged book never makes the agent lose by an illegal move
        return move

    def to_json(self) -> str:
        """The book as a file: its information, then the keys by ply and move (``plies`` last)."""
        grouped: Dict[int, Dict[Move, List[str]]] = {}
        for key, move in self.moves.items():
            ply, entry = _split_key(key)
            grouped.setdefault(ply, {}).setdefault(move, []).append(entry)
        document: Dict[str, Any] = {"format": BOOK_FORMAT}
        document.update(
            (name, self.info[name]) for name in sorted(self.info) if name not in ("format", "moves", "plies")
        )
        document["plies"] = {
            str(ply): {
                str(move): " ".join(sorted(grouped[ply][move])) for move in sorted(grouped[ply], key=_points_then_pass)
            }
            for ply in sorted(grouped)
        }
        return json.dumps(document, indent=0) + "\n"

    @classmethod
    def from_json(cls, text: str, path: str = "book.json") -> "Book":
        """The book in ``text``; BookError naming ``path`` when it is not one."""
        try:
            document = json.loads(text)
        except (ValueError, RecursionError) as error:
            raise BookError(f"{path}: not JSON ({error})")
        form = document.get("format") if isinstance(document, dict) else None
        if form == FIRST_FORMAT:
            raise BookError(
                f"{path}: a book of the first format ({FIRST_FORMAT}): 'littlego book upgrade {path}' rewrites it in "
                "the current one"
            )
        if form != BOOK_FORMAT:
            raise BookError(f'{path}: not a book (expected "format": "{BOOK_FORMAT}")')
        plies = document.get("plies")
        if not isinstance(plies, dict):
            raise BookError(f'{path}: "plies" must be an object of ply: {{move: keys}}')
        checked: Dict[int, PlyEntries] = {}
        for ply, groups in plies.items():
            if not (isinstance(ply, str) and ply.isdigit() and isinstance(groups, dict)):
                raise BookError(f"{path}: ply {ply!r}: expected a ply number and an object of move: keys")
            entries: PlyEntries = []
            for move, keys in groups.items():
                try:
                    value = check_move(move if move == PASS else int(move) if move.isdigit() else move)
                except ValueError as error:
                    raise BookError(f"{path}: ply {ply}: {error}")
                if not isinstance(keys, str):
                    raise BookError(f"{path}: ply {ply}, move {move}: the keys must be one string")
                entries.append((value, " " + keys + " "))
            checked[int(ply)] = entries
        return cls(None, book_info(document, path), plies=checked, path=path)


_Kinds = Dict[str, Tuple[Type[Any], ...]]
_SECTION: _Kinds = {"side": (str,), "max_ply": (int,), "start": (str,), "provenance": (dict,)}
_INFO: _Kinds = dict(_SECTION, positions=(int,), sections=(list,))


_KIND_WORDS: Dict[Tuple[Type[Any], ...], str] = {(int,): "a number", (str,): "text", (dict,): "an object"}


def _check_fields(fields: Dict[str, Any], kinds: _Kinds, path: str, where: str = "") -> None:
    for name, types in kinds.items():
        value = fields.get(name)
        if name in fields and (not isinstance(value, types) or isinstance(value, bool)):
            raise BookError(
                '{}: {}"{}" must be {}, not {!r}'.format(
                    path,
                    where,
                    name,
                    _KIND_WORDS.get(types, "a list"),
                    value,
                )
            )
    if "max_ply" in fields and not 0 <= fields["max_ply"] <= MAX_MOVES:
        raise BookError(
            '{}: {}"max_ply" must be a ply from 0 to {}, not {}'.format(path, where, MAX_MOVES, fields["max_ply"])
        )


def book_info(document: Dict[str, Any], path: str = "book.json") -> Dict[str, Any]:
    """What a book file holds beside its moves, each field of its type; BookError naming the file
    and the field otherwise. A book's sections are the lines it serves: each a side, the position
    it starts from and its last ply (``"sections"``: a list of them; a book of one section may write
    its fields at the top)."""
    info = {name: value for name, value in document.items() if name not in ("format", "moves", "plies")}
    _check_fields(info, _INFO, path)
    for number, section in enumerate(info.get("sections", ()), 1):
        if not isinstance(section, dict):
            raise BookError(f"{path}: section {number} must be an object, not {section!r}")
        _check_fields(section, _SECTION, path, f"section {number}: ")
    return info


def load_book(path: str) -> Book:
    """The book at ``path``; BookError naming the file and what is wrong (a missing file included)."""
    try:
        text = read_file(path, BookError).decode("utf-8")
    except UnicodeDecodeError as error:
        raise BookError(f"{path}: not UTF-8 text (byte {error.start})")
    return Book.from_json(text, path)
