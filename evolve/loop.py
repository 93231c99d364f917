"""The evolution loop, in DEAP's idiom, with a checkpoint after every generation.

Each generation draws fresh openings and seeds, shared by all its individuals, so
their fitnesses are comparable and no score survives on one lucky set of games:
every individual of the new population, the hall-of-fame elites included, is
invalidated and evaluated on the new seeds through ``toolbox.map``. The hall of fame is
then rebuilt from these fresh evaluations.

A checkpoint (population, hall of fame, logbook, the CMA-ES or SPSA state, the evolution's
random stream ``genome.STREAM`` and numpy's generator state, all as JSON data:
``evolve.checkpoint``) is written atomically after every generation; resuming from it
replays the remaining generations exactly as an uninterrupted run would, whatever the
number of workers, because every random draw happens in the main process and every
game depends only on (weights, opponent, seed).
"""

import datetime
import json
import logging
import os
import shutil
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, TextIO

import numpy
from deap import tools

from engine.common.generation_record import GenerationRecord, HeldOut
from engine.common.pools import CpuMeter
from engine.common.runfolder import CONFIG_COPY, FOLDER_TIME, RunError, safe_text
from engine.common.seeds import derive_seed
from engine.course.build import agents_built
from engine.errors import InvalidInput
from engine.play.executors import check_scheduler, executor, is_remote
from engine.players.searcher import SearcherName
from engine.protocol import write_atomic
from evolve import genome
from evolve.agents.code_individual import BuiltProgram
from evolve.agents.program_individual import program_built
from evolve.checkpoint import (
    Checkpoint,
    RunLock,
    has_checkpoint,
    load_checkpoint,
    load_start_weights,
    save_checkpoint,
    save_start_weights,
)
from evolve.config import load_config
from evolve.experiment.schema import Config
from evolve.fitness import choose_searcher, make_jobs, run_jobs, self_play_opponents
from evolve.generations import by_colour, population_figures
from evolve.regret_fitness import held_out_kept, positions_of
from evolve.rounds import GenerationFitness, evaluate_generation
from evolve.run_output import (
    CostForecast,
    GenerationBar,
    announce,
    append_generation,
    new_folder,
    record_extension,
    remove_folder,
    rewrite_generations,
    show_generation,
    start_log,
    write_best,
)
from evolve.tuner import RunTuner
from evolve.verdict import tuned_spec, verdict_jobs, verdict_of, verdict_words

log = logging.getLogger("evolve")

VERDICT = "verdict.json"  # in a program individual's run folder: its best against the original, at its end
FAULTS = "faults"  # a program individual's faulting moves, each kept with its input.txt and replay.sh


def _both(
    first: Optional[Callable[[int], None]], second: Optional[Callable[[int], None]]
) -> Optional[Callable[[int], None]]:
    """One callback told how many more games (or positions) are done that tells each of ``first`` and
    ``second`` (either None)."""
    if first is None or second is None:
        return first or second

    def told(done: int) -> None:
        first(done)
        second(done)

    return told


def generation_seed(config: Config, generation: int) -> int:
    """The seed of a generation's games: from the config seed and the generation alone."""
    return derive_seed(config.seed, generation) % (2**31)


