"""littlego tournament: the class round-robin, its ranking and tie-break, its faults, and a killed
tournament that resumes to the table an uninterrupted one ends with."""

import csv
import json
import re
import shutil

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from engine.cli.littlego import main
from engine.course.report import format_tournament
from engine.course.tournament import (
    MARK,
    NAME_CHARACTERS,
    MiniMatch,
    extra_black_is_a,
    pairs,
    play_tournament,
    rank,
    shown_names,
)
from engine.params import default_params, save_params
from engine.play.settings import GameSettings
from engine.sandbox.files import excerpt
from tests.conftest import HANG, kill_when_journal_holds, start_cli
from tests.test_course_build import PASS_CPP

SCRIPTED_AGENT = """import sys
from engine.constants import BLACK
from engine.players.scripted import {cls}
from engine.position import Position
from engine.protocol import read_input, write_output

game = read_input("input.txt")
stones = sum(cell != "0" for cell in game.current)
plies = stones + ((stones % 2 == 0) != (game.player == BLACK))
player = {cls}()
player.new_game(game.player, 7)
write_output("output.txt", player.move(Position.from_boards(game.player, game.previous, game.current, plies)))
"""


def agent_folders(root):
    """Six agent folders: our agent at depths 1 and 2, greedy and aggressive as programs, a C++ agent, a broken one."""
    for depth in (1, 2):
        folder = root / f"depth{depth}"
        folder.mkdir(parents=True)
        save_params(str(folder / "params.json"), default_params()._replace(depth=depth, cpu_budget=2.0, cpu_cap=2.0))
        (folder / "my_player3.py").write_text(
            "import sys\nfrom engine.agent import main\nsys.exit(main(params_path='params.json'))\n"
        )
    for name, cls in (("greedy", "GreedyPlayer"), ("aggressive", "AggressivePlayer")):
        (root / name).mkdir()
        (root / name / "my_player3.py").write_text(SCRIPTED_AGENT.format(cls=cls))
    (root / "cpp").mkdir()
    (root / "cpp" / "my_player.cpp").write_text(PASS_CPP)
    (root / "broken").mkdir()
    (root / "broken" / "my_player.cpp").write_text("int main() { this is not C++; }\n")
    return str(root)


@pytest.mark.fast
def test_pairs_and_the_extra_black_game_drawn_from_the_seed():
    assert pairs(3) == [(0, 1), (0, 2), (1, 2)]
    draws = [extra_black_is_a(seed, 0) for seed in range(40)]
    assert draws == [extra_black_is_a(seed, 0) for seed in range(40)] and 5 < sum(draws) < 35


# Folder names that often show alike: a long common beginning or none, then newlines, their escapes, marks.
FOLDER_NAMES = st.tuples(st.sampled_from(["", "p" * (NAME_CHARACTERS - 1)]), st.text("ab\n\\~0f", max_size=14))


@pytest.mark.fast
@given(st.lists(FOLDER_NAMES.map("".join), min_size=1, max_size=8))
@example(["bob~0123456789ab", "bob", "new\nline", "new\\nline"])
def test_shown_names_are_one_a_folder_and_change_only_where_two_would_show_alike(names):
    sources = [f"/class{index}/{name}" for index, name in enumerate(names)]  # a folder name in many places
    shown = shown_names(names, sources)
    assert len(set(shown)) == len(shown)
    for name, text in zip(names, shown):
        short = excerpt(name, NAME_CHARACTERS)
        alike = [other for other in names if excerpt(other, NAME_CHARACTERS) == short]
        marked = re.search(MARK + "[0-9a-f]{12}$", short)  # as a fingerprint ends a name: marked again
        assert text == short if len(alike) == 1 and not marked else text.startswith(short + MARK)


