"""A run that starts from a fitted params file and evolves chosen parts of it ([start] parts): the hidden
layer's out weights, the whole layer, the pattern weights, or the features' weights with the rest carried."""

import json
import os
import random

import pytest

from engine.constants import NUM_POINTS
from engine.features import FEATURES, PATH_FEATURE
from engine.network import Network, Unit
from engine.params import default_params, load_params, save_params
from evolve.config import ConfigError, load_config
from evolve.fitness import make_jobs
from evolve.loop import Evolution
from evolve.params_genes import run_genome
from evolve.runs import export_best
from tests.test_evolve import write_config

RUN = """
name = "layer"
seed = 3
population = {population}
generations = {generations}
strategy = "{strategy}"
depth = 1
jobs = 1

[[panel]]
opponent = "greedy"
games = 2
random_opening = 2

[start]
params = ["fitted.json"]
"""


def fitted(units=3, seed=1):
    """Params with a small hidden layer of ``units`` units, as `evolve network` would write them."""
    draw = random.Random(seed)

    def unit(k):
        return Unit(
            bias=draw.uniform(-0.5, 0.5),
            own=tuple(draw.uniform(-0.3, 0.3) for _ in range(NUM_POINTS)),
            opp=tuple(draw.uniform(-0.3, 0.3) for _ in range(NUM_POINTS)),
            features=tuple(0.0 if name == PATH_FEATURE else draw.uniform(-1, 1) for name in FEATURES),
            out=(k + 1) * 2.0 * (-1) ** k,
        )

    params = default_params().with_network(Network(units=tuple(unit(k) for k in range(units))))
    return params.with_settings(provenance={"source": "fitted", "method": "evolve network"}, depth=3)


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the configs name their start file relative to where evolve runs


def config_file(tmp_path, parts=None, strategy="cmaes", population=4, generations=1, more=""):
    save_params("fitted.json", fitted())
    text = RUN.format(population=population, generations=generations, strategy=strategy)
    if parts is not None:
        text += f"parts = {json.dumps(parts)}\n"
    return write_config(tmp_path, text + more)


@pytest.mark.fast
def test_the_out_weights_are_the_genes_and_the_rest_plays_as_the_file_has_it(tmp_path):
    config = load_config(config_file(tmp_path, ["network.out"]))
    assert config.genes == ("network[0].out", "network[1].out", "network[2].out")
    assert config.start.weights == ((2.0, -4.0, 6.0),)
    # each out weight may swing as far as the largest is from 0 (6), about where it starts
    assert config.bounds == {
        "network[0].out": (-4.0, 8.0),
        "network[1].out": (-10.0, 2.0),
        "network[2].out": (0.0, 12.0),
    }
    (job,) = make_jobs([[1.5, -0.5, 3.0]], config, 1, [])[:1]
    played = job.genome.params(job.weights, "individual 0", {"depth": 1})
    base = fitted()
    assert [unit.out for unit in played.network.units] == [1.5, -0.5, 3.0]
    assert [unit._replace(out=0.0) for unit in played.network.units] == [
        unit._replace(out=0.0) for unit in base.network.units
    ]
    assert played.weights == base.weights and played.depth == 1


@pytest.mark.fast
def test_every_weight_of_the_layer_is_a_named_gene_read_and_written_in_its_place(tmp_path):
    config = load_config(config_file(tmp_path, ["weights", "network"], strategy="spsa"))
    per_unit = 1 + 2 * NUM_POINTS + (len(FEATURES) - 1) + 1  # bias, own, opp, features but the path's, out
    assert len(config.genes) == len(FEATURES) + 3 * per_unit
    assert config.genes[len(FEATURES) : len(FEATURES) + 3] == (
        "network[0].bias",
        "network[0].own[0]",
        "network[0].own[1]",
    )
    assert f"network[2].features.{PATH_FEATURE}" not in config.genes  # a unit never reads the search's path
    genome = run_genome(config.genes, config.start.base)
    start = list(config.start.weights[0])
    assert genome.params(start, "start") == genome.params(start, "start")
    moved = list(start)
    moved[config.genes.index("network[1].opp[24]")] = 0.125
    moved[config.genes.index("network[2].features.margin")] = -0.75
    moved[config.genes.index("margin")] = 4.5
    params = genome.params(moved, "moved")
    assert params.network.units[1].opp[24] == 0.125
    assert params.network.units[2].features[FEATURES.index("margin")] == -0.75
    assert params.weights["margin"] == 4.5
    assert params.network.units[0] == fitted().network.units[0]


