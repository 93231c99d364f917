"""Where the agent gave a won game away: for each SGF record, walk back from ply 12 over the
agent's turns and ask the compiled solver whether the position was won; the latest won one
is where the agent's move lost the win (it solves exactly from ply 12 on).

Usage (from the repository's gnugo-sgf folder of this experiment, as run.sh does):
  python3 ../mistake.py game-0006.sgf ...
"""
import sys, time
from engine.play.sgf import read_game
from engine.native.solver import NativeSolver
from engine.constants import BLACK
with NativeSolver(24) as s:
    for path in sys.argv[1:]:
        r = read_game(open(path, "rb").read(), path)
        black = r.black == "champion"
        mine = [p for p in r.positions[2:-1] if (p.player == BLACK) == black and not p.is_over]
        found = None
        for p in reversed(mine):
            if p.moves_played > 12: continue
            t = time.time()
            w = s.wins(p)
            print("  ply", p.moves_played, "won" if w else "lost", "%.0f s" % (time.time() - t), flush=True)
            if w:
                found = p; break
        i = r.positions.index(found) if found else None
        print(path, "colour", "black" if black else "white", "mistake at ply", found.moves_played if found else None,
              "move", r.moves[i] if found else None, flush=True)
