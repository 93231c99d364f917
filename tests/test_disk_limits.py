"""The host's disk under what agents build and evolve: a build writes into a workspace with a quota and
keeps only its output, within the copy's caps; a run's individuals share the files they do not change;
the folders of kept builds stay under their cap (``engine.course.build``, ``evolve.agents.code_individual``)."""

import os
import shutil

import pytest

import engine.course.build as build
import evolve.agents.code_individual as code_individual
from engine.constants import BLACK
from engine.course.build import build_agent, ensure_built
from engine.players.specs import forget_built, is_built, make_player
from engine.position import Position
from engine.sandbox.files import copy_folder
from engine.sandbox.limits import MIB, Limits
from engine.sandbox.workspace import quota_root
from evolve.agents.program_individual import program_built
from evolve.agents.program_player import program_player
from evolve.config import load_config

PASS_PY = 'open("output.txt", "w").write("PASS")\n'
BOOK = 30 * MIB  # the agent's sparse file: its apparent size, no block written

# A Python agent whose first move is the point its constant PREFERRED names; each move writes into its
# copy of the shared book, which must never reach the build it was copied from.
PREFERRING = """PREFERRED = 12


def main():
    with open("book.bin", "r+b") as book:
        book.write(b"written by a game")
    with open("input.txt") as handle:
        board = "".join(handle.read().split()[6:11])
    point = PREFERRED if board[PREFERRED] == "0" else board.index("0")
    with open("output.txt", "w") as handle:
        handle.write("%d,%d" % divmod(point, 5))


main()
"""

CONFIG = """
name = "disk"
seed = 3
population = 3
generations = 1
strategy = "ga"

[individual]
program = "{program}"
constants = ["PREFERRED"]
sandbox = "{sandbox}"

[individual.bounds]
PREFERRED = [0, 24]

[[panel]]
opponent = "greedy"
games = 2
"""

needs_quota = pytest.mark.skipif(quota_root() is None, reason="needs a workspace with a quota (littlego as root)")
needs_javac = pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK")
needs_gpp = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")


def folder_of(root, name, files):
    folder = root / name
    folder.mkdir()
    for file_name, text in files.items():
        (folder / file_name).write_text(text)
    return str(folder)


def preferring_agent(tmp_path, source=PREFERRING):
    folder = folder_of(tmp_path, "agent", {"my_player3.py": source})
    with open(os.path.join(folder, "book.bin"), "wb") as book:
        book.truncate(BOOK)
    return folder


def config_of(tmp_path, folder, sandbox="auto"):
    path = tmp_path / "disk.toml"
    path.write_text(CONFIG.replace("{program}", folder).replace("{sandbox}", sandbox))
    return load_config(str(path))


def first_point(program, value):
    player = program_player(program, [value], "test")
    try:
        player.new_game(BLACK, 0)
        return player.move(Position.initial())
    finally:
        player.close()


def disk_taken(*folders):
    """The bytes of disk the files under ``folders`` take, each file (inode) once, however many names it has."""
    seen, taken = set(), 0
    for top in folders:
        for root, _, files in os.walk(top):
            for name in files:
                found = os.lstat(os.path.join(root, name))
                if (found.st_dev, found.st_ino) not in seen:
                    seen.add((found.st_dev, found.st_ino))
                    taken += found.st_blocks * 512
    return taken


def builds_in(folder):
    return sorted(name for name in os.listdir(folder) if name.startswith("agent-"))


def values_built(builds):
    """The PREFERRED of each individual whose build the folder ``builds`` keeps."""
    values = set()
    for name in builds_in(builds):
        with open(os.path.join(builds, name, "my_player3.py")) as source:
            values.add(int(source.readline().split("=")[1]))
    return values


def test_eight_individuals_of_an_agent_with_a_30_mib_sparse_file_take_one_copys_worth_of_disk(tmp_path):
    folder = preferring_agent(tmp_path)
    with program_built(config_of(tmp_path, folder)) as program:
        assert [first_point(program, value) for value in range(1, 9)] == list(range(1, 9))  # each its own code
        builds = [os.path.join(program.builds, name) for name in builds_in(program.builds)]
        assert len(builds) >= 8
        # Before, each build was a copy of the folder, the book written out: 8 individuals took 240 MiB.
        assert disk_taken(program.folder, *builds) <= BOOK
        assert disk_taken(program.folder, *builds) < MIB  # the book's holes stay holes in every copy
        # One book for all: hard links to the agent's build, read-only; no game's write reached it.
        books = {os.lstat(os.path.join(path, "book.bin")) for path in builds + [program.folder]}
        assert len({(found.st_dev, found.st_ino) for found in books}) == 1
        (book,) = {(found.st_size, found.st_mode & 0o222) for found in books}
        assert book == (BOOK, 0)
        with open(os.path.join(program.folder, "book.bin"), "rb") as handle:
            assert handle.read(64) == bytes(64)
        # The code each individual rewrote is its own.
        sources = {os.lstat(os.path.join(path, "my_player3.py")).st_ino for path in builds}
        assert len(sources) == len(builds)


@pytest.mark.fast
def test_a_copy_keeps_a_sparse_files_holes_and_counts_its_size(tmp_path):
    folder = preferring_agent(tmp_path)
    assert copy_folder(folder, str(tmp_path / "copy"), 100 * MIB) >= BOOK
    assert os.path.getsize(str(tmp_path / "copy" / "book.bin")) == BOOK
    assert disk_taken(str(tmp_path / "copy")) < MIB


