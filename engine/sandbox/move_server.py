"""The move server of a program player's sandbox: each move a fresh process forked from it (inside bwrap).

``gamebox.GameBox`` starts it as the sandbox's first process, as the user moves run as, in the
player's folder copy, with what a move runs as the first line of its stdin (a ``marshal``-ed dict,
in hex: not in its command line, which a move may read). The sandbox serves one game and ends with
it. For each line ``move`` on its stdin it runs one move and answers ``done STATUS CPU`` on its
stdout: the wait status of the move and the CPU of all of its processes that were reaped.

A move is a process forked from this server that enters a user and a PID namespace of its own and
forks the move's first process, PID 1 there: every process the move starts ends when it does,
the process limit counts the move's own tasks, and nothing of the move can signal or trace this
server (it is the sandbox's PID 1, and not dumpable). That first process takes the move's rlimits,
a session of its own, no capability and no way to make a namespace (``_confine``: it held every
capability of its own user namespace, enough to make namespaces of every kind, each counted against
the one user every sandbox's moves run as), /dev/null as stdin and stdout, and then either runs a
Python agent's script itself, on the interpreter this server started (what a fresh ``python script.py`` does, without
paying for the interpreter's start at every move), or executes any other command.

The server starts as ``python -S`` (without ``site``, whose ``.pth`` files cost a start most of its
CPU where an editable install's finder is among them) and then does what ``site`` would have done
(``_as_site_would``): the module path that ``python -s -E`` has here, as the host measured it once, so
that an agent may import what this Python has installed; a module found nowhere is looked for again
after ``site`` runs its ``.pth`` files in that move (an editable install's finder). Never the user
site-packages of the agent's folder.
It imports the standard modules that course agents import (``PRELOADED``) once, so that a move
finds them loaded as a fresh interpreter finds its built-in ones; ``random`` is seeded again at
every move, as a fresh process seeds it. A Python agent's script is compiled once, at the
first move (the server may start before the game's folder is copied in: ``spares``), and again
only when its text changes. A move also takes an IPC namespace of its own, so that nothing of
one move (System V shared memory, say) outlives it, as with a sandbox a move.

Standard library only, and none of ``engine``.
"""

import ctypes
import errno
import gc
import marshal
import os
import resource
import signal
import sys

# The types, for the checker alone: the server imports nothing it does not run (typing included).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from types import CodeType, ModuleType
    from typing import Dict, List, NoReturn, Optional, Sequence, Tuple, TypedDict

    class MoveLimits(TypedDict):
        """The rlimits of a move's first process (None: not set)."""

        cpu: int  # RLIMIT_CPU's soft limit, in seconds (the hard one a second more)
        data: int  # RLIMIT_DATA, bytes
        fsize: int  # RLIMIT_FSIZE, bytes
        nofile: Optional[int]  # RLIMIT_NOFILE, files open at once
        nproc: int  # RLIMIT_NPROC, tasks

    class SitePaths(TypedDict):
        """What ``site`` gives ``python -s -E`` on this interpreter, measured by the host (``gamebox.site_paths``)."""

        path: List[str]  # sys.path past the script's folder
        prefix: str
        exec_prefix: str

    class MoveSettings(TypedDict):
        """What a move runs (``gamebox`` sends it, marshal-ed, as the first line of the server's stdin)."""

        argv: List[str]  # the command, resolved (run with exec where ``script`` is None)
        script: Optional[str]  # a Python agent's script, run on the server's own interpreter
        arguments: List[str]  # the script's arguments
        limits: MoveLimits
        site: Optional[SitePaths]  # where the server starts without ``site`` (``python -S``)


CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWIPC = 0x10000000, 0x20000000, 0x08000000
NAMESPACES = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWIPC  # a move's own
# Every kind of namespace a clone or unshare can make: mount, cgroup, uts, ipc, user, pid, net, time.
ANY_NAMESPACE = 0x00020000 | 0x02000000 | 0x04000000 | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | 0x40000000 | 0x80
PR_SET_DUMPABLE = 4
CLONE_SYSCALL = {"x86_64": 56, "aarch64": 220}  # clone's number; with a null stack, the same arguments
KEYCTL_SYSCALL = {"x86_64": 250, "aarch64": 219}  # keyctl's, and its request for a new session keyring
KEYCTL_JOIN_SESSION_KEYRING = 1
EXEC_FAILED = 127  # the shell's status for a command that cannot be started
EXIT_CANNOT_OPEN = 2  # python's status when its script cannot be opened
# Signals Python ignores at its start that a fresh program would not: restored before an exec.
RESTORED = tuple(getattr(signal, name) for name in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, name))
# Standard modules course agents import, loaded once a sandbox (none holds state a move could leave).
PRELOADED = ("json", "math", "collections", "itertools", "functools", "copy", "time", "random")
_deferred_site: "List[bool]" = []  # non-empty where the server started without site (``_as_site_would``)
# (the agent script's path, its text) -> its code: the last one only
_compiled: "Dict[Tuple[str, bytes], CodeType]" = {}


_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded once: a move forked from the server finds it loaded


def _limit(name: str, value: "Optional[int]") -> None:
    if value is not None:
        resource.setrlimit(getattr(resource, name), (value, value))


def _code(path: str) -> "CodeType":
    """The code of the script at ``path``, compiled once for each version of the file."""
    with open(path, "rb") as source:
        key = (path, source.read())
    if key not in _compiled:
        _compiled.clear()
        _compiled[key] = compile(key[1], path, "exec", dont_inherit=True)
    return _compiled[key]


def _run_script(script: str, arguments: "List[str]") -> "NoReturn":
    """Run the Python ``script`` as ``python script arguments`` would, to its exit; never returns."""
    import types

    sys.argv = [script] + list(arguments)
    sys.path[0] = os.getcwd()
    sys.modules["random"].seed()  # from os.urandom, as at a fresh interpreter's import of random
    path = os.path.abspath(script)
    try:
        _code(path)
    except OSError as error:  # what a fresh interpreter says of a script it cannot open, and its status
        print(f"{sys.executable}: can't open file {path!r}: [Errno {error.errno}] {error.strerror}", file=sys.stderr)
        os._exit(EXIT_CANNOT_OPEN)
    except (SyntaxError, ValueError):
        pass  # raised again below, and reported as the interpreter reports it
    if _deferred_site:  # the agent's imports alone: the server's own optional ones (copy's "org") never run site
        sys.meta_path.append(_SiteOnDemand())
    before = set(sys.modules)
    main = types.ModuleType("__main__")
    # A module's attributes as the interpreter sets them (typeshed's ModuleType names only some).
    main.__file__, main.__builtins__, main.__cached__ = path, __builtins__, None  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    try:
        exec(_code(path), main.__dict__)
        ended = SystemExit(0)
    except SystemExit as error:
        ended = error
    except BaseException as error:
        import traceback

        assert error.__traceback__ is not None  # set on every exception caught
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)  # the script's frames only
        ended = SystemExit(1)
    _exit_as_the_interpreter_does(ended, [sys.modules[n] for n in set(sys.modules) - before] + [main])


def _exit_as_the_interpreter_does(ended: SystemExit, modules: "List[ModuleType]") -> "NoReturn":
    """End the process as an interpreter ends after a script raised ``ended`` (a SystemExit): its threads
    joined, its atexit functions run, the script's ``modules`` torn down (so that the files they hold
    open are flushed and closed), the standard streams flushed. Never returns."""
    import gc

    code = ended.code
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    try:
        if "threading" in sys.modules:
            sys.modules["threading"]._shutdown()
        import atexit

        atexit._run_exitfuncs()
        for module in modules:
            module.__dict__.clear()
        gc.collect()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        code = code or 1
    os._exit(code & 0xFF)


class _Filter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


