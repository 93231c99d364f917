"""DEAP types and variation operators for weight genomes.

An individual is a list of numbers named by the config's ``genes`` (the weights in ``FEATURES``
order when its run began; tapered, the endgame's after them); its fitness is (win rate, mean
stone margin), compared lexicographically so the margin only breaks ties. A run keeps the gene
names it began with, so that a feature added later does not shift its genomes: the evaluation
gets them by name (``as_features``), the new feature at the weight a params file without it
plays (``ABSENT_WEIGHT``).
The ``creator`` classes are made once, here, at import, so pool workers can unpickle
individuals. A checkpoint keeps an individual, and a strategy's state, as JSON data
(``individual_to_json``, ``strategy_to_json``).
"""

import random
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Optional,
    Protocol,
    Sequence,
    Tuple,
    TypedDict,
    TypeVar,
    cast,
)

import numpy
from deap import algorithms, base, cma, creator, tools
from deap.tools import crossover, emo, mutation, selection

from engine.common.plain_state import fields, items, number, numbers, whole_number
from engine.features import FEATURES
from engine.params import ABSENT_WEIGHT
from evolve.experiment.config_keys import StrategyName
from evolve.experiment.schema import Config, GaSettings, Start
from evolve.spsa import Spsa

if not hasattr(creator, "WinThenMargin"):
    creator.create("WinThenMargin", base.Fitness, weights=(1.0, 1.0))
if not hasattr(creator, "Individual"):
    creator.create("Individual", list, fitness=creator.WinThenMargin)

# The words of the types. DEAP declares none (to the checker its objects are Any), so they are declared here,
# as what the code uses of them: an Individual is a ``creator.Individual``, a list of floats in the genes' order
# with a DEAP ``fitness`` (DeapFitness) and, once evaluated, a ``report`` (FitnessReport); a Strategy is what
# makes and learns from them: GeneticStrategy, DEAP's ``cma.Strategy`` (CmaStrategy) or ``evolve.spsa.Spsa``,
# each with ``generate(make)`` and ``update(individuals)``; a Toolbox is DEAP's ``base.Toolbox`` as a run asks
# and tells through it (a GaToolbox: as the GA's operators). A DEAP object is declared one where it is made.
Bounds = Sequence[Tuple[float, float]]  # (low, high) of each gene, in genome order
Operator = Callable[..., Sequence[List[float]]]  # a variation operator or a strategy's generate: offspring
_Job = TypeVar("_Job")  # what a toolbox's map gives its function
_Result = TypeVar("_Result")  # what the function gives back


class DeapFitness(Protocol):
    """DEAP's ``base.Fitness`` (``creator.WinThenMargin``): its ``values``, set by an evaluation and deleted to
    invalidate it, and whether it has them (``valid``)."""

    values: Tuple[float, ...]

    @property
    def valid(self) -> bool: ...


class FitnessReport(TypedDict, total=False):
    """What an evaluation says of an individual beside its fitness (``evolve.rounds.fold``): its win rates
    as Black and as White (None without a game as that colour) and the ``standard_error`` of its win rate,
    always; with [regret], the share of won positions it kept; for a program individual, the games
    (``faults``) and won positions (``regret_faults``) it lost by its own fault."""

    black_win_rate: Optional[float]
    white_win_rate: Optional[float]
    regret_kept: float
    standard_error: float
    faults: int
    regret_faults: int


if TYPE_CHECKING:

    class Individual(List[float]):
        """A ``creator.Individual`` as the checker sees it: its genes, its ``fitness``, and its ``report``,
        which only an evaluation in this process sets (a checkpoint keeps none: read it with ``getattr``)."""

        fitness: DeapFitness
        report: FitnessReport

else:
    Individual = creator.Individual  # at run time, DEAP's class itself


class Strategy(Protocol):
    """What makes a generation's individuals and learns from them once evaluated (DEAP's ask and tell)."""

    def generate(self, make: Callable[[Iterable[float]], Individual]) -> List[Individual]:
        """The generation's new individuals, each made by ``make`` of its genes."""

    def update(self, individuals: List[Individual]) -> None:
        """Learn from the evaluated ``individuals`` (CMA-ES sorts them in place)."""


class CmaParams(TypedDict):
    """The settings DEAP's ``cma.Strategy`` is made with, as its ``params`` keeps them: its ``lambda_`` (the
    individuals a generation) and its first covariance matrix ``cmatrix``."""

    lambda_: int
    cmatrix: numpy.ndarray


