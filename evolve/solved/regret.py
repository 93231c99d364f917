"""An exact fitness from the solved game: does the individual's move keep a won position won?

Games measure an individual through noise: 400 games leave a standard error near 0.02, and the
moves where a won game is given away are a few among hundreds. Little-Go is solved, so a set of
positions can hold every legal move's exact result (``evolve.solved.positions``); an individual's move in a
won position either keeps the win or gives it away, and the share it keeps is a fitness without
noise: the same individual scores the same on every machine and with any number of workers (each
position is searched alone, from a fresh searcher that takes the first of tied moves as the agent
does, at a node budget).
"""

from typing import Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from engine.constants import Move
from engine.native.solver import position_from_text
from engine.params import Params, make_params
from engine.players.searcher import searcher_for
from engine.players.shipped import NODES_PER_SECOND, node_plan
from evolve.solved.positions import SolvedPosition


class RegretScore(NamedTuple):
    """How an individual plays a set's won positions: ``kept`` of ``won`` keep the win; by ply."""

    kept: int
    won: int
    by_ply: Dict[int, Tuple[int, int]]  # ply -> (kept, won)

    @property
    def share(self) -> float:
        """The share of the won positions kept (0 where there are none)."""
        return self.kept / self.won if self.won else 0.0


def chosen_move(
    params: Params, text: str, searcher: str = "native", nodes_per_second: int = NODES_PER_SECOND, plain: bool = False
) -> Move:
    """The move the evaluation search of ``params`` plays in the position ``text``, alone and as the agent
    plays it: a fresh searcher that takes the first of tied moves, so that the answer depends neither on
    what else a worker searched nor on the order; at the params' CPU budget and cap counted in nodes, or
    where ``plain``, to their depth. (Before 2026-11-27 evening ties went at random, seeded by the text:
    on the 330 held-out won positions of ``experiments/regret-20261127`` the shipped weights' move
    differed in 29 and kept the win in one position fewer.) ``searcher``: "native" or "python"."""
    fresh = searcher_for(searcher)(params.evaluator(), rng=None)
    position = position_from_text(text)
    if plain:
        found = fresh.iterative(position, params.depth)
        assert found is not None  # without limits every depth completes
        return found.move
    budget, cap = node_plan(params, nodes_per_second)
    return fresh.iterative_nodes(position, params.depth, budget, cap).move


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
    return tuple(int(chosen_move(params, text, job.searcher, plain=plain) in wins) for text, wins in job.positions)


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
    won = [(p.text, frozenset(move for move, wins in p.moves.items() if wins)) for p in positions if p.won]
    return [
        RegretJob(index, tuple(weights), tuple(won[start : start + per_job]), depth, search, searcher)
        for index, weights in enumerate(individuals)
        for start in range(0, len(won), per_job)
    ]


def regret_score(
    params: Params,
    positions: Iterable[SolvedPosition],
    nodes_per_second: int = NODES_PER_SECOND,
    searcher: str = "native",
) -> RegretScore:
    """The RegretScore of ``params`` (weights, depth, CPU budget and cap: nodes at ``nodes_per_second``)
    on ``positions`` (SolvedPositions; lost ones are skipped)."""
    kept = 0
    by_ply: Dict[int, Tuple[int, int]] = {}
    won = [p for p in positions if p.won]
    for solved in won:
        move = chosen_move(params, solved.text, searcher, nodes_per_second)
        good = solved.moves.get(move, False)
        kept += good
        ply_kept, ply_won = by_ply.get(solved.ply, (0, 0))
        by_ply[solved.ply] = (ply_kept + good, ply_won + 1)
    return RegretScore(kept, len(won), dict(sorted(by_ply.items())))
