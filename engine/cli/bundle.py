"""``littlego bundle``: the files of a course submission."""

import argparse
import os
from typing import Callable

from engine.cli.parts.argument_types import EDITION_NAMES, edition_key
from engine.cli.parts.commands import Subcommands, command
from engine.course.editions import edition, fitted_search, fitting_cap, tightest_rate
from engine.data import SHIPPED_BOOK, SHIPPED_PARAMS
from engine.params import Params
from engine.submission.bundle import write_bundle


def register(commands: Subcommands) -> None:
    bundle = command(commands, "bundle", _bundle)
    bundle.add_argument("outdir", help="folder to write into (created if missing)")
    bundle.add_argument("--params", default=SHIPPED_PARAMS, help="params file (default: %(default)s)")
    bundle.add_argument("--force", action="store_true", help="replace a submission already in OUTDIR")
    which_book = bundle.add_mutually_exclusive_group()
    which_book.add_argument(
        "--book",
        help="the opening book (littlego book build) to ship beside it as book.json "
        "(default: the shipped book.json, where there is one)",
    )
    which_book.add_argument("--no-book", action="store_true", help="ship no opening book")
    bundle.add_argument(
        "--edition",
        type=edition_key,
        metavar="EDITION",
        help="fit the agent's time to this edition's CPU budgets: a move's cap (and its budget, in "
        "proportion) lowered so that a game of capped moves stays within the budget's rate; "
        "one of " + EDITION_NAMES,
    )


def _bundle(args: argparse.Namespace) -> int:
    """write a self-contained my_player3.py and its params.json (and a book.json) for submission

    Write OUTDIR/my_player3.py (the engine inlined, standard library only, Python 3.7),
    OUTDIR/params.json and OUTDIR/book.json (the opening book): the files a course
    submission holds.
    """
    book = args.book
    if book is None and not args.no_book and os.path.exists(SHIPPED_BOOK):
        book = SHIPPED_BOOK
    adjust = _fitted(args.edition) if args.edition else None
    for path in write_bundle(args.outdir, args.params, force=args.force, book_path=book, adjust=adjust):
        print(f"wrote {path}")
    return 0


def _fitted(key: str) -> Callable[[Params], Params]:
    """A function fitting Params' CPU budget and cap to edition ``key``, saying what it did."""
    chosen = edition(key)

    def adjust(params: Params) -> Params:
        budget, cap = fitted_search(chosen, params.cpu_budget, params.cpu_cap)
        rate = tightest_rate(chosen)
        if (budget, cap) == (params.cpu_budget, params.cpu_cap):
            print(f"{key}: the agent's CPU cap of {cap:g} s a move already fits {rate:g} s a game")
            return params
        print(
            f"{key}: a move's CPU budget {params.cpu_budget:g} s -> {budget:g} s, cap {params.cpu_cap:g} "
            f"s -> {cap:g} s, so that a game fits {rate:g} s"
        )
        note = (
            f"cpu_budget and cpu_cap fitted to the {key} edition's {rate:g} s of CPU a game (cap "
            f"{fitting_cap(chosen):g} s a move)"
        )
        return params.with_settings(dict(params.provenance, time_fitted=note), cpu_budget=budget, cpu_cap=cap)

    return adjust