class CmaStrategy(Strategy, Protocol):
    """DEAP's ``cma.Strategy`` (deap/cma.py) as the run reads it by name; its other fields a checkpoint keeps
    by name (``CMA_VECTORS`` and the rest)."""

    dim: int
    mu: int
    sigma: float
    centroid: numpy.ndarray
    C: numpy.ndarray
    weights: numpy.ndarray
    params: CmaParams


class _Registry(Protocol):
    """What every DEAP ``base.Toolbox`` has: ``register`` and ``decorate`` (DEAP's idiom) and ``clone``."""

    def register(self, alias: str, function: Callable[..., object], *args: object, **kargs: object) -> None:
        """``alias`` as ``function`` with ``args`` and ``kargs`` given (functools.partial)."""

    def decorate(self, alias: str, *decorators: Callable[[Operator], Operator]) -> None:
        """``alias`` wrapped in each of ``decorators``."""

    def clone(self, individual: Individual) -> Individual:
        """A deep copy of ``individual``."""


class Toolbox(_Registry, Protocol):
    """A run's toolbox (``make_toolbox``): the strategy's ask and tell, and the map its games run through."""

    def generate(self) -> List[Individual]:
        """The strategy's new individuals."""

    def update(self, new: List[Individual], everyone: List[Individual]) -> List[Individual]:
        """Tell the strategy the evaluated generation; the population to keep."""

    def map(self, function: Callable[[_Job], _Result], jobs: Iterable[_Job]) -> Iterator[_Result]:
        """``function`` of each of ``jobs``, in their order (the builtin, or a pool's)."""


class GaToolbox(_Registry, Protocol):
    """The GA's operators (``GeneticStrategy``), as its code and DEAP's ``algorithms.varAnd`` call them."""

    def individual(self) -> Individual:
        """An individual of genes drawn uniformly from the bounds."""

    def mutate(self, individual: Individual) -> Tuple[Individual]:
        """``individual`` mutated in place, within the bounds."""

    def select(self, individuals: Sequence[Individual], k: int) -> List[Individual]:
        """``k`` of ``individuals`` chosen by tournament."""


# The evolution's own random stream. DEAP's operators draw from the module-level functions
# of ``random``, which anything else in the process may draw from too (a Dask scheduler
# does, from its own thread, at times of its choosing); pointing DEAP's modules at this
# stream means nothing but the evolution can move it, so a run replays exactly.
STREAM = random.Random()
for _module in (algorithms, crossover, emo, mutation, selection):
    _module.random = STREAM


# A tapered genome's second half: the weights at the game's last ply (engine.features.weights_by_ply).
ENDGAME = "endgame."
# The genes of a run whose checkpoint records none (runs from before tapered weights): the
# features there were then, in their order. A fact about old files, not about FEATURES today.
UNRECORDED_GENES = (
    "margin",
    "margin_late",
    "liberties",
    "atari_own",
    "atari_opp",
    "two_liberty",
    "euler",
    "edge",
    "corner",
    "eyes",
    "captures",
)


def genes(tapered: bool) -> List[str]:
    """The names of a new run's genes, in order: the features' weights; tapered, the opening's
    (ply 0) then the endgame's (ply MAX_MOVES, named ``endgame.<feature>``)."""
    return list(FEATURES) + ([ENDGAME + name for name in FEATURES] if tapered else [])


def feature_of(gene: str) -> str:
    """The feature a gene weighs: ``margin`` for both ``margin`` and ``endgame.margin``."""
    return gene[len(ENDGAME) :] if gene.startswith(ENDGAME) else gene


def named(individual: Sequence[float], genes: Sequence[str]) -> Dict[str, float]:
    """The numbers of an individual by gene name (the config's ``genes``)."""
    if len(individual) != len(genes):
        raise ValueError(f"an individual of {len(individual)} numbers for {len(genes)} genes")
    return dict(zip(genes, (float(w) for w in individual)))


def by_feature(
    individual: Sequence[float], genes: Sequence[str]
) -> Tuple[Dict[str, float], Optional[Dict[str, float]]]:
    """An individual's weights by feature name: (the flat or opening weights, the endgame's or None).
    A feature its genes do not name (added after its run began) is absent from both."""
    opening: Dict[str, float] = {}
    endgame: Dict[str, float] = {}
    for gene, value in named(individual, genes).items():
        if gene.startswith(ENDGAME):
            endgame[feature_of(gene)] = value
        else:
            opening[gene] = value
    return opening, endgame or None


