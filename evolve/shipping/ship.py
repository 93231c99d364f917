"""Verify, then ship: a run's best weights replace params.json only when a test at the playing
budget, decided before it is played, accepts them.

``evolve ship RUN`` exports the run's best individual with the search settings of the params
file it would replace, bundles it and that file as two course agents (``littlego bundle``: the
same code and book, each move a process of its own under the course's CPU limit), and plays
them against each other from random openings, both colours from each, until a sequential
probability ratio test decides. Everything lives in ``RUN/ship/``: the candidate, the two
bundles, the plan (what is compared, under which test: ``evolve.shipping.ship_plan``) and the journal of
finished games, so that the same command continues a stopped test, to the result it would have had.

Before the test, ``screen`` plays the same pairing as shipped with the CPU budget counted in nodes
(``shipped:`` players, which play a position the same way every time): by default every opening of
the test's length once with each colour (1,200 games for two plies, about 4 CPU minutes), so its
score is the match's over random openings, exactly; or a number of games from random openings. How
well it has predicted the tests is measured in ``experiments/tuners-20261125`` (eighth section). It
predicts; only the test ships.
"""

import datetime
import json
import os
from typing import Any, Dict, NamedTuple, Optional, Tuple, Union

from engine.common.seeds import derive_seed
from engine.params import Params, load_params, save_params
from engine.play.match import every_opening_games, run_match
from engine.play.settings import DEFAULT_GAME_SETTINGS, GameSettings
from engine.play.stats import SprtState
from engine.play.summary import MatchSummary
from engine.players.shipped import PLAYS_AS
from engine.playout import SEQUENCES_MOST_PLIES
from engine.protocol import write_atomic
from evolve.shipping.ship_plan import (
    CANDIDATE,
    JOURNAL,
    ShipError,
    ShipPlan,
    command_line,
    file_sha256,
    games_played,
    program_sha256,
    ship_folder,
)

SPRT_FILE = "sprt.json"
SCREEN = "screen.json"
EVERY = "every"  # the screen's games: every opening of the test's length, once with each colour
DEFAULT_SCREEN = EVERY
_SCREEN_STREAM = 6  # derive_seed's extra number for the screen's seed, from the plan's (5: the plan's own)


class ShipResult(NamedTuple):
    """How a ship ended: the test's decision (``H1`` ships), the match's figures, whether the
    params file was written, and why (or why not) in words."""

    plan: ShipPlan
    decision: Optional[str]
    shipped: bool
    reason: str
    summary: MatchSummary


class Screen(NamedTuple):
    """The screen's match, as shipped in nodes: the candidate's score over ``games`` from openings of the
    plan's length (``every`` one of them with each colour, else random ones, their seed derived from the
    plan's), the 95% interval, and the two params files and the program it played (by content), so that a
    ship continued later reads it back rather than playing it again."""

    games: int
    seed: int
    score: float
    low: float
    high: float
    candidate_sha256: str
    current_sha256: str
    every: bool = False
    player: int = 1  # how the shipped player played it (engine.players.shipped.PLAYS_AS): 1 before it was kept
    program_sha256: Optional[str] = None  # the engine's code and book it played (ship_plan.program_sha256)

    def line(self) -> str:
        """The screen in one line, as ``evolve ship`` prints it."""
        openings = "every opening with each colour" if self.every else f"seed {self.seed}"
        return (
            f"screen: the candidate scores {self.score:.1%} ({self.low:.1%}-{self.high:.1%}) in {self.games} games "
            f"as shipped in nodes ({openings}): a prediction; the test decides"
        )


def screen_games(plan: ShipPlan, games: Union[int, str] = DEFAULT_SCREEN) -> Tuple[int, bool]:
    """(games, every) of a screen asked for ``games`` (a number, or EVERY): every opening of the plan's
    length once with each colour, or the two games from the empty board where the plan draws no
    opening; ShipError where its openings are too many to play every one."""
    if games != EVERY:
        return int(games), False
    if not plan.random_opening:
        return 2, False
    if plan.random_opening > SEQUENCES_MOST_PLIES:
        raise ShipError(
            f"--screen every plays every opening of up to {SEQUENCES_MOST_PLIES} plies, not of "
            f"{plan.random_opening}: --screen GAMES draws that many from random openings"
        )
    return every_opening_games(plan.random_opening), True


def _shipped_after(
    plan: ShipPlan, summary: MatchSummary, test: SprtState, previous: Params, journal: str
) -> Dict[str, Any]:
    """The test a shipped candidate passed, as its provenance keeps it, with what it replaced."""
    return {
        "test": "SPRT, alpha = beta = 0.05, course bundles at the playing budget",
        "elo0": plan.sprt[0],
        "elo1": plan.sprt[1],
        "games": summary.games,
        "candidate_wins": summary.wins[summary.a],
        "llr": round(test.llr, 3),
        "seed": plan.seed,
        "random_opening": plan.random_opening,
        "cpu_limit": plan.cpu_limit,
        "book": plan.book,
        "program_sha256": plan.program_sha256,
        "program_changes": [list(change) for change in plan.program_changes],
        "journal": journal,
        "replaced": {
            key: previous.provenance[key]
            for key in ("source", "run", "generation", "exported_by")
            if key in previous.provenance
        },
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
    }