# Seccomp (linux/seccomp.h, linux/filter.h, linux/audit.h): each machine's audit arch and the numbers of
# the calls the filter reads: those that make or enter namespaces (unshare, clone, setns, clone3), those
# that make sockets (socket, socketpair: their family is read), and those a move never needs and that
# reach past the sandbox's namespaces or into the kernel's riskiest code (io_uring's three, userfaultfd,
# bpf, perf_event_open).
SECCOMP_ARCH = {
    "x86_64": (
        0xC000003E,
        {"unshare": 272, "clone": 56, "setns": 308, "clone3": 435, "socket": 41, "socketpair": 53},
        {
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "userfaultfd": 323,
            "bpf": 321,
            "perf_event_open": 298,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {"unshare": 97, "clone": 220, "setns": 268, "clone3": 435, "socket": 198, "socketpair": 199},
        {
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "userfaultfd": 282,
            "bpf": 280,
            "perf_event_open": 241,
        },
    ),
}
# The socket families a move may make: local sockets, and IP ones, which reach nothing outside its empty
# network namespace. AF_VSOCK (the hypervisor's), AF_NETLINK (the kernel's), AF_PACKET and the rest are
# refused: no namespace of the sandbox's covers them all.
SOCKET_FAMILIES = (1, 2, 10)  # AF_UNIX, AF_INET, AF_INET6
X32_CALLS = 0x40000000  # x86_64's x32 numbers: another way to the same calls, refused whole
LOAD, JUMP_EQUAL, JUMP_AT_LEAST, JUMP_ANY_BIT, RETURN = 0x20, 0x15, 0x35, 0x45, 0x06
ALLOW, REFUSE_WITH = 0x7FFF0000, 0x00050000  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | errno
NUMBER, ARCH, FIRST_ARGUMENT = 0, 4, 16  # offsets in struct seccomp_data (the argument's low 32 bits)
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4
CAPABILITY_VERSION_3 = 0x20080522


def _when_call(number: int, block: "List[Tuple[int, int, int, int]]") -> "List[Tuple[int, int, int, int]]":
    """``block`` (which ends in a return) run for the call ``number`` only: the others skip it.
    Instructions are (code, jump if true, jump if false, constant); jumps count the instructions skipped."""
    return [(JUMP_EQUAL, 0, len(block), number)] + block


def move_filter(machine: str) -> "Optional[List[Tuple[int, int, int, int]]]":
    """The seccomp program of every move: it refuses every namespace a process could make or enter
    (unshare and clone with any namespace flag, setns: EPERM; clone3: ENOSYS, as its flags lie in memory
    no filter reads, and the C library falls back to clone), sockets of any family but SOCKET_FAMILIES
    (EAFNOSUPPORT), the calls of REFUSED (EPERM) and any call of another architecture (EPERM); None for an
    unknown machine."""
    if machine not in SECCOMP_ARCH:
        return None
    arch, read, refused = SECCOMP_ARCH[machine]
    refuse, missing = REFUSE_WITH | errno.EPERM, REFUSE_WITH | errno.ENOSYS
    no_family = REFUSE_WITH | errno.EAFNOSUPPORT
    program = [
        (LOAD, 0, 0, ARCH),
        (JUMP_EQUAL, 1, 0, arch),
        (RETURN, 0, 0, refuse),  # another architecture
        (LOAD, 0, 0, NUMBER),
        (JUMP_AT_LEAST, 0, 1, X32_CALLS),
        (RETURN, 0, 0, refuse),
    ]
    for number in [read["setns"]] + sorted(refused.values()):
        program += _when_call(number, [(RETURN, 0, 0, refuse)])
    program += _when_call(read["clone3"], [(RETURN, 0, 0, missing)])
    namespace_flags = [
        (LOAD, 0, 0, FIRST_ARGUMENT),
        (JUMP_ANY_BIT, 0, 1, ANY_NAMESPACE),
        (RETURN, 0, 0, refuse),
        (RETURN, 0, 0, ALLOW),
    ]
    program += _when_call(read["unshare"], namespace_flags) + _when_call(read["clone"], namespace_flags)
    # The family: each allowed one jumps to the ALLOW after the refusal.
    allowed = [(JUMP_EQUAL, len(SOCKET_FAMILIES) - index, 0, family) for index, family in enumerate(SOCKET_FAMILIES)]
    family_check = [(LOAD, 0, 0, FIRST_ARGUMENT)] + allowed + [(RETURN, 0, 0, no_family), (RETURN, 0, 0, ALLOW)]
    program += _when_call(read["socket"], family_check) + _when_call(read["socketpair"], family_check)
    return program + [(RETURN, 0, 0, ALLOW)]


def _confine() -> None:
    """Leave the move's first process no way to make or enter a namespace, before the agent's code runs:
    every capability dropped (it holds all of them in the move's own user namespace), no new privileges
    ever (setuid programs included), and the seccomp filter of ``move_filter`` installed. What
    this machine refuses of it is not fatal: without the capabilities no namespace but a user one can
    be made, and that one needs a mapped user, which only a capability could write."""
    last = 63
    try:
        with open("/proc/sys/kernel/cap_last_cap") as known:
            last = int(known.read())
    except (OSError, ValueError):
        pass
    for capability in range(last + 1):
        _LIBC.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)
    _LIBC.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    _LIBC.capset(ctypes.byref(_CapHeader(CAPABILITY_VERSION_3, 0)), ctypes.byref((_CapData * 2)()))
    _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    program = move_filter(os.uname().machine)
    if program:
        filters = (_Filter * len(program))(*(_Filter(*instruction) for instruction in program))
        _LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(_Program(len(program), filters)), 0, 0)


