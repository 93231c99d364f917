"""``evolve run``'s strategies as one ask/tell object: what a generation does, for the run and the benchmark alike.

A generation asks the config's strategy (``genome.make_toolbox``: the GA, DEAP's CMA-ES or SPSA) for its
new individuals and adds copies of the hall of fame's elites, each to be measured anew (``ask``); the
caller measures them however it likes (the run: games and the exact regret, through its pool; the tuner
benchmark: one process at a CPU budget) and hands the fitnesses back (``tell``), which updates the
strategy and the hall of fame; ``recommend`` is the best of the hall of fame, what ``evolve export``
ships. DEAP's ``eaGenerateUpdate`` treats every strategy this way; a ``RunTuner`` adds the elites and the
seeding a run does, so that the benchmark's "ga", "cmaes" and "spsa" rows are the run's own.
"""

from typing import Any, List, Optional, Sequence, Tuple, cast

import numpy
from deap import creator, tools

from evolve import genome
from evolve.experiment.config_keys import FITNESS_KEYS, STRATEGIES, TOP_KEYS, StrategyName, defaults
from evolve.experiment.schema import Config
from evolve.spsa import Spsa

Fitness = Tuple[float, ...]  # an individual's fitness values, compared in order (higher is better)
RUN_STRATEGIES = STRATEGIES  # the config's strategy key: what ``evolve run`` can run
CMAES_SMALLEST_SIGMA = 1e-12  # a CMA-ES step below this has converged to its numerical end


