"""``evolve bench``: fitness games per second on the local pool with 1 and 2 (or more) workers,
for each searcher ("native" or "python") and depth asked, and on a Dask cluster if one is named, with its
overhead against the pool of as many workers."""

import random
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from engine.common.seeds import derive_seed
from engine.features import FEATURES
from engine.params import DEFAULT_WEIGHTS
from engine.play.executors import DaskExecutor, LocalPool, executor
from engine.players.searcher import SearcherName
from evolve.config import DEFAULT_BOUNDS
from evolve.fitness import FitnessGame, run_jobs


def bench_jobs(
    games: int, depth: int, opponent: str = "greedy", seed: int = 5, searcher: SearcherName = SearcherName.PYTHON
) -> List[FitnessGame]:
    """A fixed batch of fitness games: varied genomes against one opponent, searched by ``searcher``."""
    rng = random.Random(seed)
    jobs = []
    for game in range(games):
        weights = tuple(DEFAULT_WEIGHTS[name] if game == 0 else rng.uniform(*DEFAULT_BOUNDS[name]) for name in FEATURES)
        jobs.append(
            FitnessGame(
                game,
                weights,
                opponent,
                0,
                game,
                derive_seed(seed, game),
                derive_seed(seed, game // 2, 1),
                2,
                depth,
                searcher,
            )
        )
    return jobs


def _rate(
    games_executor: Union[LocalPool, DaskExecutor], jobs: Sequence[FitnessGame], warm_up: Sequence[FitnessGame]
) -> float:
    """Games per second of ``jobs`` on an executor already started and warmed up."""
    run_jobs(games_executor.map, warm_up)  # workers up and the project imported
    start = time.perf_counter()
    run_jobs(games_executor.map, jobs)
    return len(jobs) / (time.perf_counter() - start)


def bench_games(
    worker_counts: Sequence[int] = (1, 2),
    games: int = 40,
    depths: Sequence[int] = (2,),
    opponent: str = "greedy",
    scheduler: Optional[str] = None,
    searchers: Sequence[SearcherName] = (SearcherName.NATIVE,),
    report: Callable[[str], object] = print,
) -> Dict[str, Any]:
    """Games per second for each searcher, depth and worker count (and the Dask cluster); the figures,
    the speed-ups with more workers and of the native searcher over the Python one."""
    runs: List[Dict[str, Any]] = []
    for searcher in searchers:
        for depth in depths:
            jobs = bench_jobs(games, depth, opponent, searcher=searcher)
            for workers in worker_counts:
                with executor(None, workers) as pool:
                    rate = _rate(pool, jobs, bench_jobs(workers, 1, "random", seed=99, searcher=searcher))
                runs.append({"searcher": searcher, "depth": depth, "workers": workers, "games_per_second": rate})
                report(
                    "{} searcher, depth {}, {} worker{}: {:.1f} games/s ({} games against {})".format(
                        searcher, depth, workers, "" if workers == 1 else "s", rate, games, opponent
                    )
                )
    first = [run for run in runs if run["searcher"] == searchers[0] and run["depth"] == depths[0]]
    rates = {run["workers"]: run["games_per_second"] for run in first}
    base = rates[worker_counts[0]]
    for workers in worker_counts[1:]:
        report(f"speed-up with {workers} workers: {rates[workers] / base:.2f}x")
    result: Dict[str, Any] = {
        "games": games,
        "depth": depths[0],
        "searcher": searchers[0],
        "opponent": opponent,
        "runs": runs,
        "games_per_second": {str(k): v for k, v in rates.items()},
        "speedup": {str(k): rates[k] / base for k in worker_counts[1:]},
    }
    if "native" in searchers and "python" in searchers:
        result["native_over_python"] = {}
        for depth in depths:
            by_searcher = {
                run["searcher"]: run["games_per_second"]
                for run in runs
                if run["depth"] == depth and run["workers"] == worker_counts[0]
            }
            result["native_over_python"][str(depth)] = by_searcher["native"] / by_searcher["python"]
            report(
                "depth {}: the native searcher plays {:.1f}x the Python searcher's games/s".format(
                    depth, by_searcher["native"] / by_searcher["python"]
                )
            )
    if scheduler:
        result["dask"] = _dask_figures(
            scheduler, bench_jobs(games, depths[0], opponent, searcher=searchers[0]), rates, searchers[0], report
        )
    return result


def _dask_figures(
    scheduler: str,
    jobs: Sequence[FitnessGame],
    rates: Mapping[int, float],
    searcher: SearcherName,
    report: Callable[[str], object],
) -> Dict[str, Any]:
    """Games per second on the Dask cluster, and its overhead against the local pool of as many workers."""
    with executor(scheduler) as cluster:
        where: Dict[str, Any] = cluster.describe()
        dask_rate = _rate(cluster, jobs, bench_jobs(where["workers"], 1, "random", seed=99, searcher=searcher))
    figures: Dict[str, Any] = {
        "scheduler": scheduler,
        "workers": where["workers"],
        "threads": where["threads"],
        "games_per_second": dask_rate,
    }
    report("Dask at {} ({} workers): {:.1f} games/s".format(scheduler, where["workers"], dask_rate))
    if where["workers"] in rates:
        figures["overhead_vs_local_pool"] = 1 - dask_rate / rates[where["workers"]]
        report(
            "Dask overhead against the local pool with {} workers: {:.1%} fewer games/s".format(
                where["workers"], figures["overhead_vs_local_pool"]
            )
        )
    return figures
