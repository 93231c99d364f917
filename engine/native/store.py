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

The schema, the key and how an entry holds a position's moves: ``engine.native.store_schema``.

The prefill: the package ships a store of its own (``engine/data/solved-prefill.sqlite``, every
position of the first plies with every move; ``littlego store ship`` writes it), read-only beneath
every store a tool opens. A store answers from its own file first and from the prefill for what its
file lacks, and writes only to its own file; a user's store made before an upgrade sees the newer
prefill at once, and none is copied. The prefill passes the same checks as any store on open (an
SQLite file, whole, of this format and these rules, each entry's checksum on read), so a damaged one
is refused by name like any other.
"""

import os
from typing import (
    Dict,
    Iterable,
    List,
    Literal,
    Optional,
    Tuple,
    TypedDict,
    Union,
    cast,
    overload,
)

from engine.constants import Move
from engine.data import SOLVED_PREFILL
from engine.native.compiler import cache_dir
from engine.native.store_file import StoreFile
from engine.native.store_schema import (
    MARGIN_UNKNOWN,
    STORE_COLUMNS,
    Row,
    encode_margins,
    entry_checksum,
    entry_problem,
    legal_mask,
    move_slot,
    signed_byte,
    store_key,
)
from engine.position import Position

STORE_ENV = "LITTLEGO_STORE"  # the store every tool uses unless told otherwise

MoveResults = Dict[Move, bool]  # {move: whether it wins} for every legal move and PASS
Margins = Dict[Move, float]  # {move: its margin for the side to move}
# What ``record`` is told of a position: (position, results, won, margins).
Record = Tuple[Position, Optional[MoveResults], Optional[bool], Optional[Margins]]


class StoreSummary(TypedDict):
    """A store's file in figures (``SolvedStore.summary``)."""

    path: str
    format: Optional[str]  # its meta table's, as written
    rules: Optional[str]
    bytes: int  # of the file and its write-ahead log
    positions: int
    by_ply: Dict[int, Tuple[int, int]]  # {ply: (positions with every move, with their value only)}
    prefill: Optional["StoreSummary"]  # the prefill's beneath it, or None


def default_store_path() -> str:
    """The store the tools share: $LITTLEGO_STORE, else solved.sqlite in littlego's cache folder."""
    return os.environ.get(STORE_ENV) or os.path.join(cache_dir(), "solved.sqlite")


def _moves(position: Position) -> List[Move]:
    return position.all_moves()


def _same_file(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


class SolvedStore(StoreFile):
    """The store at ``path`` (created when missing), checked on open, over the read-only store
    ``prefill`` (the package's by default; None or a missing file: none); usable from threads and,
    after a fork, from the child (each process opens its own connection). ``read_only``: open an
    existing store for reading only (the prefill is opened so)."""

    def __init__(
        self, path: "Union[str, os.PathLike[str]]", prefill: Optional[str] = SOLVED_PREFILL, read_only: bool = False
    ):
        super().__init__(path, read_only)
        self.prefill: Optional[SolvedStore] = None
        if prefill is not None and os.path.exists(prefill) and not _same_file(prefill, self.path):
            self.prefill = SolvedStore(prefill, prefill=None, read_only=True)

    def _own_row(self, key: str) -> Optional[Row]:
        """(won, legal, wins, margins) of ``key`` in this store's own file; None when it has none."""
        rows = self._execute(f"SELECT {STORE_COLUMNS} FROM positions WHERE key = ?", (key,))
        if not rows:
            return None
        if entry_checksum(*rows[0][:-1]) != rows[0][-1]:
            self._refuse(f"damaged: the entry of {key} fails its checksum; remove the store or use another")
        row: Row = rows[0][2:6]
        return row

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
        if wins is None or legal != legal_mask(position, symmetry) or bool(won) != bool(wins) or wins & ~legal:
            self._refuse(f"damaged: the entry of {store_key(position)[0]} does not fit the position")
        return {move: bool(wins >> move_slot(move, symmetry) & 1) for move in _moves(position)}

    def margins(self, position: Position) -> Optional[Margins]:
        """{move: its margin for the side to move} for the moves whose margin the store holds; else None."""
        row, symmetry = self._row(position)
        if row is None or row[3] is None:
            return None
        stored = row[3]
        found = {move: signed_byte(stored[move_slot(move, symmetry)]) for move in _moves(position)}
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
                        f"INSERT OR REPLACE INTO positions ({STORE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        entry + (entry_checksum(*entry),),
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
            legal = legal_mask(position, symmetry)
            wins = sum(1 << move_slot(move, symmetry) for move, good in results.items() if good)
            won = bool(wins)
        if won is None:
            raise ValueError("record needs results or won")
        packed = None if margins is None else encode_margins(margins, symmetry)
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
        for entry in self._execute(f"SELECT {STORE_COLUMNS} FROM positions"):
            why = "fails its checksum" if entry_checksum(*entry[:-1]) != entry[-1] else entry_problem(*entry[:-1])
            key = entry[0]
            if why:
                problems.append(f"{key}: {why}")
        if self.prefill is not None:
            problems += [f"{self.prefill.path}: {problem}" for problem in self.prefill.check()]
        return problems

    def close(self) -> None:
        super().close()
        if self.prefill is not None:
            self.prefill.close()

    def __enter__(self) -> "SolvedStore":
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        self.close()
        return False


@overload
def open_store(path: None) -> None: ...


@overload
def open_store(path: str) -> SolvedStore: ...


def open_store(path: Optional[str]) -> Optional[SolvedStore]:
    """The SolvedStore at ``path``; None for None (no store)."""
    return None if path is None else SolvedStore(path)
