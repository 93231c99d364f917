"""One store of solved positions on disk, shared by every tool that asks the compiled solver.

A position solved once is solved for good. Every tool that asks the compiled solver reads the store
first and writes what it solves: ``littlego solve --native``; the browser board (wins and losses,
and the Python solver's exact margins); the won-side openings (``littlego openings solve``,
``solve-seed``, ``table``); the give-away study (``littlego study giveaways``, ``mistakes``,
``depth``); evolve's labels, regret positions and the exploitability report's adversary; and the
opening book (``littlego book``): ``check --solve`` reads and writes it as the others do, ``extend``,
``merge`` and the White book's filling take a winning move from the store where it holds every move
of a position, and ``build`` keeps the values its lines prove (each book position won, the one after
its move lost) but cannot start its search from the store (``engine.native.book_build`` says why). Not
the store's: the benchmark (``littlego bench solver`` measures the solver, so it must solve) and the
``shipped`` player's exact moves in games (``engine.players.shipped``, from ply 12 on, milliseconds a
move). The compiled solver behind the store is ``engine.native.stored_solver``.

Why SQLite: it is in the standard library; the store is one file; several processes write to it at
once (a pool of solvers, a web board and a labelling run on one machine) through its write-ahead log,
each waiting its turn (a busy timeout) instead of failing or interleaving bytes; and it checks its own
pages (``PRAGMA quick_check`` on open, ``integrity_check`` in ``littlego store check``), so a damaged
or truncated file is refused by name, never read as wrong values.

The schema::

    meta(name TEXT PRIMARY KEY, value TEXT)          -- "format" and "rules" (RULES_FINGERPRINT)
    positions(key TEXT PRIMARY KEY,                  -- "<colour>:<book_key>": canonical under the 8 symmetries
              ply INTEGER, won INTEGER,              -- whether the side to move wins
              legal INTEGER, wins INTEGER,           -- move bitmasks in the canonical orientation
              margins BLOB,                          -- 26 signed bytes, twice each move's margin
              checksum INTEGER)                      -- CRC-32 of the entry: a flipped bit is refused

The prefill: the package ships a store of its own (``engine/data/solved-prefill.sqlite``, every
position of the first plies with every move; ``littlego store ship`` writes it), read-only beneath
every store a tool opens. A store answers from its own file first and from the prefill for what its
file lacks, and writes only to its own file; a user's store made before an upgrade sees the newer
prefill at once, and none is copied. The prefill passes the same checks as any store on open (an
SQLite file, whole, of this format and these rules, each entry's checksum on read), so a damaged one
is refused by name like any other.

Key: the colour to move, then ``engine.book.book_key`` (the canonical board, the ply, whether the
last move passed, the KO point's image): everything the rest of the game depends on. Moves are kept
turned into the canonical orientation (bit ``p`` for point ``p``, bit 25 for PASS) and turned back to
the caller's on read. ``legal``/``wins`` are NULL where only the position's value is known (a ``wins``
question); ``margins`` is NULL where no margin is known, and holds MARGIN_UNKNOWN for a move without one.
"""

import hashlib
import os
import pathlib
import sqlite3
import threading
import time
import zlib
from typing import (
    Any,
    Dict,
    Iterable,
    List,
    Literal,
    NoReturn,
    Optional,
    Sequence,
    Tuple,
    TypedDict,
    Union,
    cast,
    overload,
)

from engine.book import book_key
from engine.constants import BOARD_SIZE, KOMI, MAX_MOVES, NUM_POINTS, PASS, RULES_VERSION, Move
from engine.data import SOLVED_PREFILL
from engine.errors import UserError
from engine.native.compiler import _cache_dir
from engine.position import Position
from engine.symmetry import SYMMETRIES, turn

