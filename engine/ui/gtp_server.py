"""``littlego gtp``: a Little-Go game behind GTP commands, for GUIs and tournament tools.

``GtpEngine`` keeps the game (with undo), plays any player on ``genmove``, judges every
``play`` by our rules and answers ``lz-analyze`` and ``kata-analyze`` (``engine.ui.analyze``) as
Sabaki reads them; ``serve_gtp`` answers commands from a stream until ``quit``, an analysis going on
until the next command arrives.
"""

import queue
import sys
import threading
from importlib import metadata
from typing import Callable, Dict, Iterable, List, Optional, TextIO, Tuple

from engine.bitboard import count
from engine.common.seeds import derive_seed
from engine.constants import (
    BLACK,
    BOARD_SIZE,
    EMPTY,
    KOMI,
    NUM_POINTS,
    PASS,
    WHITE,
    Colour,
    Move,
    colour_word,
    opponent,
)
from engine.play.sgf import (
    SGF_FILE_BYTES,
    NotARecord,
    SgfError,
    SgfFileError,
    game_sgf,
    read_game,
    read_sgf_file,
    result_text,
    setup_plies_of,
)
from engine.players.base import Player
from engine.players.gtp import GtpError, point_to_vertex, vertex_to_point
from engine.position import IllegalMove, Position
from engine.ui.analyze import Analysis, ExactSolver, MoveAnalysis, analysis_interval, kata_line, lz_line
from engine.ui.board import board_diagram, game_result

PROTOCOL_VERSION = "2"
ENGINE_NAME = "littlego"
# ``version``'s first word: the Leela Zero release whose analysis (lz-analyze) we answer as, since Lizzie reads
# it as the engine's release and warns (a dialog that can deadlock it) below 0.15. Our own release follows.
ANALYSIS_LEVEL = "0.15"
_COLOUR_WORDS: Dict[str, Colour] = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}
LineForm = Callable[[List[MoveAnalysis]], str]  # an analysis line's form: lz_line or kata_line
GtpCommand = Callable[[List[str]], str]  # a GTP command: its arguments to its answer


def preprocess(line: str) -> str:
    """A GTP line as the spec reads it: control characters dropped (tabs become spaces), comments cut."""
    line = "".join(" " if c == "\t" else c for c in line if c == "\t" or ord(c) >= 32 and ord(c) != 127)
    return line.split("#", 1)[0].strip()