def as_features(individual: Sequence[float], genes: Sequence[str]) -> Tuple[float, ...]:
    """An individual's weights as the evaluation takes them (``engine.params.make_params``): FEATURES
    order, then the endgame's in FEATURES order when tapered; a feature its genes do not name
    weighs ABSENT_WEIGHT, as in a params file from before it."""
    opening, endgame = by_feature(individual, genes)
    vector = [opening.get(name, ABSENT_WEIGHT) for name in FEATURES]
    if endgame is not None:
        vector += [endgame.get(name, ABSENT_WEIGHT) for name in FEATURES]
    return tuple(vector)


def gene_bounds(config: Config) -> List[Tuple[float, float]]:
    """The (low, high) of each of the config's genes, in genome order."""
    return [config.bounds[name] for name in config.genes]


def clip(bounds: Bounds) -> Callable[[Operator], Operator]:
    """Decorator keeping the offspring of an operator inside per-feature bounds (DEAP's idiom)."""
    lows = [low for low, _ in bounds]
    highs = [high for _, high in bounds]

    def decorator(operator: Operator) -> Operator:
        def wrapper(*args: Any, **kwargs: Any) -> Sequence[List[float]]:
            offspring = operator(*args, **kwargs)
            for child in offspring:
                for k, value in enumerate(child):
                    child[k] = min(max(value, lows[k]), highs[k])
            return offspring

        return wrapper

    return decorator


def diversity(population: Sequence[Sequence[float]], bounds: Bounds) -> float:
    """Mean over features of the population's standard deviation, in units of each feature's range."""
    spreads = []
    for k, (low, high) in enumerate(bounds):
        values = [(ind[k] - low) / (high - low) for ind in population]
        spreads.append(float(numpy.std(values)))
    return float(numpy.mean(spreads))


def _first_population(toolbox: GaToolbox, start: Start, n: int) -> List[Individual]:
    """Generation 0 of a GA: the start weights as they are, then mutated copies of them in turn,
    then the ``random`` share of what is left drawn uniformly from the bounds (all of it random
    when the config names no start weights)."""
    starts = [creator.Individual(weights) for weights in start.weights]
    randoms = n - len(starts) if not starts else int(round(start.random * (n - len(starts))))
    population = list(starts)
    while len(population) < n - randoms:
        (child,) = toolbox.mutate(toolbox.clone(starts[len(population) % len(starts)]))
        population.append(child)
    return population + [toolbox.individual() for _ in range(randoms)]


class GeneticStrategy:
    """The genetic algorithm in the ask-tell form of CMA-ES and SPSA: ``generate(make)`` gives a generation's
    new individuals (generation 0's first population, then the tournament's choice of the last generation,
    varied by blend crossover and Gaussian mutation within the bounds), ``update(individuals)`` keeps the
    last generation, elites included, to choose from: a checkpoint keeps that population, and a resume
    makes the strategy anew from the config and tells it the population. Its random draws are STREAM's."""

    def __init__(self, ga: GaSettings, bounds: Bounds, start: Start, size: int, elites: int) -> None:
        self.ga, self.bounds, self.start = ga, list(bounds), start
        self.size, self.elites = size, elites
        self.population: List[Individual] = []

    def _toolbox(self) -> GaToolbox:
        """The operators, built afresh (a toolbox holds closures, which a checkpoint cannot keep)."""
        ga, bounds = self.ga, self.bounds
        toolbox: GaToolbox = base.Toolbox()

        def random_weights() -> List[float]:
            return [STREAM.uniform(low, high) for low, high in bounds]

        toolbox.register("individual", tools.initIterate, creator.Individual, random_weights)
        toolbox.register("mate", tools.cxBlend, alpha=ga.blend_alpha)
        toolbox.register(
            "mutate",
            tools.mutGaussian,
            mu=0.0,
            sigma=[ga.mutation_sigma * (high - low) for low, high in bounds],
            indpb=ga.gene_mutation_probability,
        )
        toolbox.decorate("mate", clip(bounds))
        toolbox.decorate("mutate", clip(bounds))
        toolbox.register("select", tools.selTournament, tournsize=ga.tournament_size)
        return toolbox

    def generate(self, make: Callable[[Iterable[float]], Individual]) -> List[Individual]:
        """The generation's new individuals (``make`` is DEAP's ask-tell signature: the GA makes
        ``creator.Individual`` itself)."""
        toolbox = self._toolbox()
        if not self.population:
            return _first_population(toolbox, self.start, self.size)
        chosen = toolbox.select(self.population, len(self.population) - min(self.elites, len(self.population)))
        offspring: List[Individual] = algorithms.varAnd(
            chosen, toolbox, self.ga.crossover_probability, self.ga.mutation_probability
        )
        return offspring

    def update(self, individuals: Sequence[Individual]) -> None:
        """Keep ``individuals`` (the last generation, elites included) to choose the next from."""
        self.population = list(individuals)

    @property
    def centre(self) -> List[float]:
        """The last generation's mean weights."""
        return [float(x) for x in numpy.mean([list(ind) for ind in self.population], axis=0)]


