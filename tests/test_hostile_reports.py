"""Hostile entrants against what littlego reports and keeps: a folder named to show as another's name in
the tournament's table, a folder named as a spreadsheet formula in its CSV, and an agent that faults on
purpose to leave code for the replay of its kept move to run."""

import csv
import json
import subprocess

import pytest

from engine.cli.course import tournament_agents
from engine.cli.littlego import main
from engine.constants import BLACK
from engine.players.base import PlayerFault
from engine.players.host import format_input
from engine.players.program import ProgramPlayer
from engine.position import Position
from engine.sandbox.isolation import isolation
from tests.conftest import HANG
from tests.test_course_build import PASS_PY

isolated = pytest.mark.skipif(not isolation()[0], reason=f"no isolation here: {isolation()[1]}")

VICTIM = "alice-the-honest-student-of-section-two-fall-2026"  # longer than the table shows of a name
IMPOSTOR = VICTIM[:40] + "!"  # its first 40 characters, sorting before it


def folder_of(root, name, text=PASS_PY):
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "my_player3.py").write_text(text)
    return str(folder)


@pytest.mark.fast
@pytest.mark.parametrize(
    "victim, impostor",
    [(VICTIM, IMPOSTOR), ("new\nline", "new\\nline"), ("bob", "bob#2")],
    ids=["the same first 40 characters", "a newline and its escape", "the number of a second bob"],
)
def test_no_entrant_shows_under_the_name_another_shows_alone(tmp_path, victim, impostor):
    alone = tournament_agents([folder_of(tmp_path / "alone", victim), "random"])[0][0]
    others = tmp_path / "others"
    # An impostor given beside the class, and one more folder of the victim's own name elsewhere.
    arguments = [folder_of(tmp_path / "class", victim), folder_of(tmp_path / "class", impostor)]
    arguments.append(folder_of(others, victim))
    names, agents = tournament_agents(arguments)
    shown = dict(zip(agents, names))
    assert len(set(names)) == len(names)
    assert shown[str(tmp_path / "class" / impostor)] != alone and shown[str(others / victim)] != alone
    # What a name shows comes from its own folder: the same whichever order the folders are given in.
    assert dict(zip(*reversed(tournament_agents(arguments[::-1])))) == shown


def test_every_report_says_which_folder_each_name_stands_for(tmp_path, capsys):
    root = tmp_path / "class"
    folders = [folder_of(root, name) for name in (VICTIM, IMPOSTOR)]
    table = tmp_path / "table.csv"
    arguments = ["tournament", str(root), "--games", "1", "--jobs", "2", "--csv", str(table)]
    assert main(arguments + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    names = [standing["agent"] for standing in report["standings"]]
    assert sorted(report["entrants"].values()) == sorted(folders) and sorted(report["entrants"]) == sorted(names)
    rows = list(csv.reader(open(str(table))))
    assert rows[0][-1] == "folder or spec" and {row[1]: row[-1] for row in rows[1:]} == report["entrants"]
    assert main(arguments) == 0
    text = capsys.readouterr().out.splitlines()
    who = text[text.index("Who is who:") + 1 :][: len(names)]
    assert {line.split()[0]: line.split()[1] for line in who} == report["entrants"]


def test_a_folder_named_as_a_formula_is_text_in_the_tournaments_csv(tmp_path):
    root = tmp_path / "class"
    for name in ("=1+2", "@SUM(1+1)", "+1", "-1+1"):
        folder_of(root, name)
    table = tmp_path / "table.csv"
    assert main(["tournament", str(root), "--games", "1", "--jobs", "2", "--csv", str(table), "--no-progress"]) == 0
    rows = list(csv.reader(open(str(table))))
    cells = [cell for row in rows for cell in row]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert {"'=1+2", "'@SUM(1+1)", "'+1", "'-1+1"} <= set(cells) and "vs =1+2" in rows[0]
    assert all(row[0].isdigit() and row[2].isdigit() for row in rows[1:])  # the numbers are numbers


@pytest.mark.fast
def test_a_csv_cell_is_neutralised_only_where_text_begins_as_a_formula():
    from engine.course.report import spreadsheet_cell

    cells = ["=1+2", "+1", "-1+1", "@A1", "\tx", "\rx", "plain", "vs =1", -3, 2.5, 0]
    assert [spreadsheet_cell(cell) for cell in cells] == [
        "'=1+2",
        "'+1",
        "'-1+1",
        "'@A1",
        "'\tx",
        "'\rx",
        "plain",
        "vs =1",
        -3,
        2.5,
        0,
    ]


SUBMITTED = """import sys
open("my_player3.py", "w").write({planted!r})  # for replay.sh to run, outside the sandbox as root
sys.exit("the submitted code ran")
"""
PLANTED = "import sys\nopen({marker!r}, 'w').close()\nsys.exit('the planted code ran')\n"


@pytest.mark.fast
@pytest.mark.parametrize(
    "words", [pytest.param([], marks=isolated, id="in the sandbox"), pytest.param(["--sandbox", "off"], id="off")]
)
def test_replay_sh_plays_the_folder_as_submitted_never_what_its_faulting_move_left(tmp_path, words):
    marker = tmp_path / "the-planted-code-ran"
    code = SUBMITTED.format(planted=PLANTED.format(marker=str(marker)))
    folder = folder_of(tmp_path, "agent", code)
    player = ProgramPlayer(folder, keep_faults=str(tmp_path / "faults"))
    position = Position.initial()
    try:
        player.new_game(BLACK, 0)
        with pytest.raises(PlayerFault, match="the submitted code ran"):
            player.move(position)
    finally:
        player.close()
    (kept,) = (tmp_path / "faults").iterdir()
    again = subprocess.run(["sh", str(kept / "replay.sh")] + words, capture_output=True, text=True, timeout=HANG)
    assert not marker.exists(), again.stderr
    assert again.returncode == 1 and "the submitted code ran" in again.stderr, again.stderr
    assert (kept / "input.txt").read_text() == format_input(BLACK, position.previous_string(), position.board_string())
    assert (kept / "submitted" / "my_player3.py").read_text() == code  # never written, by the move or its replay
