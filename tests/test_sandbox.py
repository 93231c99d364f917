"""Hostile program players: in the sandbox (``strict``) each ends as its own loss or with no effect,
the opponent's folder, the user's files and ~/.cache unchanged; run without it (``off``), five of the
attacks succeed, which shows that the tests can tell. Each attack is bounded in the agent itself, so
that a failing sandbox cannot take the machine down; the sandboxed runs happen only where bwrap
isolates (CI installs it)."""

import io
import os
import pwd
import signal
import socket
import sys
import threading
import time
import uuid
from contextlib import contextmanager

import pytest

import engine.sandbox.isolation as sandbox
from engine.cli.littlego import main
from engine.constants import BLACK
from engine.players.base import PlayerFault, Reason
from engine.players.program import ProgramPlayer
from engine.position import Position
from engine.sandbox import accounting, users
from engine.sandbox.isolation import isolation, warning
from engine.sandbox.limits import Limits, SandboxMode

LIMITS = Limits(mode=SandboxMode.STRICT, memory_mb=256, processes=64, file_mb=16)
isolated = pytest.mark.skipif(not isolation()[0], reason=f"no isolation here: {isolation()[1]}")
# Each attack in the sandbox (where it must fail) and without it (where it must succeed).
SANDBOXED, UNSANDBOXED = "strict", "off"
BOTH = [pytest.param(SANDBOXED, marks=isolated), UNSANDBOXED]
# Every attack ends by answering PASS where it had no effect, and an off-board point where it had one.
PRELUDE = """import glob, os, socket, sys, time
def answer(harmless):
    open("output.txt", "w").write("PASS" if harmless else "9,9")
"""


def agent(tmp_path, name, body):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "my_player3.py").write_text(PRELUDE + body)
    return str(folder)


def one_move(folder, limits=LIMITS, wall_limit=None):
    """(move, CPU) of a program player's first move as Black, or the PlayerFault that loses its game."""
    player = ProgramPlayer(folder, cpu_limit=5.0, limits=limits, wall_limit=wall_limit)
    player.new_game(BLACK, 1)
    try:
        return player.timed_move(Position.initial())
    except PlayerFault as fault:
        return fault
    finally:
        player.close()


def limits_of(mode):
    return LIMITS._replace(mode=SandboxMode(mode))


def had_effect(result):
    """Whether the attack said it had its effect (it answered the off-board point), else it answered PASS."""
    if isinstance(result, PlayerFault):
        assert result.reason == Reason.ILLEGAL and "9,9 is off the board" in result.detail, result
        return True
    assert result[0] == "PASS"
    return False


def home_cache():
    return os.path.join(pwd.getpwuid(os.getuid()).pw_dir, ".cache", "littlego")


@pytest.mark.fast
@pytest.mark.parametrize("mode", BOTH)
def test_an_agent_cannot_read_or_rewrite_its_opponents_copy_nor_the_users_files(tmp_path, mode):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "my_player3.py").write_text("open('output.txt', 'w').write('PASS')\n")
    (victim / "secret.txt").write_text("the victim's secret")
    user_file = tmp_path / "notes.txt"
    user_file.write_text("the user's notes")
    opponent = ProgramPlayer(str(victim), limits=limits_of(mode))
    opponent.new_game(BLACK, 1)  # its copy exists while the attacker moves
    copies = os.path.join(os.path.dirname(opponent.workspace.top), "littlego-player-*", "play", "secret.txt")
    body = f"""
candidates = glob.glob({copies!r}) + [{str(victim)!r} + "/secret.txt", {str(user_file)!r}]
found = [p for p in candidates if os.path.exists(p)]
changed = []
for path in found:
    try:
        open(path, "w").write("pwned")
        changed.append(path)
    except OSError:
        pass
answer(not found and not changed)
"""
    try:
        attacked = had_effect(one_move(agent(tmp_path, "thief", body), limits_of(mode)))
        copy = open(os.path.join(opponent.workdir, "secret.txt")).read()
    finally:
        opponent.close()
    contents = {copy, (victim / "secret.txt").read_text(), user_file.read_text()}
    if mode == SANDBOXED:
        assert not attacked and contents == {"the victim's secret", "the user's notes"}
    else:
        assert attacked and contents == {"pwned"}


