"""The tuner benchmark's network problem (evolve/solved/network_tuners.py, ``evolve network-tuners``)."""

import json

import pytest

from engine.errors import InvalidInput
from engine.params import params_from_dict
from engine.ruler.fresh_search import FreshSearch
from engine.ruler.measure import measure
from evolve.cli import main as evolve
from evolve.solved import network_tuners as bench
from tests.conftest import ROOT

POSITIONS = f"{ROOT}/experiments/regret-20261125/positions-4-11.json.gz"


@pytest.fixture(scope="module")
def problem():
    full = bench.load_network_problem([POSITIONS], depth=2, hidden=4)
    return full._replace(train=full.train[:60], held_out=full.held_out[:40])


@pytest.fixture(scope="module")
def fit(problem):
    return bench.run_network_leg(problem, bench.NetworkLeg(bench.FIT, "values", "network", bench.FROM_SCRATCH, 3, 3.0))


@pytest.mark.fast
def test_a_mark_holds_the_candidate_that_stood_when_it_passed():
    """A generation that outlasts several marks: those marks hold the candidate before it, never the one
    it made (which did not exist yet when they passed)."""
    marks = bench._Marks(budget=10.0, offset=100.0)
    made = []

    def candidate(name):
        def make():
            made.append(name)
            return name

        return make

    assert marks.note(0, candidate("start"), used=0.0)
    assert marks.note(18, candidate("first"), used=2.5)  # marks at 1 and 2 passed while "start" stood
    assert marks.note(36, candidate("second"), used=2.9)
    assert not marks.note(54, candidate("third"), used=10.0)  # every mark left passed under "second"
    assert [(mark.cpu, mark.evaluations, params) for mark, params in marks.noted] == [
        (101.0, 0, "start"),
        (102.0, 0, "start"),
    ] + [(100.0 + k, 36, "second") for k in range(3, 11)]
    assert made == ["start", "second"]  # each candidate made once, and only where a mark needs it


def test_the_fit_leg_notes_its_iterates_at_each_tenth_of_its_budget(problem, fit):
    result = fit
    assert [mark.cpu for mark in result.marks] == pytest.approx([0.3 * (k + 1) for k in range(10)])
    assert result.spent >= 3.0 and 0 < result.marks[0].evaluations < result.marks[-1].evaluations
    final = params_from_dict(result.final, "the final")
    assert final.network is not None and len(final.network.units) == 4 and final.depth == 2
    (kept,) = measure([FreshSearch(final, plain=True)], problem.held_out)
    assert result.marks[-1].held_out_share == kept.share and result.by_ply == kept.by_ply
    again = bench.result_from_json(json.loads(json.dumps(result.to_json())))
    assert again == result


@pytest.mark.parametrize("fitness", ["regret", "games"])
def test_a_leg_from_the_fit_evolves_its_out_weights_and_counts_the_fits_cpu_first(problem, fit, fitness):
    start = bench.final_params(fit)
    leg = bench.NetworkLeg("cmaes", fitness, "network.out", bench.FIT, seed=1, budget=2.0)
    result = bench.run_network_leg(problem._replace(train=problem.train[:15]), leg, (start, fit.spent))
    assert [mark.cpu for mark in result.marks] == pytest.approx([fit.spent + 0.2 * (k + 1) for k in range(10)])
    assert result.marks[-1].evaluations > 0 and result.spent >= fit.spent + leg.budget
    final = bench.final_params(result)
    assert final.weights == start.weights  # the out weights alone move
    assert [u._replace(out=0.0) for u in final.network.units] == [u._replace(out=0.0) for u in start.network.units]
    with pytest.raises(ValueError, match="needs the fit leg's params"):
        bench.run_network_leg(problem, leg)


