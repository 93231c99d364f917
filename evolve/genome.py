"""DEAP types and variation operators for weight genomes.

An individual is a list of numbers named by the config's ``genes`` (the weights in ``FEATURES``
order; tapered, the endgame's after them); its fitness is (win rate, mean stone margin),
compared lexicographically so the margin only breaks ties.
The ``creator`` classes are made once, here, at import, so pool workers can unpickle
individuals.
"""

import random

import numpy
from deap import algorithms, base, cma, creator, tools
from deap.tools import crossover, emo, mutation, selection

from engine.features import FEATURES

# The evolution's own random stream. DEAP's operators draw from the module-level functions
# of ``random``, which anything else in the process may draw from too (a Dask scheduler
# does, from its own thread, at times of its choosing); pointing DEAP's modules at this
# stream means nothing but the evolution can move it, so a run replays exactly.
STREAM = random.Random()
for _module in (algorithms, crossover, emo, mutation, selection):
    _module.random = STREAM

if not hasattr(creator, "WinThenMargin"):
    creator.create("WinThenMargin", base.Fitness, weights=(1.0, 1.0))
if not hasattr(creator, "Individual"):
    creator.create("Individual", list, fitness=creator.WinThenMargin)


def named(individual, genes=FEATURES):
    """The numbers of an individual by gene name (the config's ``genes``)."""
    return dict(zip(genes, (float(w) for w in individual)))


def gene_bounds(config):
    """The [low, high] of each of the config's genes, in genome order."""
    return [tuple(config["bounds"][name]) for name in config.get("genes", FEATURES)]


def clip(bounds):
    """Decorator keeping the offspring of an operator inside per-feature bounds (DEAP's idiom)."""
    lows = [low for low, _ in bounds]
    highs = [high for _, high in bounds]

    def decorator(operator):
        def wrapper(*args, **kwargs):
            offspring = operator(*args, **kwargs)
            for child in offspring:
                for k, value in enumerate(child):
                    child[k] = min(max(value, lows[k]), highs[k])
            return offspring

        return wrapper

    return decorator


def diversity(population, bounds):
    """Mean over features of the population's standard deviation, in units of each feature's range."""
    spreads = []
    for k, (low, high) in enumerate(bounds):
        values = [(ind[k] - low) / (high - low) for ind in population]
        spreads.append(float(numpy.std(values)))
    return float(numpy.mean(spreads))


# The [start] of a config from before it had one (a checkpoint of an older run).
NO_START = {"params": [], "weights": [], "random": 0.0}


def _first_population(toolbox, start, n):
    """Generation 0 of a GA: the start weights as they are, then mutated copies of them in turn,
    then the ``random`` share of what is left drawn uniformly from the bounds (all of it random
    when the config names no start weights)."""
    starts = [creator.Individual(weights) for weights in start["weights"]]
    randoms = n - len(starts) if not starts else int(round(start["random"] * (n - len(starts))))
    population = list(starts)
    while len(population) < n - randoms:
        (child,) = toolbox.mutate(toolbox.clone(starts[len(population) % len(starts)]))
        population.append(child)
    return population + [toolbox.individual() for _ in range(randoms)]


def make_toolbox(config, strategy=None):
    """A DEAP toolbox for the config's strategy; for CMA-ES, also its ``cma.Strategy``.

    ``strategy``: a CMA-ES state to continue (from a checkpoint) instead of a new one. A new one
    is centred on the mean of the config's start weights, or on the centre of the bounds.
    """
    bounds = gene_bounds(config)
    toolbox = base.Toolbox()
    if config["strategy"] == "ga":
        ga = config["ga"]

        def random_weights():
            return [STREAM.uniform(low, high) for low, high in bounds]

        toolbox.register("individual", tools.initIterate, creator.Individual, random_weights)
        toolbox.register("mate", tools.cxBlend, alpha=ga["blend_alpha"])
        toolbox.register(
            "mutate",
            tools.mutGaussian,
            mu=0.0,
            sigma=[ga["mutation_sigma"] * (high - low) for low, high in bounds],
            indpb=ga["gene_mutation_probability"],
        )
        toolbox.decorate("mate", clip(bounds))
        toolbox.decorate("mutate", clip(bounds))
        toolbox.register("select", tools.selTournament, tournsize=ga["tournament_size"])
        toolbox.register("population", _first_population, toolbox, config.get("start", NO_START))
        return toolbox, None
    # CMA-ES samples around the centre of the box with a step of sigma times each range:
    # the initial covariance is diagonal in the ranges squared.
    if strategy is None:
        ranges = numpy.array([high - low for low, high in bounds])
        starts = config.get("start", NO_START)["weights"]
        centre = (
            [float(x) for x in numpy.mean(starts, axis=0)] if starts else [(low + high) / 2 for low, high in bounds]
        )
        strategy = cma.Strategy(
            centroid=centre, sigma=config["cmaes"]["sigma"], lambda_=config["population"], cmatrix=numpy.diag(ranges**2)
        )
    toolbox.register("generate", strategy.generate, creator.Individual)
    toolbox.register("update", strategy.update)
    toolbox.decorate("generate", clip(bounds))
    return toolbox, strategy
