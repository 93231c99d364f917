"""One sandbox a game for a program player: its moves forked from a move server inside it.

Starting bwrap and an interpreter at every move costs tens of milliseconds; here the sandbox and its
move server (``move_server``) start once, at the game's first move, and each move is a fresh process
forked from the server: it sees the same files, runs under the same limits and ends with the
same faults as a process started for it alone (``process.run``). A sandbox serves one game and ends
with it (``close``): the next game starts another, with a workspace of its own, so that nothing a
move could change (files, their times and attributes, the tmpfs's inode numbers, the sandbox's
process ids, the server's stderr file) reaches a later game. The game's cgroups
(``accounting``) count CPU and memory over every process of the sandbox; a move is charged the
CPU they counted while it ran (or, without them, what the server reaped and the samples saw),
and a move over its CPU or its wall-clock limit ends the whole sandbox: the game is lost anyway.

A server that finds no namespaces for its moves (``unsupported``) is not asked again in this
process: ``available`` then says no, and moves run one sandbox each.
"""

import functools
import json
import marshal
import os
import select
import shlex
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Tuple, Union, cast

from engine.sandbox import move_server
from engine.sandbox.accounting import CPU, Accounting
from engine.sandbox.bwrap import environment
from engine.sandbox.isolation import CommandLine, process_allowance, resolve_command, server_sandbox, serves_moves
from engine.sandbox.limits import MIB, Limits
from engine.sandbox.process import CpuSamples, Finished, count_killed_tree, file_limits, kill_group, starter
from engine.sandbox.users import SandboxUser

if TYPE_CHECKING:
    from engine.sandbox.move_server import MoveSettings, SitePaths

SERVER_MEMORY_MB = 32  # beside a move's own memory in the game's cgroup: the server's interpreter
SERVER_TASKS = 2  # the server, and the process of a move that waits for the move's first process
# The server's own CPU over its life (RLIMIT_CPU: its start, and a clone a move, about 1 ms each).
SERVER_CPU_SECONDS = 600
START_SECONDS = 30  # of wall time for the server to start (its interpreter, the namespace trial)
POLL_SECONDS = 0.02
ANSWER_BYTES = 256  # the longest line of the server's protocol, and more
SHELL_CHARACTERS = set("|&;<>()$`\\\"'*?[]#~=%{}\n")
_unsupported: List[str] = []  # why a server found no namespaces for moves here, once found


class ServerLost(Exception):
    """The move server ended or broke its protocol; the sandbox is gone."""


def available(limits: Limits) -> bool:
    """Whether a program player's moves are served from one sandbox a game here."""
    return serves_moves(limits) and not _unsupported


