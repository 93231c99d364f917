"""Any engine speaking GTP (the Go Text Protocol, version 2) as a player, and GTP's vertices.

``GtpClient`` drives another engine over a pipe, with a wall-clock limit on every answer;
``GtpPlayer`` makes it a player (``gtp:COMMAND``; GNU Go is one case of it), its answers
judged by our rules like anyone's. Vertices (``C3``) convert to and from points here.
"""

import os
import select
import shlex
import shutil
import subprocess
import time
from typing import Callable, List, Optional, Tuple

from engine.bitboard import points_of
from engine.constants import BLACK, BOARD_SIZE, KOMI, PASS, Colour, Move, colour_word, opponent
from engine.errors import InvalidInput
from engine.players.base import Player, PlayerFault, Reason
from engine.position import IllegalMove, Position

VERTEX_COLUMNS = "ABCDEFGHJKLMNOPQRST"[:BOARD_SIZE]  # GTP skips the letter I


class GtpError(Exception):
    """A command that fails: the engine answers ``? message``."""


def point_to_vertex(move: Move) -> str:
    """GTP vertex of a point (columns from A, skipping I; rows counted from the bottom), or ``pass``."""
    if move == PASS:
        return "pass"
    i, j = divmod(move, BOARD_SIZE)
    return f"{VERTEX_COLUMNS[j]}{BOARD_SIZE - i}"


def vertex_to_point(text: str) -> Move:
    """Point or PASS of a GTP vertex (any case); ValueError naming the text when it is not one on this board."""
    word = text.strip().upper()
    if word == "PASS":
        return PASS
    if len(word) >= 2 and word[0] in VERTEX_COLUMNS and word[1:].isdigit() and 1 <= int(word[1:]) <= BOARD_SIZE:
        return BOARD_SIZE * (BOARD_SIZE - int(word[1:])) + VERTEX_COLUMNS.index(word[0])
    raise InvalidInput(
        f"{text!r} is not a vertex of the {BOARD_SIZE}x{BOARD_SIZE} board "
        f"(A1 to {VERTEX_COLUMNS[-1]}{BOARD_SIZE}, or pass)"
    )


