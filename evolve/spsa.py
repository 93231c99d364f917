"""SPSA: simultaneous perturbation stochastic approximation, as engine testers tune weights.

fishtest and OpenBench tune a chess engine's parameters so: each step perturbs every weight at once
by plus or minus c_k (a random sign each), plays the two perturbed engines, and moves the weights
along the perturbation by a_k times the difference in their results over 2 c_k. Here the two
perturbed individuals of each pair meet the generation's fitness (the same opponents, openings and
seeds for all, or the exact regret positions), so their difference is a paired one; a step takes
``pairs`` pairs and averages their estimates. The weights live in the bounds' box, scaled to [0, 1]
per gene, so that one gain serves genes of any range.

The gains follow Spall's guidelines, which fishtest's defaults follow too: c_k = c / (k + 1)^gamma,
a_k = a / (A + k + 1)^alpha with alpha = 0.602, gamma = 0.101 and A a tenth of the planned steps.
One change makes the defaults work on any fitness without tuning: a pair's difference is divided by
the root mean square of every pair's difference so far, so that a step's size does not depend on the
fitness's scale (the regret fitness's pairs differ by 0.01-0.05, a game score's by 0.1-0.5; with
Spall's raw gradient the first needs a ``step`` ten times the second's). ``step`` (a_0) is how far,
as a share of each gene's range, the first step moves a weight when every pair's difference is of
the usual size and agrees on its direction; a pair that differs by nothing moves nothing. Measured
on the regret fitness (experiments/tuners-20261125): with the raw gradient and ``step`` 0.02 the
centre moved by a few thousandths of each range a step and never changed its score in 12 steps. The
centre is evaluated each step beside the pairs (the last individual of a generation), so that the
run's best and its trajectory are the centre's.
"""

import random
from typing import Any, Callable, Dict, List, Sequence, Tuple, TypeVar

from engine.common.plain_state import (
    fields,
    items,
    number,
    numbers,
    random_state_from_json,
    random_state_to_json,
    whole_number,
)

Made = TypeVar("Made")  # what the caller makes of a point: a DEAP individual, a plain list


_FIELDS = ("bounds", "theta", "pairs", "c", "alpha", "gamma", "big_a", "a", "k", "rng", "signs")  # in to_json


class Spsa:
    """An SPSA state with DEAP's strategy interface: ``generate(make)`` gives the step's individuals
    (``pairs`` pairs, plus, then minus, then the centre), ``update(individuals)`` moves the centre.
    A checkpoint keeps it as JSON data (``to_json``), and a resumed or extended run continues from it."""

    def __init__(
        self,
        centre: Sequence[float],
        bounds: Sequence[Tuple[float, float]],
        pairs: int,
        steps: int,
        c: float = 0.05,
        step: float = 0.05,
        alpha: float = 0.602,
        gamma: float = 0.101,
        seed: int = 1,
    ) -> None:
        self.bounds = [(float(low), float(high)) for low, high in bounds]
        self.theta = [self._scaled(value, gene) for gene, value in enumerate(centre)]
        self.pairs, self.c, self.alpha, self.gamma = pairs, c, alpha, gamma
        self.big_a = max(1.0, 0.1 * steps)  # Spall's A: a tenth of the planned steps, fixed when a run is extended
        self.a = step * (self.big_a + 1) ** alpha  # a_0 = step
        self.k = 0
        self.rng = random.Random(seed)
        self.signs: List[List[float]] = []
        self.squares, self.differences = 0.0, 0  # every pair's squared difference so far, and how many

    def _scaled(self, value: float, gene: int) -> float:
        low, high = self.bounds[gene]
        return min(max((value - low) / (high - low), 0.0), 1.0)

    def _weights(self, point: Sequence[float]) -> List[float]:
        return [low + min(max(x, 0.0), 1.0) * (high - low) for x, (low, high) in zip(point, self.bounds)]

    @property
    def centre(self) -> List[float]:
        """The centre in weight units."""
        return self._weights(self.theta)

    def gains(self) -> Tuple[float, float]:
        """(a_k, c_k) of the coming step."""
        return self.a / (self.big_a + self.k + 1) ** self.alpha, self.c / (self.k + 1) ** self.gamma

    def generate(self, make: Callable[[List[float]], Made]) -> List[Made]:
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

    def update(self, individuals: Sequence[Any]) -> None:
        """Move the centre along the step's pairs: each pair's difference in fitness (its first value,
        maximised) over the root mean square of every difference so far, times its signs, averaged."""
        a_k, _ = self.gains()
        differences = [
            individuals[2 * pair].fitness.values[0] - individuals[2 * pair + 1].fitness.values[0]
            for pair in range(len(self.signs))
        ]
        self.squares += sum(d * d for d in differences)
        self.differences += len(differences)
        scale = (self.squares / self.differences) ** 0.5 if self.differences else 0.0
        if scale > 0:
            move = [0.0] * len(self.theta)
            for difference, signs in zip(differences, self.signs):
                for gene, sign in enumerate(signs):
                    move[gene] += a_k * difference / scale * sign / len(self.signs)
            self.theta = [min(max(x + m, 0.0), 1.0) for x, m in zip(self.theta, move)]
        self.k += 1

    def to_json(self) -> Dict[str, Any]:
        """The whole state as JSON data: its settings, where it stands, and its random stream's state."""
        return {
            "bounds": [[low, high] for low, high in self.bounds],
            "theta": list(self.theta),
            "pairs": self.pairs,
            "c": self.c,
            "alpha": self.alpha,
            "gamma": self.gamma,
            "big_a": self.big_a,
            "a": self.a,
            "k": self.k,
            "rng": random_state_to_json(self.rng.getstate()),
            "signs": [list(signs) for signs in self.signs],
            "squares": self.squares,
            "differences": self.differences,
        }

    @classmethod
    def from_json(cls, data: object) -> "Spsa":
        """The state ``to_json`` wrote; ValueError saying which part is not what it must be. A state of an
        older checkpoint, from before the differences were kept, starts counting them now."""
        kept = dict({"squares": 0.0, "differences": 0}, **fields(data, "an SPSA state", _FIELDS))
        spsa = cls.__new__(cls)
        bounds = [numbers(bound, "an SPSA bound", 2) for bound in items(kept["bounds"], "SPSA's bounds")]
        spsa.bounds = [(low, high) for low, high in bounds]
        if not all(low < high for low, high in spsa.bounds):
            raise ValueError("an SPSA bound is (low, high) with low below high")
        spsa.theta = numbers(kept["theta"], "SPSA's theta", len(spsa.bounds))
        spsa.pairs, spsa.k, spsa.differences = (
            whole_number(kept[name], f"SPSA's {name}") for name in ("pairs", "k", "differences")
        )
        spsa.c, spsa.alpha, spsa.gamma, spsa.big_a, spsa.a, spsa.squares = (
            number(kept[name], f"SPSA's {name}") for name in ("c", "alpha", "gamma", "big_a", "a", "squares")
        )
        spsa.rng = random.Random()
        spsa.rng.setstate(random_state_from_json(kept["rng"]))
        spsa.signs = [numbers(signs, "SPSA's signs", len(spsa.theta)) for signs in items(kept["signs"], "SPSA's signs")]
        return spsa
