"""Where a program player's move runs: a bubblewrap sandbox around its own folder copy, with limits.

With ``bwrap`` (Debian's ``bubblewrap``) working, each move's process sees a root made of the
system's read-only folders (``/usr``, ``/etc``, the Python it runs on, the ``engine`` package),
its own folder copy as the only writable place (nothing else of ``/tmp``, no home folder, so no
other player's copy, no user's file, no ``~/.cache``), no network, its own process tree (every
descendant ends when the move ends) and, when littlego runs as root, the unprivileged user
``nobody``. Limits on memory, processes and file size apply in any case (``setrlimit``). Where
no isolation can be had, ``auto`` plays with the limits only, after a one-line warning, and
``strict`` refuses (SandboxError).
"""

import os
import pwd
import resource
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass

import engine

MODES = ("auto", "strict", "off")
ISOLATION_TOOL = "bwrap"
SWITCH_USER = "setpriv"            # util-linux: under root, the sandboxed command becomes nobody
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
_MIB = 2 ** 20
UNPRIVILEGED_USER = "nobody"


class SandboxError(ValueError):
    """A sandbox that cannot be had where ``strict`` asks for one; the message says why (a setting
    this machine cannot honour, reported as the user's mistake)."""


@dataclass(frozen=True)
class Limits:
    """How a program player's moves run: the isolation mode and the limits of each move's processes."""

    mode: str = "auto"             # auto: isolated where bwrap works, else limits only (warned); strict; off
    memory_mb: int = 1024          # data memory of each process (RLIMIT_DATA)
    processes: int = 128           # processes and threads of the sandbox's user (RLIMIT_NPROC)
    file_mb: int = 64              # the largest file it may write (RLIMIT_FSIZE)

    def describe(self):
        return "memory {} MiB a process, {} processes, files up to {} MiB".format(
            self.memory_mb, self.processes, self.file_mb)


DEFAULT_LIMITS = Limits()
_CHECKED = {}                      # one trial of bwrap per process: {"isolation": (works, why not)}


def _unprivileged_ids():
    """(uid, gid) of the user a sandboxed move runs as: ``nobody`` when littlego runs as root, else None."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(UNPRIVILEGED_USER)
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def isolation():
    """(True, "") where bwrap can isolate a move here, else (False, why not); tried once a process."""
    if "isolation" not in _CHECKED:
        missing = [tool for tool in (ISOLATION_TOOL, SWITCH_USER) if tool == ISOLATION_TOOL or _unprivileged_ids()]
        missing = [tool for tool in missing if shutil.which(tool) is None]
        if missing:
            _CHECKED["isolation"] = (False, "{} is not installed (apt-get install {})".format(
                missing[0], "bubblewrap" if missing[0] == ISOLATION_TOOL else "util-linux"))
        else:
            try:
                done = subprocess.run(bwrap_argv("/", ["true"], writable=None), stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30)
                why = done.stderr.decode("utf-8", "replace").strip()
                _CHECKED["isolation"] = (done.returncode == 0, "" if done.returncode == 0 else
                                         "{} fails here: {}".format(ISOLATION_TOOL, why))
            except (OSError, subprocess.TimeoutExpired) as error:
                _CHECKED["isolation"] = (False, "{} fails here: {}".format(ISOLATION_TOOL, error))
    return _CHECKED["isolation"]


_LAUNCHERS = {}                    # {launcher: the interpreter it starts}, asked once a process


def resolve_launcher(shell_command):
    """``shell_command`` with a Python launcher in front (``python``, ``python3``: maybe a pyenv shim,
    a script that would not run inside the sandbox) replaced by the interpreter it starts."""
    program, _, rest = shell_command.partition(" ")
    if program not in ("python", "python3", "python2"):
        return shell_command
    if program not in _LAUNCHERS:
        try:
            found = subprocess.run([program, "-c", "import sys; print(sys.executable)"], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True,
                                   timeout=60)
            _LAUNCHERS[program] = found.stdout.strip() if found.returncode == 0 else None
        except (OSError, subprocess.TimeoutExpired):
            _LAUNCHERS[program] = None
    executable = _LAUNCHERS[program]
    return "{} {}".format(shlex.quote(executable), rest) if executable else shell_command


def program_folder(shell_command):
    """The installation a command's program lives in (the folder above its ``bin``, else its own
    folder), where it is an absolute path or found on PATH; None for ``./exe`` and the like."""
    try:
        program = shlex.split(shell_command)[0]
    except (ValueError, IndexError):
        return None
    if program.startswith("./") or (os.sep not in program and shutil.which(program) is None):
        return None
    where = os.path.dirname(os.path.realpath(shutil.which(program) or program))
    return os.path.dirname(where) if os.path.basename(where) == "bin" else where


def _visible_folders(extra=()):
    """The read-only folders of a sandbox: the system's, the Python running littlego, the engine
    package, and ``extra`` (the installation of the player's own program)."""
    folders = [f for f in SYSTEM_FOLDERS if os.path.isdir(f) and not os.path.islink(f)]
    package = os.path.dirname(os.path.abspath(engine.__file__))
    for folder in (sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable)), package) + tuple(extra):
        if os.path.isdir(folder) and not any(folder == f or folder.startswith(f + os.sep) for f in folders):
            folders.append(folder)
    return folders


