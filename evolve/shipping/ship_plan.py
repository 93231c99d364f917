"""What ``evolve ship`` compares and how, fixed before its first game: the plan, kept in ``RUN/ship/``
(or ``ship/`` beside a params file) with the candidate it exports (the run's best, or the file's
weights, with the search settings of the params file it would replace) and the two bundles. A plan
found there is a test under way: the command must ask for the same one. The games played on a plan,
the screen and the test, are ``evolve.shipping.ship``'s.
"""

import hashlib
import json
import os
from typing import Any, Mapping, NamedTuple, Optional, Tuple

from engine.common.seeds import derive_seed
from engine.constants import COURSE_CPU_LIMIT
from engine.data import SHIPPED_BOOK
from engine.params import Params, load_params, save_params
from engine.protocol import write_atomic
from engine.submission.bundle import write_bundle
from evolve.checkpoint import RunError, load_checkpoint
from evolve.experiment.schema import Config
from evolve.runs import export_best

SHIP_FOLDER = "ship"
CANDIDATE = "candidate-params.json"
PLAN = "plan.json"
JOURNAL = "sprt.journal"
DEFAULT_GAMES = 800
DEFAULT_SPRT = (0.0, 20.0)
DEFAULT_OPENING = 2
_SHIP_STREAM = 5  # derive_seed's extra number for a run's default SPRT seed


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


def file_sha256(path: str) -> str:
    """The SHA-256 of a file's bytes, as a plan and a screen know the params files they compared."""
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
    if file_sha256(current) != plan.current_sha256:
        changed.append(f"{current}'s content")
    if file_sha256(candidate_path) != plan.candidate_sha256:
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
        candidate_sha256=file_sha256(candidate_path),
        current_sha256=file_sha256(current),
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
        seed = int(file_sha256(run)[:8], 16) % (2**31) if checkpoint is None else default_seed(checkpoint.config)
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
