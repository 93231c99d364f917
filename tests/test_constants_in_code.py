"""Constants in an agent's own code: found, rewritten exactly, tuned by a run and exported, in every
course language, without an edit by hand (``engine.course.agent_constants``, ``evolve.agents.program_individual``)."""

import hashlib
import json
import os
import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.common.runfolder import RunError
from engine.constants import BLACK
from engine.course.agent_constants import default_bounds, find_constants, select
from engine.course.rewrite import literal_text, patched_sources
from engine.errors import InvalidInput
from engine.position import Position
from evolve.agents.program_individual import program_built
from evolve.agents.program_player import program_player
from evolve.config import ConfigError, load_config
from evolve.loop import Evolution
from evolve.run_output import _first_draws
from evolve.runs import read_generations
from evolve.tuner import RUN_STRATEGIES, tuner_config
from tests.conftest import HANG, ROOT, cli

PYTHON_SOURCE = '''"""An agent. KOMI = 9 in a docstring is no constant."""
KOMI = 2.5
DEPTH: int = 2
FLAG = True
WEIGHTS = {"edge": -0.5, "centre": 1, "name": "x"}
LOW, HIGH = -3, 4.0


class Player:
    bonus = 4

    def __init__(self):
        self.weight_c = 3.57  # é, a comment and "strings" before the next
        other = self
        other.ignored = 5


def evaluate(board):
    atari_weight = -2
    text = "atari_weight = 7"
    return atari_weight * len(text)
'''

CPP_SOURCE = """#include <cstdio>
#define ATARI_WEIGHT 2.0
#define SHIFT (-3)
// const int IN_A_COMMENT = 5;
/* #define ALSO_A_COMMENT 6 */
const char *text = "const int IN_A_STRING = 4;";
static constexpr int DEPTH = 3, WIDTH = 4;
const double EDGE = -0.25f;
const double REAL = 2;
int f(int x) { const int local = 3; return x - ATARI_WEIGHT - local; }
"""

JAVA_SOURCE = """public class my_player {
    static final double ATARI = 2.0; // static final int IN_A_COMMENT = 1;
    private final static int DEPTH = 3;
    double centreWeight = 0.5;
    float edge = 1.5f;
    long nodes = 10L;
    String name = "int inString = 3;";

    int score(int a) {
        int local = 4;
        final int alsoLocal = 5;
        return local + alsoLocal;
    }

    static class Inner {
        int innerField = 7;
    }
}
"""


def folder_with(tmp_path, name, text):
    folder = tmp_path / name.replace(".", "-")
    folder.mkdir()
    (folder / name).write_text(text, encoding="utf-8")
    return str(folder)


def table(constants):
    return {c.name: (c.value, c.integer, c.line) for c in constants}


@pytest.mark.fast
def test_python_constants_are_found_at_every_level_with_their_places(tmp_path):
    found = table(find_constants(folder_with(tmp_path, "my_player3.py", PYTHON_SOURCE)))
    assert found == {
        "KOMI": (2.5, False, 2),
        "DEPTH": (2.0, True, 3),
        "WEIGHTS.edge": (-0.5, False, 5),
        "WEIGHTS.centre": (1.0, True, 5),
        "LOW": (-3.0, True, 6),
        "HIGH": (4.0, False, 6),
        "Player.bonus": (4.0, True, 10),
        "Player.weight_c": (3.57, False, 13),
        "evaluate.atari_weight": (-2.0, True, 19),
    }


@pytest.mark.fast
def test_cpp_constants_are_found_and_comments_and_strings_are_not(tmp_path):
    found = table(find_constants(folder_with(tmp_path, "my_player.cpp", CPP_SOURCE)))
    assert found == {
        "ATARI_WEIGHT": (2.0, False, 2),
        "SHIFT": (-3.0, True, 3),
        "DEPTH": (3.0, True, 7),
        "WIDTH": (4.0, True, 7),
        "EDGE": (-0.25, False, 8),
        "REAL": (2.0, False, 9),
        "local": (3.0, True, 10),
    }


