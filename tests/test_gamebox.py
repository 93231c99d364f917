"""A program player's moves forked from one sandbox's move server: the course's semantics kept.

The limits and faults of a served move are those of a move in a sandbox of its own: every test of
``test_sandbox`` and ``test_hostile`` runs through the move server where it is available (the
first test here checks that it is). These tests check what a fresh interpreter would have done,
and that a match plays the same games either way.
"""

import json
import os

import pytest

from engine.cli.littlego import main
from engine.common.pools import measured_call
from engine.constants import BLACK, WHITE
from engine.play.game import play_game
from engine.players.base import PlayerFault, Reason
from engine.players.program import ProgramPlayer
from engine.players.specs import make_player
from engine.position import Position
from engine.sandbox import gamebox, spares
from engine.sandbox.limits import Limits, SandboxMode
from engine.sandbox.workspace import quota_root
from tests.conftest import ROOT

LIMITS = Limits(mode=SandboxMode.AUTO, memory_mb=256, processes=64, file_mb=16, folder_mb=8)
served = pytest.mark.skipif(not gamebox.available(LIMITS), reason="no move server here (needs bwrap)")
STUDENT = f"{ROOT}/examples/student-agent"


def folder_of(tmp_path, name, script):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "my_player3.py").write_text(script)
    return str(folder)


def moves(player, count, position=None):
    """The first ``count`` answers of ``player`` in one game (a PlayerFault ends them)."""
    player.new_game(BLACK, 1)
    answers = []
    try:
        for _ in range(count):
            answers.append(player.timed_move(position or Position.initial())[0])
    finally:
        player.close()
    return answers


@pytest.mark.slow
@served
def test_a_match_plays_the_same_games_served_or_a_sandbox_a_move(monkeypatch):
    player = ProgramPlayer(STUDENT, limits=LIMITS)
    player.new_game(BLACK, 1)
    assert player.box is not None  # the move server plays here: the sandbox tests run through it
    player.close()

    def games():
        records = []
        for seed in range(4):
            pair = [ProgramPlayer(STUDENT, limits=LIMITS), make_player("greedy")]
            black, white = pair if seed % 2 == 0 else pair[::-1]
            records.append(play_game(black, white, seed=seed, opening_plies=2))
        return [(r.moves, r.winner, r.reason) for r in records]

    served_games = games()
    monkeypatch.setattr(gamebox, "available", lambda limits: False)
    assert games() == served_games
    assert all(reason == Reason.END for _, _, reason in served_games)


FRESH = """import random, sys
assert __name__ == "__main__" and sys.argv == ["my_player3.py"] and __file__.endswith("/my_player3.py")
with open("draws.txt", "a") as draws:
    draws.write(f"{random.random()}\\n")
answer = open("output.txt", "w")       # never closed: the interpreter's end flushes it
answer.write("PASS")
exit(0)                                 # site's exit(), as a fresh interpreter has it
"""


@served
def test_a_python_agent_runs_as_a_fresh_interpreter_would(tmp_path):
    player = ProgramPlayer(folder_of(tmp_path, "fresh", FRESH), limits=LIMITS)
    player.new_game(BLACK, 1)
    try:
        assert [player.timed_move(Position.initial())[0] for _ in range(3)] == ["PASS"] * 3
        with open(f"{player.workdir}/draws.txt") as draws:
            values = draws.read().split()
    finally:
        player.close()
    assert len(set(values)) == 3  # random seeded afresh at every move, as a new process seeds it


@served
@pytest.mark.parametrize(
    "ending, words",
    [
        ("raise ValueError('boom')", "ValueError: boom"),
        ("import sys; sys.exit('bye from the agent')", "bye from the agent"),
        ("import ctypes; ctypes.string_at(0)", "signal 11"),  # a memory fault
    ],
)
def test_a_python_agents_end_reads_as_a_fresh_interpreters(tmp_path, ending, words):
    with pytest.raises(PlayerFault) as raised:
        moves(ProgramPlayer(folder_of(tmp_path, "ending", ending + "\n"), limits=LIMITS), 1)
    assert raised.value.reason == Reason.CRASH and words in raised.value.detail, raised.value.detail
    assert "move_server" not in raised.value.detail  # the script's own frames only


@pytest.mark.fast
@served
def test_a_missing_script_reads_as_the_interpreters_message_not_the_servers_traceback(tmp_path):
    folder = tmp_path / "cpp-only"
    folder.mkdir()
    (folder / "my_player.cpp").write_text("int main() { return 0; }\n")
    with pytest.raises(PlayerFault) as raised:
        moves(ProgramPlayer(str(folder), limits=LIMITS), 1)
    detail = raised.value.detail
    assert "exited with status 2" in detail and "can't open file" in detail and "my_player3.py" in detail, detail
    assert "move_server" not in detail and "Traceback" not in detail


@served
def test_any_other_program_is_executed_in_the_served_move(tmp_path):
    folder = tmp_path / "shell"
    folder.mkdir()
    (folder / "move.sh").write_text("test -f input.txt && printf PASS > output.txt\n")
    assert moves(ProgramPlayer(str(folder), command="sh move.sh", limits=LIMITS), 2) == ["PASS", "PASS"]


