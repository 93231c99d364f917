"""Where a player keeps and where it gives away won positions: for each game record in
SGF_DIR, every turn of the player named AGENT (default champion; "black" or "white" for a
colour, when both players have one name): was the position won for it,
and did its move keep the win? A position the shipped book answers (and the book's move was
played) is won and kept by the book's proof; any other from ply FROM on (default 5: earlier
ones take the solver minutes) is judged by the compiled solver, and earlier ones are left out.
Prints, per ply, the won positions met and kept, with how they were judged, then each game
where a won position was given away: the ply and the move.

Usage (from the repository root):
  python3 experiments/white-book-20261123/kept.py SGF_DIR [AGENT [FROM [BOOK]]]
"""

import glob
import os
import sys
import time
from collections import Counter

from engine.book import load_book
from engine.coords import move_to_text
from engine.native.solver import NativeSolver
from engine.play.sgf import read_game

folder = sys.argv[1]
agent = sys.argv[2] if len(sys.argv) > 2 else "champion"
first_ply = int(sys.argv[3]) if len(sys.argv) > 3 else 5
book = load_book(sys.argv[4] if len(sys.argv) > 4 else "book.json")
met, kept, by_book = Counter(), Counter(), Counter()
given_away, games, started = [], 0, time.time()
with NativeSolver(24) as solver:
    for path in sorted(glob.glob(os.path.join(folder, "*.sgf"))):
        with open(path, "rb") as handle:
            replay = read_game(handle.read(), path)
        if agent in ("black", "white"):  # a game of a player against itself: name the colour
            colour = 1 if agent == "black" else 2
        elif agent in (replay.black, replay.white):
            colour = 1 if replay.black == agent else 2
        else:
            continue
        games += 1
        for position, move in zip(replay.positions, replay.moves):
            if position.player != colour or position.is_over:
                continue
            if book.move(position) == move:
                won = keeps = True
                by_book[position.moves_played] += 1
            elif position.moves_played < first_ply:
                continue
            else:
                won = solver.wins(position)
                keeps = won and not solver.wins(position.play_point(move))
            if won:
                met[position.moves_played] += 1
                kept[position.moves_played] += keeps
                if not keeps:
                    given_away.append((os.path.basename(path), position.moves_played, move_to_text(move)))
print(f"{games} games of {agent} in {folder} ({time.time() - started:.0f} s)")
print("ply  won positions  kept  (by the book)")
for ply in sorted(met):
    print(f"{ply:3d}  {met[ply]:13d}  {kept[ply]:4d}  ({by_book[ply]})")
print(f"all  {sum(met.values()):13d}  {sum(kept.values()):4d}")
for name, ply, move in given_away:
    print(f"given away: {name} at ply {ply} with {move}")