@pytest.mark.fast
def test_java_static_finals_and_fields_are_found_and_locals_are_not(tmp_path):
    found = table(find_constants(folder_with(tmp_path, "my_player.java", JAVA_SOURCE)))
    assert found == {
        "ATARI": (2.0, False, 2),
        "DEPTH": (3.0, True, 3),
        "centreWeight": (0.5, False, 4),
        "edge": (1.5, False, 5),
        "nodes": (10.0, True, 6),
        "innerField": (7.0, True, 16),
    }


def test_a_name_found_twice_is_told_apart_by_its_place(tmp_path):
    folder = folder_with(tmp_path, "my_player3.py", "W = 1\n\n\ndef f():\n    W = 2\n\n\nW = 3\n")
    assert [c.name for c in find_constants(folder)] == ["W@my_player3.py:1", "f.W", "W@my_player3.py:8"]


def unchanged_outside(before, after, constants, values):
    """Whether ``after`` is ``before`` with exactly the constants' literals replaced by ``literal_text``."""
    expected = before
    for constant, value in sorted(zip(constants, values), key=lambda pair: -pair[0].start):
        text = literal_text(constant, value)
        if value < 0 and before[before.rfind("\n", 0, constant.start) + 1 :].lstrip().startswith("#define"):
            text = f"({text})"  # so that x-NAME never reads x--1
        expected = expected[: constant.start] + text + expected[constant.end :]
    return after == expected


@pytest.mark.parametrize(
    "name, text",
    [("my_player3.py", PYTHON_SOURCE), ("my_player.cpp", CPP_SOURCE), ("my_player.java", JAVA_SOURCE)],
    ids=["python", "cpp", "java"],
)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_rewriting_changes_exactly_the_literals_and_reads_back_the_values(tmp_path_factory, name, text, data):
    folder = folder_with(tmp_path_factory.mktemp("agent"), name, text)
    constants = find_constants(folder)
    values = [data.draw(st.floats(-1000, 1000, allow_nan=False)) for _ in constants]
    patched = patched_sources(folder, constants, values)[name]
    assert unchanged_outside(text, patched, constants, values)
    copy = folder_with(tmp_path_factory.mktemp("patched"), name, patched)
    again = find_constants(copy)
    assert [c.name for c in again] == [c.name for c in constants]
    for constant, read, value in zip(constants, again, values):
        expected = round(value) if constant.integer else float(format(value, ".6g"))
        assert read.value == pytest.approx(expected, rel=1e-9, abs=1e-9)
        assert read.integer == constant.integer and read.suffix == constant.suffix


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_negative_define_is_written_so_that_the_cpp_still_compiles_as_meant(tmp_path):
    source = "#define PENALTY 2\nint main() { int x = 5; return x-PENALTY; }\n"
    folder = folder_with(tmp_path, "my_player.cpp", source)
    patched = patched_sources(folder, find_constants(folder), [-3])["my_player.cpp"]
    assert "#define PENALTY (-3)" in patched
    (tmp_path / "t.cpp").write_text(patched)
    subprocess.run(["g++", "-o", str(tmp_path / "t"), str(tmp_path / "t.cpp")], check=True)
    assert subprocess.run([str(tmp_path / "t")]).returncode == 8


def test_default_ranges_are_the_value_plus_or_minus_its_size():
    folder_constants = {"eight": 8.0, "half": -0.5, "zero": 0.0}
    from engine.course.agent_constants import Constant

    ranges = {
        name: default_bounds(Constant(name, value, False, "f", 1, 0, 1)) for name, value in folder_constants.items()
    }
    assert ranges == {"eight": (0.0, 16.0), "half": (-1.5, 0.5), "zero": (-1.0, 1.0)}


