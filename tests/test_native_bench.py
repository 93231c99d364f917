"""The compiled solver's benchmark set: the solver gives every move of every position the result the
solver before issue 48 gave (the cheap plies in the default run, the rest with ``-m slow``), the set is
what its provenance says, and ``littlego bench solver`` saves, compares and reports a changed value."""

import json

import pytest

from engine.native.compiler import NoCompiler, compiled_solver
from engine.native.solver import NativeSolver, describe_position
from engine.native.solver_bench import (
    BenchError,
    bench_solver,
    compare_results,
    load_position_set,
    load_result,
    random_positions_by_ply,
)
from tests.conftest import cli

SET = load_position_set()
RECORDED = sorted(ply for ply, entries in SET.by_ply.items() if any(e.results is not None for e in entries))
QUICK_PLIES = [ply for ply in RECORDED if ply >= 9]  # a few seconds in all
SLOW_PLIES = [ply for ply in RECORDED if ply < 9]


@pytest.fixture(scope="module")
def solver():
    try:
        compiled_solver()
    except NoCompiler as error:
        pytest.skip(str(error))
    with NativeSolver(table_bits=20) as running:  # one table for every position: its reuse is tested too
        yield running


def _check_ply(solver, ply):
    for position, results in SET.by_ply[ply]:
        if results is None:
            continue
        assert solver.move_results(position) == results, describe_position(position)


@pytest.mark.fast
@pytest.mark.parametrize("ply", QUICK_PLIES)
def test_every_move_keeps_the_result_the_solver_gave_before_it_was_sped_up(solver, ply):
    _check_ply(solver, ply)


@pytest.mark.slow
@pytest.mark.parametrize("ply", SLOW_PLIES)
def test_every_move_keeps_its_recorded_result_at_the_early_plies(solver, ply):
    _check_ply(solver, ply)


@pytest.mark.fast
def test_the_set_is_the_positions_its_seed_draws():
    drawn = random_positions_by_ply(SET.seed, sorted(SET.by_ply), SET.per_ply)
    assert {ply: [describe_position(p) for p in positions] for ply, positions in drawn.items()} == {
        ply: [describe_position(entry.position) for entry in entries] for ply, entries in SET.by_ply.items()
    }
    assert set(SET.by_ply) >= set(range(13)) and all(not p.position.is_over for e in SET.by_ply.values() for p in e)


def test_bench_solver_saves_compares_and_reports_a_changed_value(tmp_path):
    try:
        compiled_solver()
    except NoCompiler as error:
        pytest.skip(str(error))
    saved = tmp_path / "before.json"
    done = cli("littlego", "bench", "solver", "--plies", "15-16", "--table-bits", "16", "--save", saved)
    assert done.returncode == 0, done.stderr
    result = load_result(str(saved))
    assert [row["ply"] for row in result["plies"]] == [15, 16]
    assert all(row["nodes"] > 0 and row["cpu_s"] >= 0 and not row["differ"] for row in result["plies"])
    again = cli("littlego", "bench", "solver", "--plies", "16", "--table-bits", "16", "--compare", saved)
    assert again.returncode == 0 and "nodes before" in again.stdout, again.stderr
    assert f"{result['plies'][1]['nodes']:>14,}" in again.stdout  # the same nodes on the same positions

    # a set whose recorded value is wrong makes the run fail, naming the position
    data = json.loads(open(SET.path).read())
    entry = data["plies"]["16"][0]
    first, won = entry["results"].split()[0].split(":")
    entry["results"] = entry["results"].replace(f"{first}:{won}", f"{first}:{1 - int(won)}", 1)
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps(data))
    lines = []
    result = bench_solver([16], table_bits=16, path=str(wrong), report=lines.append)
    assert result["plies"][0]["differ"] == [{"index": 0, "position": entry["position"]}]


def test_a_saved_result_of_something_else_is_refused(tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"format": "littlego-openings 1"}')
    with pytest.raises(BenchError, match="not a saved result"):
        load_result(str(other))
    with pytest.raises(BenchError, match="not a solver position set"):
        load_position_set(str(other))
    lines = []
    compare_results({"table_bits": 16, "plies": []}, {"table_bits": 16, "plies": []}, lines.append)
    assert lines[0].startswith("against")
