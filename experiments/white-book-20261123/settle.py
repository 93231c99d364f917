"""From which ply the pure-Python solver settles positions within the agent's share of a move
(70% of the 4.5 s cap: 3.15 s of CPU): for COUNT positions at each of PLIES, drawn (seed SEED)
from the game records in SGF_DIR (games that followed the book), the CPU that
``Solver().winning_move`` took, as the agent asks it, or "-" past the share.

Usage (from the repository root):
  python3 experiments/white-book-20261123/settle.py SGF_DIR PLIES COUNT [SEED]
  e.g. settle.py experiments/white-book-20261123/gnugo-sgf 9,10,11,12 40 1
"""

import glob
import os
import random
import sys
import time

from engine.agent import SOLVE_SHARE
from engine.params import load_params
from engine.play.sgf import read_game
from engine.search import SearchTimeout
from engine.solver import Solver

folder, plies, count = sys.argv[1], [int(p) for p in sys.argv[2].split(",")], int(sys.argv[3])
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
share = load_params("params.json").cpu_cap * SOLVE_SHARE
found = {ply: [] for ply in plies}
for path in sorted(glob.glob(os.path.join(folder, "*.sgf"))):
    with open(path, "rb") as handle:
        replay = read_game(handle.read(), path)
    for position in replay.positions:
        if position.moves_played in found and not position.is_over:
            found[position.moves_played].append(position)
print(f"solver share {share:.2f} s of CPU; positions from {folder}, seed {seed}")
for ply in plies:
    sample = random.Random(seed).sample(found[ply], min(count, len(found[ply])))
    times = []
    for position in sample:
        start = time.process_time()
        try:
            Solver().winning_move(position, start + share)
            times.append(time.process_time() - start)
        except SearchTimeout:
            times.append(None)
    settled = sorted(t for t in times if t is not None)
    print(
        "ply {}: {} of {} settled within the share ({:.0f}%), median {} s; {}".format(
            ply,
            len(settled),
            len(times),
            100.0 * len(settled) / max(len(times), 1),
            f"{settled[len(settled) // 2]:.2f}" if settled else "-",
            " ".join("-" if t is None else f"{t:.2f}" for t in times),
        ),
        flush=True,
    )