def _first_process(move: "MoveSettings") -> "NoReturn":
    """The move's PID 1: its limits, session and files, then the agent (a Python script run here, or an
    exec); never returns."""
    try:
        os.setsid()  # not dumpable, as the server: no process of another user traces it or reads its memory
        if os.uname().machine in KEYCTL_SYSCALL:  # a session keyring of its own: no key outlives the move
            _LIBC.syscall(KEYCTL_SYSCALL[os.uname().machine], KEYCTL_JOIN_SESSION_KEYRING, None)
        limits = move["limits"]
        resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu"], limits["cpu"] + 1))
        _limit("RLIMIT_DATA", limits["data"])
        _limit("RLIMIT_FSIZE", limits["fsize"])
        _limit("RLIMIT_CORE", 0)
        _limit("RLIMIT_NOFILE", limits["nofile"])
        _limit("RLIMIT_NPROC", limits["nproc"])
        _confine()
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        try:  # stderr opened afresh: an offset and flags of its own, nothing a move set on it lasts
            fresh = os.open("/proc/self/fd/2", os.O_WRONLY | os.O_APPEND)
            os.dup2(fresh, 2)
        except OSError:
            pass  # the server's own, shared: the stderr still reaches the host
        os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        encoding = sys.stdout.encoding  # the interpreter's own choice, looked up once
        sys.stdin = open(0, encoding=encoding, closefd=False)
        sys.stdout = open(1, "w", encoding=encoding, closefd=False)
        if move["script"]:
            _run_script(move["script"], move["arguments"])
        for number in RESTORED:
            signal.signal(number, signal.SIG_DFL)
        argv = move["argv"]
        os.execv(argv[0], argv)
    except OSError as error:
        print(f"cannot start {move['argv'][0]}: {error.strerror or error}", file=sys.stderr)
    os._exit(EXEC_FAILED)


