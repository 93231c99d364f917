"""Every 2-ply opening once with each colour: the match as shipped in nodes, no draw of openings (eighth section).

    python3 experiments/tuners-20261125/every.py CANDIDATE CURRENT OUT.json [JOBS]   # from the repository root

The candidate's score over all 600 openings (25 first points x 24 replies), each played with the
candidate Black and White (seed 0 a game), the players `shipped:CANDIDATE` and `shipped:CURRENT`;
NPS_SCALE=0.8 (say) gives both players that share of the node budget. Run in a checkout of c0e94c3
it plays the shipped player before 45e0f2c (one searcher a game, random ties): the "kept" column of
SUMMARY.md's eighth section. From 8189394 on, `littlego match shipped:CANDIDATE shipped:CURRENT
--every-opening --random-opening 2` plays the same games with the player as it is now (the "fresh"
column).
"""

import json
import multiprocessing
import os
import sys

import engine.play.game as game_module
from engine.constants import BLACK, WHITE
from engine.play.game import play_game
from engine.players.specs import make_player
from engine.position import Position

SCALE = float(os.environ.get("NPS_SCALE", "1"))
OPENINGS = [(b, w) for b in range(25) for w in range(25) if w != b]


def fixed_opening(plies, seed):
    moves = list(OPENINGS[seed])
    position = Position.initial()
    for move in moves:
        position = position.play_point(move)
    return position, moves


def play(job):
    index, a_black, cand, cur = job
    game_module.random_opening = fixed_opening
    import engine.players.shipped as shipped_module

    if not hasattr(shipped_module, "_plain_plan"):
        shipped_module._plain_plan = shipped_module.node_plan
        shipped_module.node_plan = lambda params, nps: shipped_module._plain_plan(params, nps * SCALE)
    a, b = make_player("shipped:" + cand), make_player("shipped:" + cur)
    black, white = (a, b) if a_black else (b, a)
    record = play_game(black, white, seed=0, opening_plies=2, opening_seed=index)
    return index, a_black, record.winner == (BLACK if a_black else WHITE)


if __name__ == "__main__":
    cand, cur, out = sys.argv[1:4]
    jobs = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    work = [(i, a_black, cand, cur) for i in range(len(OPENINGS)) for a_black in (True, False)]
    results = []
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for n, result in enumerate(pool.imap_unordered(play, work, chunksize=4), 1):
            results.append(result)
            if n % 100 == 0:
                print(n, sum(r[2] for r in results) / n, flush=True)
    wins = sum(r[2] for r in results)
    print(f"candidate {wins}/{len(results)} = {wins / len(results):.4f}")
    with open(out, "w") as handle:
        json.dump({"wins": wins, "games": len(results), "results": sorted(results)}, handle)
