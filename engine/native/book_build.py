"""The opening book built, extended and merged with the compiled exact solver.

``build_book`` proves the opening with ``NativeSolver.book_lines`` (the first move's replies
in parallel, one process each, with ``jobs``); ``build_white_book`` does the same for White
after each of Black's losing first moves, one section each (``engine.native.sections``);
``extend_book`` adds a deeper layer of positions at a time; ``merge_books`` puts books
together in one file, solving any position their sections then meet without a move;
``trim_book`` keeps a side's moves only to a shallower ply (a smaller file).

The store of solved positions (``engine.native.store``, ``store`` a path or None for none): every
book line the compiled solver prints is a position won for its side to move and, after the book's
move, one lost for the other side; both values are kept in the store (``book check --solve`` then
reads them back instead of solving). ``fill_book`` (extend, merge, the White book's filling) asks the
store first for each position it needs a move for and takes a winning move from the results stored
there. What the store cannot share is the ``book`` command's own search: it runs inside the C program
against its own transposition table, which the protocol has no way to seed from the store, and it
prints only the lines it keeps, not the values it proved on the way (the other side's refuted
replies' subtrees, the moves it tried that lose), so those are neither read from nor written to it.
"""

import json
import multiprocessing.pool
import sys
import time
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from engine.book import FIRST_FORMAT, Book, BookError, book_info, book_key, check_move, key_ply, load_book
from engine.common.pools import process_pool
from engine.constants import BOARD_SIZE, NUM_POINTS, PASS, Move, colour_word
from engine.coords import move_to_text as describe_move
from engine.native.compiler import DEFAULT_TABLE_BITS
from engine.native.sections import (
    BookSection,
    book_positions,
    book_sections,
    describe_start,
    losing_first_moves,
    with_sections,
)
from engine.native.solver import NativeSolver, describe_position, position_from_text
from engine.native.store import SolvedStore, open_store
from engine.position import Position
from engine.symmetry import turn_move

Line = Tuple[Position, Move]  # a book line: a position and its winning move
TextLine = Tuple[str, Move]  # the same, the position as the solver's text
Report = Callable[[str], object]  # hears a line of news
LayerProgress = Callable[[int, int, int], object]  # progress(done, total, ply) of a layer's positions


def _subtree_lines(job: Tuple[str, int, int]) -> Tuple[str, List[TextLine], int]:
    """Worker: the book lines from one position (nothing when its mover has lost), with the
    solver's node count; runs in its own process with its own compiled solver."""
    text, max_ply, table_bits = job
    start = position_from_text(text)
    with NativeSolver(table_bits) as solver:
        lines = [(describe_position(position), move) for position, move in solver.book_lines(max_ply, start)]
        return text, lines, solver.nodes