@pytest.mark.fast
@pytest.mark.parametrize("mode", BOTH)
def test_an_agent_cannot_write_into_the_home_folder_or_the_tools_cache(tmp_path, mode):
    marker = "pwned-" + uuid.uuid4().hex
    targets = [
        os.path.join(home_cache(), marker),
        os.path.join(pwd.getpwuid(os.getuid()).pw_dir, marker),
        os.path.join(os.path.expanduser("~"), marker),
    ]
    body = f"""
wrote = []
for path in {targets!r}:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").write("pwned")
        wrote.append(path)
    except OSError:
        pass
answer(not wrote)
"""
    try:
        attacked = had_effect(one_move(agent(tmp_path, "squatter", body), limits_of(mode)))
        assert attacked == (mode == UNSANDBOXED)
        assert all(os.path.exists(path) for path in targets) == attacked
        assert any(os.path.exists(path) for path in targets) == attacked
    finally:
        for path in set(targets):
            if os.path.exists(path):
                os.unlink(path)


def _sleepers():
    """The processes the fork bomb left (their command line is its own)."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open(f"/proc/{pid}/cmdline", "rb").read() == b"sleep\x0031.4159\x00":
                left.append(pid)
        except OSError:
            pass
    return left


# An agent's body that forks up to {bound} children, each running {child}; ``children`` counts them.
FORKS = """
children = 0
for _ in range({bound}):               # bounded: a failing sandbox cannot take the machine down
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        {child}
    children += 1
"""


@pytest.mark.parametrize("mode", BOTH)
def test_a_fork_bomb_is_stopped_at_the_process_limit_and_ends_with_the_move(tmp_path, mode):
    body = (
        FORKS.format(bound=3 * LIMITS.processes, child='os.execv("/bin/sleep", ["sleep", "31.4159"])')
        + f"answer(children < {LIMITS.processes})\n"
    )
    assert had_effect(one_move(agent(tmp_path, "forker", body), limits_of(mode))) == (mode == UNSANDBOXED)
    time.sleep(0.5)
    assert not _sleepers()


@contextmanager
def user_running(tasks):
    """Another sandbox's user (under root; else this one, every sandbox's) running ``tasks`` threads
    meanwhile, in a process of its own."""
    ready, told = os.pipe()
    held = users.lease()
    pid = os.fork()
    if pid == 0:  # the child: become that user, start the threads, wait to be killed
        try:
            if held.user:
                os.setgroups([])
                os.setgid(held.user.gid)
                os.setuid(held.user.uid)
            for _ in range(tasks):
                threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
            os.write(told, b"ready")
            time.sleep(60)
        finally:
            os._exit(0)
    try:
        assert os.read(ready, 5) == b"ready"
        yield
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(ready)
        os.close(told)
        held.release()


@pytest.mark.fast
@isolated
@pytest.mark.parametrize("counted", ["apart", "with the user's"])
def test_a_move_starts_processes_up_to_its_limit_whatever_else_its_user_runs(tmp_path, monkeypatch, counted):
    """The move's user already runs twice the limit in threads: the move still starts processes up
    to its limit, not past it, whether the kernel counts the move's tasks apart (Linux 5.14 on, a
    user namespace of its own) or with all of its user's (older kernels: the limit is then set that
    far beyond the tasks its user runs)."""
    if counted == "apart" and not sandbox.support().own_count:
        pytest.skip("this kernel counts a user's tasks all together (before Linux 5.14)")
    if counted != "apart":
        found = sandbox.support()
        monkeypatch.setattr(sandbox, "support", lambda: found._replace(own_count=False))
    # Counted with the user's, the allowance moves as the user's other tasks come and go (those of the
    # test before, still being reaped, say): stopped short of the bound is what holds.
    stop = LIMITS.processes if counted == "apart" else 2 * LIMITS.processes
    body = (
        FORKS.format(bound=3 * LIMITS.processes, child="time.sleep(5); os._exit(0)")
        + f"answer({LIMITS.processes} // 2 <= children < {stop})      # PASS: stopped at the limit, not before\n"
    )
    with user_running(2 * LIMITS.processes):
        result = one_move(agent(tmp_path, "parent", body))
    assert not isinstance(result, PlayerFault) and result[0] == "PASS", result


@pytest.mark.fast
@pytest.mark.parametrize("mode", [pytest.param(SANDBOXED, marks=isolated), UNSANDBOXED])
def test_memory_past_the_limit_loses_the_game_with_the_reason(tmp_path, mode):
    body = """
