"""The constants finder on agents written in the styles real course agents use (``tests/fixtures/finder_styles/``):
each of their numbers found where its author wrote it (``engine.course.agent_constants``)."""

import json
import os
import shutil

import pytest

from engine.constants import COURSE_CPU_LIMIT
from engine.course.agent_constants import default_bounds, find_constants, select
from engine.course.rewrite import patched_sources
from engine.errors import InvalidInput
from tests.conftest import cli

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "finder_styles")


def copied(tmp_path, name):
    folder = tmp_path / name
    shutil.copytree(os.path.join(FIXTURES, name), str(folder))
    return folder


def agents_of(root, cpp_code, java_code):
    """(a C++ agent folder, a Java one) under ``root``, each its one source: their paths."""
    folders = []
    for name, source, code in (("cpp", "my_player.cpp", cpp_code), ("java", "my_player.java", java_code)):
        (root / name).mkdir()
        (root / name / source).write_text(code)
        folders.append(str(root / name))
    return folders


def places(constants):
    return {c.name: (c.value, c.file, c.line) for c in constants}


@pytest.mark.fast
def test_the_sources_of_subfolders_are_read_as_the_course_copies_the_folder(tmp_path):
    folder = copied(tmp_path, "subfolders")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("SECRET = 42\n")
    os.symlink(str(outside), str(folder / "linked"))  # a folder behind a link is never entered
    for left_out in ("__pycache__", ".git", "runs"):  # nor one a copy leaves out
        (folder / left_out).mkdir()
        (folder / left_out / "old.py").write_text("STALE = 9\n")
    found = find_constants(str(folder))
    assert places(found) == {
        "LIBERTY_WEIGHT": (0.8, "go_agent_api/go_engine/engine.py", 3),
        "EDGE": (3.0, "go_agent_api/helpers.h", 1),
        "KOMI": (2.5, "my_player3.py", 5),
    }
    texts = patched_sources(str(folder), found[:1], [1.5])  # and rewritten where it lives
    assert list(texts) == ["go_agent_api/go_engine/engine.py"] and "LIBERTY_WEIGHT = 1.5\n" in texts[found[0].file]


@pytest.mark.fast
def test_python_literals_returned_passed_and_nested_and_keyword_defaults_are_found(tmp_path):
    folder = copied(tmp_path, "python_styles")
    found = find_constants(str(folder))
    assert {c.name: (c.value, c.line) for c in found} == {
        "POSITION_WEIGHTS[0][0]": (1.0, 4),
        "POSITION_WEIGHTS[0][1]": (2.0, 4),
        "POSITION_WEIGHTS[0][2]": (3.0, 4),
        "POSITION_WEIGHTS[1][0]": (2.0, 5),
        "POSITION_WEIGHTS[1][1]": (4.0, 5),
        "POSITION_WEIGHTS[1][2]": (2.0, 5),
        "weights.return.liberty": (0.8, 10),
        "weights.return.capture.single": (2.5, 10),
        "search.base_depth": (4.0, 13),
        "search.time_limit": (6.0, 13),
        "minimax.evaluate.arg1.edge": (-0.5, 18),
        "minimax.evaluate.scale[0]": (10.0, 18),
        "minimax.evaluate.scale[1]": (0.3, 18),
    }  # a bare number passed (range(5)) is no constant
    assert [c.line for c in found] == sorted(c.line for c in found)  # in the order written
    named = {c.name: c for c in found}
    chosen = [named[name] for name in ("weights.return.liberty", "search.time_limit", "POSITION_WEIGHTS[1][1]")]
    texts = patched_sources(str(folder), chosen, [1.25, 9.0, 7])
    text = texts["my_player3.py"]
    assert '"liberty": 1.25,' in text and "time_limit=9.0" in text and "[2, 7, 2]" in text


@pytest.mark.fast
def test_cpp_globals_statics_and_members_are_found_and_locals_arguments_and_enums_are_not(tmp_path):
    found = find_constants(str(copied(tmp_path, "cpp_globals")))
    assert {c.name: (c.value, c.integer, c.line) for c in found} == {
        "depth": (4.0, True, 4),
        "time_limit": (6.0, False, 5),
        "liberty_weight": (0.8, False, 5),
        "edge": (-0.5, False, 8),
        "width": (3.0, True, 12),
        "calls": (0.0, True, 18),
    }  # not the function's locals (score, i), its arguments' defaults nor an enum's values


