"""Verify, then ship: a run's best weights replace params.json only when a test at the playing
budget, decided before it is played, accepts them.

``evolve ship RUN`` exports the run's best individual with the search settings of the params
file it would replace, bundles it and that file as two course agents (``littlego bundle``: the
same code and book, each move a process of its own under the course's CPU limit), and plays
them against each other from random openings, both colours from each, until a sequential
probability ratio test decides. Everything lives in ``RUN/ship/``: the candidate, the two
bundles, the plan (what is compared, under which test) and the journal of finished games, so
that the same command continues a stopped test, to the result it would have had.

Before the test, ``screen`` plays the same pairing as shipped with the CPU budget counted in nodes
(``shipped:`` players, which play a position the same way every time): by default every opening of
the test's length once with each colour (1,200 games for two plies, about 4 CPU minutes), so its
score is the match's over random openings, exactly; or a number of games from random openings. How
well it has predicted the tests is measured in ``experiments/tuners-20261125`` (eighth section). It
predicts; only the test ships.
"""

import datetime
import hashlib
import json
import os
from typing import Any, Dict, Mapping, NamedTuple, Optional, Tuple, Union

from engine.common.seeds import derive_seed
from engine.constants import COURSE_CPU_LIMIT
from engine.data import SHIPPED_BOOK
from engine.params import Params, load_params, save_params
from engine.play.match import every_opening_games, run_match
from engine.play.settings import DEFAULT_GAME_SETTINGS, GameSettings
from engine.play.stats import SprtState
from engine.play.summary import MatchSummary
from engine.players.shipped import PLAYS_AS
from engine.playout import SEQUENCES_MOST_PLIES
from engine.protocol import write_atomic
from engine.submission.bundle import write_bundle
from evolve.checkpoint import RunError, load_checkpoint
from evolve.runs import export_best
from evolve.schema import Config

SHIP_FOLDER = "ship"
CANDIDATE = "candidate-params.json"
PLAN = "plan.json"
JOURNAL = "sprt.journal"
REPORT = "sprt.json"
SCREEN = "screen.json"
EVERY = "every"  # the screen's games: every opening of the test's length, once with each colour
DEFAULT_SCREEN = EVERY
DEFAULT_GAMES = 800
DEFAULT_SPRT = (0.0, 20.0)
DEFAULT_OPENING = 2
_SHIP_STREAM = 5  # derive_seed's extra number for a run's default SPRT seed
_SCREEN_STREAM = 6  # and for the screen's, from the plan's seed


class ShipError(RunError):
    """A ship that cannot start or continue as asked; the message says why and what to do."""


