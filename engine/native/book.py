"""The opening book built, extended and checked with the compiled exact solver.

``build_book`` proves the opening with ``NativeSolver.book_lines`` (the first move's replies
in parallel, one process each, with ``jobs``); ``extend_book`` adds a deeper layer of
positions at a time; ``book_positions`` walks every position a book-following side meets,
and ``check_book`` reports where the book has no move or (with a solver) loses the win.
"""

import json
import sys
import time

from engine.book import FIRST_FORMAT, Book, BookError, book_info, book_key, check_move, load_book
from engine.symmetry import turn_move
from engine.constants import BOARD_SIZE, NUM_POINTS, PASS, colour_word
from engine.coords import move_to_text as describe_move
from engine.position import Position
from engine.common.pools import process_pool
from engine.native.compiler import DEFAULT_TABLE_BITS
from engine.native.solver import NativeSolver, describe_position, position_from_text

def _subtree_lines(job):
    """Worker: the book lines from one position (nothing when its mover has lost), with the
    solver's node count; runs in its own process with its own compiled solver."""
    text, max_ply, table_bits = job
    start = position_from_text(text)
    with NativeSolver(table_bits) as solver:
        lines = [(describe_position(position), move) for position, move in solver.book_lines(max_ply, start)]
        return text, lines, solver.nodes


