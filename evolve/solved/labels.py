"""Positions labelled by the exact solver: what ``evolve fit`` tunes the evaluation on.

Games give a noisy fitness: 36 games an individual leave a standard error near 0.08 on a
win rate, more than the differences between good weights. Little-Go is solved, so a
position can instead be labelled exactly: the compiled solver says whether its side to
move wins. ``sample_positions`` plays quick games of mixed strength from random openings,
some moves random, and keeps positions from the plies where the agent's search ends its
lines when it plays an early move (the evaluation's job); ``label_positions`` has the
solver settle each one, on a pool of processes.

The file (gzipped JSON)::

    {"format": "littlego-labels 1",
     "info": {"seed": ..., "plies": [6, 14], "games": ..., "solver_nodes": ..., ...},
     "positions": [["1 8 <previous board> <board>", 1], ...]}   # text, 1 if the mover wins

Each position is written as the compiled solver reads it (colour to move, ply, previous
board, board): everything the rest of the game depends on.
"""

import datetime
import gzip
import json
import os
import random
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from engine.book import book_key
from engine.common.gzip_documents import read_positions_document
from engine.common.pools import process_pool
from engine.common.progress import counter
from engine.common.seeds import derive_seed
from engine.data import SHIPPED_PARAMS
from engine.errors import UserError
from engine.native.compiler import DEFAULT_TABLE_BITS
from engine.native.solver import describe_position, position_from_text
from engine.native.stored_solver import start_worker_solver, worker_solver
from engine.params import load_params
from engine.players.base import Player
from engine.players.scripted import AggressivePlayer, GreedyPlayer
from engine.players.searcher import AgentPlayer
from engine.playout import random_opening, random_point
from engine.position import Position
from engine.protocol import write_atomic

LABELS_FORMAT = "littlego-labels 1"


class LabelsError(UserError, ValueError):
    """A labels file that cannot be used; the message names the file and what is wrong."""


def _sampling_players(seed: int) -> List[Player]:
    """The players whose games the positions come from: the shipped weights at depths 1-3 and
    two of the course's scripted opponents (each mixed with random moves by the caller)."""
    params = load_params(SHIPPED_PARAMS)
    players: List[Player] = [AgentPlayer(params, depth, spec=f"agent@{depth}", timed=False) for depth in (1, 2, 3)]
    players += [GreedyPlayer(), AggressivePlayer()]
    for index, player in enumerate(players):
        player.new_game(1, derive_seed(seed, index))
    return players


def sample_game(
    seed: int, plies: Tuple[int, int], per_game: int, epsilon: float = 0.25, opening_plies: int = 2
) -> List[Tuple[str, str]]:
    """Up to ``per_game`` positions from one game: (text, canonical key) pairs at plies in
    ``plies`` (low, high), the game played from a random opening by two players drawn from
    the sampling players, each move random with probability ``epsilon``."""
    rng = random.Random(seed)
    players = _sampling_players(seed)
    sides = [rng.choice(players), rng.choice(players)]
    position, _ = random_opening(opening_plies, seed)
    seen = []
    low, high = plies
    while not position.is_over and position.moves_played <= high:
        if position.moves_played >= low:
            seen.append(position)
        player = sides[position.moves_played % 2]
        move = random_point(position, rng) if rng.random() < epsilon else player.move(position)
        position = position.play_point(move)
    chosen = rng.sample(seen, min(per_game, len(seen)))
    return [(describe_position(p), book_key(p)[0]) for p in chosen]


STALE_BATCHES = 20  # batches of games in a row that find nothing new: the plies hold no more


def sample_positions(
    count: int,
    plies: Tuple[int, int] = (6, 14),
    seed: int = 1,
    per_game: int = 2,
    epsilon: float = 0.25,
    progress: Optional[Callable[[int], object]] = None,
    jobs: int = 1,
) -> Tuple[List[str], int]:
    """``count`` distinct positions (distinct under the board's symmetries) from sampled games;
    (texts, games played). Fewer when STALE_BATCHES batches of games in a row find no new
    one (the plies asked for hold few positions: ply 2 has 85 placements-only up to symmetry)."""
    texts: List[str] = []
    keys = set()
    game = stale = 0
    pool = process_pool(jobs) if jobs > 1 else None
    try:
        while len(texts) < count and stale < STALE_BATCHES:
            before = len(texts)
            batch = [(derive_seed(seed, game + k), plies, per_game, epsilon) for k in range(max(jobs * 8, 16))]
            game += len(batch)
            results = pool.starmap(sample_game, batch) if pool else [sample_game(*job) for job in batch]
            for positions in results:
                for text, key in positions:
                    if key not in keys and len(texts) < count:
                        keys.add(key)
                        texts.append(text)
            stale = stale + 1 if len(texts) == before else 0
            if progress:
                progress(len(texts))
    finally:
        if pool:
            pool.terminate()
    return texts, game


def _label(text: str) -> Tuple[str, int, int]:
    """Worker: (text, 1 if the side to move wins, the solver's nodes for it)."""
    solver = worker_solver()
    before = solver.nodes
    won = solver.wins(position_from_text(text))
    return text, 1 if won else 0, solver.nodes - before


