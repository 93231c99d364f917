"""What all of an untrusted run's processes use, counted by the kernel's cgroups where littlego may make them.

Each run (a move, a build) gets a cgroup of its own in each hierarchy that counts something for
it: its CPU (every process's, reaped or not), its memory (all its processes together, shared
memory, memfd and the files of its private ``/tmp`` included: the kernel kills it past the
limit), and its tasks. A cgroup v2 hierarchy is used where littlego's own cgroup lets it make
children with the controller (as root, or delegated to the user, as systemd does for a user's
scope: ``systemd-run --user --scope -p Delegate=yes``); else the cgroup v1 hierarchy of the
controller (as root); else nothing is counted that way and the rlimits bound each process alone
(``process.py`` then samples the run's processes for CPU). ``hierarchies()`` says what this
machine gives, found once a process.
"""

import functools
import os
import signal
import time
from typing import Dict, List, NamedTuple, Optional, Set, Tuple

from engine.sandbox.limits import MIB, Limits

CPU, MEMORY, TASKS = "cpu", "memory", "tasks"
# The file a child cgroup must have for the hierarchy to count the resource, by version.
COUNTING_FILE = {
    2: {CPU: "cpu.stat", MEMORY: "memory.max", TASKS: "pids.max"},
    1: {CPU: "cpuacct.usage", MEMORY: "memory.limit_in_bytes", TASKS: "pids.max"},
}
V1_CONTROLLER = {CPU: "cpuacct", MEMORY: "memory", TASKS: "pids"}
V2_CONTROLLER = {MEMORY: "memory", TASKS: "pids"}  # cpu.stat's usage needs no controller
# Tasks of a run that are the sandbox's own (bwrap's monitor and the namespace's first process).
SANDBOX_TASKS = 2
CGROUP_PREFIX = "littlego-"


class Hierarchy(NamedTuple):
    """Where a resource is counted: the cgroup under which runs get theirs, and its version (1 or 2)."""

    parent: str
    version: int


def _mounts() -> List[Tuple[str, str, str]]:
    """[(mount point, filesystem type, super options)] of the cgroup file systems."""
    found: List[Tuple[str, str, str]] = []
    try:
        with open("/proc/self/mountinfo") as mountinfo:
            for line in mountinfo:
                fields, _, after = line.partition(" - ")
                kind, _, options = after.split(" ", 2) if after.count(" ") >= 2 else (after, "", "")
                if kind in ("cgroup", "cgroup2"):
                    found.append((fields.split(" ")[4], kind, options.strip()))
    except OSError:
        pass
    return found


def _own_paths() -> Dict[str, str]:
    """{controller or "": this process's cgroup path}: "" for cgroup v2, a v1 controller's name otherwise."""
    paths: Dict[str, str] = {}
    try:
        with open("/proc/self/cgroup") as cgroups:
            for line in cgroups:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                for controller in controllers.split(",") if controllers else [""]:
                    paths[controller] = path
    except (OSError, ValueError):
        pass
    return paths


def _candidates(resource: str) -> List[Hierarchy]:
    """[Hierarchy] that might count ``resource`` here, v2 first."""
    paths = _own_paths()
    found: List[Hierarchy] = []
    for point, kind, options in _mounts():
        if kind == "cgroup2" and "" in paths:
            found.append(Hierarchy(os.path.join(point, paths[""].lstrip("/")), 2))
        elif kind == "cgroup" and V1_CONTROLLER[resource] in options.split(",") and V1_CONTROLLER[resource] in paths:
            found.append(Hierarchy(os.path.join(point, paths[V1_CONTROLLER[resource]].lstrip("/")), 1))
    return sorted(found, key=lambda h: -h.version)


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _counts(hierarchy: Hierarchy, resource: str) -> bool:
    """Whether a run's cgroup under ``hierarchy`` can be made, joined and made to count ``resource``."""
    probe = os.path.join(hierarchy.parent, f"{CGROUP_PREFIX}probe-{os.getpid()}")
    try:
        os.mkdir(probe)
    except OSError:
        return False
    try:
        wanted = os.path.join(probe, COUNTING_FILE[hierarchy.version][resource])
        if not os.path.exists(wanted) and hierarchy.version == 2 and resource in V2_CONTROLLER:
            try:  # the controller may be had for children, where the parent holds no process
                _write(os.path.join(hierarchy.parent, "cgroup.subtree_control"), "+" + V2_CONTROLLER[resource])
            except OSError:
                return False
            os.rmdir(probe)
            os.mkdir(probe)
        return os.path.exists(wanted) and os.access(os.path.join(probe, "cgroup.procs"), os.W_OK)
    finally:
        try:
            os.rmdir(probe)
        except OSError:
            pass


def _sweep(parent: str) -> None:
    """Remove the empty cgroups that a littlego process which has ended (killed mid-move) left under ``parent``."""
    try:
        names = [
            n
            for n in os.listdir(parent)
            if n.startswith(CGROUP_PREFIX) and n[len(CGROUP_PREFIX) :].split("-")[0].isdigit()
        ]
    except OSError:
        return
    for name in names:
        owner = int(name[len(CGROUP_PREFIX) :].split("-")[0])
        if not os.path.exists(f"/proc/{owner}"):
            try:
                os.rmdir(os.path.join(parent, name))
            except OSError:
                pass  # still holding a process: left for its own owner or a later sweep


def sweep_cgroups() -> None:
    """Remove the empty cgroups that littlego processes which have ended left (a pool's ended workers)."""
    for hierarchy in set(hierarchies().values()):
        _sweep(hierarchy.parent)


