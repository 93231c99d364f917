"""Neighbours against running games: other sandboxes and other local users of the grading machine.

A teacher grades on a shared machine. Each test is one attack on a game in progress, by a local user
who is not root (any account, or one that became another sandbox's user), or by the game's own agent
through the kernel's calls that no namespace of the sandbox covers; each must reach nothing. The
attackers run as forked children of the test that drop root (``as_user``), as a local user would be.
"""

import ctypes
import errno
import fcntl
import json
import os
import platform
import shutil
import signal
import tempfile
import threading
import time

import pytest

import engine.sandbox.isolation as isolation_module
from engine.constants import BLACK
from engine.players.program import ProgramPlayer
from engine.position import Position
from engine.sandbox import users
from engine.sandbox.isolation import isolation
from engine.sandbox.limits import Limits, SandboxError, SandboxMode
from engine.sandbox.workspace import QUOTA_ROOTS, quota_root
from tests.conftest import wait_until
from tests.test_hostile import folder_of, noted_by_a_move

LIMITS = Limits(mode=SandboxMode.STRICT, memory_mb=256, processes=64, file_mb=16, folder_mb=8)
isolated = pytest.mark.skipif(not isolation()[0], reason=f"no isolation here: {isolation()[1]}")
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="sandboxes run as users of their own under root only")
LOCAL_USER = 4242  # an account of the machine's, not root: the neighbour
PTRACE_ATTACH, PTRACE_DETACH = 16, 17
PASSER = 'open("output.txt", "w").write("PASS")\n'


def as_user(uid, attack):
    """What ``attack()`` (a function of no argument returning a JSON-able value) returns when run by
    ``uid`` (and its group of the same number), no capability kept: in a forked child."""
    ready, told = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(ready)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            answer = json.dumps(attack()).encode()
        except BaseException as error:  # the attack's own failure is its answer
            answer = json.dumps(f"attack failed: {error!r}").encode()
        os.write(told, answer)
        os._exit(0)
    os.close(told)
    with os.fdopen(ready, "rb") as pipe:
        answer = pipe.read()
    os.waitpid(child, 0)
    return json.loads(answer)


def what_reaches(path):
    """What of ``path`` (a folder) the caller can list, read and write: a list of the ways that worked."""
    reached = []
    try:
        names = os.listdir(path)
        reached.append("list")
    except OSError:
        names = []
    for name in names or ["my_player3.py"]:
        try:
            with open(os.path.join(path, name), "rb"):
                reached.append(f"read {name}")
        except OSError:
            pass
        try:
            with open(os.path.join(path, name), "ab"):
                reached.append(f"write {name}")
        except OSError:
            pass
    try:
        with open(os.path.join(path, "planted.txt"), "w"):
            reached.append("create")
    except OSError:
        pass
    return reached


def owner(path):
    return os.stat(path).st_uid


@pytest.fixture
def two_games(tmp_path):
    """Two program players, each with its game started (its copy in its workspace)."""
    players = []
    for name in ("victim", "neighbour"):
        folder = folder_of(tmp_path, name, {"my_player3.py": PASSER})
        player = ProgramPlayer(str(folder), limits=LIMITS)
        player.new_game(BLACK, 1)
        players.append(player)
    yield players
    for player in players:
        player.close()


@pytest.mark.fast
@isolated
@as_root
def test_a_local_user_reads_writes_and_fills_nothing_of_a_running_game(two_games):
    victim, _ = two_games
    places = [victim.workdir] + list((victim.workspace.scratch or {}).values())
    for place in places:
        assert as_user(LOCAL_USER, lambda place=place: what_reaches(place)) == [], place
    for root in QUOTA_ROOTS:
        if os.path.isdir(root):
            assert os.stat(root).st_mode & 0o077 == 0, f"{root} is open to other users"


@pytest.mark.fast
@isolated
@as_root
def test_one_sandboxs_user_reaches_nothing_of_another_sandbox(two_games):
    victim, neighbour = two_games
    assert owner(victim.workdir) != owner(neighbour.workdir), "two living sandboxes share a user"
    assert as_user(owner(neighbour.workdir), lambda: what_reaches(victim.workdir)) == []


SLEEPER = """import os, time
open("started", "w").close()
time.sleep(4)
open("output.txt", "w").write("PASS")
"""


