"""A program individual: a course agent of any language whose weights file, or own code, holds the genome.

A config's ``[individual]`` names an agent folder and either the file the agent reads its weights
from (a JSON object of named numbers) or the constants of its code to tune (``constants``: names
or patterns of ``engine.course.agent_constants``). With constants, each individual is the agent's code
with exactly those literals rewritten, built once (``individual_build``: a C++ or Java agent is
compiled again) and played as any build. A run builds the folder once when it starts or
resumes, as ``littlego grade`` builds it (a copy, in the sandbox), and every fitness game
plays that build with the individual's weights written into the player's own private copy
of it (``evolve.agents.program_player``): a copy per game, made when the game starts and removed when it
ends, so no two games, and no two workers, share one, and the agent's own folder is never
written. The keys of the agent's file that the genome does not name are written with it as
they were, so the agent reads the file it knows.

A game's moves depend on (weights, opponent, seed) as long as the agent's do: an agent that
draws from an unseeded generator or stops its search by the clock plays differently each
time, and no run of it replays exactly. Each move is held to ``individual.cpu_limit`` (the
course's limit unless the config sets a lower one), as the course holds it: a move past it
loses the game, on any machine; an agent that searches to a fixed depth stays far below it
and replays the same on every machine.
"""

import hashlib
import json
import logging
import math
import os
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, TextIO, Tuple

from engine.common.runfolder import RunError, safe_text
from engine.course.build import LANGUAGES, build_refusal, built_agents, recognise
from engine.errors import InvalidInput
from engine.play.executors import is_remote
from engine.play.settings import GameSettings
from engine.players.program import cpu_budget_words
from engine.players.specs import WEIGHTS_BYTES
from engine.protocol import write_atomic
from engine.sandbox.files import NOT_COPIED, UntrustedFileError, copy_folder, read_untrusted, remove_tree
from engine.sandbox.isolation import warning
from engine.sandbox.limits import DEFAULT_LIMITS, MIB, Limits, UntrustedFolderError
from evolve.agents.code_individual import BuiltProgram, as_written, builds_folder, code_constants
from evolve.agents.program_player import agent_weights, check_first_move, check_probes
from evolve.agents.program_player import program_player as program_player  # re-exported: evolve.fitness imports it here
from evolve.experiment.schema import Config, ProgramIndividual

log = logging.getLogger("evolve.agents.program_individual")

# Names a weights file may not take: the host's files, the agents' sources, what a copy leaves out.
RESERVED = frozenset(("input.txt", "output.txt") + tuple(language.source for language in LANGUAGES)) | NOT_COPIED
SIDECAR = ".provenance.json"  # beside an exported weights file: where its weights came from


class AgentWeights(NamedTuple):
    """Weights written in an agent's own format: the file, its provenance's sidecar, the object written
    and the provenance (the run, generation and fitness, as a params file's)."""

    path: str
    sidecar: str
    weights: Dict[str, Any]
    provenance: Dict[str, Any]


