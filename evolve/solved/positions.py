"""Positions with every legal move's exact result: drawn, solved, and written as versioned data.

``evolve.solved.position_sources`` draws positions out of the book at plies 2-11 (both colours), from
uniform random legal play and from quick games of mixed strength, each distinct under the board's
symmetries (``draw_position_texts``), or takes those that recorded games met (``recorded_position_texts``);
``solve_positions`` has the compiled solver settle every legal move of each, on a pool of
processes, keeping each answer in a journal so that a stopped build continues;
``build_positions`` writes the versioned file with its provenance (seed, how drawn, the solver's
build) and its held-out split (``engine.ruler.position_set.held_out_key``: a fifth of the positions,
by their canonical key) that reports over-fitting; ``merge_positions`` joins several files in one.
The file, its record (``SolvedPosition``) and its reader are the ruler's (``engine.ruler.position_set``),
and so is every measure made on it (``engine.ruler.measure``).
"""

import datetime
import hashlib
import json
import os
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from engine.book import book_key, load_book
from engine.common.json_lines import end_cut_line, read_lines
from engine.common.pools import process_pool
from engine.constants import Move
from engine.data import SHIPPED_BOOK
from engine.native.compiler import OPENING_TABLE_BITS, compiled_solver
from engine.native.solver import position_from_text
from engine.native.store import SolvedStore
from engine.native.stored_solver import start_worker_solver, worker_solver
from engine.play.records import games as recorded_games
from engine.ruler.position_set import (
    HELD_OUT_SHARE,
    PositionSet,
    SolvedPosition,
    held_out_key,
    load_positions,
    move_key,
    move_of_key,
    save_positions,
)
from evolve.solved.position_sources import DEFAULT_PLIES, draw_position_texts, recorded_position_texts


def _file_digest(path: str) -> str:
    """SHA-256 of a file, or of a folder's records (their names and bytes, in order)."""
    digest = hashlib.sha256()
    if os.path.isdir(path):
        for name, data in recorded_games(path):
            digest.update(name.encode("utf-8") + b"\0" + data)
    else:
        with open(path, "rb") as handle:
            digest.update(handle.read())
    return digest.hexdigest()


def merge_positions(path: str, sources: Sequence[str]) -> PositionSet:
    """Write at ``path`` the positions of the files ``sources`` in one set (a position met twice, under
    the board's symmetries, is kept once: its first), with each source's provenance; the PositionSet."""
    positions: List[SolvedPosition] = []
    keys = set()
    merged = []
    for source in sources:
        found = load_positions(source)
        kept = 0
        for p in found.positions:
            key = (p.text.split()[0], book_key(position_from_text(p.text))[0])
            if key not in keys:
                keys.add(key)
                positions.append(p)
                kept += 1
        merged.append({"file": source, "sha256": _file_digest(source), "kept": kept, "info": found.info})
    plies = [p.ply for p in positions]
    info = {
        "merged": merged,
        "plies": [min(plies), max(plies)] if plies else [],
        "held_out": f"one in {HELD_OUT_SHARE} by canonical key",
        "created": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "won": sum(1 for p in positions if p.won),
        "critical": sum(1 for p in positions if p.critical),
        "positions": len(positions),
    }
    built = PositionSet(info, tuple(positions))
    save_positions(path, built)
    return built


def _solve(text: str) -> Tuple[str, Dict[Move, bool], int]:
    """Worker: (text, {move: wins}, the solver's nodes for it)."""
    solver = worker_solver()
    before = solver.nodes
    results = solver.move_results(position_from_text(text))
    return text, results, solver.nodes - before


def _journal_line(text: str, results: Mapping[Move, bool]) -> str:
    return json.dumps({"position": text, "moves": {move_key(m): int(w) for m, w in results.items()}}) + "\n"


def _read_journal(path: str) -> Dict[str, Dict[Move, bool]]:
    """{text: {move: wins}} of a build's journal; a last line cut off by a kill is dropped."""
    done: Dict[str, Dict[Move, bool]] = {}
    for entry in read_lines(path):
        try:
            done[entry["position"]] = {move_of_key(k): bool(v) for k, v in entry["moves"].items()}
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    return done


