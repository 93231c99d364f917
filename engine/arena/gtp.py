"""GTP, the Go Text Protocol (version 2), both ways, under Little-Go rules.

Reading guide: vertices (``C3``) convert to and from points here. ``GtpEngine`` is the
engine side, ``littlego gtp``: it keeps the game (with undo), plays any player spec on
``genmove`` and judges every ``play`` by our rules. ``GtpClient`` drives another engine
over a pipe, with a wall-clock limit on every answer; ``GtpPlayer`` makes any GTP engine
a player (``gtp:COMMAND``; GNU Go is one case of it), judged by our rules like anyone.
"""

import os
import select
import shlex
import shutil
import subprocess
import sys
import time

from engine.bitboard import points_of
from engine.constants import BLACK, BOARD_SIZE, KOMI, MAX_MOVES, PASS, WHITE
from engine.position import IllegalMove, Position
from engine.arena.players import BAD_OUTPUT, CRASH, TIMEOUT, Player, PlayerFault
from engine.arena.sgf import SgfError, game_sgf, read_game, result_text

COLUMNS = "ABCDEFGHJKLMNOPQRST"[:BOARD_SIZE]       # GTP skips the letter I
PROTOCOL_VERSION = "2"
ENGINE_NAME = "littlego"
ENGINE_VERSION = "0.1.0"
_COLOUR_WORDS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}


def point_to_vertex(move):
    """GTP vertex of a point (columns from A, skipping I; rows counted from the bottom), or ``pass``."""
    if move == PASS:
        return "pass"
    i, j = divmod(move, BOARD_SIZE)
    return "{}{}".format(COLUMNS[j], BOARD_SIZE - i)


def vertex_to_point(text):
    """Point or PASS of a GTP vertex (any case); ValueError naming the text when it is not one on this board."""
    word = text.strip().upper()
    if word == "PASS":
        return PASS
    if len(word) >= 2 and word[0] in COLUMNS and word[1:].isdigit() and 1 <= int(word[1:]) <= BOARD_SIZE:
        return BOARD_SIZE * (BOARD_SIZE - int(word[1:])) + COLUMNS.index(word[0])
    raise ValueError("{!r} is not a vertex of the {}x{} board (A1 to {}{}, or pass)".format(
        text, BOARD_SIZE, BOARD_SIZE, COLUMNS[-1], BOARD_SIZE))


def colour_word(colour):
    return "black" if colour == BLACK else "white"


# -- the engine side ---------------------------------------------------------------------------------

class GtpError(Exception):
    """A command that fails: the engine answers ``? message``."""


def preprocess(line):
    """A GTP line as the spec reads it: control characters dropped (tabs become spaces), comments cut."""
    line = "".join(" " if c == "\t" else c for c in line if c == "\t" or ord(c) >= 32 and ord(c) != 127)
    return line.split("#", 1)[0].strip()