class RunTuner:
    """The config's strategy and hall of fame, asked and told a generation at a time.

    ``strategy`` and ``halloffame``: a state to continue (a checkpoint's) instead of a new one; ``seed``
    starts the random streams afresh, as a new run does."""

    def __init__(self, config: Config, strategy: Optional[genome.Strategy] = None, halloffame: Any = None) -> None:
        self.config = config
        self.toolbox, self.strategy = genome.make_toolbox(config, strategy)
        self.halloffame = halloffame if halloffame is not None else tools.HallOfFame(config.hall_of_fame_size())
        self.population: List[genome.Individual] = []
        self.restarts = 0  # CMA-ES started again where its covariance broke (a long run on a smooth fitness)
        self._sampled: List[genome.Individual] = []
        # a new CMA-ES measures its start weights beside its first draws (the GA and SPSA draw them): every
        # strategy's generation 0 then holds the original, the run's best is never worse than it on the fitness,
        # and plots draw where the run began
        self._originals = (
            [list(row) for row in config.start.weights]
            if strategy is None and config.strategy is StrategyName.CMAES
            else []
        )

    def seed(self) -> None:
        """Seed the evolution's random streams from the config, as a run does when it begins: ``genome.STREAM``
        (the GA's draws) and numpy's generator (DEAP's CMA-ES samples from it); SPSA keeps its own."""
        genome.STREAM.seed(self.config.seed)
        numpy.random.seed(self.config.seed % (2**32))

    def ask(self) -> List[genome.Individual]:
        """The generation's candidates: the strategy's new individuals, then copies of the elites, every
        fitness unset (each is measured anew: fresh seeds, or a noisy fitness drawn again)."""
        self._sampled = self.toolbox.generate()
        originals = [creator.Individual(row) for row in self._originals]
        candidates = self._sampled + originals + [self.toolbox.clone(ind) for ind in self.halloffame]
        for individual in candidates:
            del individual.fitness.values
        return candidates

    def tell(self, candidates: Sequence[genome.Individual], fitnesses: Optional[Sequence[Fitness]] = None) -> None:
        """The candidates ``ask`` gave, measured: with ``fitnesses`` (in their order) or their own values
        set already. The strategy learns from them and the hall of fame keeps the best. Where CMA-ES's
        covariance breaks (not finite, or its step at its numerical end), it starts again from its centroid
        with the config's step (``restarts`` counts them), as the benchmark's 20-second legs on the labels
        fitness needed (experiments/tuners-20261128)."""
        if fitnesses is not None:
            for individual, values in zip(candidates, fitnesses):
                individual.fitness.values = tuple(values)
        centre = self.centre() if self.config.strategy is StrategyName.CMAES else None
        try:
            self.population = self.toolbox.update(self._sampled, list(candidates))
            healthy = centre is None or (
                bool(numpy.all(numpy.isfinite(self._cmaes().C))) and self._cmaes().sigma > CMAES_SMALLEST_SIGMA
            )
        except (numpy.linalg.LinAlgError, ValueError):
            if centre is None:
                raise
            healthy = False
        if not healthy and centre is not None:  # converged to its numerical end: a fresh start where it stood
            self.restarts += 1
            restart = self.config._replace(start=self.config.start._replace(weights=(tuple(centre),)))
            self.toolbox, self.strategy = genome.make_toolbox(restart)
            self.population = list(self._sampled)
        self.halloffame.clear()
        self.halloffame.update(candidates)
        self._originals = []  # measured once, in generation 0

    def later_candidates(self, first: int) -> int:
        """How many candidates a generation after the first asks, where the first asked ``first``: the GA's
        elites take the place of as many offspring; CMA-ES's and SPSA's draws are as many again, and the
        hall of fame's elites are measured beside them (CMA-ES's start weights, measured in the first, are not)."""
        if self.config.strategy is StrategyName.GA:
            return first
        return first - len(self._originals) + self.config.hall_of_fame_size()

    def recommend(self) -> List[float]:
        """The best individual measured so far in the last generation's hall of fame (the start before any)."""
        if len(self.halloffame):
            return [float(x) for x in self.halloffame[0]]
        return list(self.config.start.weights[0]) if self.config.start.weights else list(self.centre())

    def centre(self) -> List[float]:
        """Where the strategy stands: CMA-ES's mean, SPSA's centre, the GA population's mean weights."""
        if self.config.strategy is StrategyName.CMAES:
            return [float(x) for x in self._cmaes().centroid]
        strategy = self.strategy
        assert isinstance(strategy, (genome.GeneticStrategy, Spsa))  # the config's other two
        if isinstance(strategy, genome.GeneticStrategy) and not strategy.population:
            rows = [list(row) for row in self.config.start.weights] or [
                [(low + high) / 2 for low, high in genome.gene_bounds(self.config)]
            ]
            return [float(x) for x in numpy.mean(rows, axis=0)]
        return list(strategy.centre)

    def _cmaes(self) -> genome.CmaStrategy:
        """The strategy, where the config's is CMA-ES: DEAP's, which declares no type."""
        return cast(genome.CmaStrategy, self.strategy)


def tuner_config(
    strategy: str,
    start: Sequence[float],
    bounds: Sequence[Tuple[float, float]],
    genes: Sequence[str],
    seed: int,
    generations: int,
    population: int = 16,
) -> Config:
    """The config of a run of ``strategy`` (one of RUN_STRATEGIES) with ``evolve run``'s defaults for every
    other key (the population, the strategy's settings, the hall of fame), on the ``genes`` with their
    ``bounds``, from the ``start`` weights, for ``generations`` generations (the budget a strategy plans
    for: SPSA's gains) of ``population`` individuals, seeded by ``seed``."""
    if strategy not in RUN_STRATEGIES:
        raise ValueError(f"tuner_config: {strategy!r} is not one of {', '.join(RUN_STRATEGIES)}")
    top = dict(defaults(TOP_KEYS), name=f"benchmark-{strategy}", seed=seed, strategy=strategy)
    return Config.from_json(
        dict(
            top,
            population=population,
            generations=max(1, generations),
            start={
                "random": 0.0,
                "params": [],
                "weights": [[float(w) for w in start]],
                "free": None,
                "parts": ["weights"],
                "base": None,
            },
            fitness=dict(defaults(FITNESS_KEYS), search=None),
            panel=[],  # the caller measures the candidates: no games of the run's own
            genes=list(genes),
            bounds={gene: [float(low), float(high)] for gene, (low, high) in zip(genes, bounds)},
        )
    )
