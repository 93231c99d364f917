"""A store's SQLite file: checked on open, created with the store's schema, shared by processes.

Why SQLite: it is in the standard library; the store is one file; several processes write to it at
once (a pool of solvers, a web board and a labelling run on one machine) through its write-ahead log,
each waiting its turn (a busy timeout) instead of failing or interleaving bytes; and it checks its own
pages (``PRAGMA quick_check`` on open, ``integrity_check`` in ``littlego store check``), so a damaged
or truncated file is refused by name, never read as wrong values.

``StoreFile`` is the file alone; ``engine.native.store.SolvedStore`` reads and writes the positions in it.
"""

import os
import pathlib
import sqlite3
import threading
import time
from typing import Any, List, NoReturn, Optional, Sequence, Union

from engine.errors import UserError
from engine.native.store_schema import RULES_FINGERPRINT, SCHEMA, STORE_FORMAT

BUSY_SECONDS = 60.0  # how long a writer waits for another's transaction before giving up
OPEN_RETRY_SECONDS = 0.05  # the pause between tries to open a store another process holds
SQLITE_HEADER = b"SQLite format 3\x00"


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


class StoreFile:
    """The store's SQLite file at ``path`` (created when missing), checked on open; usable from threads
    and, after a fork, from the child (each process opens its own connection). ``read_only``: open an
    existing file for reading only, never written nor locked."""

    def __init__(self, path: "Union[str, os.PathLike[str]]", read_only: bool = False):
        self.path = os.fspath(path)
        self.read_only = read_only
        self._lock = threading.RLock()
        self._connection: Optional[sqlite3.Connection] = None
        self._pid: Optional[int] = None
        self._connect()

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
            for statement in SCHEMA:
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
