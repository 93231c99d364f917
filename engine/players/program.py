"""Any course agent as a player, run as the course runs it.

A fresh process per move in a private copy of the player's folder (a workspace with a quota,
``workspace``), ``input.txt`` written the course way, ``output.txt`` read the course way. Where
the sandbox can have it, each move is forked from a move server that the game's one sandbox
starts (``gamebox``); elsewhere each move is a process in a sandbox of its own. A move over the CPU limit
(user + sys, as ``time`` counts it), a crash, a missing or unparsable ``output.txt`` or a
point off the board is a ``PlayerFault`` naming the reason; a player that hangs is killed.
"""

import os
import shlex
import shutil
import signal
import sys
import tempfile

from engine.constants import COURSE_CPU_LIMIT, PASS
from engine.coords import on_board, to_point
from engine.errors import InvalidInput
from engine.players.base import Player, PlayerFault, Reason
from engine.players.host import OutputFormatError, format_input, read_output
from engine.sandbox import gamebox
from engine.sandbox.files import UntrustedFileError, copy_folder, excerpt, tail, write_new
from engine.sandbox.isolation import prepare_folder, wrap
from engine.sandbox.limits import DEFAULT_LIMITS, MIB, SandboxError, UntrustedFolderError
from engine.sandbox.process import run
from engine.sandbox.workspace import FULL, Workspace

STDERR_SHOWN = 300  # characters of an agent's stderr in a fault
MAX_KEPT = 20  # faulting moves kept in a keep_faults folder: enough to debug, never a disk's worth
REPLAY = "replay.sh"  # in a kept move's folder: runs the move again


