"""One untrusted run (a move, a build): started under the limits, watched, ended with everything it started.

``run`` starts the argv that ``isolation.wrap`` made, in a session of its own, with the stated
environment and the rlimits, inside the run's cgroups (``accounting``), and waits for it. CPU is
counted over every process the run had: by the cgroup where there is one; elsewhere by sampling
the run's processes while it runs (so a child that is never reaped is charged up to the last
sample) besides the first process's own account of those it reaped. A run over its CPU (the
limit and a second) or past its wall-clock limit is killed, as is everything it left running.
"""

import ctypes
import os
import platform
import resource
import signal
import subprocess
import time
from typing import IO, Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from engine.sandbox.accounting import CPU, MEMORY, Accounting
from engine.sandbox.bwrap import close_descriptors, descriptors, environment
from engine.sandbox.limits import MIB, Limits
from engine.sandbox.move_server import KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_SYSCALL

# Without a memory cgroup, memory-backed files (memfd, /dev/shm) are bounded by their size times the
# files a process may hold open: this many, each at most the memory limit over this many.
FILES_WITHOUT_CGROUP = 64
# Where a run's output goes: as subprocess takes it (a descriptor, DEVNULL or PIPE, a file, or None).
Output = Union[None, int, IO[Any]]
SAMPLE_SECONDS = 0.05  # how often the run's processes are sampled where no cgroup counts CPU
_TICK = os.sysconf("SC_CLK_TCK")


def children_of(pid: int) -> List[int]:
    """The pids of ``pid``'s running child processes (Linux's /proc/PID/task/TID/children); [] where unknown."""
    found: List[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found.extend(int(child) for child in handle.read().split())
    except OSError:  # ended meanwhile, or no such files here
        pass
    return found


def _stat_cpu(pid: int, children: bool) -> float:
    """CPU seconds of a running process (/proc/PID/stat), with its finished children's where ``children``;
    0 where it has ended."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode("ascii", "replace")
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2 :].split()  # after "pid (command) "
    return sum(int(x) for x in fields[11 : 15 if children else 13]) / _TICK  # utime, stime (cutime, cstime)


def tree_cpu(top: int) -> float:
    """CPU seconds of the running process ``top`` and of everything under it, finished children included."""
    total, waiting = 0.0, [top]
    while waiting:
        pid = waiting.pop()
        total += _stat_cpu(pid, children=True)
        waiting.extend(children_of(pid))
    return total


_killed_trees = [0.0]  # CPU seconds of the trees this process killed (``count_killed_tree``)


def count_killed_tree(top: int) -> None:
    """Before this process kills its child ``top`` and everything under it (a game's sandbox): keep what they
    spent, which no wait will add to this process's children's CPU, but for ``top``'s own (its reaping adds
    that): ``killed_trees_cpu`` from then on."""
    _killed_trees[0] += max(tree_cpu(top) - _stat_cpu(top, children=False), 0.0)


def killed_trees_cpu() -> float:
    """CPU seconds of the process trees this process killed, as ``count_killed_tree`` kept them."""
    return _killed_trees[0]


class Finished(NamedTuple):
    """How a run ended: its first process's wait status, the CPU of all its processes, the wall time,
    and whether it was killed past its wall-clock limit, over its CPU, or at its memory limit."""

    status: int
    cpu: float
    wall: float
    timed_out: bool = False
    over_cpu: bool = False
    out_of_memory: bool = False


def file_limits(limits: Limits, accounting: Accounting) -> Tuple[int, Optional[int]]:
    """(the largest file, files open at once) of a run's processes: the limits' file size where a memory
    cgroup counts memory-backed files; else no more than FILES_WITHOUT_CGROUP files of memory/N each."""
    if accounting.counts(MEMORY):
        return limits.file_mb * MIB, None
    return min(limits.file_mb, max(1, limits.memory_mb // FILES_WITHOUT_CGROUP)) * MIB, FILES_WITHOUT_CGROUP


def own_session_keyring() -> None:
    """Give the calling process a new, empty session keyring of its own (where the machine is known), so
    that nothing a run adds to "its session keyring" reaches the host's."""
    number = KEYCTL_SYSCALL.get(platform.machine())
    if number is not None:
        ctypes.CDLL(None, use_errno=True).syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None)


