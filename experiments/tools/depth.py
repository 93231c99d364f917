"""For each position where the agent gave a won game away against GNU Go in
experiments/random-openings-20261122 (its mistakes.txt): the move the shipped evaluation picks
at fixed depths 2..8, W when the compiled solver says it keeps the win, L when it loses it, and
the CPU seconds of that depth. Run from the repository root:
  python3 experiments/tools/depth.py [PARAMS [DEEPEST]]
(default: params.json, depths 2 to 8)."""

import sys
import time

from records import games

from engine.features import make_evaluator
from engine.native.solver import NativeSolver
from engine.params import load_params
from engine.play.sgf import read_game
from engine.search import Searcher

params = load_params(sys.argv[1] if len(sys.argv) > 1 else "params.json")
deepest = int(sys.argv[2]) if len(sys.argv) > 2 else 8
cases = [
    ("game-0006.sgf", 2),
    ("game-0008.sgf", 2),
    ("game-0019.sgf", 3),
    ("game-0074.sgf", 4),
    ("game-0112.sgf", 4),
    ("game-0152.sgf", 4),
    ("game-0190.sgf", 2),
    ("game-0099.sgf", 3),
]
source = "experiments/random-openings-20261122/gnugo-sgf.tar.xz"
records = dict(games(source))
verdict = {}
with NativeSolver(22) as solver:
    for name, ply in cases:
        r = read_game(records[name], name)
        position = [p for p in r.positions if p.moves_played == ply][0]
        s = Searcher(make_evaluator(params.weights))
        line = []
        for depth in range(2, deepest + 1):
            t = time.process_time()
            res = s.search(position, depth)
            m = res.move
            if (name, m) not in verdict:
                verdict[(name, m)] = not solver.wins(position.play_point(m))
            line.append(f"d{depth} {m} {'W' if verdict[(name, m)] else 'L'} {time.process_time() - t:.1f}s")
            print(name, ply, line[-1], flush=True)
            if time.process_time() - t > 60:
                break