@pytest.mark.fast
def test_ranking_by_wins_then_games_won_then_head_to_head():
    agents = ["a", "b", "c", "d"]
    matches = [
        MiniMatch("a", "b", "a", 5, 6, "b"),
        MiniMatch("a", "c", "a", 6, 5, "a"),
        MiniMatch("a", "d", "a", 6, 5, "a"),
        MiniMatch("b", "c", "b", 5, 6, "c"),
        MiniMatch("b", "d", "b", 6, 5, "b"),
        MiniMatch("c", "d", "c", 11, 0, "c"),
    ]
    table = {x: {} for x in agents}
    for m in matches:
        table[m.a][m.b], table[m.b][m.a] = m.a_games, m.b_games
    standings = rank(agents, matches, table, dict.fromkeys(agents, 0))
    # a, b and c have 2 WINs each; c won most games; a and b tie on games won: b beat a
    assert [(s.agent, s.rank, s.wins, s.games_won) for s in standings] == [
        ("c", 1, 2, 22),
        ("b", 2, 2, 17),
        ("a", 3, 2, 17),
        ("d", 4, 0, 10),
    ]
    cycle = [
        MiniMatch("a", "b", "a", 6, 5, "a"),
        MiniMatch("a", "c", "a", 5, 6, "c"),
        MiniMatch("b", "c", "b", 6, 5, "b"),
    ]
    table = {"a": {"b": 6, "c": 5}, "b": {"a": 5, "c": 6}, "c": {"a": 6, "b": 5}}
    assert [s.rank for s in rank(["a", "b", "c"], cycle, table, dict.fromkeys("abc", 0))] == [1, 1, 1]


@pytest.mark.fast
def test_the_report_names_the_crosstables_columns_and_flags_repeated_games():
    names = ["agent@1", "handset@1", "random"]
    report = play_tournament(names, names, games=5, settings=GameSettings(seed=3, jobs=1, progress=False))
    lines = format_tournament(report).splitlines()
    header = next(line for line in lines if line.lstrip().startswith("rank"))
    ranked = [s.agent for s in report.standings]
    assert header.split()[-3:] == ranked  # the columns, named, in rank order
    by_pair = {(m.a, m.b): m for m in report.matches}
    assert by_pair[("agent@1", "handset@1")].distinct_games == 2  # two deterministic agents: a game a colour
    assert by_pair[("agent@1", "random")].distinct_games > 2
    repeated = [line for line in lines if "distinct of its 5 games" in line]
    assert len(repeated) == 1 and repeated[0].lstrip().startswith("agent@1 ") and "handset@1" in repeated[0]
    assert any(line.startswith("Note: 1 of the 3 mini-matches repeat games") for line in lines)


@pytest.mark.fast
def test_a_tournament_refuses_even_games_and_too_few_agents():
    with pytest.raises(ValueError, match="odd"):
        play_tournament(["greedy", "random"], ["greedy", "random"], games=4)
    with pytest.raises(ValueError, match="at least two"):
        play_tournament(["greedy"], ["greedy"])


def test_an_interrupted_tournament_resumes_to_the_same_table(tmp_path, monkeypatch):
    import engine.course.tournament as tournament_module

    names = specs = ["greedy", "random", "aggressive", "agent@1"]
    whole = play_tournament(names, specs, games=3, settings=GameSettings(seed=4, jobs=2))
    assert [m.a_games + m.b_games for m in whole.matches] == [3] * 6
    assert sum(s.wins for s in whole.standings) == 6
    real, played = tournament_module.tournament_game, []

    def interrupted(job):
        if len(played) == 7:
            raise KeyboardInterrupt
        played.append(job)
        return real(job)

    monkeypatch.setattr(tournament_module, "tournament_game", interrupted)
    journal = str(tmp_path / "t.jsonl")
    with pytest.raises(KeyboardInterrupt):
        play_tournament(names, specs, games=3, settings=GameSettings(seed=4, jobs=1, journal=journal))
    monkeypatch.setattr(tournament_module, "tournament_game", real)
    again = play_tournament(names, specs, games=3, settings=GameSettings(seed=4, jobs=2, journal=journal))
    assert again.resumed_games == 7
    assert (again.standings, again.matches, again.crosstable) == (whole.standings, whole.matches, whole.crosstable)
    with pytest.raises(ValueError, match="seed"):
        play_tournament(names, specs, games=3, settings=GameSettings(seed=5, journal=journal))