def starter(limits: Limits, cpu_seconds: int, accounting: Accounting) -> Callable[[], None]:
    """The function the run's first process runs before the program (a preexec_fn): a session of its own,
    the run's cgroups, and the rlimits on CPU, data memory, file size and (without cgroups) open files."""
    file_size, open_files = file_limits(limits, accounting)

    def start() -> None:
        os.setsid()
        own_session_keyring()
        accounting.join()
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_DATA, (limits.memory_mb * MIB,) * 2)
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if open_files:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files,) * 2)

    return start


def _process_table() -> Dict[int, Tuple[int, int, float]]:
    """{pid: (parent pid, start time, CPU seconds)} of every process now (zombies included)."""
    table: Dict[int, Tuple[int, int, float]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        # After the command's name: state, ppid, ... utime (the 12th), stime, ..., starttime (the 20th).
        table[int(name)] = (int(fields[1]), int(fields[19]), (int(fields[11]) + int(fields[12])) / _TICK)
    return table


class CpuSamples:
    """CPU of a run's processes as sampled: each process's latest figure, summed over all it ever had."""

    def __init__(self, top: int):
        self.top = top
        self.seen: Dict[Tuple[int, int], float] = {}  # (pid, start time) -> its CPU seconds
        self.next_at = 0.0

    def take(self, now: float) -> None:
        if now < self.next_at:
            return
        self.next_at = now + SAMPLE_SECONDS
        table = _process_table()
        children: Dict[int, List[int]] = {}
        for pid, (parent, _, _) in table.items():
            children.setdefault(parent, []).append(pid)
        stack = [self.top]
        while stack:
            pid = stack.pop()
            if pid in table:
                self.seen[(pid, table[pid][1])] = table[pid][2]
            stack.extend(children.get(pid, ()))

    def total(self) -> float:
        return sum(self.seen.values())


def kill_group(group: int) -> None:
    """SIGKILL every process of the process group ``group`` (one that has ended already is no error)."""
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass


def run(
    argv: Sequence[str],
    folder: str,
    limits: Limits,
    cpu_limit: float,
    wall_limit: float,
    stdout: Output = subprocess.DEVNULL,
    stderr: Output = subprocess.DEVNULL,
) -> Finished:
    """Run ``argv`` (from ``isolation.wrap``) in ``folder`` under ``limits``; a Finished.

    The kernel stops a single runaway at ``cpu_limit`` and a second (RLIMIT_CPU); the run as a whole
    is killed once its processes together pass that, or after ``wall_limit`` seconds; the caller
    judges the exact figure.
    """
    hard_cpu = int(cpu_limit) + 1
    accounting: Optional[Accounting] = None
    try:
        accounting = Accounting(limits)
        process = subprocess.Popen(
            argv,
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            env=environment(folder),
            preexec_fn=starter(limits, hard_cpu, accounting),
            pass_fds=descriptors(argv),  # the sandbox's seccomp program, read by bwrap
        )
        samples = None if accounting.counts(CPU) else CpuSamples(process.pid)
        started = time.monotonic()
        pause, timed_out, over_cpu = 0.001, False, False
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            now = time.monotonic()
            if samples:
                samples.take(now)
            used = accounting.cpu_seconds() if samples is None else samples.total()  # samples: where no cgroup counts
            if now - started > wall_limit or (used or 0.0) > hard_cpu:
                timed_out, over_cpu = now - started > wall_limit, not now - started > wall_limit
                kill_group(process.pid)
                accounting.kill()
                _, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(pause)
            pause = min(2 * pause, 0.02)  # quick answers are seen at once, long runs cost little
        process.returncode = status
        wall = time.monotonic() - started
        kill_group(process.pid)  # what the run left running ends with it
        accounting.kill()
        reaped = usage.ru_utime + usage.ru_stime
        counted = accounting.cpu_seconds()
        # A cgroup that counted CPU and cannot be read at the end (no samples taken then): what was reaped.
        sampled = samples.total() if samples is not None else 0.0
        cpu = max(reaped, counted if counted is not None else sampled)
        return Finished(status, cpu, wall, timed_out, over_cpu, accounting.out_of_memory())
    finally:
        close_descriptors(argv)
        if accounting is not None:
            accounting.close()
