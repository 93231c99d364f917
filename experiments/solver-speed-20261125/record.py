"""Draw the solver's benchmark set and record every legal move's result by a given solver program.

Run once, with the solver of commit c154f62 (before issue 48) compiled by engine/native/compiler.py:

    python experiments/solver-speed-20261125/record.py SOLVER_BINARY engine/data/solver-positions.json 16,15,...,0

Positions: ``engine.native.solver_bench.random_positions_by_ply(SEED, plies 0..16, PER_PLY)``. Each position is solved
by a fresh process of SOLVER_BINARY (table bits 24, 512 MiB); the file is rewritten after each
position, so an interrupted run resumes where it stopped (plies are solved in the order given).
"""

import json
import os
import resource
import subprocess
import sys

from engine.native.solver import describe_position
from engine.native.solver_bench import SET_FORMAT, random_positions_by_ply
from engine.protocol import write_atomic

SEED, PLIES, PER_PLY, TABLE_BITS = 2026, range(0, 17), 4, 24
RECORDED_WITH = "engine/native/solve.c of commit c154f62 (before issue 48), table bits 24"


def main(binary, path, order):
    drawn = random_positions_by_ply(SEED, PLIES, PER_PLY)
    if os.path.exists(path):
        with open(path) as handle:
            data = json.load(handle)
    else:
        data = {
            "format": SET_FORMAT,
            "about": "random positions for `littlego bench solver` and every legal move's result there ("
            "'POINT:1' wins, 'POINT:0' loses; point 25 is a pass), as the solver of `recorded_with` answered; "
            "drawn by engine.native.solver_bench.random_positions_by_ply(seed, plies, per_ply): uniformly random legal "
            "placements from the empty board (experiments/solver-speed-20261125/record.py)",
            "seed": SEED,
            "per_ply": PER_PLY,
            "recorded_with": RECORDED_WITH,
            "plies": {
                str(ply): [{"position": describe_position(p), "results": None} for p in drawn[ply]] for ply in PLIES
            },
        }
    for ply in order:
        for entry in data["plies"][str(ply)]:
            if entry["results"] is not None:
                continue
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run(
                [binary, str(TABLE_BITS)], input="moves " + entry["position"] + "\n", capture_output=True, text=True
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            entry["results"] = done.stdout.strip()
            nodes = done.stderr.split()[-1]
            seconds = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            print(f"ply {ply}: {nodes} nodes, {seconds:.1f} s: {entry['results']}", flush=True)
            write_atomic(path, json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], [int(ply) for ply in sys.argv[3].split(",")])
