"""The opening book built with the compiled exact solver, and trimmed.

``build_book`` proves the opening with ``NativeSolver.book_lines`` (the first move's replies
in parallel, one process each, with ``jobs``); ``build_white_book`` does the same for White
after each of Black's losing first moves, one section each (``engine.native.sections``), and
then fills what the sections leave without a move (``engine.native.book_fill``, which extends
and merges books too); ``trim_book`` keeps a side's moves only to a shallower ply (a smaller
file); ``read_any_book`` reads a book of any format, the first one for ``book upgrade``.

The store of solved positions (``engine.native.store``, ``store`` a path or None for none): every
book line the compiled solver prints is a position won for its side to move and, after the book's
move, one lost for the other side; both values are kept in the store (``book check --solve`` then
reads them back instead of solving). What the store cannot share is the ``book`` command's own
search: it runs inside the C program against its own transposition table, which the protocol has
no way to seed from the store, and it prints only the lines it keeps, not the values it proved on
the way (the other side's refuted replies' subtrees, the moves it tried that lose), so those are
neither read from nor written to it.
"""

import json
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from engine.book import FIRST_FORMAT, Book, BookError, book_info, book_key, check_move, key_ply, load_book
from engine.common.pools import process_pool
from engine.common.progress import LineSink
from engine.constants import Move, colour_word
from engine.coords import move_to_text as describe_move
from engine.native.book_fill import Line, fill_book, first_move_candidates, store_lines
from engine.native.compiler import DEFAULT_TABLE_BITS
from engine.native.sections import (
    BookSection,
    book_sections,
    describe_start,
    losing_first_moves,
    with_sections,
)
from engine.native.solver import NativeSolver, describe_position, position_from_text
from engine.position import Position
from engine.symmetry import turn_move

TextLine = Tuple[str, Move]  # a book line (engine.native.book_fill.Line), the position as the solver's text


def _subtree_lines(job: Tuple[str, int, int]) -> Tuple[str, List[TextLine], int]:
    """Worker: the book lines from one position (nothing when its mover has lost), with the
    solver's node count; runs in its own process with its own compiled solver."""
    text, max_ply, table_bits = job
    start = position_from_text(text)
    with NativeSolver(table_bits) as solver:
        lines = [(describe_position(position), move) for position, move in solver.book_lines(max_ply, start)]
        return text, lines, solver.nodes


def build_book(
    max_ply: int,
    table_bits: int = DEFAULT_TABLE_BITS,
    progress: Optional[Callable[[Position], object]] = None,
    start: Optional[Position] = None,
    jobs: int = 1,
    report: Optional[LineSink] = None,
    store: Optional[str] = None,
) -> Book:
    """The opening book for Black: a winning move in every position up to ``max_ply`` that a
    Black playing the book's moves can meet, whatever White plays; stored once per symmetry class.
    (From ``start``, the same for the side to move there.)

    ``jobs`` > 1 proves the start's first move in parallel: one process per reply (one per
    symmetry class), each building the book below it; a first move is kept when every reply
    is won for the side that made it. ``report(text)`` hears of each finished reply. Every line's
    values go into the store at ``store`` (a path; None: none).
    """
    origin = start or Position.initial()
    moves: Dict[str, Move] = {}
    lines: List[Line] = []
    nodes = 0

    def add(position: Position, move: Move) -> None:
        key, index = book_key(position)
        moves.setdefault(key, turn_move(move, index))
        lines.append((position, move))
        if progress:
            progress(position)

    if jobs <= 1 or max_ply < origin.moves_played + 2:
        with NativeSolver(table_bits) as solver:
            for position, move in solver.book_lines(max_ply, start, progress=None):
                add(position, move)
            nodes = solver.nodes
    else:
        nodes = _parallel_book(origin, max_ply, table_bits, jobs, add, report or (lambda text: None))
    store_lines(store, lines)
    command = "littlego book build --max-ply {} --table-bits {}{}".format(
        max_ply, table_bits, f" --jobs {jobs}" if jobs > 1 else ""
    )
    section = BookSection(colour_word(origin.player), origin, max_ply, _provenance(command, nodes))
    info = with_sections({}, [section])
    info["positions"] = len(moves)
    return Book(moves, info)


def _parallel_book(
    origin: Position,
    max_ply: int,
    table_bits: int,
    jobs: int,
    add: Callable[[Position, Move], None],
    report: LineSink,
) -> int:
    """Find the start's first winning move with the replies proved in parallel; add its lines."""
    nodes = 0
    for first in first_move_candidates(origin):
        after = origin.play_point(first)
        if after.is_over:
            if after.margin() < 0:
                add(origin, first)
                return nodes
            continue
        replies: List[Position] = []
        seen: Set[str] = set()
        every: List[Move] = after.all_moves()
        for reply in every:
            position = after.play_point(reply)
            key = book_key(position)[0]
            if key not in seen:
                seen.add(key)
                replies.append(position)
        finished = [position for position in replies if position.is_over]
        if any(position.margin() < 0 for position in finished):
            continue  # a reply ends the game lost for the first mover
        work = [(describe_position(p), max_ply, table_bits) for p in replies if not p.is_over]
        report(f"{describe_move(first)} first: {len(work)} replies to prove, {jobs} at a time")
        pool = process_pool(min(jobs, len(work)), "spawn")
        try:
            found: List[List[TextLine]] = []
            lost, begun = False, time.time()
            for _text, lines, used in pool.imap_unordered(_subtree_lines, work):
                nodes += used
                report(
                    "  reply {} of {}: {} ({:,} nodes, {} book positions, {:.0f} s)".format(
                        len(found) + 1, len(work), "won" if lines else "LOST", used, len(lines), time.time() - begun
                    )
                )
                if not lines:
                    lost = True
                    break
                found.append(lines)
        finally:
            pool.terminate()
            pool.join()
        if lost:
            continue
        add(origin, first)
        for lines in found:
            for text, move in lines:
                add(position_from_text(text), move)
        return nodes
    return nodes


