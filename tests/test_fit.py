"""Solver-labelled positions (evolve.solved.labels) and the fit of the evaluation to them (evolve.solved.fit)."""

import gzip
import json
import os

import numpy
import pytest

from engine import Position
from engine.book import book_key
from engine.errors import InvalidInput
from engine.features import FEATURES
from engine.native.compiler import NativeError, compiled_solver
from engine.native.solver import describe_position
from engine.params import load_params
from engine.solver import Solver
from engine.symmetry import SYMMETRIES
from evolve.solved import fit, fit_figures
from evolve.solved.labels import LabelsError, label_positions, load_labels, load_many, sample_positions, save_labels
from tests.conftest import ROOT, cli, turn


def evolve_cli(*args):
    return cli("evolve", *args)


@pytest.fixture(scope="module")
def late_positions():
    """Distinct positions at plies 16-19 from the sampling games: quick for either solver."""
    texts, games = sample_positions(24, plies=(16, 19), seed=5)
    assert len(texts) == 24 and games >= 12
    return texts


def test_sampled_positions_are_distinct_under_symmetry_and_in_the_plies_asked(late_positions):
    positions = [Position.from_boards(*_fields(text)) for text in late_positions]
    assert all(16 <= p.moves_played <= 19 and not p.is_over for p in positions)
    assert len(set(book_key(p)[0] for p in positions)) == len(positions)
    again, _ = sample_positions(24, plies=(16, 19), seed=5)
    assert again == late_positions  # the seed decides the games


def _fields(text):
    player, ply, previous, current = text.split()
    return int(player), previous, current, int(ply)


@pytest.mark.fast
def test_the_compiled_labels_agree_with_the_python_solver(late_positions):
    try:
        compiled_solver()
    except NativeError as error:
        pytest.skip(str(error))
    labelled, nodes, interrupted = label_positions(late_positions, jobs=2, table_bits=16)
    assert [text for text, _ in labelled] == late_positions and not interrupted and nodes > 0
    python = Solver()
    for text, won in labelled:
        position = Position.from_boards(*_fields(text))
        assert won == (1 if python.wins(position) else 0), text
    assert 0 < sum(won for _, won in labelled) < len(labelled)  # both outcomes occur


@pytest.mark.fast
def test_a_labels_file_round_trips_and_bad_ones_are_named(tmp_path, late_positions):
    path = str(tmp_path / "labels.json.gz")
    save_labels(path, [(text, k % 2) for k, text in enumerate(late_positions)], {"seed": 5})
    positions, labels, info = load_labels(path)
    assert [describe_position(p) for p in positions] == late_positions
    assert labels == [k % 2 for k in range(len(late_positions))] and info == {"seed": 5}

    def broken(data, raw=None):
        bad = str(tmp_path / "bad.json.gz")
        with open(bad, "wb") as handle:
            handle.write(raw if raw is not None else gzip.compress(json.dumps(data).encode()))
        with pytest.raises(LabelsError) as error:
            load_labels(bad)
        assert "bad.json.gz" in str(error.value)
        return str(error.value)

    assert "gzipped" in broken(None, raw=b"not gzip at all")
    assert "format" in broken({"format": "something else", "positions": []})
    assert "non-empty" in broken({"format": "littlego-labels 1", "positions": []})
    assert "positions[1]" in broken(
        {"format": "littlego-labels 1", "positions": [[late_positions[0], 1], [late_positions[1], 2]]}
    )
    assert "positions[0]: not a position" in broken({"format": "littlego-labels 1", "positions": [["1 2 x y", 0]]})
    with pytest.raises(LabelsError) as error:
        load_labels(str(tmp_path / "missing.json.gz"))
    assert "missing.json.gz" in str(error.value)


@pytest.mark.fast
def test_several_files_count_a_position_once_and_must_agree(tmp_path, late_positions):
    first, second = str(tmp_path / "a.json.gz"), str(tmp_path / "b.json.gz")
    mirrored = describe_position(turn(Position.from_boards(*_fields(late_positions[0])), SYMMETRIES[5]))
    save_labels(first, [(late_positions[0], 1), (late_positions[1], 0)], {})
    save_labels(second, [(mirrored, 1), (late_positions[2], 1)], {})
    positions, labels, infos = load_many([first, second])
    assert len(positions) == 3 and labels == [1, 0, 1] and sorted(infos) == ["a.json.gz", "b.json.gz"]
    save_labels(second, [(mirrored, 0)], {})
    with pytest.raises(LabelsError) as error:
        load_many([first, second])
    assert "b.json.gz" in str(error.value) and "labelled 0 here and 1" in str(error.value)