@pytest.mark.fast
def test_each_constant_is_classed_and_a_pattern_chooses_the_evaluation_weights_alone(tmp_path):
    found = find_constants(str(copied(tmp_path, "roles")))
    assert {c.name: c.role.value for c in found} == {
        "BOARD_SIZE": "setting",
        "KOMI": "setting",
        "LIBERTY_WEIGHT": "weight",
        "search.d": "setting",
        "search.time_limit": "setting",
        "search.v": "counter",  # an alpha-beta sentinel
        "search.count": "counter",
        "evaluate.score": "counter",  # an accumulator
        "evaluate.edge_bonus": "weight",
    }
    assert [c.name for c in select(found, ["*"])] == ["LIBERTY_WEIGHT", "evaluate.edge_bonus"]
    named = select(found, ["*_WEIGHT", "search.d", "search.time_limit"])  # the others named one by one
    assert [c.name for c in named] == ["LIBERTY_WEIGHT", "search.d", "search.time_limit"]
    with pytest.raises(InvalidInput, match=r"'search\.\*' matches no evaluation weight, only search\.d \(setting\)"):
        select(found, ["search.*"])


@pytest.mark.fast
def test_no_default_range_crosses_the_courses_limits(tmp_path):
    found = {c.name: c for c in find_constants(str(copied(tmp_path, "roles")))}
    assert default_bounds(found["search.d"]) == (1.0, 4.0)  # never a depth of 0
    low, high = default_bounds(found["search.time_limit"])
    assert (low, high) == (4.75, COURSE_CPU_LIMIT)  # never past the course's limit a move
    assert default_bounds(found["LIBERTY_WEIGHT"]) == pytest.approx(
        (-0.2, 1.8)
    )  # a weight: its value plus or minus its size


def test_evolve_constants_shows_each_constants_role(tmp_path):
    folder = str(copied(tmp_path, "roles"))
    listed = cli("evolve", "constants", folder)
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if line.startswith("search.time_limit"))
    assert row.split()[1:5] == ["9.5", "real", "setting", "[4.75,"] and "weights alone" in listed.stdout
    assert "search.d: a search depth: each ply more multiplies a move's time" in listed.stdout
    assert "search.time_limit: a time limit: a run's games take about as long" in listed.stdout  # its cost said first
    rows = {row["name"]: row for row in json.loads(cli("evolve", "constants", folder, "--json").stdout)}
    assert rows["search.v"]["role"] == "counter" and rows["search.d"]["default_bounds"] == [1.0, 4.0]
    assert "9.5 s now" in rows["search.time_limit"]["cost"] and rows["LIBERTY_WEIGHT"]["cost"] is None


@pytest.mark.fast
def test_a_pattern_matches_a_name_and_its_twins_alike_and_never_takes_some_twins_alone(tmp_path):
    folder = tmp_path / "twins"
    folder.mkdir()
    (folder / "my_player3.py").write_text("edge_weight = 1\natari_weight = 2\n\nedge_weight = 3\n")
    found = find_constants(str(folder))
    assert [c.name for c in found] == ["edge_weight@my_player3.py:1", "atari_weight", "edge_weight@my_player3.py:4"]
    assert select(found, ["*_weight"]) == found  # not atari_weight alone
    assert select(found, ["edge_weight"]) == [found[0], found[2]]
    assert select(found, ["edge_weight@my_player3.py:4"]) == [found[2]]  # one twin named by its own name
    with pytest.raises(InvalidInput, match=r"take edge_weight@my_player3.py:1 and not edge_weight@my_player3.py:4"):
        select(found, ["*:1"])


@pytest.mark.fast
def test_the_factors_of_an_evaluations_products_are_found_in_the_order_written(tmp_path):
    folder = copied(tmp_path, "factors")
    found = find_constants(str(folder))
    assert [(c.name, c.value, c.line, c.role.value) for c in found] == [
        ("evaluate.factor1", 10.0, 5, "weight"),
        ("evaluate.factor2", 0.3, 5, "weight"),
        ("evaluate.factor3", 2.5, 6, "weight"),
        ("evaluate.factor4", 4.0, 6, "weight"),
    ]  # not a sign (-1 *) nor a product outside an evaluation
    text = patched_sources(str(folder), found[1:3], [0.5, 3.0])["my_player3.py"]
    assert "edges * 0.5\n" in text and "3.0 * len(" in text