def _first_move_candidates(position):
    """The start's moves, most likely winners first (the centre outwards: 2,2 wins the empty board)."""
    centre = NUM_POINTS // 2
    def distance(point):
        return abs(point // BOARD_SIZE - centre // BOARD_SIZE) + abs(point % BOARD_SIZE - centre % BOARD_SIZE)
    return sorted(position.legal_points(), key=distance) + [PASS]


def build_book(max_ply, table_bits=DEFAULT_TABLE_BITS, progress=None, start=None, jobs=1, report=None):
    """The opening book for Black: a winning move in every position up to ``max_ply`` that a
    Black playing the book's moves can meet, whatever White plays; stored once per symmetry class.
    (From ``start``, the same for the side to move there.)

    ``jobs`` > 1 proves the start's first move in parallel: one process per reply (one per
    symmetry class), each building the book below it; a first move is kept when every reply
    is won for the side that made it. ``report(text)`` hears of each finished reply.
    """
    origin = start or Position.initial()
    moves, nodes = {}, 0

    def add(position, move):
        key, index = book_key(position)
        moves.setdefault(key, turn_move(move, index))
        if progress:
            progress(position)

    if jobs <= 1 or max_ply < origin.moves_played + 2:
        with NativeSolver(table_bits) as solver:
            for position, move in solver.book_lines(max_ply, start, progress=None):
                add(position, move)
            nodes = solver.nodes
    else:
        nodes = _parallel_book(origin, max_ply, table_bits, jobs, add, report or (lambda text: None))
    info = {"side": "black" if start is None else colour_word(start.player), "max_ply": max_ply, "positions": len(moves),
            "start": describe_position(origin),
            "provenance": {"command": "littlego book build --max-ply {} --table-bits {}{}".format(
                               max_ply, table_bits, " --jobs {}".format(jobs) if jobs > 1 else ""),
                           "solver": "engine/native/solve.c", "nodes": nodes,
                           "python": sys.version.split()[0]}}
    return Book(moves, info)


def _parallel_book(origin, max_ply, table_bits, jobs, add, report):
    """Find the start's first winning move with the replies proved in parallel; add its lines."""
    nodes = 0
    for first in _first_move_candidates(origin):
        after = origin.play_point(first)
        if after.is_over:
            if after.margin() < 0:
                add(origin, first)
                return nodes
            continue
        replies, seen = [], set()
        for reply in after.legal_points() + [PASS]:
            position = after.play_point(reply)
            key = book_key(position)[0]
            if key not in seen:
                seen.add(key)
                replies.append(position)
        finished = [position for position in replies if position.is_over]
        if any(position.margin() < 0 for position in finished):
            continue                       # a reply ends the game lost for the first mover
        work = [(describe_position(p), max_ply, table_bits) for p in replies if not p.is_over]
        report("{} first: {} replies to prove, {} at a time".format(describe_move(first), len(work), jobs))
        pool = process_pool(min(jobs, len(work)), "spawn")
        try:
            found, lost, begun = [], False, time.time()
            for text, lines, used in pool.imap_unordered(_subtree_lines, work):
                nodes += used
                report("  reply {} of {}: {} ({:,} nodes, {} book positions, {:.0f} s)".format(
                    len(found) + 1, len(work), "won" if lines else "LOST", used, len(lines), time.time() - begun))
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


def _winning_moves(job):
    """Worker: a winning move (None where there is none) for each position text, with the nodes
    it took; one compiled solver for the chunk, whose table serves neighbouring positions."""
    texts, table_bits = job
    found = []
    with NativeSolver(table_bits) as solver:
        for text in texts:
            position = position_from_text(text)
            lines = list(solver.book_lines(position.moves_played, position))
            found.append((text, lines[0][1] if lines else None))
        return found, solver.nodes


def extend_book(book, max_ply, table_bits=DEFAULT_TABLE_BITS, jobs=1, progress=None, chunk=200):
    """``book`` with a winning move added for every position up to ``max_ply`` that a Black
    following it can meet and that has none yet (a deeper book, one layer at a time), and the
    solver nodes that took; the new book's provenance records the extension. The positions of a
    layer are solved in chunks, ``jobs`` processes at a time; ``progress(done, total, ply)``
    hears of each chunk. BookError when a position met is lost: then a move already in the book
    gave the win away."""
    start = book_start(book)
    grown = Book(dict(book.moves), dict(book.info))
    nodes = 0
    pool = process_pool(jobs, "spawn") if jobs > 1 else None
    try:
        while True:
            frontier = [position for position, move in book_positions(grown, max_ply, start) if move is None]
            if not frontier:
                break
            nodes += _solve_layer(grown, frontier, pool, table_bits, chunk, progress)
        if pool is not None:            # workers that end normally count their CPU (their solvers'
            pool.close()                # too) to this process
            pool.join()
            pool = None
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    grown.info["max_ply"] = max(max_ply, book.info.get("max_ply", 0))
    grown.info["positions"] = len(grown.moves)
    provenance = dict(grown.info.get("provenance") or {})
    provenance["extended"] = list(provenance.get("extended", [])) + [{
        "command": "littlego book extend --max-ply {} --table-bits {} --jobs {}".format(max_ply, table_bits, jobs),
        "nodes": nodes, "positions_added": len(grown) - len(book)}]
    grown.info["provenance"] = provenance
    return grown, nodes


def _solve_layer(grown, frontier, pool, table_bits, chunk, progress):
    """Add to ``grown`` a winning move for each frontier position of the lowest ply; the solver's nodes."""
    ply = min(position.moves_played for position in frontier)
    by_text = {describe_position(position): position for position in frontier}   # walk order kept
    texts = list(by_text)
    work = [(texts[i:i + chunk], table_bits) for i in range(0, len(texts), chunk)]
    results = pool.imap_unordered(_winning_moves, work) if pool else map(_winning_moves, work)
    done = nodes = 0
    for found, used in results:
        nodes += used
        for text, move in found:
            position = by_text[text]
            if move is None:
                raise BookError("no winning move at ply {} in:\n{}\nthe book's earlier moves gave the "
                                "win away".format(position.moves_played, position))
            key, index = book_key(position)
            grown.moves.setdefault(key, turn_move(move, index))
        done += len(found)
        if progress:
            progress(done, len(texts), ply)
    return nodes


def book_positions(book, max_ply=None, start=None):
    """Every position up to ``max_ply`` (the book's own, by default) that a Black following the
    book can meet (or the side to move at ``start``), once per symmetry class: (position, the
    book's move or None where it has none)."""
    max_ply = book.info.get("max_ply", 0) if max_ply is None else max_ply
    if start is None:
        start = book_start(book)
    seen = set()
    frontier = [start or Position.initial()]
    while frontier:
        position = frontier.pop()
        if position.is_over or position.moves_played > max_ply:
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
        for reply in after.legal_points() + [PASS]:
            frontier.append(after.play_point(reply))


def book_start(book):
    """The position a book was built from (its ``start``; the empty board when it has none)."""
    text = book.info.get("start")
    if not text:
        return Position.initial()
    try:
        return position_from_text(text)
    except ValueError as error:
        raise BookError("{}: the book's start {!r} is not a position: {}".format(book.path, text, error))


def check_book(book, solver=None, max_ply=None, progress=None, start=None):
    """(positions met, missing, wrong): where a book-following Black finds no move, and (with a
    ``NativeSolver``, or any object with ``wins(position)``) the book moves that do not keep the win."""
    met, missing, wrong = 0, [], []
    for position, move in book_positions(book, max_ply, start):
        met += 1
        if move is None:
            missing.append(position)
        elif solver is not None and solver.wins(position.play_point(move)):
            wrong.append((position, move))
        if progress:
            progress(met)
    return met, missing, wrong


def read_first_format(path):
    """A book of the first format (one "moves" object of full keys), for ``book upgrade``: the
    only reader of that format; BookError naming the file and entry when it is not one."""
    try:
        with open(path, "rb") as handle:
            document = json.loads(handle.read().decode("utf-8"))
    except FileNotFoundError:
        raise BookError("{}: no such book file".format(path))
    except (OSError, ValueError, RecursionError) as error:
        raise BookError("{}: not a readable JSON book ({})".format(path, error))
    if not isinstance(document, dict) or document.get("format") != FIRST_FORMAT:
        return None
    moves = document.get("moves")
    if not isinstance(moves, dict):
        raise BookError("{}: \"moves\" must be an object of key: move".format(path))
    checked = {}
    for key, value in moves.items():
        try:
            checked[key] = check_move(value)
        except ValueError as error:
            raise BookError("{}: entry {!r}: {}".format(path, key, error))
    return Book(checked, book_info(document, path), path=path)


def read_any_book(path):
    """The book at ``path`` in any format this version knows (the first one for upgrading)."""
    return read_first_format(path) or load_book(path)
