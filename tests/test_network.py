"""The evaluation's hidden layer (engine/network.py): in the params file, the evaluation, the course
agent, and its fit (evolve/solved/network_fit.py, ``evolve network``; the mean of several fits in
network_ensemble.py). Its compiled twin is compared node for node in tests/test_native_search.py."""

import gzip
import json
import math
import os
import random

import numpy
import pytest

from engine.constants import NUM_POINTS
from engine.errors import ParamsError
from engine.features import DENOMINATORS, FEATURES, feature_values, make_evaluator
from engine.native.solver import position_from_text
from engine.network import FRACTION_BITS, MAX_UNITS, WHOLE_VALUE_LIMIT, LayerReader, Network, NetworkError, fixed_layer
from engine.params import default_params, load_params, params_from_dict, params_to_dict, save_params
from engine.play.game import play_game
from engine.players.specs import make_player
from engine.ruler.position_set import load_positions, load_won
from engine.submission.bundle import write_bundle
from engine.symmetry import SYMMETRIES, turn
from evolve.solved import network_ensemble, network_fit
from evolve.solved.fit_figures import TEMPERATURE
from tests.conftest import ROOT, cli, random_position
from tests.test_native_search import random_network

POSITIONS = f"{ROOT}/experiments/regret-20261125/positions-4-11.json.gz"


def _with_network(units=3, seed=1):
    return default_params().with_network(random_network(random.Random(seed), units))


@pytest.mark.fast
def test_a_params_file_carries_the_layer_and_the_evaluation_reads_it(tmp_path):
    params = _with_network()
    save_params(str(tmp_path / "p.json"), params)
    again = load_params(str(tmp_path / "p.json"))
    assert again.network == params.network and again.with_settings(depth=2).network == params.network
    plain, layered = default_params().evaluator(), again.evaluator()
    rng = random.Random(2)
    positions = [random_position(rng, 2, 20) for _ in range(30)]
    assert sum(plain(p) != layered(p) for p in positions) >= 25
    # the layer's value is the engine's own arithmetic: bias, stones, features, tanh, out
    unit, position = params.network.units[0], positions[0]
    values = feature_values(position, 0)
    total = unit.bias
    for point in range(NUM_POINTS):
        total += unit.own[point] if position.own >> point & 1 else 0.0
    for point in range(NUM_POINTS):
        total += unit.opp[point] if position.opp >> point & 1 else 0.0
    for w, x in zip(unit.features, values):
        total += w * x
    one_unit = params.network._replace(units=params.network.units[:1])
    alone = make_evaluator(params.weights, None, None, one_unit)(position) - plain(position)
    assert alone == pytest.approx(unit.out * numpy.tanh(total), abs=1e-9)


def _fixed_point_value(network, position):
    """The layer's value by engine/network.py's arithmetic, written out plainly: each weight in whole
    2**-FRACTION_BITS (a feature's per 1/denominator of its value), whole sums, tanh, out, sum()."""

    def whole(weight, denominator=1):
        return round(math.ldexp(weight / denominator, FRACTION_BITS))

    values = feature_values(position, 0)
    terms = []
    for unit in network.units:
        total = whole(unit.bias)
        for point in range(NUM_POINTS):
            total += whole(unit.own[point]) if position.own >> point & 1 else 0
            total += whole(unit.opp[point]) if position.opp >> point & 1 else 0
        for weight, value, denominator in zip(unit.features, values, DENOMINATORS):
            total += round(value * denominator) * whole(weight, denominator)
        terms.append(unit.out * math.tanh(math.ldexp(total, -FRACTION_BITS)))
    return sum(terms)


@pytest.mark.fast
def test_the_layer_adds_whole_numbers_so_its_value_is_exactly_the_fixed_point_formula():
    network = random_network(random.Random(5), 17)
    rng = random.Random(6)
    positions = [random_position(rng, 0, 24, pass_rate=0.1) for _ in range(200)]
    layered = make_evaluator(default_params().weights, None, None, network)
    plain = make_evaluator(default_params().weights)
    for position in positions:
        assert layered(position) - plain(position) == pytest.approx(_fixed_point_value(network, position), abs=1e-9)
        alone = LayerReader(fixed_layer(network, DENOMINATORS))
        assert alone(position.own, position.opp, feature_values(position, 0)) == _fixed_point_value(network, position)
        # every feature's value is a whole number of 1/denominator: counting it so loses nothing
        for value, denominator in zip(feature_values(position, 0), DENOMINATORS):
            assert abs(value * denominator - round(value * denominator)) < 1e-9
            assert abs(round(value * denominator)) < WHOLE_VALUE_LIMIT


