"""Which side each random 2-ply opening of a match leaves won, before or after the match.

Usage (from the repository root):
  python3 experiments/white-book-20261123/openings.py solve SEED GAMES OUT.json [JOBS]
  python3 experiments/white-book-20261123/openings.py report SGF_DIR OUT.json [AGENT]

``solve`` draws the openings exactly as ``littlego match --random-opening 2 --seed SEED``
does (game i opens from derive_seed(SEED, i // 2): both colours from each opening) and
settles each distinct one (one per symmetry class, the book's key):
  - already in experiments/random-openings-20261122/gnugo-openings.json (the compiled
    solver's answers from that experiment): taken from there;
  - Black to move at a position the shipped book holds (the Black section: a proven win):
    Black wins;
  - otherwise the compiled solver, JOBS at a time.
It writes {key: {"black_wins": bool, "by": "earlier"|"book"|"solver"}} to OUT.json after
each answer, so a cut-off run keeps what it has.

``report`` reads the match's game records (``--sgf SGF_DIR``) and counts, for AGENT (default
champion), the games whose opening left its colour the won side and how many it won.
Little-Go has no draws (komi 2.5), so from each opening exactly one colour is won.
"""
import glob
import json
import multiprocessing
import os
import sys
import time

from engine.book import book_key, load_book
from engine.common.seeds import derive_seed
from engine.native.solver import NativeSolver, describe_position, position_from_text
from engine.playout import random_opening
from engine.play.sgf import read_game
from engine.protocol import write_atomic

PLIES = 2
EARLIER = "experiments/random-openings-20261122/gnugo-openings.json"


def openings(seed, games):
    """{key: position} of the distinct openings of a match of ``games`` games."""
    found = {}
    for pair in range((games + 1) // 2):
        position, _ = random_opening(PLIES, derive_seed(seed, pair))
        found.setdefault(book_key(position)[0], position)
    return found


def _solve(job):
    key, text = job
    started = time.time()
    with NativeSolver(24) as solver:
        won = solver.wins(position_from_text(text))
        return key, won, solver.nodes, time.time() - started


def _save(out, results):
    write_atomic(out, json.dumps(results, indent=1, sort_keys=True) + "\n")


def solve(seed, games, out, jobs):
    results = json.load(open(out)) if os.path.exists(out) else {}
    earlier = json.load(open(EARLIER))
    book = load_book("book.json")
    todo = {}
    for key, position in sorted(openings(seed, games).items()):
        if key in results:
            continue
        if key in earlier:
            results[key] = {"black_wins": earlier[key], "by": "earlier"}
        elif book.move(position) is not None:
            results[key] = {"black_wins": True, "by": "book"}
        else:
            todo[key] = describe_position(position)
    _save(out, results)
    print("{} openings: {} settled already, {} to solve".format(len(results) + len(todo), len(results), len(todo)),
          flush=True)
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for key, won, nodes, seconds in pool.imap_unordered(_solve, sorted(todo.items())):
            results[key] = {"black_wins": won, "by": "solver"}
            _save(out, results)
            print("{} black {} ({:,} nodes, {:.0f} s)".format(key, "wins" if won else "loses", nodes, seconds),
                  flush=True)


def report(folder, out, agent):
    results = json.load(open(out))
    won_side, kept, lost_side, saved, unknown = {}, {}, {}, {}, 0
    for path in sorted(glob.glob(os.path.join(folder, "*.sgf"))):
        with open(path, "rb") as handle:
            replay = read_game(handle.read(), path)
        key = book_key(replay.positions[PLIES])[0]
        if key not in results:
            unknown += 1
            continue
        black = replay.black == agent
        colour = "black" if black else "white"
        won = replay.result.startswith("B" if black else "W")
        if results[key]["black_wins"] == black:
            won_side[colour] = won_side.get(colour, 0) + 1
            kept[colour] = kept.get(colour, 0) + won
            if not won:
                print("lost from a won opening:", path)
        else:
            lost_side[colour] = lost_side.get(colour, 0) + 1
            saved[colour] = saved.get(colour, 0) + won
    for title, total, wins in (("won opening for the agent", won_side, kept),
                               ("lost opening for the agent", lost_side, saved)):
        print("{}: {} of {} won (as Black {} of {}, as White {} of {})".format(
            title, sum(wins.values()), sum(total.values()), wins.get("black", 0), total.get("black", 0),
            wins.get("white", 0), total.get("white", 0)))
    if unknown:
        print(unknown, "games whose opening is not settled yet")


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "solve":
        solve(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]) if len(sys.argv) > 5 else 2)
    elif len(sys.argv) >= 4 and sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "champion")
    else:
        sys.exit(__doc__)
