"""Any course agent as a player, run as the course runs it.

A fresh process per move in a private copy of the player's folder, ``input.txt``
written the course way, ``output.txt`` read the course way. A move over the CPU limit
(user + sys, as ``time`` counts it), a crash, a missing or unparsable ``output.txt`` or a
point off the board is a ``PlayerFault`` naming the reason; a player that hangs is killed.
"""

import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from engine.constants import COURSE_CPU_LIMIT, PASS
from engine.coords import on_board, to_point
from engine.players.host import OutputFormatError, write_input, read_output
from engine.players.base import Player, PlayerFault, Reason
from engine.players.sandbox import DEFAULT_LIMITS, SandboxError, prepare_folder, starter, wrap

# Version control, caches and evolution runs are no part of a player: not copied per game.
NOT_COPIED = shutil.ignore_patterns(".git", "__pycache__", ".hypothesis", ".pytest_cache", "runs", "*.egg-info")


class ProgramPlayer(Player):
    """A program speaking the course file protocol, run once per move in a private copy of its folder."""

    def __init__(self, directory, command=None, cpu_limit=COURSE_CPU_LIMIT, spec=None, wall_limit=None,
                 limits=DEFAULT_LIMITS):
        if not os.path.isdir(directory):
            raise ValueError("player directory {!r} does not exist".format(directory))
        self.source = os.path.abspath(directory)
        self.command = command or "{} my_player3.py".format(sys.executable)
        self.cpu_limit = cpu_limit
        # A player that sleeps uses no CPU: past this much wall time it is killed.
        self.wall_limit = wall_limit or max(3 * cpu_limit, cpu_limit + 5)
        self.spec = spec or "cmd:{}".format(directory)
        self.limits = limits
        self.workdir = None

    def new_game(self, colour, seed):
        Player.new_game(self, colour, seed)
        self.close()
        self.workdir = tempfile.mkdtemp(prefix="littlego-player-")
        shutil.copytree(self.source, os.path.join(self.workdir, "play"), symlinks=True, ignore=NOT_COPIED)
        self.workdir = os.path.join(self.workdir, "play")
        prepare_folder(self.workdir, self.limits)

    def close(self):
        if self.workdir:
            shutil.rmtree(os.path.dirname(self.workdir), ignore_errors=True)
            self.workdir = None

    def move(self, position):
        return self.timed_move(position)[0]

    def timed_move(self, position):
        for name in ("input.txt", "output.txt"):
            try:
                os.unlink(os.path.join(self.workdir, name))
            except OSError:
                pass
        write_input(os.path.join(self.workdir, "input.txt"), position.player,
                    position.previous_string(), position.board_string())
        stderr_path = os.path.join(os.path.dirname(self.workdir), "stderr.txt")
        try:
            argv = wrap(self.command, self.workdir, self.limits)
        except SandboxError as error:
            raise PlayerFault(Reason.CRASH, str(error))
        # The kernel stops a runaway at the limit plus a second; the host judges the exact figure.
        start = starter(self.limits, int(math.ceil(self.cpu_limit)) + 1)
        with open(stderr_path, "wb") as stderr:
            process = subprocess.Popen(argv, cwd=self.workdir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=stderr, preexec_fn=start)
        wall_limit = self.wall_limit
        started = time.monotonic()
        status = usage = None
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                process.returncode = status
                _end_group(process.pid)          # what the move left running ends with it
                break
            if time.monotonic() - started > wall_limit:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except OSError:
                    pass
                _, status, usage = os.wait4(process.pid, 0)
                process.returncode = status
                raise PlayerFault(Reason.TIMEOUT, "no answer in {:.0f} s of wall time (killed)".format(wall_limit))
            time.sleep(0.002)
        cpu = usage.ru_utime + usage.ru_stime
        if cpu > self.cpu_limit or (os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL)
                                    and cpu >= self.cpu_limit):
            raise PlayerFault(Reason.TIMEOUT, "{:.2f} s of CPU, over the {:.1f} s limit".format(cpu, self.cpu_limit))
        output = os.path.join(self.workdir, "output.txt")
        if not os.path.exists(output):
            if os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0:
                raise PlayerFault(Reason.CRASH, "exited with {} and wrote no output.txt: {}".format(
                    _describe_status(status), _tail(stderr_path)))
            raise PlayerFault(Reason.BAD_OUTPUT, "no output.txt")
        try:
            move = read_output(output)
        except (OutputFormatError, OSError) as error:
            raise PlayerFault(Reason.BAD_OUTPUT, str(error))
        if move == PASS:
            return PASS, cpu
        if not on_board(*move):
            raise PlayerFault(Reason.ILLEGAL, "{},{} is off the board".format(*move))
        return to_point(*move), cpu


_SIGNAL_MEANING = {signal.SIGXFSZ: "over the file size limit", signal.SIGXCPU: "over the CPU limit",
                   signal.SIGKILL: "killed", signal.SIGSEGV: "a memory fault"}


def _end_group(group):
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass


def _describe_status(status):
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        meaning = _SIGNAL_MEANING.get(number)
        return "signal {}{}".format(number, " ({})".format(meaning) if meaning else "")
    code = os.WEXITSTATUS(status)
    meaning = _SIGNAL_MEANING.get(code - 128)         # the sandbox reports a signal as 128 + its number
    return "status {}{}".format(code, " (signal {} in the sandbox: {})".format(code - 128, meaning) if meaning else "")


def _tail(path, limit=300):
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return text[-limit:].replace("\n", " | ")
