"""Any course agent as a player, run as the course runs it.

A fresh process per move in a private copy of the player's folder (a workspace with a quota,
``workspace``), ``input.txt`` written the course way, ``output.txt`` read the course way. Where
the sandbox can have it, each move is forked from a move server that the game's one sandbox
starts (``gamebox``); elsewhere each move is a process in a sandbox of its own. A move over the CPU limit
(user + sys, as ``time`` counts it), a crash, a missing or unparsable ``output.txt`` or a
point off the board is a ``PlayerFault`` naming the reason; a player that hangs is killed.
``left_files`` names what the game's moves wrote in its copy: the state an agent keeps between moves.
"""

import os
import shlex
import shutil
import signal
import sys
import tempfile
from typing import Dict, List, Optional, Tuple, Union, cast

from engine.constants import COURSE_CPU_LIMIT, PASS, Colour, Move
from engine.coords import on_board, to_point
from engine.errors import InvalidInput
from engine.players.base import Player, PlayerFault, Reason
from engine.players.host import OutputFormatError, format_input, read_output
from engine.position import Position
from engine.sandbox import gamebox, spares
from engine.sandbox.files import FOLDER_ENTRIES, UntrustedFileError, copy_folder, excerpt, tail, write_new
from engine.sandbox.isolation import CommandLine, prepare_folder, wrap
from engine.sandbox.limits import DEFAULT_LIMITS, MIB, Limits, SandboxError, UntrustedFolderError
from engine.sandbox.process import Finished, run
from engine.sandbox.workspace import DISK_FULL, Workspace

STDERR_SHOWN = 300  # characters of an agent's stderr in a fault
MAX_KEPT = 20  # faulting moves kept in a keep_faults folder: enough to debug, never a disk's worth
REPLAY = "replay.sh"  # in a kept move's folder: runs the move again
SUBMITTED = "submitted"  # in a kept move's folder: the player's folder as submitted, which replay.sh plays
LEFT = "as-left"  # in a kept move's folder: the copy as the faulting move left it, never run
INSTALLATION = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # engine's parent
NOT_STATE = frozenset(("input.txt", "output.txt", "__pycache__"))  # the host's files and Python's cache in a copy


def cpu_budget_words(cpu_limit: float) -> str:
    """A program player's CPU budget a move in words, beside the course's."""
    if cpu_limit == COURSE_CPU_LIMIT:
        return f"each move held to {cpu_limit:g} s of CPU, the course's limit"
    return f"each move held to {cpu_limit:g} s of CPU, below the course's {COURSE_CPU_LIMIT:g} s"


