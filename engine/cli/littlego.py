"""The ``littlego`` command: matches, the course judge, bundling, GTP, play and replay, the
exact solver and the opening book, the studies of won openings, training, benchmarks; each group's
parser and handlers live in its own module here."""

import argparse
import sys
from typing import List, Optional

from engine.cli import bench, book, bundle, check, course, gtp_judge, match, play, serve, solve, store, study, train
from engine.cli.parts.commands import tool_parser
from engine.cli.parts.exits import STOPPED_STATUS, run_command
from engine.errors import UserError
from engine.play.executors import ExecutorError

LITTLEGO_GROUPS = (bench, bundle, match, check, course, gtp_judge, play, solve, store, book, study, train, serve)
# A user's mistake in any command (bad params, data, books, player specs or settings, each named in the
# message): one line, exit status 2.
USER_ERRORS = (UserError,)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``littlego``."""
    return tool_parser(
        "littlego",
        "Little-Go (5x5 Go of the USC CSCI-561 course): engine tools.",
        [group.register for group in LITTLEGO_GROUPS],
    )


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``littlego`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return run_command("littlego", args, USER_ERRORS, passed_on=(ExecutorError,))
    except ExecutorError as error:  # a Dask scheduler that cannot be reached or goes away: one line
        print(f"littlego {args.command}: {error}", file=sys.stderr)
        return STOPPED_STATUS


if __name__ == "__main__":
    sys.exit(main())