def _moves_of(uid):
    """The pids of the processes that ``uid`` runs now."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/status") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
            if int(fields["Uid"].split()[0]) == uid:
                found.append(int(name))
        except (OSError, KeyError, ValueError):
            pass
    return found


def _attach_each(pids):
    """Which of ``pids`` the caller could attach to with ptrace (each detached again at once)."""
    libc = ctypes.CDLL(None, use_errno=True)
    traced = []
    for pid in pids:
        if libc.ptrace(PTRACE_ATTACH, pid, None, None) == 0:
            traced.append(pid)
            os.waitpid(pid, 0)
            libc.ptrace(PTRACE_DETACH, pid, None, None)
    return traced


@isolated
@as_root
@pytest.mark.parametrize("attacker", ["another sandbox's user", "a local user"])
def test_no_neighbour_traces_a_running_move(tmp_path, attacker):
    victim = ProgramPlayer(str(folder_of(tmp_path, "victim", {"my_player3.py": SLEEPER})), limits=LIMITS)
    neighbour = ProgramPlayer(str(folder_of(tmp_path, "neighbour", {"my_player3.py": PASSER})), limits=LIMITS)
    victim.new_game(BLACK, 1)
    neighbour.new_game(BLACK, 1)
    results = []
    mover = threading.Thread(target=lambda: results.append(victim.timed_move(Position.initial())))
    try:
        mover.start()
        wait_until(lambda: os.path.exists(os.path.join(victim.workdir, "started")) or not mover.is_alive(), "started")
        moves = _moves_of(owner(victim.workdir))
        assert moves, "the move is not running"
        uid = owner(neighbour.workdir) if attacker.startswith("another") else LOCAL_USER
        assert as_user(uid, lambda: _attach_each(moves)) == []
        # Not dumpable: its /proc files are root's (the served Python move, and the server).
        assert [pid for pid in moves if os.stat(f"/proc/{pid}/mem").st_uid != 0] == []
        mover.join()
        assert results and results[0][0] == "PASS", results
    finally:
        mover.join()
        victim.close()
        neighbour.close()


# Plants a set-user-id copy of a program in its own folder: were the workspace's mount to honour it, any
# local user could run it as the sandbox's user (and, with one user for every sandbox, reach all of them).
PLANTER = """import os, shutil
shutil.copy("/usr/bin/id", "planted")
os.chmod("planted", 0o6755)
open("output.txt", "w").write("PASS")
"""


@pytest.mark.fast
@isolated
@as_root
def test_a_set_user_id_file_an_agent_leaves_gives_no_one_its_user(tmp_path):
    player = ProgramPlayer(str(folder_of(tmp_path, "planter", {"my_player3.py": PLANTER})), limits=LIMITS)
    player.new_game(BLACK, 1)
    try:
        assert player.timed_move(Position.initial())[0] == "PASS"
        planted = os.path.join(player.workdir, "planted")
        sandbox_user = owner(player.workdir)

        def run_planted():
            read, write = os.pipe()
            child = os.fork()
            if child == 0:
                os.dup2(write, 1)
                try:
                    os.execv(planted, [planted, "-u"])
                except OSError as error:
                    os.write(1, f"refused {errno.errorcode[error.errno]}".encode())
                os._exit(1)
            os.close(write)
            with os.fdopen(read) as out:
                answer = out.read().strip()
            os.waitpid(child, 0)
            return answer

        answer = as_user(LOCAL_USER, run_planted)
        assert answer != str(sandbox_user), "a local user ran the agent's file as the sandbox's user"
        if player.workspace.quota:
            assert {"nosuid", "nodev"} <= _mount_options(player.workspace.top)
    finally:
        player.close()


def _mount_options(point):
    with open("/proc/self/mountinfo") as mounts:
        for line in mounts:
            fields = line.split()
            if fields[4] == point:
                return set(fields[5].split(","))
    return set()


# --- what no namespace covers: vsock, io_uring, userfaultfd, bpf, perf ------------------------------

CALLS = {  # each machine's numbers of the calls a move must not make
    "x86_64": {"io_uring_setup": 425, "userfaultfd": 323, "bpf": 321, "perf_event_open": 298},
    "aarch64": {"io_uring_setup": 425, "userfaultfd": 282, "bpf": 280, "perf_event_open": 241},
}.get(platform.machine(), {})
FAMILIES = {"vsock": 40, "netlink": 16, "packet": 17, "unix": 1, "inet": 2, "inet6": 10}
PROBE = """import ctypes, errno, json, os, socket
libc = ctypes.CDLL(None, use_errno=True)
found = {{}}
for name, family in {families}.items():
    try:
        socket.socket(family, socket.SOCK_DGRAM if family in (16, 17) else socket.SOCK_STREAM).close()
        found[name] = "made"
    except OSError as error:
        found[name] = errno.errorcode.get(error.errno, str(error.errno))
buffer = ctypes.create_string_buffer(256)
for name, number in {calls}.items():
    arguments = {{"io_uring_setup": (1, buffer), "userfaultfd": (0,), "bpf": (0, buffer, 72),
                 "perf_event_open": (buffer, 0, -1, -1, 0)}}[name]
    answer = libc.syscall(number, *arguments)
    found[name] = "made" if answer >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
found["uid"] = os.getuid()
with open("probe.json", "w") as out:
    json.dump(found, out)
