"""What search.close_stones costs and changes: early out-of-book positions (random openings of 2-10
plies, seeded, none in the shipped book) decided by the shipped params as they are and with
close_stones set; per position the CPU seconds, the depth reached and whether the move differs.

  python3 experiments/giveaways-20261124/unclear.py POSITIONS SEED CLOSE_STONES
"""

import random
import sys
import time

from engine.agent import decide_move
from engine.book import load_book
from engine.data import SHIPPED_BOOK, SHIPPED_PARAMS
from engine.params import load_params
from engine.playout import random_opening


def timed(position, params, seed):
    start = time.process_time()
    decision = decide_move(position, params, random.Random(seed))
    return decision, time.process_time() - start


def main(count, seed, close):
    shipped = load_params(SHIPPED_PARAMS)
    unclear = shipped._replace(close_stones=close)
    book = load_book(SHIPPED_BOOK)
    rng = random.Random(seed)
    rows = []
    while len(rows) < count:
        plies = rng.randrange(2, 11)
        position, _ = random_opening(plies, rng.randrange(10**9))
        if position.is_over or book.move(position) is not None:
            continue
        before, cpu_before = timed(position, shipped, seed)
        after, cpu_after = timed(position, unclear, seed)
        rows.append((plies, cpu_before, cpu_after, before.depth, after.depth, before.move != after.move))
        print(
            f"ply {plies:2d}: {cpu_before:4.2f} s depth {before.depth} -> {cpu_after:4.2f} s depth {after.depth}"
            + (" (another move)" if before.move != after.move else ""),
            flush=True,
        )
    n = len(rows)
    print(
        f"{n} positions, close_stones {close}: mean CPU {sum(r[1] for r in rows) / n:.2f} s -> "
        f"{sum(r[2] for r in rows) / n:.2f} s, max {max(r[1] for r in rows):.2f} -> {max(r[2] for r in rows):.2f} s; "
        f"deeper in {sum(r[4] > r[3] for r in rows)}, another move in {sum(r[5] for r in rows)}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]))