class GtpClient:
    """Another GTP engine over a pipe; every answer within ``wall_limit`` seconds or a TIMEOUT fault."""

    def __init__(self, argv: List[str], wall_limit: float = 60.0):
        self.argv = argv
        self.wall_limit = wall_limit
        try:
            self.process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True
            )
        except OSError as error:
            raise PlayerFault(Reason.CRASH, "cannot start {!r}: {}".format(" ".join(argv), error.strerror or error))
        self.buffer = b""

    def command(self, line: str) -> str:
        """The result of one command; GtpError for a ``?`` answer, PlayerFault if the engine dies or hangs."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None  # both are pipes
        try:
            stdin.write((line + "\n").encode("utf-8"))
            stdin.flush()
        except OSError as error:
            raise PlayerFault(Reason.CRASH, f"the engine stopped reading ({error.strerror or error}) at {line!r}")
        deadline = time.monotonic() + self.wall_limit
        while b"\n\n" not in self.buffer.replace(b"\r", b""):
            left = deadline - time.monotonic()
            if left <= 0:
                raise PlayerFault(Reason.TIMEOUT, f"no answer to {line!r} in {self.wall_limit:.0f} s of wall time")
            ready, _, _ = select.select([stdout], [], [], left)
            if ready:
                chunk = os.read(stdout.fileno(), 65536)
                if not chunk:
                    raise PlayerFault(Reason.CRASH, f"the engine closed its output after {line!r}")
                self.buffer += chunk
        self.buffer = self.buffer.replace(b"\r", b"")
        answer, self.buffer = self.buffer.split(b"\n\n", 1)
        text = answer.decode("utf-8", "replace").strip()
        if text.startswith("="):
            return text[1:].lstrip("0123456789").strip()
        if text.startswith("?"):
            raise GtpError(text[1:].lstrip("0123456789").strip())
        raise PlayerFault(Reason.BAD_OUTPUT, f"not a GTP answer to {line!r}: {text[:100]!r}")

    def cpu_seconds(self) -> float:
        """CPU seconds the engine has used so far (from /proc; 0 where that is not available)."""
        try:
            with open(f"/proc/{self.process.pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return 0.0

    def close(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None  # a pipe
        try:
            stdin.write(b"quit\n")
            stdin.flush()
            self.process.wait(timeout=5)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


class GtpPlayer(Player):
    """Any GTP engine as a player: one process per game, kept in step with the game move by move.

    ``argv_for_seed(seed)`` gives the command line of a game (GNU Go takes its seed there).
    The engine is told each move it did not make; when it cannot be (the first move of a game
    from a random opening) the board is set up by alternating plays. A resignation counts as
    a pass, as the course has no resignation.
    """

    def __init__(self, argv_for_seed: Callable[[int], List[str]], spec: str, wall_limit: float = 60.0):
        self.argv_for_seed = argv_for_seed
        self.spec = spec
        self.wall_limit = wall_limit
        self.client: Optional[GtpClient] = None
        self.shown: Optional[Position] = None  # the position the engine knows

    def new_game(self, colour: Colour, seed: int) -> None:
        Player.new_game(self, colour, seed)
        self.close()
        self.client = GtpClient(self.argv_for_seed(seed), self.wall_limit)
        for line in (f"boardsize {BOARD_SIZE}", "clear_board", f"komi {KOMI}"):
            self._ask(line)
        self.shown = Position.initial()

    def _ask(self, line: str) -> str:
        assert self.client is not None  # a game is on
        try:
            return self.client.command(line)
        except GtpError as error:
            raise PlayerFault(Reason.BAD_OUTPUT, f"{line!r} answered ? {error}")

    def _sync(self, position: Position) -> None:
        """Tell the engine the moves since it last knew the game, or set the board up anew."""
        if self.shown is not None and self.shown.moves_played + 1 == position.moves_played:
            moves: List[Move] = [*points_of(self.shown.legal_mask()), PASS]
            for move in moves:
                if self.shown.play_point(move) == position:
                    self._ask(f"play {colour_word(self.shown.player)} {point_to_vertex(move)}")
                    return
        if self.shown == position:
            return
        self._ask("clear_board")
        black, white = points_of(position.black), points_of(position.white)
        colour = BLACK
        while black or white or colour != position.player:
            stones = black if colour == BLACK else white
            vertex = point_to_vertex(stones.pop(0)) if stones else "pass"
            self._ask(f"play {colour_word(colour)} {vertex}")
            colour = opponent(colour)

    def timed_move(self, position: Position) -> Tuple[Move, float]:
        assert self.client is not None  # a game is on
        before = self.client.cpu_seconds()
        self._sync(position)
        answer = self._ask(f"genmove {colour_word(position.player)}")
        seconds = self.client.cpu_seconds() - before
        move: Move
        if answer.strip().lower() == "resign":
            move = PASS
        else:
            try:
                move = vertex_to_point(answer)
            except ValueError:
                raise PlayerFault(Reason.BAD_OUTPUT, f"genmove answered {answer!r}")
        try:
            self.shown = position.play_point(move)
        except IllegalMove:
            self.shown = None  # the host judges it; the game ends there
        return move, seconds

    def move(self, position: Position) -> Move:
        return self.timed_move(position)[0]

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None


def gtp_player(command: str, spec: Optional[str] = None, wall_limit: float = 60.0) -> GtpPlayer:
    """A GtpPlayer for a command line (``littlego gtp --player handset@4``); ValueError when it cannot run."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise InvalidInput("player {!r}: {}".format(spec or "gtp:" + command, error))
    if not argv:
        raise InvalidInput("player {!r}: expected gtp:COMMAND".format(spec or "gtp:"))
    if shutil.which(argv[0]) is None:
        raise InvalidInput("player {!r}: {!r} is not a program on the PATH".format(spec or "gtp:" + command, argv[0]))
    return GtpPlayer(lambda seed: argv, spec or "gtp:" + command, wall_limit)
