"""evolve ship: export, bundle, test at the playing budget, and replace params.json only on H1."""

import json
import os

import pytest

from engine.params import DEFAULT_WEIGHTS, load_params, make_params, save_params
from engine.players.shipped import PLAYS_AS
from evolve.cli import main as evolve
from evolve.loop import Evolution
from evolve.shipping import ship_plan
from evolve.solved.positions import build_positions
from tests.test_evolve import TINY, write_config

# Quick agents: depth 1, a tenth of a second a move; no book, so that a move is a process start
# and a search. The run's weights keep the margin high; the current file's throw stones away, so
# the candidate wins nearly every game (H1); a run whose margin must be negative loses them (H0).
QUICK = dict(depth=1, cpu_budget=0.1, cpu_cap=0.2)
SHIP = ["--games", "12", "--sprt", "0,400", "--random-opening", "2", "--jobs", "2", "--no-book", "--no-progress"]
SHIP += ["--screen", "0", "--exploit", "none"]


def evolved(tmp_path, margin, name):
    text = TINY.replace("generations = 4", "generations = 1").replace('name = "tiny"', f'name = "{name}"')
    text += "\n[bounds]\nmargin = [{}, {}]\n".format(*margin)
    return Evolution.create(
        write_config(tmp_path, text, name + ".toml"),
        runs_dir=str(tmp_path / "runs"),
        jobs=2,
        progress=False,
        out=open(os.devnull, "w"),
    ).run()


def current_file(tmp_path, margin):
    path = str(tmp_path / "params.json")
    save_params(
        path, make_params(dict(DEFAULT_WEIGHTS, margin=margin), provenance={"source": "the test's current"}, **QUICK)
    )
    return path


@pytest.mark.slow
def test_a_candidate_the_test_accepts_replaces_params_json_with_the_test_in_its_provenance(tmp_path, capsys):
    run = evolved(tmp_path, (10, 20), "strong")
    current = current_file(tmp_path, -20.0)
    positions = str(tmp_path / "positions.json.gz")
    build_positions(positions, 2, (10, 11), seed=6, table_bits=18)
    assert evolve(["ship", run, "--to", current, "--close-stones", "0.5"] + SHIP[:-1] + [positions]) == 0
    out = capsys.readouterr().out
    assert "shipped: the SPRT accepted H1" in out
    assert "candidate (" in out and "current (" in out and "won positions against the exact adversary" in out
    shipped = load_params(current)
    candidate = load_params(os.path.join(run, "ship", "candidate-params.json"))
    assert shipped.weights == candidate.weights and shipped.weights["margin"] >= 10
    assert (shipped.depth, shipped.cpu_budget, shipped.cpu_cap) == (1, 0.1, 0.2)  # the replaced file's settings
    assert shipped.close_stones == candidate.close_stones == 0.5  # asked for the candidate alone
    assert json.load(open(os.path.join(run, "ship", "plan.json")))["close_stones"] == 0.5
    test = shipped.provenance["shipped_after"]
    assert test["elo1"] == 400 and test["replaced"] == {"source": "the test's current"}
    assert test["candidate_wins"] <= test["games"] <= 12 and test["llr"] >= 2.94
    assert shipped.provenance["exported_by"].startswith(f"evolve ship {run} --to {current} --games 12")
    report = json.load(open(os.path.join(run, "ship", "sprt.json")))
    assert report["sprt"]["decision"] == "H1"


def test_the_screen_predicts_before_the_test_and_min_screen_stops_a_weak_candidate_there(tmp_path, capsys):
    run = evolved(tmp_path, (-20, -10), "weak")
    current = current_file(tmp_path, 10.0)
    before = open(current, "rb").read()
    asked = ["ship", run, "--to", current] + SHIP[:-4] + ["--screen", "8", "--min-screen", "0.5", "--exploit", "none"]
    assert evolve(asked) == 1
    out = capsys.readouterr().out
    assert "screen: the candidate scores 0.0%" in out and "in 8 games as shipped in nodes" in out
    assert "not shipped: the screen scored 0.0%, below --min-screen 50.0%: no test played" in out
    assert open(current, "rb").read() == before
    assert not os.path.exists(os.path.join(run, "ship", "sprt.journal"))
    screen = os.path.join(run, "ship", "screen.json")
    kept = json.load(open(screen))
    assert kept["games"] == 8 and kept["score"] == 0.0
    os.utime(screen, (0, 0))
    assert evolve(asked) == 1  # the screen read back, not played again
    assert os.stat(screen).st_mtime == 0 and "scores 0.0%" in capsys.readouterr().out
    del kept["player"]  # a screen kept before the player searched afresh each move (2026-11-27)
    with open(screen, "w") as handle:
        json.dump(dict(kept, score=0.75), handle)
    assert evolve(asked) == 1  # played again, as the player now plays
    assert "scores 0.0%" in capsys.readouterr().out and json.load(open(screen))["player"] == PLAYS_AS
    assert evolve(["ship", run, "--to", current, "--screen", "0", "--min-screen", "0.5"]) == 2
    assert "--min-screen needs the screen" in capsys.readouterr().err