@pytest.mark.fast
def test_a_start_file_with_patterns_or_a_layer_is_carried_whole_by_a_run_of_its_weights(tmp_path):
    save_params("fitted.json", fitted().with_patterns({"quad_centre_1111": 2.5}))
    config = load_config(write_config(tmp_path, RUN.format(population=4, generations=1, strategy="ga")))
    assert config.genes == tuple(FEATURES) and config.start.parts == ("weights",)
    played = run_genome(config.genes, config.start.base).params(list(config.start.weights[0]), "start")
    assert played.patterns["quad_centre_1111"] == 2.5 and played.network == fitted().network
    save_params("fitted.json", default_params())  # nothing to carry: no base, as before parts existed
    assert (
        load_config(write_config(tmp_path, RUN.format(population=4, generations=1, strategy="ga"))).start.base is None
    )


@pytest.mark.fast
@pytest.mark.parametrize(
    "parts, more, message",
    [
        (["network.outs"], "", "'start.parts' names 'network.outs', not a part of a params file"),
        (["network", "network.out"], "", "names a part twice"),
        (["patterns"], "", r"\(fitted.json\) has no pattern weights: 'start.parts' names 'patterns'"),
        (["network"], "", "448 genes for CMA-ES"),
        (
            ["network.out"],
            '\n[bounds]\n"network.out" = [0, 5]\n',
            r"network\[1\].out = -4 is outside 'bounds.network.out'",
        ),
        (["network.out"], '\n[bounds]\n"network.outs" = [0, 5]\n', "'bounds.network.outs' is not a feature"),
    ],
)
def test_a_part_the_file_lacks_or_a_genome_a_strategy_cannot_hold_is_refused(tmp_path, parts, more, message):
    path = config_file(tmp_path, parts, more=more)
    if parts == ["network"]:  # 3 units' 192 genes would do; 7 units' 448 are past CMA-ES's room
        save_params("fitted.json", fitted(units=7))
    with pytest.raises(ConfigError, match=message):
        load_config(path)


@pytest.mark.fast
def test_parts_need_a_start_file(tmp_path):
    path = write_config(
        tmp_path,
        RUN.format(population=4, generations=1, strategy="ga").replace(
            'params = ["fitted.json"]', 'parts = ["network.out"]'
        ),
    )
    with pytest.raises(ConfigError, match="evolves parts of a params file: name it first in 'start.params'"):
        load_config(path)


def test_a_run_of_the_out_weights_exports_the_fit_it_finished_and_says_so(tmp_path):
    # one generation of CMA-ES on the out weights; the file changes after the run began, and neither the
    # resume nor the export reads it again
    path = config_file(tmp_path, ["network.out"], population=4, generations=1)
    out = open(os.devnull, "w")
    evolution = Evolution.create(path, runs_dir="runs", jobs=1, progress=False, out=out)
    run_dir = os.path.abspath(evolution.run_dir)
    evolution.lock.release()
    save_params("fitted.json", default_params())
    Evolution.resume(run_dir, jobs=1, progress=False, out=out).run()
    exported = export_best(run_dir, str(tmp_path / "evolved.json"))
    again = load_params(str(tmp_path / "evolved.json"))
    base = fitted()
    assert again.network is not None and len(again.network.units) == 3
    assert again.weights == base.weights and again.depth == base.depth == 3
    assert [u._replace(out=0.0) for u in again.network.units] == [u._replace(out=0.0) for u in base.network.units]
    assert [u.out for u in again.network.units] != [u.out for u in base.network.units]
    assert exported.provenance["source"] == "evolved"
    assert exported.provenance["started_from"] == {
        "source": "fitted",
        "method": "evolve network",
        "parts": ["network.out"],
    }
    records = [json.loads(line) for line in open(os.path.join(run_dir, "generations.jsonl"))]
    assert set(records[-1]["best_weights"]) == {"network[0].out", "network[1].out", "network[2].out"}


@pytest.mark.fast
def test_a_weights_plot_of_a_whole_layer_draws_the_genes_that_moved_most():
    from evolve.runs import PLOTTED_GENES, _most_moved

    names = [f"network[0].own[{point}]" for point in range(25)] + ["network[0].bias"]
    first = {name: 0.0 for name in names}
    last = {name: 0.01 * k for k, name in enumerate(names)}  # own[24] and the bias moved most
    bounds = {name: (-1.0, 1.0) for name in names}
    chosen = _most_moved([first, last], bounds, PLOTTED_GENES)
    assert chosen == names[len(names) - PLOTTED_GENES :]
    assert _most_moved([first, last], bounds, 30) == names
