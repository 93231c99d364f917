"""``littlego book``: build, extend, merge, trim, upgrade and check the opening book with the compiled solver."""

import argparse
import os
import sys
from typing import List, Optional

from engine.book import Book, load_book
from engine.cli.parts.argument_types import file_to_write, integer_range, positive_int
from engine.cli.parts.arguments import add_progress, add_store, add_table_bits, progress_bar, store_path
from engine.cli.parts.commands import Subcommands, command, group
from engine.common.pools import cpu_with_children
from engine.common.progress import counter
from engine.constants import MAX_MOVES
from engine.errors import InvalidInput
from engine.native.book_build import build_book, build_white_book, read_any_book, trim_book
from engine.native.book_fill import extend_book, merge_books
from engine.native.sections import BookSection, book_sections, check_book, describe_start
from engine.native.stored_solver import StoredSolver
from engine.position import Position
from engine.protocol import write_atomic
from engine.ui.board import move_and_vertex

_LAST_PLY = integer_range(0, MAX_MOVES - 2)
_SIDES = ("black", "white")


def register(commands: Subcommands) -> None:
    actions = group(
        commands, "book", "build, extend, merge, trim, upgrade or check the opening book (book.json)", "ACTION"
    )
    build = command(actions, "build", _build)
    build.add_argument(
        "--side",
        choices=_SIDES,
        default="black",
        help="black: from the empty board; white: after each of Black's losing first moves (default %(default)s)",
    )
    build.add_argument(
        "--max-ply", type=_LAST_PLY, default=8, help="the last ply with book moves (default %(default)s)"
    )
    build.add_argument("--out", default="book.json", help="file to write (default: %(default)s)")
    add_table_bits(build)
    build.add_argument(
        "--jobs",
        type=positive_int,
        default=1,
        help="solver processes: more than 1 proves the first move's replies (for White: the "
        "first moves) in parallel, one process each (default %(default)s)",
    )
    add_store(build)
    extend = command(actions, "extend", _extend)
    extend.add_argument("book", help="book file to extend")
    extend.add_argument("--max-ply", type=_LAST_PLY, required=True, help="the new last ply with book moves")
    extend.add_argument("--side", choices=_SIDES, help="deepen only this side's sections (default: all)")
    extend.add_argument("--out", help="file to write (default: BOOK)")
    add_table_bits(extend)
    extend.add_argument("--jobs", type=positive_int, default=1, help="solver processes (default %(default)s)")
    add_store(extend)
    merge = command(actions, "merge", _merge)
    merge.add_argument("books", nargs="+", metavar="BOOK", help="book files, the first one's moves first")
    merge.add_argument("--out", required=True, help="file to write (one of the BOOKs is allowed)")
    add_table_bits(merge)
    merge.add_argument("--jobs", type=positive_int, default=1, help="solver processes (default %(default)s)")
    add_store(merge)
    trim = command(actions, "trim", _trim)
    trim.add_argument("book", help="book file to trim")
    trim.add_argument("--max-ply", type=_LAST_PLY, required=True, help="the new last ply with book moves")
    trim.add_argument("--side", choices=_SIDES, help="trim only this side's sections (default: all)")
    trim.add_argument("--out", required=True, help="file to write (BOOK itself is allowed)")
    upgrade = command(actions, "upgrade", _upgrade)
    upgrade.add_argument("book", help="book file to rewrite")
    upgrade.add_argument("--out", help="file to write (default: BOOK)")
    check = command(actions, "check", _check)
    check.add_argument("book", help="book file")
    add_progress(check)
    check.add_argument("--max-ply", type=_LAST_PLY, help="walk to this ply (default: the book's)")
    check.add_argument(
        "--solve",
        action="store_true",
        help="check every move with the compiled solver (or the store, where it holds the position)",
    )
    add_table_bits(check, "the solver's")
    add_store(check)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _build(args: argparse.Namespace) -> int:
    """compute the opening book with the compiled exact solver

    Solve the opening with the compiled solver (engine/native/solve.c, compiled once with
    the machine's C compiler) and write a book of one winning move for every position, up to
    --max-ply, that a side following the book can meet whatever the other plays, one entry
    per symmetry class. For Black, from the empty board; for White (--side white), after each
    of Black's first moves that lose (all but 2,2, one per symmetry class, a pass included),
    one section each. 'littlego book merge' puts both in one file; the agent plays the book's
    move where it has one, and solves exactly from its params' solve_from ply on. The values the
    book's lines prove (each position won, the one after its move lost) go into the store of solved
    positions (--store); the solver's own search cannot start from what the store holds.
    """
    file_to_write(args.out, "--out", "book.json")  # found out now, not after hours of solving
    started = cpu_with_children()

    count = [0]

    def progress(position: Position) -> None:
        count[0] += 1
        if count[0] % 1000 == 0:
            _say(f"  {count[0]:,} positions (ply {position.moves_played})")

    if args.side == "white":
        _say(f"the White book: each losing first move, {args.jobs} at a time")
        book = build_white_book(args.max_ply, args.table_bits, args.jobs, report=_say, store=store_path(args))
        nodes = book.info["provenance"]["nodes"]
    else:
        book = build_book(args.max_ply, args.table_bits, progress, jobs=args.jobs, report=_say, store=store_path(args))
        nodes = book_sections(book)[0].provenance["nodes"]
    write_atomic(args.out, book.to_json())
    print(
        "{}: {:,} positions up to ply {} ({} section{}), {:,} solver nodes, {:.0f} s of CPU (the solver's "
        "included)".format(
            args.out,
            len(book),
            args.max_ply,
            len(book_sections(book)),
            "" if len(book_sections(book)) == 1 else "s",
            nodes,
            cpu_with_children() - started,
        )
    )
    return 0