@pytest.mark.fast
def test_java_and_cpp_locals_of_the_evaluation_are_found_and_other_functions_locals_are_not(tmp_path):
    found = find_constants(str(copied(tmp_path, "evaluation_locals")))
    assert {c.name: (c.value, c.file, c.line, c.role.value) for c in found} == {
        "heuristic.edge_w": (0.3, "eval.cpp", 2, "weight"),
        "heuristic.centre_w": (1.5, "eval.cpp", 2, "weight"),
        "heuristic.total": (0.0, "eval.cpp", 3, "counter"),
        "evaluate.libertyWeight": (0.8, "my_player.java", 3, "weight"),
        "evaluate.score": (0.0, "my_player.java", 4, "counter"),
        "evaluate.bonus": (2.0, "my_player.java", 6, "weight"),
    }  # not a loop's index, nor search's locals


@pytest.mark.fast
def test_the_factors_of_cpp_and_java_evaluations_are_found_as_pythons_are(tmp_path):
    folder = copied(tmp_path, "factors_c")
    found = [c for c in find_constants(str(folder)) if ".factor" in c.name]
    assert [(c.name, c.value, c.integer, c.file, c.line, c.role.value) for c in found] == [
        ("evaluate.factor1", 10.0, True, "eval.cpp", 3, "weight"),
        ("evaluate.factor2", 0.3, False, "eval.cpp", 3, "weight"),
        ("evaluate.factor3", 2.5, False, "eval.cpp", 4, "weight"),
        ("evaluate.factor4", 2.0, True, "eval.cpp", 4, "weight"),
        ("heuristic.factor1", 3.0, True, "my_player.java", 6, "weight"),
        ("heuristic.factor2", 15.0, False, "my_player.java", 6, "weight"),
    ]  # not a sign (-1 *), an index (row[2]), a hex number (0x10), nor a product outside an evaluation
    assert found[2].suffix == "f"  # 2.5f stays a float
    texts = patched_sources(str(folder), found, [12, 0.5, -1.25, -3, 4, -2])
    assert "12 * (own - opp) + edges * 0.5;" in texts["eval.cpp"]
    assert "+ (-1.25f) * edges - (-3)*own" in texts["eval.cpp"]  # a negative value after a sign: in parentheses
    assert "+ 4 * row[2] + 0x10 * own - (-2.0)*opp" in texts["my_player.java"]


@pytest.mark.skipif(shutil.which("g++") is None or shutil.which("javac") is None, reason="needs g++ and javac")
def test_rewritten_factors_still_compile(tmp_path):
    import subprocess

    folder = copied(tmp_path, "factors_c")
    found = [c for c in find_constants(str(folder)) if ".factor" in c.name]
    for name, text in patched_sources(str(folder), found, [-v - 1 for v in range(len(found))]).items():
        (folder / name).write_text(text)
    assert subprocess.run(["g++", "-fsyntax-only", str(folder / "eval.cpp")]).returncode == 0
    built = subprocess.run(["javac", "-d", str(tmp_path / "classes"), str(folder / "my_player.java")])
    assert built.returncode == 0


def test_rules_settings_a_depth_of_0_and_a_time_past_the_course_have_no_default_range(tmp_path):
    from engine.course.constant_roles import untunable

    folder = tmp_path / "limits"
    folder.mkdir()
    (folder / "my_player3.py").write_text(
        "BOARD_SIZE = 5\nKOMI = 2.5\nEDGE_WEIGHT = 1.5\n\n\n"
        "def search(board, depth=0, time_limit=12.0, max_depth=3):\n    return depth + time_limit + max_depth\n"
    )
    found = {c.name: c for c in find_constants(str(folder))}
    reasons = {name: untunable(name, c.value) for name, c in found.items()}
    assert "rules setting" in reasons["BOARD_SIZE"] and "rules setting" in reasons["KOMI"]
    assert "under the 1 a search needs" in reasons["search.depth"]
    assert "past the course's 10" in reasons["search.time_limit"]
    assert reasons["EDGE_WEIGHT"] is None and reasons["search.max_depth"] is None
    listed = cli("evolve", "constants", str(folder))
    assert "KOMI: no default range: a rules setting" in listed.stdout
    rows = {row["name"]: row for row in json.loads(cli("evolve", "constants", str(folder), "--json").stdout)}
    assert rows["KOMI"]["default_bounds"] is None and rows["search.max_depth"]["default_bounds"] == [1.0, 6.0]


