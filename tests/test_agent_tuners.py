"""The tuner benchmark's second problem (evolve/solved/agent_tuners.py, ``evolve agent-tuners``): a student's
agent tuned by each run strategy on games and on the exact regret, stopped at a CPU budget, measured by
``littlego check`` and ``littlego grade``."""

import json
import os
import types

import pytest

from engine.errors import InvalidInput
from evolve.agents import program_individual
from evolve.checkpoint import RunError
from evolve.config import load_config
from evolve.loop import Evolution
from evolve.solved import agent_tuners as bench
from tests.conftest import ROOT, cli
from tests.test_regret_fitness import FRESH, PLAIN, PROGRAM_RUN, few_positions

EXAMPLE = os.path.join(ROOT, "examples", "plain-python", "evolve.toml")

# The regret test's tiny run of examples/plain-python, with a panel of two games in place of [regret].
TINY_AGENT = PROGRAM_RUN.replace("generations = 1", "generations = 3").replace(
    '[regret]\npositions = "{positions}"\n', '[[panel]]\nopponent = "random"\ngames = 2\nrandom_opening = 2\n'
)


@pytest.mark.fast
def test_a_cpu_budget_stops_after_the_generation_that_passes_it():
    spent = [types.SimpleNamespace(cpu_seconds=1.0), types.SimpleNamespace(cpu_seconds=1.5)]
    assert not Evolution._spent(spent, None)
    assert not Evolution._spent(spent[:1], 2.0)  # 1 s of 2: another generation
    assert Evolution._spent(spent, 2.0)  # the second passed it: the last
    assert Evolution._spent(spent, 2.5) and not Evolution._spent(spent, 2.6)
    with pytest.raises(RunError, match="one job at a time"):
        Evolution._spent([types.SimpleNamespace(cpu_seconds=None)], 2.0)


def test_a_legs_config_is_the_experiment_with_its_strategy_seed_and_fitness(tmp_path):
    experiment = bench.load_experiment(EXAMPLE)
    regret = bench.leg_config(experiment, bench.AgentLeg("spsa", "regret", 4, 60.0), FRESH)
    games = bench.leg_config(experiment, bench.AgentLeg("ga", "games", 2, 60.0), FRESH)
    assert "panel" not in regret and regret["regret"] == {"positions": FRESH}
    assert games["panel"] == experiment["panel"] and "regret" not in games
    assert experiment["individual"].get("verdict_games") is None  # the experiment itself is untouched
    for data, leg in ((regret, "spsa-regret-4"), (games, "ga-games-2")):
        path = str(tmp_path / f"{leg}.toml")
        bench.write_toml(path, data)
        config = load_config(path)  # a config evolve run accepts
        assert config.name == f"plain-python-{leg}" and config.strategy == leg.split("-")[0]
        assert config.seed == int(leg[-1]) and config.individual.verdict_games == 0
        assert config.individual.constants == tuple(experiment["individual"]["constants"])
        assert config.population == experiment["population"]
    assert load_config(str(tmp_path / "spsa-regret-4.toml")).regret.won == 253
    assert not os.path.exists(str(tmp_path / "spsa-regret-4.toml.partial"))


def test_legs_come_seed_by_seed_and_a_wrong_tuner_or_experiment_is_refused(tmp_path):
    legs = bench.agent_legs(["ga", "cmaes"], ["games", "regret"], [1, 2], 30.0)
    assert [leg.name for leg in legs[:4]] == ["ga-games-1", "ga-regret-1", "cmaes-games-1", "cmaes-regret-1"]
    assert {leg.seed for leg in legs[4:]} == {2} and all(leg.budget == 30.0 for leg in legs)
    with pytest.raises(InvalidInput, match="no run strategy 'tpe'"):
        bench.agent_legs(["tpe"], ["games"], [1], 30.0)
    with pytest.raises(InvalidInput, match="no fitness 'labels' for an agent"):
        bench.agent_legs(["ga"], ["labels"], [1], 30.0)
    plain = tmp_path / "plain.toml"
    plain.write_text('name = "x"\n[[panel]]\nopponent = "greedy"\ngames = 2\n')
    with pytest.raises(InvalidInput, match=r"plain.toml: no \[individual\] table"):
        bench.load_experiment(str(plain))
    alone = tmp_path / "alone.toml"
    alone.write_text(f'name = "x"\n[individual]\nprogram = "{PLAIN}"\n')
    with pytest.raises(InvalidInput, match=r"alone.toml: no \[\[panel\]\]"):
        bench.load_experiment(str(alone))
    done = cli("evolve", "agent-tuners", str(plain), "--positions", FRESH, "--out", str(tmp_path / "o"))
    assert done.returncode == 2 and "no [individual] table" in done.stderr and "Traceback" not in done.stderr
    assert not os.path.exists(str(tmp_path / "o"))  # nothing made for a refused experiment


