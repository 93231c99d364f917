"""The tuner benchmark (evolve/solved/tuners.py, ``evolve tuners``): its exact ruler, its fitnesses, its legs."""

import json
import random

import numpy
import pytest

from engine.errors import InvalidInput
from engine.native.store import default_store_path
from engine.native.stored_solver import StoredSolver
from engine.ruler.fresh_search import chosen_move
from engine.ruler.measure import measure
from evolve.cli import main as evolve
from evolve.solved import ask_tell, move_labels, tuners
from tests.conftest import ROOT

POSITIONS = f"{ROOT}/experiments/regret-20261125/positions-4-11.json.gz"


@pytest.fixture(scope="module")
def problem():
    return tuners.load_problem([POSITIONS], depth=2)


def test_the_problem_splits_won_positions_and_starts_from_the_hand_set_weights(problem):
    assert problem.train and problem.held_out
    assert not {p.text for p in problem.train} & {p.text for p in problem.held_out}
    assert all(p.won and not p.is_held_out for p in problem.train) and all(
        p.won and p.is_held_out for p in problem.held_out
    )
    assert len(problem.start) == len(problem.bounds) == len(tuners.FEATURES)
    assert all(low <= weight <= high for weight, (low, high) in zip(problem.start, problem.bounds))


@pytest.mark.fast
def test_the_benchmark_scores_a_candidate_as_the_ruler_does(problem):
    """The regret fitness and a leg's held-out marks are ``engine.ruler.measure``'s shares of the
    candidate searched to the problem's depth: the count of positions whose fresh search's move wins."""
    few = problem._replace(train=problem.train[:40], held_out=problem.held_out[:40])
    params = tuners.candidate_params(few.start, few.depth)
    (train,) = measure([tuners.candidate_player(few.start, few.depth)], few.train)
    assert train.kept == sum(chosen_move(params, p.position(), plain=True) in p.winning for p in few.train)
    assert 0 < train.kept < train.won == len(few.train)
    assert tuners.fitness_function(few, "regret", random.Random(1))(few.start) == train.share
    result = tuners.run_leg(few, tuners.Leg("random", "labels", 1, 0.2))
    marks = [mark.weights for mark in result.marks]
    for mark, weights in zip(result.marks, marks):
        searched = tuners.candidate_params(weights, few.depth)
        kept = sum(chosen_move(searched, p.position(), plain=True) in p.winning for p in few.held_out)
        assert mark.held_out_share == kept / len(few.held_out)
    (last,) = measure([tuners.candidate_player(marks[-1], few.depth)], few.held_out)
    assert result.by_ply == last.by_ply and sum(n for _, n in last.by_ply.values()) == len(few.held_out)


@pytest.mark.fast
def test_the_label_loss_gradient_is_the_losss_derivative(problem):
    labels = move_labels.labels_of(problem.train[:40])
    weights = numpy.array(problem.start, dtype=float)
    loss, grad = move_labels.label_loss(weights, labels, gradient=True)
    assert loss == pytest.approx(move_labels.label_loss(weights, labels))
    for gene in (0, 2, 5):
        step = numpy.zeros_like(weights)
        step[gene] = 1e-5
        numeric = (
            move_labels.label_loss(weights + step, labels) - move_labels.label_loss(weights - step, labels)
        ) / 2e-5
        assert grad[gene] == pytest.approx(numeric, rel=1e-4, abs=1e-7)
    # a position whose every move wins costs nothing: the winning moves hold all the probability
    assert loss >= 0


def test_a_legs_candidates_are_noted_at_each_tenth_and_scored_on_the_held_out_split(problem):
    result = tuners.run_leg(problem, tuners.Leg("cmaes", "labels", 3, 0.5))
    assert len(result.marks) == tuners.MARKS
    cpu = [mark.cpu for mark in result.marks]
    assert cpu == sorted(cpu) and cpu[-1] == pytest.approx(0.5)
    assert all(0.0 <= mark.held_out_share <= 1.0 for mark in result.marks)
    assert result.marks[-1].evaluations > 0


@pytest.mark.parametrize("tuner", ["random", "ga", "cmaes", "spsa", "tpe"])
def test_every_tuner_asks_points_in_the_box_and_takes_their_fitnesses(tuner):
    start = [0.5] * 4
    made = ask_tell.TUNER_CLASSES[tuner](start, random.Random(1), budget_hint=10)
    for _ in range(3):
        asked = made.ask()
        assert asked and all(0.0 <= x <= 1.0 for point in asked for x in point)
        made.tell(asked, [-sum((x - 0.8) ** 2 for x in point) for point in asked])  # best at 0.8 everywhere
    assert len(made.recommend()) == 4