def name_problem(name: str) -> Optional[str]:
    """Why ``name`` cannot be an agent's weights file (a plain file name inside its folder), or None."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name or name != name.strip():
        return "must be a plain file name inside the agent's folder, such as weights.json"
    if name in RESERVED or name.endswith(".egg-info"):
        return "is a name the host or the agent's build uses (or a copy leaves out): choose another"
    return None


def folder_problem(folder: str) -> Optional[str]:
    """Why ``folder`` cannot be a program individual, or None."""
    if not os.path.isdir(folder):
        return "no such folder"
    if recognise(folder) is None:
        sources = ", ".join(language.source for language in LANGUAGES)
        return f"holds no course agent (build.sh looks for {sources})"
    return None


def read_agent_weights(folder: str, name: str, shown: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """The JSON object in ``folder``'s weights file ``name`` (``shown`` in messages), or None where there is
    none; InvalidInput saying why one that is there cannot be used."""
    shown = shown or name
    try:
        data, more = read_untrusted(os.path.join(folder, name), WEIGHTS_BYTES)
    except FileNotFoundError:
        return None
    except UntrustedFileError as error:
        raise InvalidInput(f"{shown} is {error.kind} (a weights file is a regular file)")
    except OSError as error:
        raise InvalidInput(f"{shown} cannot be read: {error.strerror or error}")
    if more:
        raise InvalidInput(f"{shown} is larger than {WEIGHTS_BYTES // 2**20} MiB")
    try:
        weights = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise InvalidInput(f"{shown} is not JSON: {error}")
    if not isinstance(weights, dict):
        raise InvalidInput(f"{shown} is not a JSON object of named numbers")
    return weights


def start_row(current: Mapping[str, object], bounds: Mapping[str, Tuple[float, float]], shown: str) -> List[float]:
    """The weights of the agent's file ``shown`` (decoded: ``current``) in genome order (``bounds``, gene ->
    [low, high]); InvalidInput naming a gene the file lacks or holds outside its bounds."""
    row = []
    for gene, (low, high) in bounds.items():
        value = current.get(gene)
        if gene not in current:
            raise InvalidInput(
                "'individual.bounds.{}' is not in {} (it names {}): the agent would never read it".format(
                    gene, shown, ", ".join(sorted(current)) or "nothing"
                )
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InvalidInput(f"{shown}: {gene} = {value!r} is not a finite number")
        if not low <= value <= high:
            raise InvalidInput(
                f"{shown}: weight {gene} = {value:g} is outside 'individual.bounds.{gene}' = [{low:g}, "
                f"{high:g}]; widen the "
                "bounds to start from it"
            )
        row.append(float(value))
    return row


def fingerprint(folder: str, weights_file: str, limits: Limits = DEFAULT_LIMITS) -> str:
    """A digest of the agent's files as the games' copy takes them, those an export writes aside (its
    weights file, their provenance, the previous weights kept): whether its code changed. The folder is
    read only through that copy (regular files, no link out, the size, depth and entry caps):
    UntrustedFolderError names what it refuses."""
    staging = tempfile.mkdtemp(prefix="littlego-fingerprint-")
    try:
        copy = os.path.join(staging, "copy")
        copy_folder(folder, copy, limits.folder_mb * MIB)
        digest = hashlib.sha256()
        for root, dirs, files in os.walk(copy):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                relative = os.path.relpath(path, copy)
                if written_by_export(relative, weights_file):
                    continue
                digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
                with open(path, "rb") as handle:
                    digest.update(hashlib.sha256(handle.read()).digest())
        return digest.hexdigest()
    finally:
        remove_tree(staging)


def _say(line: str) -> None:
    log.warning(line)
    print("warning: " + safe_text(line), file=sys.stderr)  # it may quote the folder's own names


def _check_folder(individual: ProgramIndividual, scheduler: Optional[str]) -> None:
    """RunError where the individual's folder cannot be built for this run (on a remote cluster, not a course
    agent, or refused by the copy); a warning where its code changed since the run began."""
    folder = individual.folder
    if is_remote(scheduler):
        raise RunError(
            "individual.program: the agent is built in a temporary folder on this machine, which the "
            f"workers of {scheduler} cannot see; play on the local pool or --scheduler local:N"
        )
    problem = folder_problem(folder)
    if problem:
        raise RunError(f"individual.program: {folder}: {problem}")
    try:
        changed = fingerprint(folder, individual.weights_file) != individual.fingerprint
    except UntrustedFolderError as error:
        raise RunError(f"individual.program: {error}")
    if changed:
        _say(
            f"individual.program: {folder} changed since the run began: its games from here on may differ from those "
            "recorded"
        )


def _built_line(program: BuiltProgram, individual: ProgramIndividual, language: Optional[str]) -> str:
    """The line that says what ``program_built`` built and how each game plays it."""
    budget = cpu_budget_words(individual.cpu_limit)
    if program.constants:
        return (
            f"the individual: {individual.program} ({language}), its code with the constants "
            f"{', '.join(program.genes)} rewritten, built once an individual and copied for each game; {budget}"
        )
    return (
        f"the individual: {individual.program} ({language}, built once), its weights written to "
        f"{individual.weights_file} in each game's own copy; {budget}"
    )


@contextmanager
def program_built(
    config: Config, games: Optional[GameSettings] = None, out: Optional[TextIO] = None, faults: Optional[str] = None
) -> Iterator[Optional[BuiltProgram]]:
    """The config's BuiltProgram while the ``with`` lasts (None where the individual is our searcher): built
    once, as ``littlego grade`` builds an agent, under ``games``' limits and CPU limit (a GameSettings: the
    run's; None: the config's), and checked with one move; RunError where it cannot be. What was built is
    said on ``out`` (a file, if given) and in the log; each move that faults in a game is kept in ``faults``
    (a folder, if given: ``ProgramPlayer``'s keep_faults)."""
    individual = config.individual
    if individual is None:
        yield None
        return
    games = games or config.games()
    _check_folder(individual, games.scheduler)
    folder = individual.folder
    limits = games.limits or Limits(mode=individual.sandbox)
    line = warning(limits)
    if line:
        _say(line)
    with ExitStack() as stack:
        (built,) = stack.enter_context(built_agents([folder], limits))
        if built.error:  # the compiler's own lines, as it wrote them
            raise RunError(f"individual.program: {build_refusal(built)}")
        copy, command = built.copy_and_command()
        genes = config.genes
        program = BuiltProgram(
            copy, command, genes, individual.weights_file, dict(individual.base), limits, games.cpu_limit
        )
        if individual.constants:
            program = program._replace(
                constants=code_constants(copy, genes), builds=stack.enter_context(builds_folder())
            )
        start = config.start.weights
        first = start[0] if start else [sum(config.bounds[g]) / 2 for g in genes]
        check_first_move(program, first)
        check_probes(program, first, config.bounds, individual.weights_file, _say)
        program = program._replace(faults=faults)
        line = _built_line(program, individual, built.language)
        log.info(line)
        if out is not None:
            print(safe_text(line), file=out)
        yield program


def sidecar_of(path: str) -> str:
    """Where an exported weights file's provenance goes: ``weights.json`` -> ``weights.provenance.json``."""
    return os.path.splitext(path)[0] + SIDECAR


PREVIOUS = ".before-"  # weights.json -> weights.before-20261128-073501.json: what an export replaced


def previous_of(path: str, when: float) -> str:
    """Where an export keeps the file it replaces: ``weights.json`` -> ``weights.before-TIME.json``."""
    stem, extension = os.path.splitext(path)
    return f"{stem}{PREVIOUS}{time.strftime('%Y%m%d-%H%M%S', time.localtime(when))}{extension}"


def written_by_export(relative: str, weights_file: str) -> bool:
    """Whether the folder's file ``relative`` is one an export writes beside the agent's code: its weights
    file, their provenance, or a previous weights file it kept."""
    stem, extension = os.path.splitext(weights_file)
    name = relative.replace(os.sep, "/")
    return (
        name == weights_file
        or name == os.path.basename(sidecar_of(weights_file))
        or (name.startswith(stem + PREVIOUS) and name.endswith(extension))
    )


def save_agent_weights(
    path: str, config: Config, weights: Sequence[float], provenance: Mapping[str, object]
) -> AgentWeights:
    """Write ``weights`` (a genome of the config's program individual) as the agent reads them, its other keys
    as they were, and their provenance beside it (``sidecar_of``: ``{"provenance": ..., "describes": the
    file's name}``), so the agent's file holds only what it knows; the AgentWeights written."""
    individual = _individual_of(config)
    provenance = dict(provenance, program=individual.program, genes=list(config.genes))
    if not individual.constants:  # constants are in the code: the agent reads no weights file
        provenance["weights_file"] = individual.weights_file
    if individual.constants:
        values: Dict[str, Any] = dict(as_written(individual.folder, config.genes, weights))
    else:
        values = agent_weights(config.genes, weights, individual.base)
    record = AgentWeights(path, sidecar_of(path), values, provenance)
    write_atomic(record.path, json.dumps(record.weights, indent=1) + "\n")
    write_atomic(
        record.sidecar, json.dumps({"provenance": provenance, "describes": os.path.basename(path)}, indent=1) + "\n"
    )
    return record


def best_file(config: Config) -> str:
    """The name of a run folder's best weights in the agent's format: ``best-`` and the agent's file name
    (``best-constants.json`` where the genes are constants in its code)."""
    individual = _individual_of(config)
    return "best-constants.json" if individual.constants else "best-" + individual.weights_file


def _individual_of(config: Config) -> ProgramIndividual:
    """The config's program individual; ValueError where its genome is our searcher's weights."""
    if config.individual is None:
        raise ValueError(f"{config.name}: the genome is our searcher's weights, not a program's")
    return config.individual


def refuse_search_settings(**settings: Optional[float]) -> None:
    """InvalidInput naming the search settings given (not None) to the export of a program individual, which
    searches as its code says: its weights file holds its weights alone."""
    given = ["--" + name.replace("_", "-") for name, value in sorted(settings.items()) if value is not None]
    if given:
        raise InvalidInput(
            "{} {} our searcher's: this run evolved a program's weights, and their export is the "
            "program's own weights file alone".format(", ".join(given), "is" if len(given) == 1 else "are")
        )