class Evolution:
    """One run: its folder, config, DEAP state, and the pool that plays its games."""

    def __init__(
        self,
        run_dir: str,
        config: Config,
        jobs: Optional[int] = None,
        progress: bool = True,
        out: TextIO = sys.stdout,
        strategy: Optional[genome.Strategy] = None,
        scheduler: Optional[str] = None,
    ) -> None:
        if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
            raise InvalidInput(f"jobs must be a positive integer, not {jobs!r}")
        self.run_dir = run_dir
        self.config = config
        # How the fitness games are played: the command line's jobs and scheduler over the experiment's.
        self.games = config.games(jobs, check_scheduler(scheduler) if scheduler else None, progress)
        self.where: Dict[str, Any] = {}  # where the games run (an executor's describe())
        self.searcher = SearcherName.PYTHON  # the searcher the games use, settled when the run starts
        self.program: Optional[BuiltProgram] = (
            None  # a program individual's build (evolve.agents.program_individual), while it runs
        )
        self.lock: Optional[RunLock] = None
        self.progress = progress
        self.forecast_said = False  # CostForecast: once a process, in its first generation
        self.out = out
        self.bounds = genome.gene_bounds(config)
        # The strategy, its toolbox, population and hall of fame, asked and told a generation at a time:
        # the same object the tuner benchmark runs (evolve.tuner).
        self.tuner = RunTuner(config, strategy)
        self.logbook = tools.Logbook()
        self.logbook.header = ["gen", "evals", "games", "best", "mean", "std", "min", "seconds"]
        self.records: List[GenerationRecord] = []  # the full per-generation records behind generations.jsonl
        self.generation = -1
        self.new = False  # a folder this process made (``create``), not one it resumed
        self.warned: Set[str] = set()  # the kinds of warning already printed this session (saturation_warning)

    @property
    def toolbox(self) -> genome.Toolbox:
        """DEAP's toolbox: the strategy's generate and update, and the map the games run through."""
        return self.tuner.toolbox

    @property
    def strategy(self) -> genome.Strategy:
        """The strategy's state, as a checkpoint keeps it."""
        return self.tuner.strategy

    @property
    def population(self) -> List[genome.Individual]:
        """The last generation the strategy was told (the GA's, elites included; CMA-ES's and SPSA's draws)."""
        return self.tuner.population

    @property
    def halloffame(self) -> Any:
        """DEAP's HallOfFame: the best of the last generation's fresh measures."""
        return self.tuner.halloffame

    # -- creating and resuming ------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        config_path: str,
        runs_dir: str = "runs",
        jobs: Optional[int] = None,
        progress: bool = True,
        out: TextIO = sys.stdout,
        scheduler: Optional[str] = None,
    ) -> "Evolution":
        """A new run folder for a config file (the config, read once, its searcher and the arguments checked
        first: nothing is created for bad ones)."""
        config = load_config(config_path)
        evolution = cls("", config, jobs, progress, out, scheduler=scheduler)  # checks the arguments
        choose_searcher(config.fitness.searcher)  # a searcher this machine cannot run makes no folder
        if os.path.exists(runs_dir) and not os.path.isdir(runs_dir):
            raise RunError(f"{runs_dir}: not a folder (--runs-dir names where run folders go)")
        os.makedirs(runs_dir, exist_ok=True)
        evolution.run_dir = new_folder(runs_dir, f"{config.name}-{datetime.datetime.now().strftime(FOLDER_TIME)}")
        run_dir = evolution.run_dir
        evolution.new = True  # made by this process: removed again if it fails before its first generation
        evolution.lock = RunLock(run_dir).acquire()
        shutil.copyfile(config_path, os.path.join(run_dir, CONFIG_COPY))
        if config.start.params:
            save_start_weights(run_dir, config.start, config.genes)
        evolution._start()
        return evolution

    def _start(self) -> None:
        """Generation -1: the random streams seeded from the config, an empty hall of fame."""
        self.tuner.seed()

    @classmethod
    def resume(
        cls,
        run_dir: str,
        jobs: Optional[int] = None,
        progress: bool = True,
        out: TextIO = sys.stdout,
        scheduler: Optional[str] = None,
    ) -> "Evolution":
        """The run in ``run_dir`` as its last checkpoint left it (or from its start, if it has none yet)."""
        if not os.path.isdir(run_dir):
            raise RunError(f"{run_dir}: no such run folder")
        lock = RunLock(run_dir).acquire()
        try:
            if not has_checkpoint(run_dir) and os.path.exists(os.path.join(run_dir, CONFIG_COPY)):
                # Stopped before its first checkpoint: start again, exactly as the run would have.
                evolution = cls(
                    run_dir,
                    load_config(os.path.join(run_dir, CONFIG_COPY), load_start_weights(run_dir)),
                    jobs,
                    progress,
                    out,
                    scheduler=scheduler,
                )
                evolution.lock = lock
                evolution._start()
                rewrite_generations(run_dir, evolution.records)
                return evolution
            checkpoint = load_checkpoint(run_dir)
            evolution = cls(
                run_dir, checkpoint.config, jobs, progress, out, strategy=checkpoint.strategy, scheduler=scheduler
            )
        except BaseException:
            lock.release()
            raise
        evolution.lock = lock
        evolution.tuner.population = checkpoint.population
        if checkpoint.strategy is None:  # a GA's state is its population: the GA made anew is told it
            evolution.toolbox.update(evolution.population, evolution.population)
        evolution.tuner.halloffame = checkpoint.halloffame
        evolution.logbook = checkpoint.logbook
        evolution.records = checkpoint.records
        evolution.generation = checkpoint.generation
        genome.STREAM.setstate(checkpoint.random_state)
        numpy.random.set_state(checkpoint.numpy_state)
        # Lines of a generation that was cut off before its checkpoint are dropped.
        rewrite_generations(run_dir, evolution.records)
        return evolution

    # -- the loop -------------------------------------------------------------------------------
    def run(self, stop_after: Optional[int] = None, fitness_cpu: Optional[float] = None) -> str:
        """Evolve until the configured number of generations (or ``stop_after`` more, or until the fitness
        jobs of this process's generations have spent ``fitness_cpu`` CPU seconds: the generation that
        passes it is the last); the run folder."""
        start_log(self.run_dir)
        last = self.config.generations
        if stop_after is not None:
            last = min(last, self.generation + stop_after)
        played = len(self.records)
        failed_at_start = False  # a failure (not Ctrl-C) of a new run before its first generation finished
        try:
            self.searcher = choose_searcher(self.config.fitness.searcher)
            faults = os.path.join(self.run_dir, FAULTS)
            remote = self.games.scheduler if is_remote(self.games.scheduler) else None
            opponents = [entry.opponent for entry in self.config.panel]  # a C++ or Java folder: built once, here
            with program_built(self.config, self.games, self.out, faults) as self.program, agents_built(
                opponents, self.games.limits, remote
            ), executor(self.games.scheduler, self.games.jobs or 1) as games:
                self.where = games.describe()
                announce(self.run_dir, self.config, self.searcher, self.where, self.generation + 1, self.out)
                self.toolbox.register("map", games.map)
                while self.generation < last and not self._spent(self.records[played:], fitness_cpu):
                    self._generation(self.generation + 1)
                if self.generation >= self.config.generations and not self.verdict_said():
                    self._verdict(games.map)
        except Exception:
            failed_at_start = self.new and self.generation < 0
            raise
        finally:
            if self.lock is not None:
                self.lock.release()
                self.lock = None
            if failed_at_start:
                remove_folder(self.run_dir)
        log.info("run finished at generation %d", self.generation)
        return self.run_dir

    def _generation(self, number: int) -> None:
        started = time.time()
        seed = generation_seed(self.config, number)
        opponents = self_play_opponents(self.config, self.halloffame, self.population, seed)
        # Ask the strategy (GA, CMA-ES or SPSA), then tell it below. Fresh seeds this generation: every
        # fitness, the elites' too, is measured anew.
        candidates = self.tuner.ask()
        invalid = [ind for ind in candidates if not ind.fitness.valid]
        regret = self.config.regret
        games = len(make_jobs(invalid, self.config, seed, opponents))
        held_out_won = len(positions_of(self.config, True)) if regret else 0
        positions = len(invalid) * regret.won + held_out_won if regret else 0  # the best's held-out ones too
        bar = GenerationBar(number, games, positions, self.progress)
        forecast = self._forecast(number, games, len(invalid), positions, held_out_won)
        on_game = _both(bar.game, forecast.game if forecast else None)
        on_position = _both(bar.position, forecast.position if forecast else None)
        # CMA-ES draws from numpy's global generator: kept as it was whatever the executor's
        # libraries might draw from it while the games run.
        numpy_state = numpy.random.get_state()
        meter = CpuMeter()
        measured = evaluate_generation(
            invalid,
            self.config,
            seed,
            opponents,
            self.searcher,
            self.toolbox.map,
            on_game,
            self.program,
            meter,
            on_position,
        )
        numpy.random.set_state(numpy_state)
        for individual, (fitness, report) in zip(invalid, measured.folded):
            individual.fitness.values = fitness
            individual.report = report
        self.tuner.tell(candidates)
        held_out_started = time.time()
        best_held_out = held_out_kept(
            self.config,
            self.halloffame[0],
            self.searcher,
            self.toolbox.map,
            self.program,
            bar.position,
        )
        held_out_seconds = time.time() - held_out_started
        bar.close()
        seconds = time.time() - started
        self.generation = number
        self._record(number, candidates, measured, best_held_out, held_out_seconds, seconds, meter.seconds)
        self._checkpoint()

    @staticmethod
    def _spent(records: Sequence[GenerationRecord], fitness_cpu: Optional[float]) -> bool:
        """Whether ``records`` spent ``fitness_cpu`` CPU seconds on their fitness jobs (never, for None)."""
        if fitness_cpu is None:
            return False
        if any(record.cpu_seconds is None for record in records):
            raise RunError("a CPU budget needs each worker to run one job at a time (the local pool)")
        return sum(record.cpu_seconds or 0.0 for record in records) >= fitness_cpu

    def _forecast(
        self, number: int, games: int, individuals: int, positions: int, held_out_won: int
    ) -> Optional[CostForecast]:
        """The CostForecast of generation ``number``, the first this process plays (None for the others):
        what the run will cost, from its ``games`` and ``positions``."""
        if self.forecast_said:
            return None
        self.forecast_said = True
        workers = int(self.where.get("workers", self.games.jobs or 1))
        left = self.config.generations - number + 1
        where = str(self.where.get("executor", "local pool"))
        individual = self.config.individual
        verdict = individual.verdict_games if individual and not self.verdict_said() else 0
        later = self.tuner.later_candidates(individuals) if number == 0 else individuals
        later_games = games * later // max(individuals, 1)
        self_play = self.config.self_play
        if number == 0 and self_play.weight > 0 and self.config.panel:  # self-play needs a generation to meet
            met = min(self_play.opponents, max(self.config.hall_of_fame_size(), self.config.population))
            later_games += later * met * self_play.games
        return CostForecast(
            games, individuals, workers, left, self.out, where, verdict, positions, held_out_won, later, later_games
        )

    def verdict_said(self) -> bool:
        """Whether the run's verdict (``evolve.verdict``) is in its folder already, or it has none to say."""
        individual = self.config.individual
        if individual is None or not individual.verdict_games or not self.config.start.weights:
            return True
        return os.path.exists(os.path.join(self.run_dir, VERDICT))

    def _verdict(self, play: Any) -> None:
        """The run's best against the agent it began from: the verdict's games, its line on ``out`` and in the
        log, and ``verdict.json`` in the run folder."""
        individual, program = self.config.individual, self.program
        assert individual is not None and program is not None  # verdict_said: a program individual
        jobs = verdict_jobs(self.config, self.halloffame[0], self.config.start.weights[0], self.config.seed, program)
        bar = GenerationBar(-1, len(jobs), 0, self.progress, "the verdict's games")
        outcomes = run_jobs(play, jobs, bar.game)
        bar.close()
        verdict = verdict_of(outcomes)
        line = verdict_words(verdict, tuned_spec(self.config, self.run_dir), f"cmd:{individual.program}")
        log.info(line)
        print(safe_text(line), file=self.out)
        write_atomic(os.path.join(self.run_dir, VERDICT), json.dumps(verdict._asdict(), indent=1) + "\n")

    # -- records --------------------------------------------------------------------------------
    def extend(self, generations: int) -> None:
        """Go on to generation ``generations`` (more than the config's, or than done): kept in the next
        checkpoint and said in the run's log."""
        record_extension(self.run_dir, self.config.generations, generations)
        self.config = self.config._replace(generations=generations)
        self.tuner.config = self.config

    def _centre(self, evaluated: List[genome.Individual]) -> List[float]:
        """Where the strategy stands: SPSA's centre, CMA-ES's mean, the GA population's mean weights."""
        return self.tuner.centre()

    def _one_job_a_process(self) -> bool:
        """Whether each worker process runs one job at a time (the local pool; Dask workers of one thread)."""
        workers: int = self.where.get("workers", 1)
        threads: int = self.where.get("threads", workers)
        return threads <= workers

    def _record(
        self,
        number: int,
        evaluated: List[genome.Individual],
        measured: GenerationFitness,
        best_held_out: Optional[HeldOut],
        held_out_seconds: float,
        seconds: float,
        cpu_seconds: float,
    ) -> None:
        best: genome.Individual = self.halloffame[0]
        games = measured.games
        rate = games / max(seconds, 1e-9)
        asked = measured.positions + (best_held_out.won if best_held_out else 0)
        position_seconds = measured.position_seconds + held_out_seconds
        regret = self.config.regret
        population = population_figures(evaluated)
        entry = GenerationRecord(
            generation=number,
            evaluated=len(evaluated),
            games=games,
            searcher=None if self.program else self.searcher,  # a program's moves are its own code's
            seconds=round(seconds, 3),
            # the workers' CPU on this generation's fitness jobs; none where a worker runs several jobs at
            # once (Dask threads), whose CPU one job's measure cannot tell apart
            cpu_seconds=round(cpu_seconds, 3) if self._one_job_a_process() else None,
            games_per_second=float(f"{rate:.3g}"),  # three digits however slow: 0.00412, not 0.0
            executor=dict((k, v) for k, v in self.where.items() if k != "dashboard"),
            games_per_second_per_worker=float(f"{rate / max(self.where.get('workers', 1), 1):.3g}"),
            diversity=genome.diversity(self.population, self.bounds),
            best_fitness=(best.fitness.values[0], best.fitness.values[1]),
            best_weights=genome.named(best, self.config.genes),
            best_by_colour=by_colour(best),
            centre=genome.named(self._centre(evaluated), self.config.genes),
            play=None if self.program else self.config.fitness.play.value,
            best_regret_kept=best.report.get("regret_kept") if regret and getattr(best, "report", None) else None,
            best_held_out=best_held_out,
            positions=len(evaluated) * regret.won if regret else None,  # won fitness positions asked this generation
            positions_per_second=float(f"{asked / max(position_seconds, 1e-9):.3g}") if regret else None,
            win_rate=population.win_rate,
            margin=population.margin,
            individuals=population.individuals,
        )
        self.records.append(entry)
        self.logbook.record(
            gen=number,
            evals=len(evaluated),
            games=games,
            best=best.fitness.values[0],
            mean=entry.win_rate.mean,
            std=entry.win_rate.std,
            min=entry.win_rate.min,
            seconds=entry.seconds,
        )
        append_generation(self.run_dir, entry)
        write_best(self.run_dir, self.config, self.generation, best)
        show_generation(entry, self.out, self.warned, self.records[:-1])

    def _checkpoint(self) -> None:
        save_checkpoint(
            self.run_dir,
            Checkpoint(
                config=self.config,
                generation=self.generation,
                population=self.population,
                halloffame=self.halloffame,
                logbook=self.logbook,
                records=self.records,
                strategy=self.strategy,
                random_state=genome.STREAM.getstate(),
                numpy_state=numpy.random.get_state(),
            ),
        )
