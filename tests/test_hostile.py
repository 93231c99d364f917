"""Hostile entrants against the grader: their builds, their folders and their answers.

Each attack is one entrant or agent, bounded in itself; each ends as that entrant's loss (or
refused with a message naming it) with the grader's files, environment and the other entrants
untouched. The build attacks run in the sandbox where bwrap isolates (CI installs it); those
that the host itself stops (the copy, ``output.txt``, the environment) run in every mode.
"""

import ctypes
import errno
import json
import os
import platform
import shutil
import subprocess
import sys
import time

import pytest

from engine.cli.littlego import main
from engine.constants import BLACK
from engine.course.build import built_agents
from engine.play.game import play_game
from engine.players import program
from engine.players.base import PlayerFault, Reason
from engine.players.program import ProgramPlayer
from engine.position import Position
from engine.sandbox import accounting, gamebox, workspace
from engine.sandbox.files import FOLDER_DEPTH, FOLDER_ENTRIES, READ_LIMIT, copy_folder, remove_tree
from engine.sandbox.isolation import isolation
from engine.sandbox.limits import MIB, HostError, Limits, SandboxMode, UntrustedFolderError
from engine.sandbox.workspace import quota_root
from evolve.agents.program_individual import fingerprint
from evolve.config import ConfigError, load_config
from tests.conftest import cli
from tests.fixtures import make_class
from tests.test_course_build import PASS_CPP, PASS_JAVA, PASS_PY

LIMITS = Limits(mode=SandboxMode.STRICT, memory_mb=256, processes=64, file_mb=16, folder_mb=8)
isolated = pytest.mark.skipif(not isolation()[0], reason=f"no isolation here: {isolation()[1]}")
needs_gpp = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
needs_jdk = pytest.mark.skipif(shutil.which("javac") is None or shutil.which("jar") is None, reason="needs a JDK")
SECRET = "TOKEN-3f9a1c-of-the-grader"


def folder_of(root, name, files):
    folder = root / name
    folder.mkdir()
    for file_name, text in files.items():
        (folder / file_name).write_text(text)
    return folder


def grader_secret(tmp_path):
    """A file of the grader's, outside every entrant folder, whose first line is the secret."""
    secret = tmp_path / "grader" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET + "\nmore\n")
    return secret


def one_move(folder, limits=LIMITS, cpu_limit=5.0, moves=1):
    """The result of a program player's ``moves`` first moves as Black (the last one), or its PlayerFault."""
    player = ProgramPlayer(str(folder), cpu_limit=cpu_limit, limits=limits)
    try:
        player.new_game(BLACK, 1)
        result = None
        for _ in range(moves):
            result = player.timed_move(Position.initial())
        return result
    except PlayerFault as fault:
        return fault
    finally:
        player.close()


# --- builds -------------------------------------------------------------------------------------


def copy_of(built):
    """The folder a Built agent plays from (its workspace copy)."""
    return built.spec[len("cmd:") :].partition("::")[0]


@pytest.mark.fast
@isolated
@needs_gpp
def test_a_cpp_file_named_like_an_option_stays_a_file_name(tmp_path):
    folder = folder_of(
        tmp_path, "options", {"my_player.cpp": PASS_CPP, "@opts.cpp": "-wrapper /bin/sh,-c,touch wrapper-ran\n"}
    )
    with built_agents([str(folder)], LIMITS) as (built,):
        assert built.error and "'g++ -O2 *.cpp -o exe' failed" in built.error and "@opts.cpp" in built.error
        assert not os.path.exists(os.path.join(copy_of(built), "wrapper-ran"))


@isolated
@needs_gpp
def test_a_build_cannot_include_a_graders_file_through_a_link_or_a_path(tmp_path):
    secret = grader_secret(tmp_path)
    linked = folder_of(tmp_path, "linked", {"my_player.cpp": '#include "secret.h"\n' + PASS_CPP})
    os.symlink(str(secret), str(linked / "secret.h"))
    direct = folder_of(tmp_path, "direct", {"my_player.cpp": f'#include "{secret}"\n' + PASS_CPP})
    binary = folder_of(tmp_path, "binary", {"my_player.cpp": PASS_CPP + f'asm(".incbin \\"{secret}\\"");\n'})
    with built_agents([str(linked), str(direct), str(binary)], LIMITS) as built:
        errors = [b.error for b in built]
    assert "secret.h is a symbolic link to outside the folder" in errors[0]
    assert all(error and SECRET not in error for error in errors)
    assert "No such file" in errors[1] and "failed" in errors[2]


@isolated
@needs_jdk
def test_a_java_entrants_annotation_processor_never_runs(tmp_path):
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "Evil.java").write_text(
        "import java.util.*; import javax.annotation.processing.*; import javax.lang.model.element.*;\n"
        '@SupportedAnnotationTypes("*") public class Evil extends AbstractProcessor {\n'
        "  public boolean process(Set<? extends TypeElement> a, RoundEnvironment r) {\n"
        '    try { new java.io.File("processor-ran").createNewFile(); } catch (Exception e) {}\n'
        "    return false; } }\n"
    )
    subprocess.run(["javac", "-d", str(tools), str(tools / "Evil.java")], check=True, capture_output=True)
    folder = folder_of(tmp_path, "java", {"my_player.java": PASS_JAVA})
    (folder / "META-INF" / "services").mkdir(parents=True)
    (folder / "META-INF" / "services" / "javax.annotation.processing.Processor").write_text("Evil\n")
    shutil.copy(str(tools / "Evil.class"), str(folder / "Evil.class"))
    with built_agents([str(folder)], LIMITS) as (built,):
        assert built.error is None and os.path.exists(os.path.join(copy_of(built), "my_player.class"))
        assert not os.path.exists(os.path.join(copy_of(built), "processor-ran"))


