"""A book's sections and the walk of the positions a side following it meets.

A book serves one or more sections (``BookSection``): the side that follows it, the position it
starts from, its last ply. The Black book has one, from the empty board; the White book one for
each of Black's losing first moves; the shipped ``book.json`` holds them all. ``book_positions``
walks every position a book-following side meets, and ``check_book`` reports where the book has
no move or (with a solver) loses the win.
"""

from typing import Any, Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Protocol, Set, Tuple

from engine.book import Book, BookError, book_key
from engine.constants import WINNING_FIRST_POINT, Move, colour_word
from engine.coords import move_to_text as describe_move
from engine.native.solver import describe_position, position_from_text
from engine.position import Position


class BookSection(NamedTuple):
    """A line a book serves: the ``side`` ("black" or "white") that follows it from the
    ``start`` position, with a move for every position it can meet up to ``max_ply``; ``provenance``:
    how it was made (the commands, the solver's nodes)."""

    side: str
    start: Position
    max_ply: int
    provenance: Dict[str, Any]


class WinOracle(Protocol):
    """What ``check_book`` asks: a solver that says whether the side to move wins (``NativeSolver``,
    ``StoredSolver``, ``engine.solver.Solver``)."""

    def wins(self, position: Position) -> bool: ...


def book_sections(book: Book) -> List[BookSection]:
    """The book's sections (a book of the first kind, with one section's fields at the top of
    its file, has that one; a book with none serves Black from the empty board); BookError
    naming the book and the section whose start is no position."""
    fields = book.info.get("sections")
    if fields is None:
        fields = [{name: book.info[name] for name in ("start", "max_ply", "provenance") if name in book.info}]
    sections: List[BookSection] = []
    for number, field in enumerate(fields, 1):
        text = field.get("start")
        try:
            start = position_from_text(text) if text else Position.initial()
        except ValueError as error:
            raise BookError(
                "{}: {}the book's start {!r} is not a position: {}".format(
                    book.path, f"section {number}: " if len(fields) > 1 else "", text, error
                )
            )
        sections.append(
            BookSection(colour_word(start.player), start, field.get("max_ply", 0), dict(field.get("provenance") or {}))
        )
    return sections


def with_sections(info: Dict[str, Any], sections: Iterable[BookSection]) -> Dict[str, Any]:
    """``info`` (a book's header) describing ``sections``: a "sections" list, written in the order
    given, in place of any one section's fields at the top."""
    legacy = "sections" not in info  # its provenance at the top was its one section's
    info = {
        name: value
        for name, value in info.items()
        if name not in ("side", "start", "max_ply", "sections") and not (legacy and name == "provenance")
    }
    info["sections"] = [
        {
            "side": section.side,
            "start": describe_position(section.start),
            "max_ply": section.max_ply,
            "provenance": section.provenance,
        }
        for section in sections
    ]
    return info


def losing_first_moves() -> List[Position]:
    """The positions after each of Black's first moves other than the solved game's only winning
    one, one per symmetry class, a pass included: where White wins with perfect play."""
    starts: List[Position] = []
    seen: Set[str] = set()
    empty = Position.initial()
    moves: List[Move] = empty.all_moves()
    for move in moves:
        position = empty.play_point(move)
        key = book_key(position)[0]
        if move != WINNING_FIRST_POINT and key not in seen:
            seen.add(key)
            starts.append(position)
    return starts


def describe_start(start: Position) -> str:
    """Where a section starts, in words: from the empty board, after Black's first move, or the
    position's text."""
    if start.moves_played == 0:
        return "from the empty board"
    if start.moves_played == 1:
        board = start.board_string()
        return "after Black's {}".format(describe_move(board.index("1")) if "1" in board else "pass")
    return "from " + describe_position(start)


def book_positions(
    book: Book, max_ply: Optional[int] = None, start: Optional[Position] = None
) -> Iterator[Tuple[Position, Optional[Move]]]:
    """Every position that a side following the book can meet, once per symmetry class: (position,
    the book's move or None where it has none). From each section's start to its last ply (to
    ``max_ply`` when given), or from ``start`` alone (to ``max_ply``, else the sections' deepest)."""
    if start is not None:
        walks = [(start, max_ply if max_ply is not None else max(s.max_ply for s in book_sections(book)))]
    else:
        walks = [(s.start, s.max_ply if max_ply is None else max_ply) for s in book_sections(book)]
    _ = book.moves  # the table of every entry, built once: a walk asks for every position
    seen: Set[str] = set()
    for origin, last in walks:
        frontier = [origin]
        while frontier:
            position = frontier.pop()
            if position.is_over or position.moves_played > last:
                continue
            key = book_key(position)[0]
            if key in seen:
                continue
            seen.add(key)
            move = book.move(position)
            yield position, move
            if move is None:
                continue
            after = position.play_point(move)
            if after.is_over:
                continue
            replies: List[Move] = after.all_moves()
            for reply in replies:
                frontier.append(after.play_point(reply))


def check_book(
    book: Book,
    solver: Optional[WinOracle] = None,
    max_ply: Optional[int] = None,
    progress: Optional[Callable[[int], object]] = None,
    start: Optional[Position] = None,
) -> Tuple[int, List[Position], List[Tuple[Position, Move]]]:
    """(positions met, missing, wrong): where a book-following side finds no move, and (with a
    ``NativeSolver``, or any object with ``wins(position)``) the book moves that do not keep the win."""
    met = 0
    missing: List[Position] = []
    wrong: List[Tuple[Position, Move]] = []
    for position, move in book_positions(book, max_ply, start):
        met += 1
        if move is None:
            missing.append(position)
        elif solver is not None and solver.wins(position.play_point(move)):
            wrong.append((position, move))
        if progress:
            progress(met)
    return met, missing, wrong
