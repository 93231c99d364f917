"""Pattern weights (engine/patterns.py): the shapes of the board's 2x2 windows, in the params file, the
evaluation, its compiled twin, ``evolve fit --patterns`` and the tuner benchmark's ``patterns`` leg."""

import json
import random
import subprocess
import sys

import numpy
import pytest

from engine.errors import ParamsError
from engine.features import feature_values, make_evaluator
from engine.native.search import compiled_patterns
from engine.params import DEFAULT_WEIGHTS, default_params, load_params, params_from_dict, params_to_dict, save_params
from engine.patterns import PATTERN_CLASSES, PATTERNS, WINDOWS, pattern_counts, pattern_indices
from engine.position import Position
from engine.symmetry import SYMMETRIES
from evolve.solved import pattern_fit, tuners
from evolve.solved.labels import sample_positions, save_labels
from evolve.solved.pattern_fit import minimise_log_loss
from tests.conftest import HANG, ROOT, cli, random_position, turn

POSITIONS = f"{ROOT}/experiments/regret-20261125/positions-4-11.json.gz"


def _random_patterns(rng):
    return [rng.uniform(-20.0, 20.0) for _ in PATTERNS]


@pytest.mark.fast
def test_the_shapes_are_each_class_s_contents_up_to_the_symmetries_that_keep_its_window():
    # a corner or centre window is kept by one reflection (54 shapes of 81 contents), an edge one by none
    by_class = {c.name: sum(name.split("_")[1] == c.name for name in PATTERNS) for c in PATTERN_CLASSES}
    assert by_class == {"corner": 54, "edge": 81, "centre": 54}
    assert len(WINDOWS) == 16 and len(set(PATTERNS)) == len(PATTERNS) == 189
    assert all(len(name.split("_")[2]) == 4 and set(name.split("_")[2]) <= set("012") for name in PATTERNS)
    assert pattern_counts(0, 0) == [
        4 if name in ("quad_corner_0000", "quad_centre_0000") else 8 if name == "quad_edge_0000" else 0
        for name in PATTERNS
    ]


@pytest.mark.fast
def test_a_position_and_its_seven_images_show_the_same_shapes():
    rng = random.Random(7)
    for _ in range(200):
        position = random_position(rng, 0, 22)
        shapes = pattern_indices(position.own, position.opp)
        assert len(shapes) == 16 and shapes == sorted(shapes)
        for table in SYMMETRIES:
            image = turn(position, table)
            assert pattern_indices(image.own, image.opp) == shapes


@pytest.mark.fast
def test_the_compiled_twin_reads_every_window_as_the_python_does(library):
    rng = random.Random(11)
    for _ in range(2000):
        position = random_position(rng, 0, 24)
        assert compiled_patterns(library, position) == pattern_indices(position.own, position.opp)


@pytest.mark.fast
def test_the_evaluation_adds_each_window_s_shape_weight_and_none_without_them():
    rng = random.Random(3)
    shapes = _random_patterns(rng)
    with_shapes, without = make_evaluator(DEFAULT_WEIGHTS, None, shapes), make_evaluator(DEFAULT_WEIGHTS)
    for _ in range(100):
        position = random_position(rng, 0, 22)
        counts = pattern_counts(position.own, position.opp)
        expected = without(position, 1) + sum(w * n for w, n in zip(shapes, counts))
        assert with_shapes(position, 1) == pytest.approx(expected, abs=1e-9)
    assert without.patterns is None and with_shapes.patterns == tuple(shapes)


def test_the_compiled_search_with_pattern_weights_is_the_pythons_node_for_node(library):
    from engine.native.search import NativeSearcher
    from engine.search import Searcher

    rng = random.Random(5)
    for index in range(40):
        position = random_position(rng, 0, 20)
        shapes = _random_patterns(random.Random(index))
        answers = []
        for kind in (Searcher, NativeSearcher):
            result = kind(make_evaluator(DEFAULT_WEIGHTS, None, shapes), rng=None).iterative(position, 1 + index % 4)
            answers.append((result.move, result.value, result.nodes))
        assert answers[0] == answers[1], (str(position), answers)


@pytest.mark.fast
def test_params_files_carry_pattern_weights_and_refuse_unknown_shapes(tmp_path):
    params = default_params().with_patterns({"quad_centre_1111": 2.5})
    assert params.patterns["quad_centre_1111"] == 2.5 and sum(params.patterns.values()) == 2.5
    path = str(tmp_path / "p.json")
    save_params(path, params)
    again = load_params(path)
    assert again.patterns == params.patterns and again.with_settings(depth=3).patterns == params.patterns
    # Black to move, holding the four points of one centre window: that shape once, 2.5 more
    position = Position.from_picture("..... .XX.. .XX.. ..... .....".replace(" ", "\n"), 1)
    assert pattern_counts(position.own, position.opp)[PATTERNS.index("quad_centre_1111")] == 1
    assert again.evaluator()(position) == pytest.approx(default_params().evaluator()(position) + 2.5)
    assert default_params().patterns is None and "patterns" not in json.loads(
        json.dumps(params_to_dict(default_params()))
    )
    data = json.loads(open(path).read())
    for shapes, words in (
        ({"quad_middle_0000": 1.0}, "unknown shape 'quad_middle_0000'"),
        ({"quad_edge_0000": "x"}, "patterns.quad_edge_0000: expected a number"),
        ([1.0], "'patterns' must be an object"),
    ):
        with pytest.raises(ParamsError, match=words):
            params_from_dict(dict(data, patterns=shapes), "p.json")
    with pytest.raises(ParamsError, match="expected 189 pattern weights, got 3"):
        default_params().with_patterns([1.0, 2.0, 3.0])


