"""Speed benchmarks, run as ``littlego bench ...``: they report what they measure."""

import gzip
import json
import os
import random
import statistics
import time

from engine.position import Position
from engine.playout import random_playout

DEFAULT_VECTORS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                               "tests", "data", "host-reference.jsonl.gz")


def vector_positions(path=DEFAULT_VECTORS):
    """Every position the rules vectors ask a player to move in."""
    positions = []
    with gzip.open(path, "rt") as lines:
        for line in lines:
            for ply in json.loads(line)["plies"]:
                positions.append(Position.from_boards(ply["player"], ply["previous"],
                                                      ply["current"], ply["n_move"]))
    return positions


def playout_positions(games, seed):
    """Positions met in seeded random games, for when the vectors are not at hand."""
    rng = random.Random(seed)
    positions = []
    for _ in range(games):
        position = Position.initial()
        while not position.is_over:
            positions.append(position)
            position = random_playout(position, rng, max_plies=1)
    return positions


def median_rate(work, items, repeats):
    """Median over ``repeats`` runs of items per second of ``work()``, and all the rates."""
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        rates.append(items / (time.perf_counter() - start))
    return statistics.median(rates), rates


def bench_rules(vectors=DEFAULT_VECTORS, repeats=5, playout_games=2000, seed=1, report=print):
    """Legal-move generation (positions/s) and random playouts (moves/s), medians of repeats."""
    if vectors and os.path.exists(vectors):
        positions = vector_positions(vectors)
        source = "the rules vectors ({})".format(os.path.basename(vectors))
    else:
        positions = playout_positions(450, seed)
        source = "seeded random games (vectors not found at {})".format(vectors)

    def generate():
        for position in positions:
            position.legal_moves()

    legal_rate, legal_rates = median_rate(generate, len(positions), repeats)

    rng = random.Random(seed)
    start = Position.initial()
    plies = []

    def playouts():
        total = 0
        for _ in range(playout_games):
            total += random_playout(start, rng).moves_played
        plies.append(total)

    playout_rate, playout_rates = median_rate(playouts, 1, repeats)
    moves = plies[0]
    playout_rate *= moves
    playout_rates = [r * p for r, p in zip(playout_rates, plies)]
    result = {
        "positions": len(positions), "source": source, "repeats": repeats,
        "legal_moves_positions_per_s": round(legal_rate),
        "legal_moves_runs": [round(r) for r in legal_rates],
        "playout_games_per_run": playout_games,
        "playout_moves_per_s": round(statistics.median(playout_rates)),
        "playout_runs": [round(r) for r in playout_rates],
    }
    report("legal-move generation: {:,} positions/s (median of {} runs over {} positions from {})"
           .format(result["legal_moves_positions_per_s"], repeats, len(positions), source))
    report("random playouts:       {:,} moves/s (median of {} runs of {} games from the empty board)"
           .format(result["playout_moves_per_s"], repeats, playout_games))
    return result