def test_a_pattern_that_chooses_nothing_names_what_there_is(tmp_path):
    constants = find_constants(folder_with(tmp_path, "my_player3.py", PYTHON_SOURCE))
    assert [c.name for c in select(constants, ["WEIGHTS.*", "KOMI"])] == ["KOMI", "WEIGHTS.edge", "WEIGHTS.centre"]
    with pytest.raises(InvalidInput, match=r"'weights\.\*' names no constant of the agent \(it has KOMI, DEPTH"):
        select(constants, ["weights.*"])


# An agent whose first move is the point its constant PREFERRED names (else the first empty point):
# each individual's build plays its own value, in each language.
PREFERRING = {
    "my_player3.py": """PREFERRED = 12


def main():
    with open("input.txt") as handle:
        lines = handle.read().split()
    board = "".join(lines[6:11])
    point = PREFERRED if 0 <= PREFERRED < 25 and board[PREFERRED] == "0" else board.index("0")
    with open("output.txt", "w") as handle:
        handle.write("%d,%d" % divmod(point, 5))


main()
""",
    "my_player.cpp": """#include <fstream>
#include <string>
const int PREFERRED = 12;
int main() {
    std::ifstream in("input.txt");
    std::string line, board;
    for (int i = 0; i < 11 && in >> line; i++) if (i >= 6) board += line;
    int point = (PREFERRED >= 0 && PREFERRED < 25 && board[PREFERRED] == '0') ? PREFERRED : (int)board.find('0');
    std::ofstream out("output.txt");
    out << point / 5 << "," << point % 5;
}
""",
    "my_player.java": """import java.io.*;
import java.nio.file.*;
public class my_player {
    static final int PREFERRED = 12;
    public static void main(String[] args) throws IOException {
        String[] lines = new String(Files.readAllBytes(Paths.get("input.txt"))).trim().split("\\\\s+");
        StringBuilder board = new StringBuilder();
        for (int i = 6; i < 11; i++) board.append(lines[i]);
        boolean free = PREFERRED >= 0 && PREFERRED < 25 && board.charAt(PREFERRED) == '0';
        int point = free ? PREFERRED : board.indexOf("0");
        Files.write(Paths.get("output.txt"), (point / 5 + "," + point % 5).getBytes());
    }
}
""",
}
NEEDS = {"my_player3.py": None, "my_player.cpp": "g++", "my_player.java": "javac"}

CONFIG = """
name = "constants"
seed = 3
population = 3
generations = 1
strategy = "ga"
jobs = 2

[ga]
hall_of_fame = 1

[individual]
program = "{program}"
constants = ["PREFERRED"]
sandbox = "off"

[individual.bounds]
PREFERRED = [0, 24]

[[panel]]
opponent = "greedy"
games = 2
random_opening = 0
"""


def preferring_agent(tmp_path, source):
    if NEEDS[source] and shutil.which(NEEDS[source]) is None:
        pytest.skip(f"needs {NEEDS[source]}")
    return folder_with(tmp_path, source, PREFERRING[source])


def write_config(tmp_path, folder, text=CONFIG):
    path = tmp_path / "constants.toml"
    path.write_text(text.replace("{program}", folder))
    return str(path)


def first_point(program, weights):
    player = program_player(program, weights, "test")
    try:
        player.new_game(BLACK, 0)
        return player.move(Position.initial())
    finally:
        player.close()


def digest(folder):
    return {
        name: hashlib.sha256(open(os.path.join(folder, name), "rb").read()).hexdigest() for name in os.listdir(folder)
    }


@pytest.mark.slow
@pytest.mark.parametrize("source", sorted(PREFERRING))
def test_each_individual_plays_its_own_constants_built_in_its_own_code(tmp_path, source):
    folder = preferring_agent(tmp_path, source)
    before = digest(folder)
    config = load_config(write_config(tmp_path, folder))
    assert config.genes == ("PREFERRED",) and config.start.weights == ((12.0,),)
    with program_built(config) as program:
        built = set(os.listdir(program.builds))  # the start's (12) and the start-of-run checks'
        assert [first_point(program, [value]) for value in (7.2, 3, 7.2, 12, 3.4)] == [7, 3, 7, 12, 3]
        new = [name for name in set(os.listdir(program.builds)) - built if name.startswith("agent-")]
        assert len(new) == 2  # one build for each distinct code (7, 3), whatever plays it how often
    assert digest(folder) == before  # the agent's own folder is never written


