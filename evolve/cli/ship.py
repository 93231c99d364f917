"""``evolve ship``: replace params.json only with weights that win a test at the playing budget."""

import os

from engine.cli.arguments import (
    add_game_options,
    add_search_settings,
    command,
    elo_pair,
    file_to_write,
    game_settings,
    integer_range,
    positive_int,
    program_limits,
    progress_bar,
)
from engine.cli.match import match_lines
from engine.constants import MAX_MOVES
from engine.play.match import format_report
from evolve.cli.runs import one_run
from evolve.ship import DEFAULT_GAMES, DEFAULT_OPENING, DEFAULT_SPRT, describe, prepare, ship, ship_folder


def register(commands):
    ship_ = command(commands, "ship", _ship)
    ship_.add_argument("run", nargs="+", help="run folder (one), or a params file to ship (evolve fit's, say)")
    ship_.add_argument(
        "--to",
        default="params.json",
        help="the params file the candidate is tested against and replaces (default params.json)",
    )
    ship_.add_argument(
        "--games", type=positive_int, default=DEFAULT_GAMES, help="the most games the test plays (default %(default)s)"
    )
    ship_.add_argument(
        "--sprt",
        type=elo_pair,
        default=DEFAULT_SPRT,
        metavar="ELO0,ELO1",
        help="the test's hypotheses in Elo over --to (default 0,20)",
    )
    ship_.add_argument(
        "--random-opening",
        type=integer_range(0, MAX_MOVES - 2),
        default=DEFAULT_OPENING,
        metavar="K",
        help="each pair of games starts from the same K random plies (default %(default)s)",
    )
    ship_.add_argument(
        "--no-book",
        action="store_true",
        help="bundle both without the opening book (quicker, to try ship out; the agent ships with it)",
    )
    add_search_settings(ship_, "--to's: the candidate differs from it in its weights alone", names=("close_stones",))
    add_game_options(
        ship_,
        "the games' seed (default: from the run's seed, the same for every attempt)",
        None,
        omit=("scheduler", "journal"),
    )


def _ship(args):
    """export a run's best weights and replace params.json only if they win a test at the playing budget

    Export the best individual of RUN with the search settings of --to (the candidate), bundle
    it and --to as two course agents (the same code and book, each move a process under the
    course's CPU limit) and play them from random openings, both colours from each, until a
    sequential probability ratio test (alpha = beta = 0.05) accepts H0 (the candidate is ELO0
    Elo stronger) or H1 (ELO1), or --games pass. Only H1 writes --to, with the test in its
    provenance. Everything lives in RUN/ship/; the same command continues a stopped test.
    Given a params file instead of a run (evolve fit --out's), its weights are the candidate and
    the test lives in ship/ beside it. Exit status: 0 shipped, 1 not shipped (H0, or undecided), 130 interrupted.
    """
    run = one_run(args.run)
    file_to_write(args.to, "--to", "params.json")
    plan = prepare(
        run,
        args.to,
        games=args.games,
        sprt=args.sprt,
        seed=args.seed,
        random_opening=args.random_opening,
        cpu_limit=args.cpu_limit,
        book=not args.no_book,
        close_stones=args.close_stones,
    )
    print(describe(run, args.to, plan), flush=True)
    settings = game_settings(
        args,
        progress=True if progress_bar(args) else match_lines("candidate", plan.games),
        limits=program_limits(args, ["cmd:" + os.path.join(ship_folder(run), "candidate")]),
    )
    result = ship(run, args.to, plan, settings)
    print(format_report(result.summary))
    print(("shipped: " if result.shipped else "not shipped: ") + result.reason)
    return 0 if result.shipped else 130 if result.summary.interrupted else 1
