"""A course-compatible host: games played as the course plays them.

Program players are run as the course runs them: a fresh process per move in the
player's directory, ``input.txt`` written the course way, ``output.txt`` read the
course way. A move over the CPU limit (user + sys, as ``time`` counts it), a crash,
a missing or unparsable ``output.txt`` or an illegal move loses the game, and the
record says which and why. The host never crashes on a bad player and kills one
that hangs.
"""

import math
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import namedtuple

from engine.bitboard import count
from engine.constants import BLACK, WHITE, PASS, NUM_POINTS, opponent
from engine.coords import move_to_text, move_from_public
from engine.playout import random_point
from engine.players import Player, PlayerFault
from engine.position import Position, IllegalMove
from engine.protocol import write_input, read_output

DEFAULT_CPU_LIMIT = 10.0
REASONS = ("end", "illegal", "timeout", "crash", "bad-output")

GameRecord = namedtuple("GameRecord", "black white winner reason detail moves black_stones white_stones cpu")
GameRecord.__doc__ = """One game: specs, winner colour, how it ended (one of REASONS) and why,
the moves as course text, final stones, and CPU seconds per move as (colour, seconds)."""


# Version control, caches and evolution runs are no part of a player: not copied per game.
_NOT_COPIED = shutil.ignore_patterns(".git", "__pycache__", ".hypothesis", ".pytest_cache", "runs", "*.egg-info")


class ProgramPlayer(Player):
    """A program speaking the course file protocol, run once per move in a private copy of its folder."""

    def __init__(self, directory, command=None, cpu_limit=DEFAULT_CPU_LIMIT, spec=None, wall_limit=None):
        if not os.path.isdir(directory):
            raise ValueError("player directory {!r} does not exist".format(directory))
        self.source = os.path.abspath(directory)
        self.command = command or "{} my_player3.py".format(sys.executable)
        self.cpu_limit = cpu_limit
        # A player that sleeps uses no CPU: past this much wall time it is killed.
        self.wall_limit = wall_limit or max(3 * cpu_limit, cpu_limit + 5)
        self.spec = spec or "cmd:{}".format(directory)
        self.workdir = None

    def new_game(self, colour, seed):
        Player.new_game(self, colour, seed)
        self.close()
        self.workdir = tempfile.mkdtemp(prefix="littlego-player-")
        shutil.copytree(self.source, os.path.join(self.workdir, "play"), symlinks=True, ignore=_NOT_COPIED)
        self.workdir = os.path.join(self.workdir, "play")

    def close(self):
        if self.workdir:
            shutil.rmtree(os.path.dirname(self.workdir), ignore_errors=True)
            self.workdir = None

    def _limit_cpu(self):
        # The kernel stops a runaway at the limit plus a second; the host judges the exact figure.
        seconds = int(math.ceil(self.cpu_limit)) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
        os.setsid()

    def timed_move(self, position):
        for name in ("input.txt", "output.txt"):
            try:
                os.unlink(os.path.join(self.workdir, name))
            except OSError:
                pass
        write_input(os.path.join(self.workdir, "input.txt"), position.player,
                    position.previous_string(), position.board_string())
        stderr_path = os.path.join(os.path.dirname(self.workdir), "stderr.txt")
        with open(stderr_path, "wb") as stderr:
            process = subprocess.Popen(self.command, shell=True, cwd=self.workdir, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=stderr, preexec_fn=self._limit_cpu)
        wall_limit = self.wall_limit
        started = time.monotonic()
        status = usage = None
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                process.returncode = status
                break
            if time.monotonic() - started > wall_limit:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except OSError:
                    pass
                _, status, usage = os.wait4(process.pid, 0)
                process.returncode = status
                raise PlayerFault("timeout", "no answer in {:.0f} s of wall time (killed)".format(wall_limit))
            time.sleep(0.002)
        cpu = usage.ru_utime + usage.ru_stime
        if cpu > self.cpu_limit or (os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL)
                                    and cpu >= self.cpu_limit):
            raise PlayerFault("timeout", "{:.2f} s of CPU, over the {:.1f} s limit".format(cpu, self.cpu_limit))
        output = os.path.join(self.workdir, "output.txt")
        if not os.path.exists(output):
            if os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0:
                raise PlayerFault("crash", "exited with {} and wrote no output.txt: {}".format(
                    _describe_status(status), _tail(stderr_path)))
            raise PlayerFault("bad-output", "no output.txt")
        try:
            move = read_output(output)
        except (ValueError, OSError) as error:
            raise PlayerFault("bad-output", str(error))
        return move, cpu


def _describe_status(status):
    if os.WIFSIGNALED(status):
        return "signal {}".format(os.WTERMSIG(status))
    return "status {}".format(os.WEXITSTATUS(status))


def _tail(path, limit=300):
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return text[-limit:].replace("\n", " | ")


def _as_point(move):
    """Players answer a flat point or PASS; program players an (i, j) pair read from output.txt."""
    if isinstance(move, tuple):
        return move_from_public(move)
    if move != PASS and not (isinstance(move, int) and 0 <= move < NUM_POINTS):
        raise ValueError("not a point: {!r}".format(move))
    return move


def random_opening(plies, seed):
    """The position after ``plies`` uniformly random legal placements, reproducibly from ``seed``."""
    rng = random.Random(seed)
    position = Position.initial()
    moves = []
    for _ in range(plies):
        if position.is_over:
            break
        point = random_point(position, rng)
        moves.append(point)
        position = position.play_point(point)
    return position, moves


def play_game(black, white, seed=0, opening_plies=0, opening_seed=None, cpu_limit=DEFAULT_CPU_LIMIT):
    """Play one game between two players; a GameRecord. Never raises for a player's fault.

    The first ``opening_plies`` plies are random placements drawn from ``opening_seed``
    (default ``seed``), so a colour-swapped pair of games can share an opening.
    """
    position, opening = random_opening(opening_plies, seed if opening_seed is None else opening_seed)
    moves = [move_to_text(m) for m in opening]
    players = {BLACK: black, WHITE: white}
    cpu = []
    black.new_game(BLACK, seed * 2 + 1)
    white.new_game(WHITE, seed * 2 + 2)
    reason, detail, loser = "end", "", None
    try:
        while not position.is_over:
            mover = position.player
            try:
                move, seconds = players[mover].timed_move(position)
            except PlayerFault as fault:
                reason, detail, loser = fault.reason, fault.detail, mover
                break
            except Exception as error:      # an in-process player's bug loses its game only
                reason, detail, loser = "crash", "{}: {}".format(type(error).__name__, error), mover
                break
            cpu.append((mover, seconds))
            if seconds > cpu_limit:
                reason, detail, loser = "timeout", "{:.2f} s of CPU".format(seconds), mover
                break
            try:
                point = _as_point(move)
                position = position.play_point(point)
            except (IllegalMove, ValueError, IndexError, TypeError) as error:
                reason, detail, loser = "illegal", "{!r}: {}".format(move, error), mover
                break
            moves.append(move_to_text(point))
    finally:
        black.close()
        white.close()
    winner = opponent(loser) if loser else position.winner
    return GameRecord(black.spec, white.spec, winner, reason,
                      "{} {}".format("Black" if loser == BLACK else "White", detail) if loser else "",
                      moves, count(position.black), count(position.white), cpu)
