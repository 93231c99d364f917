"""The comparison's table from generations.jsonl.gz (every generation of every run, each line naming its
run): per run, the generations, the seconds (wall, summed over generations), the CPU seconds (summed, where
the run recorded them: runs from 2026-11-27 afternoon on), and the best individual's
fitness at the end (the regret share, or the games' win rate), and its regret share on the held-out
positions where the fitness has them."""

import gzip
import json
import os

folder = os.path.dirname(os.path.abspath(__file__))
runs = {}
with gzip.open(os.path.join(folder, "generations.jsonl.gz"), "rt") as handle:
    for line in handle:
        record = json.loads(line)
        runs.setdefault(record["run"], []).append(record)
print(
    "| run | generations | seconds (wall, summed) | CPU s (summed) | workers | best: fitness | best: kept (held out) |"
)
print("| --- | --- | --- | --- | --- | --- | --- |")
for run, records in runs.items():
    last = records[-1]
    held = last.get("best_held_out")
    print(
        "| {} | {} | {:.0f} | {} | {} | {:.3f} | {} |".format(
            run,
            last["generation"],
            sum(r["seconds"] for r in records),
            "-" if last.get("cpu_seconds") is None else "{:.0f}".format(sum(r["cpu_seconds"] for r in records)),
            last["executor"]["workers"],
            last["best_fitness"][0],
            "{}/{} ({:.3f})".format(held["kept"], held["won"], held["share"]) if held else "-",
        )
    )
