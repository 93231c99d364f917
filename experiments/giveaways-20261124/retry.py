"""The positions where a study's agent gave a won game away, decided again: by the shipped params
as they are and with search.close_stones set, each with a few tie-break seeds; each pick marked
as the losing move played (L), the winning move the study found (W), or neither (?, unjudged).

  python3 experiments/giveaways-20261124/retry.py STUDY_FOLDER CLOSE_STONES [SEEDS]
"""

import json
import lzma
import os
import random
import sys
import time

from engine.agent import decide_move
from engine.coords import move_from_text, move_to_text
from engine.data import SHIPPED_PARAMS
from engine.params import load_params
from engine.position import Position


def positions(folder):
    """(record, ply, position, played, winning) of each give-away of the study in ``folder``."""
    path = os.path.join(folder, "match.journal")
    text = open(path).read() if os.path.exists(path) else lzma.open(path + ".xz", "rt").read()  # as kept
    games = [json.loads(line) for line in text.splitlines()[1:]]
    by_index = {game["index"]: game for game in games}
    for giveaway in json.load(open(os.path.join(folder, "giveaways.json")))["giveaways"]:
        if giveaway["ply"] is None:
            continue
        position = Position.initial()
        for move in by_index[giveaway["game"]]["moves"][: giveaway["ply"]]:
            position = position.play_point(move_from_text(move))
        yield giveaway["record"], giveaway["ply"], position, giveaway["played"], giveaway["winning"]


def main(folder, close, seeds):
    shipped = load_params(SHIPPED_PARAMS)
    settings = (("as shipped", shipped), (f"close_stones {close:g}", shipped._replace(close_stones=close)))
    for record, ply, position, played, winning in positions(folder):
        line = [f"{record} ply {ply} (played {played}, wins with {winning}):"]
        for name, params in settings:
            picks = []
            for seed in range(seeds):
                start = time.process_time()
                decision = decide_move(position, params, random.Random(seed))
                move = move_to_text(decision.move)
                mark = "L" if move == played else "W" if move == winning else "?"
                picks.append(f"{move}{mark} d{decision.depth} {time.process_time() - start:.1f}s")
            line.append(f"  {name}: " + ", ".join(picks))
        print("\n".join(line), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 3)
