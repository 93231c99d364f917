"""Tapered weights: an opening's and an endgame's, interpolated by ply, from the params file to an
evolved, exported agent. (The compiled twin's equality on tapered weights is in test_native_search.)"""

import json
import os
import random
import subprocess
import sys

import pytest

from engine.constants import MAX_MOVES
from engine.errors import ParamsError
from engine.features import FEATURES, feature_values, make_evaluator, weights_by_ply
from engine.params import genome_of, load_params, make_params, params_from_dict, params_to_dict, save_params
from evolve.config import DEFAULT_BOUNDS, HELD_WITHIN, ConfigError, load_config
from evolve.experiment.schema import Config
from evolve.genome import make_toolbox
from evolve.loop import Evolution
from evolve.runs import export_best, read_generations
from tests.conftest import HANG, ROOT, cli, random_position
from tests.test_evolve import TINY, evolve_cli, write_config

# flat weights (those shipped on 2026-11-24); params.json may be tapered
FLAT = os.path.join(ROOT, "experiments", "centre-20261124", "candidate-params.json")


def opening_and_endgame(seed=1):
    rng = random.Random(seed)
    return ({name: rng.uniform(-5, 5) for name in FEATURES}, {name: rng.uniform(-5, 5) for name in FEATURES})


@pytest.mark.fast
def test_the_weights_go_in_a_straight_line_from_the_opening_to_the_endgame():
    opening, endgame = opening_and_endgame()
    table = weights_by_ply(opening, endgame)
    assert len(table) == MAX_MOVES + 1
    assert table[0] == tuple(opening[name] for name in FEATURES)
    assert table[MAX_MOVES] == pytest.approx(tuple(endgame[name] for name in FEATURES))
    middle = MAX_MOVES // 2
    assert table[middle] == pytest.approx(tuple((opening[n] + endgame[n]) / 2 for n in FEATURES))
    assert weights_by_ply(opening) == (table[0],) * (MAX_MOVES + 1)  # flat: the same at every ply


@pytest.mark.fast
def test_a_tapered_evaluator_weighs_each_ply_with_that_plys_weights():
    opening, endgame = opening_and_endgame(2)
    tapered = make_evaluator(opening, endgame)
    rng = random.Random(3)
    for _ in range(60):
        position = random_position(rng, 0, 24)
        ply = min(position.moves_played, MAX_MOVES)
        weights = weights_by_ply(opening, endgame)[ply]
        expected = sum(w * v for w, v in zip(weights, feature_values(position, 2)))
        assert tapered(position, 2) == pytest.approx(expected, abs=1e-9)
    # equal ends: exactly the flat evaluator
    flat, same = make_evaluator(opening), make_evaluator(opening, opening)
    for _ in range(30):
        position = random_position(rng, 0, 24)
        assert flat(position, 1) == same(position, 1)


@pytest.mark.fast
def test_a_tapered_params_file_round_trips_and_a_flat_one_stays_flat(tmp_path):
    opening, endgame = opening_and_endgame(4)
    params = make_params(opening, depth=3, endgame=endgame)
    path = str(tmp_path / "tapered.json")
    save_params(path, params)
    data = json.load(open(path))
    assert set(data["endgame_weights"]) == set(FEATURES)
    again = load_params(path)
    assert again == params and genome_of(again) == [opening[n] for n in FEATURES] + [endgame[n] for n in FEATURES]
    assert make_params(genome_of(again)).endgame == again.endgame  # a genome of twice FEATURES: tapered
    flat = load_params(FLAT)
    assert flat.endgame is None and "endgame_weights" not in params_to_dict(flat)


@pytest.mark.fast
def test_tapered_files_are_checked_as_flat_ones_are():
    opening, endgame = opening_and_endgame(5)
    with pytest.raises(ParamsError, match=r"endgame_weights: unknown feature 'shape'"):
        params_from_dict({"weights": opening, "endgame_weights": dict(endgame, shape=1.0)})
    with pytest.raises(ParamsError, match=r"endgame_weights\.margin: expected a number"):
        params_from_dict({"weights": opening, "endgame_weights": dict(endgame, margin="x")})
    warnings = []
    older = dict(endgame)
    del older["eyes"]
    params = params_from_dict({"weights": opening, "endgame_weights": older}, warn=warnings.append)
    assert params.endgame["eyes"] == 0.0 and params.provenance["features_added_at_zero"] == ["eyes"]
    assert len(warnings) == 1
    # one factor tames both ends: the phases keep their proportions
    big = params_from_dict({"weights": dict(opening, margin=4000.0), "endgame_weights": endgame}, warn=warnings.append)
    factor = big.weights["margin"] / 4000.0
    assert big.endgame["edge"] == pytest.approx(endgame["edge"] * factor)