class GtpEngine(object):
    """A Little-Go game behind GTP commands, ``genmove`` answered by a player."""

    def __init__(self, player, seed=1):
        self.player = player
        self.seed = seed
        self.komi = KOMI
        self.quit = False
        self._commands = dict((name[4:], getattr(self, name)) for name in dir(self) if name.startswith("cmd_"))
        self._new_game()

    def _new_game(self):
        self.positions = [Position.initial()]
        self.moves = []
        self.player.new_game(BLACK, self.seed)
        self.seed += 1

    @property
    def position(self):
        return self.positions[-1]

    def handle(self, line):
        """The full response to one input line (with its blank line), or None for a line GTP ignores."""
        line = preprocess(line)
        if not line:
            return None
        words = line.split()
        ident = ""
        if words[0].isdigit():
            ident = words.pop(0)
            if not words:
                return "?{} no command\n\n".format(ident)
        name, arguments = words[0], words[1:]
        command = self._commands.get(name)
        try:
            if command is None:
                raise GtpError("unknown command")
            result = command(arguments)
        except GtpError as error:
            return "?{} {}\n\n".format(ident, error)
        except Exception as error:            # the engine never dies on input
            return "?{} internal error: {}: {}\n\n".format(ident, type(error).__name__, error)
        return "={}{}\n\n".format(ident, " " + result if result else "")

    # -- the required commands ------------------------------------------------------------------------
    def cmd_protocol_version(self, arguments):
        return PROTOCOL_VERSION

    def cmd_name(self, arguments):
        return ENGINE_NAME

    def cmd_version(self, arguments):
        return "{} (player {})".format(ENGINE_VERSION, self.player.spec)

    def cmd_known_command(self, arguments):
        return "true" if len(arguments) == 1 and arguments[0] in self._commands else "false"

    def cmd_list_commands(self, arguments):
        return "\n".join(sorted(self._commands))

    def cmd_quit(self, arguments):
        self.quit = True
        return ""

    def cmd_boardsize(self, arguments):
        size = self._integer(arguments, "boardsize SIZE")
        if size != BOARD_SIZE:
            raise GtpError("unacceptable size (Little-Go is played on {}x{})".format(BOARD_SIZE, BOARD_SIZE))
        self._new_game()
        return ""

    def cmd_clear_board(self, arguments):
        self._new_game()
        return ""

    def cmd_komi(self, arguments):
        if len(arguments) != 1:
            raise GtpError("syntax error: komi VALUE")
        try:
            self.komi = float(arguments[0])
        except ValueError:
            raise GtpError("syntax error: komi {!r} is not a number".format(arguments[0]))
        return ""          # accepted; Little-Go's scoring keeps its komi of 2.5 (see final_score)

    def cmd_play(self, arguments):
        if len(arguments) != 2:
            raise GtpError("syntax error: play COLOUR VERTEX")
        colour, move = self._colour(arguments[0]), self._vertex(arguments[1])
        self._turn(colour)
        try:
            self._push(move)
        except IllegalMove as error:
            raise GtpError("illegal move: {}".format(error))
        return ""

    def cmd_genmove(self, arguments):
        if len(arguments) != 1:
            raise GtpError("syntax error: genmove COLOUR")
        colour = self._colour(arguments[0])
        if self.position.is_over:
            return "pass"              # after the 24th ply or the ending pass, nothing more is played
        self._turn(colour)
        try:
            move, _ = self.player.timed_move(self.position)
            self._push(move)
        except Exception as error:     # a player that fails or answers an illegal move gives up
            sys.stderr.write("littlego gtp: {} failed: {}: {}\n".format(self.player.spec, type(error).__name__, error))
            return "resign"
        return point_to_vertex(move)

    # -- the optional commands -------------------------------------------------------------------------
    def cmd_undo(self, arguments):
        if not self.moves:
            raise GtpError("cannot undo")
        self.positions.pop()
        self.moves.pop()
        return ""

    def cmd_showboard(self, arguments):
        return "\n" + board_diagram(self.position)

    def cmd_final_score(self, arguments):
        position = self.position
        black, white = position.score()
        return result_text(BLACK if black > white else WHITE, black, white - KOMI)

    def cmd_printsgf(self, arguments):
        text = game_sgf(self.moves, "Black", "White", start=self.positions[0]).decode("utf-8").strip()
        return "\n".join(line for line in text.splitlines() if line.strip())

    def cmd_loadsgf(self, arguments):
        if not 1 <= len(arguments) <= 2:
            raise GtpError("syntax error: loadsgf FILE [MOVE_NUMBER]")
        try:
            with open(arguments[0], "rb") as handle:
                replay = read_game(handle.read(), arguments[0])
        except OSError as error:
            raise GtpError("cannot load file: {}".format(error.strerror or error))
        except SgfError as error:
            raise GtpError("cannot load file: {}".format(error))
        keep = len(replay.moves)
        if len(arguments) == 2:
            # GTP's move number: the position before that move is set up.
            keep = min(max(self._integer(arguments[1:], "loadsgf FILE MOVE_NUMBER") - 1, 0), keep)
        self._new_game()
        self.positions = replay.positions[:keep + 1]
        self.moves = replay.moves[:keep]
        return colour_word(self.position.player)

    # -- helpers --------------------------------------------------------------------------------------
    def _push(self, move):
        self.positions.append(self.position.play_point(move))
        self.moves.append(move)

    def _turn(self, colour):
        position = self.position
        if position.is_over:
            raise GtpError("illegal move: the game is over")
        if colour != position.player:
            raise GtpError("illegal move: it is {}'s turn (Little-Go alternates)".format(colour_word(position.player)))

    @staticmethod
    def _colour(word):
        try:
            return _COLOUR_WORDS[word.lower()]
        except KeyError:
            raise GtpError("syntax error: {!r} is not a colour".format(word))

    @staticmethod
    def _vertex(word):
        try:
            return vertex_to_point(word)
        except ValueError as error:
            raise GtpError("syntax error: {}".format(error))

    @staticmethod
    def _integer(arguments, usage):
        if len(arguments) != 1 or not arguments[0].lstrip("-").isdigit():
            raise GtpError("syntax error: {}".format(usage))
        return int(arguments[0])


