"""GameFitness from games: jobs that depend only on (weights, opponent, seed), played on a pool.

All individuals of a generation meet the same opponents, openings and seeds, so their
fitnesses are comparable; every opponent is met as Black and as White from the same
random opening, or, for a panel entry with ``won_side``, each game from its own opening
with the colour that opening leaves won (``engine.play.openings``): every such game then
asks only whether the individual keeps a won game. ``evolve.rounds`` plays a generation's jobs
in rounds and folds their outcomes into fitnesses.
"""

import logging
import random
import sys
import traceback
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from engine.common.pools import CpuMeter, measured_map
from engine.common.seeds import derive_seed
from engine.constants import BLACK, WHITE, Colour
from engine.features import FEATURES
from engine.native.compiler import NativeError, NoCompiler
from engine.native.search import native_library
from engine.play.game import play_game
from engine.play.openings import load_openings
from engine.players.base import Player, Reason
from engine.players.searcher import AgentPlayer, SearcherName
from engine.players.shipped import ShippedPlayer, shipped_book
from engine.players.specs import make_player
from engine.ruler.measure import RulerJob
from evolve.agents.code_individual import BuiltProgram
from evolve.agents.program_individual import program_player
from evolve.experiment.config_keys import SearcherChoice
from evolve.experiment.schema import Config
from evolve.genome import FitnessReport, Individual
from evolve.params_genes import Genome, run_genome

log = logging.getLogger("evolve.fitness")

# The words of the types: a job's Outcome is (win 1/0, stone margin) for the individual, and for a program
# individual a third number, 1 where it lost by its own fault; a GameFitness is (win rate, mean margin), and a
# folded individual its GameFitness with its FitnessReport (``evolve.genome``: its win rates by colour...).
Outcome = Tuple[float, ...]
GameFitness = Tuple[float, float]
Folded = Tuple[GameFitness, FitnessReport]
MapFunction = Callable[..., Iterable[Any]]  # a pool's or an executor's map(function, jobs)
SearchSettings = Dict[str, Optional[float]]  # search settings by name (engine.search_settings.SEARCH_TABLE)


class FitnessGame(NamedTuple):
    """One fitness game. ``individual``: its index in the batch; ``weights``: its genome (for our searcher, the
    values of ``genome``'s genes, which makes them Params); ``opponent``: a player spec, or a
    self-play genome, likewise; ``group``: the index of the
    panel entry (self-play last); ``game``: even = the individual plays Black, odd = White, unless
    ``colour`` says (a won-side game: the colour its opening leaves won);
    ``searcher``: the searcher of our players, "native" or "python" (the same moves); ``program``:
    None where the individual is our searcher, else the BuiltProgram whose weights the genome is
    (``evolve.agents.program_individual``; ``depth`` then plays no part); ``search``: where fitness plays as shipped
    (``[fitness] play``), the search settings our players play with (``engine.players.shipped``), and
    ``champion`` opponents play so too."""

    individual: int
    weights: Tuple[float, ...]
    opponent: Union[str, Tuple[float, ...]]
    group: int
    game: int
    seed: int
    opening_seed: int
    opening_plies: int
    depth: int
    searcher: SearcherName = SearcherName.PYTHON
    program: Optional[BuiltProgram] = None
    colour: Optional[Colour] = None
    search: Optional[SearchSettings] = None  # play = "as-shipped": the search settings (else None: depth)
    genome: Optional[Genome] = None  # our searcher's: how the genes become Params (None: weights by feature)

    @property
    def plays_black(self) -> bool:
        """Whether the individual plays Black in this game."""
        return self.colour == BLACK if self.colour is not None else self.game % 2 == 0


class FitnessGameError(RuntimeError):
    """A game job failed twice; the message names the individual and the seed."""


def weights_player(
    genome: Genome,
    weights: Sequence[float],
    depth: int,
    label: str,
    searcher: SearcherName = SearcherName.PYTHON,
    search: Optional[SearchSettings] = None,
) -> Player:
    """Our searcher with a genome's weights, untimed (results must not depend on the machine): a plain
    search to ``depth``, or given ``search`` (settings by name), the agent as it ships at a node budget."""
    if search is not None:
        return ShippedPlayer(genome.params(weights, label, search), shipped_book(), spec=label, searcher=searcher)
    return AgentPlayer(genome.params(weights, label, {"depth": depth}), spec=label, timed=False, searcher=searcher)


