"""Which fitness scheme tells near-equal weights apart best for its CPU: every game for every
individual, or successive halving ([fitness] rounds = 4, keep = 0.5)?

A late population: 16 mutants of the shipped weights (Gaussian, sigma 0.08 of each feature's
range, as strong.toml mutates). Their "true" fitness: 2,000 games each against the panel (the
shipped weights and the label-fitted weights, both at the same depth, random 2-ply openings).
Then each scheme, at about the same number of games, with 8 fresh seeds: the rank correlation
(Spearman) of its fitness with the true one, and the true win rate of the 3 individuals it
ranks best against the true best 3's (the loss from choosing by it).

Usage: python3 experiments/racing-20261123/measure.py [DEPTH [WORKERS]]   (default 4 2)
"""

import json
import os
import random
import sys
import time

import numpy

from engine.data import SHIPPED_PARAMS
from engine.features import FEATURES
from engine.params import load_params
from engine.play.executors import executor
from evolve.config import DEFAULT_BOUNDS, validate
from evolve.rounds import evaluate_generation

HERE = os.path.dirname(os.path.abspath(__file__))
DEPTH = int(sys.argv[1]) if len(sys.argv) > 1 else 4
WORKERS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
PANEL = [f"agent:params.json@{DEPTH}", f"agent:experiments/labels-20261123/fitted-params.json@{DEPTH}"]


def config(games, rounds):
    return validate(
        {
            "name": "racing",
            "seed": 1,
            "population": 16,
            "generations": 1,
            "depth": DEPTH,
            "panel": [{"opponent": spec, "games": games, "random_opening": 2} for spec in PANEL],
            "fitness": {"engine": "native", "rounds": rounds, "keep": 0.5},
        },
        "racing",
    )


def mutants(count, seed=2026):
    rng = random.Random(seed)
    shipped = load_params(SHIPPED_PARAMS).weights
    population = [tuple(shipped[name] for name in FEATURES)]
    while len(population) < count:
        population.append(
            tuple(
                min(max(shipped[name] + rng.gauss(0, 0.08 * (high - low)), low), high)
                for name, (low, high) in ((n, DEFAULT_BOUNDS[n]) for n in FEATURES)
            )
        )
    return population


def fitness(pool, population, games, rounds, seed):
    """(win rates, games played, wall-clock seconds on the pool)."""
    started = time.perf_counter()
    found = evaluate_generation(population, config(games, rounds), seed, [], "native", pool.map)
    return numpy.array([f[0][0] for f in found.folded]), found.games, time.perf_counter() - started


def spearman(a, b):
    def ranks(x):
        return numpy.argsort(numpy.argsort(x))

    return float(numpy.corrcoef(ranks(a), ranks(b))[0, 1])


def main():
    population = mutants(16)
    report = {"depth": DEPTH, "panel": PANEL, "population": [list(p) for p in population], "schemes": {}}
    with executor(None, WORKERS) as pool:
        truth, played, cpu = fitness(pool, population, 1000, 1, seed=999)
        report["truth"] = {"win_rates": truth.tolist(), "games": played, "seconds": cpu}
        print(
            (
                f"truth: {played} games, {cpu:.0f} s; win rates {truth.min():.3f}-{truth.max():.3f}, spread "
                f"(std) {truth.std():.3f}"
            ),
            flush=True,
        )
        best3 = float(numpy.sort(truth)[-3:].mean())
        for name, games, rounds in (("every game, 96 each", 48, 1), ("successive halving, 4 rounds", 104, 4)):
            runs = []
            for seed in range(1, 9):
                rates, played, seconds = fitness(pool, population, games, rounds, seed=seed)
                chosen = numpy.argsort(rates)[-3:]
                runs.append(
                    {
                        "seed": seed,
                        "games": played,
                        "seconds": seconds,
                        "spearman": spearman(rates, truth),
                        "chosen_true_win_rate": float(truth[chosen].mean()),
                        "best_true_win_rate": best3,
                    }
                )
            summary = {
                key: float(numpy.mean([run[key] for run in runs]))
                for key in ("games", "seconds", "spearman", "chosen_true_win_rate")
            }
            summary["loss_against_the_best_3"] = best3 - summary["chosen_true_win_rate"]
            report["schemes"][name] = {"runs": runs, "mean": summary}
            print(
                "{}: {:.0f} games, {:.0f} s a generation; Spearman {:.2f}; the chosen 3 lose {:.3f} of win "
                "rate against the true best 3".format(
                    name, summary["games"], summary["seconds"], summary["spearman"], summary["loss_against_the_best_3"]
                ),
                flush=True,
            )
    with open(os.path.join(HERE, f"report-depth{DEPTH}.json"), "w") as handle:
        json.dump(report, handle, indent=1)


if __name__ == "__main__":
    started = time.time()
    main()
    print(f"{time.time() - started:.0f} s")
