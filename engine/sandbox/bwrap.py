"""The bubblewrap command: what a sandboxed program sees, and what runs inside before it.

``bwrap_argv`` builds the sandbox. The program sees a root made of the system's read-only folders
(``/usr``, ``/etc``, the Python it runs on, the ``engine`` package, its own program's installation),
its own folder copy as the only writable place (a small private ``/tmp`` and ``/dev/shm`` besides;
no other player's copy, no home folder, no ``~/.cache``), no network, its own process tree (every
descendant ends when it ends), and the stated ``environment``, nothing of the host's (the same
environment a run gets without the sandbox).

``inner_command`` is what runs inside it: when littlego runs as root, the switch to the sandbox's
own unprivileged user (``as_unprivileged``; ``engine.sandbox.users`` gives each living sandbox a uid
of its own, so that RLIMIT_NPROC counts that sandbox's tasks alone), then the process limit
(``prlimit``). A sandbox that runs its command as a move (not a move server) gives it what a served
move has: under root, a second, unprivileged bwrap run by the sandbox's user, for a user namespace of
the move's own; and the moves' seccomp filter (``move_server``'s, compiled here: ``--seccomp``),
installed by the last bwrap before the command, from a descriptor that whoever starts the sandbox
passes to it (``descriptors``). Whether this machine can run any of it, and when to, is
``engine.sandbox.isolation``.
"""

import functools
import os
import shutil
import struct
import subprocess
import sys
from typing import Dict, Iterable, List, Optional, Sequence, Set

import engine
from engine.sandbox import move_server
from engine.sandbox.limits import DEFAULT_LIMITS, MIB
from engine.sandbox.users import SandboxUser

ISOLATION_TOOL = "bwrap"
# util-linux, both: under root the sandboxed command becomes its sandbox's user (setpriv); the process limit
# (prlimit) is set as that user, where the kernel counts its tasks (the sandbox's alone).
SWITCH_USER, PROCESS_LIMIT = "setpriv", "prlimit"
FILTER_OPTION = "--seccomp"  # bwrap's: the compiled seccomp program read from the descriptor that follows
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
# The whole environment of an untrusted program, isolated or not: nothing of the host's (no tokens, no
# keys, no PYTHONPATH). PATH also holds the folder of the Python running littlego; HOME is its own copy.
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
LANGUAGE = "C.UTF-8"
PRIVATE_TMP_MODE = "01777"  # of the private /tmp and /dev/shm


def environment(folder: str) -> Dict[str, str]:
    """The stated environment of a program run in ``folder``: PATH, HOME (the folder), LANG, TMPDIR."""
    python_folder = os.path.dirname(sys.executable)
    path = SYSTEM_PATH if python_folder in SYSTEM_PATH.split(":") else python_folder + ":" + SYSTEM_PATH
    return {"PATH": path, "HOME": folder, "LANG": LANGUAGE, "TMPDIR": "/tmp"}


def _visible_folders(extra: Iterable[str] = ()) -> List[str]:
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


def _ancestors(folders: List[str]) -> List[str]:
    """The folders above ``folders`` that none of them holds: bwrap makes them, open to every user."""
    made: List[str] = []
    for folder in folders:
        parent = os.path.dirname(folder)
        while parent not in ("/", "") and not any(parent == f or parent.startswith(f + os.sep) for f in folders):
            made.append(parent)
            parent = os.path.dirname(parent)
    return sorted(set(made), key=lambda f: f.count(os.sep))


def as_unprivileged(user: Optional[SandboxUser]) -> List[str]:
    """The start of what runs inside bwrap under root: becoming the sandbox's ``user``, no capability kept;
    [] where littlego is not root (``user`` None)."""
    if user is None:
        return []
    return [
        shutil.which(SWITCH_USER) or SWITCH_USER,
        f"--reuid={user.uid}",
        f"--regid={user.gid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
    ]


def inner_command(command: Sequence[str], allowance: int, user: Optional[SandboxUser], nested: bool) -> List[str]:
    """What runs inside bwrap: under root, the sandbox's ``user``, in a bwrap of its own (``_move_namespace``)
    where ``nested``, then RLIMIT_NPROC at ``allowance``, then ``command`` (a list)."""
    limit = [shutil.which(PROCESS_LIMIT) or PROCESS_LIMIT, f"--nproc={allowance}:{allowance}", "--"]
    return as_unprivileged(user) + (_move_namespace() if filtered_inside(user, nested) else []) + limit + list(command)


def filtered_inside(user: Optional[SandboxUser], nested: bool) -> bool:
    """Whether ``inner_command`` installs the moves' filter itself (under root, ``nested``), so that the
    sandbox around it must not (``bwrap_argv``'s ``filtered_inside``)."""
    return user is not None and nested


def _move_namespace() -> List[str]:
    """Under root, what gives a move in a sandbox of its own what a served move has: a user namespace of
    its own (its user keyrings and counts end with it), none of its own making, and the moves' seccomp
    filter; a second, unprivileged bwrap, run by the sandbox's user, that shows the sandbox as it is."""
    argv = [shutil.which(ISOLATION_TOOL) or ISOLATION_TOOL, "--unshare-user"]
    if can_disable_user_namespaces():
        argv.append("--disable-userns")
    argv += ["--dev-bind", "/", "/", "--die-with-parent"]  # dev-bind: /dev's devices stay usable
    return argv + _filter_option() + ["--"]