class ProgramPlayer(Player):
    """A program speaking the course file protocol, run once per move in a private copy of its folder."""

    def __init__(
        self,
        directory: str,
        command: Optional[CommandLine] = None,
        cpu_limit: float = COURSE_CPU_LIMIT,
        spec: Optional[str] = None,
        wall_limit: Optional[float] = None,
        limits: Limits = DEFAULT_LIMITS,
        files: Optional[Dict[str, str]] = None,
        keep_faults: Optional[str] = None,
    ):
        """``command``: a shell command line (a user's own ``cmd:DIR::COMMAND``) or an argv list (a built
        agent's, which no file name can turn into options); default: this Python on ``my_player3.py``.
        ``files``: {name: text} written into each game's copy in place of the folder's own (a weights file).
        ``keep_faults``: a folder where each move that faults leaves its copy of the folder as the move saw it
        (``input.txt`` and all), its stderr and ``replay.sh`` to run it again (``MAX_KEPT`` at most)."""
        if not os.path.isdir(directory):
            raise InvalidInput(f"player directory {directory!r} does not exist")
        self.source = os.path.abspath(directory)
        self.command: CommandLine = command or [sys.executable, "my_player3.py"]
        self.cpu_limit = cpu_limit
        # A player that sleeps uses no CPU: past this much wall time it is killed.
        self.wall_limit = wall_limit or max(3 * cpu_limit, cpu_limit + 5)
        self.spec = spec or f"cmd:{directory}"
        self.limits = limits
        self.files = dict(files or {})
        self.keep_faults = keep_faults
        self.workspace: Optional[Workspace] = None  # the game's, from new_game to close
        self.workdir: Optional[str] = None  # the folder's copy in it, where the moves run
        self.box: Optional[gamebox.GameBox] = None  # the game's move server, where moves are served
        self.given: Dict[str, Tuple[int, int]] = {}  # the copy as the game began (``files_in``)

    def new_game(self, colour: Colour, seed: int) -> None:
        Player.new_game(self, colour, seed)
        self.close()
        # Each game a fresh sandbox, started while the previous game played: nothing of an earlier game reaches it.
        sandbox = spares.take(self.command, self.limits, self.cpu_limit, self.wall_limit)
        self.workspace, self.box = sandbox.workspace, sandbox.box
        self.workdir = self.workspace.folder
        try:
            copy_folder(self.source, self.workdir, self.limits.folder_mb * MIB)
        except (UntrustedFolderError, OSError) as error:
            workspace = self.workspace
            why: Union[str, Exception] = error
            if isinstance(error, OSError) and error.errno in DISK_FULL:  # HostError unless its own quota
                try:
                    why = workspace.host_write_failed("the copy of its folder", error)
                finally:
                    self.close()
            self.close()
            raise PlayerFault(Reason.CRASH, f"its folder cannot be copied: {why}")
        for name, text in self.files.items():
            path = os.path.join(self.workdir, name)
            if os.path.lexists(path):
                os.unlink(path)  # the folder's own file
            write_new(path, text)
        prepare_folder(self.workdir, self.limits, self.workspace.user)
        self.given = files_in(self.workdir)

    def close(self) -> None:
        if self.box:
            self.box.close()
        if self.workspace:
            self.workspace.close()
        self.workspace = self.workdir = self.box = None
        self.given = {}

    def left_files(self) -> List[str]:
        """The files this game's moves made or changed in its copy (paths in it, ascending), ``NOT_STATE``
        aside: the state an agent keeps between its moves, which the course's host leaves in its folder from
        one move of a game to the next; [] outside a game."""
        if self.workdir is None:
            return []
        return sorted(path for path, seen in files_in(self.workdir).items() if self.given.get(path) != seen)

    def _game(self) -> Tuple[Workspace, str]:
        """(the game's workspace, the folder's copy in it), from new_game to close."""
        assert self.workspace is not None and self.workdir is not None, "no game is on"
        return self.workspace, self.workdir

    def _stderr_path(self) -> str:
        return spares.stderr_path(self._game()[0])

    def _write_input(self, text: str) -> None:
        """``input.txt`` written into the copy for the next move; a PlayerFault where the agent filled its
        own workspace, HostError where the host's disk failed the write (no player is charged)."""
        workspace, workdir = self._game()
        try:
            write_new(os.path.join(workdir, "input.txt"), text)
        except OSError as error:
            if error.errno not in DISK_FULL:
                raise
            raise PlayerFault(Reason.CRASH, workspace.host_write_failed("input.txt", error))

    def move(self, position: Position) -> Move:
        return self.timed_move(position)[0]

    def timed_move(self, position: Position) -> Tuple[Move, float]:
        return self.answer(format_input(position.player, position.previous_string(), position.board_string()))

    def answer(self, text: str) -> Tuple[Move, float]:
        """(the move, its CPU seconds) the program answers to the ``input.txt`` of ``text``, in the game's copy;
        a PlayerFault where it faults (kept, with ``keep_faults``)."""
        try:
            return self._answer(text)
        except PlayerFault as fault:
            kept = self._keep(fault, text) if self.keep_faults and self.workdir else None
            if kept:
                fault.detail += f" (the move is kept in {kept}: sh {os.path.join(kept, REPLAY)} plays it again)"
                fault.args = (f"{fault.reason}: {fault.detail}",)
            raise

    def stderr_tail(self, limit: int) -> str:
        """The end of what the last move wrote on stderr, at most ``limit`` characters, shown safely."""
        return tail(self._stderr_path(), limit)

    def _keep(self, fault: PlayerFault, text: str) -> Optional[str]:
        """Where the faulting move was kept, or None (over ``MAX_KEPT``, or the copy failed: a fault is never
        hidden by its keeping): its ``input.txt`` (``text``, as the host wrote it) and stderr, the submitted
        folder (``SUBMITTED``: a copy of the player's own, its ``files`` written in) and the replay script that
        plays that folder on that input in littlego's sandbox; the copy as the move left it (``LEFT``) only
        to be read, since the agent wrote there what it liked."""
        folder, (_, workdir) = self.keep_faults, self._game()
        assert folder is not None  # asked for
        try:
            os.makedirs(folder, exist_ok=True)
            if len(os.listdir(folder)) >= MAX_KEPT:
                return None
            kept = tempfile.mkdtemp(prefix="fault-", dir=folder)
            write_new(os.path.join(kept, "input.txt"), text)
            submitted = os.path.join(kept, SUBMITTED)
            copy_folder(self.source, submitted, self.limits.folder_mb * MIB)
            for name, content in self.files.items():
                path = os.path.join(submitted, name)
                if os.path.lexists(path):
                    os.unlink(path)
                write_new(path, content)
            stderr = self._stderr_path()
            if os.path.isfile(stderr):
                shutil.copyfile(stderr, os.path.join(kept, "stderr.txt"))
            try:
                copy_folder(workdir, os.path.join(kept, LEFT), self.limits.folder_mb * MIB)
            except (OSError, UntrustedFolderError) as error:  # what the agent left is for reading: not needed
                write_new(os.path.join(kept, LEFT + ".txt"), f"the copy as the move left it was not kept: {error}\n")
            with open(os.path.join(kept, REPLAY), "w") as script:
                script.write(self._replay_script(fault))
            return kept
        except (OSError, UntrustedFolderError):
            return None

    def _replay_script(self, fault: PlayerFault) -> str:
        """The text of ``REPLAY``: the submitted folder on the kept input.txt, one move, in littlego's sandbox
        under this player's limits (``littlego move``); its arguments after them (``--sandbox off``)."""
        limits = self.limits
        words = [sys.executable, "-m", "engine.cli.littlego", "move"]
        if self.command != [sys.executable, "my_player3.py"]:  # the default: this Python on my_player3.py
            command = self.command if isinstance(self.command, str) else " ".join(map(shlex.quote, self.command))
            words += ["--command", command]
        words += ["--cpu-limit", repr(self.cpu_limit)]
        words += ["--memory", str(limits.memory_mb), "--processes", str(limits.processes)]
        words += ["--file-size", str(limits.file_mb), "--folder-size", str(limits.folder_mb), "--sandbox", "strict"]
        return (
            f"#!/bin/sh\n# {excerpt(self.spec, 200)}: {fault.reason}: {excerpt(fault.detail, 1000)}\n"
            f"# The move again: {SUBMITTED}/ (the folder as submitted) on the input.txt the move was given, in a\n"
            "# copy of its own in littlego's sandbox, as a game's move runs. Where bubblewrap cannot isolate it,\n"
            "# sh replay.sh --sandbox off runs it outside the sandbox, with the limits alone (as you: root, maybe).\n"
            f"# {LEFT}/ is the copy as the faulting move left it (whatever the agent wrote there): to read, not run.\n"
            'here="$(dirname "$0")"\n'
            f"PYTHONPATH={shlex.quote(INSTALLATION)}${{PYTHONPATH:+:$PYTHONPATH}}; export PYTHONPATH  # littlego's\n"
            f'exec {" ".join(map(shlex.quote, words))} "$here/{SUBMITTED}" "$here/input.txt" "$@"\n'
        )

    def _answer(self, text: str) -> Tuple[Move, float]:
        _, workdir = self._game()
        for name in ("input.txt", "output.txt"):
            try:
                os.unlink(os.path.join(workdir, name))
            except FileNotFoundError:
                pass
            except OSError as error:  # a folder the agent put there
                raise PlayerFault(Reason.BAD_OUTPUT, f"{name} cannot be replaced: {error.strerror}")
        self._write_input(text)
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
        output = os.path.join(workdir, "output.txt")
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
            raise PlayerFault(Reason.BAD_OUTPUT, cast(str, error.strerror))  # its __init__ always says why
        except OutputFormatError as error:
            raise PlayerFault(Reason.BAD_OUTPUT, str(error))
        except OSError as error:
            raise PlayerFault(Reason.BAD_OUTPUT, f"output.txt cannot be read: {error.strerror or error}")
        if move == PASS:
            return PASS, cpu
        if not on_board(*move):
            raise PlayerFault(Reason.ILLEGAL, "{},{} is off the board".format(*move))
        return to_point(*move), cpu

    def _run_move(self, stderr_path: str) -> Finished:
        """A Finished: the move run in the game's sandbox where its moves are served, else in its own."""
        _, workdir = self._game()
        try:
            if self.box:
                if os.path.exists(stderr_path):
                    os.truncate(stderr_path, 0)  # the tail shown in a fault is this move's
                finished = self.box.run_move()
                if finished is not None:
                    return finished
                self.box = None  # no namespaces for moves here: a sandbox a move from now on
            workspace = self._game()[0]
            argv = wrap(self.command, workdir, self.limits, workspace.user, workspace.scratch)
        except SandboxError as error:
            raise PlayerFault(Reason.CRASH, str(error))
        with open(stderr_path, "wb") as stderr:
            try:
                return run(argv, workdir, self.limits, self.cpu_limit, self.wall_limit, stderr=stderr)
            except OSError as error:  # no such program (without the sandbox, an argv runs directly)
                raise PlayerFault(
                    Reason.CRASH,
                    "cannot start {}: {}".format(
                        excerpt(self.command if isinstance(self.command, str) else " ".join(self.command), 100),
                        error.strerror or error,
                    ),
                )


