"""Would White do better solving exactly from ply 11 (``solve_from`` 11) than searching on its
evaluation there (the shipped 12)? Black moves on even plies, so the change touches White's
ply-11 move only. For a sample of ply-11 positions that the labels say the mover (White)
wins, the agent's move under each setting, judged by the compiled solver: kept (K) or lost (L),
and its CPU seconds. Run from the repository root:
  python3 experiments/solve-from-20261123/ply11.py [COUNT [SEED]]   (default 60 positions, seed 1)"""

import random
import sys
import time

from engine.agent import choose_move
from engine.native.solver import NativeSolver
from engine.params import load_params
from evolve.solved.labels import load_many

count = int(sys.argv[1]) if len(sys.argv) > 1 else 60
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
labels = ["experiments/labels-20261123/labels-11.json.gz", "experiments/labels-20261123/labels-101.json.gz"]
positions, won, _ = load_many(labels)
sample = [p for p, w in zip(positions, won) if p.moves_played == 11 and w == 1]
random.Random(seed).shuffle(sample)
shipped = load_params("params.json")
settings = [("solve_from 12", shipped), ("solve_from 11", shipped._replace(solve_from=11))]
kept = {name: 0 for name, _ in settings}
cpu = {name: [] for name, _ in settings}
with NativeSolver(22) as solver:
    for index, position in enumerate(sample[:count]):
        line = []
        for name, params in settings:
            start = time.process_time()
            move = choose_move(position, params, rng=random.Random(index))
            seconds = time.process_time() - start
            keeps = not solver.wins(position.play_point(move))
            kept[name] += keeps
            cpu[name].append(seconds)
            line.append("{}: {} {} {:.2f}s".format(name, move, "K" if keeps else "L", seconds))
        print(index, " | ".join(line), flush=True)
done = min(count, len(sample))
for name, _ in settings:
    times = sorted(cpu[name])
    print(
        f"{name}: kept the win in {kept[name]} of {done}; CPU median {times[len(times) // 2]:.2f} s, "
        f"max {times[-1]:.2f} s"
    )