@isolated
@needs_gpp
def test_a_build_that_never_ends_or_eats_memory_is_its_own_fault(tmp_path, monkeypatch):
    import engine.course.build as build

    monkeypatch.setattr(build, "BUILD_SECONDS", 20)
    zero = folder_of(tmp_path, "zero", {"my_player.cpp": '#include "/dev/zero"\n'})
    good = folder_of(tmp_path, "good", {"my_player.cpp": PASS_CPP})
    started = time.monotonic()
    with built_agents([str(zero), str(good)], LIMITS) as built:
        assert built[0].error and ("failed" in built[0].error or "ran past" in built[0].error), built[0].error
        assert built[1].error is None  # the build's trouble is its own
    assert time.monotonic() - started < 60


# --- the folder copy ----------------------------------------------------------------------------


@pytest.mark.fast
def test_a_folder_holding_a_fifo_a_link_out_or_too_much_is_refused_by_name(tmp_path):
    secret = grader_secret(tmp_path)
    fifo = folder_of(tmp_path, "fifo", {"my_player3.py": PASS_PY})
    os.mkfifo(str(fifo / "pipe"))
    linked = folder_of(tmp_path, "linked", {"my_player3.py": PASS_PY})
    os.symlink(str(secret), str(linked / "notes.txt"))
    sparse = folder_of(tmp_path, "sparse", {"my_player3.py": PASS_PY})
    with open(str(sparse / "big.bin"), "wb") as handle:
        handle.truncate(200 * MIB)  # a sparse file: no disk used, 200 MiB to copy
    expected = {
        fifo: "pipe is a FIFO",
        linked: "notes.txt is a symbolic link to outside the folder",
        sparse: "big.bin takes the folder past its limit of 8 MiB",
    }
    for folder, words in expected.items():
        destination = tmp_path / (folder.name + "-copy")
        with pytest.raises(UntrustedFolderError, match=words):
            copy_folder(str(folder), str(destination), 8 * MIB)
        assert not destination.exists()


@pytest.mark.fast
def test_a_link_inside_the_folder_is_copied_as_its_bytes(tmp_path):
    folder = folder_of(tmp_path, "inner", {"my_player3.py": PASS_PY, "data.txt": "weights"})
    os.symlink("data.txt", str(folder / "alias.txt"))
    written = copy_folder(str(folder), str(tmp_path / "copy"), 8 * MIB)
    assert written == len(PASS_PY) + 2 * len("weights")
    assert not os.path.islink(str(tmp_path / "copy" / "alias.txt"))
    assert (tmp_path / "copy" / "alias.txt").read_text() == "weights"


# --- the answer: output.txt and input.txt -------------------------------------------------------

AGENT_WRITES = """import os
{body}
"""


def hostile(tmp_path, name, body):
    return folder_of(tmp_path, name, {"my_player3.py": AGENT_WRITES.format(body=body)})


@pytest.mark.parametrize("mode", [pytest.param("strict", marks=isolated), "off"])
def test_output_txt_is_never_followed_waited_on_or_read_whole(tmp_path, mode):
    limits = LIMITS._replace(mode=SandboxMode(mode))
    secret = grader_secret(tmp_path)
    attacks = {
        "link": (f"os.symlink({str(secret)!r}, 'output.txt')", "output.txt is a symbolic link"),
        "zero": ("os.symlink('/dev/zero', 'output.txt')", "output.txt is a symbolic link"),
        "fifo": ("os.mkfifo('output.txt')", "output.txt is a FIFO"),
        "huge": ("open('output.txt', 'w').write('2,2' + 'x' * 5000)", f"more than {READ_LIMIT} bytes"),
        "noise": (
            "open('output.txt', 'w').write('\\x1b[2J' * 200 + SECRETISH)".replace("SECRETISH", "'\\n'"),
            "is not a move",
        ),
    }
    for name, (body, words) in attacks.items():
        started = time.monotonic()
        fault = one_move(hostile(tmp_path, name, body), limits)
        assert isinstance(fault, PlayerFault) and fault.reason == Reason.BAD_OUTPUT, (name, fault)
        assert words in fault.detail and SECRET not in fault.detail and "\x1b" not in fault.detail, fault.detail
        assert len(fault.detail) < 200 and time.monotonic() - started < 30, name


@pytest.mark.fast
@pytest.mark.parametrize("mode", [pytest.param("strict", marks=isolated), "off"])
def test_input_txt_is_never_written_through_a_link_the_agent_left(tmp_path, mode):
    victim = tmp_path / "victim.txt"
    victim.write_text("the grader's file")
    body = (
        f"os.path.lexists('input.txt') and os.unlink('input.txt')\nos.symlink({str(victim)!r}, 'input.txt')\n"
        "open('output.txt', 'w').write('PASS')"
    )
    assert one_move(hostile(tmp_path, "linker", body), LIMITS._replace(mode=SandboxMode(mode)), moves=2)[0] == "PASS"
    assert victim.read_text() == "the grader's file"


