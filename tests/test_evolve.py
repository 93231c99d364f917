"""Evolution: validated configs, reproducible runs, kill-and-resume, retries, inspection."""

import glob
import gzip
import io
import json
import os
import pickle
import random
import signal
import subprocess
import sys
import time
import typing
from multiprocessing import Pool

import numpy
import pytest
from deap import creator, tools

from engine.common.pools import CpuMeter
from engine.common.runfolder import GENERATIONS
from engine.constants import BLACK, WHITE
from engine.errors import InvalidInput
from engine.features import FEATURES
from engine.params import default_params, load_params, save_params
from engine.play.openings import load_openings
from engine.players.searcher import SEARCHERS, SearcherName, searcher_for
from engine.playout import random_opening
from engine.search import Searcher
from evolve.checkpoint import CHECKPOINT, LEGACY_CHECKPOINT, Checkpoint, _upgrade, load_checkpoint, save_checkpoint
from evolve.config import ConfigError, load_config, repeated_games
from evolve.experiment import config_keys, schema
from evolve.experiment.schema import Config
from evolve.fitness import FitnessGame, FitnessGameError, choose_searcher, make_jobs, run_jobs, safe_play_job
from evolve.genome import make_toolbox, strategy_from_json, strategy_to_json
from evolve.loop import Evolution
from evolve.rounds import fold
from evolve.run_output import CostForecast
from evolve.runs import export_best, format_table, original_win_rate, plot_run, read_generations
from tests.conftest import HANG, ROOT, cli, start_cli, wait_for_run_file, wait_until
from tests.fixtures.old_runs import old_run, old_runs

# flat weights (those shipped on 2026-11-24), a start file that stays put; params.json may be tapered
FLAT = os.path.join(ROOT, "experiments", "centre-20261124", "candidate-params.json")

TINY = """
name = "tiny"
seed = 7
population = 6
generations = 4
strategy = "ga"
depth = 2
jobs = 2

[ga]
hall_of_fame = 2

[[panel]]
opponent = "greedy"
games = 2
random_opening = 2

[[panel]]
opponent = "handset@2"
games = 8
weight = 2.0
random_opening = 3

[self_play]
opponents = 1
games = 2
"""

# What a run records that must not depend on timing or the number of workers.
STABLE = (
    "generation",
    "evaluated",
    "games",
    "best_fitness",
    "best_weights",
    "win_rate",
    "margin",
    "diversity",
    "individuals",
)