def label_positions(
    texts: Sequence[str],
    jobs: int = 1,
    table_bits: int = DEFAULT_TABLE_BITS,
    progress: Optional[Callable[[int], object]] = None,
    store: Optional[str] = None,
) -> Tuple[List[Tuple[str, int]], int, bool]:
    """([(text, 1 if the side to move wins else 0)] in the order given, the solver's node count,
    whether it was interrupted).

    Each worker process keeps one compiled solver (and its transposition table) for all the
    positions it is sent, so positions that share continuations are settled faster. Ctrl-C
    (SIGINT) stops it with the positions settled so far. ``progress`` hears how many are
    settled after each one. Positions the store of solved positions at ``store`` (a path; None: none)
    holds are not solved again, and the others go into it.
    """
    labelled: Dict[str, int] = {}
    nodes, interrupted = 0, False
    pool = process_pool(jobs, initializer=start_worker_solver, initargs=(table_bits, store))
    try:
        for text, won, spent in pool.imap_unordered(_label, texts, chunksize=4):
            labelled[text] = won
            nodes += spent
            if progress:
                progress(len(labelled))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        pool.terminate()
    return [(text, labelled[text]) for text in texts if text in labelled], nodes, interrupted


def save_labels(path: str, labelled: Sequence[Tuple[str, int]], info: Mapping[str, Any]) -> None:
    """Write a labels file atomically."""
    data = {"format": LABELS_FORMAT, "info": info, "positions": [[text, won] for text, won in labelled]}
    write_atomic(path, gzip.compress(json.dumps(data, separators=(",", ":")).encode("utf-8"), mtime=0))


def load_labels(path: str) -> Tuple[List[Position], List[int], Dict[str, Any]]:
    """(positions, labels, info) from a labels file: Position objects and 1/0 per position;
    LabelsError naming the file and the entry for anything wrong."""
    data, entries = read_positions_document(path, LABELS_FORMAT, "labels", LabelsError)
    positions: List[Position] = []
    labels: List[int] = []
    for index, entry in enumerate(entries):
        if (
            not isinstance(entry, list)
            or len(entry) != 2
            or not isinstance(entry[0], str)
            or entry[1] not in (0, 1)
            or isinstance(entry[1], bool)
        ):
            raise LabelsError(
                '{}: positions[{}]: expected ["<position>", 0 or 1], found {!r}'.format(
                    path, index, entry if len(repr(entry)) < 80 else repr(entry)[:80] + "..."
                )
            )
        try:
            positions.append(position_from_text(entry[0]))
        except ValueError as error:
            raise LabelsError(f"{path}: positions[{index}]: not a position: {error}")
        labels.append(entry[1])
    info = data.get("info")
    info = info if isinstance(info, dict) else {}
    return positions, labels, info


def load_many(paths: Sequence[str]) -> Tuple[List[Position], List[int], Dict[str, Dict[str, Any]]]:
    """(positions, labels, infos by file name) from several labels files, each position (under
    the board's symmetries) once; LabelsError if two files disagree about one."""
    positions: List[Position] = []
    labels: List[int] = []
    infos: Dict[str, Dict[str, Any]] = {}
    where: Dict[str, int] = {}
    for path in paths:
        found, marks, info = load_labels(path)
        infos[os.path.basename(path)] = info
        for position, label in zip(found, marks):
            key = book_key(position)[0]
            if key in where:
                if labels[where[key]] != label:
                    raise LabelsError(
                        f"{path}: a position is labelled {label} here and {labels[where[key]]} in an earlier file: "
                        f"{describe_position(position)}"
                    )
                continue
            where[key] = len(positions)
            positions.append(position)
            labels.append(label)
    return positions, labels, infos


def build_labels(
    path: str,
    count: int,
    plies: Tuple[int, int] = (6, 14),
    seed: int = 1,
    jobs: int = 1,
    table_bits: int = DEFAULT_TABLE_BITS,
    per_game: int = 2,
    epsilon: float = 0.25,
    report: Callable[[str], object] = print,
    store: Optional[str] = None,
) -> Dict[str, Any]:
    """Sample, label and save ``count`` positions, reading and growing the store at ``store``; the info
    written with them."""
    started = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    texts, games = sample_positions(count, plies, seed, per_game, epsilon, counter("sampling", "position", count), jobs)
    report(
        "sampled {} positions from {} games (plies {}-{}){}".format(
            len(texts),
            games,
            plies[0],
            plies[1],
            "" if len(texts) == count else f": no more distinct ones turned up in {STALE_BATCHES} batches of games",
        )
    )
    labelled, nodes, interrupted = label_positions(
        texts, jobs, table_bits, counter("solving", "position", len(texts)), store
    )
    if interrupted:
        report(f"interrupted: keeping the {len(labelled)} positions solved so far (of {len(texts)})")
        if not labelled:
            raise KeyboardInterrupt
    wins = sum(won for _, won in labelled)
    info = {
        "seed": seed,
        "plies": list(plies),
        "games": games,
        "per_game": per_game,
        "epsilon": epsilon,
        "opening_plies": 2,
        "players": "the shipped weights at depths 1-3, greedy, aggressive",
        "mover_wins": wins,
        "solver_nodes": nodes,
        "created": started.isoformat(),
        "sampled": len(texts),
        "stopped_early": interrupted,
    }
    save_labels(path, labelled, info)
    report(
        f"solved {len(labelled)}: {wins} won for the side to move, {len(labelled) - wins} lost "
        f"({nodes} solver nodes); wrote {path}"
    )
    return info
