"""``evolve ship``: replace params.json only with weights that win a test at the playing budget."""

import argparse
import functools
import os
import sys
from typing import List, Optional, Union

from engine.cli.match import match_lines
from engine.cli.parts.argument_types import (
    elo_pair,
    file_to_write,
    integer_range,
    non_negative_int,
    positive_int,
    share,
)
from engine.cli.parts.arguments import (
    add_game_options,
    add_search_settings,
    game_settings,
    program_limits,
    progress_bar,
)
from engine.cli.parts.commands import Subcommands, command
from engine.common.progress import counter
from engine.constants import MAX_MOVES
from engine.params import load_params
from engine.play.summary import format_report
from engine.players.shipped import ShippedPlayer, shipped_book
from engine.ruler.position_set import load_positions
from evolve.cli.runs import one_run
from evolve.shipping.ship import DEFAULT_SCREEN, EVERY, screen, screen_games, ship, test_under_way
from evolve.shipping.ship_plan import (
    CANDIDATE,
    DEFAULT_GAMES,
    DEFAULT_OPENING,
    DEFAULT_SPRT,
    ShipError,
    ShipPlan,
    plan_line,
    prepare,
    ship_folder,
)
from evolve.solved.exploit import Exploitability, exploitability, format_exploitability


def register(commands: Subcommands) -> None:
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
    _add_screen(ship_)
    ship_.add_argument(
        "--no-book",
        action="store_true",
        help="bundle both without the opening book (quicker, to try ship out; the agent ships with it)",
    )
    ship_.add_argument(
        "--program-changed",
        action="store_true",
        help="go on with a test whose games so far were played by another program (the engine's code or the "
        "shipped book changed since): the plan records after which game the program changed and the result "
        "names it (without it, such a test stops with an error)",
    )
    add_search_settings(ship_, "--to's: the candidate differs from it in its weights alone", names=("close_stones",))
    ship_.add_argument(
        "--exploit",
        default="none",
        metavar="POSITIONS",
        help="a positions file from 'evolve positions' whose held-out won positions (all, where none is held out) "
        "the candidate and --to each play against the exact adversary, reported beside the test (default none: "
        "no report)",
    )
    add_game_options(
        ship_,
        "the games' seed (default: from the run's seed, the same for every attempt)",
        None,
        omit=("scheduler", "journal"),
    )


def _screen_games(text: str) -> Union[int, str]:
    """--screen's value: 'every', or a number of games."""
    if text == EVERY:
        return EVERY
    try:
        return non_negative_int(text)
    except argparse.ArgumentTypeError:  # the number's own words would not name 'every'
        raise argparse.ArgumentTypeError(f"expected 'every' or a number of games (0: none), got {text!r}") from None


def _add_screen(ship_: argparse.ArgumentParser) -> None:
    """The screen's options: the match as shipped that predicts the test, played before it."""
    ship_.add_argument(
        "--screen",
        type=_screen_games,
        default=DEFAULT_SCREEN,
        metavar="every|GAMES",
        help="before the test, play the same two weights as shipped with the CPU budget in nodes (a position "
        "played the same way every time, with the book; about 1.3 CPU s a game of the shipped layer) and print "
        "the candidate's score: 'every' opening of the test's length (at most 3 plies) once with each colour "
        "(1,200 games for 2 plies, about 25 CPU minutes: the exact score over random openings), or GAMES games "
        "from random "
        "openings; kept in "
        "RUN/ship/screen.json; none once the test has games (0: none; default %(default)s)",
    )
    ship_.add_argument(
        "--min-screen",
        type=share,
        default=None,
        metavar="SCORE",
        help="stop before the test, not shipped, when the screen scores below SCORE (0.5, say; default: "
        "always play the test)",
    )