class GtpEngine:
    """A Little-Go game behind GTP commands, ``genmove`` answered by a player."""

    def __init__(self, player: Player, seed: int = 1, solver: Optional[ExactSolver] = None):
        """``solver``: what ``lz-analyze`` asks for exact values (``engine.ui.analyze.Analysis``'s); None: the
        search's values alone."""
        self.player = player
        self.analysis = Analysis(solver)
        # While an analysis answers: (the line's form, seconds between lines).
        self.streaming: Optional[Tuple[LineForm, float]] = None
        self.analysed: Optional[Position] = None  # the position the analysis streams (lz-analyze's colour to move)
        self.seed, self.games = seed, 0
        self.komi = KOMI
        self.quit = False
        self._commands: Dict[str, GtpCommand] = dict(
            (name[4:], getattr(self, name)) for name in dir(self) if name.startswith("cmd_")
        )
        # KGS's name for genmove at the game's end, where dead stones would be captured: Little-Go counts every
        # stone on the board, so the move is the same.
        self._commands["kgs-genmove_cleanup"] = self.cmd_genmove
        self._commands["lz-analyze"] = lambda arguments: self._analyze(arguments, lz_line)
        self._commands["kata-analyze"] = lambda arguments: self._analyze(arguments, kata_line)
        # What time_settings last said: (main time, byo-yomi time, stones), in seconds.
        self.clock: Optional[Tuple[int, ...]] = None
        self._new_game()

    def _new_game(self) -> None:
        self.positions = [Position.initial()]
        self.moves: List[Move] = []
        # The games before each setup stone (``_set_up``), the last one last: what ``undo`` goes back to.
        self.set_up: List[Tuple[List[Position], List[Move]]] = []
        # Plays after the game's end (24 plies or the ending pass), as a referee that does not know the end
        # sends them: accepted, not played, so the result stays the course's; ``undo`` takes them back first.
        self.after_end: List[Tuple[Colour, Move]] = []
        self.fault: Optional[str] = None
        try:
            self.player.new_game(BLACK, derive_seed(self.seed, self.games))
        except Exception as error:  # a player that cannot start resigns every genmove of this game
            self.fault = f"{type(error).__name__}: {error}"
            sys.stderr.write(f"littlego gtp: {self.player.spec} failed at set-up: {self.fault}\n")
        self.games += 1

    @property
    def position(self) -> Position:
        return self.positions[-1]

    def handle(self, line: str) -> Optional[str]:
        """The full response to one input line (with its blank line), or None for a line GTP ignores."""
        line = preprocess(line)
        if not line:
            return None
        words = line.split()
        ident = ""
        if words[0].isdigit():
            ident = words.pop(0)
            if not words:
                return f"?{ident} no command\n\n"
        name, arguments = words[0], words[1:]
        command = self._commands.get(name)
        try:
            if command is None:
                raise GtpError("unknown command")
            result = command(arguments)
        except GtpError as error:
            return f"?{ident} {error}\n\n"
        except Exception as error:  # the engine never dies on input
            return f"?{ident} internal error: {type(error).__name__}: {error}\n\n"
        if self.streaming:  # an analysis: its lines follow, and the next command ends it with a blank line
            return f"={ident}\n"
        return "={}{}\n\n".format(ident, " " + result if result else "")

    def _analyze(self, arguments: List[str], form: LineForm) -> str:
        """Start an analysis of the position (lz-analyze or kata-analyze): ``serve_gtp`` writes its lines."""
        try:
            word, interval = analysis_interval(arguments, _COLOUR_WORDS)
        except ValueError:
            raise GtpError("syntax error: lz-analyze [COLOUR] [INTERVAL]")
        if self.position.is_over:  # no move to analyse: the result instead, and the engine goes on
            raise GtpError(f"the game is over: {game_result(self.position)}")
        colour = self.position.player if word is None else self._colour(word)
        self.analysed = self.position if colour == self.position.player else to_move(self.position, colour)
        self.streaming = (form, interval)
        return ""

    def analysis_line(self) -> str:
        """The current analysis's next line (with its newline)."""
        assert self.streaming is not None and self.analysed is not None, "no analysis is going on"
        form, _ = self.streaming
        return form(self.analysis.moves(self.analysed)) + "\n"

    # -- the required commands ------------------------------------------------------------------------
    def cmd_protocol_version(self, arguments: List[str]) -> str:
        return PROTOCOL_VERSION

    def cmd_name(self, arguments: List[str]) -> str:
        return ENGINE_NAME

    def cmd_version(self, arguments: List[str]) -> str:
        return f"{ANALYSIS_LEVEL} (Leela Zero's analysis; littlego {package_version()}, player {self.player.spec})"

    def cmd_known_command(self, arguments: List[str]) -> str:
        return "true" if len(arguments) == 1 and arguments[0] in self._commands else "false"

    def cmd_list_commands(self, arguments: List[str]) -> str:
        return "\n".join(sorted(self._commands))

    def cmd_quit(self, arguments: List[str]) -> str:
        self.quit = True
        return ""

    def cmd_boardsize(self, arguments: List[str]) -> str:
        size = self._integer(arguments, "boardsize SIZE")
        if size != BOARD_SIZE:
            raise GtpError(f"unacceptable size (Little-Go is played on {BOARD_SIZE}x{BOARD_SIZE})")
        self._new_game()
        return ""

    def cmd_clear_board(self, arguments: List[str]) -> str:
        self._new_game()
        return ""

    def cmd_komi(self, arguments: List[str]) -> str:
        if len(arguments) != 1:
            raise GtpError("syntax error: komi VALUE")
        try:
            self.komi = float(arguments[0])
        except ValueError:
            raise GtpError(f"syntax error: komi {arguments[0]!r} is not a number")
        return ""  # accepted; Little-Go's scoring keeps its komi of 2.5 (see final_score)

    def cmd_play(self, arguments: List[str]) -> str:
        if len(arguments) != 2:
            raise GtpError("syntax error: play COLOUR VERTEX")
        colour, move = self._colour(arguments[0]), self._vertex(arguments[1])
        if self.position.is_over:  # a referee that plays on past the end (gogui-twogtp): kept apart, unjudged
            self.after_end.append((colour, move))
            return ""
        if colour != self.position.player and isinstance(move, int):
            self._set_up([(colour, move)])
            return ""
        self._turn(colour)
        try:
            self._push(move)
        except IllegalMove as error:
            raise GtpError(f"illegal move: {error}")
        return ""

    def cmd_genmove(self, arguments: List[str]) -> str:
        if len(arguments) != 1:
            raise GtpError("syntax error: genmove COLOUR")
        colour = self._colour(arguments[0])
        if self.position.is_over:
            return "pass"  # after the 24th ply or the ending pass, nothing more is played
        self._turn(colour)
        if self.fault:
            sys.stderr.write(f"littlego gtp: {self.player.spec} cannot play (set-up failed: {self.fault})\n")
            return "resign"
        try:
            move, _ = self.player.timed_move(self.position)
            self._push(move)
        except Exception as error:  # a player that fails or answers an illegal move gives up
            sys.stderr.write(f"littlego gtp: {self.player.spec} failed: {type(error).__name__}: {error}\n")
            return "resign"
        return point_to_vertex(move)

    # -- the optional commands -------------------------------------------------------------------------
    def cmd_time_settings(self, arguments: List[str]) -> str:
        """Acknowledged: every player keeps its own budget (the course's CPU limit a move, or its params')."""
        if len(arguments) != 3 or not all(word.isdigit() for word in arguments):
            raise GtpError("syntax error: time_settings MAIN_TIME BYO_YOMI_TIME BYO_YOMI_STONES")
        self.clock = tuple(int(word) for word in arguments)
        return ""

    def cmd_time_left(self, arguments: List[str]) -> str:
        """Acknowledged, as time_settings is."""
        if len(arguments) != 3 or not arguments[1].isdigit() or not arguments[2].isdigit():
            raise GtpError("syntax error: time_left COLOUR TIME STONES")
        self._colour(arguments[0])
        return ""

    def cmd_undo(self, arguments: List[str]) -> str:
        if self.after_end:
            self.after_end.pop()
        elif self.moves:
            self.positions.pop()
            self.moves.pop()
        elif self.set_up:  # the last setup stone taken back: the game as it was before it
            self.positions, self.moves = self.set_up.pop()
        else:
            raise GtpError("cannot undo")
        return ""

    def cmd_showboard(self, arguments: List[str]) -> str:
        after = len(self.after_end)
        note = f"\n{after} play{'s' if after != 1 else ''} after the end, not played" if after else ""
        return "\n" + board_diagram(self.position) + note

    def cmd_set_free_handicap(self, arguments: List[str]) -> str:
        """Black's handicap stones on the empty board, White to move: set up as ``play``'s setup stones."""
        if self.position.black | self.position.white:
            raise GtpError("board not empty")
        points = [self._vertex(word) for word in arguments]
        if len(points) < 2 or PASS in points or len(set(points)) != len(points) or len(points) >= NUM_POINTS:
            raise GtpError("bad vertex list: set_free_handicap VERTEX VERTEX ... (2 or more, each once, no pass)")
        self._set_up([(BLACK, point) for point in points])
        return ""

    def cmd_final_score(self, arguments: List[str]) -> str:
        position = self.position
        black, white = position.score()
        return result_text(BLACK if black > white else WHITE, black, count(position.white))

    def cmd_printsgf(self, arguments: List[str]) -> str:
        text = game_sgf(self.moves, "Black", "White", start=self.positions[0]).decode("utf-8").strip()
        return "\n".join(line for line in text.splitlines() if line.strip())

    def cmd_loadsgf(self, arguments: List[str]) -> str:
        if not 1 <= len(arguments) <= 2:
            raise GtpError("syntax error: loadsgf FILE [MOVE_NUMBER]")
        try:
            data = read_sgf_file(arguments[0])
            replay = read_game(data, arguments[0])
        except (SgfFileError, NotARecord):
            # One answer for every file refused: a controller learns nothing of files that hold no record.
            raise GtpError(f"cannot load file: no SGF record there (a regular file of at most {SGF_FILE_BYTES:,} B)")
        except SgfError as error:
            raise GtpError(f"cannot load file: {error}")
        keep = len(replay.moves)
        if len(arguments) == 2:
            # GTP's move number: the position before that move is set up.
            keep = min(max(self._integer(arguments[1:], "loadsgf FILE MOVE_NUMBER") - 1, 0), keep)
        self._new_game()
        self.positions = replay.positions[: keep + 1]
        self.moves = replay.moves[:keep]
        return colour_word(self.position.player)

    # -- helpers --------------------------------------------------------------------------------------
    def _set_up(self, stones: List[Tuple[Colour, Move]]) -> None:
        """Setup stones ((colour, point), the last one's colour not to move): how GUIs send a record's AB
        and AW and an edited board (stones of one colour in a row), and ``set_free_handicap``'s. The board
        with them becomes the game's start, the other colour to move, its ply the fewest a game reaches
        that many stones in with that colour to move (``setup_plies_of``, as ``loadsgf`` counts a record's
        setup); ``undo`` takes them back together."""
        position = self.position
        board = [position.colour_at(p) for p in range(NUM_POINTS)]
        for colour, point in stones:
            if not isinstance(point, int) or board[point] != EMPTY:
                raise GtpError(f"illegal move: {point_to_vertex(point)} is occupied")
            board[point] = colour
        digits = "".join(str(c) for c in board)
        mover = opponent(stones[-1][0])
        plies = setup_plies_of(sum(1 for c in board if c != EMPTY), mover)
        self.set_up.append((self.positions, self.moves))
        self.positions, self.moves = [Position.from_boards(mover, digits, digits, plies)], []

    def _push(self, move: Move) -> None:
        self.positions.append(self.position.play_point(move))
        self.moves.append(move)

    def _turn(self, colour: Colour) -> None:
        position = self.position
        if position.is_over:
            raise GtpError("illegal move: the game is over")
        if colour != position.player:
            raise GtpError(f"illegal move: it is {colour_word(position.player)}'s turn (Little-Go alternates)")

    @staticmethod
    def _colour(word: str) -> Colour:
        try:
            return _COLOUR_WORDS[word.lower()]
        except KeyError:
            raise GtpError(f"syntax error: {word!r} is not a colour")

    @staticmethod
    def _vertex(word: str) -> Move:
        try:
            return vertex_to_point(word)
        except ValueError as error:
            raise GtpError(f"syntax error: {error}")

    @staticmethod
    def _integer(arguments: List[str], usage: str) -> int:
        if len(arguments) != 1 or not arguments[0].lstrip("-").isdigit():
            raise GtpError(f"syntax error: {usage}")
        return int(arguments[0])