@pytest.mark.fast
@pytest.mark.parametrize("tuner", ["ga", "cmaes", "spsa"])
def test_the_benchmarks_run_strategies_are_evolve_runs_own(tuner):
    """The table's ga, cmaes and spsa rows measure the code evolve run runs: the same candidates as a
    RunTuner of the run's config with the same seed, generation after generation."""
    from evolve.tuner import RunTuner, tuner_config

    start = [0.2, 0.5, 0.7]
    made = ask_tell.TUNER_CLASSES[tuner](start, random.Random(4), budget_hint=10)
    seed = random.Random(4).randrange(2**31)
    genes = ["g0", "g1", "g2"]
    config = tuner_config(tuner, start, [(0.0, 1.0)] * 3, genes, seed, 10, ask_tell.RUN_POPULATION)
    assert config.population == ask_tell.RUN_POPULATION and config.strategy == tuner
    asked_by_benchmark = []
    for _ in range(3):
        asked = made.ask()
        asked_by_benchmark.append(asked)
        made.tell(asked, [-sum((x - 0.8) ** 2 for x in point) for point in asked])
    run = RunTuner(config)
    run.seed()
    for asked in asked_by_benchmark:
        candidates = run.ask()
        assert [list(c) for c in candidates] == asked
        run.tell(candidates, [(-sum((x - 0.8) ** 2 for x in c), 0.0) for c in candidates])
    assert run.recommend() == made.recommend()


def test_texel_needs_the_labels_and_spearman_ranks():
    with pytest.raises(ValueError, match="the tuner texel cannot tune on the regret fitness"):
        tuners.run_leg(None, tuners.Leg("texel", "regret", 1, 1.0))
    assert tuners.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert tuners.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert tuners.spearman([1, 2, 2, 3], [1, 2, 2, 3]) == pytest.approx(1.0)


@pytest.mark.slow
def test_the_command_writes_its_table_curves_legs_and_openings(tmp_path, capsys, monkeypatch):
    from evolve.cli import tuners as command

    few = command.won_openings  # the second ruler from 4 of the 273 won openings: seconds, not minutes

    monkeypatch.setattr(command, "won_openings", lambda solver: few(solver)[::70])
    out = tmp_path / "bench"
    words = ["tuners", "--positions", POSITIONS, "--depth", "2", "--budget", "0.3", "--seeds", "1"]
    words += ["--tuners", "random", "texel", "--fitnesses", "labels", "regret", "--jobs", "2", "--out", str(out)]
    assert evolve(words) == 0
    table = capsys.readouterr().out
    assert "| random | labels | 1 |" in table and "| texel | labels | 1 |" in table and "| random | regret |" in table
    assert "| texel | regret" not in table  # texel takes the labels fitness only
    legs = [json.loads(line) for line in (out / "legs.jsonl").read_text().splitlines()]
    assert len(legs) == 3 and all(len(leg["marks"]) == tuners.MARKS for leg in legs)
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["correlations"]) == {"held_out", "regret", "labels", "games", "match", "openings"}
    assert (out / "curves.png").stat().st_size > 0 and (out / "table.md").read_text().strip() == table.strip()
    # the second ruler: the start and each final candidate, once each, against the exact adversary
    played = [json.loads(line) for line in (out / "openings.jsonl").read_text().splitlines()]
    finals = {tuple(leg["marks"][-1]["weights"]) for leg in legs}
    assert {tuple(line["weights"]) for line in played} == finals | {tuners.load_problem([POSITIONS], 2).start}
    assert len(played) == len(finals) + 1 and all(line["of"] == 4 for line in played)
    assert summary["start_openings"]["of"] == 4 and "empty board won" in table
    with StoredSolver(default_store_path(), 18) as adversary:  # the test's own store, grown by the command
        line = played[-1]
        direct = tuners.candidate_openings(line["weights"], 2, adversary, few(adversary)[::70])
    assert direct.to_json() == {key: line[key] for key in ("empty_board", "kept", "of")}
    assert evolve(words[:-2] + ["--tuners", "texel", "--fitnesses", "regret"]) == 2
    assert "no leg: texel tunes the labels fitness only" in capsys.readouterr().err
    # the same command again plays no leg and no candidate: it reads them back from --out, to the same table
    assert evolve(words) == 0
    again = capsys.readouterr()
    assert "3 legs read back" in again.err and again.out.strip() == table.strip()
    assert "against the exact adversary:" not in again.err
    assert evolve(words[:4] + ["3"] + words[5:]) == 2  # another depth: another problem
    assert "holds the legs of another problem" in capsys.readouterr().err


def test_a_line_cut_short_by_a_kill_is_played_again_and_the_next_line_stays_readable(tmp_path):
    from engine.common.json_lines import ResultsFolder
    from evolve.cli import tuners as command

    folder = ResultsFolder(str(tmp_path), {"positions": ["a"], "depth": 2})
    path = tmp_path / "openings.jsonl"
    path.write_text('{"depth": 2, "weights": [1.0], "empty_board": true, "kept": 3, "of": 4}\n{"depth": 2, "wei')
    assert set(command._openings_done(folder, 2, 4)) == {(1.0,)}
    folder.append("openings.jsonl", {"depth": 2, "weights": [2.0], "empty_board": False, "kept": 1, "of": 4})
    found = command._openings_done(folder, 2, 4)
    assert set(found) == {(1.0,), (2.0,)} and found[(2.0,)].kept == 1 and not found[(2.0,)].empty_board
    assert command._openings_done(folder, 3, 4) == {}  # another depth
    assert command._openings_done(folder, 2, 5) == {}  # another set of openings
    assert ResultsFolder(str(tmp_path), {"depth": 2, "positions": ["a"]}).read("openings.jsonl", dict)[0]["kept"] == 3
    with pytest.raises(InvalidInput, match="holds the legs of another problem"):
        ResultsFolder(str(tmp_path), {"positions": ["a"], "depth": 3})