@pytest.mark.fast
def test_the_table_has_the_agent_as_it_is_and_a_row_a_tuner_and_fitness():
    def result(tuner, fitness, seed, held, grade):
        measure = bench.AgentMeasure(bench.Share(150, 200), bench.Share(held, 64), grade)
        return bench.AgentLegResult(bench.AgentLeg(tuner, fitness, seed, 60.0), 3, 61.5, 40.0, {"W": 1.0}, measure)

    results = [result("ga", "games", 1, 40, 90.0), result("ga", "games", 2, 50, 70.0), result("ga", "games", 3, 44, 80)]
    results.append(result("cmaes", "regret", 1, 52, 66.0))
    again = [bench.AgentLegResult.from_json(json.loads(json.dumps(r.to_json()))) for r in results]
    assert again == results
    rows = bench.agent_rows(results)
    assert [(row.tuner, row.fitness, row.seeds) for row in rows] == [
        ("cmaes", "regret", (1,)),
        ("ga", "games", (1, 2, 3)),
    ]
    assert rows[1].held_out == bench.Spread(44 / 64, 40 / 64, 50 / 64) and rows[1].grade == bench.Spread(80, 70, 90)
    assert bench.Spread.of([1.0, 2.0, 4.0, 10.0]).median == 3.0
    start = bench.AgentMeasure(bench.Share(193, 253), bench.Share(47, 64), 95.0)
    table = bench.format_agent_table(start, rows).splitlines()
    assert table[2] == "| the agent as it is | - | - | - | - | 76.3% | 73.4% | 95 |"
    assert table[4] == "| ga | games | 3 | 3 | 62 | 75.0% | 68.8% (62.5%-78.1%) | 80 (70-90) |"


@pytest.mark.slow
def test_the_benchmark_tunes_measures_and_reads_its_legs_back(tmp_path, monkeypatch, capsys):
    """A tiny experiment of examples/plain-python: one CMA-ES leg a fitness, each one generation (the budget
    passed at once), its tuned agent exported, checked and graded; the same command again plays nothing."""
    from evolve.cli import main

    monkeypatch.setattr(program_individual, "check_probes", lambda *args: None)  # tested on their own, and slow
    experiment = tmp_path / "agent.toml"
    experiment.write_text(TINY_AGENT.format(program=PLAIN))
    assert "[[panel]]" in TINY_AGENT and "[regret]" not in TINY_AGENT
    positions = few_positions(tmp_path, train=4, held_out=3)
    out = str(tmp_path / "bench")
    argv = ["agent-tuners", str(experiment), "--positions", positions, "--budget", "0.01", "--seeds", "1"]
    argv += ["--tuners", "cmaes", "--grade-games", "2", "--jobs", "2", "--out", out, "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [(row["tuner"], row["fitness"]) for row in summary["rows"]] == [("cmaes", "games"), ("cmaes", "regret")]
    legs = [bench.AgentLegResult.from_json(json.loads(line)) for line in open(os.path.join(out, "legs.jsonl"))]
    assert [leg.generations for leg in legs] == [1, 1] and all(leg.cpu_seconds > 0 for leg in legs)
    for leg in legs:
        assert leg.measure.train.won == 4 and leg.measure.held_out.won == 3 and 0 <= leg.measure.grade <= 100
        tuned = os.path.join(out, "agents", leg.leg.name)
        assert os.path.isfile(os.path.join(tuned, "my_player3.py"))
        runs = os.listdir(os.path.join(out, "runs", leg.leg.name))
        best = json.load(open(os.path.join(out, "runs", leg.leg.name, runs[0], "best-constants.json")))
        assert {k: float(v) for k, v in best.items()} == leg.weights  # as the tuned code holds them
    assert summary["start"]["held_out"][1] == 3 and os.path.isfile(os.path.join(out, "table.md"))
    assert main(argv) == 0  # read back: nothing played again
    assert "2 legs read back" in capsys.readouterr().err
    other = [FRESH if arg == positions else arg for arg in argv]
    assert main(other) == 2
    assert "holds the legs of another problem" in capsys.readouterr().err
