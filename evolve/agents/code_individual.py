"""A program individual whose genome is constants of its own code: each individual's code, rewritten and built.

``evolve.agents.program_individual`` plays a program individual; where its genes are constants of the agent's code
(``[individual] constants``, found by ``engine.course.agent_constants``), ``individual_build`` makes each
individual's build: the built folder's sources with exactly those literals rewritten, built as the
course builds them (a C++ or Java agent compiled again, in a workspace with a quota), once for each
distinct code among all the workers, in a folder that lasts as long as the run (``builds``). A build
keeps of its own only the files that differ from the agent's build (the rewritten sources, the
binary or the classes that changed); every other file is a hard link to the agent's build, made
read-only: no game ever writes there, since each game copies its build into a workspace of its own
(``ProgramPlayer``). The folder keeps the ``BUILDS_KEPT`` most recently used builds (and at most
``BUILDS_MB`` MiB of their own); one removed is built again when it plays again, and none is removed
while a game copies it (``individual_held``). ``write_tuned_agent`` exports the best individual as a
new folder with the diff against the agent's code.
"""

import fcntl
import hashlib
import json
import os
import tempfile
from contextlib import contextmanager
from typing import Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from engine.common.runfolder import RunError
from engine.constants import Colour
from engine.course.agent_constants import Constant, find_constants, read_source
from engine.course.build import BUILDS_KEPT, BUILDS_MB, build_agent, build_refusal, own_bytes
from engine.course.rewrite import literal_diff, patched_sources
from engine.errors import InvalidInput
from engine.players.base import Player, PlayerFault, Reason
from engine.players.program import ProgramPlayer
from engine.protocol import write_atomic
from engine.sandbox.files import copy_folder, remove_tree
from engine.sandbox.limits import DEFAULT_LIMITS, MIB, Limits
from evolve.experiment.schema import ProgramIndividual

# In the builds folder, beside each individual's build (``build_agent``'s ``agent-`` and its name): why it
# failed, and its lock.
BUILT, FAILED, LOCK = "agent-", ".error", ".lock"
EVICTION = "eviction.lock"  # in the builds folder: one worker removes builds at a time


class BuiltProgram(NamedTuple):
    """A program individual as its games play it (``evolve.agents.program_individual`` builds and plays it; declared
    here, where each individual's build is made): the built folder (copied again for every game), the command that plays
    a move there, the genome's names, the weights file and its other keys, and the sandbox limits and CPU
    limit a move runs under; for constants tuned in the code, the ``constants`` (the genes' literals in the
    built folder's sources) and the folder ``builds`` where each individual's build is made once; and where
    faulting moves are kept (None: nowhere)."""

    folder: str
    command: str
    genes: Tuple[str, ...]
    weights_file: str
    base: Dict[str, object]
    limits: Limits
    cpu_limit: float
    constants: Tuple[Constant, ...] = ()
    builds: Optional[str] = None
    faults: Optional[str] = None  # where a faulting move is kept (its input.txt, stderr, replay.sh)


class UnbuiltProgram(Player):
    """An individual whose rewritten code did not build: each game it starts is lost by its fault, with the
    compiler's words."""

    def __init__(self, spec: str, error: str) -> None:
        self.spec, self.error = spec, error

    def new_game(self, colour: Colour, seed: int) -> None:
        raise PlayerFault(Reason.CRASH, f"its code with these constants does not build: {self.error}")


def individual_build(program: BuiltProgram, weights: Sequence[float]) -> Tuple[Optional[str], Optional[str]]:
    """(folder, None) where ``program``'s code with the constants ``weights`` is built, else (None, why not):
    the built folder's sources with exactly the genes' literals rewritten, built as the course builds them,
    once for each distinct code among all workers (``individual_held``, of which this is the quick look)."""
    with individual_held(program, weights) as found:
        return found


