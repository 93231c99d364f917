"""What ``evolve ship`` compares and how, fixed before its first game: the plan, kept in ``RUN/ship/``
(or ``ship/`` beside a params file) with the candidate it exports (the run's best, or the file's
weights, with the search settings of the params file it would replace) and the two bundles. A plan
found there is a test under way: the command must ask for the same one, and its games must go on
being played by the same program (the bundled code and book: ``program_sha256``) unless the user
says otherwise. The games played on a plan, the screen and the test, are ``evolve.shipping.ship``'s.
"""

import hashlib
import json
import os
from typing import Any, Mapping, NamedTuple, Optional, Sequence, Tuple

from engine.common.runfolder import RunError
from engine.common.seeds import derive_seed
from engine.constants import COURSE_CPU_LIMIT
from engine.data import SHIPPED_BOOK
from engine.params import Params, load_params, save_params
from engine.protocol import write_atomic
from engine.submission.bundle import bundle_source, write_bundle
from evolve.checkpoint import load_checkpoint
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
    program_sha256: Optional[str] = None  # the program both bundles run (None: a plan from before it was kept)
    # (games played before, the program after) for each time the test went on with another program
    program_changes: Tuple[Tuple[int, str], ...] = ()

    def changes_line(self) -> str:
        """The program's changes during the test in words ('' where it played one program throughout)."""
        if not self.program_changes:
            return ""
        return "; the program changed during the test (--program-changed), after game {}".format(
            ", ".join(str(games) for games, _ in self.program_changes)
        )


def file_sha256(path: str) -> str:
    """The SHA-256 of a file's bytes, as a plan and a screen know the params files they compared."""
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def program_sha256(book: bool) -> str:
    """The SHA-256 of the program a ship's bundles run: the bundled my_player3.py (the engine's code) and,
    with ``book``, the shipped opening book. The params files are pinned apart."""
    digest = hashlib.sha256(bundle_source().encode())
    if book:
        with open(SHIPPED_BOOK, "rb") as handle:
            digest.update(handle.read())
    return digest.hexdigest()


def games_played(folder: str) -> int:
    """The finished games in the test's journal in ``folder`` (its first line is the match's settings;
    a last line cut off by a kill does not count); 0 where there is none."""
    try:
        with open(os.path.join(folder, JOURNAL), "rb") as handle:
            lines = handle.read().split(b"\n")
    except OSError:
        return 0
    return sum(1 for line in lines[1:-1] if line.strip())  # the piece after the last newline is cut or empty


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


def _read_plan(plan_path: str) -> ShipPlan:
    """The plan kept at ``plan_path``; ShipError where it is not one this version wrote."""
    try:
        with open(plan_path) as handle:
            recorded = json.load(handle)
        changes: Sequence[Sequence[Any]] = recorded.get("program_changes", ())
        return ShipPlan(
            **dict(
                recorded,
                sprt=tuple(recorded["sprt"]),
                program_changes=tuple((int(games), str(sha)) for games, sha in changes),
            )
        )
    except (ValueError, TypeError, KeyError) as error:
        folder = os.path.dirname(plan_path)
        raise ShipError(f"{plan_path}: not a plan this version wrote ({error}): remove {folder} to start a new test")


def _same_program(plan_path: str, plan: ShipPlan, program_changed: bool) -> ShipPlan:
    """The plan pinned to the program the bundles run now: unchanged where it is the plan's, pinned anew
    where no game was played yet, and with the change recorded where ``program_changed`` allows going on;
    ShipError otherwise (the games so far were played by another program, or by one the plan never knew)."""
    now = program_sha256(plan.book)
    if plan.program_sha256 == now:
        return plan
    folder = os.path.dirname(plan_path)
    played = games_played(folder)
    changes = plan.program_changes
    if played:
        if not program_changed:
            then = (
                f"program {plan.program_sha256[:12]}"
                if plan.program_sha256
                else "a program this plan did not record (it predates the pin)"
            )
            raise ShipError(
                f"{plan_path}: the agent's program changed since the test began: its {played} games were played "
                f"by {then}, the bundles now run program {now[:12]} (the engine's code or the shipped book "
                f"changed). --program-changed goes on with the new program, the change recorded in the plan "
                f"and named in the result; or remove {folder} to start a new test"
            )
        changes += ((played, now),)
    plan = plan._replace(program_sha256=now, program_changes=changes)
    write_atomic(plan_path, json.dumps(plan._asdict(), indent=2) + "\n")
    return plan


def _plan_under_way(
    plan_path: str,
    asked: Mapping[str, Any],
    run: str,
    current: str,
    candidate_path: str,
    generation: Optional[int],
    from_file: bool,
    program_changed: bool,
) -> ShipPlan:
    """The plan of the test under way in ``plan_path``; ShipError where it is not the one ``asked`` for
    (settings, the run's generation, the candidate file, either params file's content, or the program
    changed: see ``_same_program``)."""
    folder = os.path.dirname(plan_path)
    plan = _read_plan(plan_path)
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
    return _same_program(plan_path, plan, program_changed)


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
        program_sha256=program_sha256(asked["book"]),
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
    program_changed: bool = False,
) -> ShipPlan:
    """The plan of shipping ``run``'s best weights over ``current``: the candidate exported with
    ``current``'s search settings and both bundled under RUN/ship/. ``run`` may be a params file
    instead (``evolve fit``'s, say): its weights are the candidate, and the test lives in ship/
    beside it. A plan already there (a test under way) must be this one, or ShipError says what
    differs; the bundles are written anew from its files, and must run the program its games were
    played by unless ``program_changed`` (which records the change in the plan)."""
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
        plan = _plan_under_way(plan_path, asked, run, current, candidate_path, generation, from_file, program_changed)
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


def plan_line(run: str, current: str, plan: ShipPlan) -> str:
    """The plan in one line: what is compared, under which test, and where the games are kept."""
    origin = plan.run if plan.generation is None else f"generation {plan.generation} of {plan.run}"
    program = f"program {plan.program_sha256[:12]}" if plan.program_sha256 else "program not recorded"
    return (
        f"candidate: {origin} "
        f"({os.path.join(ship_folder(run), CANDIDATE)}); against {current}; up to {plan.games} games, "
        f"SPRT [{plan.sprt[0]:g}, {plan.sprt[1]:g}], seed {plan.seed}, random "
        f"openings of {plan.random_opening} plies; {program}{plan.changes_line()}; "
        f"journal {os.path.join(ship_folder(run), JOURNAL)}"
    )
