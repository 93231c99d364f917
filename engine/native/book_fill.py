"""A book's gaps filled with the compiled exact solver: a winning move for every position its
sections meet without one, a layer at a time; ``extend_book`` (a section taken deeper) and
``merge_books`` (books put together in one file) are filled so, as is the White book
(``engine.native.book_build``).

The store of solved positions (``engine.native.store``, ``store`` a path or None for none):
``fill_book`` asks the store first for each position it needs a move for and takes a winning move
from the results stored there (``stored_winning_move``); what the solver proves on the way goes into
it, as the values book lines prove do (``line_values``, ``store_lines``).
"""

import multiprocessing.pool
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from engine.book import Book, BookError, book_key
from engine.common.pools import process_pool
from engine.constants import BOARD_SIZE, NUM_POINTS, PASS, Move
from engine.native.compiler import DEFAULT_TABLE_BITS
from engine.native.sections import BookSection, book_positions, book_sections, with_sections
from engine.native.solver import NativeSolver, describe_position, position_from_text
from engine.native.store import SolvedStore, open_store
from engine.position import Position
from engine.symmetry import turn_move

Line = Tuple[Position, Move]  # a book line: a position and its winning move
LayerProgress = Callable[[int, int, int], object]  # progress(done, total, ply) of a layer's positions


def first_move_candidates(position: Position) -> List[Move]:
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


def stored_winning_move(store: Optional[SolvedStore], position: Position) -> Tuple[bool, Optional[Move]]:
    """(whether the store holds every move of ``position``, a winning move there or None): the move the
    book takes from the store, the likeliest winners first, as ``first_move_candidates`` orders them."""
    results = None if store is None else store.results(position)
    if results is None:
        return False, None
    return True, next((move for move in first_move_candidates(position) if results[move]), None)


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
