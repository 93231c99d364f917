"""Which side each random opening of a match left won, by the compiled solver, and how many
of the games where the agent had the won side it won.

Usage (from the repository root):
  python3 experiments/random-openings-20261122/openings.py solve SGF_DIR OUT.json [JOBS]
  python3 experiments/random-openings-20261122/openings.py report SGF_DIR OUT.json [AGENT]

``solve`` gives every distinct opening (the position after the games' first two plies, one
per symmetry class) to the compiled solver, JOBS processes at a time, and writes
{key: true when Black to move wins} to OUT.json after each answer (so a cut-off run keeps
what it has). ``report`` counts, for the player named AGENT (default champion) in the
records, the games whose opening left its colour a won position and how many of them it won.
Little-Go has no draws (komi 2.5), so from each opening exactly one colour is won.
"""
import glob
import json
import multiprocessing
import os
import sys
import time

from engine.book import book_key
from engine.native.solver import NativeSolver, describe_position, position_from_text
from engine.play.sgf import read_game
from engine.protocol import write_atomic

PLIES = 2


def games(folder):
    """(path, replay, the opening position, its key) of every record in ``folder``."""
    for path in sorted(glob.glob(os.path.join(folder, "*.sgf"))):
        with open(path, "rb") as handle:
            replay = read_game(handle.read(), path)
        opening = replay.positions[PLIES]
        yield path, replay, opening, book_key(opening)[0]


def _solve(job):
    key, text = job
    started = time.time()
    with NativeSolver(24) as solver:
        won = solver.wins(position_from_text(text))
        return key, won, solver.nodes, time.time() - started


def solve(folder, out, jobs):
    results = json.load(open(out)) if os.path.exists(out) else {}
    todo = {}
    for _, _, opening, key in games(folder):
        if key not in results:
            todo[key] = describe_position(opening)
    print(len(todo), "openings to solve", flush=True)
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for key, won, nodes, seconds in pool.imap_unordered(_solve, sorted(todo.items())):
            results[key] = won
            write_atomic(out, json.dumps(results, indent=1, sort_keys=True) + "\n")
            print("{} black {} ({:,} nodes, {:.0f} s)".format(key, "wins" if won else "loses", nodes, seconds),
                  flush=True)


def report(folder, out, agent):
    results = json.load(open(out))
    won_side, kept, unknown, lost_side, saved = {}, {}, 0, {}, {}
    for path, replay, opening, key in games(folder):
        black = replay.black == agent
        colour = "black" if black else "white"
        if key not in results:
            unknown += 1
            continue
        won = replay.result.startswith("B" if black else "W")
        if results[key] == black:          # the agent's colour is the won side here
            won_side[colour] = won_side.get(colour, 0) + 1
            kept[colour] = kept.get(colour, 0) + won
            if not won:
                print("lost from a won opening:", path)
        else:
            lost_side[colour] = lost_side.get(colour, 0) + 1
            saved[colour] = saved.get(colour, 0) + won
    total, kept_all = sum(won_side.values()), sum(kept.values())
    print("{}: won {} of {} games whose opening left it the won side ({:.1%}): as Black {} of {}, as White "
          "{} of {}".format(agent, kept_all, total, kept_all / total if total else 0, kept.get("black", 0),
                            won_side.get("black", 0), kept.get("white", 0), won_side.get("white", 0)))
    print("  and {} of {} games from openings lost for it (as Black {} of {}, as White {} of {}); {} games "
          "with unsolved openings".format(sum(saved.values()), sum(lost_side.values()), saved.get("black", 0),
                                          lost_side.get("black", 0), saved.get("white", 0),
                                          lost_side.get("white", 0), unknown))


if __name__ == "__main__":
    action, folder, out = sys.argv[1:4]
    if action == "solve":
        solve(folder, out, int(sys.argv[4]) if len(sys.argv) > 4 else 2)
    else:
        report(folder, out, sys.argv[4] if len(sys.argv) > 4 else "champion")
