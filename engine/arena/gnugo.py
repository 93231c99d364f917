"""GNU Go as a player, over GTP (``gnugo --mode gtp``).

For each move GNU Go is shown the position: the mover's previous board, then the
opponent's last move played on it (so GNU Go knows a KO as the judge does), or the
current board alone when that cannot be told. Its answer is judged by our rules like
anyone's; a resignation counts as a pass.
"""

import os
import shutil
import subprocess

from engine.bitboard import points_of
from engine.constants import BLACK, BOARD_SIZE, KOMI, PASS
from engine.arena.players import Player, PlayerFault, CRASH, BAD_OUTPUT

GNUGO = "/usr/games/gnugo"
MAX_LEVEL = 10
_COLUMNS = "ABCDEFGHJ"[:BOARD_SIZE]          # GTP skips the letter I


def gnugo_path():
    """The GNU Go binary, or None when it is not installed."""
    if os.path.exists(GNUGO):
        return GNUGO
    return shutil.which("gnugo")


def to_vertex(point):
    """GTP vertex of a flat point (columns A.., rows counted from the bottom)."""
    i, j = divmod(point, BOARD_SIZE)
    return "{}{}".format(_COLUMNS[j], BOARD_SIZE - i)


def from_vertex(text):
    """Flat point or PASS from a GTP vertex; resign counts as PASS."""
    text = text.strip().upper()
    if text in ("PASS", "RESIGN"):
        return PASS
    column, row = _COLUMNS.index(text[0]), int(text[1:])
    return BOARD_SIZE * (BOARD_SIZE - row) + column


class GnuGoPlayer(Player):
    """GNU Go at a level (0..MAX_LEVEL; its default when None), one GTP process per game."""

    def __init__(self, level=None, spec=None):
        self.binary = gnugo_path()
        if not self.binary:
            raise ValueError("GNU Go is not installed (apt-get install gnugo)")
        self.level = level
        self.spec = spec or ("gnugo" if level is None else "gnugo:{}".format(level))
        self.process = None

    def new_game(self, colour, seed):
        Player.new_game(self, colour, seed)
        self.close()
        command = [self.binary, "--mode", "gtp", "--seed", str(seed % 2 ** 31 or 1)]
        if self.level is not None:
            command += ["--level", str(self.level)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, universal_newlines=True)
        self._command("boardsize {}".format(BOARD_SIZE))
        self._command("komi {}".format(KOMI))

    def _command(self, line):
        """Send one GTP command; (ok, answer)."""
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
            lines = []
            while True:
                reply = self.process.stdout.readline()
                if not reply:
                    raise PlayerFault(CRASH, "GNU Go closed its output after {!r}".format(line))
                if reply.strip() == "" and lines:
                    break
                if reply.strip():
                    lines.append(reply.strip())
        except (OSError, ValueError) as error:
            raise PlayerFault(CRASH, "GNU Go: {}".format(error))
        answer = " ".join(lines)
        return answer.startswith("="), answer[1:].strip()

    def _set_up(self, black, white):
        self._command("clear_board")
        for colour, stones in (("black", black), ("white", white)):
            for point in points_of(stones):
                ok, answer = self._command("play {} {}".format(colour, to_vertex(point)))
                if not ok:
                    return False
        return True

    def _show(self, position):
        mover_black = position.player == BLACK
        prev_black, prev_white = ((position.prev_own, position.prev_opp) if mover_black
                                  else (position.prev_opp, position.prev_own))
        new_opponent_stones = position.opp & ~(position.prev_opp | position.prev_own)
        single = new_opponent_stones and not new_opponent_stones & (new_opponent_stones - 1)
        if single and self._set_up(prev_black, prev_white):
            last = points_of(new_opponent_stones)[0]
            colour = "white" if mover_black else "black"
            ok, _ = self._command("play {} {}".format(colour, to_vertex(last)))
            if ok and self._board_matches(position):
                return
        self._set_up(position.black, position.white)

    def _board_matches(self, position):
        ok, black = self._command("list_stones black")
        ok2, white = self._command("list_stones white")
        as_mask = lambda text: sum(1 << from_vertex(v) for v in text.split())
        return ok and ok2 and as_mask(black) == position.black and as_mask(white) == position.white

    def timed_move(self, position):
        before = self._cpu()
        self._show(position)
        ok, answer = self._command("genmove {}".format("black" if position.player == BLACK else "white"))
        if not ok:
            raise PlayerFault(BAD_OUTPUT, "GNU Go answered {!r}".format(answer))
        try:
            move = from_vertex(answer)
        except (ValueError, IndexError):
            raise PlayerFault(BAD_OUTPUT, "GNU Go answered {!r}".format(answer))
        return move, self._cpu() - before

    def move(self, position):
        return self.timed_move(position)[0]

    def _cpu(self):
        """CPU seconds GNU Go has used so far (from /proc; 0 where that is not available)."""
        try:
            with open("/proc/{}/stat".format(self.process.pid)) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return 0.0

    def close(self):
        if self.process is not None:
            try:
                self.process.stdin.write("quit\n")
                self.process.stdin.flush()
                self.process.wait(timeout=5)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
            self.process = None
