"""``littlego book``: build, extend, upgrade and check the opening book with the compiled solver."""

import os
import sys

from engine.constants import MAX_MOVES
from engine.book import load_book
from engine.cli.arguments import (
    add_table_bits, command, file_to_write, group, integer_range, positive_int,
)
from engine.common.pools import cpu_with_children
from engine.common.progress import counter
from engine.native.book import build_book, check_book, extend_book, read_any_book
from engine.native.solver import NativeSolver
from engine.protocol import write_atomic
from engine.ui.board import describe

_LAST_PLY = integer_range(0, MAX_MOVES - 2)


def register(commands):
    actions = group(commands, "book", "build, extend, upgrade or check the opening book (book.json)", "ACTION")
    build = command(actions, "build", _build)
    build.add_argument("--max-ply", type=_LAST_PLY, default=8, help="the last ply with book moves (default %(default)s)")
    build.add_argument("--out", default="book.json", help="file to write (default: %(default)s)")
    add_table_bits(build)
    build.add_argument("--jobs", type=positive_int, default=1,
                       help="solver processes: more than 1 proves the first move's replies in parallel, one "
                            "process each (default %(default)s)")
    extend = command(actions, "extend", _extend)
    extend.add_argument("book", help="book file to extend")
    extend.add_argument("--max-ply", type=_LAST_PLY, required=True, help="the new last ply with book moves")
    extend.add_argument("--out", help="file to write (default: BOOK)")
    add_table_bits(extend)
    extend.add_argument("--jobs", type=positive_int, default=1, help="solver processes (default %(default)s)")
    upgrade = command(actions, "upgrade", _upgrade)
    upgrade.add_argument("book", help="book file to rewrite")
    upgrade.add_argument("--out", help="file to write (default: BOOK)")
    check = command(actions, "check", _check)
    check.add_argument("book", help="book file")
    check.add_argument("--max-ply", type=_LAST_PLY, help="walk to this ply (default: the book's)")
    check.add_argument("--solve", action="store_true", help="check every move with the compiled solver")
    add_table_bits(check, "the solver's")


def _say(text):
    print(text, file=sys.stderr, flush=True)


def _build(args):
    """compute the opening book with the compiled exact solver

    Solve the opening with the compiled solver (engine/native/solve.c, compiled once with
    the machine's C compiler) and write a book of one winning Black move for every position,
    up to --max-ply, that a Black following the book can meet whatever White plays, one
    entry per symmetry class. The agent plays the book's move where it has one, and solves
    exactly from its params' solve_from ply on.
    """
    file_to_write(args.out, "--out", "book.json")          # found out now, not after hours of solving
    started = cpu_with_children()

    def progress(position, count=[0]):
        count[0] += 1
        if count[0] % 1000 == 0:
            _say("  {:,} positions (ply {})".format(count[0], position.moves_played))

    book = build_book(args.max_ply, args.table_bits, progress, jobs=args.jobs, report=_say)
    write_atomic(args.out, book.to_json())
    print("{}: {:,} positions up to ply {}, {:,} solver nodes, {:.0f} s of CPU (the solver's included)".format(
        args.out, len(book), args.max_ply, book.info["provenance"]["nodes"], cpu_with_children() - started))
    return 0


def _extend(args):
    """add deeper plies to a book with the compiled exact solver

    Find, with the compiled solver, a winning move for every position up to --max-ply that a
    Black following BOOK can meet and that has no book move yet, one ply of Black's at a
    time, and write the deeper book (BOOK itself unless --out). Positions are solved in
    chunks, --jobs processes at a time. Fails, writing nothing, if a position met is lost.
    """
    out = args.out or args.book
    file_to_write(out, "--out", "book.json")
    book = load_book(args.book)
    if args.max_ply <= book.info.get("max_ply", 0):
        raise ValueError("{} already reaches ply {}: --max-ply must be deeper".format(
            args.book, book.info.get("max_ply", 0)))
    started = cpu_with_children()

    def progress(done, total, ply):
        _say("  ply {}: {:,} of {:,} positions solved".format(ply, done, total))

    grown, nodes = extend_book(book, args.max_ply, args.table_bits, args.jobs, progress)
    write_atomic(out, grown.to_json())
    print("{}: {:,} positions up to ply {} ({:,} added), {:,} solver nodes, {:.0f} s of CPU (the solver's "
          "included)".format(out, len(grown), grown.info["max_ply"], len(grown) - len(book), nodes,
                             cpu_with_children() - started))
    return 0


def _upgrade(args):
    """rewrite a book in the current file format

    Read BOOK (any format this version reads, every entry checked) and write it in the
    current one, its positions and information unchanged: BOOK itself unless --out.
    """
    out = args.out or args.book
    file_to_write(out, "--out", "book.json")
    book = read_any_book(args.book)
    before = os.path.getsize(args.book)
    size = len(book.moves)                       # every key read and checked before anything is written
    write_atomic(out, book.to_json())
    print("{}: {:,} positions, {:,} bytes (was {:,})".format(out, size, os.path.getsize(out), before))
    return 0


def _check(args):
    """check that a book covers every position a Black following it can meet

    Walk every position up to the book's last ply that a Black following the book can meet,
    whatever White plays, and report those without a book move; with --solve, also ask the
    compiled solver whether each book move keeps the win. Exit status 1 when any fails.
    """
    book = load_book(args.book)
    solver = NativeSolver(args.table_bits) if args.solve else None
    progress = counter("checking " + args.book, "position")
    try:
        met, missing, wrong = check_book(book, solver, args.max_ply, progress)
    finally:
        progress.close()
        if solver:
            solver.close()
    print("{}: {:,} entries; a Black following it meets {:,} positions up to ply {}: {} without a move{}".format(
        args.book, len(book), met, args.max_ply if args.max_ply is not None else book.info.get("max_ply"),
        len(missing), ", {} moves that lose the win".format(len(wrong)) if args.solve else ""))
    for position in missing[:5]:
        print("no move for:\n{}".format(position))
    for position, move in wrong[:5]:
        print("{} loses the win in:\n{}".format(describe(move), position))
    return 1 if missing or wrong else 0