STORE_FORMAT = "littlego-store 1"
RULES_FINGERPRINT = hashlib.sha256(
    f"rules {RULES_VERSION} size {BOARD_SIZE} komi {KOMI} plies {MAX_MOVES}".encode()
).hexdigest()[:16]
STORE_ENV = "LITTLEGO_STORE"  # the store every tool uses unless told otherwise
BUSY_SECONDS = 60.0  # how long a writer waits for another's transaction before giving up
OPEN_RETRY_SECONDS = 0.05  # the pause between tries to open a store another process holds
PASS_BIT = NUM_POINTS  # the pass's bit in the move masks
SLOTS = NUM_POINTS + 1  # the points, then PASS
MARGIN_UNKNOWN = -128  # a margins byte with no margin known
SQLITE_HEADER = b"SQLite format 3\x00"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS positions (key TEXT PRIMARY KEY, ply INTEGER NOT NULL, won INTEGER NOT NULL, "
    "legal INTEGER, wins INTEGER, margins BLOB, checksum INTEGER NOT NULL) WITHOUT ROWID",
)
_COLUMNS = "key, ply, won, legal, wins, margins, checksum"

MoveResults = Dict[Move, bool]  # {move: whether it wins} for every legal move and PASS
Margins = Dict[Move, float]  # {move: its margin for the side to move}
# What ``record`` is told of a position: (position, results, won, margins).
Record = Tuple[Position, Optional[MoveResults], Optional[bool], Optional[Margins]]
# A position's entry: (won, legal, wins, margins), as the columns hold them.
Row = Tuple[int, Optional[int], Optional[int], Optional[bytes]]


class StoreSummary(TypedDict):
    """A store's file in figures (``SolvedStore.summary``)."""

    path: str
    format: Optional[str]  # its meta table's, as written
    rules: Optional[str]
    bytes: int  # of the file and its write-ahead log
    positions: int
    by_ply: Dict[int, Tuple[int, int]]  # {ply: (positions with every move, with their value only)}
    prefill: Optional["StoreSummary"]  # the prefill's beneath it, or None


def _is_busy(error: BaseException) -> bool:
    """Whether an SQLite error is another connection's lock (worth waiting for), not a fault of the file."""
    if not isinstance(error, sqlite3.OperationalError):
        return False
    code = getattr(error, "sqlite_errorcode", None)  # Python 3.11 on; before it, the message says
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    message = str(error).lower()
    return "locked" in message or "busy" in message


class StoreError(UserError, ValueError):
    """A store file that cannot be used: damaged, not a store, or from other rules; the message names it."""


def default_store_path() -> str:
    """The store the tools share: $LITTLEGO_STORE, else solved.sqlite in littlego's cache folder."""
    return os.environ.get(STORE_ENV) or os.path.join(_cache_dir(), "solved.sqlite")


def store_key(position: Position) -> Tuple[str, int]:
    """(key, symmetry): the store's key of ``position`` and the symmetry that turns it canonical."""
    key, symmetry = book_key(position)
    return f"{position.player}:{key}", symmetry


def _slot(move: Move, symmetry: int) -> int:
    return PASS_BIT if move == PASS else SYMMETRIES[symmetry][move]


def _moves(position: Position) -> List[Move]:
    return position.legal_points() + [PASS]


def _legal_mask(position: Position, symmetry: int) -> int:
    return turn(position.legal_mask(), symmetry) | 1 << PASS_BIT


def _encode_margins(margins: Margins, symmetry: int) -> bytes:
    slots = [MARGIN_UNKNOWN] * SLOTS
    for move, margin in margins.items():
        slots[_slot(move, symmetry)] = int(round(2 * margin))
    return bytes(value & 0xFF for value in slots)


def _checksum(key: str, ply: int, won: int, legal: Optional[int], wins: Optional[int], margins: Optional[bytes]) -> int:
    """The CRC-32 an entry is written with: SQLite checks its pages' structure, not the values in them."""
    return zlib.crc32(f"{key}|{ply}|{won}|{legal}|{wins}|".encode() + (margins or b""))


def _signed(byte: int) -> int:
    return byte - 256 if byte > 127 else byte