def _exploitability(args: argparse.Namespace, run: str) -> List[Exploitability]:
    """The candidate's and --to's Exploitability on --exploit's positions (none with --exploit none)."""
    if args.exploit == "none":
        return []
    found = load_positions(args.exploit)
    # the held-out fifth (by canonical key, the same in every positions file): never a regret fitness's
    positions = found.split(True) or found.positions
    which = "its held-out positions" if found.split(True) else "every position"
    reports = []
    for name, path in (("candidate", os.path.join(ship_folder(run), CANDIDATE)), ("current", args.to)):
        params = load_params(path)
        make = functools.partial(ShippedPlayer, params, shipped_book(), spec=name)
        won = sum(p.won for p in positions)
        update = counter(f"exploitability of the {name}", "position", won, bar=progress_bar(args))
        try:
            reports.append(
                exploitability(make, f"{name} ({path}; {which} of {args.exploit})", positions, progress=update)
            )
        finally:
            update.close()
    return reports


def _screen_stops(args: argparse.Namespace, run: str, plan: ShipPlan) -> Optional[int]:
    """Play the screen --screen asks for (none once the test is under way) and print its score; the exit
    status where the command stops there (130 interrupted, 1 below --min-screen), None to play the test."""
    if not args.screen:
        return None
    if test_under_way(run):
        print("screen: none, the test is under way (its games are in the journal)", flush=True)
        return None
    games, _ = screen_games(plan, args.screen)
    progress = True if progress_bar(args) else match_lines("candidate (screen)", games)
    screened = screen(run, args.to, plan, args.screen, game_settings(args, progress=progress))
    if screened is None:
        print("interrupted in the screen: nothing kept; the same command plays it again", file=sys.stderr)
        return 130
    print(screened.line(), flush=True)
    if args.min_screen is not None and screened.score < args.min_screen:
        print(
            f"not shipped: the screen scored {screened.score:.1%}, below --min-screen {args.min_screen:.1%}: "
            f"no test played; {args.to} left as it was"
        )
        return 1
    return None


def _ship(args: argparse.Namespace) -> int:
    """export a run's best weights and replace params.json only if they win a test at the playing budget

    Export the best individual of RUN with the search settings of --to (the candidate), bundle
    it and --to as two course agents (the same code and book, each move a process under the
    course's CPU limit) and play them from random openings, both colours from each, until a
    sequential probability ratio test (alpha = beta = 0.05) accepts H0 (the candidate is ELO0
    Elo stronger) or H1 (ELO1), or --games pass. Only H1 writes --to, with the test in its
    provenance. Everything lives in RUN/ship/; the same command continues a stopped test.
    Given a params file instead of a run (evolve fit --out's), its weights are the candidate and
    the test lives in ship/ beside it. Before the test, --screen plays the pairing as shipped in nodes
    and prints the candidate's score (a prediction: only the test ships); --min-screen stops there below it.
    Exit status: 0 shipped, 1 not shipped (H0, undecided, or below --min-screen), 130 interrupted.
    """
    run = one_run(args.run)
    if args.min_screen is not None and not args.screen:
        raise ShipError("--min-screen needs the screen: --screen every or GAMES, not 0")
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
        program_changed=args.program_changed,
    )
    print(plan_line(run, args.to, plan), flush=True)
    settings = game_settings(
        args,
        progress=True if progress_bar(args) else match_lines("candidate", plan.games),
        limits=program_limits(args, ["cmd:" + os.path.join(ship_folder(run), "candidate")]),
    )
    stopped = _screen_stops(args, run, plan)
    if stopped is not None:
        return stopped
    exploited = _exploitability(args, run)  # before the test: a shipped candidate replaces --to
    result = ship(run, args.to, plan, settings)
    print(format_report(result.summary))
    print(("shipped: " if result.shipped else "not shipped: ") + result.reason)
    for report in exploited:
        print(format_exploitability(report))
    if not exploited:
        print("exploitability: not measured (--exploit POSITIONS, a file from 'evolve positions', measures it)")
    return 0 if result.shipped else 130 if result.summary.interrupted else 1