@functools.lru_cache(maxsize=None)
def hierarchies() -> Dict[str, Hierarchy]:
    """{resource: Hierarchy} for each resource (CPU, MEMORY, TASKS) that this machine lets littlego count."""
    found: Dict[str, Hierarchy] = {}
    for resource in (CPU, MEMORY, TASKS):
        for hierarchy in _candidates(resource):
            if _counts(hierarchy, resource):
                found[resource] = hierarchy
                _sweep(hierarchy.parent)
                break
    return found


def describe_accounting() -> str:
    """In words, what cgroups count here for a run's processes together, and what they do not."""
    counted = hierarchies()
    if not counted:
        return "no cgroups here: each process alone is held to the rlimits"
    words = {CPU: "CPU", MEMORY: "memory", TASKS: "tasks"}
    return "cgroups count a move's {} over all its processes{}".format(
        ", ".join(f"{words[r]} (v{counted[r].version})" for r in (CPU, MEMORY, TASKS) if r in counted),
        "" if len(counted) == 3 else "; not " + ", ".join(words[r] for r in (CPU, MEMORY, TASKS) if r not in counted),
    )


class Accounting:
    """The cgroups of one run: made with its limits before it starts, joined by its first process
    (``join``, in the child before exec), read while it runs and after, emptied and removed (``close``)."""

    _made = 0

    def __init__(self, limits: Limits):
        Accounting._made += 1
        name = f"{CGROUP_PREFIX}{os.getpid()}-{Accounting._made}"
        self.folders: Dict[str, str] = {}  # resource -> the run's cgroup folder
        self._versions: Dict[str, int] = {}
        for resource, hierarchy in hierarchies().items():
            folder = os.path.join(hierarchy.parent, name)
            try:
                if folder not in self.folders.values():
                    os.mkdir(folder)
                self._limit(resource, hierarchy.version, folder, limits)
            except OSError:
                continue  # this hierarchy fails now: the rlimits still hold
            self.folders[resource] = folder
            self._versions[resource] = hierarchy.version
        self._cpu_at_start = 0.0
        self._cpu_at_start = self.cpu_seconds() or 0.0

    @staticmethod
    def _limit(resource: str, version: int, folder: str, limits: Limits) -> None:
        if resource == MEMORY:
            size = str(limits.memory_mb * MIB)
            if version == 2:
                _write(os.path.join(folder, "memory.max"), size)
                if os.path.exists(os.path.join(folder, "memory.swap.max")):
                    _write(os.path.join(folder, "memory.swap.max"), "0")
            else:
                _write(os.path.join(folder, "memory.limit_in_bytes"), size)
                if os.path.exists(os.path.join(folder, "memory.memsw.limit_in_bytes")):
                    _write(os.path.join(folder, "memory.memsw.limit_in_bytes"), size)
        elif resource == TASKS:
            _write(os.path.join(folder, "pids.max"), str(limits.processes + SANDBOX_TASKS))

    def counts(self, resource: str) -> bool:
        return resource in self.folders

    def join(self) -> None:
        """Put the calling process (the run's first, before it execs) into every cgroup of the run."""
        for folder in sorted(set(self.folders.values())):
            _write(os.path.join(folder, "cgroup.procs"), str(os.getpid()))

    def cpu_seconds(self) -> Optional[float]:
        """CPU (user + system) of every process the run ever had, or None where no cgroup counts it."""
        folder = self.folders.get(CPU)
        if folder is None:
            return None
        try:
            if self._versions[CPU] == 2:
                with open(os.path.join(folder, "cpu.stat")) as stat:
                    fields = dict(line.split() for line in stat if line.strip())
                used = int(fields["usage_usec"]) / 1e6
            else:
                with open(os.path.join(folder, "cpuacct.usage")) as usage:
                    used = int(usage.read()) / 1e9
        except (OSError, KeyError, ValueError):
            return None
        return used - self._cpu_at_start

    def out_of_memory(self) -> bool:
        """Whether the kernel killed one of the run's processes at its memory limit."""
        folder = self.folders.get(MEMORY)
        if folder is None:
            return False
        name = "memory.events" if self._versions[MEMORY] == 2 else "memory.oom_control"
        try:
            with open(os.path.join(folder, name)) as events:
                fields = dict(line.split() for line in events if line.strip())
        except (OSError, ValueError):
            return False
        return int(fields.get("oom_kill", 0)) > 0

    def _members(self) -> Set[int]:
        members: Set[int] = set()
        for folder in set(self.folders.values()):
            try:
                with open(os.path.join(folder, "cgroup.procs")) as procs:
                    members.update(int(pid) for pid in procs.read().split())
            except (OSError, ValueError):
                pass
        return members

    def kill(self) -> None:
        """End every process left in the run's cgroups."""
        for folder in set(self.folders.values()):
            if os.path.exists(os.path.join(folder, "cgroup.kill")):
                try:
                    _write(os.path.join(folder, "cgroup.kill"), "1")
                except OSError:
                    pass
        pause = 0.0002  # the kernel reaps a killed cgroup in well under a millisecond: look again soon, then less often
        for _ in range(200):  # a process forking meanwhile is caught on a later round
            members = self._members()
            if not members:
                return
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(pause)
            pause = min(2 * pause, 0.005)

    def close(self) -> None:
        """Kill what is left and remove the run's cgroups."""
        self.kill()
        for folder in set(self.folders.values()):
            for _ in range(100):  # killed processes leave the cgroup once the kernel has reaped them
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
        self.folders = {}