@pytest.mark.fast
def test_start_free_moves_only_the_genes_it_names_and_holds_the_rest_near_the_start(tmp_path):
    cma = TINY.replace('strategy = "ga"', 'strategy = "cmaes"\ntapered = true').replace("[ga]", "[cmaes]")
    text = cma + f'\n[start]\nparams = ["{FLAT}"]\nfree = ["liberties", "endgame.centre"]\n'
    config = load_config(write_config(tmp_path, text))
    start = dict(zip(config.genes, config.start.weights[0]))
    assert config.start.free == ("liberties", "endgame.centre")
    assert config.bounds["liberties"] == DEFAULT_BOUNDS["liberties"]
    assert config.bounds["endgame.centre"] == DEFAULT_BOUNDS["centre"]
    for gene in set(config.genes) - {"liberties", "endgame.centre"}:
        assert config.bounds[gene] == pytest.approx((start[gene] - HELD_WITHIN, start[gene] + HELD_WITHIN)), gene
    assert Config.from_json(json.loads(json.dumps(config.to_json()))) == config  # as a checkpoint keeps it
    toolbox, _ = make_toolbox(config)
    moved = set()
    for individual in toolbox.generate():
        moved |= {gene for gene, value in zip(config.genes, individual) if abs(value - start[gene]) > HELD_WITHIN}
    assert moved == {"liberties", "endgame.centre"}, moved
    for wrong, words in (
        ('free = ["shape"]', "'start.free' names 'shape', not a gene"),
        ('free = "liberties"', "'start.free' must be a list"),
        ('free = ["liberties"]\n\n[bounds]\nmargin = [0, 30]', "'bounds.margin' bounds a weight 'start.free' holds"),
    ):
        bad = cma + f'\n[start]\nparams = ["{FLAT}"]\n{wrong}\n'
        with pytest.raises(ConfigError, match=words):
            load_config(write_config(tmp_path, bad, "bad.toml"))
    with pytest.raises(ConfigError, match="name 'start.params'"):
        load_config(write_config(tmp_path, cma + '\n[start]\nfree = ["liberties"]\n', "none.toml"))


@pytest.mark.fast
def test_a_tapered_config_has_twice_the_genes_and_starts_flat_files_alike_at_both_ends(tmp_path):
    text = TINY.replace("depth = 2", "depth = 2\ntapered = true")
    text += f'\n[start]\nparams = ["{FLAT}"]\n\n[bounds.endgame]\nmargin = [0, 30]\n'
    config = load_config(write_config(tmp_path, text))
    assert config.genes == tuple(FEATURES) + tuple("endgame." + name for name in FEATURES)
    assert config.bounds["endgame.margin"] == (0.0, 30.0)
    assert config.bounds["endgame.edge"] == config.bounds["edge"]
    flat = genome_of(load_params(FLAT))
    assert config.start.weights == (tuple(flat + flat),)
    with pytest.raises(ConfigError, match="tapered = true"):
        load_config(write_config(tmp_path, TINY + "\n[bounds.endgame]\nmargin = [0, 30]\n", "flat.toml"))
    tapered_file = str(tmp_path / "tapered.json")
    save_params(tapered_file, make_params(*opening_and_endgame(6)[:1], endgame=opening_and_endgame(6)[1]))
    with pytest.raises(ConfigError, match="set tapered = true"):
        load_config(write_config(tmp_path, TINY + f'\n[start]\nparams = ["{tapered_file}"]\n', "f2.toml"))
    with pytest.raises(ConfigError, match="true or false"):
        load_config(write_config(tmp_path, TINY.replace("depth = 2", "depth = 2\ntapered = 1"), "bad.toml"))


def test_a_tapered_run_exports_params_that_a_bundled_agent_plays(tmp_path):
    text = TINY.replace("generations = 4", "generations = 1").replace("depth = 2", "depth = 2\ntapered = true")
    run_dir = Evolution.create(
        write_config(tmp_path, text),
        runs_dir=str(tmp_path / "runs"),
        jobs=1,
        progress=False,
        out=open(os.devnull, "w"),
    ).run()
    best = read_generations(run_dir)[-1]
    assert len(best.best_weights) == 2 * len(FEATURES) and "endgame.margin" in best.best_weights
    target = str(tmp_path / "params.json")
    params = export_best(run_dir, target)
    assert params.endgame is not None
    assert params.endgame["margin"] == best.best_weights["endgame.margin"]
    bundle = str(tmp_path / "bundle")
    done = cli("littlego", "bundle", bundle, "--params", target)
    assert done.returncode == 0, done.stderr
    assert load_params(os.path.join(bundle, "params.json")).endgame == params.endgame
    with open(os.path.join(bundle, "input.txt"), "w") as handle:
        handle.write("1\n" + "00000\n" * 10)
    played = subprocess.run(
        [sys.executable, "my_player3.py"],
        cwd=bundle,
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert played.returncode == 0 and played.stderr == "", played.stderr
    assert open(os.path.join(bundle, "output.txt")).read().strip() == "2,2"  # the book's one winning move


@pytest.mark.slow
def test_evolve_fit_tapered_from_flat_weights(tmp_path):
    from evolve.solved.labels import save_labels
    from tests.test_fit import sample_positions

    texts, _ = sample_positions(150, plies=(8, 14), seed=4)
    labels = [k % 3 % 2 for k in range(len(texts))]
    path, out = str(tmp_path / "l.json.gz"), str(tmp_path / "fitted.json")
    save_labels(path, list(zip(texts, labels)), {"seed": 4})
    done = evolve_cli(
        "fit", path, "--out", out, "--start", FLAT, "--method", "cmaes", "--generations", "10", "--tapered"
    )
    out_text, err = done.communicate()
    assert done.returncode == 0, err
    assert "(tapered)" in out_text
    params = load_params(out)
    assert params.endgame is not None and params.provenance["fit"]["tapered"] is True
    flat = load_params(FLAT)
    assert params.weights["captures"] == params.endgame["captures"] == flat.weights["captures"]