@pytest.mark.fast
def test_agent_folders_are_refused_on_a_remote_scheduler_whose_workers_cannot_see_their_builds(tmp_path, capsys):
    folder = tmp_path / "alice"
    folder.mkdir()
    (folder / "my_player3.py").write_text("open('output.txt', 'w').write('PASS')\n")
    assert main(["tournament", str(folder), "random", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert "agent folders are built in a temporary copy on this machine" in err and "--scheduler local:N" in err


def comparable(report):
    return {key: report[key] for key in ("standings", "matches", "crosstable", "faults")}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_killed_tournament_of_six_folders_resumes_to_the_uninterrupted_table(tmp_path):
    folders = agent_folders(tmp_path / "class")
    # One game a pair keeps the test's CPU modest (the colours of longer mini-matches: the test above).
    whole = start_cli(
        "littlego", "tournament", folders, "--games", "1", "--jobs", "2", "--json", "--csv", tmp_path / "t.csv"
    )
    out, err = whole.communicate(timeout=HANG)
    assert whole.returncode == 0, err
    expected = json.loads(out)
    assert [s["agent"] for s in expected["standings"]][-1] == "broken"
    assert {f["agent"] for f in expected["faults"]} == {"broken"} and len(expected["faults"]) == 5
    assert "'g++ -O2 *.cpp -o exe' failed" in expected["faults"][0]["detail"]
    rows = list(csv.reader(open(str(tmp_path / "t.csv"))))
    assert rows[0][:3] == ["rank", "agent", "WINs"] and len(rows) == 7
    journal = tmp_path / "t.jsonl"
    command = ["tournament", folders, "--games", "1", "--jobs", "1", "--json", "--resume", str(journal)]
    first = start_cli("littlego", *command)
    done = kill_when_journal_holds(first, journal, 7)
    assert 6 <= done < 15
    again = start_cli("littlego", *command)
    out, err = again.communicate(timeout=HANG)
    assert again.returncode == 0, err
    report = json.loads(out)
    assert report["resumed_games"] >= 6 and comparable(report) == comparable(expected)


def test_new_entrants_join_a_finished_tournament_and_play_only_their_pairs(tmp_path, monkeypatch):
    import engine.course.tournament as tournament_module

    journal = str(tmp_path / "class.jsonl")
    first = ["greedy", "random", "aggressive"]
    settings = GameSettings(seed=4, jobs=1, journal=journal)
    play_tournament(first, first, games=3, settings=settings)
    real, played = tournament_module.tournament_game, []

    def counted(job):
        played.append(job)
        return real(job)

    monkeypatch.setattr(tournament_module, "tournament_game", counted)
    # a new entrant, listed first: the journal's agents keep their order, the newcomer's pairs come after
    later = ["agent@1"] + first
    joined = play_tournament(later, later, games=3, settings=settings)
    assert joined.resumed_games == 9 and len(played) == 9  # 3 old pairs kept, 3 new pairs played
    assert {frozenset((job[0].spec_a, job[0].spec_b)) for job in played} == {
        frozenset(("agent@1", other)) for other in first
    }
    assert joined.agents == first + ["agent@1"]
    assert any("agent@1 joined the tournament of its journal" in note for note in joined.notes)
    monkeypatch.setattr(tournament_module, "tournament_game", real)
    fresh = play_tournament(first + ["agent@1"], first + ["agent@1"], games=3, settings=GameSettings(seed=4, jobs=2))
    assert (joined.standings, joined.matches, joined.crosstable) == (fresh.standings, fresh.matches, fresh.crosstable)


@pytest.mark.fast
def test_a_journal_from_before_entrants_could_join_resumes_but_takes_no_new_agent(tmp_path):
    import json

    from engine.play.journal import FORMAT

    names = ["greedy", "random", "aggressive"]
    journal = tmp_path / "old.jsonl"  # a journal of the old pair order: its header has no "pairs"
    header = {"tournament": names, "games": 3, "seed": 4, "cpu_limit": GameSettings(seed=4).cpu_limit}
    journal.write_text(json.dumps(dict(header, format=FORMAT), sort_keys=True) + "\n")
    again = play_tournament(names, names, games=3, settings=GameSettings(seed=4, jobs=2, journal=str(journal)))
    assert again.resumed_games == 0 and sum(m.a_games + m.b_games for m in again.matches) == 9
    more = names + ["agent@1"]
    with pytest.raises(ValueError, match="begun before new entrants could join one .agent@1 are new."):
        play_tournament(more, more, games=3, settings=GameSettings(seed=4, journal=str(journal)))