@pytest.mark.fast
def test_a_run_refuses_a_rules_setting_and_warns_of_the_depth_it_tunes_past_the_limits(tmp_path):
    from evolve.config import ConfigError, load_config
    from evolve.run_output import tuned_settings

    folder = str(copied(tmp_path, "roles"))
    text = (
        'name = "roles"\nseed = 1\npopulation = 4\ngenerations = 1\n\n[[panel]]\nopponent = "greedy"\ngames = 2\n\n'
        f'[individual]\nprogram = "{folder}"\nconstants = {{constants}}\n'
    )
    config = tmp_path / "run.toml"
    config.write_text(text.replace("{constants}", '["KOMI"]'))
    with pytest.raises(ConfigError, match="chooses KOMI = 2.5: a rules setting"):
        load_config(str(config))
    config.write_text(
        text.replace("{constants}", '["search.d", "LIBERTY_WEIGHT"]') + '[individual.bounds]\n"search.d" = [0, 3]\n'
    )
    warnings = tuned_settings(load_config(str(config)))
    assert any(line.startswith("the run tunes search.d in [0, 3], a search depth: each ply more") for line in warnings)
    assert "search.d: a search depth tuned from 0, under 1: a depth of 0 plays no search" in warnings
    assert not any("LIBERTY_WEIGHT" in line for line in warnings)


@pytest.mark.fast
def test_cpp_and_java_tables_of_weights_are_found_element_by_element_as_pythons_are(tmp_path):
    cpp = {c.name: c for c in find_constants(str(copied(tmp_path, "tables_cpp")))}
    assert [cpp[f"POSITION[2][{j}]"].value for j in range(5)] == [2, 1, -1, 1, 2] and len(cpp) == 35
    assert cpp["POSITION[4][4]"].integer and not cpp["weights[1]"].integer  # a const int table, a vector<double>
    assert [cpp[f"shape[{k}]"].value for k in range(2)] == [0.5, 0.25] and cpp["edge[1]"].value == 5  # member
    assert [cpp[f"evaluate.bonus[{k}]"].value for k in range(3)] == [1.5, 0.0, -0.75]  # the evaluation's local
    assert not any(name.startswith(("search.", "board")) for name in cpp)  # another function's local is not
    java = {c.name: c for c in find_constants(str(copied(tmp_path, "tables_java")))}
    settings = {name: java.pop(name) for name in ("MAX_DEPTH", "TIME_LIMIT")}
    assert sorted(java) == sorted(
        ["POSITION[0][0]", "POSITION[0][1]", "POSITION[1][0]", "POSITION[1][1]", "edge[0]", "edge[1]"]
        + ["evaluate.bonus[0]", "evaluate.bonus[1]"]
    )
    # C++'s and Java's depths and time limits are settings, in ranges within the course's limits
    cpp_settings = {c.name: c for c in find_constants(str(copied(tmp_path, "cpp_globals")))}
    for constant, bounds in [
        (settings["MAX_DEPTH"], (1.0, 6.0)),
        (settings["TIME_LIMIT"], (4.25, COURSE_CPU_LIMIT)),
        (cpp_settings["depth"], (1.0, 8.0)),
        (cpp_settings["time_limit"], (3.0, COURSE_CPU_LIMIT)),
    ]:
        assert constant.role.value == "setting" and default_bounds(constant) == bounds, constant.name
    assert java["POSITION[1][1]"].value == -2.0 and java["edge[0]"].integer
    assert all(c.role.value == "weight" for c in list(cpp.values()) + list(java.values()))
    assert select(list(cpp.values()), ["POSITION*"]) == [c for c in cpp.values() if c.name.startswith("POSITION")]