def _extend(args: argparse.Namespace) -> int:
    """add deeper plies to a book with the compiled exact solver

    Find, with the compiled solver, a winning move for every position up to --max-ply that a
    side following BOOK can meet and that has no book move yet, one layer at a time, and
    write the deeper book (BOOK itself unless --out). Every section shallower than --max-ply
    is deepened (only --side's, when given). Positions are solved in chunks, --jobs processes
    at a time. Fails, writing nothing, if a position met is lost. A position whose every move the
    store of solved positions (--store) holds takes a winning move from there, unsolved; the values
    solved go into the store.
    """
    out = args.out or args.book
    file_to_write(out, "--out", "book.json")
    book = load_book(args.book)
    if not any(s.max_ply < args.max_ply for s in _sections_of(book, args.side)):
        raise InvalidInput(f"{args.book} already reaches ply {_reach(book, args.side)}: --max-ply must be deeper")
    started = cpu_with_children()
    grown, nodes = extend_book(
        book, args.max_ply, args.table_bits, args.jobs, _layer_progress, side=args.side, store=store_path(args)
    )
    write_atomic(out, grown.to_json())
    print(
        f"{out}: {len(grown):,} positions up to ply {args.max_ply} ({len(grown) - len(book):,} "
        f"added), {nodes:,} solver nodes, {cpu_with_children() - started:.0f} s of CPU (the solver's "
        "included)"
    )
    return 0


def _sections_of(book: Book, side: Optional[str]) -> List[BookSection]:
    """The book's sections of ``side`` (all of them when None)."""
    return [section for section in book_sections(book) if side in (None, section.side)]


def _reach(book: Book, side: Optional[str]) -> str:
    """The last ply of the book's sections of ``side``, in words: "12", "11 for white"."""
    return "{}{}".format(max((s.max_ply for s in _sections_of(book, side)), default=0), " for " + side if side else "")


def _layer_progress(done: int, total: int, ply: int) -> None:
    _say(f"  from ply {ply}: {done:,} of {total:,} positions solved")


