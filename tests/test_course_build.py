"""Agent folders in every course language, recognised and built as build.sh does; an agent that
cannot be built loses its games with the reason, and everything else goes on."""

import os
import shutil

import pytest

import engine.course.build as build
from engine.constants import BLACK, WHITE
from engine.course.build import LANGUAGES, built_agents, course_game, recognise
from engine.course.grade import grade
from engine.play.match import game_job
from engine.players.base import Reason
from tests.conftest import HANG

PASS_CPP = '#include <fstream>\nint main() { std::ofstream out("output.txt"); out << "PASS"; return 0; }\n'
PASS_JAVA = (
    "import java.io.*;\npublic class my_player { public static void main(String[] a) throws Exception {\n"
    '  try (PrintWriter w = new PrintWriter("output.txt")) { w.print("PASS"); } } }\n'
)
PASS_PY = 'open("output.txt", "w").write("PASS")\n'
needs_gpp = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")


def agent_folder(root, name, files):
    folder = root / name
    folder.mkdir()
    for file_name, text in files.items():
        (folder / file_name).write_text(text)
    return str(folder)


@pytest.mark.fast
def test_the_first_agent_file_in_build_sh_order_is_played(tmp_path):
    assert [language.source for language in LANGUAGES] == [
        "my_player.py",
        "my_player3.py",
        "my_player.cpp",
        "my_player.java",
        "my_player11.cpp",
    ]
    both = agent_folder(tmp_path, "both", {"my_player3.py": PASS_PY, "my_player.cpp": PASS_CPP})
    assert recognise(both).source == "my_player3.py"
    cpp = agent_folder(tmp_path, "cpp", {"my_player11.cpp": PASS_CPP, "my_player.java": PASS_JAVA})
    assert recognise(cpp).source == "my_player.java"
    assert recognise(agent_folder(tmp_path, "none", {"notes.txt": "hello"})) is None


@needs_gpp
def test_a_cpp_agent_is_built_once_in_a_copy_and_plays(tmp_path):
    folder = agent_folder(tmp_path, "cpp", {"my_player.cpp": PASS_CPP, "helper.cpp": "int helper() { return 1; }\n"})
    with built_agents([folder]) as (built,):
        assert built.error is None and built.language == "C++" and built.spec.endswith("::./exe")
        assert sorted(os.listdir(folder)) == ["helper.cpp", "my_player.cpp"]  # the original untouched
        record = game_job((0, built.spec, "random", 1, 0, 10.0, BLACK))
        assert record.reason == Reason.END and record.moves[0] == "PASS"
    assert not os.path.exists(built.spec[4:].partition("::")[0])  # the workspace goes with the ``with``


@pytest.mark.fast
@needs_gpp
def test_a_failed_build_or_missing_compiler_or_no_agent_file_is_a_clear_reason(tmp_path, monkeypatch):
    broken = agent_folder(tmp_path, "broken", {"my_player.cpp": "int main() { this is not C++; }\n"})
    empty = agent_folder(tmp_path, "empty", {"readme.txt": "no agent"})
    java = agent_folder(tmp_path, "java", {"my_player.java": PASS_JAVA})
    real_which = shutil.which
    monkeypatch.setattr(build.shutil, "which", lambda name: None if name == "javac" else real_which(name))
    with built_agents([broken, empty, java, str(tmp_path / "nowhere")]) as built:
        reasons = [b.error for b in built]
    assert "'g++ -O2 *.cpp -o exe' failed with status 1" in reasons[0] and "my_player.cpp" in reasons[0]
    assert "no agent file" in reasons[1] and "my_player3.py" in reasons[1]
    assert "my_player.java needs javac, which is not installed (apt-get install" in reasons[2]
    assert "is not a folder" in reasons[3]


@pytest.mark.fast
def test_an_agent_that_cannot_play_loses_each_game_with_the_reason():
    broken = {"cmd:/x": "no agent file in /x"}
    as_black = course_game(((0, "cmd:/x", "random", 1, 0, 10.0, None), broken))
    assert as_black.black == "cmd:/x" and as_black.winner == WHITE and as_black.reason == Reason.CRASH
    assert as_black.detail == "Black cannot play: no agent file in /x" and not as_black.a_won
    as_white = course_game(((1, "cmd:/x", "random", 1, 0, 10.0, None), broken))
    assert as_white.white == "cmd:/x" and as_white.winner == BLACK
    both = course_game(((0, "cmd:/x", "cmd:/x", 1, 0, 10.0, None), broken))
    assert both.winner == WHITE  # Black fails first


