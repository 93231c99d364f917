"""Growing the store of solved positions ahead of need: every position (or a sample at each ply) up
to a ply, each solved once on a pool of processes.

``positions_to_grow`` lists the positions, distinct under the symmetries, reached from a start (the
empty board by default): all of them at each ply, or ``sample`` drawn by random legal play. Their
number grows about tenfold a ply, and an early position costs the compiled solver seconds to minutes,
so all of them is for a late start or the first few plies. ``grow_store`` solves those the store
does not hold yet (a rerun goes on where a stopped one ended) and tells how long each ply took.
``ship_store`` writes the package's prefill from a grown store: those positions alone, compacted.
"""

import os
import random
import time
from typing import Callable, Dict, Iterator, List, NamedTuple, Optional, Set, Tuple

from engine.common.pools import process_pool
from engine.common.seeds import derive_seed
from engine.constants import Move
from engine.native.compiler import DEFAULT_TABLE_BITS
from engine.native.solver import describe_position, position_from_text
from engine.native.store import SolvedStore, StoreSummary
from engine.native.store_file import StoreError
from engine.native.store_schema import store_key
from engine.native.stored_solver import start_worker_solver, worker_solver
from engine.playout import random_point
from engine.position import Position

STALE_DRAWS = 200  # random games in a row that find no new position: the ply holds no more
PositionsByPly = Dict[int, List[Position]]  # {ply: [position]}


def _children(position: Position) -> Iterator[Position]:
    moves: List[Move] = position.all_moves()
    for move in moves:
        child = position.play_point(move)
        if not child.is_over:
            yield child


def positions_to_grow(
    start: Position, plies: Tuple[int, int], sample: Optional[int] = None, seed: int = 1
) -> PositionsByPly:
    """{ply: [position]} for each ply of ``plies`` (low, high) reached from ``start``, distinct under the
    symmetries: every one, or ``sample`` at each ply from uniformly random legal play (fewer where the
    ply holds fewer)."""
    low, high = plies
    found: PositionsByPly = {}
    if sample is None:
        level: Dict[str, Position] = {store_key(start)[0]: start} if not start.is_over else {}
        for ply in range(start.moves_played, high + 1):
            if ply >= low:
                found[ply] = list(level.values())
            if ply < high:
                level = {store_key(child)[0]: child for position in level.values() for child in _children(position)}
        return found
    for ply in range(max(low, start.moves_played), high + 1):
        keys: Set[str] = set()
        positions: List[Position] = []
        attempt, stale = 0, 0
        while len(positions) < sample and stale < STALE_DRAWS:
            rng = random.Random(derive_seed(seed, ply * 1_000_003 + attempt))
            attempt += 1
            position = start
            while position.moves_played < ply and not position.is_over:
                position = position.play_point(random_point(position, rng))
            key = store_key(position)[0]
            if position.is_over or key in keys:
                stale += 1
                continue
            keys.add(key)
            positions.append(position)
            stale = 0
        found[ply] = positions
    return found


class PlyGrowth(NamedTuple):
    """One ply of a growth: positions solved now, those the store held already, their wall seconds
    (summed over the workers) and the solver's nodes."""

    ply: int
    solved: int
    held: int
    seconds: float
    nodes: int


def _solve(text: str) -> Tuple[int, float, int]:
    """Worker: (ply, wall seconds, nodes) of solving every move of ``text`` into the store."""
    solver = worker_solver()
    started, before = time.perf_counter(), solver.nodes
    position = position_from_text(text)
    solver.move_results(position)
    return position.moves_played, time.perf_counter() - started, solver.nodes - before


def grow_store(
    path: str,
    by_ply: PositionsByPly,
    jobs: int = 1,
    table_bits: int = DEFAULT_TABLE_BITS,
    progress: Optional[Callable[[int], object]] = None,
) -> List[PlyGrowth]:
    """[PlyGrowth] after solving into the store at ``path`` every position of ``by_ply`` ({ply:
    [position]}) it does not hold, on ``jobs`` processes. ``progress(done)`` hears how many of all the
    positions are settled. Ctrl-C stops it; what was solved stays stored."""
    todo: List[str] = []
    held = dict.fromkeys(by_ply, 0)
    with SolvedStore(path) as store:
        for ply, positions in sorted(by_ply.items()):
            for position in positions:
                if store.holds(position):
                    held[ply] += 1
                else:
                    todo.append(describe_position(position))
    # {ply: (solved, seconds, nodes)} of the positions solved now
    counts: Dict[int, Tuple[int, float, int]] = {ply: (0, 0.0, 0) for ply in by_ply}
    done = sum(held.values())
    if progress:
        progress(done)
    if todo:
        pool = process_pool(jobs, initializer=start_worker_solver, initargs=(table_bits, path))
        try:
            for ply, seconds, nodes in pool.imap_unordered(_solve, todo):
                solved, spent, used = counts[ply]
                counts[ply] = (solved + 1, spent + seconds, used + nodes)
                done += 1
                if progress:
                    progress(done)
        finally:
            pool.terminate()
    return [PlyGrowth(ply, counts[ply][0], held[ply], counts[ply][1], counts[ply][2]) for ply in sorted(by_ply)]


def ship_store(path: str, by_ply: PositionsByPly, out: str) -> StoreSummary:
    """Write to ``out`` a store of the positions of ``by_ply`` ({ply: [position]}) alone, each with every
    move as the store at ``path`` (over its prefill) holds it, sealed as the package ships it; the
    summary of ``out``. StoreError, writing nothing, where the store lacks one of them."""
    positions = [position for ply in sorted(by_ply) for position in by_ply[ply]]
    with SolvedStore(path) as store:
        missing = [position for position in positions if not store.holds(position)]
        if missing:
            raise StoreError(
                f"{path}: {len(missing)} of the {len(positions)} positions are not held with every move "
                f"(the first at ply {missing[0].moves_played}): grow the store over those plies first"
            )
        entries = [(position, store.results(position), None, store.margins(position) or None) for position in positions]
    partial = f"{out}.partial"
    for leftover in (partial, partial + "-wal", partial + "-shm"):
        if os.path.exists(leftover):
            os.remove(leftover)
    with SolvedStore(partial, prefill=None) as shipped:
        shipped.record_many(entries)
        shipped.seal()
    os.replace(partial, out)
    with SolvedStore(out, prefill=None, read_only=True) as shipped:
        return shipped.summary()
