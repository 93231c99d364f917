"""The [regret] table's part of a generation's fitness: each individual's share of the won positions
it keeps, on the fitness positions (``evolve.solved.regret``), searched as its games play; and the best
individual's share of the held-out ones, which the generation's record keeps."""

import hashlib
import logging
import traceback
from typing import Callable, Dict, Optional, Sequence, Tuple, Union

from engine.common.generation_record import HeldOut
from engine.common.pools import CpuMeter
from engine.common.runfolder import RunError
from engine.ruler.position_set import load_positions
from evolve.experiment.schema import Config
from evolve.fitness import MapFunction, run_jobs
from evolve.genome import Individual, as_features
from evolve.solved.regret import REGRET_PER_JOB, RegretJob, regret_job, regret_jobs

log = logging.getLogger("evolve.regret_fitness")


def regret_kept(
    individuals: Sequence[Individual],
    config: Config,
    searcher: str,
    play: MapFunction,
    progress: Optional[Callable[[int], object]] = None,
    meter: Optional[CpuMeter] = None,
) -> Dict[int, Tuple[int, int]]:
    """{individual: (won positions kept, won positions)} on the fitness positions of [regret] (not the
    held-out ones), each individual's moves searched as its games play (``[fitness] play``); RunError
    where the file is not the one the run began with."""
    regret = config.regret
    if regret is None:
        raise ValueError("regret_kept: the config has no [regret] table")
    path = regret.positions
    try:
        with open(path, "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
    except OSError as error:
        raise RunError(f"regret.positions = {path!r}: cannot read: {error.strerror}")
    if digest != regret.digest:
        raise RunError(f"regret.positions = {path!r} has changed since the run began: restore it to resume")
    positions = load_positions(path).split(False)
    genomes = [as_features(individual, config.genes) for individual in individuals]
    jobs = regret_jobs(genomes, positions, config.depth, config.fitness.search, searcher)
    kept = {index: 0 for index in range(len(individuals))}
    for job, flags in zip(jobs, run_jobs(play, jobs, progress, safe_regret_job, meter)):
        kept[job.individual] += sum(flags)
    return {index: (count, regret.won) for index, count in kept.items()}


def safe_regret_job(job: RegretJob) -> Union[Tuple[int, ...], str]:
    """regret_job, with an exception turned into a value the main process can retry."""
    try:
        return regret_job(job)
    except Exception:
        text = traceback.format_exc()
        log.warning("regret job failed (individual %d):\n%s", job.individual, text)
        return text


def regret_job_count(config: Config, individuals: int) -> int:
    """How many regret jobs ``individuals`` individuals take a generation (none without [regret])."""
    if config.regret is None:
        return 0
    return individuals * -(-config.regret.won // REGRET_PER_JOB)


def held_out_kept(config: Config, best: Individual, searcher: str, play: MapFunction) -> Optional[HeldOut]:
    """The ``best`` individual's share of the held-out won positions of [regret] kept (None without it),
    its moves searched by ``searcher`` through ``play`` (a pool's map) as its games play."""
    if config.regret is None:
        return None
    held_out = load_positions(config.regret.positions).split(True)
    jobs = regret_jobs([as_features(best, config.genes)], held_out, config.depth, config.fitness.search, searcher)
    flags = [flag for outcome in play(regret_job, jobs) for flag in outcome]
    return HeldOut(kept=sum(flags), won=len(flags), share=sum(flags) / len(flags) if flags else None)
