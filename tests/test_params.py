"""params.json: validated on load, with errors that say precisely what is wrong."""

import json

import pytest

from engine.features import FEATURES, make_evaluator
from engine.params import ParamsError, load_params, save_params, default_params, params_to_dict


def write(tmp_path, data):
    path = tmp_path / "params.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def good():
    return params_to_dict(default_params())


def test_shipped_params_load():
    params = load_params("params.json")
    assert set(params.weights) == set(FEATURES) and 1 <= params.depth <= 12
    assert params.provenance.get("source")


def test_round_trip(tmp_path):
    path = str(tmp_path / "p.json")
    save_params(path, default_params())
    assert load_params(path) == default_params()


@pytest.mark.parametrize("change, words", [
    (lambda d: d["weights"].update(speed=1.0), "unknown feature 'speed'"),
    (lambda d: d["weights"].pop("euler"), "missing weight for feature 'euler'"),
    (lambda d: d["weights"].update(margin="ten"), "weights.margin: expected a number"),
    (lambda d: d["weights"].update(margin=True), "weights.margin: expected a number"),
    (lambda d: d["search"].update(depth=0), "search.depth"),
    (lambda d: d["search"].update(depth=2.5), "search.depth"),
    (lambda d: d["search"].update(cpu_budget=30), "search.cpu_budget"),
    (lambda d: d.update(format=9), "format 9"),
    (lambda d: d.update(colour="blue"), "unknown key 'colour'"),
])
def test_bad_params_say_what_is_wrong(tmp_path, change, words):
    data = good()
    change(data)
    path = write(tmp_path, data)
    with pytest.raises(ParamsError) as error:
        load_params(path)
    assert words in str(error.value) and path in str(error.value)


def test_not_json_and_missing_file(tmp_path):
    with pytest.raises(ParamsError, match="not valid JSON"):
        load_params(write(tmp_path, "{weights:"))
    with pytest.raises(ParamsError, match="cannot read"):
        load_params(str(tmp_path / "absent.json"))


def test_evaluator_from_names_or_genome_agrees():
    from engine import Position
    position = Position.initial().play((2, 2)).play((0, 0))
    weights = default_params().weights
    by_name = make_evaluator(weights)
    by_genome = make_evaluator([weights[name] for name in FEATURES])
    assert by_name(position, 1) == by_genome(position, 1)
    with pytest.raises(ValueError):
        make_evaluator([1.0, 2.0])
