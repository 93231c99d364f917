"""The agent's side of the course's file protocol: ``input.txt`` in, ``output.txt`` out.

Reads tolerate what real hosts and editors produce (CRLF, trailing blanks, a missing
final newline, blank lines at the end); anything that cannot be a Little-Go input is an
``InputFormatError`` naming the file, line and column. Writes are atomic. The host's side
(writing ``input.txt``, reading ``output.txt``) is a tool's: ``engine.players.host``.
"""

import json
import os
import tempfile
from typing import Any, Callable, Dict, List, NamedTuple, Union

from engine.constants import BLACK, BOARD_SIZE, PASS, WHITE, Colour, Move
from engine.coords import move_to_text
from engine.errors import UserError

INPUT_LINES = 1 + 2 * BOARD_SIZE


class InputFormatError(UserError, ValueError):
    """An input file that is not a Little-Go input; the message names file, line and column."""

    def __init__(self, path: str, line: int, column: int, problem: str) -> None:
        self.path, self.line, self.column, self.problem = path, line, column, problem
        where = f"{path}:{line}" + (f":{column}" if column else "")
        super().__init__(f"{where}: {problem}")


class GameInput(NamedTuple):
    "What input.txt holds: colour to move and two 25-digit boards."

    player: Colour
    previous: str
    current: str


def parse_input(text: str, path: str = "input.txt") -> GameInput:
    """GameInput from the text of an input file; InputFormatError when it is not one."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = [line.rstrip(" \t") for line in lines]
    while lines and lines[-1] == "":
        lines.pop()
    if len(lines) != INPUT_LINES:
        raise InputFormatError(
            path,
            min(len(lines), INPUT_LINES) or 1,
            0,
            f"expected {INPUT_LINES} lines (colour, then two {BOARD_SIZE}x{BOARD_SIZE} boards), found {len(lines)}",
        )
    colour = lines[0].strip()
    if colour not in (str(BLACK), str(WHITE)):
        raise InputFormatError(path, 1, 1, f"colour must be {BLACK} (Black) or {WHITE} (White), found {lines[0]!r}")
    boards: List[str] = []
    for first in (2, 2 + BOARD_SIZE):
        digits = []
        for number in range(first, first + BOARD_SIZE):
            row = lines[number - 1]
            if len(row) != BOARD_SIZE:
                raise InputFormatError(
                    path, number, min(len(row), BOARD_SIZE) + 1, f"a board row is {BOARD_SIZE} digits, found {row!r}"
                )
            for column, cell in enumerate(row, 1):
                if cell not in "012":
                    raise InputFormatError(path, number, column, f"expected 0, 1 or 2, found {cell!r}")
            digits.append(row)
        boards.append("".join(digits))
    return GameInput(int(colour), boards[0], boards[1])


def read_input(path: str = "input.txt") -> GameInput:
    """GameInput from an input file; InputFormatError (or OSError) when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        raise InputFormatError(path, 0, 0, f"cannot read: {error.strerror or error}")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise InputFormatError(path, line, 0, f"not plain ASCII text (byte {raw[error.start]:#x})")
    return parse_input(text, path)


def read_file(path: str, error: Callable[[str], Exception]) -> bytes:
    """The bytes of the file at ``path``; ``error`` (an exception class) raised with a message
    naming the file when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as failure:
        raise error(f"{path}: cannot read: {failure.strerror or failure}")


def read_document(path: str, error: Callable[[str], Exception], what: str, form: object) -> Dict[str, Any]:
    """The JSON object in the file at ``path`` whose ``"format"`` is ``form``; ``error`` raised naming the
    file and ``what`` it should be (``"an openings file"``) when it cannot be read, is not JSON or is
    another format."""
    raw = read_file(path, error)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as failure:
        raise error(f"{path}: not {what} (JSON): {failure}")
    if not isinstance(data, dict) or data.get("format") != form:
        found = data.get("format") if isinstance(data, dict) else None
        raise error(f'{path}: not {what}: expected "format": {form!r}, found {found!r}')
    return data


def write_atomic(path: str, data: Union[str, bytes]) -> None:
    """Write ``data`` (text or bytes) to ``path`` through a synced temporary file and a rename: all or nothing."""
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(handle, "wb" if isinstance(data, bytes) else "w") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp's 0600 would hide the file from others
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_output(path: str, move: Move) -> None:
    """Write a move (flat point or PASS) to output.txt the course way: atomically, else in place.

    A folder where no temporary file can be made (read-only, but with a writable
    output.txt) still gets the answer: the host reads it only after the agent exits.
    """
    text = move_to_text(move)
    try:
        write_atomic(path, text)
    except OSError:
        with open(path, "w") as out:
            out.write(text)


__all__ = [
    "InputFormatError",
    "GameInput",
    "parse_input",
    "read_input",
    "read_file",
    "write_output",
    "write_atomic",
    "PASS",
]