def test_a_rejected_candidate_leaves_params_json_as_it_was_and_the_same_command_replays_the_test(tmp_path, capsys):
    run = evolved(tmp_path, (-20, -10), "weak")
    current = current_file(tmp_path, 10.0)
    before = open(current, "rb").read()
    assert evolve(["ship", run, "--to", current] + SHIP) == 1
    out = capsys.readouterr().out
    assert "not shipped: the SPRT accepted H0" in out and "left as it was" in out
    assert open(current, "rb").read() == before
    journal = open(os.path.join(run, "ship", "sprt.journal")).read()
    assert evolve(["ship", run, "--to", current] + SHIP) == 1  # from the journal: no game played again
    assert open(os.path.join(run, "ship", "sprt.journal")).read() == journal
    assert "accepted H0" in capsys.readouterr().out
    # a test with games is past its screen: none is played
    assert evolve(["ship", run, "--to", current] + SHIP[:-4] + ["--screen", "8", "--exploit", "none"]) == 1
    assert "screen: none, the test is under way" in capsys.readouterr().out
    assert not os.path.exists(os.path.join(run, "ship", "screen.json"))
    # another test in the same folder is refused, naming what changed
    assert evolve(["ship", run, "--to", current] + SHIP[:1] + ["10"] + SHIP[2:]) == 2
    assert "games changed" in capsys.readouterr().err


def test_a_test_goes_on_only_with_the_program_its_games_were_played_by(tmp_path, capsys, monkeypatch):
    # the plan pins the bundles' program (the engine's code and book) as it pins the params files: games
    # played by two programs are one test only when the user says so, and the result names the change
    candidate = str(tmp_path / "weak-params.json")
    save_params(candidate, make_params(dict(DEFAULT_WEIGHTS, margin=-20.0), provenance={"source": "weak"}))
    current = current_file(tmp_path, 10.0)
    assert evolve(["ship", candidate, "--to", current] + SHIP) == 1
    plan_path = tmp_path / "ship" / "plan.json"
    first = json.load(open(plan_path))
    played = len(open(tmp_path / "ship" / "sprt.journal").read().splitlines()) - 1
    assert played > 0 and len(first["program_sha256"]) == 64
    assert f"program {first['program_sha256'][:12]};" in capsys.readouterr().out
    monkeypatch.setattr(ship_plan, "program_sha256", lambda book: "f" * 64)
    assert evolve(["ship", candidate, "--to", current] + SHIP) == 2
    err = capsys.readouterr().err
    assert f"its {played} games were played by program {first['program_sha256'][:12]}" in err
    assert "program ffffffffffff" in err and "--program-changed" in err
    assert json.load(open(plan_path)) == first  # refused: nothing written
    assert evolve(["ship", candidate, "--to", current, "--program-changed"] + SHIP) == 1
    out = capsys.readouterr().out
    assert f"the program changed during the test (--program-changed), after game {played}" in out
    assert json.load(open(plan_path))["program_changes"] == [[played, "f" * 64]]
    assert evolve(["ship", candidate, "--to", current] + SHIP) == 1  # the same program as last time: goes on
    capsys.readouterr()
    # a plan from before the pin: its games' program is unknown, so it goes on only when told
    json.dump(dict(first, program_sha256=None), open(plan_path, "w"))
    assert evolve(["ship", candidate, "--to", current] + SHIP) == 2
    assert "a program this plan did not record" in capsys.readouterr().err


