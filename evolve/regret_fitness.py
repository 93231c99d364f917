"""The [regret] table's part of a generation's fitness, measured by the exact ruler (``engine.ruler``): each
individual's share of the won positions it keeps, on the fitness positions, and the best individual's share of
the held-out ones, which the generation's record keeps beside it.

An individual is asked each won position as its games ask it: our searcher a fresh search of its weights
(``FreshSearch``, searched as ``[fitness] play`` says), a program individual its agent, built as its games build
it and called once a position in the sandbox (``program_player``). A position it answers by a fault (a crash,
a timeout, an illegal move) is given away.
"""

import hashlib
import logging
import traceback
from typing import Callable, List, Optional, Sequence, Tuple, Union

from engine.common.generation_record import HeldOut
from engine.common.pools import CpuMeter
from engine.common.runfolder import RunError
from engine.players.base import Player
from engine.players.searcher import SearcherName
from engine.ruler.fresh_search import FreshSearch
from engine.ruler.measure import Answer, Kept, MakePlayer, MoveFault, RulerJob, answers, gathered, ruler_jobs
from engine.ruler.position_set import SolvedPosition, load_positions
from evolve.agents.code_individual import BuiltProgram
from evolve.agents.program_player import program_player
from evolve.experiment.schema import Config
from evolve.fitness import MapFunction, run_jobs
from evolve.genome import Individual
from evolve.params_genes import run_genome

log = logging.getLogger("evolve.regret_fitness")


class ProgramMake:
    """A program individual's player on the ruler, made in the worker (picklable): ``program_player`` of the
    BuiltProgram with the individual's genome ``weights``, labelled as its games label it."""

    def __init__(self, program: BuiltProgram, weights: Sequence[float], label: str) -> None:
        self.program, self.weights, self.label = program, tuple(float(w) for w in weights), label

    def __call__(self) -> Player:
        return program_player(self.program, self.weights, self.label)


def individual_make(
    config: Config,
    individual: Sequence[float],
    label: str,
    searcher: SearcherName,
    program: Optional[BuiltProgram] = None,
) -> MakePlayer:
    """What makes ``individual``'s player on the ruler: ``program`` with its genome (a BuiltProgram: a program
    individual), else our searcher with its weights, a fresh search a position as its games play it (to the
    config's depth, or at the node budget of ``[fitness] play = "as-shipped"``)."""
    if program is not None:
        return ProgramMake(program, individual, label)
    search = config.fitness.search
    settings = search if search is not None else {"depth": config.depth}
    params = run_genome(config.genes, config.start.base).params(individual, label, settings)
    return FreshSearch(params, searcher, plain=search is None)


def positions_of(config: Config, is_held_out: bool) -> Tuple[SolvedPosition, ...]:
    """The won positions of [regret]'s file in one split (the held-out ones, or the fitness's); RunError where
    the file is not the one the run began with."""
    regret = config.regret
    if regret is None:
        raise ValueError("positions_of: the config has no [regret] table")
    path = regret.positions
    try:
        with open(path, "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
    except OSError as error:
        raise RunError(f"regret.positions = {path!r}: cannot read: {error.strerror}")
    if digest != regret.digest:
        raise RunError(f"regret.positions = {path!r} has changed since the run began: restore it to resume")
    return load_positions(path).won(is_held_out)


def measured(
    makes: Sequence[MakePlayer],
    positions: Sequence[SolvedPosition],
    play: MapFunction,
    progress: Optional[Callable[[int], object]] = None,
    meter: Optional[CpuMeter] = None,
) -> List[Kept]:
    """The Kept of each player ``makes`` makes on the won ``positions``, its jobs run through ``play`` (a pool's
    map) as the fitness games are: a job that fails is retried once (``run_jobs``); ``progress`` hears of each
    job's positions as they are answered."""
    jobs = ruler_jobs(makes, positions)
    results = run_jobs(play, jobs, progress, safe_answers, meter, count=lambda job: len(job.positions))
    kept = gathered(jobs, results, len(makes))
    for index, found in enumerate(kept):
        faults = [miss for miss in found.misses if isinstance(miss.answer, MoveFault)]
        if faults:
            log.warning(
                "individual %d gave %d of %d won positions away by its fault, the first at ply %d: %s",
                index,
                len(faults),
                found.won,
                faults[0].solved.ply,
                faults[0].answer,
            )
    return kept


def regret_kept(
    individuals: Sequence[Individual],
    config: Config,
    searcher: SearcherName,
    play: MapFunction,
    progress: Optional[Callable[[int], object]] = None,
    meter: Optional[CpuMeter] = None,
    program: Optional[BuiltProgram] = None,
) -> List[Kept]:
    """Each individual's Kept on the fitness positions of [regret] (not the held-out ones), its moves played as
    its games play them (``individual_make``; ``program``: the BuiltProgram of a program individual); RunError
    where the file is not the one the run began with."""
    makes = [individual_make(config, ind, f"individual {k}", searcher, program) for k, ind in enumerate(individuals)]
    return measured(makes, positions_of(config, False), play, progress, meter)


def safe_answers(job: RulerJob) -> Union[Tuple[Answer, ...], str]:
    """``answers``, with an exception turned into a value the main process can retry."""
    try:
        return answers(job)
    except Exception:
        text = traceback.format_exc()
        log.warning("ruler job failed (individual %d):\n%s", job.player, text)
        return text


def faults_of(kept: Kept) -> int:
    """How many of the won positions ``kept`` measures its player gave away by its fault."""
    return sum(1 for miss in kept.misses if isinstance(miss.answer, MoveFault))


def held_out_kept(
    config: Config,
    best: Individual,
    searcher: SearcherName,
    play: MapFunction,
    program: Optional[BuiltProgram] = None,
    progress: Optional[Callable[[int], object]] = None,
) -> Optional[HeldOut]:
    """The ``best`` individual's share of the held-out won positions of [regret] kept (None without it), its
    moves played as its games play them (``program``: as ``regret_kept``) through ``play`` (a pool's map)."""
    if config.regret is None:
        return None
    positions = positions_of(config, True)
    if not positions:
        return HeldOut(kept=0, won=0, share=None)
    (kept,) = measured(
        [individual_make(config, best, "the best individual", searcher, program)], positions, play, progress
    )
    return HeldOut(kept=kept.kept, won=kept.won, share=kept.share)
