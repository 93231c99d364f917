"""The move server of a program player's sandbox: each move a fresh process forked from it (inside bwrap).

``gamebox.GameBox`` starts it as the sandbox's first process, as the user moves run as, in the
player's folder copy, with what a move runs as its argument (a ``marshal``-ed dict, in hex). The
sandbox serves one game, or several games one after another with the folder, ``/tmp`` and
``/dev/shm`` emptied and copied afresh between them (``gamebox.lease``). For each line ``move``
on its stdin it runs one move and answers ``done STATUS CPU`` on its stdout: the wait status of
the move and the CPU of all of its processes that were reaped.

A move is a process forked from this server that enters a user and a PID namespace of its own and
forks the move's first process, PID 1 there: every process the move starts ends when it does,
the process limit counts the move's own tasks, and nothing of the move can signal or trace this
server (it is the sandbox's PID 1, and not dumpable). That first process takes the move's rlimits,
a session of its own, /dev/null as stdin and stdout, and then either runs a Python agent's script
itself, on the interpreter this server started (what a fresh ``python script.py`` does, without
paying for the interpreter's start at every move), or executes any other command.

The server starts as ``python`` does (``site`` and all). It imports the standard modules that
course agents import (``PRELOADED``) once, so that a move finds them loaded as a fresh
interpreter finds its built-in ones; ``random`` is seeded again
at every move, as a fresh process seeds it. A Python agent's script is compiled once and again
only when its text changes. A move also takes an IPC namespace of its own, so that nothing of
one move (System V shared memory, say) outlives it, as with a sandbox a move.

Standard library only, and none of ``engine``.
"""

import ctypes
import marshal
import os
import platform
import resource
import signal
import sys

CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWIPC = 0x10000000, 0x20000000, 0x08000000
NAMESPACES = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWIPC  # a move's own
PR_SET_DUMPABLE = 4
CLONE_SYSCALL = {"x86_64": 56, "aarch64": 220}  # clone's number; with a null stack, the same arguments
KEYCTL_SYSCALL = {"x86_64": 250, "aarch64": 219}  # keyctl's, and its request for a new session keyring
KEYCTL_JOIN_SESSION_KEYRING = 1
EXEC_FAILED = 127  # the shell's status for a command that cannot be started
# Signals Python ignores at its start that a fresh program would not: restored before an exec.
RESTORED = tuple(getattr(signal, name) for name in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, name))
# Standard modules course agents import, loaded once a sandbox (none holds state a move could leave).
PRELOADED = ("json", "math", "collections", "itertools", "functools", "copy", "time", "random")
_compiled = {}  # (the agent script's path, its text) -> its code: the last one only


_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded once: a move forked from the server finds it loaded


def _limit(name, value):
    if value is not None:
        resource.setrlimit(getattr(resource, name), (value, value))


def _code(path):
    """The code of the script at ``path``, compiled once for each version of the file."""
    with open(path, "rb") as source:
        key = (path, source.read())
    if key not in _compiled:
        _compiled.clear()
        _compiled[key] = compile(key[1], path, "exec", dont_inherit=True)
    return _compiled[key]


def _run_script(script, arguments):
    """Run the Python ``script`` as ``python script arguments`` would, to its exit; never returns."""
    import types

    sys.argv = [script] + list(arguments)
    sys.path[0] = os.getcwd()
    sys.modules["random"].seed()  # from os.urandom, as at a fresh interpreter's import of random
    path = os.path.abspath(script)
    before = set(sys.modules)
    main = types.ModuleType("__main__")
    main.__file__, main.__builtins__, main.__cached__ = path, __builtins__, None
    sys.modules["__main__"] = main
    try:
        exec(_code(path), main.__dict__)
        ended = SystemExit(0)
    except SystemExit as error:
        ended = error
    except BaseException as error:
        import traceback

        traceback.print_exception(type(error), error, error.__traceback__.tb_next)  # the script's frames only
        ended = SystemExit(1)
    _exit_as_the_interpreter_does(ended, [sys.modules[n] for n in set(sys.modules) - before] + [main])


def _exit_as_the_interpreter_does(ended, modules):
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


def _first_process(move):
    """The move's PID 1: its limits, session and files, then the agent (a Python script run here, or an
    exec); never returns."""
    try:
        os.setsid()
        _LIBC.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # its own /proc files are its own again
        if platform.machine() in KEYCTL_SYSCALL:  # a session keyring of its own: no key outlives the move
            _LIBC.syscall(KEYCTL_SYSCALL[platform.machine()], KEYCTL_JOIN_SESSION_KEYRING, None)
        limits = move["limits"]
        resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu"], limits["cpu"] + 1))
        _limit("RLIMIT_DATA", limits["data"])
        _limit("RLIMIT_FSIZE", limits["fsize"])
        _limit("RLIMIT_CORE", 0)
        _limit("RLIMIT_NOFILE", limits["nofile"])
        _limit("RLIMIT_NPROC", limits["nproc"])
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


def _move(move):
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


def _clone_into_namespaces():
    """Fork the move's first process straight into NAMESPACES (a raw clone: one fork, not two): its pid
    here, 0 in it; None where this machine's clone is not known or refuses (the caller forks twice).
    glibc's own fork bookkeeping is not run; this server has one thread, and a process's own signals
    reach it by its real thread id since glibc 2.34."""
    number = CLONE_SYSCALL.get(platform.machine())
    if number is None:
        return None
    pid = _LIBC.syscall(number, NAMESPACES | signal.SIGCHLD, 0, 0, 0, 0)
    return pid if pid >= 0 else None


def _clone_works():
    """Whether a raw clone into NAMESPACES gives a child that runs and ends as a forked one would."""
    child = _clone_into_namespaces()
    if child == 0:
        os._exit(0 if os.getpid() == 1 else 1)
    if child is None:
        return False
    _, status, _ = os.wait4(child, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _namespaces_problem():
    """Why a move cannot enter namespaces of its own here (a forked trial), or None where it can."""
    child = os.fork()
    if child == 0:
        os._exit(0 if _LIBC.unshare(NAMESPACES) == 0 else ctypes.get_errno() or 1)
    _, status, _ = os.wait4(child, 0)
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    return None if code == 0 else f"unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWIPC) fails: {os.strerror(code)}"


def serve(move):
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
    for line in requests:
        if line.strip() != b"move":
            break
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


if __name__ == "__main__":
    settings = marshal.loads(bytes.fromhex(sys.argv[1]))
    for name in PRELOADED:
        __import__(name)
    if settings["script"]:
        try:
            _code(os.path.abspath(settings["script"]))
        except (OSError, SyntaxError, ValueError):
            pass  # the move reports it, as a fresh interpreter would
    import gc

    gc.freeze()  # the server's objects: never scanned again by a move's collections, nor copied by them
    serve(settings)