def _ancestors(folders):
    """The folders above ``folders`` that none of them holds: bwrap makes them, open to every user."""
    made = []
    for folder in folders:
        parent = os.path.dirname(folder)
        while parent not in ("/", "") and not any(parent == f or parent.startswith(f + os.sep) for f in folders):
            made.append(parent)
            parent = os.path.dirname(parent)
    return sorted(set(made), key=lambda f: f.count(os.sep))


def bwrap_argv(chdir, command, writable, tmp_mb=DEFAULT_LIMITS.file_mb, extra=()):
    """The argv running ``command`` (a list) in a sandbox whose only writable folder is ``writable``.

    Under root, bwrap runs privileged, with no user namespace, and ``setpriv`` turns the
    command into ``nobody`` (whose processes the kernel counts against RLIMIT_NPROC, which it
    never does for root); otherwise bwrap runs unprivileged in a user namespace of its own.
    """
    ids = _unprivileged_ids()
    argv = [shutil.which(ISOLATION_TOOL) or ISOLATION_TOOL]
    # A private /tmp first (small: files beyond the copy are no place to fill), then the folders on it.
    argv += ["--size", str(tmp_mb * _MIB), "--tmpfs", "/tmp"]
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
    argv += ["--proc", "/proc", "--dev", "/dev", "--die-with-parent", "--new-session", "--as-pid-1", "--chdir", chdir,
             "--setenv", "HOME", chdir]
    if ids:
        argv += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                 "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--",
                 SWITCH_USER, "--reuid={}".format(ids[0]), "--regid={}".format(ids[1]), "--clear-groups",
                 "--inh-caps=-all", "--bounding-set=-all"]
    else:
        argv += ["--unshare-all", "--"]
    return argv + list(command)


def _processes_of(uid):
    """How many processes ``uid`` runs now (threads not counted)."""
    count = 0
    for name in os.listdir("/proc"):
        try:
            count += name.isdigit() and os.stat("/proc/" + name).st_uid == uid
        except OSError:
            pass
    return count


def starter(limits, cpu_seconds):
    """The function that a move's process runs before the program (a preexec_fn): its own session
    and the limits; isolated, the unprivileged user (under root), allowed ``limits.processes``
    processes beyond those that user runs already (the kernel counts them per user)."""
    isolated = limits.mode != "off" and isolation()[0]
    ids = _unprivileged_ids()
    allowance = limits.processes + _processes_of(ids[0] if ids else os.getuid()) if isolated else None

    def start():
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_DATA, (limits.memory_mb * _MIB,) * 2)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mb * _MIB,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if allowance is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (allowance, allowance))
    return start


def prepare_folder(folder, limits):
    """Give a player's folder copy to the user its moves run as (``nobody`` under root, when isolated)."""
    ids = _unprivileged_ids()
    if limits.mode == "off" or ids is None or not isolation()[0]:
        return
    for root, dirs, files in os.walk(folder):
        for name in [root] + [os.path.join(root, n) for n in dirs + files]:
            os.lchown(name, *ids)


def wrap(shell_command, folder, limits):
    """The argv of one move of ``shell_command`` in ``folder`` under ``limits``; SandboxError where
    ``strict`` asks for isolation that cannot be had."""
    isolated, why = isolation() if limits.mode != "off" else (False, "")
    if not isolated:
        if limits.mode == "strict":
            raise SandboxError("--sandbox strict: no isolation for program players here: {}".format(why))
        return ["/bin/sh", "-c", shell_command]
    shell_command = resolve_launcher(shell_command)
    program = program_folder(shell_command)
    return bwrap_argv(folder, ["/bin/sh", "-c", shell_command], folder, limits.file_mb, [program] if program else [])


def warning(limits):
    """The one line to print before program players run without isolation (None when they are isolated)."""
    if limits.mode == "off":
        return "program players run without a sandbox (--sandbox off): limits only ({})".format(limits.describe())
    isolated, why = isolation()
    if isolated:
        return None
    return ("program players are not isolated ({}): they can read and write the other players' folders and your "
            "files; only their resources are limited ({})".format(why, limits.describe()))