def test_a_bundled_agent_plays_with_pattern_weights(tmp_path):
    out = tmp_path / "submission"
    assert cli("littlego", "bundle", str(out)).returncode == 0
    params = load_params(str(out / "params.json")).with_patterns(_random_patterns(random.Random(2)))
    save_params(str(out / "params.json"), params.with_settings(cpu_budget=0.5, cpu_cap=1.0))
    (out / "input.txt").write_text("1\n" + "00000\n" * 5 + "00000\n00000\n00100\n00000\n00000\n")
    (out / "book.json").unlink()  # the evaluation decides this move
    done = subprocess.run([sys.executable, "my_player3.py"], cwd=out, capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    assert "," in (out / "output.txt").read_text() or (out / "output.txt").read_text().strip() == "PASS"


@pytest.mark.fast
def test_the_fit_lowers_the_loss_of_labels_that_pattern_weights_explain():
    # labels drawn from a hidden evaluation with pattern weights: the fit finds a lower loss than the start
    rng = random.Random(1)
    positions = [random_position(rng, 4, 16) for _ in range(400)]
    hidden = _random_patterns(rng)
    rows = numpy.array([list(feature_values(p, 0)) + pattern_counts(p.own, p.opp) for p in positions])
    truth = rows[:, -len(PATTERNS) :].dot(hidden)
    labels = (truth > numpy.median(truth)).astype(float)
    plies = numpy.array([p.moves_played for p in positions])
    start = [DEFAULT_WEIGHTS[name] for name in tuners.FEATURES] + [0.0] * len(PATTERNS)
    bounds = [(-100.0, 100.0)] * len(start)
    seen = []
    weights, result = minimise_log_loss(rows, labels, plies, start, bounds, step=lambda w: seen.append(1) or True)
    assert seen and result.fun < 0.45
    values = rows.dot(weights)
    assert numpy.mean((values > numpy.median(values)) == (labels == 1)) > 0.8


@pytest.mark.slow
def test_evolve_fit_patterns_writes_params_with_pattern_weights(tmp_path):
    texts, _ = sample_positions(150, plies=(10, 14), seed=4)
    labels = [k % 3 % 2 for k in range(len(texts))]  # any labels will do for the plumbing
    path, out = str(tmp_path / "l.json.gz"), str(tmp_path / "fitted.json")
    save_labels(path, list(zip(texts, labels)), {"seed": 4})
    default = str(tmp_path / "start.json")
    save_params(default, default_params())
    done = cli("evolve", "fit", path, "--out", out, "--patterns", "--depth", "4", "--start", default)
    assert done.returncode == 0, done.stderr
    assert "held out" in done.stdout and "pattern weights from" in done.stdout
    params = load_params(out)
    assert params.depth == 4 and len(params.patterns) == len(PATTERNS)
    assert params.provenance["strategy"] == "l-bfgs-b" and params.provenance["fit"]["patterns"] == len(PATTERNS)
    refused = cli("evolve", "fit", path, "--out", str(tmp_path / "x.json"), "--patterns", "--only", "margin")
    assert refused.returncode == 2 and "--only fits one feature's weight, by CMA-ES" in refused.stderr
    refused = cli("evolve", "fit", path, "--out", str(tmp_path / "x.json"), "--generations", "5")
    assert refused.returncode == 2 and "--generations: CMA-ES's" in refused.stderr
    # the pattern fit is the default: the same weights without --patterns
    again = str(tmp_path / "again.json")
    assert cli("evolve", "fit", path, "--out", again, "--depth", "4", "--start", default).returncode == 0
    assert load_params(again).patterns == params.patterns


def test_the_patterns_leg_tunes_the_values_fitness_alone_and_notes_every_tenth():
    problem = tuners.load_problem([POSITIONS], depth=2)
    assert not tuners.tuner_uses("cmaes", "values") and tuners.tuner_uses("patterns", "values")
    assert not tuners.tuner_uses("patterns", "labels")
    values = pattern_fit.values_of(problem.train[:10])
    assert values.features.shape[1] == len(tuners.FEATURES) + len(PATTERNS)
    assert set(values.wins.tolist()) == {0.0, 1.0} and 1.0 in values.wins[:1]  # the won position itself first
    result = tuners.run_leg(problem, tuners.Leg("patterns", "values", 1, 3.0))
    assert len(result.marks) == tuners.MARKS
    assert all(len(mark.weights) == len(tuners.FEATURES) + len(PATTERNS) for mark in result.marks)
    assert all(0.0 <= mark.held_out_share <= 1.0 for mark in result.marks)
