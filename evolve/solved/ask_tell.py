"""The tuners of the tuner benchmark (``evolve.solved.tuners``): ask/tell objects over the weights scaled
to [0, 1] a gene.

A leg asks its tuner for candidates, tells it their fitnesses (higher is better) and notes the candidate
it recommends. ``ga``, ``cmaes`` and ``spsa`` are ``evolve run``'s own strategies (``RunStrategy``, through
``evolve.tuner.RunTuner``: the same code, defaults and hall of fame a run uses); ``random`` (uniform
search, ``RandomSearch``) and ``tpe`` (Optuna's, ``Parzen``) are baselines that no run uses;
``TUNER_CLASSES`` names them. The benchmark's ``texel`` is no such object: it follows a fitness's gradient.
"""

import math
import random
from typing import Any, Dict, List, Protocol, Sequence, Type

from evolve.tuner import RunTuner, tuner_config

RUN_POPULATION = 16  # what most of experiments/*.toml run with


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


class RunStrategy:
    """``evolve run``'s own strategy (``evolve.tuner.RunTuner``: its GA, CMA-ES or SPSA, its defaults, its
    hall of fame of elites measured again each generation), of RUN_POPULATION individuals, on the unit box:
    each of these strategies scales its steps to a gene's range, so the box is the run's on the weights'
    bounds. Recommends the hall of fame's best, what ``evolve export`` ships."""

    strategy = ""  # a RUN_STRATEGIES name: set by each subclass

    def __init__(self, start: Sequence[float], rng: random.Random, budget_hint: int) -> None:
        genes = [f"g{k}" for k in range(len(start))]
        config = tuner_config(
            self.strategy, start, [(0.0, 1.0)] * len(start), genes, rng.randrange(2**31), budget_hint, RUN_POPULATION
        )
        self.tuner = RunTuner(config)
        self.tuner.seed()
        self.asked: List[Any] = []

    def ask(self) -> List[List[float]]:
        self.asked = self.tuner.ask()
        return [[float(x) for x in individual] for individual in self.asked]

    def tell(self, asked: List[List[float]], values: List[float]) -> None:
        self.tuner.tell(self.asked, [(value, 0.0) for value in values])  # the run's fitness: (score, margin)

    def recommend(self) -> List[float]:
        return self.tuner.recommend()


class Genetic(RunStrategy):
    """The run's GA: tournaments, blend crossover and Gaussian mutation as [ga]'s defaults set them."""

    strategy = "ga"


class Cmaes(RunStrategy):
    """The run's CMA-ES: DEAP's, with [cmaes]'s default step, started again where its covariance breaks."""

    strategy = "cmaes"


class Perturbation(RunStrategy):
    """The run's SPSA (``evolve.spsa``): [spsa]'s default gains, Spall's schedule over the planned steps."""

    strategy = "spsa"


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
