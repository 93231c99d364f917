"""Which side each random 2-ply opening of a match leaves won, before or after the match.

Usage (from the repository root):
  python3 experiments/white-book-20261123/openings.py solve SEED GAMES OUT.json [JOBS]

``solve`` draws the openings exactly as ``littlego match --random-opening 2 --seed SEED``
does (game i opens from derive_seed(SEED, i // 2): both colours from each opening) and
settles each distinct one (one per symmetry class, the book's key):
  - already in experiments/random-openings-20261122/gnugo-openings.json (the compiled
    solver's answers from that experiment): taken from there;
  - Black to move at a position the shipped book holds (the Black section: a proven win):
    Black wins;
  - otherwise the compiled solver, JOBS at a time.
It writes {key: true when Black to move wins} to OUT.json after each answer (so a cut-off
run keeps what it has), the format of the earlier experiment's openings.py, whose
``report SGF_DIR OUT.json`` then counts the games from openings won for the agent.
"""
import json
import multiprocessing
import os
import sys

from engine.book import book_key, load_book
from engine.common.seeds import derive_seed
from engine.native.solver import describe_position
from engine.playout import random_opening
from engine.protocol import write_atomic

PLIES = 2
EARLIER = "experiments/random-openings-20261122/gnugo-openings.json"
sys.path.insert(0, os.path.dirname(EARLIER))
from openings import _solve     # noqa: E402  the earlier script's worker (spawned workers import it by name too)


def openings(seed, games):
    """{key: position} of the distinct openings of a match of ``games`` games."""
    found = {}
    for pair in range((games + 1) // 2):
        position, _ = random_opening(PLIES, derive_seed(seed, pair))
        found.setdefault(book_key(position)[0], position)
    return found


def _save(out, results):
    write_atomic(out, json.dumps(results, indent=1, sort_keys=True) + "\n")


def solve(seed, games, out, jobs):
    results = json.load(open(out)) if os.path.exists(out) else {}
    earlier = json.load(open(EARLIER))
    book = load_book("book.json")
    todo, by = {}, {"earlier": 0, "book": 0}
    for key, position in sorted(openings(seed, games).items()):
        if key in results:
            continue
        if key in earlier:
            results[key], by["earlier"] = earlier[key], by["earlier"] + 1
        elif book.move(position) is not None:
            results[key], by["book"] = True, by["book"] + 1
        else:
            todo[key] = describe_position(position)
    _save(out, results)
    print("{} openings: {} settled already ({} from the earlier experiment, {} by the book), {} to solve".format(
        len(results) + len(todo), len(results), by["earlier"], by["book"], len(todo)), flush=True)
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for key, won, nodes, seconds in pool.imap_unordered(_solve, sorted(todo.items())):
            results[key] = won
            _save(out, results)
            print("{} black {} ({:,} nodes, {:.0f} s)".format(key, "wins" if won else "loses", nodes, seconds),
                  flush=True)


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "solve":
        solve(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]) if len(sys.argv) > 5 else 2)
    else:
        sys.exit(__doc__)