@pytest.mark.fast
def test_a_layer_whose_sums_could_outgrow_64_bits_is_refused():
    unit = random_network(random.Random(1), 1).units[0]
    huge = Network(units=(unit._replace(features=tuple(1e9 if w else 0.0 for w in unit.features)),))
    with pytest.raises(NetworkError, match=r"network\[0\]: its weights are too large"):
        fixed_layer(huge, DENOMINATORS)
    fixed_layer(Network(units=(unit,)), DENOMINATORS)  # a fitted layer's sizes are far from it


@pytest.mark.fast
@pytest.mark.parametrize(
    "change, words",
    [
        (lambda net: net.__setitem__(0, "x"), "network[0]: expected an object"),
        (lambda net: net[1]["own"].pop(), "network[1].own: expected 25 numbers"),
        (lambda net: net[0].pop("bias"), "network[0]: no 'bias'"),
        (lambda net: net[2].__setitem__("size", 1), "network[2]: unknown key 'size'"),
        (lambda net: net[0]["features"].__setitem__("captures", 1.0), "network[0].features.captures"),
        (lambda net: net[0]["features"].__setitem__("liberty", 1.0), "unknown feature 'liberty'"),
        (lambda net: net[0]["opp"].__setitem__(3, "1"), "network[0].opp[3]: expected a finite number"),
        (lambda net: net[1]["own"].__setitem__(2, -1e4), "network[1].own[2]: -10000 is larger than 1000"),
        (lambda net: net[0].__setitem__("bias", 2e3), "network[0].bias: 2000 is larger than 1000"),
        (lambda net: net.extend([net[0]] * MAX_UNITS), f"at most {MAX_UNITS}"),
        (lambda net: net.clear(), "must be a list of 1 to"),
    ],
)
def test_a_bad_layer_is_refused_naming_the_unit_and_key(change, words):
    data = params_to_dict(_with_network())
    change(data["network"])
    with pytest.raises(ParamsError) as error:
        params_from_dict(data, "p.json")
    assert "p.json: " in str(error.value) and words in str(error.value)


@pytest.mark.fast
def test_weights_too_large_are_tamed_with_the_layer_so_the_moves_stay():
    data = params_to_dict(_with_network())
    for unit in data["network"]:
        unit["out"] *= 1000.0
    warned = []
    tamed = params_from_dict(data, "big.json", warned.append)
    assert warned and max(abs(u.out) for u in tamed.network.units) <= 1000.0
    factor = tamed.weights["margin"] / data["weights"]["margin"]
    assert tamed.network.units[0].out == pytest.approx(data["network"][0]["out"] * factor)
    assert tamed.network.units[0].own == tuple(data["network"][0]["own"])  # the units themselves unchanged


@pytest.mark.slow
def test_the_course_agent_plays_a_layered_evaluation(tmp_path):
    params = tmp_path / "network.json"
    save_params(str(params), load_params(os.path.join(ROOT, "params.json")).with_network(_with_network(8).network))
    out = tmp_path / "submission"
    write_bundle(str(out), str(params))
    assert json.loads((out / "params.json").read_text())["network"]
    record = play_game(make_player("random"), make_player("cmd:" + str(out)), seed=3)
    assert record.reason == "end", record.detail


@pytest.fixture(scope="module")
def won():
    found = load_won([POSITIONS])
    return found._replace(train=found.train[:30], held_out=found.held_out[:12])


@pytest.mark.fast
def test_the_fit_folds_its_standardisation_into_weights_the_engine_reads(won):
    rows = network_fit.value_rows(won.train[:12])
    fitted = network_fit.fit_network(network_fit.samples_of(rows), hidden=3, iterations=40, seed=2)
    evaluate = make_evaluator(fitted.weights, None, None, fitted.network)
    losses = []
    for position, captured, win in rows:
        for t in range(len(SYMMETRIES)):
            image = position._replace(own=turn(position.own, t), opp=turn(position.opp, t))
            z = (evaluate(image, captured) + fitted.offset) / TEMPERATURE
            losses.append(numpy.logaddexp(0.0, z) - win * z)
    assert numpy.mean(losses) == pytest.approx(fitted.figures["data_loss"], rel=1e-9)
    assert fitted.figures["data_loss"] < numpy.log(2) / 2  # it learnt something
    assert all(unit.features[FEATURES.index("captures")] == 0.0 for unit in fitted.network.units)
    assert fitted.weights["captures"] == network_fit.UNFITTED_CAPTURES  # no leaf showed a capture's worth
    again = network_fit.fit_network(network_fit.samples_of(rows), hidden=3, iterations=40, seed=2)
    assert again.network == fitted.network and again.weights == fitted.weights  # a seed gives one fit