@pytest.mark.slow
def test_a_run_tunes_the_constants_and_export_writes_a_new_tuned_folder(tmp_path):
    folder = str(tmp_path / "agent")  # the example agent without its weights file: its defaults are constants
    shutil.copytree(os.path.join(ROOT, "examples", "student-agent"), folder)
    os.unlink(os.path.join(folder, "weights.json"))
    before = digest(folder)
    text = CONFIG.replace('["PREFERRED"]', '["DEFAULT_WEIGHTS.*"]').replace("PREFERRED = [0, 24]", "")
    evolution = Evolution.create(write_config(tmp_path, folder, text), runs_dir=str(tmp_path / "runs"), progress=None)
    evolution.run()
    best = json.loads(open(os.path.join(evolution.run_dir, "best-constants.json")).read())
    assert list(best) == ["DEFAULT_WEIGHTS." + name for name in ("liberties", "atari", "edge", "centre")]
    tuned = str(tmp_path / "tuned")
    exported = cli("evolve", "export", evolution.run_dir, "--to", tuned)
    assert exported.returncode == 0 and "with its constants tuned" in exported.stdout
    code = open(os.path.join(tuned, "my_player3.py")).read()
    weights = ", ".join(f'"{name.split(".")[1]}": {value!r}' for name, value in best.items())
    original = open(os.path.join(folder, "my_player3.py")).read()
    assert code == re.sub(r"DEFAULT_WEIGHTS = \{[^}]*\}", "DEFAULT_WEIGHTS = {" + weights + "}", original)
    diff = open(os.path.join(tuned, "tuned.diff")).read()
    changed = [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert len(changed) == 2 and changed[1].startswith("+DEFAULT_WEIGHTS = {")
    provenance = json.load(open(os.path.join(tuned, "tuned.provenance.json")))["provenance"]
    assert provenance["constants"] == best and provenance["generation"] == 1
    # The records describe a run of a program's constants: no searcher or depth of ours, no weights file.
    assert "evolved_at_depth" not in provenance and "weights_file" not in provenance
    sidecar = json.load(open(os.path.join(evolution.run_dir, "best-constants.provenance.json")))
    assert "weights_file" not in sidecar["provenance"] and "evolved_at_depth" not in sidecar["provenance"]
    assert "weights_file" not in sidecar and sidecar["describes"] == "best-constants.json"  # no weights file read
    assert all(r.searcher is None and r.play is None for r in read_generations(evolution.run_dir))
    assert digest(folder) == before
    for destination in (tuned, folder):  # never over a folder that is there, the agent's own above all
        refused = cli("evolve", "export", evolution.run_dir, "--to", destination)
        assert refused.returncode == 2 and "exists: a tuned agent is written to a new folder" in refused.stderr
    played = cli("littlego", "match", "cmd:" + tuned, "random", "--games", "2")
    assert played.returncode == 0 and "fault" not in played.stdout.lower(), played.stdout


@pytest.mark.fast
def test_the_log_says_how_each_strategy_draws_generation_0_in_its_own_words():
    words = {name: _first_draws(tuner_config(name, [1.0], [(0.0, 2.0)], ["W"], 1, 3)) for name in RUN_STRATEGIES}
    assert words["ga"].startswith("mutated copies of them and 0% of the rest at random")
    assert words["cmaes"] == "CMA-ES's draws about their mean, a step of 0.05 of each weight's range"
    assert words["spsa"] == "SPSA's pairs of opposite perturbations about their mean"


def test_a_resume_after_the_code_lost_a_tuned_constant_says_so(tmp_path):
    folder = preferring_agent(tmp_path, "my_player3.py")
    config = load_config(write_config(tmp_path, folder))
    with open(os.path.join(folder, "my_player3.py"), "w") as handle:
        handle.write(PREFERRING["my_player3.py"].replace("PREFERRED", "FAVOURITE"))
    with pytest.raises(RunError, match="the agent's code no longer holds PREFERRED .it has FAVOURITE."):
        with program_built(config):
            pass


@pytest.mark.fast
@pytest.mark.parametrize(
    "change, words",
    [
        ('constants = ["PREFERRED"]', None),
        ('constants = ["NOPE*"]', "'NOPE\\*' names no constant of the agent \\(it has PREFERRED\\)"),
        ('constants = "PREFERRED"', "must be a list of constant names or patterns"),
        ('constants = ["PREFERRED"]\nweights_file = "w.json"', "name one"),
        ('constants = ["PREFERRED"]', "'individual.bounds.OTHER' names no constant"),
    ],
)
def test_bad_constants_configs_name_the_key(tmp_path, change, words):
    folder = preferring_agent(tmp_path, "my_player3.py")
    text = CONFIG.replace('constants = ["PREFERRED"]', change)
    if words and "OTHER" in words:
        text = text.replace("PREFERRED = [0, 24]", "PREFERRED = [0, 24]\nOTHER = [0, 1]")
    path = write_config(tmp_path, folder, text)
    if words is None:
        assert load_config(path).bounds == {"PREFERRED": (0.0, 24.0)}
        return
    with pytest.raises(ConfigError, match=words):
        load_config(path)


def test_without_bounds_each_constant_is_tuned_around_its_value(tmp_path):
    folder = preferring_agent(tmp_path, "my_player3.py")
    config = load_config(write_config(tmp_path, folder, CONFIG.replace("[individual.bounds]\nPREFERRED = [0, 24]", "")))
    assert config.bounds == {"PREFERRED": (0.0, 24.0)} and config.individual.constants == ("PREFERRED",)


def test_evolve_constants_lists_each_number_with_its_place_and_range(tmp_path):
    folder = folder_with(tmp_path, "my_player.java", JAVA_SOURCE)
    listed = cli("evolve", "constants", folder)
    out = listed.stdout
    assert listed.returncode == 0
    assert "centreWeight" in out and "[-0.5, 1.5]" in out and "my_player.java:4" in out and "6 constants" in out
    rows = json.loads(cli("evolve", "constants", folder, "--json").stdout)
    assert rows[0]["name"] == "ATARI" and rows[0]["where"] == "my_player.java:2" and rows[0]["kind"] == "real"
    missing = cli("evolve", "constants", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "no such folder" in missing.stderr


@pytest.mark.slow
@pytest.mark.parametrize("language", ["python", "cpp", "java"])
def test_the_plain_examples_name_their_evaluations_constants_and_play_a_clean_game(language):
    folder = os.path.join(ROOT, "examples", "plain-" + language)
    if language != "python":
        needed = {"cpp": "g++", "java": "javac"}[language]
        if shutil.which(needed) is None:
            pytest.skip(f"needs {needed}")
    config = load_config(os.path.join(folder, "evolve.toml"))
    found = {c.name: c for c in find_constants(folder)}
    assert set(config.genes) <= set(found) and len(config.genes) >= 5
    assert not {"SIZE", "KOMI", "MAX_MOVES", "DEPTH", "PASS"} & set(config.genes)  # the rules are left alone
    assert config.start.weights == (tuple(found[gene].value for gene in config.genes),)
    played = cli("littlego", "match", folder, "random", "--games", "2", "--json", timeout=HANG)
    summary = json.loads(played.stdout)
    assert played.returncode == 0 and summary["faults"] == [] and summary["end"]["end"] == 2, played.stderr