def write_config(tmp_path, text=TINY, name="tiny.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def stable(records):
    return [{key: getattr(record, key) for key in STABLE} for record in records]


def evolve_cli(*args, **kwargs):
    return start_cli("evolve", *args, **kwargs)


@pytest.mark.fast
def test_shipped_experiments_are_valid():
    for name in ("smoke", "baseline", "cluster", "strong"):
        config = load_config(os.path.join(ROOT, "experiments", name + ".toml"))
        assert config.name == name and config.panel


# Only the keys without a default, and every table present but empty.
BARE = """
name = "bare"
seed = 1
population = 4
generations = 1

[ga]
[cmaes]
[self_play]
[executor]
[fitness]
[start]

[[panel]]
opponent = "greedy"
games = 2
"""


@pytest.mark.fast
def test_a_config_key_is_one_row_of_its_schema_and_its_default_reaches_the_record(tmp_path):
    config = load_config(write_config(tmp_path, BARE))
    tables = [
        (config, config_keys.TOP_KEYS),
        (config.start, config_keys.START_KEYS),
        (config.panel[0], config_keys.PANEL_KEYS),
    ]
    tables += [(getattr(config, name), table) for name, (table, _) in schema.CONFIG_TABLES.items()]
    for record, table in tables:
        assert record._fields[: len(table)] == tuple(table), type(record).__name__  # the fields are the rows
        for key, row in table.items():
            if row.default is not None:
                assert getattr(record, key) == row.default and type(getattr(record, key)) is row.kind, key
    assert config.self_play.weight == 1.0  # the row's default where [self_play] is there; none without it
    assert load_config(write_config(tmp_path, BARE.replace("[self_play]\n", ""))).self_play.weight == 0.0


@pytest.mark.fast
def test_the_strategy_is_a_closed_set_whose_strings_the_files_keep(tmp_path):
    """The config's strategy is a member of StrategyName, compared as one; the config file, the checkpoint's
    plain data and the run's lines hold its string, and a name outside the set is one clear error."""
    for name in config_keys.STRATEGIES:
        config = load_config(write_config(tmp_path, TINY.replace('strategy = "ga"', f'strategy = "{name}"')))
        assert config.strategy is config_keys.StrategyName(name)
        data = config.to_json()
        assert type(data["strategy"]) is str and data["strategy"] == name and json.loads(json.dumps(data))
        assert Config.from_json(data).strategy is config.strategy
        assert f"{config.strategy}" == str(config.strategy) == name and f"{config.strategy:>6}" == f"{name:>6}"
    with pytest.raises(ConfigError, match="'strategy' = 'nelder-mead' is out of range: 'ga', 'cmaes' or 'spsa'"):
        load_config(write_config(tmp_path, TINY.replace('strategy = "ga"', 'strategy = "nelder-mead"')))
    with pytest.raises(ConfigError, match="'strategy' must be a string, found 3"):
        load_config(write_config(tmp_path, TINY.replace('strategy = "ga"', "strategy = 3")))


@pytest.mark.fast
def test_the_fitness_play_is_a_closed_set_whose_strings_the_files_keep(tmp_path):
    """[fitness] play is a member of PlayMode; the checkpoint's plain data holds its string and reads back the
    member, and a mode outside the set is one clear error."""
    for mode in config_keys.PlayMode:
        text = TINY.replace("[ga]", f'[fitness]\nplay = "{mode}"\n\n[ga]', 1)
        config = load_config(write_config(tmp_path, text))
        assert config.fitness.play is mode
        data = json.loads(json.dumps(config.to_json()))
        assert type(config.to_json()["fitness"]["play"]) is str and data["fitness"]["play"] == mode.value
        assert Config.from_json(data).fitness.play is mode and f"{mode}" == mode.value
    with pytest.raises(ConfigError, match="'fitness.play' = 'fast' is out of range: 'depth'"):
        load_config(write_config(tmp_path, TINY.replace("[ga]", '[fitness]\nplay = "fast"\n\n[ga]', 1)))


@pytest.mark.fast
def test_the_searcher_is_a_closed_set_whose_strings_the_records_keep(tmp_path):
    """The searcher fitness games use is a SearcherName member, written as its string; a name outside the set
    is one clear error."""
    chosen = choose_searcher(config_keys.SearcherChoice.PYTHON)
    assert chosen is SearcherName.PYTHON and json.dumps({"searcher": chosen}) == '{"searcher": "python"}'
    assert f"{chosen}" == str(chosen) == "python" and SEARCHERS == ("native", "python")
    assert searcher_for(SearcherName.PYTHON) is Searcher and searcher_for(SearcherName.NATIVE) is not Searcher
    with pytest.raises(InvalidInput, match="unknown searcher 'cpp' \\(known: native, python\\)"):
        searcher_for("cpp")
    for choice in config_keys.SearcherChoice:  # the config's choice: a member, its string in the checkpoint
        config = load_config(write_config(tmp_path, TINY + f'\n[fitness]\nsearcher = "{choice}"\n'))
        assert config.fitness.searcher is choice and config.to_json()["fitness"]["searcher"] == choice.value
        assert type(config.to_json()["fitness"]["searcher"]) is str
        assert Config.from_json(json.loads(json.dumps(config.to_json()))).fitness.searcher is choice
    with pytest.raises(ConfigError, match="'fitness.searcher' = 'cpp' is out of range: 'auto'"):
        load_config(write_config(tmp_path, TINY + '\n[fitness]\nsearcher = "cpp"\n'))


@pytest.mark.fast
def test_each_record_declares_a_field_of_each_row_of_its_table_in_order_and_of_its_type():
    # The records are written out in class syntax; each table's rows are their first fields, of the rows'
    # types, and only the fields named here follow them (what validation derives, or the config's tables).
    tables = {name: record for name, (_, record) in schema.CONFIG_TABLES.items()}
    records = [
        (schema.GaSettings, config_keys.GA_KEYS, ()),
        (schema.CmaesSettings, config_keys.CMAES_KEYS, ()),
        (schema.SpsaSettings, config_keys.SPSA_KEYS, ()),
        (schema.SelfPlay, config_keys.SELF_PLAY_KEYS, ()),
        (schema.ExecutorSettings, config_keys.EXECUTOR_KEYS, ()),
        (schema.FitnessSettings, config_keys.FITNESS_KEYS, ("search",)),
        (schema.RegretSettings, config_keys.REGRET_KEYS, ("digest", "won")),
        (schema.PanelEntry, config_keys.PANEL_KEYS, ()),
        (schema.Start, config_keys.START_KEYS, ("params", "weights", "free", "parts", "base")),
        (schema.ProgramIndividual, config_keys.INDIVIDUAL_KEYS, ("folder", "base", "fingerprint", "constants")),
        (Config, config_keys.TOP_KEYS, (*tables, "start", "panel", "genes", "bounds", "individual", "regret")),
    ]
    for record, table, more in records:
        assert record._fields == tuple(table) + more, record.__name__
        assert all(type(row) is config_keys.ConfigKey for row in table.values()), record.__name__  # one row type
        hints = typing.get_type_hints(record)
        assert {key: hints[key] for key in table} == {key: row.kind for key, row in table.items()}, record
    hints = typing.get_type_hints(Config)
    assert {name: hints[name] for name in tables} == tables  # a table's field holds its record


@pytest.mark.fast
def test_a_checkpoint_is_json_data_that_reads_back_as_the_records(tmp_path):
    config = load_config(write_config(tmp_path))
    best = creator.Individual([0.5] * len(config.genes))
    best.fitness.values = (0.75, 1.5)
    halloffame = tools.HallOfFame(2)
    halloffame.insert(best)
    logbook = tools.Logbook()
    logbook.record(gen=0, best=0.75)
    checkpoint = Checkpoint(
        config=config,
        generation=0,
        population=[best],
        halloffame=halloffame,
        logbook=logbook,
        records=[],
        strategy=None,
        random_state=random.Random(1).getstate(),
        numpy_state=numpy.random.RandomState(1).get_state(),
    )
    save_checkpoint(str(tmp_path), checkpoint)
    kept = json.load(open(tmp_path / CHECKPOINT))  # JSON: no class of ours, nor anyone's
    assert kept["config"] == config.to_json() and kept["population"] == [{"genes": list(best), "fitness": [0.75, 1.5]}]
    read = load_checkpoint(str(tmp_path))
    assert read.config == config == Config.from_json(config.to_json())
    assert [(list(ind), ind.fitness.values) for ind in read.population + list(read.halloffame)] == [
        (list(best), best.fitness.values)
    ] * 2
    assert list(read.logbook) == list(logbook) and read.halloffame.maxsize == 2
    assert read.random_state == checkpoint.random_state
    assert all(numpy.array_equal(a, b) for a, b in zip(read.numpy_state, checkpoint.numpy_state))


@pytest.mark.parametrize("name", sorted(old_runs()))
def test_every_kept_checkpoint_reads_back_its_config_as_it_was(tmp_path, name):
    # Checkpoints of runs from before the record kept the config as a dict (some from before keys it
    # has now, which _upgrade supplies): each reads back as a Config holding exactly what was kept.
    path = old_run(str(tmp_path / "run"), name)
    with open(os.path.join(path, LEGACY_CHECKPOINT), "rb") as handle:
        kept = _upgrade(pickle.load(handle)["config"])
    assert kept == _upgrade(old_runs()[name]["config"])
    config = load_checkpoint(path).config
    data = config.to_json()
    assert isinstance(config, Config) and {key: data[key] for key in kept} == kept
    assert all(
        data[table] == config_keys.defaults(keys)
        for table, (keys, _) in schema.CONFIG_TABLES.items()
        if table not in kept
    )


@pytest.mark.fast
@pytest.mark.parametrize(
    "change, words",
    [
        (lambda t: t.replace("seed = 7", "seed = 7\ncolour = 1"), "unknown key 'colour'"),
        (lambda t: t.replace("population = 6", "population = 'six'"), "'population' must be an integer"),
        (lambda t: t.replace("population = 6", "population = 1"), "'population' = 1 is out of range"),
        (lambda t: t.replace("depth = 2\n", "depth = 13\n"), "'depth' = 13"),
        (lambda t: t.replace("seed = 7\n", ""), "missing key 'seed'"),
        (
            lambda t: t.replace('opponent = "greedy"', 'opponent = "grumpy"'),
            "panel[0].opponent: unknown player 'grumpy'",
        ),
        (lambda t: t.replace("games = 2\nrandom_opening = 2", "games = 3\nrandom_opening = 2"), "'panel[0].games' = 3"),
        (lambda t: t.replace("hall_of_fame = 2", "hall_of_fame = 2\nelitism = 1"), "unknown key 'ga.elitism'"),
        (lambda t: t + "\n[bounds]\nmargin = [5, 1]\n", "'bounds.margin' must be [low, high]"),
        (lambda t: t + "\n[bounds]\nspeed = [0, 1]\n", "'bounds.speed' is not a feature"),
        (lambda t: t.replace("[ga]", "[ga\n"), "not valid TOML"),
        (lambda t: t.replace('opponent = "greedy"', 'opponent = "agent@12"'), "would search to depth 12"),
        (
            lambda t: t.replace(
                "weight = 2.0\nrandom_opening = 3", "weight = 2.0\nrandom_opening = 3\nwon_side = true"
            ),
            "panel[1].won_side needs random_opening = 2",
        ),
        (lambda t: t.replace("random_opening = 2", "random_opening = 2\nwon_side = 1"), "must be true or false"),
    ],
)
def test_bad_configs_name_the_key_and_the_file(tmp_path, change, words):
    path = write_config(tmp_path, change(TINY))
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert words in str(error.value) and path in str(error.value)


def test_a_bad_config_creates_nothing_and_prints_no_traceback(tmp_path):
    path = write_config(tmp_path, TINY.replace("depth = 2", "depth = 'deep'"))
    process = evolve_cli("run", path, "--runs-dir", str(tmp_path / "runs"))
    out, err = process.communicate(timeout=HANG)
    assert process.returncode == 2 and "'depth' must be an integer" in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists()


@pytest.mark.fast
def test_all_individuals_of_a_generation_meet_the_same_games(tmp_path):
    config = load_config(write_config(tmp_path))
    jobs = make_jobs(
        [[1.0] * len(FEATURES), [2.0] * len(FEATURES)],
        config,
        generation_seed=99,
        self_play_opponents=[[0.5] * len(FEATURES)],
    )
    first = [(j.opponent, j.game, j.seed, j.opening_seed) for j in jobs if j.individual == 0]
    second = [(j.opponent, j.game, j.seed, j.opening_seed) for j in jobs if j.individual == 1]
    assert first == second
    # Each opening is met as Black (even game) and as White (odd game).
    for a, b in zip(first[::2], first[1::2]):
        assert a[3] == b[3] and a[1] % 2 == 0 and b[1] == a[1] + 1


@pytest.mark.fast
def test_a_won_side_panel_plays_each_opening_in_the_colour_it_leaves_won(tmp_path):
    config = load_config(
        write_config(
            tmp_path, TINY.replace("games = 2\nrandom_opening = 2", "games = 40\nrandom_opening = 2\nwon_side = true")
        )
    )
    jobs = [
        j for j in make_jobs([[1.0] * len(FEATURES)], config, generation_seed=5, self_play_opponents=[]) if j.group == 0
    ]
    table = load_openings()
    assert len(jobs) == 40 and len({j.opening_seed for j in jobs}) == 40  # an opening a game
    for job in jobs:
        position, _ = random_opening(2, job.opening_seed)
        assert job.colour == table.winner(position) and job.plays_black == (job.colour == BLACK)
    assert {j.colour for j in jobs} == {BLACK, WHITE}  # 40 openings: both sides are won somewhere
    # fold counts each game in the colour played
    outcomes = [(1.0, 1.0)] * len(jobs)
    ((_, report),) = fold(jobs, outcomes, 1, [1.0])
    assert report["black_win_rate"] == report["white_win_rate"] == 1.0


def test_same_seed_same_run_whatever_the_workers(tmp_path):
    config = write_config(tmp_path, TINY.replace("generations = 4", "generations = 2"))
    runs = []
    for workers in (1, 2):
        evolution = Evolution.create(
            config, runs_dir=str(tmp_path / f"w{workers}"), jobs=workers, progress=False, out=open(os.devnull, "w")
        )
        records = read_generations(evolution.run())
        assert all(record.cpu_seconds > 0 for record in records)  # the workers' CPU, whatever their number
        runs.append(stable(records))
    assert runs[0] == runs[1]


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_same_generations(tmp_path):
    # The Python searcher: slow enough for the kill to land in the middle of the run.
    config = write_config(tmp_path, TINY + '\n[fitness]\nsearcher = "python"\n')
    reference = Evolution.create(
        config, runs_dir=str(tmp_path / "reference"), jobs=1, progress=False, out=open(os.devnull, "w")
    ).run()
    expected = stable(read_generations(reference))
    assert len(expected) == 5

    process = evolve_cli(
        "run", config, "--runs-dir", str(tmp_path / "killed"), "--jobs", "2", "--no-progress", start_new_session=True
    )
    run_dir = wait_for_run_file(tmp_path / "killed", GENERATIONS, process)
    path = os.path.join(run_dir, GENERATIONS)
    wait_until(lambda: len(open(path).read().splitlines()) >= 2, "two generations were written", process, poll=0.02)
    time.sleep(0.3)  # into the next generation's games
    os.killpg(process.pid, signal.SIGKILL)  # the run and its workers, without warning
    process.communicate()
    done = read_generations(run_dir)
    assert 2 <= len(done) < 5  # it really was cut off

    resumed = evolve_cli("resume", run_dir, "--jobs", "2", "--no-progress")
    out, err = resumed.communicate(timeout=HANG)
    assert resumed.returncode == 0, err
    assert stable(read_generations(run_dir)) == expected


SPIN = "import time\nstart = time.process_time()\nwhile time.process_time() - start < {}: pass\n"


def spin_job(seconds):
    """A job that spends ``seconds`` of CPU in its worker, as much in a child process it waits for, and as much
    in one that is still running when the job ends (as a compiled solver kept for the next job is)."""
    exec(SPIN.format(seconds))
    subprocess.run([sys.executable, "-c", SPIN.format(seconds)], check=True)
    kept = subprocess.Popen(
        [sys.executable, "-c", SPIN.format(seconds) + "print(flush=True)\ntime.sleep(5)\n"], stdout=subprocess.PIPE
    )
    kept.stdout.readline()  # its CPU spent; it lives on
    return (1.0, 0.0)


def test_the_meter_adds_up_the_cpu_the_workers_and_the_processes_under_them_spent():
    meter = CpuMeter()
    with Pool(2) as pool:
        outcomes = run_jobs(pool.imap, [0.3, 0.3, 0.3], function=spin_job, meter=meter)
    assert outcomes == [(1.0, 0.0)] * 3
    # 0.9 s a job: a third in the worker, a third in each child; the interpreters' start-up adds a little
    assert 2.7 <= meter.seconds < 4.5


@pytest.mark.fast
def test_the_cost_is_said_once_after_every_worker_has_finished_games_with_what_would_fit_an_hour(monkeypatch):
    import io

    from evolve import run_output

    clock = [1000.0]
    monkeypatch.setattr(run_output.time, "time", lambda: clock[0])
    out = io.StringIO()
    forecast = CostForecast(games=96, individuals=8, workers=2, generations=11, out=out, description="local pool")
    for _ in range(3):  # under 2 games a worker: not yet
        clock[0] += 10.0
        forecast.game(1)
    assert out.getvalue() == ""
    clock[0] += 10.0
    forecast.game(1)  # 4 games in 40 s on 2 workers: 20 s a game, 960 s a generation, 11 generations
    said = out.getvalue()
    assert said.startswith("cost, from the first 4 games: 96 games in this generation (12 an individual), 20.00 s a")
    assert (
        "on each of 2 workers (local pool): about 16 min 00 s a generation of as many and 2 h 56 min for the 11" in said
    )
    assert "to fit an hour, a game would have to take 6.82 s: a move's budget 2.9 times smaller" in said
    assert "at most 0.57 s a move (a game holds 12 of its moves)" in said
    forecast.game(50)
    assert out.getvalue() == said  # once
    short = io.StringIO()
    CostForecast(games=3, individuals=3, workers=2, generations=1, out=short, description="local pool").game(3)
    assert "3 games in this generation (1 an individual)" in short.getvalue() and "fit an hour" not in short.getvalue()
    # A verdict game has the agent on both sides: twice a panel game's 20 s, on 2 workers.
    verdict = io.StringIO()
    ahead = CostForecast(
        games=4, individuals=2, workers=2, generations=1, out=verdict, description="local pool", verdict_games=10
    )
    clock[0] += 40.0
    ahead.game(4)
    assert (
        "about 40 s a generation of as many and 4 min 00 s for the 1 generation to play and the verdict's 10"
        in verdict.getvalue()
    )


@pytest.mark.fast
def test_the_cost_of_positions_is_said_in_a_run_without_games_and_beside_the_games_of_one_with_them(monkeypatch):
    import io

    from evolve import run_output

    clock = [1000.0]
    monkeypatch.setattr(run_output.time, "time", lambda: clock[0])
    # [regret] alone: 8 individuals x 30 fitness positions, 16 held out for the best; no games at all
    out = io.StringIO()
    alone = CostForecast(0, 8, 2, 5, out, "local pool", positions=256, held_out_won=16)
    clock[0] += 24.0
    alone.position(24)
    assert out.getvalue() == ""  # under a tenth of the generation's positions: not yet
    clock[0] += 1.0
    alone.position(1)  # 25 positions in 25 s on 2 workers: 2 s a position, 256 s a generation, 5 of them
    said = out.getvalue()
    assert said.startswith(
        "cost, from the first 25 positions: 256 positions in this generation (30 an individual, 16 held out for "
        "the best), 2.00 s a position on each of 2 workers (local pool): about 4 min 16 s a generation"
    )
    assert "21 min 20 s for the 5 generations to play" in said and "fit an hour" not in said
    alone.position(100)
    assert out.getvalue() == said  # once
    # both: the positions come first (100 in 50 s), then the games (4 in 40 s after the last position)
    both_out = io.StringIO()
    both = CostForecast(96, 8, 2, 11, both_out, "local pool", positions=100)
    clock[0] += 50.0
    both.position(100)
    assert both_out.getvalue() == ""  # a run with games says its cost at its first games
    clock[0] += 40.0
    both.game(4)
    said = both_out.getvalue()
    assert said.startswith("cost, from the first 100 positions and 4 games: 100 positions in this generation")
    assert "1.00 s a position and 96 games in this generation (12 an individual), 20.00 s a game" in said
    # 50 s of positions and 960 s of games a generation: 16 min 50 s, 11 of them past an hour
    assert "about 16 min 50 s a generation of as many" in said
    assert "a move's budget would have to be 3.1 times smaller" in said
    # generation 0 of CMA-ES: 4 individuals, each later generation 6 (2 elites again); 16 held-out positions
    # (2 s each on 2 workers: 16 s a generation) stay as they are, the rest grows by half
    sized_out = io.StringIO()
    sized = CostForecast(0, 4, 2, 3, sized_out, "local pool", positions=16 + 4 * 30, held_out_won=16, later=6)
    clock[0] += 13.0
    sized.position(13)
    said = sized_out.getvalue()
    # 136 s a generation of 4: 120 s of fitness positions, 16 of held-out ones; a later one 16 + 180 s
    assert "about 2 min 16 s a generation of as many (each later one measures 6 individuals, the elites" in said
    assert "again: about 3 min 16 s) and 8 min 48 s for the 3 generations to play" in said


@pytest.mark.fast
def test_a_failing_job_is_retried_once():
    job = FitnessGame(0, tuple([1.0] * len(FEATURES)), "random", 0, 0, 3, 4, 0, 1)
    calls = []

    def flaky_map(function, jobs):
        jobs = list(jobs)
        calls.append(len(jobs))
        if len(calls) == 1:
            return ["Traceback: worker lost"] + [function(j) for j in jobs[1:]]
        return [function(j) for j in jobs]

    outcomes = run_jobs(flaky_map, [job, job])
    assert calls == [2, 1] and all(isinstance(o, tuple) for o in outcomes)


@pytest.mark.fast
def test_a_job_failing_twice_stops_the_run_naming_individual_and_seed():
    job = FitnessGame(4, tuple([1.0] * len(FEATURES)), "cmd:/no/such/player", 0, 1, 12345, 4, 0, 1)
    with pytest.raises(FitnessGameError) as error:
        run_jobs(lambda function, jobs: [function(j) for j in jobs], [job])
    assert "individual 4" in str(error.value) and "seed 12345" in str(error.value)
    assert isinstance(safe_play_job(job), str)


def test_after_a_failed_generation_the_checkpoint_still_resumes(tmp_path, monkeypatch):
    config = write_config(tmp_path, TINY.replace("generations = 4", "generations = 2"))
    quiet = open(os.devnull, "w")
    evolution = Evolution.create(config, runs_dir=str(tmp_path / "runs"), jobs=1, progress=False, out=quiet)
    evolution.run(stop_after=1)  # generation 0 only
    import evolve.fitness

    def broken(job):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(evolve.fitness, "play_job", broken)
    with pytest.raises(FitnessGameError, match="disk on fire"):
        Evolution.resume(evolution.run_dir, jobs=1, progress=False, out=quiet).run()
    monkeypatch.undo()
    assert len(read_generations(evolution.run_dir)) == 1
    Evolution.resume(evolution.run_dir, jobs=1, progress=False, out=quiet).run()
    assert [r.generation for r in read_generations(evolution.run_dir)] == [0, 1, 2]


def test_log_plot_and_export_a_run(tmp_path):
    config = write_config(tmp_path, TINY.replace("generations = 4", "generations = 1"))
    run_dir = Evolution.create(
        config, runs_dir=str(tmp_path / "runs"), jobs=2, progress=False, out=open(os.devnull, "w")
    ).run()
    table = format_table(read_generations(run_dir))
    assert table.splitlines()[0].split()[:3] == ["gen", "best", "win"] and len(table.splitlines()) == 3
    images = plot_run(run_dir)
    assert original_win_rate(run_dir, read_generations(run_dir)) is None  # started from no weights of its own
    assert [os.path.basename(p) for p in images] == ["fitness.png", "weights.png"]
    assert all(open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n" for p in images)
    target = str(tmp_path / "params.json")
    export_best(run_dir, target)
    params = load_params(target)
    assert params.provenance["source"] == "evolved" and params.provenance["generation"] == 1
    assert params.provenance["run"] == os.path.basename(run_dir)
    best = read_generations(run_dir)[-1]
    assert params.weights == best.best_weights
    assert params.provenance["fitness"]["win_rate"] == best.best_fitness[0]


def test_log_shows_the_finished_generations_while_one_is_being_written(tmp_path):
    config = write_config(tmp_path, TINY.replace("generations = 4", "generations = 1"))
    run_dir = Evolution.create(
        config, runs_dir=str(tmp_path / "runs"), jobs=1, progress=False, out=open(os.devnull, "w")
    ).run()
    path = os.path.join(run_dir, GENERATIONS)
    whole = open(path).read()
    with open(path, "a") as handle:  # a writer in the middle of its line
        handle.write(whole.splitlines()[-1][:40])
    process = evolve_cli("log", run_dir)
    out, err = process.communicate(timeout=HANG)
    assert process.returncode == 0, err
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["0", "1"]
    with open(path, "w") as handle:  # damage before the last line stays an error
        handle.write("{not json\n" + whole)
    process = evolve_cli("log", run_dir)
    _, err = process.communicate(timeout=HANG)
    assert process.returncode == 2 and "generations.jsonl:1: not a JSON line" in err and "Traceback" not in err


def test_cli_log_json_and_missing_run(tmp_path):
    process = evolve_cli("log", str(tmp_path / "nothing"))
    _, err = process.communicate(timeout=HANG)
    assert process.returncode == 2 and "no such run folder" in err and "Traceback" not in err


CMAES = """
name = "cma"
seed = 3
population = 6
generations = 3
strategy = "cmaes"
depth = 1

[cmaes]
sigma = 0.2
hall_of_fame = 2

[[panel]]
opponent = "greedy"
games = 4
"""


def as_pickled_before_json(run_dir):
    """Replace a run's checkpoint by the pickle a run wrote before checkpoints were JSON."""
    checkpoint = load_checkpoint(run_dir)
    state = dict(
        checkpoint._asdict(),
        config=checkpoint.config.to_json(),
        records=[record.to_json() for record in checkpoint.records],
    )
    with open(os.path.join(run_dir, LEGACY_CHECKPOINT), "wb") as handle:
        pickle.dump(state, handle, protocol=pickle.HIGHEST_PROTOCOL)
    os.remove(os.path.join(run_dir, CHECKPOINT))


@pytest.mark.parametrize("kept_as", ["json", "pickle"])
def test_cmaes_stopped_and_resumed_matches_an_uninterrupted_run(tmp_path, kept_as):
    # Its arrays, sigma and numpy's generator as a checkpoint keeps them; from a pickled checkpoint of a run
    # from before JSON (read admitting its classes alone), the same, its next checkpoint JSON.
    config = write_config(tmp_path, CMAES, "cma.toml")
    quiet = open(os.devnull, "w")
    whole = Evolution.create(config, runs_dir=str(tmp_path / "whole"), jobs=2, progress=False, out=quiet).run()
    stopped = Evolution.create(config, runs_dir=str(tmp_path / "stopped"), jobs=1, progress=False, out=quiet)
    stopped.run(stop_after=2)
    assert len(read_generations(stopped.run_dir)) == 2
    if kept_as == "pickle":
        as_pickled_before_json(stopped.run_dir)
    Evolution.resume(stopped.run_dir, jobs=2, progress=False, out=quiet).run()
    assert stable(read_generations(stopped.run_dir)) == stable(read_generations(whole))
    assert sorted(name for name in os.listdir(stopped.run_dir) if name.startswith("checkpoint")) == [CHECKPOINT]


@pytest.mark.fast
def test_a_cmaes_state_kept_as_json_is_every_field_of_deaps_as_it_was(tmp_path):
    config = load_config(write_config(tmp_path, CMAES, "cma.toml"))
    _, strategy = make_toolbox(config)
    numpy.random.seed(1)
    population = strategy.generate(creator.Individual)
    for rank, individual in enumerate(population):
        individual.fitness.values = (rank / len(population), 0.0)
    strategy.update(population)
    kept = strategy_from_json("cmaes", json.loads(json.dumps(strategy_to_json(strategy))), len(config.genes))
    assert vars(kept).keys() == vars(strategy).keys()
    for name, value in vars(strategy).items():
        other = vars(kept)[name]
        if isinstance(value, numpy.ndarray):  # equal, and laid out alike, so that products come out the same
            assert numpy.array_equal(value, other) and numpy.isfortran(value) == numpy.isfortran(other), name
        elif name == "params":
            assert other["lambda_"] == value["lambda_"] and numpy.array_equal(other["cmatrix"], value["cmatrix"])
        else:
            assert other == value and type(other) in (int, float), name


@pytest.mark.slow
def test_the_same_seed_gives_the_same_generations_on_either_searcher(tmp_path):
    """The compiled searcher plays the same moves: a run is the same run on either searcher."""
    from engine.native.search import native_available

    if not native_available():
        pytest.skip("no C compiler: the native searcher falls back to Python")
    runs = {}
    for searcher in ("native", "python"):
        # depth 3 (so that pruning and move order matter), one generation of variation, and fewer
        # games against the hand-set weights: the Python searcher's games are what this test waits on
        text = (
            TINY.replace("depth = 2", "depth = 3")
            .replace("generations = 4", "generations = 1")
            .replace("games = 8\nweight = 2.0", "games = 2\nweight = 2.0")
        )
        config = write_config(tmp_path, text + f'\n[fitness]\nsearcher = "{searcher}"\n', searcher + ".toml")
        run_dir = Evolution.create(
            config, runs_dir=str(tmp_path / searcher), jobs=1, progress=False, out=open(os.devnull, "w")
        ).run()
        runs[searcher] = read_generations(run_dir)
        assert [record.searcher for record in runs[searcher]] == [searcher] * 2
        assert f"searched by the {searcher} searcher" in open(os.path.join(run_dir, "run.log")).read()
    assert stable(runs["native"]) == stable(runs["python"])


@pytest.mark.fast
def test_an_unknown_searcher_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="fitness.searcher"):
        load_config(write_config(tmp_path, TINY + '\n[fitness]\nsearcher = "gpu"\n'))


def test_games_in_rounds_stop_spending_on_the_individuals_already_behind(tmp_path):
    with pytest.raises(ConfigError, match="fitness.rounds"):
        load_config(write_config(tmp_path, TINY + "\n[fitness]\nrounds = 2\n"))  # greedy has 2 games only
    text = (
        TINY.replace("games = 2\nrandom_opening = 2", "games = 8\nrandom_opening = 2")
        .replace("generations = 4", "generations = 1")
        .replace("opponents = 1\ngames = 2", "opponents = 1\ngames = 8")
    )
    played = {}
    for rounds in (1, 4):
        config = write_config(tmp_path, text + f"\n[fitness]\nrounds = {rounds}\nkeep = 0.5\n", f"rounds{rounds}.toml")
        runs = [
            read_generations(
                Evolution.create(
                    config,
                    runs_dir=str(tmp_path / f"r{rounds}-{k}"),
                    jobs=1,
                    progress=False,
                    out=open(os.devnull, "w"),
                ).run()
            )
            for k in range(2)
        ]
        assert stable(runs[0]) == stable(runs[1])  # reproducible
        played[rounds] = [record.games for record in runs[0]]
    # 6 individuals, 8 + 8 panel games and 8 of self-play each: all of them in one round; in four
    # rounds, a quarter each, 6 then 3 then 2 then 2 individuals play.
    assert played[1][1] == 6 * 24 and played[4][1] == (6 + 3 + 2 + 2) * 6  # generation 1: self-play too


@pytest.mark.fast
def test_a_population_can_start_from_params_files(tmp_path):
    shipped = FLAT
    handset = tmp_path / "handset.json"
    save_params(str(handset), default_params())
    text = TINY + f'\n[start]\nparams = ["{shipped}", "{handset}"]\nrandom = 0.25\n'
    config = load_config(write_config(tmp_path, text))
    starts = [[load_params(name).weights[f] for f in FEATURES] for name in (shipped, str(handset))]
    assert config.start.weights == tuple(tuple(row) for row in starts)
    run_dir = Evolution.create(
        write_config(tmp_path, text),
        runs_dir=str(tmp_path / "runs"),
        jobs=1,
        progress=False,
        out=open(os.devnull, "w"),
    ).run(stop_after=1)
    first = [individual["weights"] for individual in read_generations(run_dir)[0].individuals]
    assert first[:2] == starts
    # 6 individuals: the two start weights, three mutated copies of them in turn, one at random.
    for k in (2, 3, 4):
        changed = [a != b for a, b in zip(first[k], starts[k % 2])]
        assert any(changed) and not all(changed), (k, changed)
    assert all(a != b for a, b in zip(first[5], starts[0])) and all(a != b for a, b in zip(first[5], starts[1]))
    assert f"generation 0 starts from {shipped}, {handset}" in open(os.path.join(run_dir, "run.log")).read()
    # CMA-ES samples around their mean.
    toolbox, strategy = make_toolbox(
        load_config(write_config(tmp_path, CMAES + text[text.index("[start]") :], "cma.toml"))
    )
    assert list(strategy.centroid) == pytest.approx([(a + b) / 2 for a, b in zip(*starts)])


@pytest.mark.fast
def test_start_weights_are_read_once_relative_to_the_working_folder(tmp_path, monkeypatch):
    # The params path is relative to the folder evolve runs in (as the panel's specs are), and a
    # run stopped before its first checkpoint resumes from the weights it read when it began,
    # whatever the file holds by then and wherever the resume runs.
    monkeypatch.chdir(tmp_path)
    os.makedirs("weights")
    save_params("weights/start.json", default_params())
    began = [default_params().weights[f] for f in FEATURES]
    config_dir = tmp_path / "configs"
    config_dir.mkdir()
    path = write_config(config_dir, TINY + '\n[start]\nparams = ["weights/start.json"]\n')
    out = open(os.devnull, "w")
    evolution = Evolution.create(path, runs_dir="runs", jobs=1, progress=False, out=out)
    run_dir = os.path.abspath(evolution.run_dir)
    evolution.lock.release()  # stopped before generation 0 was played
    changed = default_params()
    changed.weights["margin"] += 1.0
    save_params("weights/start.json", changed)
    monkeypatch.chdir(config_dir)  # where weights/start.json does not exist
    Evolution.resume(run_dir, jobs=1, progress=False, out=out).run(stop_after=1)
    assert read_generations(run_dir)[0].individuals[0]["weights"] == began


@pytest.mark.fast
@pytest.mark.parametrize(
    "start, words",
    [
        ('params = "params.json"', "'start.params' must be a list"),
        ('params = ["no-such.json"]', "'start.params[0]': no-such.json"),
        ('params = ["params.json"]\nmargin = 2', "unknown key 'start.margin'"),
        ('params = ["params.json"]\nrandom = 2.0', "'start.random' = 2.0 is out of range"),
        ('params = ["{0}", "{0}", "{0}", "{0}", "{0}", "{0}", "{0}"]', "names 7 files, more than the population (6)"),
    ],
)
def test_bad_start_weights_name_the_key(tmp_path, start, words):
    path = write_config(tmp_path, TINY + "\n[start]\n" + start.format(FLAT) + "\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert words in str(error.value) and path in str(error.value)


@pytest.mark.fast
def test_start_weights_outside_the_bounds_are_refused(tmp_path):
    text = TINY + f'\n[start]\nparams = ["{FLAT}"]\n\n[bounds]\nmargin = [0, 5]\n'
    with pytest.raises(ConfigError, match=r"weight margin = 18.45.* is outside 'bounds.margin' = \[0, 5\]"):
        load_config(write_config(tmp_path, text))


@pytest.mark.fast
def test_native_asked_for_without_a_compiler_refuses_and_auto_falls_back_saying_so(tmp_path, monkeypatch, capsys):
    import evolve.cli
    import evolve.fitness
    from engine.native.compiler import NoCompiler

    def no_compiler():
        raise NoCompiler("no C compiler found (set CC, or install gcc): search.c is compiled C")

    import evolve.loop

    monkeypatch.setattr(evolve.fitness, "native_library", no_compiler)
    read = []
    monkeypatch.setattr(evolve.loop, "load_config", lambda path: read.append(path) or load_config(path))
    native = write_config(tmp_path, TINY + '\n[fitness]\nsearcher = "native"\n', "native.toml")
    assert evolve.cli.main(["run", native, "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and 'fitness.searcher = "native"' in err and "no C compiler" in err
    assert not (tmp_path / "runs").exists()  # refused before any run folder is made
    assert read == [native]  # the config is read and checked once
    assert evolve.fitness.choose_searcher("auto") == "python" and "searching in Python" in capsys.readouterr().err
    assert evolve.fitness.choose_searcher("python") == "python"


def copy_run(tmp_path, name):
    """A run folder as the committed run ``name`` left it, from its kept state (tests/fixtures/old_runs.py)."""
    return old_run(str(tmp_path / name.split("-")[0]), name)


@pytest.mark.parametrize("name", ["seeded6-20261123-151627", "tapered6-20261124-042140"])
def test_a_run_begun_before_a_feature_was_added_keeps_its_genes_by_name(tmp_path, capsys, name):
    # seeded6's checkpoint records no gene names (the 11 features of its day); tapered6's records
    # 22. Features added since (centre, cross) play at 0 in its games and in what it exports, by name.
    added = ["centre", "cross"]
    run = copy_run(tmp_path, name)
    evolution = Evolution.resume(run, jobs=1, progress=False)
    try:
        genes = evolution.config.genes
        best = evolution.halloffame[0]
        assert len(best) == len(genes) < len(FEATURES) * (2 if evolution.config.tapered else 1)
        assert not set(added) & set(genes) and list(FEATURES[-len(added) :]) == added
        (job,) = make_jobs([best], evolution.config._replace(panel=evolution.config.panel[:1]), 3, [])[:1]
        by_gene = dict(zip(genes, best))
        played = job.genome.params(job.weights, "the job's individual")  # what the game's searcher weighs
        assert played.weights == {f: by_gene.get(f, 0.0) for f in FEATURES}
        if evolution.config.tapered:
            assert played.endgame == {f: by_gene.get("endgame." + f, 0.0) for f in FEATURES}
    finally:
        evolution.lock.release()
    params = export_best(run, str(tmp_path / "exported.json"))
    assert params.weights == {f: by_gene.get(f, 0.0) for f in FEATURES}
    assert params.provenance["features_added_at_zero"] == added
    assert "no weight for 'centre', 'cross'" in capsys.readouterr().err


def test_start_weights_kept_by_gene_name_resume_after_a_feature_is_added(tmp_path, monkeypatch):
    # A run stopped before its first checkpoint resumes from the start weights it kept, by name,
    # even when the features have grown since (the new one starting at 0).
    monkeypatch.chdir(tmp_path)
    save_params("start.json", default_params())
    path = write_config(tmp_path, TINY + '\n[start]\nparams = ["start.json"]\n')
    out = open(os.devnull, "w")
    evolution = Evolution.create(path, runs_dir="runs", jobs=1, progress=False, out=out)
    run_dir = os.path.abspath(evolution.run_dir)
    evolution.lock.release()
    kept = json.load(open(os.path.join(run_dir, "start.json")))
    assert kept["genes"] == list(FEATURES)
    # as if kept before centre existed: its names without it, its row one shorter
    kept["genes"], kept["weights"] = kept["genes"][:-1], [row[:-1] for row in kept["weights"]]
    open(os.path.join(run_dir, "start.json"), "w").write(json.dumps(kept))
    resumed = Evolution.resume(run_dir, jobs=1, progress=False, out=out)
    try:
        row = resumed.config.start.weights[0]
        assert row == tuple(default_params().weights[f] for f in FEATURES[:-1]) + (0.0,)
    finally:
        resumed.lock.release()


def test_a_checkpoint_from_before_won_side_games_resumes_to_the_same_jobs(tmp_path):
    evolution = Evolution.resume(copy_run(tmp_path, "seeded6-20261123-151627"), jobs=1, progress=False)
    try:
        assert all(entry.won_side is False for entry in evolution.config.panel)
        jobs = make_jobs([[1.0] * 11], evolution.config, generation_seed=3, self_play_opponents=[])
        assert jobs and all(job.colour is None for job in jobs)
    finally:
        evolution.lock.release()


@pytest.mark.fast
def test_as_shipped_games_from_the_empty_board_against_the_shipped_agent_are_warned_of(tmp_path):
    text = TINY.replace("[ga]", '[fitness]\nplay = "as-shipped"\n\n[ga]', 1)
    text = text.replace(
        'opponent = "greedy"\ngames = 2\nrandom_opening = 2', 'opponent = "shipped"\ngames = 4\nrandom_opening = 0'
    )
    warned = repeated_games(load_config(write_config(tmp_path, text)))
    assert len(warned) == 1 and "'shipped': its 4 games start from the empty board" in warned[0]
    assert (
        repeated_games(load_config(write_config(tmp_path, text.replace("random_opening = 0", "random_opening = 2"))))
        == []
    )
    assert repeated_games(load_config(write_config(tmp_path, TINY))) == []  # a fixed depth: the other player varies
    selfish = text.replace("random_opening = 0", "random_opening = 2").replace(
        "opponents = 1\ngames = 2", "opponents = 1\ngames = 4\nrandom_opening = 0"
    )
    warned = repeated_games(load_config(write_config(tmp_path, selfish)))
    assert len(warned) == 1 and warned[0].startswith("[self_play]: its 4 games")


@pytest.mark.fast
def test_a_generation_whose_fitness_no_longer_separates_individuals_is_warned_once(tmp_path, capsys):
    from engine.common.generation_record import WinRates
    from evolve.generations import saturation_warning

    def warning(best, worst, std, noise=0.05):
        return saturation_warning(
            3, WinRates(best=best, mean=(best + worst) / 2, std=std, min=worst, standard_error=noise)
        )

    assert "every individual won every game" in warning(1.0, 1.0, 0.0)
    assert "a harder opponent (handset@2" in warning(1.0, 1.0, 0.0)
    assert "every individual lost every game" in warning(0.0, 0.0, 0.0)
    assert "within one fitness's noise" in warning(0.8, 0.6, 0.02)
    assert warning(0.9, 0.2, 0.2) is None  # the panel still tells them apart
    # A run whose panel every individual beats every game: the warning, once.
    config = tmp_path / "easy.toml"
    config.write_text(
        TINY.replace('opponent = "greedy"\ngames = 2', 'opponent = "random"\ngames = 4')
        .replace('[[panel]]\nopponent = "handset@2"\ngames = 8\nweight = 2.0\nrandom_opening = 3\n', "")
        .replace("[self_play]\nopponents = 1\ngames = 2\n", "")
        .replace("generations = 4", "generations = 3")
    )
    with open(os.devnull, "w") as quiet:
        Evolution.create(str(config), runs_dir=str(tmp_path / "runs"), jobs=1, progress=False, out=quiet).run()
    err = capsys.readouterr().err
    assert err.count("every individual won every game") == 1 and "no longer tells them apart" in err, err
    log = open(os.path.join(str(tmp_path / "runs"), os.listdir(str(tmp_path / "runs"))[0], "run.log")).read()
    assert log.count("no longer tells them apart") >= 2  # the log has each generation it held for


def test_an_extended_run_shows_its_new_target_wherever_it_is_read(tmp_path):
    from engine.ui.web.run_pages import FileCache, list_runs, run_page

    config = write_config(tmp_path, TINY.replace("generations = 4", "generations = 1"))
    with open(os.devnull, "w") as quiet:
        run_dir = Evolution.create(config, runs_dir=str(tmp_path / "runs"), jobs=1, progress=False, out=quiet).run()
        evolution = Evolution.resume(run_dir, jobs=1, progress=False, out=quiet)
        evolution.extend(2)
        evolution.run()
    (summary,) = list_runs(str(tmp_path / "runs"), FileCache())
    assert summary.generations == 3 and summary.planned == 2 and summary.state == "finished"  # 0..2 of 0..2
    page = run_page(str(tmp_path / "runs"), os.path.basename(run_dir), FileCache())
    assert "# extended to 2 generations by evolve resume --generations 2" in page["config"]


def test_the_plots_clip_the_band_draw_the_bounds_and_tick_whole_generations(tmp_path):
    from evolve.config import load_config as load
    from evolve.runs import fitness_figure, plot_run, weights_figure

    config = write_config(tmp_path, TINY.replace("generations = 4", "generations = 2"))
    with open(os.devnull, "w") as quiet:
        run_dir = Evolution.create(config, runs_dir=str(tmp_path / "runs"), jobs=1, progress=False, out=quiet).run()
    records = read_generations(run_dir)
    records[0] = records[0]._replace(win_rate=records[0].win_rate._replace(mean=0.95, std=0.2))  # past 1
    figure = fitness_figure(records, "run")
    band = [c for c in figure.axes[0].collections][0].get_paths()[0].vertices[:, 1]
    assert band.max() <= 1.0 and band.min() >= 0.0
    figure.canvas.draw()
    ticks = [t for t in figure.axes[0].get_xticks() if 0 <= t <= 2]
    assert all(float(t).is_integer() for t in ticks)
    bounds = load(config).bounds
    figure = weights_figure(records, bounds)
    dotted = {round(line.get_ydata()[0], 6) for line in figure.axes[0].get_lines() if line.get_linestyle() == ":"}
    assert {round(end, 6) for pair in bounds.values() for end in pair} <= dotted  # every bound drawn
    assert all(os.path.getsize(path) > 0 for path in plot_run(run_dir, str(tmp_path)))


def test_a_generation_record_writes_the_line_a_run_wrote_and_reads_every_kept_run(tmp_path, capsys):
    from evolve.cli import main

    config = write_config(tmp_path, TINY.replace("generations = 4", "generations = 1"))
    with open(os.devnull, "w") as quiet:
        run_dir = Evolution.create(config, runs_dir=str(tmp_path / "runs"), jobs=1, progress=False, out=quiet).run()
    text = open(os.path.join(run_dir, "generations.jsonl")).read()
    assert "".join(json.dumps(record.to_json()) + "\n" for record in read_generations(run_dir)) == text
    # The committed runs, the oldest from before most of today's keys: each line reads, and is written
    # again with what it held (its searcher under that name), plus the CPU seconds and the standard error
    # it did not record (null).
    # (a run kept as a record may hold its file gzipped: strong-20261122-121153 does)
    kept = sorted(
        path
        for path in glob.glob(os.path.join(ROOT, "experiments", "*", "generations.jsonl*"))
        if os.path.exists(os.path.join(os.path.dirname(path), "config.toml"))  # a run's folder
    )
    assert any("baseline-" in path for path in kept) and any(path.endswith(".gz") for path in kept)
    assert len(kept) >= 5
    for path in kept:
        lines = [json.loads(line) for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path))]
        records = read_generations(os.path.dirname(path))
        assert len(records) == len(lines)
        for record, line in zip(records, lines):
            if "engine" in line:  # the searcher's name before 2026-11-28
                line["searcher"] = line.pop("engine")
            line.setdefault("cpu_seconds", None)
            line["win_rate"].setdefault("standard_error", None)
            assert record.to_json() == line, path
    assert main(["log", os.path.dirname(kept[0]), run_dir]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0] == os.path.dirname(kept[0]) and table[1].split()[:2] == ["gen", "best"]
    assert table[2].split()[3:5] == ["-", "-"]  # the baseline's win rates by colour: not recorded then
    assert sum(line.split()[0] == "gen" for line in table if line.strip()) == 2


@pytest.mark.fast
def test_the_old_key_fitness_engine_still_reads_as_searcher_with_a_warning(tmp_path, capsys, monkeypatch):
    from evolve.cli import build_parser

    path = write_config(tmp_path, TINY + '\n[fitness]\nengine = "python"\n', "old.toml")
    assert load_config(path).fitness.searcher == "python"
    assert (
        "'fitness.engine' is now 'fitness.searcher' (the old name goes in a later release)" in capsys.readouterr().err
    )
    both = write_config(tmp_path, TINY + '\n[fitness]\nengine = "python"\nsearcher = "auto"\n', "both.toml")
    with pytest.raises(ConfigError, match="'fitness.engine' and 'fitness.searcher' are the same key"):
        load_config(both)
    # the configs of the committed runs from before the rename (engine = "native") still load
    monkeypatch.chdir(ROOT)
    kept = os.path.join(ROOT, "experiments", "native6-20261123-124809", "config.toml")
    assert 'engine = "native"' in open(kept).read() and load_config(kept).fitness.searcher == "native"
    # and `evolve bench --engine` is still --searcher
    parsed = build_parser().parse_args(["bench", "--engine", "python", "native"])
    assert parsed.searcher == ["python", "native"]
    assert "--engine is now --searcher" in capsys.readouterr().err


def test_the_old_name_workers_still_reads_as_jobs_with_a_warning(tmp_path, capsys):
    path = tmp_path / "old.toml"
    path.write_text(TINY.replace("jobs = 2", "workers = 2"))
    assert load_config(str(path)).jobs == 2
    assert "'workers' is now 'jobs' (the old name goes in a later release)" in capsys.readouterr().err
    path.write_text(TINY.replace("jobs = 2", "workers = 2\njobs = 1"))
    with pytest.raises(ConfigError, match="'workers' and 'jobs' are the same key"):
        load_config(str(path))
    bench = cli("evolve", "bench", "--workers", "1", "--games", "2", "--depth", "1", "--json")
    assert bench.returncode == 0 and "--workers is now --jobs" in bench.stderr
    assert set(json.loads(bench.stdout)["games_per_second"]) == {"1"}


def test_generations_0_measures_the_first_population_alone(tmp_path):
    config = write_config(tmp_path, TINY.replace("generations = 4", "generations = 0"))
    evolution = Evolution.create(config, runs_dir=str(tmp_path / "runs"), jobs=1, progress=False, out=io.StringIO())
    evolution.run()
    assert [record.generation for record in read_generations(evolution.run_dir)] == [0]
    with pytest.raises(ConfigError, match="0 to 100000"):
        load_config(write_config(tmp_path, TINY.replace("generations = 4", "generations = -1"), "bad.toml"))
