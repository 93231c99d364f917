"""``evolve bench``: fitness games per second on the local pool with 1 and 2 (or more) workers,
and on a Dask cluster if one is named, with its overhead against the pool of as many workers."""

import random
import time

from engine.features import FEATURES
from engine.params import DEFAULT_WEIGHTS
from engine.play.executors import executor
from engine.common.seeds import derive_seed
from evolve.config import DEFAULT_BOUNDS
from evolve.fitness import GameJob, run_jobs


def bench_jobs(games, depth, opponent="greedy", seed=5):
    """A fixed batch of fitness games: varied genomes against one opponent."""
    rng = random.Random(seed)
    jobs = []
    for game in range(games):
        weights = tuple(DEFAULT_WEIGHTS[name] if game == 0 else rng.uniform(*DEFAULT_BOUNDS[name])
                        for name in FEATURES)
        jobs.append(GameJob(game, weights, opponent, 0, game, derive_seed(seed, game), derive_seed(seed, game // 2, 1),
                            2, depth))
    return jobs


def _rate(games_executor, jobs, warm_up):
    """Games per second of ``jobs`` on an executor already started and warmed up."""
    run_jobs(games_executor.map, warm_up)                  # workers up and the project imported
    start = time.perf_counter()
    run_jobs(games_executor.map, jobs)
    return len(jobs) / (time.perf_counter() - start)


def bench_games(worker_counts=(1, 2), games=40, depth=2, opponent="greedy", scheduler=None, report=print):
    """Games per second for each worker count (and the Dask cluster); the figures and speed-ups."""
    jobs = bench_jobs(games, depth, opponent)
    rates = {}
    for workers in worker_counts:
        with executor(None, workers) as pool:
            rates[workers] = _rate(pool, jobs, bench_jobs(workers, 1, "random", seed=99))
        report("{} worker{}: {:.1f} games/s ({} games at depth {} against {})".format(
            workers, "" if workers == 1 else "s", rates[workers], games, depth, opponent))
    base = rates[worker_counts[0]]
    for workers in worker_counts[1:]:
        report("speed-up with {} workers: {:.2f}x".format(workers, rates[workers] / base))
    result = {"games": games, "depth": depth, "opponent": opponent,
              "games_per_second": {str(k): v for k, v in rates.items()},
              "speedup": {str(k): rates[k] / base for k in worker_counts[1:]}}
    if scheduler:
        with executor(scheduler) as cluster:
            where = cluster.describe()
            dask_rate = _rate(cluster, jobs, bench_jobs(where["workers"], 1, "random", seed=99))
        result["dask"] = {"scheduler": scheduler, "workers": where["workers"], "threads": where["threads"],
                          "games_per_second": dask_rate}
        report("Dask at {} ({} workers): {:.1f} games/s".format(scheduler, where["workers"], dask_rate))
        if where["workers"] in rates:
            overhead = 1 - dask_rate / rates[where["workers"]]
            result["dask"]["overhead_vs_local_pool"] = overhead
            report("Dask overhead against the local pool with {} workers: {:.1%} fewer games/s".format(
                where["workers"], overhead))
    return result