def board_diagram(position):
    """The board with the course's (i, j) and GTP's coordinates, and the state of the game."""
    lines = ["       j  " + " ".join(str(j) for j in range(BOARD_SIZE)),
             "          " + " ".join(COLUMNS)]
    symbols = {BLACK: "X", WHITE: "O"}
    for i in range(BOARD_SIZE):
        row = " ".join(symbols.get(position.colour_at(BOARD_SIZE * i + j), ".") for j in range(BOARD_SIZE))
        lines.append("  i {}  {}  {}  {}".format(i, BOARD_SIZE - i, row, BOARD_SIZE - i))
    black, white = position.score()
    lines.append("ply {} of {}, {} left; {}".format(
        position.moves_played, MAX_MOVES, MAX_MOVES - position.moves_played,
        "game over" if position.is_over else colour_word(position.player).capitalize() + " to move"))
    lines.append("score: Black (X) {:g}, White (O) {:g} with komi {:g}".format(black, white, KOMI))
    return "\n".join(lines)


def serve(player, stdin=sys.stdin, stdout=sys.stdout, seed=1):
    """Answer GTP commands from ``stdin`` until ``quit`` or the end of input."""
    engine = GtpEngine(player, seed)
    try:
        for line in stdin:
            response = engine.handle(line)
            if response is not None:
                stdout.write(response)
                stdout.flush()
            if engine.quit:
                break
    finally:
        player.close()
    return 0


# -- the client side ----------------------------------------------------------------------------------

