"""littlego grade: the rubric's arithmetic against the editions' worked examples, the budgets'
verdicts, and grades of cheap agents played through the match machinery."""

import json
import os

import pytest

from engine.cli.littlego import main
from engine.course.editions import (
    BUDGET_SHARE,
    EDITIONS,
    MOVES_PER_SIDE,
    STARTUP_CPU,
    edition,
    fitted_search,
    points,
    stage_budget,
    stages,
    tightest_rate,
)
from engine.course.grade import OpponentResult, grade, points_range, stage_result, total_games
from engine.course.report import format_grade
from engine.data import SHIPPED_PARAMS
from engine.params import default_params, load_params, save_params
from engine.play.settings import GameSettings
from tests.conftest import HANG, cli


def stage1_points(key, wins, games):
    chosen = edition(key)
    return sum(
        points(chosen.rubric[name], won / games)
        for name, won in zip(("random", "greedy", "aggressive", "alphabeta"), wins)
    )


@pytest.mark.fast
def test_the_worked_examples_of_every_edition():
    assert stage1_points("fall2023", (18, 16, 14, 11), 20) == pytest.approx(53.75)
    assert stage1_points("fall2020", (45, 40, 39, 33), 50) == pytest.approx(55.9)
    assert stage1_points("earlier", (95, 85, 80, 67), 100) == pytest.approx(60.45)
    assert stage1_points("spring2022", (20, 20, 20, 20), 20) == 90


# (edition, opponent, games won, games, points): the rubric tables of shared/seeds/editions.md worked
# out by hand, at each band's edges (90%, 70%) and inside each band.
HAND_WORKED = [
    ("fall2023", "random", 18, 20, 25),
    ("fall2023", "random", 14, 20, 10.5),
    ("fall2023", "random", 13, 20, 0),
    ("fall2023", "greedy", 20, 20, 25),
    ("fall2023", "greedy", 16, 20, 12),
    ("fall2023", "greedy", 6, 20, 0),
    ("fall2023", "aggressive", 19, 20, 25),
    ("fall2023", "aggressive", 14, 20, 14),
    ("fall2023", "aggressive", 13, 20, 6.5),
    ("fall2023", "aggressive", 0, 20, 0),
    ("fall2023", "alphabeta", 18, 20, 15),
    ("fall2023", "alphabeta", 14, 20, 7),
    ("fall2023", "alphabeta", 11, 20, 2.75),
    ("fall2023", "qlearning", 18, 20, 5),
    ("fall2023", "qlearning", 15, 20, 3.75),
    ("fall2023", "qlearning", 13, 20, 0),
    ("fall2023", "championship", 20, 20, 5),
    ("fall2023", "championship", 14, 20, 3.5),
    ("fall2023", "championship", 10, 20, 1),
    ("fall2020", "aggressive", 39, 50, 15.6),
    ("fall2020", "alphabeta", 33, 50, 3.3),
    ("fall2020", "qlearning", 34, 50, 0),
    ("earlier", "greedy", 85, 100, 12.75),
    ("earlier", "aggressive", 80, 100, 16),
    ("earlier", "alphabeta", 67, 100, 6.7),
    ("earlier", "alphabeta", 90, 100, 25),
]


@pytest.mark.fast
@pytest.mark.parametrize("key, opponent, won, games, expected", HAND_WORKED)
def test_points_by_win_rate_as_worked_out_by_hand(key, opponent, won, games, expected):
    assert points(edition(key).rubric[opponent], won / games) == pytest.approx(expected)


@pytest.mark.fast
def test_every_edition_is_worth_100_points():
    for chosen in EDITIONS:
        full = sum(chosen.rubric[name].full for stage in chosen.graded for name in stage.opponents)
        assert full == 100


@pytest.mark.fast
def test_budgets_are_the_editions_rates_and_say_when_assumed():
    assert tightest_rate(edition("fall2023")) == 90 and tightest_rate(edition("fall2020")) == 36
    assert tightest_rate(edition("earlier")) == 12
    earlier = edition("earlier")
    assert stage_budget(earlier, earlier.graded[0]) == (12.0, True)  # not stated: the Submit's rate
    fall2020 = edition("fall2020")
    assert stage_budget(fall2020, fall2020.submit[1], submit=True) == (36.0, True)
    assert stage_budget(fall2020, fall2020.graded[0]) == (36.0, False)
    assert [len(s.opponents) * s.games for s in stages(edition("fall2023"), submit=True)] == [60, 20]
    with pytest.raises(ValueError, match="unknown edition 'fall1999'.*fall2023"):
        edition("fall1999")


def _result(name, games, wins, cpu):
    column = edition("fall2023").rubric[name]
    return OpponentResult(
        name,
        name,
        games,
        wins,
        wins,
        0,
        wins / games,
        [0, 1],
        points(column, wins / games),
        column.full,
        cpu / games,
        cpu / games,
        cpu,
        0,
        [],
    )