@functools.lru_cache(maxsize=None)
def site_paths() -> "Optional[SitePaths]":
    """The module path and prefixes ``site`` gives ``python -s -E`` on this interpreter (one run of it, once a
    process), which the move server takes without running ``site`` itself; None where that run fails (the
    server then runs ``site``)."""
    probe = "import json, sys; print(json.dumps([sys.path[1:], sys.prefix, sys.exec_prefix]))"
    try:
        found = subprocess.run(
            [sys.executable, "-s", "-E", "-c", probe], capture_output=True, text=True, timeout=60, check=True
        )
        path, prefix, exec_prefix = json.loads(found.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None
    return {"path": [str(entry) for entry in path], "prefix": str(prefix), "exec_prefix": str(exec_prefix)}


def python_script(argv: List[str]) -> Optional[Tuple[str, List[str]]]:
    """(script, arguments) where ``argv`` (resolved) runs a Python script on the interpreter running
    littlego, which the server can run itself; else None."""
    if argv[:2] == ["/bin/sh", "-c"]:
        if SHELL_CHARACTERS & set(argv[2]):
            return None
        argv = shlex.split(argv[2])
    if len(argv) < 2 or not argv[1].endswith(".py") or argv[1].startswith("-"):
        return None
    if os.path.realpath(argv[0]) != os.path.realpath(sys.executable):
        return None
    return argv[1], argv[2:]


class GameBox:
    """The sandbox of one program player for one game, started at its first move (``run_move``)."""

    def __init__(
        self,
        folder: str,
        command: CommandLine,
        limits: Limits,
        cpu_limit: float,
        wall_limit: float,
        stderr_path: str,
        scratch: Optional[Dict[str, str]] = None,
        user: Optional[SandboxUser] = None,
    ):
        """``scratch`` and ``user``: the workspace's (``Workspace.scratch``, ``Workspace.user``)."""
        self.folder, self.limits, self.cpu_limit, self.wall_limit = folder, limits, cpu_limit, wall_limit
        self.command, self.stderr_path, self.scratch, self.user = command, stderr_path, scratch, user
        self.process: Optional[subprocess.Popen[bytes]] = None
        self.accounting: Optional[Accounting] = None
        self.samples: Optional[CpuSamples] = None
        self.buffer = b""
        self.ready = False  # the server said so

    def _move_settings(self) -> "Tuple[MoveSettings, Optional[str]]":
        assert self.accounting is not None
        argv, installation = resolve_command(self.command)
        file_size, open_files = file_limits(self.limits, self.accounting)
        found = python_script(argv)
        move: MoveSettings = {
            "argv": argv,
            "script": found[0] if found else None,
            "arguments": found[1] if found else [],
            "limits": {
                "cpu": int(self.cpu_limit) + 1,
                "data": self.limits.memory_mb * MIB,
                "fsize": file_size,
                "nofile": open_files,
                "nproc": process_allowance(self.limits, self.user),
            },
            "site": site_paths(),
        }
        return move, installation

    def launch(self) -> None:
        """Start the sandbox and its server without waiting for it (``spares`` starts a game's sandbox while
        an earlier game plays); the first move waits for it to be ready. The folder may still be empty: the
        server compiles a Python agent's script at the first move."""
        game_limits = self.limits._replace(
            memory_mb=self.limits.memory_mb + SERVER_MEMORY_MB, processes=self.limits.processes + SERVER_TASKS
        )
        self.accounting = Accounting(game_limits)
        move, installation = self._move_settings()
        # -s: no user site-packages (HOME is the agent's folder: its .pth files would run in the server);
        # -E: no PYTHON* variable (the environment is the stated one anyway).
        # -S: no site, whose .pth files cost most of a start (the server does the rest of what it does).
        flags = ["-S", "-s", "-E"] if move["site"] else ["-s", "-E"]
        server = [sys.executable] + flags + [os.path.abspath(move_server.__file__)]
        argv = server_sandbox(server, self.folder, self.limits, installation, self.scratch, self.user)
        with open(self.stderr_path, "ab") as stderr:
            if self.user:  # the moves' user opens it afresh (move_server): its stderr, and no other file of the host's
                os.fchown(stderr.fileno(), self.user.uid, self.user.gid)
            self.process = subprocess.Popen(
                argv,
                cwd=self.folder,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=environment(self.folder),
                preexec_fn=starter(game_limits, SERVER_CPU_SECONDS, self.accounting),
            )
        # What moves run, on the server's stdin: not in its command line, which every process may read.
        assert self.process.stdin is not None
        self.process.stdin.write(marshal.dumps(cast(Dict[str, object], move)).hex().encode("ascii") + b"\n")
        self.process.stdin.flush()
        self.samples = None if self.accounting.counts(CPU) else CpuSamples(self.process.pid)

    def _start(self) -> bool:
        """Wait for the server (launching it first where ``launch`` was not called); False where it finds no
        namespaces for moves."""
        if self.process is None:
            self.launch()
        line = cast(str, self._line(time.monotonic() + START_SECONDS))  # a line: no check to end the wait
        if line.startswith("unsupported"):
            _unsupported.append(line)
            self.close()
            return False
        if line != "ready":
            raise ServerLost(f"the move server did not start: {line!r}")
        self.ready = True
        return True

    def _line(self, deadline: float, check: Optional[Callable[[], Optional[Finished]]] = None) -> Union[str, Finished]:
        """The next line the server writes (without its newline), waiting until ``deadline``; ``check``
        is called while it waits and may end the wait by returning a Finished."""
        assert self.process is not None and self.process.stdout is not None
        handle = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            if len(self.buffer) > ANSWER_BYTES:
                raise ServerLost("the move server's answer is no line of its protocol")
            ready, _, _ = select.select([handle], [], [], POLL_SECONDS)
            if ready:
                chunk = os.read(handle, ANSWER_BYTES)
                if not chunk:
                    raise ServerLost("the move server ended")
                self.buffer += chunk
            if time.monotonic() > deadline:
                raise ServerLost("the move server does not answer")
            if check:  # every turn, data or not: nothing written to the pipe can hold the limits off
                stop = check()
                if stop:
                    return stop
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("ascii", "replace").strip()

    def _cpu(self) -> float:
        assert self.accounting is not None
        if self.accounting.counts(CPU):
            return self.accounting.cpu_seconds() or 0.0
        assert self.samples is not None
        self.samples.next_at = 0.0
        self.samples.take(time.monotonic())
        return self.samples.total()

    def run_move(self) -> Optional[Finished]:
        """Run one move in the game's sandbox (starting it at the first); a Finished, or None where moves
        cannot be served here (the caller runs this one as a process of its own)."""
        if not self.ready and not self._start():
            return None
        hard_cpu = int(self.cpu_limit) + 1
        before, started = self._cpu(), time.monotonic()

        def over_limit() -> Optional[Finished]:
            used, now = self._cpu() - before, time.monotonic()
            if now - started > self.wall_limit or used > hard_cpu:
                timed_out = now - started > self.wall_limit
                self.close()
                return Finished(-1, used, now - started, timed_out, not timed_out, False)
            return None

        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write(b"move\n")
            self.process.stdin.flush()
            answer = self._line(float("inf"), over_limit)
        except (OSError, ServerLost):
            return self._lost(before, started)
        if isinstance(answer, Finished):
            return answer
        try:
            word, status_text, reaped_text = answer.split()
            assert word == "done"
            status, reaped = int(status_text), float(reaped_text)
        except (ValueError, AssertionError):
            return self._lost(before, started)
        used = self._cpu() - before
        return Finished(status, max(reaped, used), time.monotonic() - started, False, False, self._oom())

    def _oom(self) -> bool:
        return self.accounting.out_of_memory() if self.accounting else False

    def _lost(self, before: float, started: float) -> Finished:
        """The Finished of a move during which the sandbox ended (its memory limit, say)."""
        used = self._cpu() - before if self.accounting else 0.0
        out_of_memory = self._oom()
        code = self.process.poll() if self.process else None
        self.close()
        # As a wait status: the sandbox's own end where it ended, else an exit with status 1.
        status = -code if code is not None and code < 0 else (code or 1) << 8
        return Finished(status, used, time.monotonic() - started, False, False, out_of_memory)

    def close(self) -> None:
        """End the sandbox and everything in it."""
        if self.process is not None:
            count_killed_tree(self.process.pid)  # what the sandbox spent, which no wait will count
            kill_group(self.process.pid)
            try:
                self.process.kill()
            except OSError:
                pass
            if self.accounting:
                self.accounting.kill()
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                assert stream is not None  # both pipes
                try:
                    stream.close()
                except OSError:
                    pass
            self.process = None
        self.ready = False
        if self.accounting:
            self.accounting.close()
            self.accounting = None
