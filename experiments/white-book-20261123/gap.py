"""What the White book's deepest plies buy: won positions at PLIES that a White following the
book meets (Black's replies drawn at random, seed SEED, COUNT positions a ply, spread over the
losing first moves in turn), played by the shipped agent WITHOUT the book (its evaluation
search before solve_from, the solver from it), each move judged by the compiled solver.

Usage (from the repository root):
  python3 experiments/white-book-20261123/gap.py BOOK PLIES COUNT [SEED]
  e.g. gap.py /work/wbook/white11.json 7,9,11 60 1
"""

import random
import sys
import time

from engine.agent import decide_move
from engine.book import load_book
from engine.native.sections import book_sections
from engine.native.solver import NativeSolver
from engine.params import load_params

book = load_book(sys.argv[1])
plies, count = [int(p) for p in sys.argv[2].split(",")], int(sys.argv[3])
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
params = load_params("params.json")
sections = [s for s in book_sections(book) if s.side == "white" and s.max_ply >= max(plies)]
rng = random.Random(seed)


def descend(start, ply):
    """A position at ``ply`` a book-following White meets, Black's replies at random; None at an end."""
    position = start
    while position.moves_played < ply:
        after = position.play_point(book.move(position))
        if after.is_over:
            return None
        position = after.play_point(rng.choice(after.all_moves()))
        if position.is_over:
            return None
    return position


with NativeSolver(24) as solver:
    for ply in plies:
        kept, cpu, how, lost = 0, [], {}, []
        done = tries = 0
        while done < count:
            tries += 1  # after a pass White's book passes too, and the game is over
            position = descend(sections[tries % len(sections)].start, ply)
            if position is None:
                continue
            started = time.process_time()
            decision = decide_move(position, params, rng=random.Random(done))
            cpu.append(time.process_time() - started)
            keeps = not solver.wins(position.play_point(decision.move))
            kept += keeps
            how[decision.how] = how.get(decision.how, 0) + 1
            if not keeps:
                lost.append(position.board_string())
            done += 1
        cpu.sort()
        print(
            "ply {}: kept {} of {} won positions without the book ({}); CPU median {:.2f} s, max {:.2f} s".format(
                ply, kept, count, ", ".join(f"{k} {v}" for k, v in sorted(how.items())), cpu[len(cpu) // 2], cpu[-1]
            ),
            flush=True,
        )
        for board in lost:
            print("  lost the win in", board)
