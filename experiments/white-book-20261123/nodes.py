"""How far the pure-Python solver's trees are from the compiled solver's: for 12 positions at
PLY drawn (seed 1) from the game records in SGF_DIR, who wins and the nodes each solver visits
to say so (a fresh solver each; the Python one with a 20 s CPU limit), and the Python CPU.

Usage (from the repository root):
  python3 experiments/white-book-20261123/nodes.py SGF_DIR PLY
"""

import glob
import os
import random
import sys
import time

from engine.native.solver import NativeSolver
from engine.play.sgf import read_game
from engine.search import SearchTimeout
from engine.solver import Solver

folder, ply = sys.argv[1], int(sys.argv[2])
found = []
for path in sorted(glob.glob(os.path.join(folder, "*.sgf"))):
    with open(path, "rb") as handle:
        replay = read_game(handle.read(), path)
    found += [p for p in replay.positions if p.moves_played == ply and not p.is_over]
for position in random.Random(1).sample(found, min(12, len(found))):
    with NativeSolver(20) as native:
        won, native_nodes = native.wins(position), native.nodes
    solver, started = Solver(), time.process_time()
    try:
        python_won = solver.wins(position, started + 20)
    except SearchTimeout:
        python_won = "timeout"
    seconds = time.process_time() - started
    print(
        "ply {}: {} | compiled {:,} nodes | Python {:,} nodes ({:.2f}x), {:.1f} s, {:,.0f} nodes/s".format(
            ply,
            "won" if won else "lost",
            native_nodes,
            solver.nodes,
            solver.nodes / native_nodes,
            seconds,
            solver.nodes / max(seconds, 1e-9),
        ),
        flush=True,
    )