@pytest.mark.fast
def test_more_positions_join_the_fit_but_never_the_benchmarks_own():
    every = load_positions(POSITIONS)
    won = load_won([POSITIONS])
    assert network_fit.extra_positions(won, [every], lost=False) == []
    lost = network_fit.extra_positions(won, [every], lost=True)
    assert len(lost) == sum(1 for p in every.split(False) if not p.won) > 0
    assert all(not p.winning for p in lost)  # no winning move: lost
    position = position_from_text(lost[0].text)
    rows = network_fit.value_rows(lost[:1])
    assert rows[0] == (position, 0, False) and len(rows) > 1 and all(row.wins for row in rows[1:])
    # a file fitted but not scored gives its training split alone, less the benchmark's positions
    other = f"{ROOT}/experiments/regret-20261127/fresh-3-8.json.gz"
    more = network_fit.extra_positions(won, [every], lost=False, fit_only=[load_positions(other)])
    texts = {p.text for p in won.train + won.held_out}
    training = {p.text for p in load_positions(other).split(False) if p.won}
    assert more and {p.text for p in more} == training - texts
    assert all(p.winning for p in more)


def _small_positions(path, won):
    """A positions file of the won positions ``won`` alone (its train and held-out splits)."""
    with gzip.open(POSITIONS, "rt") as handle:
        data = json.load(handle)
    texts = {p.text for p in won.train + won.held_out}
    data["positions"] = [entry for entry in data["positions"] if entry["position"] in texts]
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    return path


@pytest.mark.slow
def test_the_command_fits_adds_leaves_scores_and_writes_a_params_file(tmp_path, won):
    positions = _small_positions(tmp_path / "small.json.gz", won)
    out = tmp_path / "network.json"
    words = ["network", "--positions", positions, "--out", out, "--depth", "2", "--hidden", "4"]
    result = cli("evolve", *words, "--iterations", "30", "--leaves", "1", "--per", "3", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert "round 0: log loss" in result.stdout and "round 1: log loss" in result.stdout
    params = load_params(str(out))
    (member,) = params.provenance["members"]
    rounds = member["rounds"]
    assert len(params.network.units) == 4 and len(rounds) == 2 and member["seed"] == 1
    assert params.provenance["kept"] == rounds[-1]["kept"]  # one fit: the last round's count
    assert rounds[1]["samples"] > rounds[0]["samples"] and all(r["of"] == len(won.held_out) for r in rounds)
    assert params.weights["captures"] != network_fit.UNFITTED_CAPTURES  # the leaves' captures were fitted
    assert params.depth == load_params(os.path.join(ROOT, "params.json")).depth  # --start's settings
    assert params.provenance["lost"] is True  # the lost positions by default (this file holds none)


@pytest.mark.fast
def test_an_ensemble_evaluates_the_mean_of_its_members():
    members = [
        default_params()
        .with_network(random_network(random.Random(seed), 3))
        ._replace(weights={name: random.Random(seed * 100 + k).uniform(-2, 2) for k, name in enumerate(FEATURES)})
        for seed in (1, 2, 3)
    ]
    joined = network_ensemble.ensemble(members)
    assert len(joined.network.units) == 9
    evaluators = [member.evaluator() for member in members]
    for index in range(20):
        position, captured = random_position(random.Random(index), 0, 20), index % 3
        mean = sum(evaluate(position, captured) for evaluate in evaluators) / len(members)
        assert joined.evaluator()(position, captured) == pytest.approx(mean, rel=1e-9, abs=1e-9)
    with pytest.raises(ValueError, match="flat weights and a layer"):
        network_ensemble.ensemble([default_params(), members[0]])


def test_the_command_fits_an_ensemble_of_seeds_and_scores_their_mean(tmp_path, won):
    positions = _small_positions(tmp_path / "small.json.gz", won)
    out = tmp_path / "ensemble.json"
    words = ["network", "--positions", positions, "--out", out, "--depth", "2", "--hidden", "3", "--leaves", "0"]
    result = cli("evolve", *words, "--iterations", "20", "--seed", "5", "--ensemble", "2", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert "member 2 of 2: seed 6" in result.stdout and "the ensemble of 2: kept" in result.stdout
    params = load_params(str(out))
    assert len(params.network.units) == 6 and [m["seed"] for m in params.provenance["members"]] == [5, 6]
    assert 0 <= params.provenance["kept"] <= params.provenance["of"] == len(won.held_out)
    assert f"kept {params.provenance['kept']} of {len(won.held_out)}" in result.stdout.splitlines()[-1]


def test_the_command_refuses_what_it_cannot_use(tmp_path):
    result = cli("evolve", "network", "--positions", POSITIONS, "--out", tmp_path, "--hidden", "65")
    assert result.returncode == 2 and "--hidden" in result.stderr and "Traceback" not in result.stderr
    result = cli("evolve", "network", "--positions", POSITIONS, "--out", tmp_path / "n.json", "--ensemble", "3")
    assert result.returncode != 0 and "96 units" in result.stderr and "Traceback" not in result.stderr
    result = cli("evolve", "network", "--positions", POSITIONS, "--out", tmp_path)
    assert result.returncode != 0 and "--out names a folder" in result.stderr and "Traceback" not in result.stderr