@pytest.mark.fast
def test_the_held_out_fifth_is_decided_by_the_position_not_its_orientation(late_positions):
    positions = [Position.from_boards(*_fields(text)) for text in late_positions]
    for table in SYMMETRIES:
        assert (fit.held_out_mask([turn(p, table) for p in positions]) == fit.held_out_mask(positions)).all()


@pytest.mark.fast
def test_ranking_accuracy_counts_pairs_within_a_ply_only():
    features = numpy.array([[3.0], [1.0], [2.0], [0.0], [5.0], [-5.0]])
    labels = numpy.array([1, 0, 0, 1, 1, 0])
    plies = numpy.array([6, 6, 6, 6, 7, 7])
    # ply 6: won 3 and 0 against lost 1 and 2: 2 of 4 pairs right; ply 7: 1 of 1
    assert fit_figures.ranking_accuracy([1.0], features, labels, plies) == pytest.approx(3 / 5)
    assert fit_figures.ranking_accuracy([-1.0], features, labels, plies) == pytest.approx(2 / 5)
    ties = numpy.array([[1.0], [1.0]])
    assert fit_figures.ranking_accuracy([1.0], ties, numpy.array([1, 0]), numpy.array([6, 6])) == 0.5
    assert fit_figures.ranking_accuracy([1.0], ties, numpy.array([1, 1]), numpy.array([6, 6])) is None


@pytest.mark.slow
def test_the_fit_recovers_weights_that_explain_the_labels(late_positions):
    """Labels made by hidden weights (plus a constant per ply, which no search sees): the fit,
    started from the shipped weights, ranks the held-out positions as the hidden weights do."""
    texts, _ = sample_positions(600, plies=(8, 14), seed=9)
    positions = [Position.from_boards(*_fields(text)) for text in texts]
    features = fit.feature_matrix(positions)
    unlike_the_shipped = (2.0, 1.0, 8.0, 3.0, -2.0, 4.0, -6.0, 7.0, 5.0, -3.0, 0.0, 4.0, -2.0)
    hidden = numpy.array([unlike_the_shipped[i % len(unlike_the_shipped)] for i in range(len(FEATURES))])
    plies = numpy.array([p.moves_played for p in positions])
    values = features.dot(hidden) + numpy.where(plies % 2 == 0, -3.0, 3.0)
    labels = (values > 0).astype(float)
    start = dict(load_params(os.path.join(ROOT, "params.json")).weights)
    weights, figures = fit.fit_labels(
        positions, labels, [start[name] for name in FEATURES], generations=120, seed=3, report=lambda line: None
    )
    held = fit.held_out_mask(positions)
    vector = [weights[name] for name in FEATURES]
    new = fit_figures.ranking_accuracy(vector, features[held], labels[held], plies[held])
    old = fit_figures.ranking_accuracy([start[name] for name in FEATURES], features[held], labels[held], plies[held])
    assert new > 0.97 and old < 0.9
    assert figures["held_out"]["new"]["ranking_accuracy"] == pytest.approx(new, abs=1e-4)
    assert weights["captures"] == start["captures"]  # fixed: a position cannot show it
    again, _ = fit.fit_labels(
        positions, labels, [start[name] for name in FEATURES], generations=120, seed=3, report=lambda line: None
    )
    assert again == weights  # no noise: the same seed, the same weights


@pytest.mark.slow
def test_fitting_one_feature_alone_keeps_every_other_weight_as_it_was(late_positions):
    """Labels made by the shipped weights with a centre term, on another scale: fitting centre
    alone from the shipped weights (their centre at 0) finds a positive weight for it, leaves every other weight
    exactly as shipped, and guesses the held-out positions better."""
    texts, _ = sample_positions(600, plies=(6, 12), seed=9)
    positions = [Position.from_boards(*_fields(text)) for text in texts]
    features = fit.feature_matrix(positions)
    start = dict(load_params(os.path.join(ROOT, "params.json")).weights, centre=0.0)  # as before it had one
    shipped = numpy.array([start[name] for name in FEATURES])
    hidden = 0.5 * shipped + numpy.array([8.0 if name == "centre" else 0.0 for name in FEATURES])
    plies = numpy.array([p.moves_played for p in positions])
    labels = (features.dot(hidden) + numpy.where(plies % 2 == 0, -2.0, 2.0) > 0).astype(float)
    weights, figures = fit.fit_labels(
        positions, labels, list(shipped), generations=80, seed=3, report=lambda line: None, only=["centre"]
    )
    assert {name: w for name, w in weights.items() if name != "centre"} == {
        name: start[name] for name in FEATURES if name != "centre"
    }
    assert weights["centre"] > 5.0 and start["centre"] == 0.0
    held = figures["held_out"]
    assert held["new"]["log_loss"] < held["start"]["log_loss"]
    assert held["new"]["ranking_accuracy"] >= held["start"]["ranking_accuracy"]
    assert figures["only"] == ["centre"]
    with pytest.raises(InvalidInput, match="--only 'captures'"):
        fit.fit_labels(positions, labels, list(shipped), generations=2, report=lambda line: None, only=["captures"])