@served
def test_each_game_is_served_by_a_sandbox_of_its_own(tmp_path):
    script = """import os
seen = os.path.exists("note.txt")
open("note.txt", "w").write("left by a move")
open("output.txt", "w").write("9,9" if seen else "PASS")
"""
    player = ProgramPlayer(folder_of(tmp_path, "notes", script), limits=LIMITS)
    servers = []
    for colour in (BLACK, WHITE):
        player.new_game(colour, 1)
        try:
            assert player.timed_move(Position.initial())[0] == "PASS"
            servers.append(player.box.process.pid)
            box = player.box
        finally:
            player.close()
        assert box.process is None  # ended with its game
    assert servers[0] != servers[1]


@served
def test_the_next_games_sandbox_starts_while_a_game_plays_and_serves_the_next_game_of_any_folder(tmp_path):
    script = "open('output.txt', 'w').write(open('answer.txt').read())\n"
    first = tmp_path / "first"
    second = tmp_path / "second"
    for folder, answer in ((first, "PASS"), (second, "2,2")):
        folder.mkdir()
        (folder / "my_player3.py").write_text(script)
        (folder / "answer.txt").write_text(answer)
    player = ProgramPlayer(str(first), limits=LIMITS)
    player.new_game(BLACK, 1)
    try:
        (starting,) = spares._waiting.values()
        spare = starting.result()  # made on the starter thread while this game plays
        assert spare.box is not None and spare.box.process is not None  # started before any game asked for it
        assert os.listdir(spare.workspace.folder) == []  # and empty: the next game copies its folder in
        assert player.box is not spare.box and player.timed_move(Position.initial())[0] == "PASS"
    finally:
        player.close()
    other = ProgramPlayer(str(second), limits=LIMITS)  # another folder, the same command and limits
    other.new_game(WHITE, 1)
    try:
        assert other.box is spare.box and other.workspace is spare.workspace
        assert other.timed_move(Position.initial())[0] == 12  # its own folder's answer, in the spare's sandbox
        assert "answer.txt" in os.listdir(other.workdir) and other.left_files() == []
    finally:
        other.close()
    spares.close_all()
    assert spares._waiting == {} and spare.box.process is None


@served
def test_the_server_has_sites_module_path_without_running_its_pth_files_until_a_module_needs_them(tmp_path):
    script = """import json, sys
found = {"path": sys.path[1:], "prefix": sys.prefix, "site_ran": "sitecustomize" in sys.modules or any(
    name.startswith("__editable__") for name in sys.modules), "exit": callable(exit)}
import engine.constants  # littlego's own, installed: an editable install's finder is run for it here
found["engine"] = engine.constants.__file__
open("found.json", "w").write(json.dumps(found))
open("output.txt", "w").write("PASS")
"""
    player = ProgramPlayer(folder_of(tmp_path, "site", script), limits=LIMITS)
    player.new_game(BLACK, 1)
    try:
        assert player.timed_move(Position.initial())[0] == "PASS"
        found = json.loads(open(f"{player.workdir}/found.json").read())
    finally:
        player.close()
    paths = gamebox.site_paths()
    assert paths is not None and found["path"][: len(paths["path"])] == paths["path"]
    assert found["prefix"] == paths["prefix"] and found["exit"] and not found["site_ran"]
    assert found["engine"].endswith("engine/constants.py")


BURNER = """import time
end = time.process_time() + 0.4
while time.process_time() < end:
    pass
open("output.txt", "w").write("PASS")
"""


def _one_move_of(folder):
    player = ProgramPlayer(folder, limits=LIMITS)
    player.new_game(BLACK, 1)
    try:
        return player.timed_move(Position.initial())
    finally:
        player.close()


@served
def test_a_jobs_cpu_counts_the_moves_of_the_sandboxes_it_ended(tmp_path):
    burner = folder_of(tmp_path, "burner", BURNER)
    measured = measured_call((_one_move_of, burner))
    move, charged = measured.outcome
    assert move == "PASS" and charged >= 0.4
    assert measured.cpu_seconds >= 0.4  # the sandbox was killed with its game: its CPU is counted all the same


def test_littlego_sandbox_says_how_copies_and_moves_run_here(capsys):
    assert main(["sandbox"]) == 0
    lines = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines())
    assert lines["disk"].startswith(
        f"each copy a tmpfs of its own under {quota_root()}" if quota_root() else "no quota"
    )
    assert lines["moves"].startswith("forked from" if gamebox.available(Limits()) else "a sandbox and a process each")


@served
def test_a_program_installed_under_tmp_plays_every_game(tmp_path):
    """The sandbox's /tmp is its workspace's folder: what bwrap mounts there (a program's installation
    under /tmp, littlego's own checkout in a CI clone) is there at every game."""
    installation = tmp_path / "installed"
    (installation / "bin").mkdir(parents=True)
    program = installation / "bin" / "agent"
    program.write_text("#!/bin/sh\nprintf PASS > output.txt\n")
    program.chmod(0o755)
    folder = tmp_path / "agent"
    folder.mkdir()
    player = ProgramPlayer(str(folder), command=str(program), limits=LIMITS)
    assert str(tmp_path).startswith("/tmp/")  # pytest's temporary folders: under /tmp, as a CI clone is
    answers = []
    for _ in range(3):
        answers.append(moves(player, 1))
    assert answers == [["PASS"]] * 3
