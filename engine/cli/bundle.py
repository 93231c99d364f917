"""``littlego bundle``: the files of a course submission."""

import os

from engine.data import SHIPPED_BOOK, SHIPPED_PARAMS
from engine.cli.arguments import command
from engine.submission.bundle import write_bundle


def register(commands):
    bundle = command(commands, "bundle", _bundle)
    bundle.add_argument("outdir", help="folder to write into (created if missing)")
    bundle.add_argument("--params", default=SHIPPED_PARAMS, help="params file (default: %(default)s)")
    bundle.add_argument("--force", action="store_true", help="replace a submission already in OUTDIR")
    which_book = bundle.add_mutually_exclusive_group()
    which_book.add_argument("--book", help="the opening book (littlego book build) to ship beside it as book.json "
                                           "(default: the shipped book.json, where there is one)")
    which_book.add_argument("--no-book", action="store_true", help="ship no opening book")


def _bundle(args):
    """write a self-contained my_player3.py and its params.json (and a book.json) for submission

    Write OUTDIR/my_player3.py (the engine inlined, standard library only, Python 3.7),
    OUTDIR/params.json and OUTDIR/book.json (the opening book): the files a course
    submission holds.
    """
    book = args.book
    if book is None and not args.no_book and os.path.exists(SHIPPED_BOOK):
        book = SHIPPED_BOOK
    for path in write_bundle(args.outdir, args.params, force=args.force, book_path=book):
        print("wrote {}".format(path))
    return 0