def test_evolve_fit_writes_params_with_provenance(tmp_path, late_positions):
    texts, _ = sample_positions(150, plies=(10, 14), seed=4)
    positions = [Position.from_boards(*_fields(text)) for text in texts]
    labels = [k % 3 % 2 for k in range(len(positions))]  # any labels will do for the plumbing
    path, out = str(tmp_path / "l.json.gz"), str(tmp_path / "fitted.json")
    save_labels(path, list(zip(texts, labels)), {"seed": 4})
    done = evolve_cli(
        "fit",
        path,
        "--out",
        out,
        "--method",
        "cmaes",
        "--generations",
        "20",
        "--captures",
        "1.5",
        "--depth",
        "5",
        "--close-stones",
        "0.5",
    )
    assert done.returncode == 0, done.stderr
    assert "held out" in done.stdout and "ranking accuracy" in done.stdout
    params = load_params(out)
    assert params.depth == 5 and params.weights["captures"] == 1.5
    assert params.close_stones == 0.5  # every search setting kept, this one too (it was dropped once)
    assert params.provenance["source"] == "fitted to solver labels" and params.provenance["labels"] == ["l.json.gz"]
    assert params.provenance["fit"]["held_out"]["new"]["positions"] > 0


@pytest.mark.slow
def test_evolve_label_and_fit_refuse_bad_arguments_in_one_line(tmp_path, late_positions):
    one_outcome = str(tmp_path / "one.json.gz")
    save_labels(one_outcome, [(text, 1) for text in late_positions], {})
    for args, words in (
        (["label", "--positions", "0", "--out", "x"], "--positions"),
        (["label", "--positions", "5", "--plies", "9-3", "--out", "x"], "--plies"),
        (["fit", str(tmp_path / "none.json.gz"), "--out", str(tmp_path / "p.json")], "none.json.gz"),
        (["fit", str(tmp_path), "--out", str(tmp_path)], "--out"),
        (["fit", "x.json.gz", "--out", "p.json", "--bound", "inf"], "--bound"),
        (["fit", one_outcome, "--out", str(tmp_path / "p.json")], "both won and lost"),
    ):
        done = evolve_cli(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert words in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_sampling_stops_when_the_plies_hold_no_more_positions():
    texts, games = sample_positions(500, plies=(2, 2), seed=2)
    assert 60 <= len(texts) <= 85  # 85 two-placement positions up to symmetry
    assert all(text.split()[1] == "2" for text in texts)


@pytest.mark.fast
def test_the_one_log_loss_is_a_coins_at_zero_and_its_gradient_is_the_losss_slope():
    logits = numpy.array([-800.0, -2.0, 0.0, 0.5, 3.0, 800.0])  # the ends would overflow a naive sigmoid
    targets = numpy.array([0.0, 1.0, 1.0, 0.0, 0.25, 1.0])
    value, slope = fit_figures.logistic_loss(logits, targets)
    assert numpy.isfinite(value) and numpy.all(numpy.isfinite(slope))
    assert fit_figures.logistic_loss(numpy.zeros(4), numpy.array([0.0, 1.0, 1.0, 0.0]))[0] == pytest.approx(
        numpy.log(2)
    )
    middle = slice(1, 5)  # a central difference where the loss is smooth at the scale of the step
    for k in range(middle.start, middle.stop):
        step = numpy.zeros(len(logits))
        step[k] = 1e-6
        ahead, behind = (fit_figures.logistic_loss(logits + s, targets)[0] for s in (step, -step))
        assert slope[k] == pytest.approx((ahead - behind) / 2e-6, rel=1e-4, abs=1e-9)
    assert slope[0] == pytest.approx(0.0) and slope[-1] == pytest.approx(0.0)  # right and certain: no pull