def genome_player(job: FitnessGame, weights: Sequence[float], label: str) -> Player:
    """The player of a genome in ``job``: the program individual with these weights, else our searcher."""
    if job.program is not None:
        return program_player(job.program, weights, label)
    genome = job.genome if job.genome is not None else Genome(tuple(FEATURES), None)
    return weights_player(genome, weights, job.depth, label, job.searcher, job.search)


def opponent_player(job: FitnessGame, spec: str) -> Player:
    """The panel opponent ``spec`` (``job``'s) by its spec; where fitness plays as shipped, ``champion[:PARAMS]``
    plays as ``shipped[:PARAMS]`` (the same agent at a node budget: a fitness never depends on the machine)."""
    if job.search is not None and spec.partition(":")[0] == "champion":
        spec = "shipped" + spec[len("champion") :]
    return make_player(spec, timed=False, searcher=job.searcher)


def play_job(job: FitnessGame) -> Outcome:
    """Worker: play one fitness game; (win 1/0, stone margin) for the individual, and for a program
    individual whether it lost by its own fault (1/0)."""
    me = genome_player(job, job.weights, f"individual {job.individual}")
    if isinstance(job.opponent, str):
        other = opponent_player(job, job.opponent)
    else:
        other = genome_player(job, job.opponent, "self-play opponent")
    plays_black = job.plays_black
    black, white = (me, other) if plays_black else (other, me)
    record = play_game(black, white, seed=job.seed, opening_plies=job.opening_plies, opening_seed=job.opening_seed)
    margin = record.black_stones - record.white_stones
    won = record.winner == (BLACK if plays_black else WHITE)
    log.debug(
        "individual %d vs %s game %d seed %d: %s (%s)",
        job.individual,
        job.opponent if isinstance(job.opponent, str) else "self-play",
        job.game,
        job.seed,
        "won" if won else "lost",
        record.reason,
    )
    outcome = (1.0 if won else 0.0), float(margin if plays_black else -margin)
    if job.program is None:
        return outcome
    fault = not won and record.reason != Reason.END
    if fault:  # a program can lose by its own fault (a crash, a move past the CPU limit): said, never silent
        log.warning(
            "individual %d lost game %d (seed %d) by its fault: %s", job.individual, job.game, job.seed, record.detail
        )
    return outcome + (1.0 if fault else 0.0,)


def safe_play_job(job: FitnessGame) -> Union[Outcome, str]:
    """play_job, with an exception turned into a value the main process can retry."""
    try:
        return play_job(job)
    except Exception:
        text = traceback.format_exc()
        log.warning("game job failed (individual %d, seed %d):\n%s", job.individual, job.seed, text)
        return text


def make_jobs(
    individuals: Sequence[Sequence[float]],
    config: Config,
    generation_seed: int,
    self_play_opponents: Sequence[Sequence[float]],
    searcher: SearcherName = SearcherName.PYTHON,
    program: Optional[BuiltProgram] = None,
) -> List[FitnessGame]:
    """The game jobs of a batch of individuals for one generation's seeds, searched by ``searcher``; the
    individuals are ``program`` (a BuiltProgram) with their weights where it is given."""
    groups: List[Tuple[Union[str, Tuple[float, ...]], int, int, bool]] = [
        (entry.opponent, entry.games, entry.random_opening, entry.won_side) for entry in config.panel
    ]
    self_play = config.self_play
    if self_play.weight > 0 and self_play_opponents:
        for weights in self_play_opponents:
            groups.append((tuple(weights), self_play.games, self_play.random_opening, False))
    genome = None if program is not None else run_genome(config.genes, config.start.base)
    games_of = [_games(generation_seed, group, *entry[1:]) for group, entry in enumerate(groups)]
    jobs = []
    for index, individual in enumerate(individuals):
        weights = tuple(float(w) for w in individual)
        for group, (opponent, _, opening, _) in enumerate(groups):
            for game, (seed, opening_seed, colour) in enumerate(games_of[group]):
                jobs.append(
                    FitnessGame(
                        index,
                        weights,
                        opponent,
                        group,
                        game,
                        seed,
                        opening_seed,
                        opening,
                        config.depth,
                        searcher,
                        program,
                        colour,
                        config.fitness.search,
                        genome,
                    )
                )
    return jobs