class GtpClient(object):
    """Another GTP engine over a pipe; every answer within ``wall_limit`` seconds or a TIMEOUT fault."""

    def __init__(self, argv, wall_limit=60.0):
        self.argv = argv
        self.wall_limit = wall_limit
        try:
            self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError as error:
            raise PlayerFault(CRASH, "cannot start {!r}: {}".format(" ".join(argv), error.strerror or error))
        self.buffer = b""

    def command(self, line):
        """The result of one command; GtpError for a ``?`` answer, PlayerFault if the engine dies or hangs."""
        try:
            self.process.stdin.write((line + "\n").encode("utf-8"))
            self.process.stdin.flush()
        except OSError as error:
            raise PlayerFault(CRASH, "the engine stopped reading ({}) at {!r}".format(error.strerror or error, line))
        deadline = time.monotonic() + self.wall_limit
        while b"\n\n" not in self.buffer.replace(b"\r", b""):
            left = deadline - time.monotonic()
            if left <= 0:
                raise PlayerFault(TIMEOUT, "no answer to {!r} in {:.0f} s of wall time".format(line, self.wall_limit))
            ready, _, _ = select.select([self.process.stdout], [], [], left)
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    raise PlayerFault(CRASH, "the engine closed its output after {!r}".format(line))
                self.buffer += chunk
        self.buffer = self.buffer.replace(b"\r", b"")
        answer, self.buffer = self.buffer.split(b"\n\n", 1)
        text = answer.decode("utf-8", "replace").strip()
        if text.startswith("="):
            return text[1:].lstrip("0123456789").strip()
        if text.startswith("?"):
            raise GtpError(text[1:].lstrip("0123456789").strip())
        raise PlayerFault(BAD_OUTPUT, "not a GTP answer to {!r}: {!r}".format(line, text[:100]))

    def cpu_seconds(self):
        """CPU seconds the engine has used so far (from /proc; 0 where that is not available)."""
        try:
            with open("/proc/{}/stat".format(self.process.pid)) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return 0.0

    def close(self):
        try:
            self.process.stdin.write(b"quit\n")
            self.process.stdin.flush()
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

    def __init__(self, argv_for_seed, spec, wall_limit=60.0):
        self.argv_for_seed = argv_for_seed
        self.spec = spec
        self.wall_limit = wall_limit
        self.client = None
        self.shown = None

    def new_game(self, colour, seed):
        Player.new_game(self, colour, seed)
        self.close()
        self.client = GtpClient(self.argv_for_seed(seed), self.wall_limit)
        for line in ("boardsize {}".format(BOARD_SIZE), "clear_board", "komi {}".format(KOMI)):
            self._ask(line)
        self.shown = Position.initial()

    def _ask(self, line):
        try:
            return self.client.command(line)
        except GtpError as error:
            raise PlayerFault(BAD_OUTPUT, "{!r} answered ? {}".format(line, error))

    def _sync(self, position):
        """Tell the engine the moves since it last knew the game, or set the board up anew."""
        if self.shown is not None and self.shown.moves_played + 1 == position.moves_played:
            for move in points_of(self.shown.legal_mask()) + [PASS]:
                if self.shown.play_point(move) == position:
                    self._ask("play {} {}".format(colour_word(self.shown.player), point_to_vertex(move)))
                    return
        if self.shown == position:
            return
        self._ask("clear_board")
        black, white = points_of(position.black), points_of(position.white)
        colour = BLACK
        while black or white or colour != position.player:
            stones = black if colour == BLACK else white
            vertex = point_to_vertex(stones.pop(0)) if stones else "pass"
            self._ask("play {} {}".format(colour_word(colour), vertex))
            colour = BLACK + WHITE - colour

    def timed_move(self, position):
        before = self.client.cpu_seconds()
        self._sync(position)
        answer = self._ask("genmove {}".format(colour_word(position.player)))
        seconds = self.client.cpu_seconds() - before
        if answer.strip().lower() == "resign":
            move = PASS
        else:
            try:
                move = vertex_to_point(answer)
            except ValueError:
                raise PlayerFault(BAD_OUTPUT, "genmove answered {!r}".format(answer))
        try:
            self.shown = position.play_point(move)
        except IllegalMove:
            self.shown = None          # the host judges it; the game ends there
        return move, seconds

    def move(self, position):
        return self.timed_move(position)[0]

    def close(self):
        if self.client is not None:
            self.client.close()
            self.client = None


def gtp_player(command, spec=None, wall_limit=60.0):
    """A GtpPlayer for a command line (``littlego gtp --player handset@4``); ValueError when it cannot run."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise ValueError("player {!r}: {}".format(spec or "gtp:" + command, error))
    if not argv:
        raise ValueError("player {!r}: expected gtp:COMMAND".format(spec or "gtp:"))
    if shutil.which(argv[0]) is None:
        raise ValueError("player {!r}: {!r} is not a program on the PATH".format(spec or "gtp:" + command, argv[0]))
    return GtpPlayer(lambda seed: argv, spec or "gtp:" + command, wall_limit)
