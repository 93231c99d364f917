"""params.json: validated on load, with errors that say precisely what is wrong."""

import glob
import json
import os
from typing import Optional

import pytest

import engine.params
import evolve.config_genome
import evolve.genome
from engine.cli.parts.arguments import chosen_search_settings
from engine.common.runfolder import START_WEIGHTS
from engine.constants import MAX_CPU_BUDGET
from engine.errors import ParamsError
from engine.features import FEATURES, make_evaluator
from engine.params import (
    ADDED_AT_ZERO,
    DEFAULT_WEIGHTS,
    default_params,
    load_params,
    make_params,
    params_to_dict,
    save_params,
)
from engine.search_settings import SEARCH_TABLE
from evolve.cli import build_parser
from evolve.config import load_config
from tests.conftest import ROOT


def write(tmp_path, data):
    path = tmp_path / "params.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def good():
    return params_to_dict(default_params())


@pytest.mark.fast
def test_shipped_params_load():
    params = load_params("params.json")
    assert set(params.weights) == set(FEATURES) and 1 <= params.depth <= 12
    assert params.provenance.get("source")


@pytest.mark.fast
def test_round_trip(tmp_path):
    path = str(tmp_path / "p.json")
    save_params(path, default_params())
    assert load_params(path) == default_params()
    unclear = default_params()._replace(close_stones=0.5)
    save_params(path, unclear)
    assert load_params(path) == unclear and load_params(path).close_stones == 0.5


@pytest.mark.fast
@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d["weights"].update(speed=1.0), "unknown feature 'speed'"),
        (lambda d: d["weights"].update(margin="ten"), "weights.margin: expected a number"),
        (lambda d: d["weights"].update(margin=True), "weights.margin: expected a number"),
        (lambda d: d["search"].update(depth=0), "search.depth"),
        (lambda d: d["search"].update(depth=2.5), "search.depth"),
        (lambda d: d["search"].update(cpu_budget=30), "search.cpu_budget"),
        (lambda d: d["search"].update(close_stones=-1), "search.close_stones"),
        (lambda d: d["search"].update(close_stones="half"), "search.close_stones: expected a number"),
        (lambda d: d.update(format=9), "format 9"),
        (lambda d: d.update(colour="blue"), "unknown key 'colour'"),
    ],
)
def test_bad_params_say_what_is_wrong(tmp_path, change, words):
    data = good()
    change(data)
    path = write(tmp_path, data)
    with pytest.raises(ParamsError) as error:
        load_params(path)
    assert words in str(error.value) and path in str(error.value)


@pytest.mark.fast
def test_not_json_and_missing_file(tmp_path):
    with pytest.raises(ParamsError, match="not valid JSON"):
        load_params(write(tmp_path, "{weights:"))
    with pytest.raises(ParamsError, match="cannot read"):
        load_params(str(tmp_path / "absent.json"))


@pytest.mark.fast
def test_evaluator_from_names_or_genome_agrees():
    from engine import Position

    position = Position.initial().play((2, 2)).play((0, 0))
    weights = default_params().weights
    by_name = make_evaluator(weights)
    by_genome = make_evaluator([weights[name] for name in FEATURES])
    assert by_name(position, 1) == by_genome(position, 1)
    with pytest.raises(ValueError):
        make_evaluator([1.0, 2.0])


@pytest.mark.fast
def test_a_file_older_than_a_feature_plays_it_at_zero_says_so_once_and_keeps_the_record(tmp_path):
    data = good()
    del data["weights"]["euler"]
    heard = []
    params = load_params(write(tmp_path, data), warn=heard.append)
    assert params.weights["euler"] == 0.0 and len(heard) == 1 and "'euler'" in heard[0]
    assert params.provenance[ADDED_AT_ZERO] == ["euler"]
    again = str(tmp_path / "again.json")
    save_params(again, params)  # re-exported: the record stays, and nothing more is missing
    heard.clear()
    assert load_params(again, warn=heard.append).provenance[ADDED_AT_ZERO] == ["euler"] and not heard