def _merge(args: argparse.Namespace) -> int:
    """put books together in one file

    Write one book serving every section of the BOOKs (the Black book and the White book, for
    the file the agent reads): where two books have a move for the same position the first
    one's is kept, and any position a section then meets without a move is solved with the
    compiled solver (or taken from the store of solved positions, --store, as 'book extend' does),
    so that every section stays complete.
    """
    file_to_write(args.out, "--out", "book.json")
    books = [load_book(path) for path in args.books]
    started = cpu_with_children()
    merged, filled, nodes = merge_books(books, args.table_bits, args.jobs, _layer_progress, store_path(args))
    merged.info["provenance"] = {
        "command": "littlego book merge {} --out {}".format(" ".join(args.books), args.out),
        "filled": filled,
        "nodes": nodes,
    }
    write_atomic(args.out, merged.to_json())
    print(
        f"{args.out}: {len(merged):,} positions in {len(book_sections(merged))} sections ({filled:,} "
        f"solved to fill what the books' moves left open), {cpu_with_children() - started:.0f} s "
        "of CPU"
    )
    return 0


def _trim(args: argparse.Namespace) -> int:
    """write a smaller book that stops at an earlier ply

    Keep BOOK's moves up to --max-ply for the sections of --side (both sides by default) and
    drop the deeper ones: a smaller file, for a submission where size matters. Nothing is
    solved; every move kept still keeps the win, and past the new last ply the agent searches
    (and solves exactly from its solve_from ply) instead of reading the book.
    """
    file_to_write(args.out, "--out", "book.json")
    book = load_book(args.book)
    if not any(s.max_ply > args.max_ply for s in _sections_of(book, args.side)):
        raise InvalidInput(f"{args.book} stops at ply {_reach(book, args.side)} already: --max-ply must be shallower")
    before = os.path.getsize(args.book)
    trimmed = trim_book(book, args.max_ply, args.side)
    write_atomic(args.out, trimmed.to_json())
    print(
        "{}: {:,} positions, {:,} bytes (was {:,} positions, {:,} bytes); {}".format(
            args.out,
            len(trimmed),
            os.path.getsize(args.out),
            len(book),
            before,
            "; ".join(f"{s.side} {describe_start(s.start)} to ply {s.max_ply}" for s in book_sections(trimmed)),
        )
    )
    return 0


def _upgrade(args: argparse.Namespace) -> int:
    """rewrite a book in the current file format

    Read BOOK (any format this version reads, every entry checked) and write it in the
    current one, its positions and information unchanged: BOOK itself unless --out.
    """
    out = args.out or args.book
    file_to_write(out, "--out", "book.json")
    book = read_any_book(args.book)
    before = os.path.getsize(args.book)
    size = len(book.moves)  # every key read and checked before anything is written
    write_atomic(out, book.to_json())
    print(f"{out}: {size:,} positions, {os.path.getsize(out):,} bytes (was {before:,})")
    return 0


def _check(args: argparse.Namespace) -> int:
    """check that a book covers every position a side following it can meet

    Walk, for each of the book's sections (Black from the empty board, White after a losing
    first move...), every position up to its last ply that the side following the book can
    meet, whatever the other side plays, and report those without a book move; with --solve,
    also ask the compiled solver whether each book move keeps the win. Exit status 1 when any
    fails.
    """
    book = load_book(args.book)
    sections = book_sections(book)
    solver = StoredSolver(store_path(args), args.table_bits) if args.solve else None
    progress = counter("checking " + args.book, "position", bar=progress_bar(args))
    failed = False
    try:
        print(
            "{}: {:,} entries, {} section{}".format(
                args.book, len(book), len(sections), "" if len(sections) == 1 else "s"
            )
        )
        for section in sections:
            last = args.max_ply if args.max_ply is not None else section.max_ply
            met, missing, wrong = check_book(book, solver, last, progress, start=section.start)
            print(
                "{} {}: meets {:,} positions up to ply {}: {} without a move{}".format(
                    section.side,
                    describe_start(section.start),
                    met,
                    last,
                    len(missing),
                    f", {len(wrong)} moves that lose the win" if args.solve else "",
                )
            )
            for position in missing[:5]:
                print(f"no move for:\n{position}")
            for position, move in wrong[:5]:
                print(f"{move_and_vertex(move)} loses the win in:\n{position}")
            failed = failed or bool(missing or wrong)
    finally:
        progress.close()
        if solver:
            solver.close()
    return 1 if failed else 0
