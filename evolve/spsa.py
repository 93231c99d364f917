"""SPSA: simultaneous perturbation stochastic approximation, as engine testers tune weights.

fishtest and OpenBench tune a chess engine's parameters so: each step perturbs every weight at once
by plus or minus c_k (a random sign each), plays the two perturbed engines, and moves the weights
along the perturbation by a_k times the difference in their results over 2 c_k. Here the two
perturbed individuals of each pair meet the generation's fitness (the same opponents, openings and
seeds for all, or the exact regret positions), so their difference is a paired one; a step takes
``pairs`` pairs and averages their estimates. The weights live in the bounds' box, scaled to [0, 1]
per gene, so that one gain serves genes of any range.

The gains follow Spall's guidelines, which fishtest's defaults follow too: c_k = c / (k + 1)^gamma,
a_k = a / (A + k + 1)^alpha with alpha = 0.602, gamma = 0.101 and A a tenth of the planned steps;
``a`` is set from ``step``, how far (a share of each gene's range) the first step moves a weight when
a pair's fitnesses differ by twice the perturbation (a gradient of 1 in the scaled box). The centre
is evaluated each step beside the pairs (the last individual of a generation), so that the run's
best and its trajectory are the centre's.
"""

import random


class Spsa:
    """An SPSA state with DEAP's strategy interface: ``generate(make)`` gives the step's individuals
    (``pairs`` pairs, plus, then minus, then the centre), ``update(individuals)`` moves the centre.
    Picklable: a checkpoint keeps it, and a resumed or extended run continues from it."""

    def __init__(self, centre, bounds, pairs, steps, c=0.05, step=0.02, alpha=0.602, gamma=0.101, seed=1):
        self.bounds = [(float(low), float(high)) for low, high in bounds]
        self.theta = [self._scaled(value, gene) for gene, value in enumerate(centre)]
        self.pairs, self.c, self.alpha, self.gamma = pairs, c, alpha, gamma
        self.big_a = max(1.0, 0.1 * steps)  # Spall's A: a tenth of the planned steps, fixed when a run is extended
        self.a = step * (self.big_a + 1) ** alpha  # a_0 = step
        self.k = 0
        self.rng = random.Random(seed)
        self.signs = []

    def _scaled(self, value, gene):
        low, high = self.bounds[gene]
        return min(max((value - low) / (high - low), 0.0), 1.0)

    def _weights(self, point):
        return [low + min(max(x, 0.0), 1.0) * (high - low) for x, (low, high) in zip(point, self.bounds)]

    @property
    def centre(self):
        """The centre in weight units."""
        return self._weights(self.theta)

    def gains(self):
        """(a_k, c_k) of the coming step."""
        return self.a / (self.big_a + self.k + 1) ** self.alpha, self.c / (self.k + 1) ** self.gamma

    def generate(self, make):
        """The step's individuals, each made by ``make(weights)``: for each pair the centre plus and minus
        c_k times a random sign per gene, then the centre."""
        _, c_k = self.gains()
        self.signs = [[self.rng.choice((-1.0, 1.0)) for _ in self.theta] for _ in range(self.pairs)]
        individuals = []
        for signs in self.signs:
            for direction in (1.0, -1.0):
                individuals.append(make(self._weights([x + direction * c_k * s for x, s in zip(self.theta, signs)])))
        individuals.append(make(self.centre))
        return individuals

    def update(self, individuals):
        """Move the centre by the step's estimate of the fitness's gradient (its first value, maximised)."""
        a_k, c_k = self.gains()
        gradient = [0.0] * len(self.theta)
        for pair, signs in enumerate(self.signs):
            plus, minus = individuals[2 * pair], individuals[2 * pair + 1]
            difference = plus.fitness.values[0] - minus.fitness.values[0]
            for gene, sign in enumerate(signs):
                gradient[gene] += difference / (2 * c_k) * sign / len(self.signs)
        self.theta = [min(max(x + a_k * g, 0.0), 1.0) for x, g in zip(self.theta, gradient)]
        self.k += 1