# A Java agent whose classes hold 61,440 characters each (a constant folded from a 60-character one):
# 3 KiB of source, 64 classes, 4 MiB of class files.
JAVA_CLASSES = 64
JAVA_FILLER = (
    "public class my_player {\n"
    + 'static final String S0 = "'
    + "x" * 60
    + '";\n'
    + "".join(f"static final String S{k} = S{k - 1} + S{k - 1};\n" for k in range(1, 10))
    + "static final String BIG = S9 + S9;\n"
    + "".join(f"static class C{i} {{ static String v = BIG; }}\n" for i in range(JAVA_CLASSES))
    + "public static void main(String[] a) {}\n}\n"
)
SMALL = Limits(folder_mb=1, file_mb=1)  # a build's workspace of 2 MiB


@needs_quota
@needs_javac
def test_a_java_build_that_fills_its_workspace_fails_by_its_fault_and_the_host_keeps_only_output(tmp_path):
    filler = folder_of(tmp_path, "filler", {"my_player.java": JAVA_FILLER})
    builds = tmp_path / "builds"
    builds.mkdir()
    built = build_agent(filler, str(builds), 0, SMALL)
    assert built.error is not None
    assert "'javac my_player.java' failed with status 1, its folder is full (the copy's quota: 2 MiB" in built.error
    assert "No space left on device" in built.error
    # Before, the build wrote its 4 MiB of classes to the host's disk, in the builds folder.
    assert os.listdir(str(builds)) == ["build-0.log"] and disk_taken(str(builds)) < 64 * 1024
    few = folder_of(tmp_path, "few", {"my_player.java": JAVA_FILLER.replace("static class C", "//", JAVA_CLASSES - 8)})
    built = build_agent(few, str(builds), 1, SMALL)
    assert built.error is None
    kept = os.listdir(str(builds / "agent-1"))  # the folder as the build left it: no compiler's /tmp
    assert sorted(kept) == sorted(
        ["my_player.java", "my_player.class"] + [f"my_player$C{i}.class" for i in range(56, 64)]
    )


@needs_gpp
def test_a_cpp_build_whose_output_no_game_could_copy_is_refused_at_its_build(tmp_path):
    big = folder_of(tmp_path, "big", {"my_player.cpp": "char table[2 << 20] = {1};\nint main() { return table[0]; }\n"})
    builds = tmp_path / "builds"
    builds.mkdir()
    built = build_agent(big, str(builds), 0, Limits(folder_mb=1, file_mb=8))
    assert built.error is not None
    assert "'g++ -O2 *.cpp -o exe' left a folder that no game could copy: the build's output: exe takes the " in (
        built.error
    )
    assert os.listdir(str(builds)) == ["build-0.log"]  # before, its 2 MiB binary was kept, and no game could play


@pytest.mark.slow
@needs_quota
@needs_javac
def test_a_java_agent_of_twenty_thousand_classes_is_stopped_by_its_workspaces_file_quota(tmp_path):
    classes = "".join(f"static class C{i} {{}}\n" for i in range(20_002))
    crowd = folder_of(tmp_path, "crowd", {"my_player.java": f"public class my_player {{\n{classes}}}\n"})
    builds = tmp_path / "builds"
    builds.mkdir()
    built = build_agent(crowd, str(builds), 0, Limits(memory_mb=4096))  # javac's heap for 20,002 classes
    assert "failed with status 1, its folder is full (the copy's quota: 164 MiB, 20,000 files" in built.error
    assert os.listdir(str(builds)) == ["build-0.log"]  # before, 20,002 class files (79 MB) on the host's disk


@pytest.mark.parametrize("kept, mib, padding", [(3, 1024, 0), (64, 2, 600 * 1024)], ids=["builds", "bytes"])
def test_a_runs_builds_folder_removes_its_least_recently_used_builds_past_its_cap(
    tmp_path, monkeypatch, kept, mib, padding
):
    monkeypatch.setattr(code_individual, "BUILDS_KEPT", kept, raising=False)
    monkeypatch.setattr(code_individual, "BUILDS_MB", mib, raising=False)
    source = PREFERRING.replace("PREFERRED = 12\n", "PREFERRED = 12\n" + "#" * padding + "\n")  # each build's own
    folder = preferring_agent(tmp_path, source)
    with program_built(config_of(tmp_path, folder, "off")) as program:
        assert [first_point(program, value) for value in range(1, 9)] == list(range(1, 9))
        assert values_built(program.builds) == {6, 7, 8}  # before, every individual's build stayed for the run
        assert first_point(program, 6) == 6 and first_point(program, 1) == 1  # 1 removed, built again
        assert values_built(program.builds) == {6, 8, 1}  # 7 the least recently used


def test_a_process_keeps_the_builds_of_the_specs_it_meets_under_its_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "BUILDS_KEPT", 2, raising=False)
    agents = [folder_of(tmp_path, f"agent{k}", {"my_player.py": PASS_PY}) for k in range(3)]
    try:
        for folder in agents + agents[1:2]:
            ensure_built(folder)
        assert [is_built(folder) for folder in agents] == [False, True, True]  # before, every one stayed built
        kept = os.path.dirname(make_player(agents[1]).source)  # where the process keeps its builds
        assert len(builds_in(kept)) == 2
        ensure_built(agents[0])  # built again; agent 2 was the least recently used
        assert [is_built(folder) for folder in agents] == [True, True, False]
        assert len(builds_in(kept)) == 2 and os.path.dirname(make_player(agents[0]).source) == kept
    finally:
        for folder in agents:
            forget_built(folder)