@pytest.mark.fast
def test_a_stage_over_its_budget_loses_all_its_points():
    chosen = edition("fall2023")
    stage = chosen.graded[1]
    within = stage_result(chosen, False, stage, [_result("qlearning", 2, 2, 100.0), _result("championship", 2, 1, 80)])
    assert within.budget == 4 * 90 and not within.over_budget
    assert within.points == within.points_earned == pytest.approx(5 + 1.0)
    over = stage_result(chosen, False, stage, [_result("qlearning", 2, 2, 300.0), _result("championship", 2, 1, 80)])
    assert over.over_budget and over.points == 0 and over.points_earned == pytest.approx(6.0)


@pytest.mark.fast
@pytest.mark.parametrize("key", [e.key for e in EDITIONS])
def test_a_fitted_bundle_fits_every_game_at_its_cap(key):
    chosen = edition(key)
    budget, cap = fitted_search(chosen, 2.5, 4.5)
    assert MOVES_PER_SIDE * (cap + STARTUP_CPU) <= BUDGET_SHARE * tightest_rate(chosen) + 1e-9
    assert 0 < budget <= cap
    if (budget, cap) != (2.5, 4.5):
        assert budget / cap == pytest.approx(2.5 / 4.5, abs=1e-2)


# Fall 2023's points for 0, 1 or 2 games won out of 2, worked out by hand from its rubric: 2 of 2 is
# 100% (full points); 1 of 2 is 50%, in the lowest band.
POINTS_OF_TWO_GAMES = {
    "random": (0, 0, 25),
    "greedy": (0, 0, 25),
    "aggressive": (0, 10 * 0.5, 25),
    "alphabeta": (0, 5 * 0.5, 15),
    "qlearning": (0, 0, 5),
    "championship": (0, 2 * 0.5, 5),
}


def test_a_grade_plays_every_opponent_of_every_stage_through_the_match_machinery():
    report = grade("greedy", "fall2023", games=2, championship="random", settings=GameSettings(jobs=2))
    assert total_games("fall2023", games=2) == 12
    assert [s.name for s in report.stages] == ["stage 1", "stage 2"]
    for stage in report.stages:
        for result in stage.opponents:
            assert result.games == 2 and result.wins == result.wins_as_black + result.wins_as_white
            assert result.points == pytest.approx(POINTS_OF_TWO_GAMES[result.opponent][result.wins])
        assert not stage.over_budget and stage.points == pytest.approx(sum(r.points for r in stage.opponents))
    assert report.points == pytest.approx(sum(s.points for s in report.stages)) and report.max_points == 100
    assert report.stages[1].opponents[1].spec == "random"
    text = format_grade(report)
    assert "championship  random" in text and "stands in for the course's hidden championship agent" in text
    # The noise: each opponent's points over its win rate's interval, summed by stage and for the grade.
    for stage in report.stages:
        for result in stage.opponents:
            assert result.points_95ci == points_range(
                edition("fall2023").rubric[result.opponent], *result.win_rate_95ci
            )
            assert result.points_95ci[0] <= result.points <= result.points_95ci[1]
        low, high = stage.points_95ci
        assert f"{stage.name}: {stage.points:.2f} / {stage.max_points:g} points ({low:.2f}-{high:.2f} at" in text
    low, high = report.points_95ci
    assert low <= report.points <= high and f"points ({low:.2f}-{high:.2f}, the stages' ranges summed)" in text
    assert "littlego match cmd:NEW cmd:OLD --random-opening 2 --sprt 0,20" in text
    again = grade("greedy", "fall2023", games=2, championship="random", settings=GameSettings(jobs=1))
    assert again.points == report.points  # the same games whatever the jobs


def _program_agent(folder, depth=1):
    """A course agent folder: our agent at a fixed shallow depth, run as a program."""
    os.makedirs(str(folder))
    save_params(str(folder / "params.json"), default_params()._replace(depth=depth, cpu_budget=1.0, cpu_cap=1.0))
    (folder / "my_player3.py").write_text(
        "import sys\nfrom engine.agent import main\nsys.exit(main(params_path='params.json'))\n"
    )
    return folder


def littlego(*args, timeout=HANG):
    return cli("littlego", *args, timeout=timeout)


