"""Where an untrusted program runs: a bubblewrap sandbox around its own folder copy.

With ``bwrap`` (Debian's ``bubblewrap``) working, the program sees a root made of the system's
read-only folders (``/usr``, ``/etc``, the Python it runs on, the ``engine`` package), its own
folder copy as the only writable place (a small private ``/tmp`` and ``/dev/shm`` besides; no
other player's copy, no home folder, no ``~/.cache``), no network, its own process tree (every
descendant ends when it ends), the stated ``environment`` and nothing of the host's, and, when
littlego runs as root, the unprivileged user ``nobody``. The process limit is set inside, in a
user namespace of the program's own, where from Linux 5.14 the kernel counts RLIMIT_NPROC
against the namespace's own tasks (``prlimit``). Where no isolation can be had, ``auto`` runs
with the limits only, after a one-line warning, and ``strict`` refuses (SandboxError).

What this machine offers is tried once a process (``support``, cached: ``support.cache_clear()``
tries again).
"""

import functools
import os
import platform
import pwd
import shlex
import shutil
import subprocess
import sys
from typing import NamedTuple

import engine
from engine.sandbox import accounting
from engine.sandbox.limits import DEFAULT_LIMITS, MIB, SandboxError

ISOLATION_TOOL = "bwrap"
# util-linux, all three: under root the sandboxed command becomes nobody (setpriv) in a user namespace of
# its own (unshare); the process limit is set inside that namespace (prlimit), where the kernel counts it.
SWITCH_USER, OWN_USER_NAMESPACE, PROCESS_LIMIT = "setpriv", "unshare", "prlimit"
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
UNPRIVILEGED_USER = "nobody"
# Linux 5.14 (ucounts) counts RLIMIT_NPROC per user namespace: a task's own namespace against its limit.
COUNTED_PER_NAMESPACE_SINCE = (5, 14)
# The whole environment of an untrusted program, isolated or not: nothing of the host's (no tokens, no
# keys, no PYTHONPATH). PATH also holds the folder of the Python running littlego; HOME is its own copy.
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
LANGUAGE = "C.UTF-8"
PRIVATE_TMP_MODE = "01777"  # of the private /tmp and /dev/shm


def environment(folder):
    """The stated environment of a program run in ``folder``: PATH, HOME (the folder), LANG, TMPDIR."""
    python_folder = os.path.dirname(sys.executable)
    path = SYSTEM_PATH if python_folder in SYSTEM_PATH.split(":") else python_folder + ":" + SYSTEM_PATH
    return {"PATH": path, "HOME": folder, "LANG": LANGUAGE, "TMPDIR": "/tmp"}


class Support(NamedTuple):
    """What this machine offers a program player's moves (``support()``)."""

    isolated: bool  # bwrap isolates a move here
    why: str = ""  # why not, when it does not
    own_count: bool = False  # the process limit counts the move's own tasks, not all of its user's
    nested: bool = False  # under root: the move enters a user namespace of its own (unshare), as nobody


def unprivileged_ids():
    """(uid, gid) of the user a sandboxed move runs as: ``nobody`` when littlego runs as root, else None."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(UNPRIVILEGED_USER)
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def _kernel_version(release=None):
    """(major, minor) of the running Linux (or of ``release``); (0, 0) where it cannot be read."""
    numbers = (release or platform.release()).split("-")[0].split(".")
    try:
        return int(numbers[0]), int(numbers[1])
    except (IndexError, ValueError):
        return 0, 0


def _trial(nested):
    """(ran, why not, the user namespace it ran in) of a sandboxed move that only names its namespace."""
    inside = _inside(["readlink", "/proc/self/ns/user"], DEFAULT_LIMITS.processes, nested)
    try:
        done = subprocess.run(
            bwrap_argv("/", inside, writable=None),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, f"{ISOLATION_TOOL} fails here: {error}", None
    if done.returncode != 0:
        return False, "{} fails here: {}".format(ISOLATION_TOOL, done.stderr.decode("utf-8", "replace").strip()), None
    return True, "", done.stdout.decode("utf-8", "replace").strip()


@functools.lru_cache(maxsize=None)
def support():
    """What this machine offers program players' moves (a Support), tried once a process."""
    root = unprivileged_ids() is not None
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
    if root and not ran:  # no user namespace for nobody: isolated still, the count shared by nobody's tasks
        ran, why, namespace = _trial(nested=False)
    own_count = (
        ran and namespace != os.readlink("/proc/self/ns/user") and _kernel_version() >= COUNTED_PER_NAMESPACE_SINCE
    )
    return Support(ran, why, own_count, nested)


def isolation():
    """(True, "") where bwrap can isolate a move here, else (False, why not)."""
    found = support()
    return found.isolated, found.why