blocks = []
for _ in range(48):                    # at most 3 GiB, in 64 MiB steps
    blocks.append(b"x" * (64 << 20))
answer(False)
"""
    fault = one_move(agent(tmp_path, "glutton", body), limits_of(mode))  # a limit that holds either way
    assert isinstance(fault, PlayerFault) and fault.reason == Reason.CRASH and "MemoryError" in fault.detail


@pytest.mark.fast
@pytest.mark.parametrize("mode", BOTH)
def test_a_huge_file_is_cut_at_the_limit_and_loses_the_game(tmp_path, mode):
    body = """
with open("huge.bin", "wb") as handle:
    for _ in range(2048):              # at most 2 GiB
        handle.write(b"x" * (1 << 20))
answer(False)
"""
    fault = one_move(agent(tmp_path, "filler", body), limits_of(mode))  # a limit that holds either way
    assert isinstance(fault, PlayerFault) and fault.reason == Reason.CRASH
    assert "File too large" in fault.detail or "file size" in fault.detail


@pytest.mark.slow
@pytest.mark.parametrize("mode", BOTH)
def test_an_agent_has_no_network(tmp_path, mode):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(8)
    accepted = []

    def listen():
        try:
            accepted.append(server.accept())
        except OSError:
            pass

    thread = threading.Thread(target=listen)
    thread.start()
    body = f"""
try:
    socket.create_connection(("127.0.0.1", {server.getsockname()[1]}), timeout=2).sendall(b"pwned")
    answer(False)
except OSError:
    answer(True)
"""
    try:
        attacked = had_effect(one_move(agent(tmp_path, "caller", body), limits_of(mode)))
    finally:
        server.close()
        thread.join()
    assert attacked == bool(accepted) == (mode == UNSANDBOXED)


@pytest.mark.parametrize("mode", BOTH)
def test_a_child_left_running_ends_with_the_move(tmp_path, mode):
    body = """
if os.fork() == 0:
    os.setsid()                         # even one that leaves the session
    time.sleep(1.5)
    open("still-alive.txt", "w").write("yes")
    os._exit(0)
