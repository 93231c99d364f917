"""The tuners of the tuner benchmark (``evolve.solved.tuners``): ask/tell objects over the weights scaled
to [0, 1] a gene.

A leg asks its tuner for candidates, tells it their fitnesses (higher is better) and notes the candidate
it recommends: ``random`` (uniform search, the baseline, ``RandomSearch``), ``ga`` (``Genetic``), ``cmaes``
(DEAP's, ``Cmaes``), ``spsa`` (``evolve.spsa``, ``Perturbation``) and ``tpe`` (Optuna's, ``Parzen``);
``TUNER_CLASSES`` names them. The benchmark's ``texel`` is no such object: it follows a fitness's gradient.
"""

import math
import random
from typing import Any, Dict, List, Optional, Protocol, Sequence, Type

import numpy

from evolve.spsa import Spsa


class Tuner(Protocol):
    """What a leg runs: ``ask()`` for candidates (weights in [0, 1] a gene), ``tell(asked, values)`` their
    fitnesses (higher is better), ``recommend()`` the candidate it stands by now. Made from the start point,
    the leg's random stream and a hint of how many steps it may take."""

    def __init__(self, start: Sequence[float], rng: random.Random, budget_hint: int) -> None: ...

    def ask(self) -> List[List[float]]: ...

    def tell(self, asked: List[List[float]], values: List[float]) -> None: ...

    def recommend(self) -> List[float]: ...


class RandomSearch:
    """Uniform draws in the box; recommends the best seen (on a noisy fitness, its luckiest)."""

    batch = 8

    def __init__(self, start: Sequence[float], rng: random.Random, budget_hint: int) -> None:
        self.rng, self.best, self.best_value, self.first = rng, list(start), -math.inf, [list(start)]

    def ask(self) -> List[List[float]]:
        asked, self.first = self.first + [[self.rng.random() for _ in self.best] for _ in range(self.batch)], []
        return asked

    def tell(self, asked: List[List[float]], values: List[float]) -> None:
        for point, value in zip(asked, values):
            if value > self.best_value:
                self.best, self.best_value = point, value

    def recommend(self) -> List[float]:
        return self.best


class Genetic(RandomSearch):
    """A generational GA: tournaments of 3, blend crossover (0.5), Gaussian mutation (sigma 0.1 of each
    range, a gene in four), one elite; 16 individuals. Recommends the best of the last generation."""

    size = 16

    def __init__(self, start: Sequence[float], rng: random.Random, budget_hint: int) -> None:
        super().__init__(start, rng, budget_hint)
        self.population = [list(start)] + [self._mutated(list(start), 0.3) for _ in range(self.size - 1)]
        self.values: Optional[List[float]] = None

    def _mutated(self, point: List[float], sigma: float = 0.1, share: float = 0.25) -> List[float]:
        return [min(max(x + self.rng.gauss(0, sigma), 0.0), 1.0) if self.rng.random() < share else x for x in point]

    def _pick(self, values: List[float]) -> List[float]:
        entrants = self.rng.sample(range(self.size), 3)
        return self.population[max(entrants, key=lambda k: values[k])]

    def ask(self) -> List[List[float]]:
        values = self.values
        if values is None:
            return self.population
        elite = self.population[max(range(self.size), key=lambda k: values[k])]
        children = [list(elite)]
        while len(children) < self.size:
            a, b = self._pick(values), self._pick(values)
            mix = [self.rng.uniform(-0.5, 1.5) for _ in a]
            child = [min(max(x + m * (y - x), 0.0), 1.0) for x, y, m in zip(a, b, mix)]
            children.append(self._mutated(child))
        return children

    def tell(self, asked: List[List[float]], values: List[float]) -> None:
        super().tell(asked, values)
        self.population, self.values = asked, list(values)

    def recommend(self) -> List[float]:
        values = self.values
        if values is None:
            return self.population[0]
        return self.population[max(range(self.size), key=lambda k: values[k])]