# Every params file (a run's start.json, the start weights it read, is a list of genomes, not one)
EXPERIMENT_FILES = sorted(
    path
    for path in glob.glob(os.path.join(ROOT, "experiments", "**", "*.json"), recursive=True)
    if '"weights"' in open(path).read(2000) and os.path.basename(path) != START_WEIGHTS
) + sorted(glob.glob(os.path.join(ROOT, "experiments", "**", "*.toml"), recursive=True))


@pytest.fixture(params=["today's features", "a feature added since"])
def features(request, monkeypatch):
    """The features as they are, and with one more (which no file under experiments/ knows)."""
    if request.param == "a feature added since":
        added = FEATURES + ("triangles",)
        monkeypatch.setattr(engine.params, "FEATURES", added)
        monkeypatch.setattr(evolve.config_genome, "FEATURES", added)
        monkeypatch.setattr(evolve.genome, "FEATURES", added)
        bounds = dict(evolve.config_genome.DEFAULT_BOUNDS, triangles=(-1.0, 1.0))
        monkeypatch.setattr(evolve.config_genome, "DEFAULT_BOUNDS", bounds)
    return request.param


@pytest.mark.fast
@pytest.mark.parametrize("path", EXPERIMENT_FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_every_params_file_and_config_under_experiments_loads(path, features):
    assert len(EXPERIMENT_FILES) >= 10
    heard = []
    if path.endswith(".json"):
        params = load_params(path, warn=heard.append)
        assert set(params.weights) == set(engine.params.FEATURES)
        assert (params.weights.get("triangles") == 0.0) == (features == "a feature added since")
    else:
        load_config(path)


def _parsed(parser, words):
    """The namespace ``parser`` makes of ``words`` (a sub-command's arguments)."""
    return parser.parse_args(words)


def test_each_search_setting_is_one_row_that_reaches_the_options_the_file_and_params(tmp_path):
    """Every row of SEARCH_TABLE is a Params field, a key of params.json kept through a save and a load,
    a make_params keyword, and an option of `evolve fit` and `evolve export` whose value reaches the
    settings written; a new setting is one row."""
    parser = build_parser()
    for setting in SEARCH_TABLE:
        value = setting.high if not setting.at_least else MAX_CPU_BUDGET  # a value no default has
        params = make_params(DEFAULT_WEIGHTS, **dict({"cpu_budget": 1.0}, **{setting.name: value}))
        assert getattr(params, setting.name) == value
        path = str(tmp_path / f"{setting.name}.json")
        save_params(path, params)
        assert getattr(load_params(path), setting.name) == value
        assert json.load(open(path))["search"][setting.name] == value
        option = "--" + setting.name.replace("_", "-")
        for command in (["fit", "labels.json.gz", "--out", "p.json"], ["export", "run", "--to", "p.json"]):
            args = _parsed(parser, command + [option, str(value)])
            assert chosen_search_settings(args, default_params())[setting.name] == value
        with pytest.raises(SystemExit):
            _parsed(parser, ["fit", "labels.json.gz", "--out", "p.json", option, str(setting.high + 1)])
    assert set(default_params().search()) == {setting.name for setting in SEARCH_TABLE}


@pytest.mark.fast
def test_the_params_record_has_a_field_for_each_search_setting_in_the_tables_order():
    """Params is written out in class syntax (its fields visible to readers and the type checker);
    SEARCH_TABLE stays the one declaration of what each setting means, and this keeps the two in step."""
    settings = tuple(setting.name for setting in SEARCH_TABLE)
    assert engine.params.Params._fields == ("weights",) + settings + ("provenance", "endgame", "patterns", "network")
    hints = engine.params.Params.__annotations__
    for setting in SEARCH_TABLE:
        expected = Optional[setting.kind] if setting.nullable else setting.kind
        assert hints[setting.name] == expected, setting.name