@pytest.mark.skipif(shutil.which("g++") is None or shutil.which("javac") is None, reason="needs g++ and javac")
def test_rewritten_tables_compile_and_play_their_new_numbers(tmp_path):
    import subprocess

    folder = copied(tmp_path, "tables_cpp")
    found = {c.name: c for c in find_constants(str(folder))}
    chosen = [found["POSITION[2][2]"], found["weights[0]"], found["evaluate.bonus[0]"]]
    for name, text in patched_sources(str(folder), chosen, [4, 0.5, -0.5]).items():
        (folder / name).write_text(text)
    program = str(tmp_path / "cpp-agent")
    assert subprocess.run(["g++", "-o", program, str(folder / "my_player.cpp")]).returncode == 0
    assert float(subprocess.run([program], capture_output=True, text=True).stdout) == pytest.approx(4.0)  # was 3.2
    folder = copied(tmp_path, "tables_java")
    found = {c.name: c for c in find_constants(str(folder))}
    for name, text in patched_sources(str(folder), [found["POSITION[1][1]"]], [-3.5]).items():
        (folder / name).write_text(text)
    classes = str(tmp_path / "classes")
    assert subprocess.run(["javac", "-d", classes, str(folder / "my_player.java")]).returncode == 0
    played = subprocess.run(["java", "-cp", classes, "my_player"], capture_output=True, text=True).stdout
    assert float(played) == pytest.approx(12.75)  # was 14.25 (search adds its depth and time: 11)


@pytest.mark.fast
def test_cpp_and_java_weights_a_function_returns_are_found_under_its_name(tmp_path):
    """``return {0.8, 0.3};`` (C++) and ``return new double[]{...};`` (Java), as Python's ``weights.return``."""
    cpp, java = agents_of(
        tmp_path,
        "#include <vector>\nstd::vector<double> weights() {\n    return {0.8, 0.3};\n}\n"
        "int main() { return weights().size() > 0 ? 0 : 1; }\n",
        "class my_player {\n    static double[] weights() {\n        return new double[]{0.8, -0.3, 2};\n    }\n"
        "    public static void main(String[] args) { System.out.println(weights()[0]); }\n}\n",
    )
    found = places(find_constants(cpp))
    assert found == {"weights.return[0]": (0.8, "my_player.cpp", 3), "weights.return[1]": (0.3, "my_player.cpp", 3)}
    found = places(find_constants(java))
    assert found == {
        "weights.return[0]": (0.8, "my_player.java", 3),
        "weights.return[1]": (-0.3, "my_player.java", 3),
        "weights.return[2]": (2, "my_player.java", 3),
    }


@pytest.mark.fast
def test_cpp_and_java_weights_passed_to_a_call_are_found_by_the_call_and_place(tmp_path):
    """``agent.set_weights(2, {0.8, 0.3})`` in ``main``: ``main.set_weights.arg1[0]``, as Python's are named; a
    table's inner lists and a keyword's parentheses are not calls."""
    cpp, java = agents_of(
        tmp_path,
        "#include <vector>\nvoid set_weights(int n, std::vector<double> w) {}\n"
        "const int T[2][2] = {{1, 2}, {3, 4}};\n"
        "int main() {\n    set_weights(2, {0.8, 0.3});\n    if (T[0][0]) { return 0; }\n    return 1;\n}\n",
        "class my_player {\n    static void use(double[] w) {}\n"
        "    public static void main(String[] args) {\n        use(new double[]{1.5, 2});\n    }\n}\n",
    )
    found = places(find_constants(cpp))
    assert {name: place for name, place in found.items() if not name.startswith("T[")} == {
        "main.set_weights.arg1[0]": (0.8, "my_player.cpp", 5),
        "main.set_weights.arg1[1]": (0.3, "my_player.cpp", 5),
    }
    assert sorted(name for name in found if name.startswith("T[")) == ["T[0][0]", "T[0][1]", "T[1][0]", "T[1][1]"]
    found = places(find_constants(java))
    assert found == {"main.use.arg0[0]": (1.5, "my_player.java", 4), "main.use.arg0[1]": (2, "my_player.java", 4)}
