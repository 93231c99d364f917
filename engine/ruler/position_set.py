"""Solved won positions as the ruler reads them: a positions file, each position with every legal move's exact result.

``evolve positions`` draws and solves the positions (``evolve.solved.positions``) and writes them here
(``save_positions``); everything that measures a player on them reads them here (``load_positions``).
A position is held out (``held_out_key``) by its canonical key under the board's symmetries, one in
``HELD_OUT_SHARE``: the split is the file's, the same for every tuner, fitness and report, and a
position's images fall on one side of it.

The file (gzipped JSON)::

    {"format": "littlego-regret 1",
     "info": {"seed": ..., "plies": [2, 11], "solver": "solve-<digest>", ...},
     "positions": [{"position": "1 4 <previous> <board>", "source": "random", "held_out": false,
                    "moves": {"12": 1, "7": 0, ...}}, ...]}    # each legal move (25: pass), 1 if it wins
"""

import gzip
import json
from typing import Any, Dict, FrozenSet, List, NamedTuple, Sequence, Tuple

from engine.common.gzip_documents import read_positions_document
from engine.constants import MAX_MOVES, PASS, Colour, Move
from engine.errors import UserError
from engine.native.compiler import NATIVE_PASS
from engine.native.solver import position_from_text
from engine.position import Position
from engine.protocol import write_atomic

POSITIONS_FORMAT = "littlego-regret 1"
HELD_OUT_SHARE = 5  # one position in this many (by its canonical key) is held out
SOURCES = ("random", "games", "recorded")  # how a position was drawn (``evolve.solved.position_sources``)


class PositionsError(UserError, ValueError):
    """A positions file that cannot be used; the message names the file and the entry."""


class SolvedPosition(NamedTuple):
    """A position with every legal move's exact result: ``moves`` maps a move (a point, or PASS) to
    whether it wins for the side to move."""

    text: str  # as the compiled solver reads it: colour, ply, previous board, board
    source: str  # how it was drawn: one of SOURCES
    is_held_out: bool  # in the file's held-out split (the file's key: held_out)
    moves: Dict[Move, bool]

    @property
    def won(self) -> bool:
        """Whether the side to move wins (some move wins)."""
        return any(self.moves.values())

    @property
    def winning(self) -> FrozenSet[Move]:
        """The moves that keep the win (empty where the position is lost)."""
        return frozenset(move for move, wins in self.moves.items() if wins)

    @property
    def critical(self) -> bool:
        """Won, and at most a third of the legal moves keep the win: where a weak move gives it away."""
        return self.won and 3 * sum(self.moves.values()) <= len(self.moves)

    @property
    def ply(self) -> int:
        """The moves played before it."""
        return int(self.text.split()[1])

    @property
    def colour(self) -> Colour:
        """The side to move."""
        return int(self.text.split()[0])

    def position(self) -> Position:
        """The position itself."""
        return position_from_text(self.text)

    def valued(self) -> List["ValuedPosition"]:
        """The position and every position one of its moves leads to (a game over excepted), each with
        whether its mover wins: a winning move leads to a lost position, any other to a won one (in a lost
        position every move leads to a won one)."""
        position, winning = self.position(), self.winning
        found = [ValuedPosition(position, 0, self.won)]
        for move in position.all_moves():
            child = position.play_point(move)
            if not child.is_over:
                found.append(ValuedPosition(child, 0, move not in winning))
        return found


class ValuedPosition(NamedTuple):
    """A position whose mover's result the solver knows: what the fits learn from (``SolvedPosition.valued``,
    and the leaves of a search with the captures along their line)."""

    position: Position
    captured: int  # the mover's captures along the line to it, less the opponent's (0: none counted)
    wins: bool  # the mover wins