answer(True)
"""
    player = ProgramPlayer(agent(tmp_path, "lingerer", body), cpu_limit=5.0, limits=limits_of(mode))
    player.new_game(BLACK, 1)
    try:
        assert player.timed_move(Position.initial())[0] == "PASS"
        time.sleep(2.5)
        outlived = os.path.exists(os.path.join(player.workdir, "still-alive.txt"))
    finally:
        player.close()
    # Without the sandbox, the run's cgroups (where littlego can make them) still end it.
    assert outlived == (mode == UNSANDBOXED and not accounting.hierarchies())


def test_a_sleeper_loses_on_time_and_is_killed(tmp_path):
    body = "time.sleep(60)\nanswer(True)\n"
    started = time.monotonic()
    fault = one_move(agent(tmp_path, "sleeper", body), limits=Limits(mode=SandboxMode.AUTO), wall_limit=2)
    assert isinstance(fault, PlayerFault) and fault.reason == Reason.TIMEOUT
    assert time.monotonic() - started < 60  # the sleep was cut short, not waited out (no tighter bound: load)


@pytest.mark.fast
def test_without_isolation_a_warning_says_what_is_not_isolated_and_strict_refuses(tmp_path, monkeypatch, capsys):
    no_isolation(monkeypatch)
    line = warning(Limits())
    assert "not isolated" in line and "other players' folders and your files" in line and "bwrap" in line
    assert warning(Limits(mode=SandboxMode.OFF)).startswith("program players run without a sandbox")
    folder = agent(tmp_path, "plain", "answer(True)\n")
    assert one_move(folder, limits=Limits(mode=SandboxMode.AUTO))[0] == "PASS"  # limits only, still plays
    fault = one_move(folder, limits=Limits(mode=SandboxMode.STRICT))
    assert isinstance(fault, PlayerFault) and "--sandbox strict" in fault.detail
    assert main(["match", "cmd:" + folder, "random", "--games", "1", "--jobs", "1", "--sandbox", "strict"]) == 2
    assert "cannot be isolated here: bwrap is not installed" in capsys.readouterr().err
    assert main(["match", "cmd:" + folder, "random", "--games", "1", "--jobs", "1"]) == 0
    assert "warning: program players are not isolated" in capsys.readouterr().err


def no_isolation(monkeypatch):
    monkeypatch.setattr(
        sandbox, "support", lambda: sandbox.Support(False, "bwrap is not installed (apt-get install bubblewrap)")
    )


# Every command that can run a program player, with one in it (a spec with spaces around is one too).
PROGRAM_COMMANDS = {
    "match": lambda spec: ["match", spec, "random", "--games", "1", "--jobs", "1"],
    "grade": lambda spec: ["grade", "greedy", "--championship", spec, "--games", "1", "--jobs", "1"],
    "tournament": lambda spec: ["tournament", spec, "random", "--games", "1", "--jobs", "1"],
    "play": lambda spec: ["play", spec],
    "gtp": lambda spec: ["gtp", "--player", spec],
}


@pytest.mark.fast
@pytest.mark.parametrize("name", sorted(PROGRAM_COMMANDS))
def test_every_command_running_a_program_player_refuses_strict_without_isolation(tmp_path, monkeypatch, capsys, name):
    no_isolation(monkeypatch)
    spec = " cmd:{} ".format(agent(tmp_path, "plain", "answer(True)\n"))
    assert main(PROGRAM_COMMANDS[name](spec) + ["--sandbox", "strict"]) == 2
    assert "--sandbox strict: program players cannot be isolated here: bwrap" in capsys.readouterr().err


@pytest.mark.fast
def test_serve_takes_the_sandbox_options_and_strict_refuses_before_it_listens(tmp_path, monkeypatch, capsys):
    no_isolation(monkeypatch)
    assert main(["serve", "--runs", str(tmp_path), "--port", "0", "--sandbox", "strict"]) == 2
    assert "--sandbox strict: program players cannot be isolated here: bwrap" in capsys.readouterr().err


@pytest.mark.fast
def test_the_board_runs_a_program_opponent_under_the_servers_limits(tmp_path, monkeypatch):
    from engine.ui.web.worker_jobs import PlayerTrouble, reply_job

    no_isolation(monkeypatch)
    folder = agent(tmp_path, "plain", "answer(True)\n")
    reply_job("cmd:" + folder, [], 1, Limits(mode=SandboxMode.AUTO))  # limits only: it plays
    with pytest.raises(PlayerTrouble, match="--sandbox strict"):  # the server's strict reaches the player
        reply_job("cmd:" + folder, [], 1, Limits(mode=SandboxMode.STRICT))


@pytest.mark.fast
@pytest.mark.parametrize("name", ["play", "gtp"])
def test_play_and_gtp_warn_before_a_program_player_moves_unisolated_and_only_then(tmp_path, monkeypatch, capsys, name):
    no_isolation(monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(PROGRAM_COMMANDS[name]("cmd:" + agent(tmp_path, "plain", "answer(True)\n"))) == 0
    err = capsys.readouterr().err
    limited = f"processes {Limits().processes} (all its processes)"
    assert "warning: program players are not isolated" in err
    assert (limited if accounting.TASKS in accounting.hierarchies() else "no limit on processes") in err
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(PROGRAM_COMMANDS[name]("random")) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.fast
@isolated
def test_a_command_naming_python_plays_in_the_sandbox_whatever_launcher_starts_it(tmp_path):
    folder = agent(tmp_path, "plain", "answer(True)\n")
    for command in ("python3 my_player3.py", f"{sys.executable} my_player3.py"):
        player = ProgramPlayer(folder, command=command, limits=LIMITS)
        player.new_game(BLACK, 1)
        try:
            assert player.timed_move(Position.initial())[0] == "PASS"  # a pyenv shim is not run inside
        finally:
            player.close()