UNCOUNTED_CPU = (
    "no cgroup littlego may make counts the CPU of all of a move's processes here: the host sees each "
    "process's own CPU only, and misses CPU spent in children that another of the move's processes reaped"
)


def refuse_strict(limits):
    """SandboxError where ``limits`` ask for ``strict`` and this machine cannot honour it (``strict_refusal``)."""
    refusal = strict_refusal() if limits.mode == "strict" else None
    if refusal:
        raise SandboxError(f"--sandbox strict: {refusal}")


def strict_refusal():
    """Why ``--sandbox strict`` cannot be honoured here, or None: no isolation, or no cgroup that counts
    the CPU of all of a move's processes (isolate requires cgroups for the same reason)."""
    isolated, why = isolation()
    if not isolated:
        return f"program players cannot be isolated here: {why}"
    if accounting.CPU not in accounting.hierarchies():
        return f"{UNCOUNTED_CPU} (isolate requires cgroups too; --sandbox auto runs with a warning)"
    return None


@functools.lru_cache(maxsize=None)
def _interpreter(launcher):
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


def resolve_program(argv):
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


def resolve_launcher(shell_command):
    """``shell_command`` with its first word made absolute as ``resolve_program`` does."""
    program, _, rest = shell_command.partition(" ")
    resolved = resolve_program([program])[0]
    return f"{shlex.quote(resolved)} {rest}" if resolved != program else shell_command


def program_folder(program):
    """The installation ``program`` (a path, or a name on PATH) lives in (the folder above its ``bin``,
    else its own folder); None for ``./exe`` and the like."""
    if program.startswith("./") or (os.sep not in program and shutil.which(program) is None):
        return None
    where = os.path.dirname(os.path.realpath(shutil.which(program) or program))
    return os.path.dirname(where) if os.path.basename(where) == "bin" else where


def _visible_folders(extra=()):
    """The read-only folders of a sandbox: the system's, the Python running littlego, the engine
    package, and ``extra`` (the installation of the player's own program)."""
    folders = [f for f in SYSTEM_FOLDERS if os.path.isdir(f) and not os.path.islink(f)]
    package = os.path.dirname(os.path.abspath(engine.__file__))
    for folder in (sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable)), package) + tuple(
        extra
    ):
        if os.path.isdir(folder) and not any(folder == f or folder.startswith(f + os.sep) for f in folders):
            folders.append(folder)
    return folders


def made_in(place, extra=()):
    """The names of the entries that bwrap makes in the sandbox's ``place`` (/tmp) for the read-only
    folders it shows there (littlego's own checkout or a Python under /tmp, say): where ``place`` is a
    host's folder (a workspace's scratch), they are the sandbox's own and stay when it is emptied."""
    prefix = place.rstrip(os.sep) + os.sep
    return sorted({f[len(prefix) :].split(os.sep)[0] for f in _visible_folders(extra) if f.startswith(prefix)})


def _ancestors(folders):
    """The folders above ``folders`` that none of them holds: bwrap makes them, open to every user."""
    made = []
    for folder in folders:
        parent = os.path.dirname(folder)
        while parent not in ("/", "") and not any(parent == f or parent.startswith(f + os.sep) for f in folders):
            made.append(parent)
            parent = os.path.dirname(parent)
    return sorted(set(made), key=lambda f: f.count(os.sep))


def _as_unprivileged():
    """The start of what runs inside bwrap under root: becoming ``nobody``, no capability kept; [] otherwise."""
    ids = unprivileged_ids()
    if not ids:
        return []
    return [
        shutil.which(SWITCH_USER) or SWITCH_USER,
        f"--reuid={ids[0]}",
        f"--regid={ids[1]}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
    ]


def _inside(command, allowance, nested):
    """What runs inside bwrap: under root, ``nobody`` (in a user namespace of its own where
    ``nested``), then RLIMIT_NPROC at ``allowance``, then ``command`` (a list)."""
    chain = _as_unprivileged()
    if chain and nested:
        chain += [shutil.which(OWN_USER_NAMESPACE) or OWN_USER_NAMESPACE, "--user", "--"]
    return (
        chain + [shutil.which(PROCESS_LIMIT) or PROCESS_LIMIT, f"--nproc={allowance}:{allowance}", "--"] + list(command)
    )


def _private(place, size_mb, scratch):
    """The bwrap arguments of the private ``place`` (/tmp, /dev/shm): the scratch folder bound there, else
    a tmpfs of ``size_mb``."""
    if scratch:
        return ["--bind", scratch[place], place]
    return ["--perms", PRIVATE_TMP_MODE, "--size", str(size_mb * MIB), "--tmpfs", place]


