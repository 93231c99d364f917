"""The course host's side of the file protocol: writing ``input.txt`` as the host writes it and
reading ``output.txt`` exactly as the host reads it (the agent's side is ``engine.protocol``)."""

import re
from typing import Tuple, Union

from engine.constants import BOARD_SIZE, PASS, Colour
from engine.protocol import write_atomic
from engine.sandbox.files import READ_LIMIT, excerpt, read_untrusted

# What output.txt holds as the host reads it: PASS, or (i, j), which may be off the board.
HostMove = Union[str, Tuple[int, int]]
_FIRST_LINE = re.compile(r"[^\r\n]*")  # up to the first LF, CR or CRLF, as text files read


class OutputFormatError(ValueError):
    """An output.txt the course host could not parse (not an illegal move: no move at all)."""


def format_input(player: Colour, previous: str, current: str) -> str:
    """The text the host writes into input.txt: LF line ends, no final newline."""
    rows = [str(player)]
    for board in (previous, current):
        rows.extend(board[r * BOARD_SIZE : (r + 1) * BOARD_SIZE] for r in range(BOARD_SIZE))
    return "\n".join(rows)


def write_input(path: str, player: Colour, previous: str, current: str) -> None:
    """Write an input file the course way, atomically."""
    write_atomic(path, format_input(player, previous, current))


def parse_output(text: str) -> HostMove:
    """The move an output.txt holds, read exactly as the course host reads it.

    The host opens the file as text, so a line ends at LF, CR or CRLF (universal
    newlines); it takes the first line, strips it and splits it on commas: ``PASS`` is a
    pass, otherwise the first two fields must be what ``int`` reads (later fields are
    ignored). Returns
    PASS or an ``(i, j)`` pair, which may be off the board (an illegal move, not a bad
    file); OutputFormatError when the host could not parse it (``pass`` in lower case included).
    """
    first = _FIRST_LINE.match(text)
    assert first is not None  # the pattern matches any text, if only by the empty string
    fields = first.group(0).strip().split(",")
    if fields[0] == PASS:
        return PASS
    if len(fields) < 2:
        raise OutputFormatError(f"'{excerpt(fields[0])}' is not a move: expected 'i,j' or 'PASS'")
    try:
        return int(fields[0]), int(fields[1])
    except ValueError:
        raise OutputFormatError("'{}' is not a move: expected 'i,j' or 'PASS'".format(excerpt(",".join(fields))))


def read_output(path: str = "output.txt") -> HostMove:
    """The move in an output file (see parse_output); OSError when missing, UntrustedFileError (an OSError)
    when it is not a regular file (a link, a FIFO), OutputFormatError when unparsable or longer than READ_LIMIT.

    The host decodes the whole file as UTF-8 before it reads a line, so a file that is not
    UTF-8 anywhere is unreadable to it, whatever its first line says. An agent's file is
    untrusted: never followed through a link, never waited on, never read past READ_LIMIT.
    """
    raw, more = read_untrusted(path)
    if more:
        raise OutputFormatError(f"output.txt holds more than {READ_LIMIT} bytes (a move is a few)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise OutputFormatError(f"not UTF-8 text (byte {error.start} is {raw[error.start]:#x})")
    return parse_output(text)