def _first_move_candidates(position: Position) -> List[Move]:
    """The start's moves, most likely winners first (the centre outwards: 2,2 wins the empty board)."""
    centre = NUM_POINTS // 2

    def distance(point: int) -> int:
        return abs(point // BOARD_SIZE - centre // BOARD_SIZE) + abs(point % BOARD_SIZE - centre % BOARD_SIZE)

    return sorted(position.legal_points(), key=distance) + [PASS]


def line_values(lines: Iterable[Line]) -> Dict[Position, bool]:
    """{position: whether its mover wins} that book lines ((position, winning move)) prove: each
    position won, and the position after its move lost for the other side (unless the game is over)."""
    values: Dict[Position, bool] = {}
    for position, move in lines:
        values[position] = True
        after = position.play_point(move)
        if not after.is_over:
            values[after] = False
    return values


def store_lines(store: Optional[str], lines: Sequence[Line]) -> None:
    """Keep the values ``lines`` prove in the store at ``store`` (a path; None: nothing)."""
    if store is None or not lines:
        return
    with open_store(store) as stored:
        stored.record_values(line_values(lines))


def build_book(
    max_ply: int,
    table_bits: int = DEFAULT_TABLE_BITS,
    progress: Optional[Callable[[Position], object]] = None,
    start: Optional[Position] = None,
    jobs: int = 1,
    report: Optional[Report] = None,
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
    section = BookSection(
        colour_word(origin.player),
        origin,
        max_ply,
        {
            "command": "littlego book build --max-ply {} --table-bits {}{}".format(
                max_ply, table_bits, f" --jobs {jobs}" if jobs > 1 else ""
            ),
            "solver": "engine/native/solve.c",
            "nodes": nodes,
            "python": sys.version.split()[0],
        },
    )
    info = with_sections({}, [section])
    info["positions"] = len(moves)
    return Book(moves, info)


def _parallel_book(
    origin: Position,
    max_ply: int,
    table_bits: int,
    jobs: int,
    add: Callable[[Position, Move], None],
    report: Report,
) -> int:
    """Find the start's first winning move with the replies proved in parallel; add its lines."""
    nodes = 0
    for first in _first_move_candidates(origin):
        after = origin.play_point(first)
        if after.is_over:
            if after.margin() < 0:
                add(origin, first)
                return nodes
            continue
        replies: List[Position] = []
        seen: Set[str] = set()
        every: List[Move] = after.legal_points() + [PASS]
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


def _winning_moves(job: Tuple[List[str], int]) -> Tuple[List[Tuple[str, Optional[Move]]], int]:
    """Worker: a winning move (None where there is none) for each position text, with the nodes
    it took; one compiled solver for the chunk, whose table serves neighbouring positions."""
    texts, table_bits = job
    found: List[Tuple[str, Optional[Move]]] = []
    with NativeSolver(table_bits) as solver:
        for text in texts:
            position = position_from_text(text)
            lines = list(solver.book_lines(position.moves_played, position))
            found.append((text, lines[0][1] if lines else None))
        return found, solver.nodes


def build_white_book(
    max_ply: int,
    table_bits: int = DEFAULT_TABLE_BITS,
    jobs: int = 1,
    report: Optional[Report] = None,
    starts: Optional[List[Position]] = None,
    store: Optional[str] = None,
) -> Book:
    """The White book: after each of Black's losing first moves (``starts``, by default all of
    them), a winning White move for every position up to ``max_ply`` that a White following the
    book can meet, whatever Black plays; one section per first move, built ``jobs`` at a time
    (one compiled solver each). ``report(text)`` hears of each finished section. Positions two
    sections share get one move, so the sections are then walked again and any position left
    without a move solved (``fill_book``). Every line's values go into the store at ``store``."""
    report = report or (lambda text: None)
    starts = losing_first_moves() if starts is None else starts
    work = [(describe_position(start), max_ply, table_bits) for start in starts]
    moves: Dict[str, Move] = {}
    sections: List[BookSection] = []
    nodes = 0
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
    proved: List[Line] = []
    for text, _, _ in work:  # in the order of the starts, whatever finished first
        lines, used = results[text]
        nodes += used
        for line, move in lines:
            position = position_from_text(line)
            key, index = book_key(position)
            moves.setdefault(key, turn_move(move, index))
            proved.append((position, move))
        sections.append(
            BookSection(
                "white",
                position_from_text(text),
                max_ply,
                {
                    "command": f"littlego book build --side white --max-ply {max_ply} --table-bits {table_bits}",
                    "solver": "engine/native/solve.c",
                    "nodes": used,
                    "python": sys.version.split()[0],
                },
            )
        )
    store_lines(store, proved)
    book = Book(moves, with_sections({}, sections))
    filled, used = fill_book(book, table_bits, jobs, store=store)
    book.info["positions"] = len(book.moves)
    book.info["provenance"] = {"filled": filled, "nodes": nodes + used}
    return book


def merge_books(
    books: Iterable[Book],
    table_bits: int = DEFAULT_TABLE_BITS,
    jobs: int = 1,
    progress: Optional[LayerProgress] = None,
    store: Optional[str] = None,
) -> Tuple[Book, int, int]:
    """One book serving every section of ``books`` (the first book's move where two have one for
    the same position), with the positions a section then meets without a move solved; (the
    book, positions so filled, solver nodes)."""
    moves: Dict[str, Move] = {}
    sections: List[BookSection] = []
    for book in books:
        for key, move in book.moves.items():
            moves.setdefault(key, move)
        sections += book_sections(book)
    merged = Book(moves, with_sections({}, sections))
    filled, nodes = fill_book(merged, table_bits, jobs, progress, store=store)
    merged.info["positions"] = len(merged.moves)
    return merged, filled, nodes


def fill_book(
    book: Book,
    table_bits: int = DEFAULT_TABLE_BITS,
    jobs: int = 1,
    progress: Optional[LayerProgress] = None,
    chunk: int = 200,
    store: Optional[str] = None,
) -> Tuple[int, int]:
    """Add to ``book`` a winning move for every position its sections meet without one, one
    layer at a time (a position is met only once the moves before it are in the book); (positions
    added, solver nodes). The positions of a layer are solved in chunks, ``jobs`` processes at a
    time; ``progress(done, total, ply)`` hears of each chunk. BookError when a position met is
    lost: then a move already in the book gave the win away. A position whose every move the store
    at ``store`` (a path; None: none) holds takes a winning move from there, unsolved; the values the
    solver proves go into it."""
    before, nodes = len(book.moves), 0
    pool = process_pool(jobs, "spawn") if jobs > 1 else None
    stored = open_store(store)
    try:
        while True:
            frontier = [position for position, move in book_positions(book) if move is None]
            if not frontier:
                break
            nodes += _solve_layer(book, frontier, pool, table_bits, chunk, progress, stored)
        if pool is not None:  # workers that end normally count their CPU (their solvers'
            pool.close()  # too) to this process
            pool.join()
            pool = None
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        if stored is not None:
            stored.close()
    return len(book.moves) - before, nodes


def extend_book(
    book: Book,
    max_ply: int,
    table_bits: int = DEFAULT_TABLE_BITS,
    jobs: int = 1,
    progress: Optional[LayerProgress] = None,
    chunk: int = 200,
    side: Optional[str] = None,
    store: Optional[str] = None,
) -> Tuple[Book, int]:
    """``book`` with its sections (those of ``side`` when given) taken to ``max_ply``: a winning
    move added for every position up to it that a side following the book can meet and that has
    none yet (``fill_book``, with the store at ``store``), and the solver nodes that took; each
    deepened section's provenance records the extension."""
    command = "littlego book extend --max-ply {} --table-bits {} --jobs {}{}".format(
        max_ply, table_bits, jobs, " --side " + side if side else ""
    )
    deepen = [side in (None, section.side) and section.max_ply < max_ply for section in book_sections(book)]
    sections = [
        section._replace(max_ply=max_ply) if deeper else section for section, deeper in zip(book_sections(book), deepen)
    ]
    grown = Book(dict(book.moves), with_sections(book.info, sections))
    added, nodes = fill_book(grown, table_bits, jobs, progress, chunk, store)
    record = {"command": command, "nodes": nodes, "positions_added": added}
    deepened = [
        section._replace(
            provenance=dict(section.provenance, extended=list(section.provenance.get("extended", [])) + [record])
        )
        if deeper
        else section
        for section, deeper in zip(sections, deepen)
    ]
    grown.info = with_sections(grown.info, deepened)
    grown.info["positions"] = len(grown.moves)
    return grown, nodes


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


def stored_winning_move(store: Optional[SolvedStore], position: Position) -> Tuple[bool, Optional[Move]]:
    """(whether the store holds every move of ``position``, a winning move there or None): the move the
    book takes from the store, the likeliest winners first, as ``_first_move_candidates`` orders them."""
    results = None if store is None else store.results(position)
    if results is None:
        return False, None
    return True, next((move for move in _first_move_candidates(position) if results[move]), None)


def _lost_in_book(position: Position) -> BookError:
    return BookError(
        f"no winning move at ply {position.moves_played} in:\n{position}\nthe book's earlier moves gave the win away"
    )


def _solve_layer(
    grown: Book,
    frontier: List[Position],
    pool: Optional[multiprocessing.pool.Pool],
    table_bits: int,
    chunk: int,
    progress: Optional[LayerProgress],
    store: Optional[SolvedStore] = None,
) -> int:
    """Add to ``grown`` a winning move for each frontier position (from the SolvedStore ``store``
    where it holds the position, else solved, the values proved kept there); the solver's nodes."""
    ply = min(position.moves_played for position in frontier)
    by_text = {describe_position(position): position for position in frontier}  # walk order kept
    texts: List[str] = []
    done = 0
    for text, position in by_text.items():
        held, move = stored_winning_move(store, position)
        if not held:
            texts.append(text)
            continue
        if move is None:
            raise _lost_in_book(position)
        key, index = book_key(position)
        grown.moves.setdefault(key, turn_move(move, index))
        done += 1
    if done and progress:
        progress(done, len(by_text), ply)
    work = [(texts[i : i + chunk], table_bits) for i in range(0, len(texts), chunk)]
    results = pool.imap_unordered(_winning_moves, work) if pool else map(_winning_moves, work)
    nodes = 0
    for found, used in results:
        nodes += used
        if store is not None:
            store.record_values(line_values((by_text[text], move) for text, move in found if move is not None))
            store.record_values({by_text[text]: False for text, move in found if move is None})
        for text, move in found:
            position = by_text[text]
            if move is None:
                raise _lost_in_book(position)
            key, index = book_key(position)
            grown.moves.setdefault(key, turn_move(move, index))
        done += len(found)
        if progress:
            progress(done, len(by_text), ply)
    return nodes


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