@pytest.mark.slow
def test_grade_a_folder_on_the_submit_stages_as_json(tmp_path):
    agent = _program_agent(tmp_path / "agent")
    result = littlego(
        "grade",
        str(agent),
        "--edition",
        "fall2020",
        "--submit",
        "--games",
        "1",
        "--json",
        "--championship",
        "random",
        "--jobs",
        "2",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["submit"] and report["edition"] == "fall2020" and report["folder"] == str(agent)
    assert [[o["opponent"] for o in s["opponents"]] for s in report["stages"]] == [
        ["random", "greedy", "aggressive"],
        ["qlearning", "championship"],
    ]
    assert report["stages"][1]["budget_assumed"] and report["stages"][1]["budget"] == 2 * 36
    assert 0 < report["cpu_per_move_mean"] <= report["cpu_per_move_max"] < 10  # a process a move, counted


def test_grade_refuses_a_bad_championship_or_edition_in_one_line():
    result = littlego("grade", "greedy", "--championship", "bogus")
    assert result.returncode == 2 and "unknown player 'bogus'" in result.stderr and "Traceback" not in result.stderr
    result = littlego("grade", "greedy", "--edition", "fall1999")
    assert result.returncode == 2 and "unknown edition 'fall1999' (known: fall2023" in result.stderr


@pytest.mark.fast
def test_grade_refuses_an_agent_folder_on_a_remote_scheduler(tmp_path, capsys):
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "my_player3.py").write_text("open('output.txt', 'w').write('PASS')\n")
    assert main(["grade", str(agent), "--games", "1", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert "cannot see" in err and "--jobs N or --scheduler local:N" in err and "Traceback" not in err


def test_bundle_for_an_edition_writes_a_time_budget_that_fits(tmp_path):
    result = littlego("bundle", str(tmp_path / "out"), "--edition", "earlier", "--no-book")
    assert result.returncode == 0, result.stderr
    params, shipped = load_params(str(tmp_path / "out" / "params.json")), load_params(SHIPPED_PARAMS)
    assert (params.cpu_budget, params.cpu_cap) == fitted_search(edition("earlier"), shipped.cpu_budget, shipped.cpu_cap)
    assert "earlier" in params.provenance["time_fitted"] and "12 s" in result.stdout
    result = littlego("bundle", str(tmp_path / "out2"), "--edition", "fall2023", "--no-book")
    assert "already fits" in result.stdout
    assert load_params(str(tmp_path / "out2" / "params.json")).cpu_cap == shipped.cpu_cap


@pytest.mark.slow
def test_grade_the_bundled_agent_fitted_to_the_earlier_edition(tmp_path):
    bundle = tmp_path / "submission"
    assert littlego("bundle", str(bundle), "--edition", "earlier").returncode == 0
    result = littlego("grade", str(bundle), "--edition", "earlier", "--games", "1", "--jobs", "2", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    (stage,) = report["stages"]
    assert [o["games"] for o in stage["opponents"]] == [1, 1, 1, 1] and report["max_points"] == 100
    assert all(not o["faults"] for o in stage["opponents"]) and not stage["over_budget"]
    cap = load_params(str(bundle / "params.json")).cpu_cap
    assert 0 < report["cpu_per_move_max"] <= cap + STARTUP_CPU  # every move within its fitted cap
    assert stage["cpu_total"] <= BUDGET_SHARE * stage["budget"]
    assert "stage 2" not in [s["name"] for s in report["stages"]] and "tournament" in report["stage2_note"]


@pytest.mark.fast
def test_an_editions_alias_names_it_on_the_command_line(capsys):
    from engine.cli.littlego import build_parser

    parser = build_parser()
    assert parser.parse_args(["grade", "x", "--edition", "latest"]).edition == "fall2023"
    assert parser.parse_args(["bundle", "x", "--edition", "spring2022"]).edition == "fall2023"
    with pytest.raises(SystemExit):
        parser.parse_args(["grade", "x", "--edition", "fall1999"])
    assert "unknown edition 'fall1999' (known: fall2023" in capsys.readouterr().err


def test_grade_refuses_a_class_folder_naming_its_agents_and_a_broken_agent_ends_non_zero(tmp_path):
    from tests.conftest import cli

    for name in ("alice", "bob"):
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "my_player3.py").write_text('open("output.txt", "w").write("PASS")\n')
    refused = cli("littlego", "grade", tmp_path / "class", "--games", "1")
    assert refused.returncode == 2 and "Total" not in refused.stdout, refused.stdout
    assert "holds no agent file but 2 agent folders (alice, bob)" in refused.stderr
    assert f"littlego tournament {tmp_path / 'class'}" in refused.stderr
    (tmp_path / "empty").mkdir()
    broken = cli("littlego", "grade", tmp_path / "empty", "--games", "1", "--championship", "random")
    assert broken.returncode == 1 and "Total: 0.00 / 100" in broken.stdout
    assert "the agent could not play: no agent file in" in broken.stderr


@pytest.mark.fast
def test_grade_help_says_a_grade_has_noise_and_how_to_compare_two_versions(capsys):
    from engine.cli.littlego import main as littlego

    with pytest.raises(SystemExit):
        littlego(["grade", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "the range chance alone gives them" in text and "littlego match ... --sprt), not two grades" in text