def package_version() -> str:
    """littlego's release, as installed (``pyproject.toml``'s version); "unknown" where not installed."""
    try:
        return metadata.version("littlego")
    except metadata.PackageNotFoundError:
        return "unknown"


def to_move(position: Position, colour: Colour) -> Position:
    """``position``'s board with ``colour`` to move at the same ply, no ko: what ``lz-analyze COLOUR`` analyses
    where the GUI names the colour not to move (KataGo analyses the colour it is given, as if to move)."""
    digits = "".join(str(position.colour_at(point)) for point in range(NUM_POINTS))
    return Position.from_boards(colour, digits, digits, position.moves_played)


def serve_gtp(
    player: Player,
    stdin: Iterable[str] = sys.stdin,
    stdout: TextIO = sys.stdout,
    seed: int = 1,
    solver: Optional[ExactSolver] = None,
) -> int:
    """Answer GTP commands from ``stdin`` until ``quit`` or the end of input; an analysis (``lz-analyze``)
    writes a line every interval until the next line arrives. ``solver``: as ``GtpEngine``'s."""
    engine = GtpEngine(player, seed, solver)
    lines: queue.Queue[Optional[str]] = queue.Queue()

    def read() -> None:  # a thread of its own, so that an analysis hears the next command at once
        for line in stdin:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    try:
        while not engine.quit:
            if engine.streaming:
                try:
                    stdout.write(engine.analysis_line())
                except Exception as error:  # an analysis that fails ends, said on stderr; the engine goes on
                    print(f"littlego gtp: the analysis stopped: {type(error).__name__}: {error}", file=sys.stderr)
                    engine.streaming = None
                    stdout.write("\n")
                stdout.flush()
                if not engine.streaming:
                    continue
                try:
                    line = lines.get(timeout=engine.streaming[1])
                except queue.Empty:
                    continue
                engine.streaming = None
                stdout.write("\n")  # the analysis's answer ends
                stdout.flush()
            else:
                line = lines.get()
            if line is None:
                break
            response = engine.handle(line)
            if response is not None:
                stdout.write(response)
                stdout.flush()
    finally:
        player.close()
    return 0
