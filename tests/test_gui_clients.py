"""``littlego gtp`` driven by the real clients: Sabaki's own GTP library (``@sabaki/gtp`` from npm, in
``tests/clients/sabaki``; ``.ci/run`` installs it) as Sabaki's analysis drives it, and Lizzie (Debian's
``liblizzie-java``) under Xvfb. Each record's analysis must give the exact values of the position it shows."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from engine.native.compiler import NativeError
from engine.native.solver import NativeSolver
from engine.players.gtp import point_to_vertex, vertex_to_point
from engine.players.specs import make_player
from engine.ui.gtp_server import GtpEngine
from tests.conftest import HANG, ROOT

SABAKI = os.path.join(ROOT, "tests", "clients", "sabaki")
SABAKI_LIBRARY = os.path.join(SABAKI, "node_modules", "@sabaki", "gtp", "package.json")
SLOW = pytest.mark.slow  # a minute or more: the clients start, and each position is solved to the end

ENGINE = [sys.executable, "-m", "engine.cli.littlego", "gtp", "--player", "handset@2"]


def position_after(commands):
    """The position ``littlego gtp`` holds after the GTP ``commands`` (name and arguments each)."""
    engine = GtpEngine(make_player("random"))
    for command in commands:
        answer = engine.handle(" ".join([command["name"]] + command["args"]))
        assert answer is not None and answer.startswith("="), (command, answer)
    return engine.position


def exact_results(position):
    try:
        with NativeSolver() as solver:
            return solver.move_results(position)
    except NativeError as error:
        pytest.skip(f"no compiled solver here: {error}")


def weighted_rate(items):
    """A GUI's win rate of the position: its moves' rates weighted by their visits (Lizzie's bar)."""
    return sum(item["winrate"] * item["visits"] for item in items) / sum(item["visits"] for item in items)


@pytest.fixture(scope="module")
def sabaki_report():
    if shutil.which("node") is None or not os.path.exists(SABAKI_LIBRARY):
        pytest.skip("Sabaki's GTP library not installed: npm ci --prefix tests/clients/sabaki (.ci/run does)")
    done = subprocess.run(
        ["node", "drive.js"] + ENGINE,
        cwd=SABAKI,
        capture_output=True,
        text=True,
        timeout=HANG,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@SLOW
def test_sabakis_start_up_and_engine_stay_healthy(sabaki_report):
    report = sabaki_report
    assert "crash" not in report, report.get("crash")
    assert report["startup"]["name"] == "littlego" and report["startup"]["protocol_version"] == "2"
    assert report["knows"] is True  # kata-analyze is listed, so Sabaki picks it
    assert report["exited"] == 0 and "Traceback" not in report["stderr"]
    for record in report["records"]:
        assert record["synced"] is True, (record["label"], record["synced"])
        for form in ("kata", "lz"):
            assert record[form]["next"] == "littlego", record["label"]  # the command after it was answered


@SLOW
@pytest.mark.parametrize("label", ["setup", "undone", "handicap", "empty"])
def test_sabakis_analysis_gives_the_exact_values_of_the_record(sabaki_report, label):
    record = next(record for record in sabaki_report["records"] if record["label"] == label)
    history = {
        "setup": [("B", "C3"), ("B", "D2"), ("W", "C4")],  # AB[cc][dd] AW[cb]: setup stones as plays
        "undone": [("B", "C3"), ("W", "C2")],
        "handicap": None,
        "empty": [],
    }[label]
    if history is None:
        commands = [{"name": "set_free_handicap", "args": ["C3", "B2"]}]
    else:
        commands = [{"name": "play", "args": list(move)} for move in history]
    assert [line for line in record["sent"] if line.startswith(("play", "set_free"))] == [
        " ".join([c["name"]] + c["args"]) for c in commands
    ]
    position = position_after(commands)
    winners = {point_to_vertex(move) for move, wins in exact_results(position).items() if wins}
    for form in ("kata", "lz"):
        analysis = record[form]
        assert analysis["error"] is None and analysis["lines"], (label, form)
        last = analysis["lines"][-1]
        assert {item["vertex"] for item in last} == {point_to_vertex(m) for m in position.all_moves()}
        assert all(item["winrate"] in (0, 100) for item in last), (label, form, last)  # exact, as Sabaki reads it
        assert {item["vertex"] for item in last if item["winrate"] == 100} == winners
        if winners:
            assert last[0]["vertex"] in winners and weighted_rate(last) > 99.7
        else:
            assert weighted_rate(last) == 0
        for item in last:  # every principal variation starts with its move and is legal from the position
            assert item["pv"][0] == item["vertex"]
            line = position
            for vertex in item["pv"]:
                move = vertex_to_point(vertex)
                assert not line.is_over and move in line.all_moves(), (label, item)
                line = line.play_point(move)


@SLOW
def test_sabakis_analysis_of_a_record_that_ends_in_passes_gives_its_result(sabaki_report):
    record = next(record for record in sabaki_report["records"] if record["label"] == "passes")
    assert "game over" in record["board"]
    for form in ("kata", "lz"):
        assert record[form]["error"] == "the game is over: W+2.5" and record[form]["lines"] == []


# -- Lizzie ---------------------------------------------------------------------------------------------------

LIZZIE_JAR = "/usr/share/java/lizzie.jar"
LIZZIE_RUN = os.path.join(ROOT, "tests", "clients", "lizzie", "run.sh")
RECORDS = {
    "setup": ("(;FF[4]GM[1]SZ[5]KM[2.5]AB[cc][dd]AW[cb]PL[B])", 0),  # (the record, steps forward through it)
    "three": ("(;FF[4]GM[1]SZ[5]KM[2.5];B[cc];W[cb];B[dd])", 3),
    "passes": ("(;FF[4]GM[1]SZ[5]KM[2.5];B[cc];W[cd];B[];W[])", 4),
}


def responses(text):
    """The engine's answers as it wrote them: [(id, ok, [lines])], an analysis's info lines its lines."""
    found = []
    for block in text.split("\n\n"):
        lines = [line for line in block.splitlines() if line]
        if lines:
            head = lines[0].split(" ", 1)
            found.append((head[0][1:], head[0][0] == "=", ([head[1]] if len(head) > 1 else []) + lines[1:]))
    return found


def lizzie(tmp_path, label):
    """Lizzie on the record ``label`` of RECORDS, stepped through it: (commands sent, answers, Lizzie's log)."""
    for tool in ("java", "xvfb-run", "xdotool"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed (.ci/run installs Lizzie's packages)")
    if not os.path.exists(LIZZIE_JAR):
        pytest.skip("Lizzie not installed: apt-get install liblizzie-java xvfb xauth xdotool (.ci/run does)")
    record, steps = RECORDS[label]
    (tmp_path / "record.sgf").write_text(record + "\n")
    engine = tmp_path / "engine.sh"
    command = " ".join(ENGINE)
    logs = f"tee -a {tmp_path}/sent.log | PYTHONPATH={ROOT} {command} | tee -a {tmp_path}/answers.log"
    engine.write_text(f"#!/bin/sh\ncd {ROOT}\nexec {logs}\n")
    engine.chmod(0o755)
    config = tmp_path / ".config" / "leela-zero"
    config.mkdir(parents=True)
    settings = {
        "leelaz": {"engine-command": str(engine), "print-comms": True, "analyze-update-interval-centisec": 20},
        "ui": {"board-size": 5, "confirm-exit": False, "resume-previous-game": False},
    }
    (config / "lizzie-config.txt").write_text(json.dumps(settings))
    done = subprocess.run(
        [
            "xvfb-run",
            "-a",
            "-s",
            "-screen 0 1280x900x24",
            LIZZIE_RUN,
            str(tmp_path),
            str(tmp_path / "record.sgf"),
            str(steps),
        ],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    log = (tmp_path / "lizzie.out").read_text()
    assert done.returncode == 0, done.stdout + done.stderr + log
    sent = [line.split(" ", 1) for line in (tmp_path / "sent.log").read_text().splitlines() if line.strip()]
    return sent, responses((tmp_path / "answers.log").read_text()), log


def analyses(sent, answers):
    """[(position, ok, the last info line's items)] for each lz-analyze Lizzie sent, in order."""
    by_id = {ident: (ok, lines) for ident, ok, lines in answers}
    engine = GtpEngine(make_player("random"))
    found = []
    for ident, command in sent:
        if command.startswith("lz-analyze"):
            ok, lines = by_id[ident]
            items = []
            if ok and lines:
                for part in lines[-1].split("info move ")[1:]:
                    words = part.split()
                    fields = dict(zip(words[1::2], words[2::2]))
                    items.append(
                        {"vertex": words[0], "visits": int(fields["visits"]), "winrate": int(fields["winrate"]) / 100}
                    )
            found.append((engine.position, ok, items, lines))
        elif command.split()[0] in ("play", "clear_board", "boardsize", "komi"):
            assert engine.handle(command).startswith("="), command
    return found


def check_exact(position, items):
    winners = {point_to_vertex(move) for move, wins in exact_results(position).items() if wins}
    assert {item["vertex"] for item in items if item["winrate"] == 100} == winners
    assert all(item["winrate"] in (0, 100) for item in items)
    # Lizzie's bar: the moves' rates weighted by their visits; the side to move's
    assert (weighted_rate(items) > 99.7) if winners else (weighted_rate(items) == 0)
    return bool(winners)


@SLOW
def test_lizzie_analyses_a_record_with_setup_stones_exactly(tmp_path):
    sent, answers, log = lizzie(tmp_path, "setup")
    assert "requires version" not in log and "ended unintentionally" not in log
    plays = [command for _, command in sent if command.startswith("play")]
    assert plays == ["play B C3", "play B D2", "play W C4"]  # the setup stones, two of Black's in a row
    (position, ok, items, _), *_ = [a for a in analyses(sent, answers) if a[0].moves_played > 0]
    assert ok and position.colour_at(vertex_to_point("C4")) != 0
    assert check_exact(position, items)  # Black to move wins


@SLOW
def test_lizzie_shows_the_winning_side_on_the_empty_board_and_after_ply_3(tmp_path):
    sent, answers, log = lizzie(tmp_path, "three")
    found = analyses(sent, answers)
    plies = {position.moves_played: (position, items) for position, ok, items, _ in found if ok and items}
    assert set(plies) >= {0, 1, 2, 3}, sorted(plies)
    for ply, (position, items) in plies.items():
        won = check_exact(position, items)
        if ply == 0:
            assert won and items[0]["vertex"] == "C3"  # the empty board: Black wins, with 2,2 alone


@SLOW
def test_lizzie_steps_to_the_end_of_a_record_that_ends_in_passes(tmp_path):
    sent, answers, log = lizzie(tmp_path, "passes")
    assert "ended unintentionally" not in log
    found = analyses(sent, answers)
    last_position, ok, _, lines = found[-1]
    assert last_position.is_over and not ok and lines == ["the game is over: W+2.5"]
    assert [command for _, command in sent].count("play W pass") == 1


@pytest.mark.fast
def test_the_logged_exchange_reads_back_as_the_engine_wrote_it():
    # the reading the Lizzie tests rest on: answers by id, an analysis's lines its lines, an error an error
    log = "=1 littlego\n\n=2\ninfo move C3 visits 10000 winrate 10000\ninfo move C3 visits 10000\n\n"
    log += "?3 the game is over\n\n"
    assert responses(log) == [
        ("1", True, ["littlego"]),
        ("2", True, ["info move C3 visits 10000 winrate 10000", "info move C3 visits 10000"]),
        ("3", False, ["the game is over"]),
    ]
    position = position_after([{"name": "play", "args": ["B", "C3"]}, {"name": "play", "args": ["B", "D2"]}])
    assert position.moves_played == 3 and position.colour_at(vertex_to_point("D2")) != 0  # setup, White to move