@pytest.mark.fast
@pytest.mark.parametrize("mode", [pytest.param("strict", marks=isolated), "off"])
def test_none_of_the_hosts_environment_reaches_an_agent(tmp_path, monkeypatch, mode):
    monkeypatch.setenv("LITTLEGO_TEST_TOKEN", SECRET)
    body = (
        "import json\nopen('env.json', 'w').write(json.dumps(sorted(os.environ)))\n"
        f"open('output.txt', 'w').write('9,9' if any({SECRET!r} in v for v in os.environ.values()) else 'PASS')"
    )
    player = ProgramPlayer(str(hostile(tmp_path, "reader", body)), limits=LIMITS._replace(mode=SandboxMode(mode)))
    player.new_game(BLACK, 1)
    try:
        assert player.timed_move(Position.initial())[0] == "PASS"
        names = set(__import__("json").load(open(os.path.join(player.workdir, "env.json"))))
    finally:
        player.close()
    assert names <= {"PATH", "HOME", "LANG", "TMPDIR", "PWD"}  # PWD: the shell's own


# --- limits that count every process -----------------------------------------------------------

MEMFD = """import os
out = open("output.txt", "w")          # opened first: every other file may be taken
held = 0                               # MiB held in memory-backed files, at most 1.5 times the limit
handles = []
while held < {memory} * 3 // 2:
    try:
        handles.append(os.memfd_create("hoard"))
    except OSError:
        break
    try:
        for _ in range({file_mb}):    # each file as big as a file may be
            os.write(handles[-1], b"x" * (1 << 20))
            held += 1
    except OSError:
        pass
out.write("9,9" if held > {memory} else "PASS")
"""


# Each limit with the cgroups this machine gives, and as a machine without them has it.
CGROUPS = ["here", "none"]


def cgroups(monkeypatch, which, mode):
    """The limits of a test in ``mode`` with the cgroups ``which`` names: where none count CPU, isolated
    moves run in auto (strict refuses them: ``test_strict_refuses_...``)."""
    if which == "none":
        monkeypatch.setattr(accounting, "hierarchies", lambda: {})
        return LIMITS._replace(mode=SandboxMode.AUTO if mode == "strict" else SandboxMode(mode))
    return LIMITS._replace(mode=SandboxMode(mode))


@pytest.mark.fast
@pytest.mark.parametrize("which", CGROUPS)
@pytest.mark.parametrize("mode", [pytest.param("strict", marks=isolated), "off"])
def test_memory_held_in_memfd_counts_against_the_memory_limit(tmp_path, monkeypatch, mode, which):
    limits = cgroups(monkeypatch, which, mode)
    result = one_move(
        folder_of(
            tmp_path, "hoarder", {"my_player3.py": MEMFD.format(memory=limits.memory_mb, file_mb=limits.file_mb)}
        ),
        limits,
    )
    if accounting.MEMORY in accounting.hierarchies():
        assert isinstance(result, PlayerFault) and "memory limit" in result.detail, result
    else:  # files of at most memory/64 MiB, 64 of them open
        assert result[0] == "PASS", result


BURNERS = """import os, time
for _ in range(3):                     # three children burning 2 s of CPU each, never reaped
    if os.fork() == 0:
        end = time.process_time() + 2.0
        while time.process_time() < end:
            pass
        os._exit(0)
time.sleep(3.0)
open("output.txt", "w").write("PASS")
"""


@pytest.mark.parametrize("which", CGROUPS)
@pytest.mark.parametrize("mode", [pytest.param("strict", marks=isolated), "off"])
def test_cpu_of_children_never_reaped_is_charged_to_the_move(tmp_path, monkeypatch, mode, which):
    assert_over_one_second(folder_of(tmp_path, "burner", {"my_player3.py": BURNERS}), cgroups(monkeypatch, which, mode))


def assert_over_one_second(folder, limits):
    """The first move of the agent in ``folder``, held to 1 s of CPU, loses on time."""
    player = ProgramPlayer(str(folder), cpu_limit=1.0, wall_limit=10, limits=limits)
    player.new_game(BLACK, 1)
    try:
        with pytest.raises(PlayerFault) as fault:
            player.timed_move(Position.initial())
    finally:
        player.close()
    assert fault.value.reason == Reason.TIMEOUT and "over the 1.0 s limit" in fault.value.detail


HIDDEN = """import os, time
if os.fork() == 0:                     # a child that reaps 60 short burners itself and is never reaped
    for _ in range(60):
        pid = os.fork()
        if pid == 0:
            end = time.process_time() + 0.04
            while time.process_time() < end:
                pass
            os._exit(0)
        os.waitpid(pid, 0)
    os._exit(0)
time.sleep(4.0)
open("output.txt", "w").write("PASS")
"""


@pytest.mark.skipif(accounting.CPU not in accounting.hierarchies(), reason="no CPU cgroup here")
@isolated
def test_cpu_hidden_in_grandchildren_that_a_child_reaped_is_charged_to_the_move(tmp_path):
    assert_over_one_second(folder_of(tmp_path, "hider", {"my_player3.py": HIDDEN}), LIMITS)


