"""Black's ply-10 positions in a book's tree: does the agent keep the win there?

Usage (from the repository root): python3 experiments/black-20261122/ply10.py BOOK COUNT MODE [SEED]
MODE: agent (the shipped params), solve10 (the same, solving from ply 10), solver (the
exact solver alone). Every position a book-following Black meets at ply 10 is won; a
sample of COUNT is played and each move checked by the compiled solver.
"""

import random
import sys
import time

from engine.agent import choose_move
from engine.book import load_book
from engine.data import SHIPPED_PARAMS
from engine.native.sections import book_positions
from engine.native.solver import NativeSolver
from engine.params import load_params
from engine.solver import Solver

book_path, count, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 7
positions = [p for p, m in book_positions(load_book(book_path), max_ply=10) if p.moves_played == 10]
print(len(positions), "ply-10 positions", flush=True)
sample = random.Random(seed).sample(positions, count)
params = load_params(SHIPPED_PARAMS)
if mode == "solve10":
    params = params._replace(solve_from=10)
kept, times = 0, []
with NativeSolver(22) as checker:
    for position in sample:
        assert checker.wins(position)
        start = time.process_time()
        move = Solver().winning_move(position) if mode == "solver" else choose_move(position, params, random.Random(1))
        times.append(time.process_time() - start)
        won = not checker.wins(position.play_point(move))
        kept += won
        print("{} {:.2f} s".format("kept" if won else "LOST", times[-1]), flush=True)
times.sort()
print(mode, f"kept {kept}/{count}; CPU median {times[len(times) // 2]:.2f} s, max {times[-1]:.2f} s")