def _scored(asked: Sequence[List[float]], values: Sequence[float]) -> List[Any]:
    """The points ``asked`` as DEAP individuals with their fitness ``values`` (maximised): what DEAP's CMA-ES
    and ``evolve.spsa`` update from."""
    from deap import base, creator

    if not hasattr(creator, "TunerFitness"):
        creator.create("TunerFitness", base.Fitness, weights=(1.0,))
        creator.create("TunerPoint", list, fitness=creator.TunerFitness)
    points = []
    for point, value in zip(asked, values):
        individual = creator.TunerPoint(point)
        individual.fitness.values = (value,)
        points.append(individual)
    return points


class Cmaes:
    """DEAP's CMA-ES in the unit box (sigma 0.1, its default population); recommends the centroid. Where
    its covariance degenerates (a long run on a smooth fitness), it starts again from its centroid."""

    sigma = 0.1

    def __init__(self, start: Sequence[float], rng: random.Random, budget_hint: int) -> None:
        numpy.random.seed(rng.randrange(2**31))  # DEAP's sampling draws from numpy's global generator
        self.restarts = 0
        self._start(list(start))

    def _start(self, centroid: List[float]) -> None:
        from deap import cma

        self.strategy = cma.Strategy(centroid=centroid, sigma=self.sigma)

    def ask(self) -> List[List[float]]:
        return [[min(max(x, 0.0), 1.0) for x in point] for point in self.strategy.generate(list)]

    def tell(self, asked: List[List[float]], values: List[float]) -> None:
        centroid = self.recommend()
        try:
            self.strategy.update(_scored(asked, values))
            healthy = numpy.all(numpy.isfinite(self.strategy.C)) and self.strategy.sigma > 1e-12
        except (numpy.linalg.LinAlgError, ValueError):
            healthy = False
        if not healthy:  # converged to its numerical end: a fresh start where it stood
            self.restarts += 1
            self._start(centroid)

    def recommend(self) -> List[float]:
        return [min(max(x, 0.0), 1.0) for x in self.strategy.centroid]


class Perturbation:
    """SPSA (``evolve.spsa``: two pairs a step, Spall's gains over the planned steps); recommends the centre."""

    def __init__(self, start: Sequence[float], rng: random.Random, budget_hint: int) -> None:
        self.spsa = Spsa(start, [(0.0, 1.0)] * len(start), 2, budget_hint, seed=rng.randrange(2**31))

    def ask(self) -> List[List[float]]:
        return self.spsa.generate(list)

    def tell(self, asked: List[List[float]], values: List[float]) -> None:
        self.spsa.update(_scored(asked, values))

    def recommend(self) -> List[float]:
        return self.spsa.centre


class Parzen:
    """Optuna's TPE sampler (the start enqueued first); recommends the best trial."""

    def __init__(self, start: Sequence[float], rng: random.Random, budget_hint: int) -> None:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.study = optuna.create_study(
            direction="maximize", sampler=optuna.samplers.TPESampler(seed=rng.randrange(2**31))
        )
        self.genes = [f"g{k}" for k in range(len(start))]
        self.study.enqueue_trial(dict(zip(self.genes, start)))
        self.trials: List[Any] = []  # optuna's trials asked and not yet told
        self.start = list(start)

    def ask(self) -> List[List[float]]:
        self.trials = [self.study.ask()]
        return [[trial.suggest_float(gene, 0.0, 1.0) for gene in self.genes] for trial in self.trials]

    def tell(self, asked: List[List[float]], values: List[float]) -> None:
        for trial, value in zip(self.trials, values):
            self.study.tell(trial, value)

    def recommend(self) -> List[float]:
        try:
            best = self.study.best_trial.params
        except ValueError:  # no trial completed yet
            return self.start
        return [best[gene] for gene in self.genes]


TUNER_CLASSES: Dict[str, Type[Tuner]] = {
    "random": RandomSearch,
    "ga": Genetic,
    "cmaes": Cmaes,
    "spsa": Perturbation,
    "tpe": Parzen,
}
