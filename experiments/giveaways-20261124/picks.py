"""The positions where a study's agent gave a won game away, decided again by other params files
(the agent's own decision: its depths, budget and cap, tie-breaks seeded); each pick marked as the
losing move played (L), the winning move the study found (W), or neither (?, unjudged).

  python3 experiments/giveaways-20261124/picks.py STUDY_FOLDER PARAMS [PARAMS ...]
"""

import random
import sys
import time

from retry import positions

from engine.agent import decide_move
from engine.coords import move_to_text
from engine.params import load_params


def main(folder, files):
    settings = [(name, load_params(name)) for name in files]
    tally = {name: {"W": 0, "L": 0, "?": 0} for name in files}
    for record, ply, position, played, winning in positions(folder):
        line = [f"{record} ply {ply} (played {played}, wins with {winning}):"]
        for name, params in settings:
            start = time.process_time()
            decision = decide_move(position, params, random.Random(0))
            move = move_to_text(decision.move)
            mark = "L" if move == played else "W" if move == winning else "?"
            tally[name][mark] += 1
            line.append(f"  {name}: {move}{mark} d{decision.depth} {time.process_time() - start:.1f}s")
        print("\n".join(line), flush=True)
    for name in files:
        print(f"{name}: " + ", ".join(f"{mark} {n}" for mark, n in tally[name].items()))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
