"""Black's first move past the book: does the agent keep the win at ply 12?

Usage (from the repository root): python3 experiments/black-20261122/ply12.py COUNT [SEED]
Plays COUNT walks down the shipped book's tree (Black the book's moves, White a random legal
reply or pass at each turn) to Black's first position past the book (ply 12 for the ply-10
book), lets the shipped agent choose there as my_player3.py would, and has the compiled
solver check that the move keeps the win. Prints each result, then the tally and the CPU.
"""

import random
import sys
import time

from engine import Position
from engine.agent import choose_move
from engine.book import load_book
from engine.data import SHIPPED_BOOK, SHIPPED_PARAMS
from engine.native.solver import NativeSolver
from engine.params import load_params

count = int(sys.argv[1])
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 12)
book, params = load_book(SHIPPED_BOOK), load_params(SHIPPED_PARAMS)
kept, over, times = 0, 0, []
with NativeSolver(22) as checker:
    done = 0
    while done < count:
        position = Position.initial()
        while not position.is_over and book.move(position) is not None:
            position = position.play_point(book.move(position))
            if not position.is_over:
                position = position.play_point(rng.choice(position.all_moves()))
        if position.is_over:
            over += 1  # White's random play ended the game inside the book
            continue
        done += 1
        assert checker.wins(position), position
        started = time.process_time()
        move = choose_move(position, params, random.Random(1), book)
        times.append(time.process_time() - started)
        won = not checker.wins(position.play_point(move))
        kept += won
        print(f"ply {position.moves_played}: {'kept' if won else 'LOST'} {times[-1]:.2f} s", flush=True)
times.sort()
print(
    f"kept {kept}/{count} ({over} walks ended inside the book); "
    f"CPU median {times[len(times) // 2]:.2f} s, max {times[-1]:.2f} s"
)
