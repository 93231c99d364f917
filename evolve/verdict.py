"""A program individual's run ends with its verdict: the best it found against the agent it began from.

The original is the agent as the run found it: its weights file's values of the genes (or its code's
constants), generation 0's first individual. At the run's end the hall of fame's best plays it
``verdict_games`` games (``[individual]``) on the run's executor, from random openings of
``VERDICT_OPENING_PLIES`` plies, each opening once with each colour, on seeds of their own: the tuned agent's
share of the wins with its 95% interval, and its Elo with its margin. It is better or worse where the
interval leaves out one half; else the verdict is undecided, and says the ``littlego match`` whose
sequential test would decide it.
"""

import math
import os
from typing import List, NamedTuple, Optional, Sequence

from engine.common.seeds import derive_seed
from engine.play.match import deciding_match
from engine.play.stats import elo_with_margin, wilson_interval
from engine.players.searcher import SearcherName
from evolve.agents.code_individual import BuiltProgram
from evolve.agents.program_individual import best_file
from evolve.experiment.schema import Config
from evolve.fitness import FitnessGame

VERDICT_OPENING_PLIES = 2  # random placements before each pair of verdict games
VERDICT_STREAM = 7  # derive_seed's stream of the verdict's seeds: apart from every generation's


class Verdict(NamedTuple):
    """What ``verdict_games`` games of the best against the original gave: the best's ``wins`` of
    ``games``, of which its ``faults`` (losses by its own fault: a crash, a timeout), the 95% Wilson
    interval of its win rate (``low``, ``high``), its Elo over the original and that Elo's 95% margin
    (None where one side won every game; the margin None where its interval reaches a score of 0 or 1)."""

    games: int
    wins: int
    faults: int
    low: float
    high: float
    elo: Optional[float]
    margin: Optional[float]

    @property
    def decided(self) -> str:
        """ "better", "worse" or "undecided": where the interval of the win rate lies beside one half."""
        if self.low > 0.5:
            return "better"
        if self.high < 0.5:
            return "worse"
        return "undecided"


def verdict_jobs(
    config: Config, best: Sequence[float], original: Sequence[float], seed: int, program: BuiltProgram
) -> List[FitnessGame]:
    """The verdict's games: ``best`` as the individual against ``original`` as a self-play opponent, pairs
    of games from one opening (the best Black in the even ones), on seeds drawn from the run's ``seed``."""
    games = config.individual.verdict_games if config.individual else 0
    return [
        FitnessGame(
            0,
            tuple(float(w) for w in best),
            tuple(float(w) for w in original),
            0,
            game,
            derive_seed(seed, VERDICT_STREAM, game),
            derive_seed(seed, VERDICT_STREAM, game // 2, 1),
            VERDICT_OPENING_PLIES,
            config.depth,
            SearcherName.PYTHON,
            program,
        )
        for game in range(2 * (games // 2))
    ]


def verdict_of(outcomes: Sequence[Sequence[float]]) -> Verdict:
    """The Verdict of the verdict games' outcomes (``play_job``'s: won 1/0, margin, lost by its fault 1/0)."""
    games = len(outcomes)
    wins = sum(1 for outcome in outcomes if outcome[0] > 0)
    faults = sum(1 for outcome in outcomes if len(outcome) > 2 and outcome[2] > 0)
    low, high = wilson_interval(wins, games)
    elo: Optional[float] = None
    margin: Optional[float] = None
    if 0 < wins < games:
        elo, margin = elo_with_margin(wins, games)
        if not math.isfinite(margin):  # the interval reaches a score of 0 or 1: no finite bound
            margin = None
    return Verdict(games, wins, faults, low, high, elo, margin)


def verdict_words(verdict: Verdict, tuned: str, original: str) -> str:
    """The verdict in a line: the score, its interval and Elo, what it decides, and where undecided the
    command that would decide it (``tuned`` and ``original``: the two agents as player specs)."""
    elo = ""
    if verdict.elo is not None:
        margin = f" +/- {verdict.margin:.0f}" if verdict.margin is not None else ""
        elo = f", {verdict.elo:+.0f}{margin} Elo"
    faults = f" ({verdict.faults} lost by its own fault)" if verdict.faults else ""
    line = (
        f"verdict: the tuned agent won {verdict.wins} of {verdict.games} games against the original{faults} "
        f"({100 * verdict.wins / verdict.games:.1f}%, 95% interval {100 * verdict.low:.1f}-{100 * verdict.high:.1f}%"
        f"{elo}; random {VERDICT_OPENING_PLIES}-ply openings, each with both colours): {verdict.decided}"
    )
    if verdict.decided == "undecided":
        line += f"; a sequential test decides it: {deciding_match(tuned, original)}"
    return line


def tuned_spec(config: Config, run_dir: str) -> str:
    """The run's best agent as a player spec: its weights file beside the agent's folder, or for constants in
    its code the folder ``evolve export`` writes."""
    individual = config.individual
    assert individual is not None  # a program individual's run
    if individual.constants:
        return f"cmd:{individual.program.rstrip('/')}-tuned (written by evolve export {run_dir} --to it)"
    best = os.path.join(run_dir, best_file(config))
    return f"program:{individual.program}:{best}:{individual.weights_file}"