def _same_file(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


class SolvedStore:
    """The store at ``path`` (created when missing), checked on open, over the read-only store
    ``prefill`` (the package's by default; None or a missing file: none); usable from threads and,
    after a fork, from the child (each process opens its own connection). ``read_only``: open an
    existing store for reading only (the prefill is opened so)."""

    def __init__(
        self, path: "Union[str, os.PathLike[str]]", prefill: Optional[str] = SOLVED_PREFILL, read_only: bool = False
    ):
        self.path = os.fspath(path)
        self.read_only = read_only
        self._lock = threading.RLock()
        self._connection: Optional[sqlite3.Connection] = None
        self._pid: Optional[int] = None
        self._connect()
        self.prefill: Optional[SolvedStore] = None
        if prefill is not None and os.path.exists(prefill) and not _same_file(prefill, self.path):
            self.prefill = SolvedStore(prefill, prefill=None, read_only=True)

    def _refuse(self, why: str) -> NoReturn:
        raise StoreError(f"{self.path}: {why}")

    def _connect(self) -> None:
        if os.path.isdir(self.path):
            self._refuse("is a folder, not a store of solved positions")
        if os.path.exists(self.path) and os.path.getsize(self.path) > 0:
            with open(self.path, "rb") as handle:
                if handle.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                    self._refuse("not a store of solved positions (not an SQLite file)")
        elif self.read_only:
            self._refuse("no store of solved positions here (or an empty file)")
        if self.read_only:  # never written, nor locked: it may lie in a read-only install
            target = pathlib.Path(os.path.abspath(self.path)).as_uri() + "?mode=ro&immutable=1"
        else:
            target = self.path
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        deadline = time.monotonic() + BUSY_SECONDS
        while True:
            try:
                connection = sqlite3.connect(
                    target, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False, uri=self.read_only
                )
                try:
                    self._open(connection)
                except BaseException:
                    connection.close()
                    raise
                break
            except sqlite3.DatabaseError as error:
                # SQLite does not always call its busy handler while another process creates the file or
                # recovers its log, so "locked" on open is contention: wait for it, never call it damage
                if not _is_busy(error):
                    self._refuse(
                        f"damaged or not a store of solved positions ({error}); remove it or use another store"
                    )
                if time.monotonic() >= deadline:
                    self._refuse(f"busy: another process has held it for {BUSY_SECONDS:.0f} s ({error}); try again")
                time.sleep(OPEN_RETRY_SECONDS)
        self._connection, self._pid = connection, os.getpid()

    def _open(self, connection: sqlite3.Connection) -> None:
        connection.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
        check = connection.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            self._refuse(f"damaged ({check}); remove it or use another store")
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and "meta" not in tables:
            self._refuse("an SQLite file, but not a store of solved positions (no meta table)")
        if self.read_only and "positions" not in tables:
            self._refuse("an SQLite file, but not a store of solved positions (no positions table)")
        if "positions" not in tables:
            connection.execute("PRAGMA journal_mode = WAL")  # persistent: once, by whoever creates the file
            connection.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA:
                connection.execute(statement)
            connection.executemany(
                "INSERT OR IGNORE INTO meta VALUES (?, ?)", [("format", STORE_FORMAT), ("rules", RULES_FINGERPRINT)]
            )
            connection.execute("COMMIT")
        meta = dict(connection.execute("SELECT name, value FROM meta"))
        if meta.get("format") != STORE_FORMAT:
            self._refuse(f"a store of format {meta.get('format')!r}; this littlego reads {STORE_FORMAT!r}")
        if meta.get("rules") != RULES_FINGERPRINT:
            self._refuse(
                f"solved under other rules (rules {meta.get('rules')}, this littlego's {RULES_FINGERPRINT}): "
                "its values would be wrong here; remove it or use another store"
            )

    def _execute(self, statement: str, parameters: Sequence[object] = ()) -> List[Any]:
        with self._lock:
            if self._pid != os.getpid():  # a forked child: never share the parent's connection
                self._connect()
            try:
                assert self._connection is not None  # connected on open, and again in a forked child
                return self._connection.execute(statement, parameters).fetchall()
            except sqlite3.DatabaseError as error:
                self._refuse(f"damaged or unreadable ({error}); remove it or use another store")

    def _own_row(self, key: str) -> Optional[Row]:
        """(won, legal, wins, margins) of ``key`` in this store's own file; None when it has none."""
        rows = self._execute(f"SELECT {_COLUMNS} FROM positions WHERE key = ?", (key,))
        if not rows:
            return None
        if _checksum(*rows[0][:-1]) != rows[0][-1]:
            self._refuse(f"damaged: the entry of {key} fails its checksum; remove the store or use another")
        return rows[0][2:6]

    def _row(self, position: Position) -> Tuple[Optional[Row], int]:
        """((won, legal, wins, margins) or None, symmetry): this file's entry, what it lacks from the prefill."""
        key, symmetry = store_key(position)
        row = self._own_row(key)
        if self.prefill is not None and (row is None or None in row):
            shipped = self.prefill._own_row(key)
            if shipped is not None:
                row = (
                    shipped
                    if row is None
                    else cast(Row, tuple(a if a is not None else b for a, b in zip(row, shipped)))
                )
        return row, symmetry

    def value(self, position: Position) -> Optional[bool]:
        """Whether the side to move wins, where the store knows; else None."""
        row, _ = self._row(position)
        return None if row is None else bool(row[0])

    def results(self, position: Position) -> Optional[MoveResults]:
        """{move: whether it wins} for every legal move and PASS, where the store holds them; else None."""
        row, symmetry = self._row(position)
        if row is None or row[1] is None:
            return None
        won, legal, wins, _ = row
        # legal without wins: a malformed entry, damage as any other
        if wins is None or legal != _legal_mask(position, symmetry) or bool(won) != bool(wins) or wins & ~legal:
            self._refuse(f"damaged: the entry of {store_key(position)[0]} does not fit the position")
        return {move: bool(wins >> _slot(move, symmetry) & 1) for move in _moves(position)}

    def margins(self, position: Position) -> Optional[Margins]:
        """{move: its margin for the side to move} for the moves whose margin the store holds; else None."""
        row, symmetry = self._row(position)
        if row is None or row[3] is None:
            return None
        stored = row[3]
        found = {move: _signed(stored[_slot(move, symmetry)]) for move in _moves(position)}
        return {move: value / 2 for move, value in found.items() if value != MARGIN_UNKNOWN}

    def record(
        self,
        position: Position,
        results: Optional[MoveResults] = None,
        won: Optional[bool] = None,
        margins: Optional[Margins] = None,
    ) -> None:
        """Keep what is known of ``position``: every move's result (``results``, {move: wins}), or only
        its value (``won``), and margins ({move: margin}) where known; what is there already stays."""
        self.record_many([(position, results, won, margins)])

    def record_values(self, values: Dict[Position, bool]) -> None:
        """Keep the value of each position of ``values`` ({position: whether the side to move wins}) in
        one transaction: what a tool learns of many positions at once (a book's lines) costs one write."""
        self.record_many([(position, None, won, None) for position, won in values.items()])

    def record_many(self, entries: Iterable[Record]) -> None:
        """``record`` for each (position, results, won, margins) of ``entries``, in one transaction."""
        rows = [self._entry(*entry) for entry in entries]
        if not rows:
            return
        if self.read_only:
            self._refuse("opened for reading only (the package's prefill is never written)")
        with self._lock:
            self._execute("BEGIN IMMEDIATE")  # read, merge and write as one: other writers wait
            try:
                for position, key, legal, wins, packed, won in rows:
                    found, _ = self._row(position)
                    if found is not None:  # what is known already stays
                        legal = found[1] if legal is None else legal
                        wins = found[2] if wins is None else wins
                        packed = found[3] if packed is None else packed
                    entry = (key, position.moves_played, int(won), legal, wins, packed)
                    self._execute(
                        f"INSERT OR REPLACE INTO positions ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        entry + (_checksum(*entry),),
                    )
            except BaseException:
                self._execute("ROLLBACK")
                raise
            self._execute("COMMIT")

    def _entry(
        self,
        position: Position,
        results: Optional[MoveResults] = None,
        won: Optional[bool] = None,
        margins: Optional[Margins] = None,
    ) -> Tuple[Position, str, Optional[int], Optional[int], Optional[bytes], bool]:
        """(position, key, legal, wins, margins packed, won) of what ``record`` is told."""
        key, symmetry = store_key(position)
        legal = wins = None
        if results is not None:
            legal = _legal_mask(position, symmetry)
            wins = sum(1 << _slot(move, symmetry) for move, good in results.items() if good)
            won = bool(wins)
        if won is None:
            raise ValueError("record needs results or won")
        packed = None if margins is None else _encode_margins(margins, symmetry)
        return position, key, legal, wins, packed, won

    def holds(self, position: Position) -> bool:
        """Whether the store holds every move's result of ``position``."""
        row, _ = self._row(position)
        return row is not None and row[1] is not None

    def summary(self) -> StoreSummary:
        """{"path", "format", "rules", "bytes", "positions", "by_ply": {ply: (with every move, value only)},
        "prefill": the prefill's summary or None}: of this store's own file, and of the prefill beneath it."""
        meta = dict(self._execute("SELECT name, value FROM meta"))
        by_ply = {
            ply: (moves, total - moves)
            for ply, total, moves in self._execute(
                "SELECT ply, count(*), count(legal) FROM positions GROUP BY ply ORDER BY ply"
            )
        }
        if not self.read_only:
            self._execute(
                "PRAGMA wal_checkpoint(PASSIVE)"
            )  # the log's pages into the file, as far as no reader holds them
        size = sum(os.path.getsize(p) for p in (self.path, self.path + "-wal") if os.path.exists(p))
        return {
            "path": self.path,
            "format": meta.get("format"),
            "rules": meta.get("rules"),
            "bytes": size,
            "positions": sum(sum(counts) for counts in by_ply.values()),
            "by_ply": by_ply,
            "prefill": None if self.prefill is None else self.prefill.summary(),
        }

    def check(self) -> List[str]:
        """The problems found by SQLite's full integrity check and by reading every entry ([] when none)."""
        problems = [row[0] for row in self._execute("PRAGMA integrity_check") if row[0] != "ok"]
        for entry in self._execute(f"SELECT {_COLUMNS} FROM positions"):
            why = "fails its checksum" if _checksum(*entry[:-1]) != entry[-1] else _entry_problem(*entry[:-1])
            key = entry[0]
            if why:
                problems.append(f"{key}: {why}")
        if self.prefill is not None:
            problems += [f"{self.prefill.path}: {problem}" for problem in self.prefill.check()]
        return problems

    def seal(self) -> None:
        """Make the file self-contained and compact, as the package ships it: no write-ahead log, no free pages."""
        with self._lock:
            self._execute("PRAGMA journal_mode = DELETE")
            self._execute("VACUUM")

    def close(self) -> None:
        with self._lock:
            if self._connection is not None and self._pid == os.getpid():
                self._connection.close()
            self._connection = None
        if self.prefill is not None:
            self.prefill.close()

    def __enter__(self) -> "SolvedStore":
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.close()
        return False


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


def _entry_problem(
    key: str, ply: int, won: int, legal: Optional[int], wins: Optional[int], margins: object
) -> Optional[str]:
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


@overload
def open_store(path: None) -> None: ...


@overload
def open_store(path: str) -> SolvedStore: ...


def open_store(path: Optional[str]) -> Optional[SolvedStore]:
    """The SolvedStore at ``path``; None for None (no store)."""
    return None if path is None else SolvedStore(path)