def solve_positions(
    texts: Sequence[str],
    journal: str,
    jobs: int = 1,
    table_bits: int = OPENING_TABLE_BITS,
    progress: Optional[Callable[[int], object]] = None,
    store: Optional[str] = None,
) -> Tuple[Dict[str, Dict[Move, bool]], int]:
    """({text: {move: wins}} for every text, the solver's nodes this time). Each answer is appended to
    ``journal`` as it comes; texts the journal or the store of solved positions at ``store`` (a path,
    None for none) already holds are not solved again, and what is solved goes into the store. Ctrl-C
    stops it with the answers kept (KeyboardInterrupt propagates)."""
    done = _read_journal(journal)
    end_cut_line(journal)  # a line a kill cut short stays apart from the next one written
    nodes = 0
    if store is not None:
        with SolvedStore(store) as stored, open(journal, "a", encoding="utf-8") as handle:
            for text in texts:
                known = None if text in done else stored.results(position_from_text(text))
                if known is not None:
                    handle.write(_journal_line(text, known))
                    done[text] = known
    todo = [text for text in texts if text not in done]
    if progress:
        progress(len(texts) - len(todo))
    if not todo:
        return done, nodes
    pool = process_pool(jobs, start="spawn", initializer=start_worker_solver, initargs=(table_bits, store))
    try:
        with open(journal, "a", encoding="utf-8") as handle:
            for text, results, spent in pool.imap_unordered(_solve, todo):
                handle.write(_journal_line(text, results))
                handle.flush()
                done[text] = results
                nodes += spent
                if progress:
                    progress(len(texts) - len(todo) + sum(1 for t in todo if t in done))
    finally:
        pool.terminate()
    return done, nodes


def build_positions(
    path: str,
    per_ply: int,
    plies: Tuple[int, int] = DEFAULT_PLIES,
    seed: int = 1,
    jobs: int = 1,
    table_bits: int = OPENING_TABLE_BITS,
    progress: Optional[Callable[[int], Callable[[int], object]]] = None,
    store: Optional[str] = None,
    records: Sequence[str] = (),
) -> PositionSet:
    """Draw, solve and write a positions file at ``path`` (its journal beside it until it is written),
    reading and growing the store of solved positions at ``store`` (a path; None: none); the PositionSet
    written. With ``records`` (game records: ``recorded_position_texts``) the positions are drawn from those
    games instead of random play. ``progress(total)``: a function ``update(done)`` for the solving, told
    how many of ``total`` are settled (``counter``'s)."""
    started = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    book = load_book(SHIPPED_BOOK) if os.path.exists(SHIPPED_BOOK) else None
    if records:
        drawn = recorded_position_texts(records, plies, seed, per_ply, book)
        how = "from the game records listed in 'records' (every position at the plies, none over), "
    else:
        drawn = draw_position_texts(per_ply, plies, seed, book)
        how = (
            "half uniform random legal play, half games of mixed strength (evolve.solved.labels: the shipped "
            "weights at depths 1-3, greedy, aggressive, a quarter of the moves random, from 2-ply random openings); "
        )
    journal = path + ".journal"
    update = progress(len(drawn)) if progress else None
    try:
        solved, nodes = solve_positions([text for text, _ in drawn], journal, jobs, table_bits, update, store)
    finally:
        if update is not None and hasattr(update, "close"):
            update.close()
    positions = tuple(
        SolvedPosition(text, source, held_out_key(book_key(position_from_text(text))[0]), solved[text])
        for text, source in drawn
    )
    info = {
        "seed": seed,
        "plies": list(plies),
        "per_ply": per_ply,
        "drawn": how + "none in the shipped book, distinct under the symmetries",
        "book": os.path.basename(SHIPPED_BOOK) if book is not None else None,
        **({"records": [{"file": r, "sha256": _file_digest(r)} for r in records]} if records else {}),
        "solver": os.path.basename(compiled_solver()),
        "solver_nodes_this_build": nodes,
        "held_out": f"one in {HELD_OUT_SHARE} by canonical key",
        "created": started.isoformat(),
        "won": sum(1 for p in positions if p.won),
        "critical": sum(1 for p in positions if p.critical),
        "positions": len(positions),
    }
    save_positions(path, PositionSet(info, positions))
    os.remove(journal)
    return PositionSet(info, positions)
