"""The compiled exact solver (``native/solve.c``): opening positions and the opening book.

``engine.solver`` settles positions from about ply 10 on in pure Python; earlier ones need
hundreds of millions of nodes, which only compiled code visits in minutes. This module
compiles ``native/solve.c`` with the machine's C compiler (once, into a cache folder keyed
by the source's hash), talks to it over a pipe, and builds the opening book from its
answers. The rules in C are tested against ``engine.position`` (tests/test_native.py).
"""

import hashlib
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time

from engine.book import Book, BookError, book_key, to_canonical
from engine.constants import BLACK, BOARD_SIZE, NUM_POINTS, PASS
from engine.coords import move_to_text as describe_move
from engine.position import Position

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native", "solve.c")
NATIVE_PASS = 25          # the C program's number for a pass


class NativeError(RuntimeError):
    """The compiled solver cannot be built or stopped answering; the message says why."""


def _cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "littlego")


def compiled_solver(source=SOURCE):
    """The path of the compiled solver, compiling it first if this source was never compiled here."""
    with open(source, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()[:16]
    folder = _cache_dir()
    binary = os.path.join(folder, "solve-" + digest)
    if os.path.exists(binary):
        return binary
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        raise NativeError("no C compiler found (set CC, or install gcc): the exact opening solver is compiled C")
    os.makedirs(folder, exist_ok=True)
    handle, staging = tempfile.mkstemp(prefix=".solve-", dir=folder)
    os.close(handle)
    try:
        done = subprocess.run([compiler, "-O2", "-o", staging, source], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
        if done.returncode != 0:
            raise NativeError("compiling {} with {} failed:\n{}".format(source, compiler, done.stdout))
        os.replace(staging, binary)
    finally:
        if os.path.exists(staging):
            os.unlink(staging)
    return binary


def describe_position(position):
    """The C program's text of a position: colour, ply, previous board, current board."""
    return "{} {} {} {}".format(position.player, position.moves_played, position.previous_string(),
                                position.board_string())


def position_from_text(text):
    """The position a ``describe_position`` text names; ValueError when it names none."""
    player, ply, previous, current = text.split()
    return Position.from_boards(int(player), previous, current, int(ply))


def colour_word(colour):
    return "black" if colour == BLACK else "white"


def _move_of(number):
    return PASS if number == NATIVE_PASS else number


class NativeSolver(object):
    """A running compiled solver; its transposition table lasts as long as the process.

    ``table_bits``: log2 of the table's buckets of four entries (8 bytes each): 22 takes
    128 MiB, 24 takes 512 MiB.
    """

    def __init__(self, table_bits=22):
        self.process = subprocess.Popen([compiled_solver(), str(table_bits)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        universal_newlines=True, bufsize=1)
        self.nodes = 0

    def _ask(self, line):
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise NativeError("the compiled solver stopped ({})".format(error))
        answer = self.process.stdout.readline()
        if answer and not answer.startswith("error"):
            self._read_stats()
        if not answer:
            raise NativeError("the compiled solver stopped without answering {!r}".format(line))
        if answer.startswith("error"):
            raise NativeError("the compiled solver refused {!r}: {}".format(line, answer.strip()))
        return answer.strip()

    def _read_stats(self):
        """Count the nodes of the last command from the line the program writes after it."""
        while True:
            line = self.process.stderr.readline()
            if not line:
                raise NativeError("the compiled solver stopped")
            if line.startswith("stats nodes"):
                self.nodes += int(line.split()[-1])
                return

    def wins(self, position):
        """Whether the side to move wins with perfect play."""
        if position.is_over:
            return position.margin() > 0
        return self._ask("wins " + describe_position(position)) == "1"

    def move_results(self, position):
        """{move: whether it wins} for every legal move and PASS."""
        answer = self._ask("moves " + describe_position(position))
        results = {}
        for item in answer.split():
            move, won = item.split(":")
            results[_move_of(int(move))] = won == "1"
        return results

    def book_lines(self, max_ply, start=None, progress=None):
        """(position, winning move) for every position up to ``max_ply`` that the side to move at
        ``start`` (Black at the empty board by default) meets if it plays these moves."""
        try:
            self.process.stdin.write("book {}{}\n".format(
                max_ply, " " + describe_position(start) if start is not None else ""))
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise NativeError("the compiled solver stopped ({})".format(error))
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise NativeError("the compiled solver stopped while building the book")
            line = line.split()
            if line == ["end"]:
                self._read_stats()
                break
            position, move = position_from_text(" ".join(line[:4])), line[4]
            if progress:
                progress(position)
            yield position, _move_of(int(move))

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            stream.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


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


def build_book(max_ply, table_bits=24, progress=None, start=None, jobs=1, report=None):
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
        moves.setdefault(key, to_canonical(move, index))
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
                           "solver": "engine/arena/native/solve.c", "nodes": nodes,
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
        pool = multiprocessing.get_context("spawn").Pool(min(jobs, len(work)))
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


def extend_book(book, max_ply, table_bits=22, jobs=1, progress=None, chunk=200):
    """``book`` with a winning move added for every position up to ``max_ply`` that a Black
    following it can meet and that has none yet (a deeper book, one layer at a time), and the
    solver nodes that took. The positions of a layer are solved in chunks, ``jobs`` processes
    at a time; ``progress(done, total, ply)`` hears of each chunk. BookError when a position
    met is lost: then a move already in the book gave the win away."""
    start = book_start(book)
    grown = Book(dict(book.moves), dict(book.info))
    nodes = 0
    pool = None
    try:
        while True:
            frontier = [position for position, move in book_positions(grown, max_ply, start) if move is None]
            if not frontier:
                break
            ply = min(position.moves_played for position in frontier)
            by_text = {describe_position(position): position for position in frontier}   # walk order kept
            texts = list(by_text)
            work = [(texts[i:i + chunk], table_bits) for i in range(0, len(texts), chunk)]
            if pool is None and jobs > 1:
                pool = multiprocessing.get_context("spawn").Pool(jobs)
            results = pool.imap_unordered(_winning_moves, work) if pool else map(_winning_moves, work)
            done = 0
            for found, used in results:
                nodes += used
                for text, move in found:
                    position = by_text[text]
                    if move is None:
                        raise BookError("no winning move at ply {} in:\n{}\nthe book's earlier moves gave the "
                                        "win away".format(position.moves_played, position))
                    key, index = book_key(position)
                    grown.moves.setdefault(key, to_canonical(move, index))
                done += len(found)
                if progress:
                    progress(done, len(texts), ply)
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
    return grown, nodes


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
        raise BookError("the book's start {!r} is not a position: {}".format(text, error))


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