@contextmanager
def individual_held(program: BuiltProgram, weights: Sequence[float]) -> Iterator[Tuple[Optional[str], Optional[str]]]:
    """(folder, None) where ``program``'s code with the constants ``weights`` is built, else (None, why not), the
    build held while the ``with`` lasts: no worker removes it (``evict``) until then. Built where it is not (the
    first time, or removed since), once among all workers: a lock of each build in ``program.builds``, shared
    while it is held, its own while it is built."""
    builds = program.builds
    if builds is None:
        raise ValueError("individual_build: the program has no folder for its individuals' builds")
    texts = patched_sources(program.folder, program.constants, [float(w) for w in weights])
    digest = hashlib.sha256(json.dumps(sorted(texts.items())).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    index = f"individual-{digest}"
    folder, failed = os.path.join(builds, BUILT + index), os.path.join(builds, index + FAILED)
    with open(os.path.join(builds, index + LOCK), "a") as lock:
        while True:
            fcntl.flock(lock, fcntl.LOCK_SH)
            if os.path.isfile(failed):
                os.utime(failed)  # the most recently used
                with open(failed) as handle:
                    yield None, handle.read()
                return
            if os.path.isdir(folder):
                os.utime(folder)
                yield folder, None
                return
            fcntl.flock(lock, fcntl.LOCK_EX)  # not at once: another may build it meanwhile (or remove it: again)
            if not os.path.isfile(failed) and not os.path.isdir(folder):
                _build(program, texts, index, folder, failed)
                evict(builds)


def _build(program: BuiltProgram, texts: Mapping[str, str], index: str, folder: str, failed: str) -> None:
    """Build the individual ``index`` (``texts`` written over the agent's build) at ``folder``, its unchanged files
    shared with the agent's build; or write why it cannot be built to ``failed``. Made aside and renamed into
    place, so that a build there is a whole one."""
    staging = tempfile.mkdtemp(prefix="staging-", dir=program.builds)
    try:
        built = build_agent(program.folder, staging, index, program.limits, texts, shared=program.folder)
        if built.error:
            write_atomic(failed, build_refusal(built))
        else:
            os.rename(built.copy_and_command()[0], folder)
    finally:
        remove_tree(staging)


def evict(builds: str) -> None:
    """Remove the least recently used builds of the folder ``builds`` (a build that failed is one too) past
    ``BUILDS_KEPT`` of them or ``BUILDS_MB`` MiB of their own disk, except those a worker holds
    (``individual_held``)."""
    with open(os.path.join(builds, EVICTION), "a") as eviction:
        fcntl.flock(eviction, fcntl.LOCK_EX)
        found: List[Tuple[int, str, str]] = []  # (last used, individual, path)
        with os.scandir(builds) as entries:
            for entry in entries:
                if entry.name.startswith(BUILT) and entry.is_dir(follow_symlinks=False):
                    index = entry.name[len(BUILT) :]
                elif entry.name.endswith(FAILED):
                    index = entry.name[: -len(FAILED)]
                else:
                    continue
                found.append((entry.stat(follow_symlinks=False).st_mtime_ns, index, entry.path))
        taken = {
            path: own_bytes(path) if os.path.isdir(path) else os.lstat(path).st_blocks * 512 for _, _, path in found
        }
        count, total = len(found), sum(taken.values())
        for _, index, path in sorted(found):
            if count <= BUILDS_KEPT and total <= BUILDS_MB * MIB:
                break
            with open(os.path.join(builds, index + LOCK), "a") as lock:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:  # held: a game is copying it, or a worker building it
                    continue
                remove_tree(path)
            count, total = count - 1, total - taken[path]


class IndividualPlayer(ProgramPlayer):
    """An individual's build as a player: each game holds the build while it copies it (``individual_held``),
    built again where it was removed since it was last played."""

    def __init__(self, program: BuiltProgram, weights: Sequence[float], folder: str, label: str) -> None:
        ProgramPlayer.__init__(
            self,
            folder,
            program.command,
            cpu_limit=program.cpu_limit,
            spec=label,
            limits=program.limits,
            keep_faults=program.faults,
        )
        self.program, self.weights = program, list(weights)

    def new_game(self, colour: Colour, seed: int) -> None:
        with individual_held(self.program, self.weights) as (folder, error):
            if folder is None:
                raise PlayerFault(Reason.CRASH, f"its code with these constants does not build: {error}")
            self.source = folder
            ProgramPlayer.new_game(self, colour, seed)


def code_constants(folder: str, genes: Sequence[str]) -> Tuple[Constant, ...]:
    """The constants of the agent in ``folder`` that ``genes`` name, in their order; RunError naming a gene
    its code no longer holds (the code changed since the run began)."""
    try:
        found = {constant.name: constant for constant in find_constants(folder)}
    except InvalidInput as error:
        raise RunError(f"individual.constants: {error}")
    missing = [gene for gene in genes if gene not in found]
    if missing:
        raise RunError(
            "individual.constants: the agent's code no longer holds {} (it has {}): it changed since the run "
            "began".format(", ".join(missing), ", ".join(found) or "none")
        )
    return tuple(found[gene] for gene in genes)


@contextmanager
def builds_folder() -> Iterator[str]:
    """A folder for the individuals' builds while the ``with`` lasts."""
    folder = tempfile.mkdtemp(prefix="littlego-individuals-")
    try:
        yield folder
    finally:
        remove_tree(folder)


def as_written(folder: str, genes: Sequence[str], weights: Sequence[float]) -> Dict[str, float]:
    """{gene: value} of constants ``weights`` as the agent's code in ``folder`` gets them (an integer
    constant's rounded), in the genes' order."""
    try:
        found = {constant.name: constant for constant in find_constants(folder)}
    except (InvalidInput, OSError):
        found = {}
    return {
        gene: int(round(value)) if gene in found and found[gene].integer else float(format(float(value), ".6g"))
        for gene, value in zip(genes, weights)
    }


TUNED_DIFF, TUNED_PROVENANCE = "tuned.diff", "tuned.provenance.json"  # in an exported agent's folder


def write_tuned_agent(
    destination: str,
    individual: ProgramIndividual,
    genes: Sequence[str],
    weights: Sequence[float],
    provenance: Mapping[str, object],
) -> str:
    """Write the agent of ``individual`` (a ProgramIndividual tuning constants) to the new folder
    ``destination`` with its constants ``genes`` set to ``weights``: a copy of its folder as it is now,
    exactly those literals rewritten, the changes as a unified diff (``TUNED_DIFF``) and their provenance
    (``TUNED_PROVENANCE``); all or nothing. InvalidInput where ``destination`` is there already (the
    agent's own folder is never written) or the code no longer holds a gene. The diff's text."""
    if os.path.lexists(destination):
        raise InvalidInput(
            f"--to {destination} exists: a tuned agent is written to a new folder (the original is never overwritten)"
        )
    found = {constant.name: constant for constant in find_constants(individual.folder)}
    missing = [gene for gene in genes if gene not in found]
    if missing:
        raise InvalidInput(
            f"{individual.program}'s code no longer holds {', '.join(missing)}: it changed since the run"
        )
    constants = [found[gene] for gene in genes]
    texts = patched_sources(individual.folder, constants, [float(w) for w in weights])
    parent = os.path.dirname(os.path.abspath(destination))
    staging = tempfile.mkdtemp(prefix=".tuned-", dir=parent)
    try:
        agent = os.path.join(staging, "agent")
        copy_folder(individual.folder, agent, DEFAULT_LIMITS.folder_mb * MIB)
        diff = []
        for name, text in sorted(texts.items()):
            before = read_source(individual.folder, name)
            diff.append(literal_diff(name, before, text))
            with open(os.path.join(agent, name), "wb") as handle:
                handle.write(text.encode("utf-8", "surrogateescape"))
        diff_text = "".join(diff)
        with open(os.path.join(agent, TUNED_DIFF), "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(diff_text)
        record = dict(provenance, program=individual.program, constants=as_written(individual.folder, genes, weights))
        with open(os.path.join(agent, TUNED_PROVENANCE), "w") as handle:
            handle.write(json.dumps({"provenance": record}, indent=1) + "\n")
        os.rename(agent, destination)
    finally:
        remove_tree(staging)
    return diff_text