def _move(move: "MoveSettings") -> "NoReturn":
    """The forked process of one move: user, PID and IPC namespaces of its own, its first process, and
    that process's end passed on as its own; never returns."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if _LIBC.unshare(NAMESPACES) != 0:
        print(f"the move cannot have namespaces of its own: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        os._exit(EXEC_FAILED)
    first = os.fork()
    if first == 0:
        _first_process(move)
    try:
        _, status, _ = os.wait4(first, 0)
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            if number not in (signal.SIGKILL, signal.SIGSTOP):
                signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)  # ended as its first process ended, by the same signal
            os._exit(128 + number)
        os._exit(os.WEXITSTATUS(status))
    finally:
        os._exit(EXEC_FAILED)


def _clone_into_namespaces() -> "Optional[int]":
    """Fork the move's first process straight into NAMESPACES (a raw clone: one fork, not two): its pid
    here, 0 in it; None where this machine's clone is not known or refuses (the caller forks twice).
    glibc's own fork bookkeeping is not run; this server has one thread, and a process's own signals
    reach it by its real thread id since glibc 2.34."""
    number = CLONE_SYSCALL.get(os.uname().machine)
    if number is None:
        return None
    pid = _LIBC.syscall(number, NAMESPACES | signal.SIGCHLD, 0, 0, 0, 0)
    return pid if pid >= 0 else None


def _clone_works() -> bool:
    """Whether a raw clone into NAMESPACES gives a child that runs and ends as a forked one would."""
    child = _clone_into_namespaces()
    if child == 0:
        os._exit(0 if os.getpid() == 1 else 1)
    if child is None:
        return False
    _, status, _ = os.wait4(child, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _namespaces_problem() -> "Optional[str]":
    """Why a move cannot enter namespaces of its own here (a forked trial), or None where it can."""
    child = os.fork()
    if child == 0:
        os._exit(0 if _LIBC.unshare(NAMESPACES) == 0 else ctypes.get_errno() or 1)
    _, status, _ = os.wait4(child, 0)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    return None if code == 0 else f"unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWIPC) fails: {os.strerror(code)}"


def serve_moves(move: "MoveSettings") -> None:
    """Answer each ``move`` line on stdin with a move run and its result, until stdin ends; the first line
    written says ``ready``, or ``unsupported WHY`` (and the server ends)."""
    _LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    requests = sys.stdin.buffer
    answers = sys.stdout
    problem = _namespaces_problem()
    answers.write(f"unsupported {problem}\n" if problem else "ready\n")
    answers.flush()
    if problem:
        return
    cloning = _clone_works()
    first = True
    for line in requests:
        if line.strip() != b"move":
            break
        if first and move["script"]:  # compiled here once: the folder may have been empty at the server's start
            try:
                _code(os.path.abspath(move["script"]))
            except (OSError, SyntaxError, ValueError):
                pass  # the move reports it, as a fresh interpreter would
            gc.freeze()  # the code too: never scanned by a move's collections
        first = False
        child = _clone_into_namespaces() if cloning else None
        if child == 0:
            _first_process(move)
        if child is None:
            child = os.fork()
            if child == 0:
                _move(move)
        _, status, usage = os.wait4(child, 0)
        answers.write(f"done {status} {usage.ru_utime + usage.ru_stime:.6f}\n")
        answers.flush()


class _SiteOnDemand:
    """The last finder of ``sys.meta_path``: a module that nothing else finds is looked for again once
    ``site`` has run its ``.pth`` files, which may install finders of their own (an editable install's);
    in the move that asks, so that only the agents that need them pay for them."""

    def find_spec(
        self, name: str, path: "Optional[Sequence[str]]", target: "Optional[ModuleType]" = None
    ) -> "Optional[ModuleSpec]":
        import site

        sys.meta_path.remove(self)
        site.main()
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec: Optional[ModuleSpec] = find(name, path, target) if find else None
            if spec is not None:
                return spec
        return None


def _as_site_would(paths: "SitePaths") -> None:
    """What ``site`` does at an interpreter's start, without running any ``.pth`` file's code until an
    agent's import needs it (``_SiteOnDemand``, installed before the script runs): the module path and
    prefixes as measured on the host, and the ``exit``, ``quit``, ``help`` and ``copyright`` builtins."""
    import site

    sys.path[1:] = paths["path"]
    sys.prefix, sys.exec_prefix = paths["prefix"], paths["exec_prefix"]
    site.setquit()
    site.setcopyright()
    site.sethelper()
    _deferred_site.append(True)


if __name__ == "__main__":
    settings = marshal.loads(bytes.fromhex(sys.stdin.buffer.readline().decode("ascii").strip()))
    if settings["site"]:
        _as_site_would(settings["site"])
    for name in PRELOADED:
        __import__(name)
    gc.freeze()  # the server's objects: never scanned again by a move's collections, nor copied by them
    serve_moves(settings)
