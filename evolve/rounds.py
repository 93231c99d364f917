"""A generation's fitness: its games played in rounds, and the outcomes folded into each individual's.

Every individual plays the first part of every panel entry's games; after each round but the last,
only the best share of those still playing plays on ([fitness] rounds and keep). Fitness is (win
rate, mean stone margin), each a weighted mean over the panel's opponents (and self-play, if any),
with the share of won positions kept counting in the win rate where the config has [regret].
"""

import logging
import sys
import time
from typing import Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from engine.common.pools import CpuMeter
from engine.common.runfolder import RunError
from engine.players.searcher import SearcherName
from evolve.agents.code_individual import BuiltProgram
from evolve.experiment.schema import Config
from evolve.fitness import FitnessGame, Folded, MapFunction, Outcome, make_jobs, run_jobs
from evolve.genome import FitnessReport, Individual
from evolve.regret_fitness import faults_of, regret_kept

log = logging.getLogger("evolve.rounds")


class GenerationFitness(NamedTuple):
    """A generation's fitness as ``evaluate_generation`` measured it: each individual's ``folded`` fitness and
    report, the ``games`` played, and with [regret] the won ``positions`` asked and the wall ``position_seconds``
    the ruler took over them (0 without [regret])."""

    folded: List[Folded]
    games: int
    positions: int
    position_seconds: float


