"""The comparison's table from generations.jsonl.gz (every generation of every run, each line naming its
run): per run, the generations, the seconds (wall, summed over generations), and the best individual's
regret share on the fitness positions and on the held-out ones at the end."""

import gzip
import json
import os

folder = os.path.dirname(os.path.abspath(__file__))
runs = {}
with gzip.open(os.path.join(folder, "generations.jsonl.gz"), "rt") as handle:
    for line in handle:
        record = json.loads(line)
        runs.setdefault(record["run"], []).append(record)
print("| run | generations | seconds (wall, 2 workers) | best: kept (fitness) | best: kept (held out) |")
print("| --- | --- | --- | --- | --- |")
for run, records in runs.items():
    last = records[-1]
    held = last["best_held_out"]
    print(
        "| {} | {} | {:.0f} | {:.3f} | {}/{} ({:.3f}) |".format(
            run,
            last["generation"],
            sum(r["seconds"] for r in records),
            last["best_fitness"][0],
            held["kept"],
            held["won"],
            held["share"],
        )
    )
