"""Would a centre feature have kept the study's won games? The give-away positions searched as the
agent searches them (its params, budget and cap, tie-breaks seeded), with the evaluation plus
WEIGHT x (the mover's stone on the centre point 2,2 minus the opponent's), for each WEIGHT; each
pick marked as the losing move played (L), the winning move the study found (W), or neither (?).

  python3 experiments/giveaways-20261124/centre.py STUDY_FOLDER WEIGHT [WEIGHT ...]
"""

import random
import sys
import time

from retry import positions

from engine.coords import move_to_text
from engine.data import SHIPPED_PARAMS
from engine.features import make_evaluator
from engine.params import load_params
from engine.search import Searcher

CENTRE = 12  # the point 2,2


def with_centre(evaluate, weight):
    def centred(position, captured=0):
        own = (position.own >> CENTRE) & 1
        opp = (position.opp >> CENTRE) & 1
        return evaluate(position, captured) + weight * (own - opp)

    return centred


def main(folder, weights):
    params = load_params(SHIPPED_PARAMS)
    for record, ply, position, played, winning in positions(folder):
        line = [f"{record} ply {ply} (played {played}, wins with {winning}):"]
        for weight in weights:
            evaluate = with_centre(make_evaluator(params.weights, params.endgame), weight)
            start = time.process_time()
            found = Searcher(evaluate, rng=random.Random(0)).iterative(
                position, params.depth, params.cpu_budget, params.cpu_cap
            )
            move = move_to_text(found.move)
            mark = "L" if move == played else "W" if move == winning else "?"
            line.append(f"{weight:g}: {move}{mark} d{found.depth} {time.process_time() - start:.1f}s")
        print(line[0] + " " + "; ".join(line[1:]), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], [float(w) for w in sys.argv[2:]])