class ProgramPlayer(Player):
    """A program speaking the course file protocol, run once per move in a private copy of its folder."""

    def __init__(
        self,
        directory,
        command=None,
        cpu_limit=COURSE_CPU_LIMIT,
        spec=None,
        wall_limit=None,
        limits=DEFAULT_LIMITS,
        files=None,
        keep_faults=None,
    ):
        """``command``: a shell command line (a user's own ``cmd:DIR::COMMAND``) or an argv list (a built
        agent's, which no file name can turn into options); default: this Python on ``my_player3.py``.
        ``files``: {name: text} written into each game's copy in place of the folder's own (a weights file).
        ``keep_faults``: a folder where each move that faults leaves its copy of the folder as the move saw it
        (``input.txt`` and all), its stderr and ``replay.sh`` to run it again (``MAX_KEPT`` at most)."""
        if not os.path.isdir(directory):
            raise InvalidInput(f"player directory {directory!r} does not exist")
        self.source = os.path.abspath(directory)
        self.command = command or [sys.executable, "my_player3.py"]
        self.cpu_limit = cpu_limit
        # A player that sleeps uses no CPU: past this much wall time it is killed.
        self.wall_limit = wall_limit or max(3 * cpu_limit, cpu_limit + 5)
        self.spec = spec or f"cmd:{directory}"
        self.limits = limits
        self.files = dict(files or {})
        self.keep_faults = keep_faults
        self.workspace = self.workdir = self.box = None

    def new_game(self, colour, seed):
        Player.new_game(self, colour, seed)
        self.close()
        self.workspace = Workspace(self.limits)  # each game a fresh one: nothing of an earlier game reaches it
        self.workdir = self.workspace.folder
        try:
            copy_folder(self.source, self.workdir, self.limits.folder_mb * MIB)
        except (UntrustedFolderError, OSError) as error:
            workspace = self.workspace
            if isinstance(error, OSError) and error.errno in FULL:  # HostError unless its own quota
                try:
                    error = workspace.host_write_failed("the copy of its folder", error)
                finally:
                    self.close()
            self.close()
            raise PlayerFault(Reason.CRASH, f"its folder cannot be copied: {error}")
        for name, text in self.files.items():
            path = os.path.join(self.workdir, name)
            if os.path.lexists(path):
                os.unlink(path)  # the folder's own file
            write_new(path, text)
        prepare_folder(self.workdir, self.limits)
        if gamebox.available(self.limits):
            self.box = gamebox.GameBox(
                self.workdir,
                self.command,
                self.limits,
                self.cpu_limit,
                self.wall_limit,
                self._stderr_path(),
                self.workspace.scratch,
            )

    def close(self):
        if self.box:
            self.box.close()
        if self.workspace:
            self.workspace.close()
        self.workspace = self.workdir = self.box = None

    def _stderr_path(self):
        return os.path.join(self.workspace.top, "stderr.txt")

    def _write_input(self, position):
        """``input.txt`` written into the copy for the next move; a PlayerFault where the agent filled its
        own workspace, HostError where the host's disk failed the write (no player is charged)."""
        try:
            write_new(
                os.path.join(self.workdir, "input.txt"),
                format_input(position.player, position.previous_string(), position.board_string()),
            )
        except OSError as error:
            if error.errno not in FULL:
                raise
            raise PlayerFault(Reason.CRASH, self.workspace.host_write_failed("input.txt", error))

    def move(self, position):
        return self.timed_move(position)[0]

    def timed_move(self, position):
        try:
            return self._timed_move(position)
        except PlayerFault as fault:
            kept = self._keep(fault) if self.keep_faults and self.workdir else None
            if kept:
                fault.detail += f" (the move is kept in {kept}: sh {os.path.join(kept, REPLAY)} plays it again)"
                fault.args = (f"{fault.reason}: {fault.detail}",)
            raise

    def _keep(self, fault):
        """Where the faulting move's copy of the folder, stderr and replay script were kept, or None (over
        ``MAX_KEPT``, or the copy failed: a fault is never hidden by its keeping)."""
        try:
            os.makedirs(self.keep_faults, exist_ok=True)
            if len(os.listdir(self.keep_faults)) >= MAX_KEPT:
                return None
            kept = tempfile.mkdtemp(prefix="fault-", dir=self.keep_faults)
            copy_folder(self.workdir, os.path.join(kept, "agent"), self.limits.folder_mb * MIB)
            stderr = self._stderr_path()
            if os.path.isfile(stderr):
                shutil.copyfile(stderr, os.path.join(kept, "stderr.txt"))
            command = self.command if isinstance(self.command, str) else " ".join(map(shlex.quote, self.command))
            with open(os.path.join(kept, REPLAY), "w") as script:
                script.write(
                    f"#!/bin/sh\n# {self.spec}: {fault.reason}: {fault.detail}\n"
                    "# The move again, outside the sandbox, in the folder as the move saw it (its input.txt):\n"
                    f'cd "$(dirname "$0")/agent" && exec {command}\n'
                )
            return kept
        except (OSError, UntrustedFolderError):
            return None

    def _timed_move(self, position):
        for name in ("input.txt", "output.txt"):
            try:
                os.unlink(os.path.join(self.workdir, name))
            except FileNotFoundError:
                pass
            except OSError as error:  # a folder the agent put there
                raise PlayerFault(Reason.BAD_OUTPUT, f"{name} cannot be replaced: {error.strerror}")
        self._write_input(position)
        stderr_path = self._stderr_path()
        finished = self._run_move(stderr_path)
        status, cpu = finished.status, finished.cpu
        if finished.timed_out:
            raise PlayerFault(Reason.TIMEOUT, f"no answer in {self.wall_limit:.0f} s of wall time (killed)")
        if (
            cpu > self.cpu_limit
            or finished.over_cpu
            or (
                os.WIFSIGNALED(status)
                and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL)
                and cpu >= self.cpu_limit
            )
        ):
            raise PlayerFault(Reason.TIMEOUT, f"{cpu:.2f} s of CPU, over the {self.cpu_limit:.1f} s limit")
        if finished.out_of_memory:
            raise PlayerFault(
                Reason.CRASH,
                f"killed at the memory limit ({self.limits.memory_mb} MiB, all its processes): "
                f"{tail(stderr_path, STDERR_SHOWN)}",
            )
        output = os.path.join(self.workdir, "output.txt")
        try:
            move = read_output(output)
        except FileNotFoundError:
            if os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0:
                raise PlayerFault(
                    Reason.CRASH,
                    f"exited with {_describe_status(status)} and wrote no output.txt: "
                    f"{tail(stderr_path, STDERR_SHOWN)}",
                )
            raise PlayerFault(Reason.BAD_OUTPUT, "no output.txt")
        except UntrustedFileError as error:
            raise PlayerFault(Reason.BAD_OUTPUT, error.strerror)
        except OutputFormatError as error:
            raise PlayerFault(Reason.BAD_OUTPUT, str(error))
        except OSError as error:
            raise PlayerFault(Reason.BAD_OUTPUT, f"output.txt cannot be read: {error.strerror or error}")
        if move == PASS:
            return PASS, cpu
        if not on_board(*move):
            raise PlayerFault(Reason.ILLEGAL, "{},{} is off the board".format(*move))
        return to_point(*move), cpu

    def _run_move(self, stderr_path):
        """A Finished: the move run in the game's sandbox where its moves are served, else in its own."""
        try:
            if self.box:
                if os.path.exists(stderr_path):
                    os.truncate(stderr_path, 0)  # the tail shown in a fault is this move's
                finished = self.box.run_move()
                if finished is not None:
                    return finished
                self.box = None  # no namespaces for moves here: a sandbox a move from now on
            argv = wrap(self.command, self.workdir, self.limits)
        except SandboxError as error:
            raise PlayerFault(Reason.CRASH, str(error))
        with open(stderr_path, "wb") as stderr:
            try:
                return run(argv, self.workdir, self.limits, self.cpu_limit, self.wall_limit, stderr=stderr)
            except OSError as error:  # no such program (without the sandbox, an argv runs directly)
                raise PlayerFault(
                    Reason.CRASH,
                    "cannot start {}: {}".format(
                        excerpt(" ".join(self.command) if isinstance(self.command, list) else self.command, 100),
                        error.strerror or error,
                    ),
                )


_SIGNAL_MEANING = {
    signal.SIGXFSZ: "over the file size limit",
    signal.SIGXCPU: "over the CPU limit",
    signal.SIGKILL: "killed",
    signal.SIGSEGV: "a memory fault",
}


def _describe_status(status):
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        meaning = _SIGNAL_MEANING.get(number)
        return "signal {}{}".format(number, f" ({meaning})" if meaning else "")
    code = os.WEXITSTATUS(status)
    meaning = _SIGNAL_MEANING.get(code - 128)  # the sandbox reports a signal as 128 + its number
    return "status {}{}".format(code, f" (signal {code - 128} in the sandbox: {meaning})" if meaning else "")
