"""Whether and how an untrusted program is isolated here: the bubblewrap sandbox where it works.

What this machine offers is tried once a process (``support``, cached: ``support.cache_clear()``
tries again): ``bwrap`` (Debian's ``bubblewrap``) working, and whether the process limit counts a
run's own tasks (from Linux 5.14, in a user namespace of the run's own). ``wrap`` makes the argv of
a run: its program made absolute on the host (``resolve_command``), in the sandbox that
``engine.sandbox.bwrap`` builds where it can be had. Where no isolation can be had, ``auto`` runs
with the limits only, after a one-line ``warning``, and ``strict`` refuses (SandboxError).
"""

import functools
import os
import platform
import shlex
import shutil
import subprocess
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from engine.sandbox import accounting
from engine.sandbox.bwrap import (
    ISOLATION_TOOL,
    PROCESS_LIMIT,
    SWITCH_USER,
    as_unprivileged,
    bwrap_argv,
    close_descriptors,
    descriptors,
    filtered_inside,
    inner_command,
)
from engine.sandbox.limits import DEFAULT_LIMITS, Limits, SandboxError, SandboxMode
from engine.sandbox.users import SandboxUser, lease

# Linux 5.14 (ucounts) counts RLIMIT_NPROC per user namespace: a task's own namespace against its limit.
COUNTED_PER_NAMESPACE_SINCE = (5, 14)
# A command to run: an argv list, or a shell command line.
CommandLine = Union[str, Sequence[str]]


class Support(NamedTuple):
    """What this machine offers a program player's moves (``support()``)."""

    isolated: bool  # bwrap isolates a move here
    why: str = ""  # why not, when it does not
    # The process limit counts the move's own tasks, not all of its user's: under root, each sandbox a user of
    # its own; otherwise from Linux 5.14, in the user namespace bwrap gives the move.
    own_count: bool = False
    # Under root: a move in a sandbox of its own gets a user namespace of its own from a second bwrap, run by
    # the sandbox's user (where that user may have one); else the sandbox's own bwrap filters it.
    nested: bool = False


def _kernel_version(release: Optional[str] = None) -> Tuple[int, int]:
    """(major, minor) of the running Linux (or of ``release``); (0, 0) where it cannot be read."""
    numbers = (release or platform.release()).split("-")[0].split(".")
    try:
        return int(numbers[0]), int(numbers[1])
    except (IndexError, ValueError):
        return 0, 0


def _trial(nested: bool) -> Tuple[bool, str, Optional[str]]:
    """(ran, why not, the user namespace it ran in) of a sandboxed move that only names its namespace."""
    argv: List[str] = []
    try:
        with lease() as held:
            inside = inner_command(["readlink", "/proc/self/ns/user"], DEFAULT_LIMITS.processes, held.user, nested)
            inner = filtered_inside(held.user, nested)
            argv = bwrap_argv("/", inside, writable=None, user=held.user, filtered_inside=inner)
            done = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=30,
                pass_fds=descriptors(argv),
            )
    except (OSError, subprocess.TimeoutExpired, SandboxError) as error:
        return False, f"{ISOLATION_TOOL} fails here: {error}", None
    finally:
        close_descriptors(argv)
    if done.returncode != 0:
        return False, "{} fails here: {}".format(ISOLATION_TOOL, done.stderr.decode("utf-8", "replace").strip()), None
    return True, "", done.stdout.decode("utf-8", "replace").strip()


@functools.lru_cache(maxsize=None)
def support() -> Support:
    """What this machine offers program players' moves (a Support), tried once a process."""
    root = os.geteuid() == 0
    needed = (ISOLATION_TOOL, PROCESS_LIMIT) + ((SWITCH_USER,) if root else ())
    missing = [tool for tool in needed if shutil.which(tool) is None]
    if missing:
        return Support(
            False,
            "{} is not installed (apt-get install {})".format(
                missing[0], "bubblewrap" if missing[0] == ISOLATION_TOOL else "util-linux"
            ),
        )
    ran, why, namespace = _trial(nested=root)
    nested = root and ran
    if root and not ran:  # no user namespace for the sandbox's user: isolated still, its own bwrap filtering
        ran, why, namespace = _trial(nested=False)
    own_namespace = namespace != os.readlink("/proc/self/ns/user")
    own_count = ran and (root or (own_namespace and _kernel_version() >= COUNTED_PER_NAMESPACE_SINCE))
    return Support(ran, why, own_count, nested)


