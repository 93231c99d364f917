"""The regret fitness's jobs: the won positions one worker searches for one individual of a run.

The exact ruler itself (the share of won positions whose move keeps the win, by ply and colour) is
``engine.ruler.measure``; a searched position's move is ``engine.ruler.fresh_search.chosen_move``'s.
These jobs carry an individual's weights rather than a player, so that a run's individuals travel to its
workers as numbers (``evolve.regret_fitness``).
"""

from typing import Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from engine.constants import Move
from engine.native.solver import position_from_text
from engine.params import make_params
from engine.ruler.fresh_search import chosen_move
from engine.ruler.position_set import SolvedPosition


class RegretJob(NamedTuple):
    """The won positions one worker searches for one individual: ``weights`` by feature (tapered: twice),
    ``positions`` (text, the winning moves) pairs, ``search`` the search settings by name (None: a plain
    search to ``depth``), ``searcher`` "native" or "python" (the same moves)."""

    individual: int
    weights: Tuple[float, ...]
    positions: Tuple[Tuple[str, FrozenSet[Move]], ...]
    depth: int
    search: Optional[Dict[str, Optional[float]]]
    searcher: str = "native"


def regret_job(job: RegretJob) -> Tuple[int, ...]:
    """Worker: 1 or 0 for each position of ``job``, whether the individual's move keeps the win."""
    settings = job.search if job.search is not None else {"depth": job.depth}
    params = make_params(job.weights, source=f"individual {job.individual}", **settings)
    plain = job.search is None
    return tuple(
        int(chosen_move(params, position_from_text(text), job.searcher, plain=plain) in wins)
        for text, wins in job.positions
    )


REGRET_PER_JOB = 25  # won positions a regret job searches


def regret_jobs(
    individuals: Iterable[Sequence[float]],
    positions: Iterable[SolvedPosition],
    depth: int,
    search: Optional[Dict[str, Optional[float]]],
    searcher: str,
    per_job: int = REGRET_PER_JOB,
) -> List[RegretJob]:
    """The RegretJobs of ``individuals`` (weights by feature) on the won ``positions``, ``per_job`` a job."""
    won = [(p.text, p.winning) for p in positions if p.won]
    return [
        RegretJob(index, tuple(weights), tuple(won[start : start + per_job]), depth, search, searcher)
        for index, weights in enumerate(individuals)
        for start in range(0, len(won), per_job)
    ]