def bwrap_argv(chdir, command, writable, tmp_mb=DEFAULT_LIMITS.file_mb, extra=(), scratch=None):
    """The argv running ``command`` (a list) in a sandbox whose only writable folder is ``writable``,
    beside /tmp and /dev/shm: tmpfs of ``tmp_mb`` each, or the host's folders ``scratch`` names
    ({"/tmp": folder, "/dev/shm": folder}: a workspace's, within its quota).

    Under root, bwrap runs privileged, with no user namespace, and the command (``_inside``) turns
    itself into ``nobody`` (the kernel never holds root's processes to a limit); otherwise bwrap
    runs unprivileged in a user namespace of its own.
    """
    argv = [shutil.which(ISOLATION_TOOL) or ISOLATION_TOOL]
    # A private /tmp first (small: files beyond the copy are no place to fill), then the folders on it.
    # Open to every user with the sticky bit, as a system's /tmp is: the move's user (nobody) writes there.
    argv += _private("/tmp", tmp_mb, scratch)
    for folder in SYSTEM_FOLDERS:
        if os.path.islink(folder):
            argv += ["--symlink", os.readlink(folder), folder]
    visible = _visible_folders(extra)
    for folder in _ancestors(visible + ([writable] if writable else [])):
        argv += ["--perms", "0755", "--dir", folder]
    for folder in visible:
        argv += ["--ro-bind", folder, folder]
    if writable:
        argv += ["--bind", writable, writable]
    # --as-pid-1: the command is the namespace's first process, so that its CPU (children included) reaches
    # the host's wait4, and everything it leaves ends when it does.
    # /dev/shm as small as /tmp: shared memory no bigger than a file may be.
    argv += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        *_private("/dev/shm", tmp_mb, scratch),
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",
        "--chdir",
        chdir,
        "--clearenv",
    ]
    for name, value in sorted(environment(chdir).items()):
        argv += ["--setenv", name, value]
    if unprivileged_ids():
        argv += [
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--cap-add",
            "CAP_SETUID",
            "--cap-add",
            "CAP_SETGID",
            "--",
        ]
    else:
        argv += ["--unshare-all", "--"]
    return argv + list(command)


def _tasks_of(uid):
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


def process_allowance(limits):
    """The RLIMIT_NPROC of a sandboxed move: ``limits.processes`` where the kernel counts the move's own
    tasks; else (before Linux 5.14, or no user namespace for nobody) that many beyond those its user runs now."""
    if support().own_count:
        return limits.processes
    ids = unprivileged_ids()
    return limits.processes + _tasks_of(ids[0] if ids else os.getuid())


def prepare_folder(folder, limits):
    """Give a player's folder copy to the user its moves run as (``nobody`` under root, when isolated)."""
    ids = unprivileged_ids()
    if limits.mode == "off" or ids is None or not support().isolated:
        return
    for root, dirs, files in os.walk(folder):
        for name in [root] + [os.path.join(root, n) for n in dirs + files]:
            os.lchown(name, *ids)


def wrap(command, folder, limits):
    """The argv of ``command`` (an argv list, or a shell command line) run in ``folder`` under ``limits``:
    in the sandbox where it can be had; SandboxError where ``strict`` asks for isolation that cannot be."""
    found = support() if limits.mode != "off" else Support(False)
    refuse_strict(limits)
    if not found.isolated:
        return ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
    argv, installation = resolve_command(command)
    inside = _inside(argv, process_allowance(limits), found.nested)
    return bwrap_argv(folder, inside, folder, limits.file_mb, [installation] if installation else [])


def resolve_command(command):
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


def serves_moves(limits):
    """Whether a game's moves may be forked from one sandbox's move server (``gamebox``): where they are
    isolated and the process limit counts a move's own tasks (the server checks the rest when it starts)."""
    found = support() if limits.mode != "off" and limits.served else Support(False)
    return found.isolated and found.own_count


def server_sandbox(server, folder, limits, installation=None, scratch=None):
    """The argv of a player's sandbox whose first process is ``server`` (an argv list), as the user moves
    run as; the moves it forks take their own namespaces and limits (``forkserver``). ``scratch``: as
    ``bwrap_argv`` takes it."""
    refuse_strict(limits)
    inside = _as_unprivileged() + list(server)
    return bwrap_argv(folder, inside, folder, limits.file_mb, [installation] if installation else [], scratch)


def describe_unisolated(limits):
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


def warning(limits):
    """The one line to print before program players run without isolation (None when they are isolated)."""
    if limits.mode == "off":
        return f"program players run without a sandbox (--sandbox off): limits only ({describe_unisolated(limits)})"
    isolated, why = isolation()
    if isolated:
        return None if accounting.CPU in accounting.hierarchies() else f"program players' CPU: {UNCOUNTED_CPU}"
    return (
        f"program players are not isolated ({why}): they can read and write the other players' folders and your "
        f"files; only their resources are limited ({describe_unisolated(limits)})"
    )