def test_the_default_screen_plays_every_opening_once_with_each_colour(tmp_path, capsys):
    candidate = str(tmp_path / "weak-params.json")  # throws stones away: it loses every game
    save_params(candidate, make_params(dict(DEFAULT_WEIGHTS, margin=-20.0), provenance={"source": "weak"}))
    current = current_file(tmp_path, 10.0)
    quick = SHIP[:-4]
    quick[quick.index("--random-opening") + 1] = "1"  # openings of one ply: 25 of them, 50 games
    assert evolve(["ship", candidate, "--to", current] + quick + ["--min-screen", "0.5", "--exploit", "none"]) == 1
    out = capsys.readouterr().out
    assert "in 50 games as shipped in nodes (every opening with each colour)" in out
    kept = json.load(open(tmp_path / "ship" / "screen.json"))
    assert kept["every"] and kept["games"] == 50 and kept["score"] == 0.0


@pytest.mark.slow
def test_a_params_file_ships_as_a_run_does_with_its_test_beside_it(tmp_path, capsys):
    # evolve fit's output (here any params file) is a candidate too: its weights, the current
    # file's search settings, the test in ship/ beside it, the same command continuing it.
    fitted = tmp_path / "fit"
    fitted.mkdir()
    candidate_file = str(fitted / "fitted-params.json")
    save_params(candidate_file, make_params(dict(DEFAULT_WEIGHTS, margin=15.0), provenance={"source": "a fit"}))
    current = str(tmp_path / "params.json")  # every default weight turned round: it plays to lose
    backwards = {name: -weight for name, weight in DEFAULT_WEIGHTS.items()}
    save_params(current, make_params(dict(backwards, margin=0.0), provenance={"source": "backwards"}, **QUICK))
    assert evolve(["ship", candidate_file] + ["--to", current] + SHIP) == 0
    out = capsys.readouterr().out
    assert f"candidate: {candidate_file} " in out and "shipped: the SPRT accepted H1" in out
    shipped = load_params(current)
    assert shipped.weights["margin"] == 15.0 and (shipped.depth, shipped.cpu_budget) == (1, 0.1)
    assert shipped.provenance["source"] == "a fit"
    assert shipped.provenance["shipped_after"]["journal"] == os.path.join(str(fitted), "ship", "sprt.journal")
    plan = json.load(open(fitted / "ship" / "plan.json"))
    assert plan["generation"] is None and plan["run"] == candidate_file
    # the ship's own copy of the candidate is not a candidate
    assert evolve(["ship", str(fitted / "ship" / "candidate-params.json"), "--to", current] + SHIP) == 2
    assert "name the params file it came from" in capsys.readouterr().err


@pytest.mark.fast
def test_ship_refuses_a_missing_params_file_before_anything_is_written(tmp_path, capsys):
    run = evolved(tmp_path, (0, 20), "any")
    assert evolve(["ship", run, "--to", str(tmp_path / "none.json")] + SHIP) == 2
    assert "no params file there" in capsys.readouterr().err
    assert not os.path.exists(os.path.join(run, "ship"))


def test_export_takes_its_search_settings_from_the_file_it_replaces(tmp_path, capsys):
    run = evolved(tmp_path, (0, 20), "export")
    current = current_file(tmp_path, 10.0)
    assert evolve(["export", run, "--to", current]) == 0
    assert load_params(current)[1:5] == (1, 0.1, 0.2, 24) and load_params(current).close_stones is None
    assert evolve(["export", run, "--to", current, "--close-stones", "0.5"]) == 0
    assert load_params(current).close_stones == 0.5
    assert evolve(["export", run, "--to", current]) == 0  # kept: the file it replaces has it
    assert load_params(current).close_stones == 0.5
    fresh = str(tmp_path / "fresh.json")
    assert evolve(["export", run, "--to", fresh, "--depth", "3"]) == 0
    shipped = load_params(os.path.join(os.path.dirname(os.path.dirname(__file__)), "params.json"))
    assert load_params(fresh)[1:5] == (3, shipped.cpu_budget, shipped.cpu_cap, shipped.solve_from)
    capsys.readouterr()


@pytest.mark.fast
@pytest.mark.parametrize(
    "bad",
    [["--sprt", "20,0"], ["--games", "0"], ["--random-opening", "30"], ["--close-stones", "-1"], ["--min-screen", "2"]],
)
def test_bad_ship_options_are_one_line(tmp_path, capsys, bad):
    with pytest.raises(SystemExit) as stop:
        evolve(["ship", str(tmp_path)] + bad)
    assert stop.value.code == 2