def build_white_book(
    max_ply: int,
    table_bits: int = DEFAULT_TABLE_BITS,
    jobs: int = 1,
    report: Optional[LineSink] = None,
    starts: Optional[List[Position]] = None,
    store: Optional[str] = None,
) -> Book:
    """The White book: after each of Black's losing first moves (``starts``, by default all of
    them), a winning White move for every position up to ``max_ply`` that a White following the
    book can meet, whatever Black plays; one section per first move, built ``jobs`` at a time
    (one compiled solver each). ``report(text)`` hears of each finished section. Positions two
    sections share get one move, so the sections are then walked again and any position left
    without a move solved (``fill_book``). Every line's values go into the store at ``store``."""
    starts = losing_first_moves() if starts is None else starts
    work = [(describe_position(start), max_ply, table_bits) for start in starts]
    results = _prove_white_sections(work, jobs, report or (lambda text: None))
    command = f"littlego book build --side white --max-ply {max_ply} --table-bits {table_bits}"
    moves: Dict[str, Move] = {}
    sections: List[BookSection] = []
    proved: List[Line] = []
    nodes = 0
    for text, _, _ in work:  # in the order of the starts, whatever finished first
        lines, used = results[text]
        nodes += used
        for line, move in lines:
            position = position_from_text(line)
            key, index = book_key(position)
            moves.setdefault(key, turn_move(move, index))
            proved.append((position, move))
        sections.append(BookSection("white", position_from_text(text), max_ply, _provenance(command, used)))
    store_lines(store, proved)
    book = Book(moves, with_sections({}, sections))
    filled, used = fill_book(book, table_bits, jobs, store=store)
    book.info["positions"] = len(book.moves)
    book.info["provenance"] = {"filled": filled, "nodes": nodes + used}
    return book


def _prove_white_sections(
    work: List[Tuple[str, int, int]], jobs: int, report: LineSink
) -> Dict[str, Tuple[List[TextLine], int]]:
    """{start: (its White book lines, solver nodes)} for each ``_subtree_lines`` job of ``work``, ``jobs``
    at a time; BookError where White has no winning move (the solver then contradicts the solved game)."""
    results: Dict[str, Tuple[List[TextLine], int]] = {}
    begun = time.time()
    with process_pool(min(jobs, len(work)), "spawn") as pool:
        for text, lines, used in pool.imap_unordered(_subtree_lines, work):
            if not lines:
                raise BookError(
                    f"White has no winning move {describe_start(position_from_text(text))}: the solver "
                    "contradicts the solved game"
                )
            results[text] = lines, used
            report(
                f"{describe_start(position_from_text(text))}: {len(lines):,} positions, {used:,} solver nodes "
                f"({time.time() - begun:.0f} s)"
            )
        pool.close()  # workers that end normally count their CPU to this process
        pool.join()
    return results


def _provenance(command: str, nodes: int) -> Dict[str, Any]:
    """A built section's provenance: the command that built it, the solver, its nodes and the Python."""
    return {"command": command, "solver": "engine/native/solve.c", "nodes": nodes, "python": sys.version.split()[0]}


_MOVER_BY_PARITY = ("black", "white")  # Black moves at even plies, White at odd


def trim_book(book: Book, max_ply: int, side: Optional[str] = None) -> Book:
    """``book`` with the moves of ``side`` (both when None) kept only up to ``max_ply``: the
    deeper entries dropped and each such section ending at ``max_ply``, its provenance saying so.
    A section of ``side`` starting after ``max_ply`` is dropped. Every move kept is one the book had, so
    the trimmed book keeps the win wherever the book did, and stops earlier."""
    sides = _MOVER_BY_PARITY if side is None else (side,)
    kept = {
        key: move
        for key, move in book.moves.items()
        if key_ply(key) <= max_ply or _MOVER_BY_PARITY[key_ply(key) % 2] not in sides
    }
    command = "littlego book trim --max-ply {}{}".format(max_ply, " --side " + side if side else "")
    sections = [
        section._replace(max_ply=max_ply, provenance=dict(section.provenance, trimmed=command))
        if section.side in sides and section.max_ply > max_ply
        else section
        for section in book_sections(book)
        if section.side not in sides or section.start.moves_played <= max_ply
    ]
    trimmed = Book(kept, with_sections(book.info, sections))
    trimmed.info["positions"] = len(kept)
    return trimmed


def read_first_format(path: str) -> Optional[Book]:
    """A book of the first format (one "moves" object of full keys), for ``book upgrade``: the
    only reader of that format; BookError naming the file and entry when it is not one."""
    try:
        with open(path, "rb") as handle:
            document = json.loads(handle.read().decode("utf-8"))
    except FileNotFoundError:
        raise BookError(f"{path}: no such book file")
    except (OSError, ValueError, RecursionError) as error:
        raise BookError(f"{path}: not a readable JSON book ({error})")
    if not isinstance(document, dict) or document.get("format") != FIRST_FORMAT:
        return None
    moves = document.get("moves")
    if not isinstance(moves, dict):
        raise BookError(f'{path}: "moves" must be an object of key: move')
    checked: Dict[str, Move] = {}
    for key, value in moves.items():
        try:
            checked[key] = check_move(value)
        except ValueError as error:
            raise BookError(f"{path}: entry {key!r}: {error}")
    return Book(checked, book_info(document, path), path=path)


def read_any_book(path: str) -> Book:
    """The book at ``path`` in any format this version knows (the first one for upgrading)."""
    return read_first_format(path) or load_book(path)
