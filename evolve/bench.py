"""``evolve bench``: fitness games per second with 1 and with 2 (or more) workers."""

import random
import time

from engine.features import FEATURES
from engine.params import DEFAULT_WEIGHTS
from engine.arena.pool import worker_pool
from evolve.config import DEFAULT_BOUNDS
from evolve.fitness import GameJob, run_jobs


def bench_jobs(games, depth, opponent="greedy", seed=5):
    """A fixed batch of fitness games: varied genomes against one opponent."""
    rng = random.Random(seed)
    jobs = []
    for game in range(games):
        weights = tuple(DEFAULT_WEIGHTS[name] if game == 0 else rng.uniform(*DEFAULT_BOUNDS[name])
                        for name in FEATURES)
        jobs.append(GameJob(game, weights, opponent, 0, game, seed + game, seed + game // 2, 2, depth))
    return jobs


def bench_games(worker_counts=(1, 2), games=40, depth=2, opponent="greedy", report=print):
    """Games per second for each worker count; the figures, and the speed-up over the first."""
    jobs = bench_jobs(games, depth, opponent)
    rates = {}
    for workers in worker_counts:
        with worker_pool(workers) as pool:
            pool.map(abs, range(workers))                   # the workers are up before the clock starts
            start = time.perf_counter()
            run_jobs(lambda f, items: pool.imap(f, items, chunksize=1), jobs)
            rates[workers] = games / (time.perf_counter() - start)
        report("{} worker{}: {:.1f} games/s ({} games at depth {} against {})".format(
            workers, "" if workers == 1 else "s", rates[workers], games, depth, opponent))
    base = rates[worker_counts[0]]
    for workers in worker_counts[1:]:
        report("speed-up with {} workers: {:.2f}x".format(workers, rates[workers] / base))
    return {"games": games, "depth": depth, "opponent": opponent,
            "games_per_second": {str(k): v for k, v in rates.items()},
            "speedup": {str(k): rates[k] / base for k in worker_counts[1:]}}
