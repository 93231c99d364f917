"""evolve run's strategies as one ask/tell object (evolve/tuner.py), the form the tuner benchmark runs them in."""

import numpy
import pytest

from engine.features import FEATURE_TABLE, FEATURES
from engine.params import default_params
from evolve.tuner import RUN_STRATEGIES, RunTuner, tuner_config

START = [default_params().weights[name] for name in FEATURES]
BOUNDS = [(float(low), float(high)) for low, high in (feature.bounds for feature in FEATURE_TABLE)]
TARGET = [(low + high) / 2 + (high - low) / 5 for low, high in BOUNDS]


def closeness(weights):
    """Minus the squared distance to TARGET in units of each range: a smooth fitness to climb."""
    return -sum(((w - t) / (high - low)) ** 2 for w, t, (low, high) in zip(weights, TARGET, BOUNDS))


def tuned(strategy, generations=15, seed=3):
    tuner = RunTuner(tuner_config(strategy, START, BOUNDS, FEATURES, seed, generations, population=12))
    tuner.seed()
    asked = []
    for _ in range(generations):
        candidates = tuner.ask()
        asked.append([list(c) for c in candidates])
        tuner.tell(candidates, [(closeness(c), 0.0) for c in candidates])
    return tuner, asked


@pytest.mark.fast
@pytest.mark.parametrize("strategy", RUN_STRATEGIES)
def test_each_run_strategy_climbs_through_ask_and_tell(strategy):
    tuner, asked = tuned(strategy)
    assert closeness(tuner.recommend()) > closeness(START) + 0.1
    assert all(low <= w <= high for c in asked[-1] for w, (low, high) in zip(c, BOUNDS))
    # the elites are asked again, each a copy to be measured anew
    assert len(asked[-1]) >= tuner.config.population


@pytest.mark.fast
@pytest.mark.parametrize("strategy", RUN_STRATEGIES)
def test_a_tuner_replays_from_its_seed(strategy):
    assert tuned(strategy, 4, seed=5)[1] == tuned(strategy, 4, seed=5)[1]
    assert tuned(strategy, 4, seed=5)[1] != tuned(strategy, 4, seed=6)[1]


@pytest.mark.fast
def test_an_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="tpe"):
        tuner_config("tpe", START, BOUNDS, FEATURES, 1, 3)


@pytest.mark.fast
def test_cmaes_starts_again_where_its_covariance_breaks(monkeypatch):
    tuner = RunTuner(tuner_config("cmaes", START, BOUNDS, FEATURES, 1, 10, population=8))
    tuner.seed()
    candidates = tuner.ask()
    tuner.tell(candidates, [(float(k), 0.0) for k in range(len(candidates))])
    centroid = tuner.centre()

    def broken(points):
        raise numpy.linalg.LinAlgError("Eigenvalues did not converge")

    monkeypatch.setattr(tuner.strategy, "update", broken)
    candidates = tuner.ask()
    tuner.tell(candidates, [(0.0, 0.0)] * len(candidates))
    assert tuner.restarts == 1 and tuner.centre() == pytest.approx(centroid)
    assert tuner.strategy.sigma == tuner.config.cmaes.sigma  # a fresh strategy, where the broken one stood
    assert len(tuner.ask()) >= 8  # and it goes on


@pytest.mark.fast
@pytest.mark.parametrize("strategy", RUN_STRATEGIES)
def test_a_tuner_says_how_many_candidates_a_later_generation_asks(strategy):
    _, asked = tuned(strategy, generations=3)
    tuner = RunTuner(tuner_config(strategy, START, BOUNDS, FEATURES, 3, 3, population=12))
    assert [tuner.later_candidates(len(asked[0]))] * 2 == [len(asked[1]), len(asked[2])]


@pytest.mark.fast
@pytest.mark.parametrize("strategy", RUN_STRATEGIES)
def test_every_strategys_generation_0_measures_the_start_weights_and_only_generation_0(strategy):
    tuner = RunTuner(tuner_config(strategy, START, BOUNDS, FEATURES, 2, 4, population=8))
    tuner.seed()
    first = tuner.ask()
    assert [list(c) for c in first].count(START) == 1  # the original, as a fixed individual
    later = tuner.later_candidates(len(first))
    tuner.tell(first, [(1.0 if list(c) == START else 0.0, 0.0) for c in first])
    assert list(tuner.halloffame[0]) == START  # nothing beat it: the run's best is the original
    second = tuner.ask()
    assert len(second) == later
    if strategy == "cmaes":  # drawn around it from now on; measured again only as an elite
        assert len(first) == 8 + 1 and len(second) == 8 + tuner.config.hall_of_fame_size()
        assert [list(c) for c in second[:8]].count(START) == 0
        resumed = RunTuner(tuner.config, tuner.strategy, tuner.halloffame)  # a checkpoint's state: no original
        assert [list(c) for c in resumed.ask()].count(START) == 1  # but as the hall of fame's elite