@pytest.mark.fast
def test_a_grade_of_an_agent_that_cannot_play_is_zero_with_the_reason(tmp_path):
    report = grade("cmd:/x", "fall2023", games=1, championship="random", broken={"cmd:/x": "no agent file in /x"})
    assert report.points == 0
    assert all(
        r.faults == ["game 0: crash Black cannot play: no agent file in /x"] for s in report.stages for r in s.opponents
    )


@pytest.mark.skipif(shutil.which("javac") is None or shutil.which("java") is None, reason="needs a JDK")
def test_a_java_agent_is_built_and_plays(tmp_path):
    folder = agent_folder(tmp_path, "java", {"my_player.java": PASS_JAVA})
    with built_agents([folder]) as (built,):
        assert built.error is None and built.spec.endswith("::java my_player")
        record = game_job((0, built.spec, "random", 1, 0, 10.0, WHITE))
        assert record.reason == Reason.END and record.moves[1] == "PASS"


needs_jdk = pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK")


@pytest.mark.slow
@needs_gpp
@needs_jdk
def test_littlego_match_builds_cpp_and_java_agents_named_by_their_folder(tmp_path, capsys):
    import json

    from engine.cli.littlego import main

    cpp = agent_folder(tmp_path, "cpp", {"my_player.cpp": PASS_CPP})
    java = agent_folder(tmp_path, "java", {"my_player.java": PASS_JAVA})
    for a, b in ((f"cmd:{cpp}", "random"), (str(java), "random"), (f"cmd:{cpp}", str(java))):
        assert main(["match", a, b, "--games", "2", "--json", "--jobs", "2"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert summary["end"]["end"] == 2 and summary["faults"] == [], summary  # played out, no crash
        assert summary["a"] == a  # named as given, not by the built copy


@pytest.mark.fast
@needs_gpp
def test_a_failed_build_refuses_the_match_with_the_compilers_own_lines(tmp_path, capsys):
    from engine.cli.littlego import main

    broken = agent_folder(tmp_path, "broken", {"my_player.cpp": "int main() { this is not C++; }\n"})
    assert main(["match", f"cmd:{broken}", "random", "--games", "2"]) == 2
    captured = capsys.readouterr()
    assert "games played" not in captured.err and "player" not in captured.out
    lines = captured.err.splitlines()
    assert "cannot play: 'g++ -O2 *.cpp -o exe' failed with status 1" in lines[0]
    assert any("error:" in line for line in lines[1:]) and len(lines) > 2  # the compiler's lines, not one
    cpp = agent_folder(tmp_path, "cpp", {"my_player.cpp": PASS_CPP})
    assert main(["match", str(cpp), "random", "--games", "2", "--scheduler", "local:2"]) == 2
    assert "is played by folder only on the local pool" in capsys.readouterr().err


@pytest.mark.slow
@needs_gpp
def test_the_terminal_game_and_the_board_play_cpp_and_java_agents_named_by_their_folder(tmp_path):
    from engine.ui.web.board_game import BadRequest
    from engine.ui.web.worker_jobs import reply_job
    from tests.conftest import cli

    cpp = agent_folder(tmp_path, "cpp", {"my_player.cpp": PASS_CPP})
    java = agent_folder(tmp_path, "java", {"my_player.java": PASS_JAVA})
    for spec in (f"cmd:{cpp}", java):
        played = cli("littlego", "play", spec, "--colour", "black", stdin="2,2\nquit\n", timeout=HANG)
        assert f"{spec} plays pass" in played.stdout, played.stdout + played.stderr
        assert reply_job(spec, [12], 1).move == "PASS"
    broken = agent_folder(tmp_path, "broken", {"my_player.cpp": "int main() { this is not C++; }\n"})
    with pytest.raises(BadRequest, match="cannot play: 'g\\+\\+ -O2 \\*.cpp -o exe' failed with status 1"):
        reply_job(f"cmd:{broken}", [], 1)
    refused = cli("littlego", "play", broken, stdin="quit\n")
    assert refused.returncode == 2 and "error:" in refused.stderr and "Traceback" not in refused.stderr
