"""The compiled exact solver (``solve.c``), run as a process and asked over a pipe.

``engine.solver`` settles positions from about ply 10 on in pure Python; earlier ones need
hundreds of millions of nodes, which only compiled code visits in minutes. ``compiler``
builds the program (once per source and game numbers); ``NativeSolver`` asks it who wins,
and ``engine.native.book_build`` builds the opening book from its answers. The rules in C are
tested against ``engine.position`` (tests/test_native.py).
"""

import subprocess
from typing import Callable, Dict, Iterator, Literal, Optional, Tuple

from engine.constants import PASS, Move
from engine.errors import InvalidInput
from engine.native.compiler import DEFAULT_TABLE_BITS, NATIVE_PASS, NativeError, compiled_solver
from engine.position import Position


def describe_position(position: Position) -> str:
    """The C program's text of a position: colour, ply, previous board, current board."""
    return f"{position.player} {position.moves_played} {position.previous_string()} {position.board_string()}"


def position_from_text(text: str) -> Position:
    """The position a ``describe_position`` text names; ValueError when it names none."""
    fields = text.split()
    if len(fields) != 4 or not (fields[0].isdigit() and fields[1].isdigit()):
        raise InvalidInput("expected 'PLAYER PLY PREVIOUS CURRENT' (a colour, a ply and two boards of digits)")
    player, ply, previous, current = fields
    return Position.from_boards(int(player), previous, current, int(ply))


def _move_of(number: int) -> Move:
    return PASS if number == NATIVE_PASS else number


def parse_move_results(text: str) -> Dict[Move, bool]:
    """{move: whether it wins} from the C program's answer to "moves" ("P:v P:v ...")."""
    results: Dict[Move, bool] = {}
    for item in text.split():
        move, won = item.split(":")
        if won not in ("0", "1"):
            raise ValueError(f"not a move's result: {item!r}")
        results[_move_of(int(move))] = won == "1"
    return results


class NativeSolver:
    """A running compiled solver; its transposition table lasts as long as the process.

    ``table_bits``: log2 of the table's buckets of four entries (8 bytes each): 22 takes
    128 MiB, 24 takes 512 MiB.
    """

    def __init__(self, table_bits: int = DEFAULT_TABLE_BITS):
        self.process = subprocess.Popen(
            [compiled_solver(), str(table_bits)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            universal_newlines=True,
            bufsize=1,
        )
        self.nodes = 0

    def _ask(self, line: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None  # pipes
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise NativeError(f"the compiled solver stopped ({error})")
        answer = self.process.stdout.readline()
        if answer and not answer.startswith("error"):
            self._read_stats()
        if not answer:
            raise NativeError(f"the compiled solver stopped without answering {line!r}")
        if answer.startswith("error"):
            raise NativeError(f"the compiled solver refused {line!r}: {answer.strip()}")
        return answer.strip()

    def _read_stats(self) -> None:
        """Count the nodes of the last command from the line the program writes after it."""
        assert self.process.stderr is not None  # a pipe
        while True:
            line = self.process.stderr.readline()
            if not line:
                raise NativeError("the compiled solver stopped")
            if line.startswith("stats nodes"):
                self.nodes += int(line.split()[-1])
                return

    def wins(self, position: Position) -> bool:
        """Whether the side to move wins with perfect play."""
        if position.is_over:
            return position.margin() > 0
        return self._ask("wins " + describe_position(position)) == "1"

    def move_results(self, position: Position) -> Dict[Move, bool]:
        """{move: whether it wins} for every legal move and PASS."""
        return parse_move_results(self._ask("moves " + describe_position(position)))

    def book_lines(
        self, max_ply: int, start: Optional[Position] = None, progress: Optional[Callable[[Position], object]] = None
    ) -> Iterator[Tuple[Position, Move]]:
        """(position, winning move) for every position up to ``max_ply`` that the side to move at
        ``start`` (Black at the empty board by default) meets if it plays these moves."""
        assert self.process.stdin is not None and self.process.stdout is not None  # pipes
        try:
            self.process.stdin.write(
                "book {}{}\n".format(max_ply, " " + describe_position(start) if start is not None else "")
            )
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise NativeError(f"the compiled solver stopped ({error})")
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise NativeError("the compiled solver stopped while building the book")
            fields = line.split()
            if fields == ["end"]:
                self._read_stats()
                break
            position, move = position_from_text(" ".join(fields[:4])), fields[4]
            if progress:
                progress(position)
            yield position, _move_of(int(move))

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None  # a pipe
            self.process.stdin.close()
            self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            assert stream is not None  # pipes
            stream.close()

    def __enter__(self) -> "NativeSolver":
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.close()
        return False
