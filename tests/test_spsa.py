"""SPSA (evolve/spsa.py) as a third strategy: it climbs a smooth fitness with its default gains, a run
stopped and resumed equals one never stopped, a finished run extends, and the plot draws its centre."""

import json
from types import SimpleNamespace

import pytest

from evolve.spsa import Spsa
from tests.conftest import cli

SPSA_RUN = """
name = "spsa"
seed = 3
population = 5
generations = 3
strategy = "spsa"
depth = 1
jobs = 2

[[panel]]
opponent = "greedy"
games = 4
random_opening = 2
"""


def _individual(weights):
    return SimpleNamespace(weights=list(weights), fitness=SimpleNamespace(values=None))


def _climb(spsa, steps, target, scale=1.0):
    for _ in range(steps):
        individuals = spsa.generate(_individual)
        for individual in individuals:  # a smooth fitness in [0, scale] with its peak at ``target``
            distance = sum((w - t) ** 2 for w, t in zip(individual.weights, target))
            individual.fitness.values = (scale / (1.0 + distance / 100.0), 0.0)
        spsa.update(individuals)


@pytest.mark.fast
def test_the_default_gains_climb_a_smooth_fitness_and_a_state_kept_as_json_goes_on_the_same():
    bounds, target = [(-10.0, 10.0), (0.0, 100.0), (-50.0, 50.0)], [5.0, 70.0, -20.0]
    spsa = Spsa([0.0, 50.0, 0.0], bounds, pairs=4, steps=60, seed=9)
    start = sum((w - t) ** 2 for w, t in zip(spsa.centre, target)) ** 0.5
    _climb(spsa, 30, target)
    copy = Spsa.from_json(json.loads(json.dumps(spsa.to_json())))
    _climb(spsa, 30, target)
    _climb(copy, 30, target)
    assert copy.centre == spsa.centre and copy.k == spsa.k == 60 and copy.to_json() == spsa.to_json()
    assert sum((w - t) ** 2 for w, t in zip(spsa.centre, target)) ** 0.5 < start / 2
    individuals = spsa.generate(_individual)
    assert len(individuals) == 9 and individuals[-1].weights == spsa.centre  # the pairs, then the centre
    assert all(low <= w <= high for ind in individuals for w, (low, high) in zip(ind.weights, bounds))


@pytest.mark.fast
@pytest.mark.parametrize(
    "change, words",
    [
        ({"theta": [0.5]}, "theta is a list of 3 numbers"),
        ({"theta": ["a", "b", "c"]}, "theta is a number"),
        ({"k": -1}, "k is a whole number"),
        ({"bounds": [[1.0, 0.0]] * 3}, "low below high"),
        ({"rng": [3, [0] * 625, "gauss"]}, "cached gauss"),
        ({"signs": [[1.0]]}, "signs is a list of 3 numbers"),
    ],
)
def test_a_kept_state_that_is_not_one_is_refused_naming_the_part(change, words):
    kept = Spsa([0.0, 50.0, 0.0], [(-10.0, 10.0), (0.0, 100.0), (-50.0, 50.0)], pairs=2, steps=5).to_json()
    with pytest.raises(ValueError, match=words):
        Spsa.from_json(dict(kept, **change))


def test_the_default_gains_take_the_same_steps_whatever_the_fitness_scale():
    bounds, target = [(-10.0, 10.0), (0.0, 100.0), (-50.0, 50.0)], [5.0, 70.0, -20.0]
    runs = []
    for scale in (1.0, 0.01):  # a game score's differences, and the regret fitness's hundredths
        spsa = Spsa([0.0, 50.0, 0.0], bounds, pairs=4, steps=12, seed=9)
        _climb(spsa, 12, target, scale)
        runs.append(spsa.centre)
    assert all(abs(a - b) < 1e-9 for a, b in zip(*runs))
    start = sum((w - t) ** 2 for w, t in zip([0.0, 50.0, 0.0], target)) ** 0.5
    assert sum((w - t) ** 2 for w, t in zip(runs[1], target)) ** 0.5 < 0.8 * start  # 12 steps climb


def test_a_step_whose_pairs_all_tie_moves_nothing():
    spsa = Spsa([1.0, 2.0], [(0.0, 10.0), (0.0, 10.0)], pairs=2, steps=5, seed=1)
    individuals = spsa.generate(_individual)
    for individual in individuals:
        individual.fitness.values = (0.5, 0.0)
    spsa.update(individuals)
    assert spsa.centre == [1.0, 2.0] and spsa.k == 1


@pytest.mark.slow
def test_an_spsa_run_resumes_extends_and_plots_its_centre(tmp_path):
    config = tmp_path / "spsa.toml"
    config.write_text(SPSA_RUN)
    whole = tmp_path / "whole"
    result = cli("evolve", "run", config, "--runs-dir", whole, "--no-progress", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (run,) = whole.iterdir()
    result = cli("evolve", "resume", run, "--generations", "5", "--no-progress", cwd=tmp_path)
    assert result.returncode == 0 and "extended to 5 generations" in result.stdout, result.stderr
    records = [json.loads(line) for line in (run / "generations.jsonl").read_text().splitlines()]
    assert [r["generation"] for r in records] == [0, 1, 2, 3, 4, 5]
    assert all(r["evaluated"] == 5 + (2 if r["generation"] else 0) for r in records)  # 2 pairs, centre, elites
    assert records[0]["centre"] != records[-1]["centre"]  # the centre moved
    straight = tmp_path / "straight"
    config.write_text(SPSA_RUN.replace("generations = 3", "generations = 5"))
    assert cli("evolve", "run", config, "--runs-dir", straight, "--no-progress", cwd=tmp_path).returncode == 0
    (other,) = straight.iterdir()
    again = [json.loads(line) for line in (other / "generations.jsonl").read_text().splitlines()]
    keys = ("best_fitness", "centre", "individuals")
    assert [{k: r[k] for k in keys} for r in again] != [] and [{k: r[k] for k in keys} for r in again[:4]] == [
        {k: r[k] for k in keys} for r in records[:4]
    ]
    assert cli("evolve", "plot", run).returncode == 0 and (run / "weights.png").stat().st_size > 1000