def isolation() -> Tuple[bool, str]:
    """(True, "") where bwrap can isolate a move here, else (False, why not)."""
    found = support()
    return found.isolated, found.why


UNCOUNTED_CPU = (
    "no cgroup littlego may make counts the CPU of all of a move's processes here: the host sees each "
    "process's own CPU only, and misses CPU spent in children that another of the move's processes reaped"
)


def refuse_strict(limits: Limits) -> None:
    """SandboxError where ``limits`` ask for ``strict`` and this machine cannot honour it (``strict_refusal``)."""
    refusal = strict_refusal() if limits.mode == SandboxMode.STRICT else None
    if refusal:
        raise SandboxError(f"--sandbox strict: {refusal}")


def strict_refusal() -> Optional[str]:
    """Why ``--sandbox strict`` cannot be honoured here, or None: no isolation, or no cgroup that counts
    the CPU of all of a move's processes (isolate requires cgroups for the same reason)."""
    isolated, why = isolation()
    if not isolated:
        return f"program players cannot be isolated here: {why}"
    if accounting.CPU not in accounting.hierarchies():
        return f"{UNCOUNTED_CPU} (isolate requires cgroups too; --sandbox auto runs with a warning)"
    return None


@functools.lru_cache(maxsize=None)
def _interpreter(launcher: str) -> Optional[str]:
    """The Python that ``launcher`` (``python``, ``python3``, maybe a pyenv shim) starts, or None."""
    try:
        found = subprocess.run(
            [launcher, "-c", "import sys; print(sys.executable)"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return found.stdout.strip() if found.returncode == 0 else None


def resolve_program(argv: Sequence[str]) -> List[str]:
    """``argv`` with its program made absolute: a Python launcher (``python``, ``python3``: maybe a pyenv
    shim, a script that would not run inside the sandbox) replaced by the interpreter it starts, and a bare
    name found on the host's PATH by its path (the program's own PATH is the stated one)."""
    program = argv[0]
    if program in ("python", "python3", "python2"):
        found = _interpreter(program)
    elif os.sep not in program:
        found = shutil.which(program)
    else:
        found = None
    return [found or program] + list(argv[1:])


def resolve_launcher(shell_command: str) -> str:
    """``shell_command`` with its first word made absolute as ``resolve_program`` does."""
    program, _, rest = shell_command.partition(" ")
    resolved = resolve_program([program])[0]
    return f"{shlex.quote(resolved)} {rest}" if resolved != program else shell_command


def program_folder(program: str) -> Optional[str]:
    """The installation ``program`` (a path, or a name on PATH) lives in (the folder above its ``bin``,
    else its own folder); None for ``./exe`` and the like."""
    if program.startswith("./") or (os.sep not in program and shutil.which(program) is None):
        return None
    where = os.path.dirname(os.path.realpath(shutil.which(program) or program))
    return os.path.dirname(where) if os.path.basename(where) == "bin" else where


def _tasks_of(uid: int) -> int:
    """How many tasks ``uid`` runs now, threads included, as the kernel counts them for RLIMIT_NPROC."""
    count = 0
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/status") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
            count += int(fields["Threads"]) if int(fields["Uid"].split()[0]) == uid else 0
        except (OSError, KeyError, ValueError):
            pass  # a process that ended meanwhile
    return count


def process_allowance(limits: Limits, user: Optional[SandboxUser]) -> int:
    """The RLIMIT_NPROC of a sandboxed move: ``limits.processes`` where the kernel counts the move's own
    tasks; else (not root, before Linux 5.14) that many beyond those its ``user`` (None: littlego's own)
    runs now."""
    if support().own_count:
        return limits.processes
    return limits.processes + _tasks_of(user.uid if user else os.getuid())


def prepare_folder(folder: str, limits: Limits, user: Optional[SandboxUser]) -> None:
    """Give a player's folder copy to the ``user`` its sandbox runs as (under root, when isolated): its
    own, read, written and entered by that user alone (and root)."""
    if limits.mode == SandboxMode.OFF or user is None or not support().isolated:
        return
    for root, dirs, files in os.walk(folder):
        for name in [root] + [os.path.join(root, n) for n in dirs + files]:
            os.lchown(name, user.uid, user.gid)
    os.chmod(folder, 0o700)


def wrap(
    command: CommandLine,
    folder: str,
    limits: Limits,
    user: Optional[SandboxUser],
    scratch: Optional[Dict[str, str]] = None,
) -> List[str]:
    """The argv of ``command`` (an argv list, or a shell command line) run in ``folder`` under ``limits``,
    as the sandbox's ``user`` (``users.lease``), its /tmp and /dev/shm the workspace's ``scratch`` (as
    ``bwrap_argv`` takes it): in the sandbox where it can be had; SandboxError where ``strict`` asks for
    isolation that cannot be."""
    found = support() if limits.mode != SandboxMode.OFF else Support(False)
    refuse_strict(limits)
    if not found.isolated:
        return ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
    argv, installation = resolve_command(command)
    inside = inner_command(argv, process_allowance(limits, user), user, found.nested)
    extra = [installation] if installation else []
    inner = filtered_inside(user, found.nested)
    return bwrap_argv(folder, inside, folder, limits.file_mb, extra, scratch, user=user, filtered_inside=inner)


def resolve_command(command: CommandLine) -> Tuple[List[str], Optional[str]]:
    """(the argv that runs ``command``, an argv list or a shell command line, with its program made absolute
    as ``resolve_program`` does; the installation folder that program needs in the sandbox, or None)."""
    if isinstance(command, str):
        command = resolve_launcher(command)
        try:
            program = shlex.split(command)[0]
        except (ValueError, IndexError):
            program = ""
        argv = ["/bin/sh", "-c", command]
    else:
        argv = resolve_program(command)
        program = argv[0]
    return argv, program_folder(program) if program else None


def serves_moves(limits: Limits) -> bool:
    """Whether a game's moves may be forked from one sandbox's move server (``gamebox``): where they are
    isolated and the process limit counts a move's own tasks (the server checks the rest when it starts)."""
    found = support() if limits.mode != SandboxMode.OFF and limits.served else Support(False)
    return found.isolated and found.own_count


def server_sandbox(
    server: Sequence[str],
    folder: str,
    limits: Limits,
    installation: Optional[str] = None,
    scratch: Optional[Dict[str, str]] = None,
    user: Optional[SandboxUser] = None,
) -> List[str]:
    """The argv of a player's sandbox whose first process is ``server`` (an argv list), as the sandbox's
    ``user`` (``users.lease``); the moves it forks take their own namespaces and limits (``move_server``).
    ``scratch``: as ``bwrap_argv`` takes it."""
    refuse_strict(limits)
    inside = as_unprivileged(user) + list(server)
    extra = [installation] if installation else []
    return bwrap_argv(folder, inside, folder, limits.file_mb, extra, scratch, serves_moves=True, user=user)


def describe_unisolated(limits: Limits) -> str:
    """In words, the limits that hold without the sandbox: what the cgroups here count over all of a run's
    processes, else what the rlimits bound in each process alone."""
    counted = accounting.hierarchies()
    together = " (all its processes)"
    return "memory {} MiB{}, {}, files up to {} MiB, folders up to {} MiB, CPU{}".format(
        limits.memory_mb,
        together if accounting.MEMORY in counted else " a process",
        f"processes {limits.processes}{together}" if accounting.TASKS in counted else "no limit on processes",
        limits.file_mb,
        limits.folder_mb,
        together if accounting.CPU in counted else "",
    )


def warning(limits: Limits) -> Optional[str]:
    """The one line to print before program players run without isolation (None when they are isolated)."""
    if limits.mode == SandboxMode.OFF:
        return f"program players run without a sandbox (--sandbox off): limits only ({describe_unisolated(limits)})"
    isolated, why = isolation()
    if isolated:
        return None if accounting.CPU in accounting.hierarchies() else f"program players' CPU: {UNCOUNTED_CPU}"
    return (
        f"program players are not isolated ({why}): they can read and write the other players' folders and your "
        f"files; only their resources are limited ({describe_unisolated(limits)})"
    )