open("output.txt", "w").write("PASS")
"""


@pytest.mark.fast
@isolated
@pytest.mark.skipif(not CALLS, reason=f"no call numbers known for {platform.machine()}")
@pytest.mark.parametrize("served", [True, False], ids=["served", "a-sandbox-a-move"])
@pytest.mark.parametrize("language", ["python", "exec"])
def test_a_move_makes_no_vsock_io_uring_userfaultfd_bpf_or_perf(tmp_path, served, language):
    script = PROBE.format(families=FAMILIES, calls=CALLS)
    found = noted_by_a_move(folder_of(tmp_path, "prober", {"my_player3.py": script}), served, language, "probe.json")
    assert {name: found[name] for name in ("unix", "inet", "inet6")} == dict.fromkeys(("unix", "inet", "inet6"), "made")
    assert {name: found[name] for name in ("vsock", "netlink", "packet")} == dict.fromkeys(
        ("vsock", "netlink", "packet"), "EAFNOSUPPORT"
    )
    assert {name: found[name] for name in CALLS} == dict.fromkeys(CALLS, "EPERM")
    assert found["uid"] != 0


@pytest.mark.fast
@isolated
@as_root
@pytest.mark.skipif(not CALLS, reason=f"no call numbers known for {platform.machine()}")
def test_where_a_sandboxs_user_may_have_no_user_namespace_its_moves_stay_isolated_and_filtered(tmp_path, monkeypatch):
    """A machine that refuses user namespaces to unprivileged users (a sysctl, AppArmor, a container's
    filter): the second bwrap of a move cannot start, and the sandbox's own bwrap filters the move."""
    real = isolation_module._trial
    refused = (False, "bwrap: No permissions to create new namespace (simulated)", None)
    monkeypatch.setattr(isolation_module, "_trial", lambda nested: refused if nested else real(nested))
    isolation_module.support.cache_clear()
    try:
        assert isolation_module.support().isolated and not isolation_module.support().nested
        script = PROBE.format(families=FAMILIES, calls=CALLS)
        found = noted_by_a_move(folder_of(tmp_path, "prober", {"my_player3.py": script}), False, "exec", "probe.json")
    finally:
        isolation_module.support.cache_clear()
    assert found["uid"] != 0 and found["vsock"] == "EAFNOSUPPORT"
    assert {name: found[name] for name in CALLS} == dict.fromkeys(CALLS, "EPERM")


@pytest.mark.fast
@isolated
@as_root
def test_the_quota_roots_belong_to_root_alone():
    root = quota_root()
    if root is None:
        pytest.skip("no workspace with a quota here")
    assert os.stat(root).st_mode & 0o777 == 0o700 and os.stat(root).st_uid == 0


@as_root
def test_the_attackers_see_what_is_open_to_them():
    """The attacks would see an open folder: an empty result above is the sandbox's, not the helper's."""
    open_folder = tempfile.mkdtemp(dir="/tmp")  # pytest's own folders are root's alone
    try:
        with open(os.path.join(open_folder, "my_player3.py"), "w") as agent:
            agent.write(PASSER)
        os.chmod(open_folder, 0o777)
        os.chmod(os.path.join(open_folder, "my_player3.py"), 0o666)
        reached = as_user(LOCAL_USER, lambda: what_reaches(open_folder))
        assert reached == ["list", "read my_player3.py", "write my_player3.py", "create"]
        assert as_user(LOCAL_USER, os.getuid) == LOCAL_USER
    finally:
        shutil.rmtree(open_folder)


@pytest.mark.fast
@as_root
def test_a_folder_for_leases_that_a_local_user_made_first_is_never_trusted():
    base = tempfile.mkdtemp(dir="/tmp")  # /tmp: open to every user, sticky, as /var/tmp is
    try:
        os.chmod(base, 0o1777)
        as_user(LOCAL_USER, lambda: os.mkdir(os.path.join(base, "littlego")))
        with pytest.raises(OSError, match="not a folder of root's alone"):
            users.private_folder(os.path.join(base, "littlego", "users"))
        users.private_folder(os.path.join(base, "own", "users"))  # one root made: trusted, and made 0700
        assert os.stat(os.path.join(base, "own", "users")).st_mode & 0o777 == 0o700
    finally:
        shutil.rmtree(base)


@pytest.mark.fast
@as_root
def test_no_sandbox_user_is_an_id_that_a_users_namespaces_may_map(tmp_path, monkeypatch):
    """/etc/subuid gives some user every id of the range but the last: that one alone can be leased."""
    subordinate = tmp_path / "subuid"
    subordinate.write_text(f"student:{users.FIRST_UID}:{users.USERS - 1}\n")
    monkeypatch.setattr(users, "SUBORDINATE_RANGES", (str(subordinate),))
    with users.lease() as held:
        assert held.user == users.SandboxUser(users.FIRST_UID + users.USERS - 1, users.FIRST_UID + users.USERS - 1)
        with pytest.raises(SandboxError, match="are in use"):
            users.lease()


@pytest.mark.fast
@as_root
def test_a_forked_child_holds_none_of_its_parents_sandbox_users():
    held = users.lease()
    ready, told = os.pipe()
    child = os.fork()
    if child == 0:
        os.write(told, b"ready")
        time.sleep(5)
        os._exit(0)
    try:
        assert os.read(ready, 5) == b"ready"
        held.release()
        with open(os.path.join(users._lease_root(), str(held.user.uid)), "a") as lease_file:
            fcntl.flock(lease_file, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free, though the child lives on
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        os.close(ready)
        os.close(told)