def evaluate_generation(
    individuals: Sequence[Individual],
    config: Config,
    generation_seed: int,
    opponents: Sequence[Sequence[float]],
    searcher: SearcherName,
    play: MapFunction,
    progress: Optional[Callable[[int], object]] = None,
    program: Optional[BuiltProgram] = None,
    meter: Optional[CpuMeter] = None,
    positions_progress: Optional[Callable[[int], object]] = None,
) -> GenerationFitness:
    """The GenerationFitness of ``individuals``: with [regret], each is asked every won fitness position
    (``regret_kept``; ``positions_progress`` hears of them); then every individual plays the first part of
    every panel entry's games; after each part but the last, only the best ``keep`` share of those still
    playing (at least the hall of fame's size, and two) plays the next ([fitness] rounds and keep; one round
    plays every game, as before). ``program``: as make_jobs; ``meter``: as run_jobs; ``progress`` hears of
    the games."""
    rounds, keep = config.fitness.rounds, config.fitness.keep
    regret, kept, started = None, [], time.time()
    if config.regret is not None:
        kept = regret_kept(individuals, config, searcher, play, positions_progress, meter, program)
        regret = (config.regret.weight, {index: (k.kept, k.won) for index, k in enumerate(kept)})
    position_seconds = time.time() - started if kept else 0.0
    every = make_jobs(individuals, config, generation_seed, opponents, searcher, program)
    sizes: Dict[int, int] = {}
    for job in every:
        sizes[job.group] = max(sizes.get(job.group, 0), job.game // 2 + 1)  # pairs of games per group
    part = {id(job): (job.game // 2) * rounds // sizes[job.group] for job in every}
    weights = group_weights(config, len(opponents))
    least = max(2, config.hall_of_fame_size())
    playing, jobs, outcomes = set(range(len(individuals))), [], []
    for number in range(rounds):
        batch = [job for job in every if part[id(job)] == number and job.individual in playing]
        outcomes += run_jobs(play, batch, progress, meter=meter)
        jobs += batch
        if number < rounds - 1 and len(playing) > least:
            fitness = fold(jobs, outcomes, len(individuals), weights, config.black_weight, regret)
            ranked = sorted(playing, key=lambda k: fitness[k][0], reverse=True)
            playing = set(ranked[: max(least, int(round(len(playing) * keep)))])
    folded = fold(jobs, outcomes, len(individuals), weights, config.black_weight, regret)
    for (_, report), found in zip(folded, kept):
        if faults_of(found):
            report["regret_faults"] = faults_of(found)
    _check_faults(folded, len(jobs), sum(k.won for k in kept))
    return GenerationFitness(folded, len(jobs), sum(k.won for k in kept), position_seconds)


def _check_faults(folded: Sequence[Folded], games: int, positions: int) -> None:
    """RunError where a program individual lost every game and gave every won position away by its own fault
    (its fitness would say nothing); a warning where it lost some so."""
    faults = sum(report.get("faults", 0) for _, report in folded)
    given = sum(report.get("regret_faults", 0) for _, report in folded)
    if (faults or given) and faults == games and given == positions:
        what = " and ".join(
            words for words, number in ((f"{games} games", games), (f"{positions} won positions", positions)) if number
        )
        raise RunError(
            f"every one of the {what} of this generation was lost by the program's own fault (a crash, "
            "a timeout, a bad or illegal move): the agent cannot play as it is tuned; run.log names each fault"
        )
    if faults:
        log.warning("%d of %d games lost by the program's own fault (run.log names each)", faults, games)
        print(
            f"warning: {faults} of {games} games lost by the program's own fault (a crash, a timeout, "
            "a bad or illegal move; "
            "run.log names each)",
            file=sys.stderr,
        )
    if given:
        log.warning(
            "%d of %d won positions given away by the program's own fault (run.log names each)", given, positions
        )
        print(
            f"warning: {given} of {positions} won positions given away by the program's own fault (a crash, a "
            "timeout, a bad or illegal move; run.log names each)",
            file=sys.stderr,
        )


def group_weights(config: Config, self_play_count: int) -> List[float]:
    """The fitness weight of each job group (panel entries, then self-play opponents)."""
    weights = [entry.weight for entry in config.panel]
    if config.self_play.weight > 0 and self_play_count:
        weights += [config.self_play.weight / self_play_count] * self_play_count
    return weights


class _Tally(NamedTuple):
    """A batch's outcomes added up: for each (individual, group), its weighted wins, weighted margins, the
    games' weights and their squares; for each individual, its wins and games as Black and as White, and
    the games a program individual lost by its own fault."""

    sums: Dict[Tuple[int, int], List[float]]
    colours: List[List[float]]  # Black wins, Black games, White wins, White games
    faults: Dict[int, int]


def _tally(jobs: Sequence[FitnessGame], outcomes: Sequence[Outcome], count: int, black_weight: float) -> _Tally:
    """The outcomes of ``count`` individuals' games added up, a game as Black counting ``black_weight`` times."""
    tally = _Tally({}, [[0, 0, 0, 0] for _ in range(count)], {})
    for job, outcome in zip(jobs, outcomes):
        win, margin = outcome[:2]
        if len(outcome) > 2:  # a program individual's: lost by its fault?
            tally.faults[job.individual] = tally.faults.get(job.individual, 0) + int(outcome[2])
        as_black = job.plays_black
        share = black_weight if as_black else 1.0
        entry = tally.sums.setdefault((job.individual, job.group), [0.0, 0.0, 0.0, 0.0])
        entry[0] += share * win
        entry[1] += share * margin
        entry[2] += share
        entry[3] += share * share
        colours = tally.colours[job.individual]
        colours[0 if as_black else 2] += win
        colours[1 if as_black else 3] += 1
    return tally


def fold(
    jobs: Sequence[FitnessGame],
    outcomes: Sequence[Outcome],
    count: int,
    weights: Sequence[float],
    black_weight: float = 1.0,
    regret: Optional[Tuple[float, Mapping[int, Tuple[int, int]]]] = None,
) -> List[Folded]:
    """Per individual: ((weighted win rate, weighted mean margin), report).

    ``regret``: (its weight, {individual: (won positions kept, won positions)}): the share kept counts
    in the win rate as a group of that weight would (exact: no standard error; no margin).

    Within a group a game as Black counts ``black_weight`` times (Black is where strength is
    hard to find); groups count by their weights. The report holds the win rates as Black
    and as White (unweighted) and the standard error of the weighted win rate, so that the
    noise of the fitness can be set beside the spread selection acts on; for a program
    individual, also the games it lost by its own fault.
    """
    tally = _tally(jobs, outcomes, count, black_weight)
    results = []
    for individual in range(count):
        total = win_rate = margin = variance = 0.0
        for group, weight in enumerate(weights):
            if (individual, group) in tally.sums:
                wins, margins, shares, squares = tally.sums[(individual, group)]
                rate = wins / shares
                win_rate += weight * rate
                margin += weight * margins / shares
                variance += weight * weight * rate * (1 - rate) * squares / (shares * shares)
                total += weight
        games_total = total
        black_wins, black_games, white_wins, white_games = tally.colours[individual]
        report: FitnessReport = {
            "black_win_rate": black_wins / black_games if black_games else None,
            "white_win_rate": white_wins / white_games if white_games else None,
        }
        if regret is not None:
            weight, scores = regret
            kept, won = scores[individual]
            report["regret_kept"] = kept / won
            win_rate += weight * kept / won
            total += weight
        report["standard_error"] = variance**0.5 / total
        if individual in tally.faults:
            report["faults"] = tally.faults[individual]
        results.append(((win_rate / total, margin / games_total if games_total else 0.0), report))
    return results