class ShipPlan(NamedTuple):
    """What a ship compares and how, fixed before its first game: the run and generation the
    candidate comes from (or the params file, generation None), the two params files (by
    content), and the test."""

    run: str
    generation: Optional[int]
    candidate_sha256: str
    current: str  # the params file the candidate would replace, as the command named it
    current_sha256: str
    games: int
    sprt: Tuple[float, float]
    seed: int
    random_opening: int
    cpu_limit: float
    book: bool  # both bundles with the shipped opening book (as the agent ships)
    close_stones: Optional[float] = None  # the candidate's search.close_stones where asked, else --to's


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
    plan's), the 95% interval, and the two params files it played (by content), so that a ship continued
    later reads it back rather than playing it again."""

    games: int
    seed: int
    score: float
    low: float
    high: float
    candidate_sha256: str
    current_sha256: str
    every: bool = False
    player: int = 1  # how the shipped player played it (engine.players.shipped.PLAYS_AS): 1 before it was kept

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


def _sha256(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def default_seed(config: Config) -> int:
    """The SPRT's seed when none is given: the run's own seed (its ``config``'s), taken further
    (fresh openings for every run, the same for every attempt to ship one run)."""
    return derive_seed(config.seed, _SHIP_STREAM) % (2**31)


def is_params_file(candidate: str) -> bool:
    """Whether ``evolve ship`` was given a params file (a fit's, a hand's) rather than a run folder."""
    return os.path.isfile(candidate)


def ship_folder(candidate: str) -> str:
    """Where a ship keeps its plan, bundles and games: RUN/ship/, or ship/ beside a params file."""
    return os.path.join(os.path.dirname(candidate) if is_params_file(candidate) else candidate, SHIP_FOLDER)


def _from_file(path: str, candidate_path: str, search: Mapping[str, Optional[float]]) -> Params:
    """A params file as the candidate: its weights with the search settings ``search`` (by name: the
    current file's), written to ``candidate_path``; the Params written."""
    candidate = load_params(path).with_settings(None, **search)
    save_params(candidate_path, candidate)
    return candidate


def _plan_under_way(
    plan_path: str,
    asked: Mapping[str, Any],
    run: str,
    current: str,
    candidate_path: str,
    generation: Optional[int],
    from_file: bool,
) -> ShipPlan:
    """The plan of the test under way in ``plan_path``; ShipError where it is not the one ``asked`` for
    (settings, the run's generation, the candidate file, or either params file's content changed)."""
    folder = os.path.dirname(plan_path)
    try:
        with open(plan_path) as handle:
            recorded = json.load(handle)
        plan = ShipPlan(**dict(recorded, sprt=tuple(recorded["sprt"])))
    except (ValueError, TypeError, KeyError) as error:
        raise ShipError(f"{plan_path}: not a plan this version wrote ({error}): remove {folder} to start a new test")
    changed = [name for name, value in asked.items() if getattr(plan, name) != value]
    if generation != plan.generation:
        changed.append(f"the run's generation ({plan.generation} then, {generation} now)")
    if from_file and os.path.normpath(run) != plan.run:
        changed.append(f"the candidate file ({plan.run} then, {os.path.normpath(run)} now)")
    if _sha256(current) != plan.current_sha256:
        changed.append(f"{current}'s content")
    if _sha256(candidate_path) != plan.candidate_sha256:
        changed.append(f"{candidate_path}'s content")
    if changed:
        raise ShipError(
            "{} holds a test started with other settings ({} changed): ship with those it was "
            "started with, or remove {} to start a new test".format(plan_path, ", ".join(changed), folder)
        )
    return plan


def _new_plan(
    run: str,
    current: str,
    candidate_path: str,
    plan_path: str,
    asked: Mapping[str, Any],
    from_file: bool,
    close_stones: Optional[float],
) -> ShipPlan:
    """A new test's plan, written to ``plan_path`` with the candidate exported beside it: the run's best (or
    the params file's weights) with ``current``'s search settings (``close_stones`` the candidate's own)."""
    search = load_params(current).search()
    if close_stones is not None:
        search["close_stones"] = close_stones
    os.makedirs(os.path.dirname(plan_path), exist_ok=True)
    generation = None
    if from_file:
        _from_file(run, candidate_path, search)
    else:
        generation = export_best(run, candidate_path, **search).provenance["generation"]
    plan = ShipPlan(
        run=os.path.normpath(run) if from_file else os.path.basename(os.path.normpath(run)),
        generation=generation,
        candidate_sha256=_sha256(candidate_path),
        current_sha256=_sha256(current),
        **asked,
    )
    write_atomic(plan_path, json.dumps(plan._asdict(), indent=2) + "\n")
    return plan


def prepare(
    run: str,
    current: str,
    games: int = DEFAULT_GAMES,
    sprt: Tuple[float, float] = DEFAULT_SPRT,
    seed: Optional[int] = None,
    random_opening: int = DEFAULT_OPENING,
    cpu_limit: float = COURSE_CPU_LIMIT,
    book: bool = True,
    close_stones: Optional[float] = None,
) -> ShipPlan:
    """The plan of shipping ``run``'s best weights over ``current``: the candidate exported with
    ``current``'s search settings and both bundled under RUN/ship/. ``run`` may be a params file
    instead (``evolve fit``'s, say): its weights are the candidate, and the test lives in ship/
    beside it. A plan already there (a test under way) must be this one, or ShipError says what
    differs; the bundles are written anew from its files."""
    from_file = is_params_file(run)
    checkpoint = None if from_file else load_checkpoint(run)
    program = None if checkpoint is None else checkpoint.config.individual
    if program is not None:
        raise ShipError(
            f"{run} evolved the weights of {program.program}: evolve ship ships this project's agent; "
            f"'evolve export {run} --to {os.path.join(program.program, program.weights_file)}' writes them"
        )
    if not os.path.isfile(current):
        raise ShipError(
            f"{current}: no params file there to compare the candidate with (--to names the one it would replace)"
        )
    folder = ship_folder(run)
    candidate_path, plan_path = os.path.join(folder, CANDIDATE), os.path.join(folder, PLAN)
    if (
        from_file
        and os.path.basename(run) == CANDIDATE
        and os.path.basename(os.path.dirname(os.path.abspath(run))) == (SHIP_FOLDER)
    ):
        raise ShipError(f"{run} is the copy a ship makes of its candidate: name the params file it came from")
    generation = None if checkpoint is None else checkpoint.generation
    if seed is None:  # a params file's own seed is its content's
        seed = int(_sha256(run)[:8], 16) % (2**31) if checkpoint is None else default_seed(checkpoint.config)
    asked = dict(
        current=os.path.normpath(current),
        games=games,
        sprt=tuple(float(x) for x in sprt),
        seed=seed,
        random_opening=random_opening,
        cpu_limit=float(cpu_limit),
        book=bool(book),
        close_stones=close_stones,
    )
    if os.path.exists(plan_path):  # a test under way: the same one, or none
        plan = _plan_under_way(plan_path, asked, run, current, candidate_path, generation, from_file)
    else:
        plan = _new_plan(run, current, candidate_path, plan_path, asked, from_file, close_stones)
    # the bundles are made again from the files whenever the test goes on: git need not keep them
    write_atomic(os.path.join(folder, ".gitignore"), "/candidate/\n/current/\n")
    for name, params in (("candidate", candidate_path), ("current", current)):
        write_bundle(os.path.join(folder, name), params, force=True, book_path=SHIPPED_BOOK if plan.book else None)
    return plan


def command_line(run: str, current: str, plan: ShipPlan) -> str:
    """The ``evolve ship`` command that plays this plan (for provenance)."""
    return "evolve ship {} --to {} --games {} --sprt {:g},{:g} --seed {} --random-opening {} --cpu-limit {:g}{}".format(
        run,
        current,
        plan.games,
        plan.sprt[0],
        plan.sprt[1],
        plan.seed,
        plan.random_opening,
        plan.cpu_limit,
        "" if plan.book else " --no-book",
    )


def describe(run: str, current: str, plan: ShipPlan) -> str:
    """The plan in one line: what is compared, under which test, and where the games are kept."""
    origin = plan.run if plan.generation is None else f"generation {plan.generation} of {plan.run}"
    return (
        f"candidate: {origin} "
        f"({os.path.join(ship_folder(run), CANDIDATE)}); against {current}; up to {plan.games} games, "
        f"SPRT [{plan.sprt[0]:g}, {plan.sprt[1]:g}], seed {plan.seed}, random "
        f"openings of {plan.random_opening} plies; journal {os.path.join(ship_folder(run), JOURNAL)}"
    )


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
    wanted = (games, seed, every, _sha256(candidate_path), _sha256(current), PLAYS_AS)
    try:
        with open(path) as handle:
            kept = Screen(**json.load(handle))
        if (kept.games, kept.seed, kept.every, kept.candidate_sha256, kept.current_sha256, kept.player) == wanted:
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
    found = Screen(games, seed, summary.a_win_rate, low, high, wanted[3], wanted[4], every, PLAYS_AS)
    write_atomic(path, json.dumps(found._asdict(), indent=2) + "\n")
    return found


def test_under_way(run: str) -> bool:
    """Whether the test's journal in RUN/ship/ already holds games (its first line is the match's settings)."""
    try:
        with open(os.path.join(ship_folder(run), JOURNAL), "rb") as handle:
            return sum(1 for _ in zip(range(2), handle)) > 1
    except OSError:
        return False


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
    write_atomic(os.path.join(folder, REPORT), json.dumps(summary.to_json(), indent=2) + "\n")
    test = summary.sprt
    assert test is not None  # run_match keeps the state of the SPRT it is given
    wins = summary.wins[summary.a]
    figures = (
        f"{wins} of {summary.games} games won ({summary.a_win_rate:.1%}), LLR {test.llr:.2f} in "
        f"({test.lower:.2f}, {test.upper:.2f})"
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
    if _sha256(current) != plan.current_sha256:
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
