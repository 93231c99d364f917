"""Where the agent gave a won game away: for each named game of SOURCE (the match's records,
see records.py), walk back from ply 12 over the turns of the agent (the player named
champion) and ask the compiled solver whether the position was won; the latest won one is
where the agent's move lost the win (it solves exactly from ply 12 on).

Usage (from the repository root):
  python3 experiments/tools/mistake.py SOURCE game-0006.sgf ...
"""

import sys
import time

from records import games

from engine.constants import BLACK
from engine.native.solver import NativeSolver
from engine.play.sgf import read_game

if len(sys.argv) < 3:
    sys.exit(__doc__)
source, wanted = sys.argv[1], sys.argv[2:]
found_records = {name: data for name, data in games(source) if name in wanted}
missing = [name for name in wanted if name not in found_records]
if missing:
    sys.exit("{}: no record {}".format(source, ", ".join(missing)))
with NativeSolver(24) as s:
    for path in wanted:
        r = read_game(found_records[path], path)
        black = r.black == "champion"
        mine = [p for p in r.positions[2:-1] if (p.player == BLACK) == black and not p.is_over]
        found = None
        for p in reversed(mine):
            if p.moves_played > 12:
                continue
            t = time.time()
            w = s.wins(p)
            print("  ply", p.moves_played, "won" if w else "lost", "%.0f s" % (time.time() - t), flush=True)
            if w:
                found = p
                break
        i = r.positions.index(found) if found else None
        print(
            path,
            "colour",
            "black" if black else "white",
            "mistake at ply",
            found.moves_played if found else None,
            "move",
            r.moves[i] if found else None,
            flush=True,
        )