def screen(
    run: str,
    current: str,
    plan: ShipPlan,
    games: Union[int, str] = DEFAULT_SCREEN,
    settings: GameSettings = DEFAULT_GAME_SETTINGS,
) -> Optional[Screen]:
    """The Screen of the plan's candidate against ``current``: kept in RUN/ship/screen.json, played
    (``games``: EVERY opening of the plan's length, or that many games, both colours from each random
    opening) only where none of these files and games is kept; None where Ctrl-C stopped it (nothing
    kept). ``shipped:`` players play it, with the shipped book whatever the plan's ``book``.
    ``settings``: its jobs and progress."""
    folder = ship_folder(run)
    candidate_path, path = os.path.join(folder, CANDIDATE), os.path.join(folder, SCREEN)
    seed = derive_seed(plan.seed, _SCREEN_STREAM) % (2**31)
    games, every = screen_games(plan, games)
    program = program_sha256(True)  # the screen plays with the shipped book whatever the plan's ``book``
    wanted = (games, seed, every, file_sha256(candidate_path), file_sha256(current), PLAYS_AS, program)
    try:
        with open(path) as handle:
            kept = Screen(**json.load(handle))
        played = (kept.games, kept.seed, kept.every, kept.candidate_sha256, kept.current_sha256, kept.player)
        if played + (kept.program_sha256,) == wanted:
            return kept  # the same match, played the same way
    except (OSError, ValueError, TypeError):
        pass  # none yet, or one this version cannot read: played again
    summary, _ = run_match(
        "shipped:" + candidate_path,
        "shipped:" + current,
        games,
        settings._replace(seed=seed, journal=None),
        opening_plies=plan.random_opening,
        every_opening=every,
    )
    if summary.interrupted:
        return None
    low, high = summary.a_win_rate_95ci
    found = Screen(games, seed, summary.a_win_rate, low, high, wanted[3], wanted[4], every, PLAYS_AS, program)
    write_atomic(path, json.dumps(found._asdict(), indent=2) + "\n")
    return found


def test_under_way(run: str) -> bool:
    """Whether the test's journal in RUN/ship/ already holds games."""
    return games_played(ship_folder(run)) > 0


def ship(run: str, current: str, plan: ShipPlan, settings: GameSettings = DEFAULT_GAME_SETTINGS) -> ShipResult:
    """Play the plan's test; when it accepts H1, write the candidate over ``current`` with the
    test in its provenance. The ShipResult. ``settings``: how the games are played (a GameSettings:
    its jobs, progress and limits; the plan's seed and CPU limit, and the journal in RUN/ship/)."""
    folder = ship_folder(run)
    summary, _ = run_match(
        "cmd:" + os.path.join(folder, "candidate"),
        "cmd:" + os.path.join(folder, "current"),
        plan.games,
        settings._replace(seed=plan.seed, cpu_limit=plan.cpu_limit, journal=os.path.join(folder, JOURNAL)),
        opening_plies=plan.random_opening,
        sprt=plan.sprt,
    )
    write_atomic(os.path.join(folder, SPRT_FILE), json.dumps(summary.to_json(), indent=2) + "\n")
    test = summary.sprt
    assert test is not None  # run_match keeps the state of the SPRT it is given
    wins = summary.wins[summary.a]
    figures = (
        f"{wins} of {summary.games} games won ({summary.a_win_rate:.1%}), LLR {test.llr:.2f} in "
        f"({test.lower:.2f}, {test.upper:.2f}){plan.changes_line()}"
    )
    if summary.interrupted:
        return ShipResult(
            plan,
            None,
            False,
            f"interrupted {summary.interrupted}: {figures}; the same command continues the test",
            summary,
        )
    if test.decision != "H1":
        why = (
            "the SPRT accepted H0 (Elo {:g} rather than {:g})".format(*plan.sprt)
            if test.decision == "H0"
            else f"{summary.games} games ended the test undecided"
        )
        return ShipResult(plan, test.decision, False, f"{why}: {figures}; {current} left as it was", summary)
    if file_sha256(current) != plan.current_sha256:
        return ShipResult(
            plan,
            "H1",
            False,
            f"the SPRT accepted H1 ({figures}), but {current} changed while the test ran: not replaced",
            summary,
        )
    candidate = load_params(os.path.join(folder, CANDIDATE))
    provenance = dict(
        candidate.provenance,
        exported_by=command_line(run, current, plan),
        shipped_after=_shipped_after(plan, summary, test, load_params(current), os.path.join(folder, JOURNAL)),
    )
    save_params(current, candidate._replace(provenance=provenance))
    return ShipResult(
        plan,
        "H1",
        True,
        f"the SPRT accepted H1 (Elo {plan.sprt[1]:g} over the current weights): {figures}; wrote {current}",
        summary,
    )
