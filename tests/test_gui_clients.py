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
from tests.conftest import ROOT

SABAKI = os.path.join(ROOT, "tests", "clients", "sabaki")
SABAKI_LIBRARY = os.path.join(SABAKI, "node_modules", "@sabaki", "gtp", "package.json")
pytestmark = pytest.mark.slow  # a minute or more: the clients start, and each position is solved to the end

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
        timeout=600,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


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


def test_sabakis_analysis_of_a_record_that_ends_in_passes_gives_its_result(sabaki_report):
    record = next(record for record in sabaki_report["records"] if record["label"] == "passes")
    assert "game over" in record["board"]
    for form in ("kata", "lz"):
        assert record[form]["error"] == "the game is over: W+2.5" and record[form]["lines"] == []
