"""The store's schema: its tables, its key, and how an entry holds a position's moves and margins
(``engine.native.store`` opens the file and reads and writes the entries).

The schema::

    meta(name TEXT PRIMARY KEY, value TEXT)          -- "format" and "rules" (RULES_FINGERPRINT)
    positions(key TEXT PRIMARY KEY,                  -- "<colour>:<book_key>": canonical under the 8 symmetries
              ply INTEGER, won INTEGER,              -- whether the side to move wins
              legal INTEGER, wins INTEGER,           -- move bitmasks in the canonical orientation
              margins BLOB,                          -- 26 signed bytes, twice each move's margin
              checksum INTEGER)                      -- CRC-32 of the entry: a flipped bit is refused

Key: the colour to move, then ``engine.book.book_key`` (the canonical board, the ply, whether the
last move passed, the KO point's image): everything the rest of the game depends on. Moves are kept
turned into the canonical orientation (bit ``p`` for point ``p``, bit 25 for PASS) and turned back to
the caller's on read. ``legal``/``wins`` are NULL where only the position's value is known (a ``wins``
question); ``margins`` is NULL where no margin is known, and holds MARGIN_UNKNOWN for a move without one.
"""

import hashlib
import zlib
from typing import Dict, Optional, Tuple

from engine.book import book_key
from engine.constants import BOARD_SIZE, KOMI, MAX_MOVES, NUM_POINTS, PASS, RULES_VERSION, Move
from engine.position import Position
from engine.symmetry import SYMMETRIES, turn

STORE_FORMAT = "littlego-store 1"
RULES_FINGERPRINT = hashlib.sha256(
    f"rules {RULES_VERSION} size {BOARD_SIZE} komi {KOMI} plies {MAX_MOVES}".encode()
).hexdigest()[:16]
PASS_BIT = NUM_POINTS  # the pass's bit in the move masks
SLOTS = NUM_POINTS + 1  # the points, then PASS
MARGIN_UNKNOWN = -128  # a margins byte with no margin known

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS positions (key TEXT PRIMARY KEY, ply INTEGER NOT NULL, won INTEGER NOT NULL, "
    "legal INTEGER, wins INTEGER, margins BLOB, checksum INTEGER NOT NULL) WITHOUT ROWID",
)
STORE_COLUMNS = "key, ply, won, legal, wins, margins, checksum"

# A position's entry: (won, legal, wins, margins), as the columns hold them.
Row = Tuple[int, Optional[int], Optional[int], Optional[bytes]]


def store_key(position: Position) -> Tuple[str, int]:
    """(key, symmetry): the store's key of ``position`` and the symmetry that turns it canonical."""
    key, symmetry = book_key(position)
    return f"{position.player}:{key}", symmetry


def move_slot(move: Move, symmetry: int) -> int:
    """The bit (and the margins byte) of ``move`` turned by ``symmetry`` into the canonical orientation."""
    return PASS_BIT if move == PASS else SYMMETRIES[symmetry][move]


def legal_mask(position: Position, symmetry: int) -> int:
    """The ``legal`` column of ``position``: its legal points turned canonical, and PASS."""
    return turn(position.legal_mask(), symmetry) | 1 << PASS_BIT


def encode_margins(margins: Dict[Move, float], symmetry: int) -> bytes:
    """The ``margins`` column of {move: margin}: twice each margin, a signed byte a slot."""
    slots = [MARGIN_UNKNOWN] * SLOTS
    for move, margin in margins.items():
        slots[move_slot(move, symmetry)] = int(round(2 * margin))
    return bytes(value & 0xFF for value in slots)


def signed_byte(byte: int) -> int:
    """A byte of the ``margins`` column read back as the signed number it was written as."""
    return byte - 256 if byte > 127 else byte


def entry_checksum(
    key: str, ply: int, won: int, legal: Optional[int], wins: Optional[int], margins: Optional[bytes]
) -> int:
    """The CRC-32 an entry is written with: SQLite checks its pages' structure, not the values in them."""
    return zlib.crc32(f"{key}|{ply}|{won}|{legal}|{wins}|".encode() + (margins or b""))


def _board_of_key(key: str) -> Optional[Tuple[int, int]]:
    """(black, white) bitboards of a key's canonical board; None when the key is not one."""
    try:
        colour, rest = key.split(":", 1)
        number = int(rest.split(".", 1)[0], 36)
    except ValueError:
        return None
    black = white = 0
    for point in reversed(range(NUM_POINTS)):
        number, digit = divmod(number, 3)
        black |= (digit == 1) << point
        white |= (digit == 2) << point
    return None if number or colour not in ("1", "2") else (black, white)


def entry_problem(
    key: str, ply: int, won: int, legal: Optional[int], wins: Optional[int], margins: object
) -> Optional[str]:
    """What is wrong with an entry read without its position (``littlego store check``); None when nothing."""
    board = _board_of_key(key)
    if board is None or f".{ply}" not in key:
        return "not a key of this store"
    if won not in (0, 1) or (legal is None) != (wins is None):
        return "its value or move masks are malformed"
    if legal is not None and wins is not None:  # both or neither, as checked above
        if not legal >> PASS_BIT & 1 or legal & (board[0] | board[1]) or wins & ~legal or bool(wins) != bool(won):
            return "its moves do not fit its board"
    if margins is not None and (not isinstance(margins, bytes) or len(margins) != SLOTS):
        return "its margins are malformed"
    return None