def _filter_option() -> List[str]:
    """bwrap's arguments that install the moves' seccomp filter; [] on a machine the filter does not know."""
    descriptor = _filter_descriptor()
    return [] if descriptor is None else [FILTER_OPTION, str(descriptor)]


def _filter_descriptor() -> Optional[int]:
    """A descriptor to read the moves' seccomp program from, compiled as the kernel takes it (struct
    sock_filter), for one bwrap to read; None on a machine the filter does not know."""
    program = move_server.move_filter(os.uname().machine)
    if program is None:
        return None
    compiled = b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
    read, write = os.pipe()  # a few hundred bytes: the pipe holds them, no reader needed yet
    os.write(write, compiled)
    os.close(write)
    _filters.add(read)
    return read


_filters: Set[int] = set()  # the descriptors _filter_descriptor made that are still open: no other is passed


def descriptors(argv: Sequence[str]) -> List[int]:
    """The descriptors an ``argv`` of ``bwrap_argv``'s reads (its filters), to pass to it and close once it
    started: only those made here, so that no word of an agent's command names one of the host's."""
    words = list(argv)
    return [int(words[i + 1]) for i, word in enumerate(words[:-1]) if word == FILTER_OPTION and _made(words[i + 1])]


def _made(word: str) -> bool:
    return word.isdigit() and int(word) in _filters


def close_descriptors(argv: Sequence[str]) -> None:
    """Close the descriptors of ``argv`` (``descriptors``) in this process."""
    for descriptor in descriptors(argv):
        _filters.discard(descriptor)
        try:
            os.close(descriptor)
        except OSError:
            pass


def _private(place: str, size_mb: int, scratch: Optional[Dict[str, str]]) -> List[str]:
    """The bwrap arguments of the private ``place`` (/tmp, /dev/shm): the scratch folder bound there, else
    a tmpfs of ``size_mb``."""
    if scratch:
        return ["--bind", scratch[place], place]
    return ["--perms", PRIVATE_TMP_MODE, "--size", str(size_mb * MIB), "--tmpfs", place]


@functools.lru_cache(maxsize=None)
def can_disable_user_namespaces() -> bool:
    """Whether this bwrap has ``--disable-userns`` (bubblewrap 0.8 and later)."""
    try:
        shown = subprocess.run(
            [shutil.which(ISOLATION_TOOL) or ISOLATION_TOOL, "--help"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return b"--disable-userns" in shown.stdout + shown.stderr


def bwrap_argv(
    chdir: str,
    command: Sequence[str],
    writable: Optional[str],
    tmp_mb: int = DEFAULT_LIMITS.file_mb,
    extra: Iterable[str] = (),
    scratch: Optional[Dict[str, str]] = None,
    serves_moves: bool = False,
    user: Optional[SandboxUser] = None,
    filtered_inside: bool = False,
) -> List[str]:
    """The argv running ``command`` (a list) in a sandbox whose only writable folder is ``writable``,
    beside /tmp and /dev/shm: tmpfs of ``tmp_mb`` each, or the host's folders ``scratch`` names
    ({"/tmp": folder, "/dev/shm": folder}: a workspace's, within its quota).

    Under root, bwrap runs privileged, with no user namespace, and the command (``inner_command``) turns
    itself into the sandbox's ``user`` (the kernel never holds root's processes to a limit): unmapped in its own user
    namespace, it holds no capability after its exec and can make no namespace. Otherwise bwrap runs
    unprivileged in a user namespace of its own, where the user is mapped: ``--disable-userns`` then
    keeps the command from making a user namespace (and in it every other kind), unless the command
    ``serves_moves`` (the move server, which makes each move's own and confines the move itself).
    Any other command runs under the moves' seccomp filter, from a descriptor of ``descriptors(argv)``
    that the caller passes to bwrap and then closes.
    """
    if user is None and os.geteuid() == 0:
        raise ValueError("a sandbox under root runs as a user of its own (engine.sandbox.users.lease)")
    argv = [shutil.which(ISOLATION_TOOL) or ISOLATION_TOOL] + _folders(writable, tmp_mb, extra, scratch)
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
    if not serves_moves and not filtered_inside:  # else the move's own bwrap installs it (inner_command)
        argv += _filter_option()
    return argv + _namespaces(serves_moves, user) + list(command)


def _folders(
    writable: Optional[str], tmp_mb: int, extra: Iterable[str], scratch: Optional[Dict[str, str]]
) -> List[str]:
    """The bwrap arguments of the folders a sandbox shows: its private /tmp, the system's links, the
    read-only folders (``_visible_folders``) and the folders above them, and ``writable``."""
    # A private /tmp first (small: files beyond the copy are no place to fill), then the folders on it.
    # Without a workspace's scratch, a tmpfs of the sandbox's own, open to its users with the sticky bit.
    argv = _private("/tmp", tmp_mb, scratch)
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
    return argv


def _namespaces(serves_moves: bool, user: Optional[SandboxUser]) -> List[str]:
    """The bwrap arguments of a sandbox's namespaces, up to the ``--`` before the command: under root (a
    ``user`` to switch to), every namespace but the user's, and the capabilities that switching to it needs;
    otherwise every namespace, a user namespace included, and none for the command to make unless it
    ``serves_moves``."""
    if user is not None:
        return [
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
    argv = ["--unshare-all"]
    if not serves_moves and can_disable_user_namespaces():
        argv += ["--unshare-user", "--disable-userns"]
    return argv + ["--"]