class PositionSet(NamedTuple):
    """A positions file: its provenance and its positions, in the order drawn."""

    info: Dict[str, Any]
    positions: Tuple[SolvedPosition, ...]

    def split(self, is_held_out: bool) -> Tuple[SolvedPosition, ...]:
        """The positions of one split: the held-out ones, or those the fitness uses."""
        return tuple(p for p in self.positions if p.is_held_out == is_held_out)

    def won(self, is_held_out: bool) -> Tuple[SolvedPosition, ...]:
        """The won positions of one split: those the ruler measures."""
        return tuple(p for p in self.positions if p.is_held_out == is_held_out and p.won)


def held_out_key(key: str) -> bool:
    """Whether the position whose canonical key (``engine.book.book_key``) is ``key`` is held out."""
    return int.from_bytes(key.encode("utf-8")[-4:], "big") % HELD_OUT_SHARE == 0 if key else False


def move_key(move: Move) -> str:
    """A move as the file writes it: its point, or 25 for PASS."""
    return str(NATIVE_PASS if move == PASS else move)


def move_of_key(key: str) -> Move:
    """The move a file's key names; ValueError where it is no number."""
    number = int(key)
    return PASS if number == NATIVE_PASS else number


def save_positions(path: str, positions: PositionSet) -> None:
    """Write a positions file atomically."""
    data = {
        "format": POSITIONS_FORMAT,
        "info": positions.info,
        "positions": [
            {
                "position": p.text,
                "source": p.source,
                "held_out": p.is_held_out,
                "moves": {
                    move_key(m): int(w) for m, w in sorted(p.moves.items(), key=lambda item: int(move_key(item[0])))
                },
            }
            for p in positions.positions
        ],
    }
    write_atomic(path, gzip.compress(json.dumps(data, separators=(",", ":")).encode("utf-8"), mtime=0))


def _solved(entry: Any, where: str) -> SolvedPosition:
    try:
        text, source, held_out, moves = entry["position"], entry["source"], entry["held_out"], entry["moves"]
        position = position_from_text(text)
        results = {move_of_key(k): bool(v) for k, v in moves.items() if v in (0, 1) and not isinstance(v, bool)}
    except (TypeError, KeyError, AttributeError, ValueError) as error:
        raise PositionsError(f"{where}: expected position, source, held_out and moves: {error}")
    if source not in SOURCES or not isinstance(held_out, bool) or len(results) != len(moves):
        raise PositionsError(f"{where}: a source of {', '.join(SOURCES)}, held_out true or false, moves 0 or 1")
    if set(results) != set(position.legal_points()) | {PASS}:
        raise PositionsError(f"{where}: the moves do not match the position's legal moves")
    if not position.moves_played < MAX_MOVES or position.is_over:
        raise PositionsError(f"{where}: the game is over")
    return SolvedPosition(text, source, held_out, results)


def load_positions(path: str) -> PositionSet:
    """The PositionSet of a positions file; PositionsError naming the file and the entry for anything wrong."""
    data, entries = read_positions_document(path, POSITIONS_FORMAT, "positions", PositionsError)
    positions = tuple(_solved(entry, f"{path}: positions[{index}]") for index, entry in enumerate(entries))
    info = data.get("info")
    return PositionSet(info if isinstance(info, dict) else {}, positions)


class WonPositions(NamedTuple):
    """The won positions of one or more positions files, by split: ``train`` (what a fitness or a fit
    may use) and ``held_out`` (what reports how well it generalises)."""

    train: Tuple[SolvedPosition, ...]
    held_out: Tuple[SolvedPosition, ...]


def load_won(paths: Sequence[str]) -> WonPositions:
    """The WonPositions of the files at ``paths``, each text once (its first file's), in the split its
    file gives it."""
    return won_positions([load_positions(path) for path in paths])


def won_positions(sets: Sequence[PositionSet]) -> WonPositions:
    """The WonPositions of positions files already read (``sets``), each text once (its first set's), in
    the split its set gives it."""
    seen = set()
    train: List[SolvedPosition] = []
    held_out: List[SolvedPosition] = []
    for position_set in sets:
        for solved in position_set.positions:
            if solved.won and solved.text not in seen:
                seen.add(solved.text)
                (held_out if solved.is_held_out else train).append(solved)
    return WonPositions(tuple(train), tuple(held_out))