def files_in(folder: str) -> Dict[str, Tuple[int, int]]:
    """{path in ``folder``: (size, modification time in ns)} of every entry but a folder (a link as itself,
    never followed), ``NOT_STATE`` aside, at most FOLDER_ENTRIES of them: a copy as a move found or left it."""
    found: Dict[str, Tuple[int, int]] = {}
    pending = [""]
    while pending and len(found) < FOLDER_ENTRIES:
        inner = pending.pop()
        try:
            entries = list(os.scandir(os.path.join(folder, inner)))
        except OSError:  # a folder the agent made unreadable: nothing of it is seen
            continue
        for entry in entries[:FOLDER_ENTRIES]:
            path = os.path.join(inner, entry.name)
            if entry.name in NOT_STATE:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(path)
                else:
                    info = entry.stat(follow_symlinks=False)
                    found[path] = (info.st_size, info.st_mtime_ns)
            except OSError:
                continue
    return found


_SIGNAL_MEANING: Dict[int, str] = {
    signal.SIGXFSZ: "over the file size limit",
    signal.SIGXCPU: "over the CPU limit",
    signal.SIGKILL: "killed",
    signal.SIGSEGV: "a memory fault",
}


def _describe_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        meaning = _SIGNAL_MEANING.get(number)
        return "signal {}{}".format(number, f" ({meaning})" if meaning else "")
    code = os.WEXITSTATUS(status)
    meaning = _SIGNAL_MEANING.get(code - 128)  # the sandbox reports a signal as 128 + its number
    return "status {}{}".format(code, f" (signal {code - 128} in the sandbox: {meaning})" if meaning else "")