def _games(
    generation_seed: int, group: int, games: int, opening: int, won_side: bool
) -> List[Tuple[int, int, Optional[Colour]]]:
    """(seed, opening seed, colour) of each game of a job group: pairs of games from one opening,
    colours by parity (colour None); or, won side, each game from its own opening in the colour
    that opening leaves won."""
    if not won_side:
        return [
            (derive_seed(generation_seed, group, game), derive_seed(generation_seed, group, game // 2, 1), None)
            for game in range(games)
        ]
    table = load_openings()
    found: List[Tuple[int, int, Optional[Colour]]] = []
    for game in range(games):
        opening_seed = derive_seed(generation_seed, group, game, 2)
        found.append((derive_seed(generation_seed, group, game), opening_seed, table.won_side(opening_seed)))
    return found


def run_jobs(
    map_function: MapFunction,
    jobs: Sequence[Any],
    progress: Optional[Callable[[int], object]] = None,
    function: Optional[Callable[[Any], Any]] = None,
    meter: Optional[CpuMeter] = None,
    count: Optional[Callable[[Any], int]] = None,
) -> List[Any]:
    """Play every job through ``map_function`` (with ``function``, default ``safe_play_job``); a failed job
    is retried once, then FitnessGameError. ``meter`` (a CpuMeter), where given, adds up the workers' CPU;
    ``progress`` hears of each job done, as ``count(job)`` (default 1: a game) of what it counts."""
    function = function or safe_play_job
    meter = meter or CpuMeter()
    outcomes = []
    for job, outcome in zip(jobs, measured_map(map_function, function, jobs, meter)):
        outcomes.append(outcome)
        if progress:
            progress(count(job) if count else 1)
    failed = [k for k, outcome in enumerate(outcomes) if isinstance(outcome, str)]
    if failed:
        log.warning("retrying %d failed game job(s)", len(failed))
        retried = list(measured_map(map_function, function, [jobs[k] for k in failed], meter))
        for k, outcome in zip(failed, retried):
            if isinstance(outcome, str):
                job = jobs[k]
                if isinstance(job, RulerJob):
                    raise FitnessGameError(
                        f"ruler job failed twice: individual {job.player} ({list(_weights_of(job.make))}), "
                        f"{len(job.positions)} won positions from {job.positions[0].text!r}:\n{outcome}"
                    )
                raise FitnessGameError(
                    "game job failed twice: individual {} ({}), opponent {}, game {}, seed {}:\n{}".format(
                        job.individual,
                        list(job.weights),
                        job.opponent if isinstance(job.opponent, str) else "self-play",
                        job.game,
                        job.seed,
                        outcome,
                    )
                )
            outcomes[k] = outcome
    return outcomes


def _weights_of(make: Callable[[], Player]) -> Sequence[float]:
    """The weights of the individual whose player on the ruler ``make`` makes (``evolve.regret_fitness``): our
    searcher's params' (``FreshSearch``), or a program individual's genome."""
    params = getattr(make, "params", None)
    if params is not None:
        return list(params.weights.values())
    return list(getattr(make, "weights", ()))


def self_play_opponents(
    config: Config, halloffame: Sequence[Individual], population: Sequence[Individual], generation_seed: int
) -> List[List[float]]:
    """The genomes every individual meets in self-play this generation (the same for all)."""
    self_play = config.self_play
    if self_play.weight <= 0:
        return []
    if self_play.against == "hall_of_fame" and len(halloffame):
        return [list(ind) for ind in halloffame][: self_play.opponents]
    chooser = random.Random(generation_seed)  # a private stream: the evolution's is untouched
    sample = chooser.sample(range(len(population)), min(self_play.opponents, len(population)))
    return [list(population[k]) for k in sample]


def choose_searcher(asked: SearcherChoice) -> SearcherName:
    """The searcher fitness games use: "python" or "native" as asked; for "auto", the compiled searcher
    where it can be built, else "python" (said in the log and on stderr). NativeError, naming why, where
    "native" is asked for and cannot be had: a run never silently searches slower than its config says."""
    if asked == SearcherChoice.PYTHON:
        return SearcherName.PYTHON
    try:
        native_library()
    except NativeError as error:  # a failed build or a mismatch with the Python raises whatever was asked
        reason = str(error).splitlines()[0]
        if asked == SearcherChoice.NATIVE or not isinstance(error, NoCompiler):
            # "auto" falls back to Python only where there is no compiler; a failed build is a defect.
            other = "auto" if isinstance(error, NoCompiler) else "python"
            raise NativeError(
                f'fitness.searcher = "{asked}", but the compiled searcher cannot be built here: {reason} '
                f'(searcher = "{other}" searches in Python instead: the same moves, slower)'
            )
        log.warning(
            'fitness.searcher = "auto": the compiled searcher cannot be built here (%s); the games search '
            "in Python (the same moves, slower)",
            reason,
        )
        print(f"warning: searching in Python, the compiled searcher cannot be built here: {reason}", file=sys.stderr)
        return SearcherName.PYTHON
    return SearcherName.NATIVE
