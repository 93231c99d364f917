"""The comparison's table from the runs' generations.jsonl: CPU (wall seconds summed), the best's regret
share on the fitness positions and on the held-out ones, at the end and where the best was found."""

import glob
import json
import os
import sys

folder = os.path.dirname(os.path.abspath(__file__))
print("| strategy | generations | seconds (wall, 2 workers) | best: kept (fitness) | best: kept (held out) |")
print("| --- | --- | --- | --- | --- |")
for run in sorted(glob.glob(os.path.join(sys.argv[1] if len(sys.argv) > 1 else folder, "runs", "regret-*"))):
    records = [json.loads(line) for line in open(os.path.join(run, "generations.jsonl"))]
    last = records[-1]
    held = last["best_held_out"]
    print(
        "| {} | {} | {:.0f} | {:.3f} | {}/{} ({:.3f}) |".format(
            os.path.basename(run).split("-")[1],
            last["generation"],
            sum(r["seconds"] for r in records),
            last["best_fitness"][0],
            held["kept"],
            held["won"],
            held["share"],
        )
    )