def test_a_leg_from_scratch_starts_from_a_seeded_random_layer_and_the_hand_set_weights(problem):
    first, again, other = (bench.scratch_params(problem, seed) for seed in (5, 5, 6))
    assert first == again != other and first.weights == problem.base.weights
    assert len(first.network.units) == 4 and all(not any(u.features) and u.bias == 0.0 for u in first.network.units)
    leg = bench.NetworkLeg("cmaes", "regret", "network", bench.FROM_SCRATCH, seed=5, budget=3.0)
    result = bench.run_network_leg(problem._replace(train=problem.train[:15]), leg)  # generations of 0.2 CPU s
    assert result.marks[0].cpu == pytest.approx(0.3) and result.marks[-1].evaluations > 0


@pytest.mark.slow
def test_the_command_writes_its_table_and_curves_and_reads_its_legs_back(tmp_path, capsys):
    out = tmp_path / "bench"
    words = ["network-tuners", "--positions", POSITIONS, "--depth", "2", "--hidden", "3", "--budget", "1"]
    words += ["--seeds", "1", "--jobs", "2", "--out", str(out)]
    assert evolve(words) == 0
    table = capsys.readouterr().out
    for name in (
        "fit (values)",
        "cmaes (regret) of network.out from the fit",
        "cmaes (games) of network.out from the fit",
    ):
        assert f"| {name} | 1 | 1 |" in table
    assert "| cmaes (regret) of network from scratch | 1 | 1 |" in table and "final candidates give away" in table
    legs = [json.loads(line) for line in (out / "legs.jsonl").read_text().splitlines()]
    assert len(legs) == 4 and all(len(leg["marks"]) == 10 for leg in legs)
    summary = json.loads((out / "summary.json").read_text())
    assert [set(row["cpu_to_reach"]) for row in summary["rows"]] == [{"0.90", "0.95", "0.97", "0.99"}] * 4
    assert all(set(miss["winning"]).isdisjoint(miss["played"]) for miss in summary["missed_by_every_final"])
    assert (out / "curves.png").stat().st_size > 0 and (out / "table.md").read_text().strip() == table.strip()
    assert evolve(words) == 0  # again: every leg read back, the same table
    again = capsys.readouterr()
    assert "4 legs read back" in again.err and again.out.strip() == table.strip()
    assert evolve(words[:4] + ["3"] + words[5:]) == 2  # another depth: another problem
    assert "holds the legs of another problem" in capsys.readouterr().err
    alone = words[:-1] + [str(tmp_path / "alone"), "--legs", "cmaes:regret:network.out:fit"]
    assert evolve(alone) == 2
    assert "needs the fit's leg of its seed" in capsys.readouterr().err and not (tmp_path / "alone").exists()


def test_the_atlas_lists_the_positions_every_final_candidate_gives_away(problem, fit):
    scratch = bench.run_network_leg(problem, bench.NetworkLeg("cmaes", "regret", "network", bench.FROM_SCRATCH, 5, 0.5))
    misses = bench.common_misses([fit, scratch], problem)
    kept = measure([FreshSearch(bench.final_params(r), plain=True) for r in (fit, scratch)], problem.held_out)
    both = {m.solved.text for m in kept[0].misses} & {m.solved.text for m in kept[1].misses}
    assert both and [miss.text for miss in misses] == sorted(both, key=lambda t: (int(t.split()[1]), t))
    for miss in misses:
        solved = next(p for p in problem.held_out if p.text == miss.text)
        assert miss.ply == solved.ply and sum(miss.played.values()) == 2
        assert not set(miss.played) & set(miss.winning) and len(miss.winning) == len(solved.winning)
    alone = bench.common_misses([fit, scratch._replace(final=None)], problem)  # a record without its params
    assert [miss.text for miss in alone] == [
        m.solved.text for m in sorted(kept[0].misses, key=lambda m: (m.solved.ply, m.solved.text))
    ]
    with pytest.raises(InvalidInput, match="keeps no params"):
        bench.final_params(scratch._replace(final=None))
    table = bench.misses_table(misses, 2)
    assert f"all 2 final candidates give away: {len(misses)}" in table and table.count("\n| ") == len(misses) + 2