@isolated
def test_strict_refuses_where_no_cgroup_counts_the_cpu_of_every_process(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(accounting, "hierarchies", lambda: {})
    folder = folder_of(tmp_path, "plain", {"my_player3.py": PASS_PY})
    assert main(["match", f"cmd:{folder}", "random", "--games", "1", "--sandbox", "strict"]) == 2
    error = capsys.readouterr().err
    assert "--sandbox strict: no cgroup littlego may make counts the CPU of all of a move's processes" in error
    assert "isolate requires cgroups too" in error
    result = one_move(folder, LIMITS)
    assert isinstance(result, PlayerFault) and "--sandbox strict: no cgroup" in result.detail


# --- folders and disks --------------------------------------------------------------------------

DEEP = 1100  # levels: past Python's recursion limit, as the finding had it
quota = pytest.mark.skipif(quota_root() is None, reason="littlego may not mount a workspace's tmpfs here")


def nest(folder, levels):
    """Make ``levels`` folders named d, each inside the last, under ``folder`` (by descriptors: no path
    grows past PATH_MAX)."""
    handle = os.open(str(folder), os.O_RDONLY)
    for _ in range(levels):
        os.mkdir("d", dir_fd=handle)
        inner = os.open("d", os.O_RDONLY, dir_fd=handle)
        os.close(handle)
        handle = inner
    os.close(handle)


def test_a_folder_too_deep_is_refused_by_name_and_any_depth_is_removed(tmp_path):
    folder = folder_of(tmp_path, "deep", {"my_player3.py": PASS_PY})
    nest(folder, DEEP)
    result = one_move(folder)
    assert isinstance(result, PlayerFault) and result.reason == Reason.CRASH
    assert f"is more than {FOLDER_DEPTH} folders deep" in result.detail and "d/d/d" in result.detail
    remove_tree(str(folder))  # a recursive removal raises RecursionError here
    assert not folder.exists()


MAKES_DEPTH = """import os
if not os.path.exists("deep"):         # its first move: a folder 3,000 levels deep in its own copy
    os.mkdir("deep")
    here = os.open("deep", os.O_RDONLY)
    for _ in range(3000):
        os.mkdir("d", dir_fd=here)
        inner = os.open("d", os.O_RDONLY, dir_fd=here)
        os.close(here)
        here = inner
open("output.txt", "w").write("PASS")
"""


@pytest.mark.parametrize("mode", [pytest.param("strict", marks=isolated), "off"])
def test_a_folder_made_deep_during_a_move_ends_with_the_game(tmp_path, mode):
    player = ProgramPlayer(
        str(folder_of(tmp_path, "digger", {"my_player3.py": MAKES_DEPTH})),
        limits=LIMITS._replace(mode=SandboxMode(mode)),
    )
    for _ in range(2):  # the second game may reuse the sandbox: its folder starts empty again
        player.new_game(BLACK, 1)
        top = player.workspace.top
        try:
            assert player.timed_move(Position.initial())[0] == "PASS"
            assert player.timed_move(Position.initial())[0] == "PASS"
        finally:
            player.close()
    assert not os.path.exists(top)


def test_a_folder_of_too_many_files_is_refused_before_it_costs_the_host(tmp_path):
    folder = folder_of(tmp_path, "crowd", {"my_player3.py": PASS_PY})
    for index in range(FOLDER_ENTRIES + 1):
        os.close(os.open(str(folder / f"f{index}"), os.O_CREAT | os.O_WRONLY, 0o644))
    result = one_move(folder)
    assert isinstance(result, PlayerFault) and f"past the {FOLDER_ENTRIES:,} files and folders" in result.detail


FILLER = """import os
open("output.txt", "w").write("PASS")  # its answer first, then every byte and every inode it can take
try:
    with open("ballast", "wb") as ballast:
        while True:
            ballast.write(b"x" * (1 << 20))
except OSError:
    pass
try:
    os.mkdir("many")
    for index in range(100000):
        os.close(os.open(f"many/{index}", os.O_CREAT | os.O_WRONLY))
except OSError:
    pass
"""


@quota
@isolated
def test_an_agent_that_fills_its_disk_never_harms_its_opponent(tmp_path):
    filler = ProgramPlayer(str(folder_of(tmp_path, "filler", {"my_player3.py": FILLER})), limits=LIMITS)
    plain = ProgramPlayer(str(folder_of(tmp_path, "plain", {"my_player3.py": PASS_PY})), limits=LIMITS)
    record = play_game(filler, plain, seed=1)
    assert record.reason == Reason.END and record.detail == "", record  # two passes: nobody charged
    assert all(seconds < 5 for _, seconds in record.cpu)


@quota
def test_a_workspace_the_agent_filled_is_its_own_fault(tmp_path):
    player = ProgramPlayer(str(folder_of(tmp_path, "plain", {"my_player3.py": PASS_PY})), limits=LIMITS)
    player.new_game(BLACK, 1)
    try:
        with open(os.path.join(player.workdir, "ballast"), "wb", buffering=0) as ballast:  # as a move would
            with pytest.raises(OSError):
                while True:
                    ballast.write(b"x" * (1 << 20))
        with pytest.raises(PlayerFault) as fault:
            player.timed_move(Position.initial())
    finally:
        player.close()
    assert fault.value.reason == Reason.CRASH and "its folder is full (the copy's quota" in fault.value.detail


def test_a_host_write_that_fails_on_a_full_disk_is_charged_to_nobody(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(workspace, "quota_root", lambda: None)  # a copy on the host's disk

    def full(path, text):
        raise OSError(errno.ENOSPC, "No space left on device", path)

    monkeypatch.setattr(program, "write_new", full)
    folder = folder_of(tmp_path, "plain", {"my_player3.py": PASS_PY})
    with pytest.raises(HostError, match="the host cannot write input.txt"):
        play_game(ProgramPlayer(str(folder), limits=LIMITS), ProgramPlayer(str(folder), limits=LIMITS))
    assert main(["match", f"cmd:{folder}", "random", "--games", "2", "--jobs", "1"]) == 2
    assert "the host cannot write input.txt into" in capsys.readouterr().err


@isolated
def test_a_moves_tmp_is_private_writable_and_empty_at_each_game(tmp_path):
    body = """import os
seen = os.path.exists("/tmp/left-by-a-move") or os.path.exists("/dev/shm/left-by-a-move")
open("/tmp/left-by-a-move", "w").write("x")
open("/dev/shm/left-by-a-move", "w").write("x")
open("output.txt", "w").write("9,9" if seen else "PASS")
"""
    player = ProgramPlayer(str(folder_of(tmp_path, "tidy", {"my_player3.py": body})), limits=LIMITS)
    outcomes = []
    for _ in range(2):
        player.new_game(BLACK, 1)
        try:
            outcomes.append(player.timed_move(Position.initial())[0])  # a game's first move sees none
            with pytest.raises(PlayerFault, match="9,9 is off the board"):
                player.timed_move(Position.initial())  # its second sees the first's: one game, one /tmp
        finally:
            player.close()
    assert outcomes == ["PASS", "PASS"]


def test_evolve_reads_an_agent_folder_only_through_the_safe_copy(tmp_path):
    folder = agent_folder(tmp_path)
    os.symlink("/proc/kmsg", str(folder / "kmsg"))
    with pytest.raises(UntrustedFolderError, match="kmsg is a symbolic link to outside the folder"):
        fingerprint(str(folder), "weights.json")
    os.unlink(str(folder / "kmsg"))
    with open(str(folder / "sparse.bin"), "wb") as sparse:
        sparse.truncate(8 << 30)  # 8 GiB, no block written
    with pytest.raises(UntrustedFolderError, match="sparse.bin takes the folder past its limit"):
        fingerprint(str(folder), "weights.json")
    config = tmp_path / "run.toml"
    config.write_text(EVOLVE_CONFIG.format(folder=folder))
    with pytest.raises(ConfigError, match="'individual.program': agent folder .*sparse.bin takes the folder"):
        load_config(str(config))


EVOLVE_CONFIG = """name = "hostile"
seed = 1
population = 2
generations = 1

[individual]
program = "{folder}"
weights_file = "weights.json"

[individual.bounds]
centre = [-1.0, 1.0]

[[panel]]
opponent = "greedy"
games = 2
"""


def agent_folder(tmp_path):
    folder = tmp_path / "agent"
    shutil.copytree(os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples", "student-agent"), str(folder))
    return folder


# --- a class of hostile entrants ----------------------------------------------------------------


@pytest.mark.fast
def test_a_tournament_of_hostile_entrants_ends_with_a_complete_table(tmp_path, capsys):
    root = tmp_path / "class"
    root.mkdir()
    marker = tmp_path / "chosen-command-ran"
    folder_of(root, "plain", {"my_player3.py": PASS_PY})
    folder_of(root, f"evil::/bin/sh -c 'touch {marker}'".replace("/", "_"), {"my_player3.py": PASS_PY})
    folder_of(root, "new\nline", {"my_player3.py": PASS_PY})
    os.mkfifo(str(folder_of(root, "fifo", {"my_player3.py": PASS_PY}) / "pipe"))
    assert main(["tournament", str(root), "--games", "1", "--jobs", "1", "--sandbox", "auto", "--json"]) == 0
    report = __import__("json").loads(capsys.readouterr().out)
    assert len(report["standings"]) == 4 and len(report["matches"]) == 6
    assert "new\\nline" in report["agents"] and not marker.exists()
    assert any(f["agent"] == "fifo" and "pipe is a FIFO" in f["detail"] for f in report["faults"])


CLASS_PYTHON = ["py-first-1", "py-pass-1", "x-symlink-secret", "x-output-symlink", "x-output-fifo", "x-env-spy"]


@isolated
def test_the_class_of_honest_and_hostile_python_entrants_leaks_nothing_and_names_each_attack(tmp_path, monkeypatch):
    # The class of experiments/sandbox-class-20261124 (tests/fixtures/make_class.py), its Python entrants:
    # the grader's token reaches no entrant and no output, no folder name runs as a command.
    planted = "/tmp/PWNED-colon"
    assert not os.path.exists(planted)
    named_as_spec = "cmd:py-first-1::" + make_class.SPEC_NAME_COMMAND
    made = make_class.make_class(str(tmp_path / "class"), names=set(CLASS_PYTHON) | {named_as_spec})
    assert sorted(name for name, _ in made) == sorted(CLASS_PYTHON + [named_as_spec])
    monkeypatch.setenv("GRADER_TOKEN", make_class.SECRET_TOKEN)
    words = ["tournament", ".", "--games", "1", "--jobs", "2", "--sandbox", "strict", "--json"]
    result = cli("littlego", *words, cwd=tmp_path / "class")
    assert result.returncode == 0, result.stderr
    assert make_class.SECRET_TOKEN not in result.stdout + result.stderr and not os.path.exists(planted)
    report = json.loads(result.stdout)
    assert len(report["standings"]) == len(made) and len(report["matches"]) == len(made) * (len(made) - 1) // 2
    faults = {}
    for fault in report["faults"]:
        faults.setdefault(fault["agent"], set()).add(fault["detail"])
    assert {"notes.txt is a symbolic link to outside the folder" in d for d in faults["x-symlink-secret"]} == {True}
    assert faults["x-output-symlink"] == {"output.txt is a symbolic link"}
    assert {"output.txt" in detail for detail in faults["x-output-fifo"]} == {True}
    assert not any("9,9" in detail for detail in faults.get("x-env-spy", ()))  # it never saw the token


@pytest.mark.slow
def test_a_tournament_with_a_deep_folder_a_disk_filler_and_a_crowd_ends_with_a_complete_table(tmp_path, capsys):
    root = tmp_path / "class"
    root.mkdir()
    folder_of(root, "plain", {"my_player3.py": PASS_PY})
    deep = folder_of(root, "deep", {"my_player3.py": PASS_PY})
    nest(deep, DEEP)
    folder_of(root, "filler", {"my_player3.py": FILLER})
    crowd = folder_of(root, "crowd", {"my_player3.py": PASS_PY})
    for index in range(100_000):
        os.close(os.open(str(crowd / f"f{index}"), os.O_CREAT | os.O_WRONLY, 0o644))
    journal = str(tmp_path / "tournament.jsonl")
    arguments = ["tournament", str(root), "--games", "1", "--jobs", "1", "--json", "--resume", journal]
    try:
        assert main(arguments) == 0
        report = __import__("json").loads(capsys.readouterr().out)
        assert main(arguments) == 0  # a rerun with --resume finishes too
        assert __import__("json").loads(capsys.readouterr().out)["standings"] == report["standings"]
    finally:
        remove_tree(str(deep / "d"))  # pytest's own removal of old temporary folders would recurse
    assert len(report["standings"]) == 4 and len(report["matches"]) == 6
    faults = {f["agent"]: f["detail"] for f in report["faults"]}
    assert f"more than {FOLDER_DEPTH} folders deep" in faults["deep"]
    assert f"past the {FOLDER_ENTRIES:,} files and folders" in faults["crowd"]
    assert "plain" not in faults  # the filler's games harmed no one else


def test_a_folder_name_forges_no_line_of_the_grade_report(tmp_path, capsys):
    forged = "entrant\nTotal: 100.00 of 100 points (every stage passed)"
    folder = folder_of(tmp_path, forged, {"my_player3.py": PASS_PY})
    assert main(["grade", str(folder), "--games", "1", "--jobs", "1", "--championship", "random"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert not any(line.startswith("Total: 100.00 of 100 points (every stage passed)") for line in lines)
    assert "entrant\\nTotal" in lines[0]


# --- what one game could leave to the next -------------------------------------------------------

KEYS = {"x86_64": (248, 250), "aarch64": (217, 219)}  # add_key's and keyctl's system call numbers
KEY_SPEC_SESSION_KEYRING, KEYCTL_SEARCH = -3, 10
keys_known = pytest.mark.skipif(platform.machine() not in KEYS, reason="add_key's number is not known here")

LEAVER = """import ctypes, glob, os, platform
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = {keys}[platform.machine()]
found = libc.syscall(keyctl, {search}, {session}, b"user", b"littlego-left-by-a-move", 0) >= 0
libc.syscall(add_key, b"user", b"littlego-left-by-a-move", b"x", 1, {session})
try:
    mark = os.getxattr(".", "user.left-by-a-move")
except OSError:
    mark = None
os.setxattr(".", "user.left-by-a-move", b"x")
os.chmod(".", 0o700)
pth = glob.glob("/tmp/pth-ran-*")
open("output.txt", "w").write("9,9" if found or mark or pth else "PASS")
"""


@isolated
@keys_known
def test_the_next_game_finds_no_key_no_attribute_and_no_hook(tmp_path):
    script = LEAVER.format(keys=KEYS, search=KEYCTL_SEARCH, session=KEY_SPEC_SESSION_KEYRING)
    folder = folder_of(tmp_path, "leaver", {"my_player3.py": script})
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = folder / ".local" / "lib" / version / "site-packages"
    site.mkdir(parents=True)  # a user site in the agent's folder (HOME): never run by the host's server
    (site / "hook.pth").write_text('import os; open("/tmp/pth-ran-%d" % os.getpid(), "w").close()\n')
    player = ProgramPlayer(str(folder), limits=LIMITS)
    answers = []
    for _ in range(2):
        player.new_game(BLACK, 1)
        try:
            answers.append(player.timed_move(Position.initial())[0])
        finally:
            player.close()
    assert answers == ["PASS", "PASS"]  # the second game found nothing of the first
    add_key, keyctl = KEYS[platform.machine()]
    libc = ctypes.CDLL(None, use_errno=True)
    host = libc.syscall(keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, b"user", b"littlego-left-by-a-move", 0)
    assert host < 0  # nor did the host's session keyring get the key


KEYRINGS = """import ctypes, json, os, platform
libc = ctypes.CDLL(None, use_errno=True)
add_key, keyctl = {keys}[platform.machine()]
found = {{}}
for name, ring in (("user", -4), ("user-session", -5), ("session", -3)):
    found[name] = libc.syscall(keyctl, {search}, ring, b"user", b"left-" + name.encode(), 0) >= 0
    libc.syscall(add_key, b"user", b"left-" + name.encode(), b"x", 1, ring)
with open("keys.json", "a") as out:
    out.write(json.dumps(found) + "\\n")
open("output.txt", "w").write("PASS")
"""


@isolated
@keys_known
@pytest.mark.parametrize("served", [True, False], ids=["served", "a-sandbox-a-move"])
def test_no_key_a_move_adds_to_any_keyring_reaches_the_next_move(tmp_path, served):
    script = KEYRINGS.format(keys=KEYS, search=KEYCTL_SEARCH)
    player = ProgramPlayer(
        str(folder_of(tmp_path, "keys", {"my_player3.py": script})), limits=LIMITS._replace(served=served)
    )
    player.new_game(BLACK, 1)
    try:
        assert [player.timed_move(Position.initial())[0] for _ in range(2)] == ["PASS", "PASS"]
        with open(os.path.join(player.workdir, "keys.json")) as noted:
            seen = [json.loads(line) for line in noted]
    finally:
        player.close()
    assert seen == [{"user": False, "user-session": False, "session": False}] * 2


SEEKER = """import os
offset = os.lseek(2, 0, os.SEEK_CUR)   # what a move before it may have left on its stderr
os.lseek(2, 99357415, os.SEEK_SET)
open("output.txt", "w").write("PASS" if offset < 99357415 else "9,9")
"""


@isolated
def test_a_moves_stderr_is_its_own(tmp_path):
    player = ProgramPlayer(str(folder_of(tmp_path, "seeker", {"my_player3.py": SEEKER})), limits=LIMITS)
    player.new_game(BLACK, 1)
    try:
        assert [player.timed_move(Position.initial())[0] for _ in range(2)] == ["PASS", "PASS"]
    finally:
        player.close()


# A move that notes, at its game's first move, what an earlier game could have left it (the stderr's
# attributes and times, the sandbox's process ids, the tmpfs's inode numbers, the folders' attributes),
# then leaves a mark on each of them for a later game to find.
CARRIER = """import json, os
first = not os.path.exists("moved.txt")
open("moved.txt", "w").close()
if first:
    def attributes(path):
        return sorted(os.listxattr(path))
    seen = {
        "stderr attributes": attributes("/proc/self/fd/2"),
        "stderr times": [int(os.fstat(2).st_atime) == 12345, int(os.fstat(2).st_mtime) == 12345],
        "folder attributes": attributes("."),
        "tmp attributes": attributes("/tmp"),
        "pid in the sandbox": os.readlink("/proc/self"),
        "processes in the sandbox": sorted(name for name in os.listdir("/proc") if name.isdigit()),
    }
    for place in (".", "/tmp", "/dev/shm"):
        with open(os.path.join(place, "probe"), "w") as probe:
            seen["inode in " + place] = os.fstat(probe.fileno()).st_ino
    with open("seen.json", "w") as out:
        json.dump(seen, out)
    for path in ("/proc/self/fd/2", ".", "/tmp"):
        try:
            os.setxattr(path, "user.left-by-a-game", b"x" * 1000)
        except OSError:
            pass
    os.utime("/proc/self/fd/2", (12345, 12345))
    for number in range(300):  # the tmpfs's inode count moved on
        open(f"/tmp/count-{number}", "w").close()
        os.unlink(f"/tmp/count-{number}")
    for _ in range(40):  # the sandbox's process ids moved on
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
open("output.txt", "w").write("PASS")
"""


@isolated
def test_a_game_finds_nothing_that_a_move_of_an_earlier_game_changed(tmp_path):
    """Each game is served as if by a new sandbox: what the first game's moves changed (stderr's attributes
    and times, the sandbox's process ids, the tmpfs's inode numbers) is not there in the second."""
    player = ProgramPlayer(str(folder_of(tmp_path, "carrier", {"my_player3.py": CARRIER})), limits=LIMITS)
    seen = []
    for _ in range(3):
        player.new_game(BLACK, 1)
        try:
            assert [player.timed_move(Position.initial())[0] for _ in range(2)] == ["PASS", "PASS"]
            with open(os.path.join(player.workdir, "seen.json")) as noted:
                seen.append(json.load(noted))
            quota = player.workspace.quota
        finally:
            player.close()
    assert seen[0]["stderr attributes"] == [] and seen[0]["stderr times"] == [False, False]
    if not quota:  # a copy on the host's disk: inode numbers are the host file system's
        for noted in seen:
            for place in (".", "/tmp", "/dev/shm"):
                noted.pop("inode in " + place)
    assert seen[1] == seen[0] and seen[2] == seen[0]


SERVER_READER = """with open("/proc/1/cmdline", "rb") as server, open("server.txt", "wb") as out:
    out.write(server.read())
open("output.txt", "w").write("PASS")
"""


@pytest.mark.fast
@isolated
def test_a_move_reads_nothing_of_its_settings_in_the_servers_command_line(tmp_path):
    if not gamebox.available(LIMITS):
        pytest.skip("moves are not served here")
    player = ProgramPlayer(str(folder_of(tmp_path, "reader", {"my_player3.py": SERVER_READER})), limits=LIMITS)
    player.new_game(BLACK, 1)
    try:
        assert player.timed_move(Position.initial())[0] == "PASS"
        with open(os.path.join(player.workdir, "server.txt"), "rb") as seen:
            words = seen.read().split(b"\0")
    finally:
        player.close()
    assert words[-2].endswith(b"move_server.py") and words[-1] == b""  # nothing after the script's name


# Every kind of namespace, tried by a move: first as it is, then after mapping its user (which a move
# holding its namespace's capabilities could do); each answer noted, with the capabilities it holds.
NAMESPACE_KINDS = {
    "user": 0x10000000,
    "mount": 0x20000,
    "net": 0x40000000,
    "ipc": 0x08000000,
    "pid": 0x20000000,
    "uts": 0x04000000,
    "cgroup": 0x02000000,
    "time": 0x80,
}
NAMESPACE_TAKER = """import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
KINDS = {kinds}
def attempt(flag):
    child = os.fork()
    if child == 0:
        os._exit(0 if libc.unshare(flag) == 0 else ctypes.get_errno() or 255)
    return os.WEXITSTATUS(os.waitpid(child, 0)[1])
found = {{}}
with open("/proc/self/status") as status:
    found["capabilities"] = [line.split()[1] for line in status if line.startswith(("CapEff", "CapPrm"))]
for name, flag in KINDS.items():
    found[name] = os.strerror(attempt(flag)) if attempt(flag) else "made"
try:
    with open("/proc/self/uid_map", "w") as mapping:
        mapping.write("1000 %d 1" % os.geteuid())
    found["user mapped"] = True
except OSError:
    found["user mapped"] = False
for name, flag in KINDS.items():
    found[name + " once mapped"] = os.strerror(attempt(flag)) if attempt(flag) else "made"
for name, flag in KINDS.items():  # the same through clone, as fork does it (not time: clone has no bit for it)
    if name == "time":
        continue
    child = libc.syscall({clone}, flag | 17, 0, 0, 0, 0) if {clone} else -1
    if child == 0:
        os._exit(0)
    if child > 0:
        os.waitpid(child, 0)
    found[name + " by clone"] = "made" if child > 0 else "refused"
with open("namespaces.json", "w") as out:
    json.dump(found, out)
open("output.txt", "w").write("PASS")
"""
CLONE_NUMBER = {"x86_64": 56, "aarch64": 220}.get(platform.machine(), 0)


def noted_by_a_move(folder, served, language, name):
    """The JSON file ``name`` that the agent in ``folder`` wrote in its first move (which passed), the move
    ``served`` or in a sandbox of its own; ``language`` "exec": the script as a program the move executes
    (not run by the server's own interpreter)."""
    command = None if language == "python" else [sys.executable, "-S", "my_player3.py"]
    player = ProgramPlayer(str(folder), command=command, limits=LIMITS._replace(served=served))
    player.new_game(BLACK, 1)
    try:
        assert player.timed_move(Position.initial())[0] == "PASS"
        with open(os.path.join(player.workdir, name)) as noted:
            return json.load(noted)
    finally:
        player.close()


@pytest.mark.fast
@isolated
@pytest.mark.parametrize("served", [True, False], ids=["served", "a-sandbox-a-move"])
@pytest.mark.parametrize("language", ["python", "exec"])
def test_a_move_holds_no_capability_and_makes_no_namespace_of_any_kind(tmp_path, served, language):
    script = NAMESPACE_TAKER.format(kinds=NAMESPACE_KINDS, clone=CLONE_NUMBER)
    found = noted_by_a_move(
        folder_of(tmp_path, "taker", {"my_player3.py": script}), served, language, "namespaces.json"
    )
    assert found.pop("capabilities") == ["0000000000000000"] * 2
    assert found.pop("user mapped") is False
    made = sorted(name for name, answer in found.items() if answer == "made")
    assert made == [], f"a move made namespaces: {made}"
    assert len(found) == 3 * len(NAMESPACE_KINDS) - 1


# Makes and holds as many namespaces of every kind as its moves can (each in a child that waits, at most
# 200 a move): were that allowed, a hog that went on would leave every other sandbox's moves none (they all
# run as nobody, whose count the kernel keeps for the whole machine). It passes, and answers off the board
# wherever it made one, so that the report shows it.
NAMESPACE_HOG = """import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
EVERY_KIND = 0x10000000 | 0x20000 | 0x40000000 | 0x08000000 | 0x20000000 | 0x04000000 | 0x02000000
try:  # its user mapped in the move's own namespace: a user namespace may then be made in it
    with open("/proc/self/uid_map", "w") as mapping:
        mapping.write("1000 %d 1" % os.geteuid())
except OSError:
    pass
made, children = 0, []
for _ in range(200):
    ready, done = os.pipe()
    child = os.fork()
    if child == 0:
        taken = libc.unshare(EVERY_KIND) == 0 or libc.unshare(EVERY_KIND & ~0x10000000) == 0
        os.write(done, b"1" if taken else b"0")
        time.sleep(1)
        os._exit(0)
    answer = os.read(ready, 1)
    os.close(ready), os.close(done)
    children.append(child)
    if answer != b"1":
        break
    made += 1
for child in children:
    os.kill(child, 9)
    os.waitpid(child, 0)
open("output.txt", "w").write("9,9" if made else "PASS")
"""


@isolated
def test_a_namespace_hog_in_a_tournament_harms_no_other_agents_game(tmp_path, capsys):
    root = tmp_path / "class"
    root.mkdir()
    folder_of(root, "hog", {"my_player3.py": NAMESPACE_HOG})
    for name in ("honest-a", "honest-b", "honest-c"):
        shutil.copytree(f"{os.path.dirname(os.path.dirname(__file__))}/examples/student-agent", root / name)
    assert main(["tournament", str(root), "--games", "1", "--jobs", "2", "--sandbox", "strict", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["standings"]) == 4 and len(report["matches"]) == 6
    assert report["faults"] == []  # every game played out, the hog's too: it could make no namespace
