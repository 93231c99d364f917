"""Would a centre feature have kept the study's won games? The give-away positions searched as the
agent searches them (its params, budget and cap, tie-breaks seeded), with the evaluation plus
WEIGHT x (the mover's stones on POINTS minus the opponent's; POINTS the centre point 2,2 unless
--points names others, as row,column), for each WEIGHT; each pick marked as the losing move
played (L), the winning move the study found (W), or neither (?). PARAMS (--params) is the
shipped params.json unless named.

  python3 experiments/giveaways-20261124/centre.py STUDY_FOLDER WEIGHT [WEIGHT ...]
  python3 experiments/giveaways-20261124/centre.py STUDY_FOLDER --points 1,2 2,1 2,3 3,2 --params P WEIGHT ...
"""

import argparse
import random
import time

from retry import positions

from engine.bitboard import BIT
from engine.bitboard import count as stones_in
from engine.coords import move_from_text, move_to_text
from engine.data import SHIPPED_PARAMS
from engine.features import make_evaluator
from engine.params import load_params
from engine.search import Searcher


def with_centre(evaluate, weight, mask):
    def centred(position, captured=0):
        return evaluate(position, captured) + weight * (stones_in(position.own & mask) - stones_in(position.opp & mask))

    return centred


def main(folder, weights, points, params_file):
    params = load_params(params_file)
    mask = sum(BIT[move_from_text(point)] for point in points)
    for record, ply, position, played, winning in positions(folder):
        line = [f"{record} ply {ply} (played {played}, wins with {winning}):"]
        for weight in weights:
            evaluate = with_centre(make_evaluator(params.weights, params.endgame), weight, mask)
            start = time.process_time()
            found = Searcher(evaluate, rng=random.Random(0)).iterative(
                position, params.depth, params.cpu_budget, params.cpu_cap
            )
            move = move_to_text(found.move)
            mark = "L" if move == played else "W" if move == winning else "?"
            line.append(f"{weight:g}: {move}{mark} d{found.depth} {time.process_time() - start:.1f}s")
        print(line[0] + " " + "; ".join(line[1:]), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder")
    parser.add_argument("weights", nargs="+", type=float)
    parser.add_argument("--points", nargs="+", default=["2,2"])
    parser.add_argument("--params", default=SHIPPED_PARAMS)
    arguments = parser.parse_args()
    main(arguments.folder, arguments.weights, arguments.points, arguments.params)