def spsa_pairs(population: int) -> int:
    """SPSA's perturbation pairs a step for a population: its individuals but the centre, in pairs."""
    return max(1, (population - 1) // 2)


def make_toolbox(config: Config, strategy: Optional[Strategy] = None) -> Tuple[Toolbox, Strategy]:
    """A DEAP toolbox and the config's strategy, each in the ask-tell form: ``toolbox.generate()`` gives a
    generation's new individuals, ``toolbox.update(new, all)`` tells the strategy the evaluated generation
    (the new individuals, and all of them, elites included) and returns the population to keep. The
    strategy: ``GeneticStrategy``, CMA-ES's ``cma.Strategy`` or ``evolve.spsa.Spsa``.

    ``strategy``: a state to continue (from a checkpoint) instead of a new one (a GA checkpoint from before
    the GA was a strategy holds None: a new GeneticStrategy, told the checkpoint's population). A new CMA-ES or
    SPSA is centred on the mean of the config's start weights, or on the centre of the bounds.
    """
    bounds = gene_bounds(config)
    toolbox: Toolbox = base.Toolbox()
    if config.strategy is StrategyName.GA:
        if strategy is None:
            strategy = GeneticStrategy(config.ga, bounds, config.start, config.population, config.hall_of_fame_size())
        toolbox.register("generate", strategy.generate, creator.Individual)
        toolbox.register("update", _keep_all, strategy)
        return toolbox, strategy
    starts = config.start.weights
    centre = [float(x) for x in numpy.mean(starts, axis=0)] if starts else [(low + high) / 2 for low, high in bounds]
    if config.strategy is StrategyName.SPSA:
        if strategy is None:
            spsa = config.spsa
            strategy = Spsa(
                centre, bounds, spsa_pairs(config.population), config.generations, spsa.c, spsa.step, seed=config.seed
            )
        toolbox.register("generate", strategy.generate, creator.Individual)
        toolbox.register("update", _keep_new, strategy)
        toolbox.decorate("generate", clip(bounds))
        return toolbox, strategy
    # CMA-ES samples around the centre of the box with a step of sigma times each range:
    # the initial covariance is diagonal in the ranges squared.
    if strategy is None:
        ranges = numpy.array([high - low for low, high in bounds])
        strategy = cma.Strategy(
            centroid=centre, sigma=config.cmaes.sigma, lambda_=config.population, cmatrix=numpy.diag(ranges**2)
        )
    toolbox.register("generate", strategy.generate, creator.Individual)
    toolbox.register("update", _keep_new, strategy)
    toolbox.decorate("generate", clip(bounds))
    return toolbox, strategy


def _keep_new(strategy: Strategy, new: List[Individual], everyone: List[Individual]) -> List[Individual]:
    """CMA-ES and SPSA learn from the individuals they drew (never the elites); the population is those."""
    strategy.update(new)
    return new


def _keep_all(strategy: Strategy, new: List[Individual], everyone: List[Individual]) -> List[Individual]:
    """The GA chooses the next generation from all of this one, elites included; the population is all."""
    strategy.update(everyone)
    return everyone


# -- as a checkpoint keeps them -------------------------------------------------------------------


def individual_to_json(individual: Individual) -> Dict[str, Any]:
    """An evaluated individual as JSON data: its genes and its fitness values."""
    return {"genes": [float(x) for x in individual], "fitness": [float(v) for v in individual.fitness.values]}


def individual_from_json(data: object, genes: int) -> Individual:
    """The evaluated ``creator.Individual`` of ``individual_to_json``'s data, of ``genes`` genes; ValueError
    saying what is wrong where it is not one."""
    kept = fields(data, "an individual", ("genes", "fitness"))
    individual: Individual = creator.Individual(numbers(kept["genes"], "an individual's genes", genes))
    individual.fitness.values = tuple(
        numbers(kept["fitness"], "an individual's fitness", len(creator.WinThenMargin.weights))
    )
    return individual


# DEAP's cma.Strategy, field by field (deap/cma.py): its arrays, of the size (dim) or of the size squared, its
# weights (mu of them), its counts and its numbers; ``params`` holds the lambda_ and the cmatrix it began with.
CMA_VECTORS = ("centroid", "pc", "ps", "diagD")
CMA_MATRICES = ("C", "B", "BD")
CMA_COUNTS = ("dim", "lambda_", "update_count", "mu")
CMA_NUMBERS = ("sigma", "chiN", "cond", "mueff", "cc", "cs", "ccov1", "ccovmu", "damps")


def strategy_to_json(strategy: Optional[Strategy]) -> Optional[Dict[str, Any]]:
    """A strategy's state as JSON data: SPSA's (``Spsa.to_json``) and CMA-ES's (each field of DEAP's
    Strategy; the arrays as lists, with the names of those numpy held in Fortran order, so that a resumed
    run multiplies them exactly as the run that never stopped); the GA's None, its state being the
    population a checkpoint keeps beside it."""
    if strategy is None or isinstance(strategy, GeneticStrategy):
        return None
    if isinstance(strategy, Spsa):
        return strategy.to_json()
    cmaes = cast(CmaStrategy, strategy)  # neither, so DEAP's CMA-ES, which declares no type
    arrays = CMA_VECTORS + CMA_MATRICES + ("weights",)
    data: Dict[str, Any] = {name: numpy.asarray(getattr(cmaes, name)).tolist() for name in arrays}
    data.update((name, int(getattr(cmaes, name))) for name in CMA_COUNTS)
    data.update((name, float(getattr(cmaes, name))) for name in CMA_NUMBERS)
    data["fortran"] = [name for name in arrays if numpy.isfortran(getattr(cmaes, name))]
    data["params"] = {
        "lambda_": int(cmaes.params["lambda_"]),
        "cmatrix": numpy.asarray(cmaes.params["cmatrix"]).tolist(),
    }
    return data


def strategy_from_json(kind: StrategyName, data: object, genes: int) -> Optional[Strategy]:
    """The state ``strategy_to_json`` wrote of a strategy of ``kind`` (a config's ``strategy``) over ``genes``
    genes: None for the GA (``make_toolbox`` makes it anew and the population is told it); ValueError saying
    what is wrong."""
    if kind is StrategyName.GA:
        if data is not None:
            raise ValueError("a GA's strategy is kept as its population, not as a state of its own")
        return None
    if kind is StrategyName.SPSA:
        spsa = Spsa.from_json(data)
        if len(spsa.theta) != genes:
            raise ValueError(f"SPSA's centre has {len(spsa.theta)} genes, not the config's {genes}")
        return spsa
    kept = fields(data, "a CMA-ES state", CMA_VECTORS + CMA_MATRICES + CMA_COUNTS + CMA_NUMBERS + ("weights", "params"))
    strategy: CmaStrategy = cma.Strategy.__new__(cma.Strategy)
    for name in CMA_COUNTS:
        setattr(strategy, name, whole_number(kept[name], f"CMA-ES's {name}"))
    if strategy.dim != genes:
        raise ValueError(f"CMA-ES's dim is {strategy.dim}, not the config's {genes} genes")
    for name in CMA_NUMBERS:
        setattr(strategy, name, number(kept[name], f"CMA-ES's {name}"))
    fortran = set(items(kept.get("fortran", []), "CMA-ES's fortran"))
    dim = strategy.dim

    def array(value: object, name: str, shape: Tuple[int, ...]) -> numpy.ndarray:
        rows = [value] if len(shape) == 1 else items(value, f"CMA-ES's {name}")
        if len(rows) != (1 if len(shape) == 1 else shape[0]):
            raise ValueError(f"CMA-ES's {name} is a {' by '.join(map(str, shape))} array")
        checked = [numbers(row, f"CMA-ES's {name}", shape[-1]) for row in rows]
        return numpy.array(
            checked[0] if len(shape) == 1 else checked, dtype=float, order="F" if name in fortran else "C"
        )

    for name in CMA_VECTORS:
        setattr(strategy, name, array(kept[name], name, (dim,)))
    for name in CMA_MATRICES:
        setattr(strategy, name, array(kept[name], name, (dim, dim)))
    strategy.weights = array(kept["weights"], "weights", (strategy.mu,))
    params = fields(kept["params"], "CMA-ES's params", ("lambda_", "cmatrix"))
    strategy.params = {
        "lambda_": whole_number(params["lambda_"], "CMA-ES's params' lambda_"),
        "cmatrix": array(params["cmatrix"], "cmatrix", (dim, dim)),
    }
    return strategy
