"""Is the 400-game match against one's own weights biased towards them? (python3 mirror.py RUN_DIR)

Every tuner's candidate, and every trust-region trial of the sixth leg, scores at most about 51% in
the match as shipped against the shipped weights. Either the shipped weights are a true local
optimum of the match, or any weights beat small changes of themselves in it (a player meets its
own mistakes and not the others'). Perturbations of a base that no tuner fitted tell the two apart:
around an untuned base, changes should win about as often as they lose. Bases: the shipped weights,
and the sixth leg's weakest trial (scored against the shipped ones). Six perturbations each, every
weight uniform within 10% of its bound range (optuna_match.region), each played against its base
(400 games as shipped in nodes, random 2-ply openings, seed 4936). Writes RUN_DIR/mirror.json.
"""

import json
import os
import random
import sys

from optuna_match import region, score

from engine.params import load_params, make_params, save_params

PERTURBATIONS = 6
SEED = 4936


def main():
    run_dir = sys.argv[1]
    trials = json.load(open(os.path.join(run_dir, "trials.json")))
    shipped = load_params("params.json")
    weakest = min(trials["trials"], key=lambda t: (t["score"], t["number"]))
    bases = {"shipped": dict(shipped.weights), f"trial {weakest['number']}": weakest["weights"]}
    rng = random.Random(SEED)
    found = {}
    for label, weights in bases.items():
        base_path = os.path.join(run_dir, f"base-{label.replace(' ', '-')}.json")
        base = make_params(weights, source=f"mirror base {label}", **shipped.search())
        save_params(base_path, base)
        scores = []
        for k in range(PERTURBATIONS):
            near = {name: rng.uniform(low, high) for name, (low, high) in region(base).items()}
            scores.append(score(near, run_dir, 900 + len(found) * 10 + k, shipped, 2, SEED, base_path))
            print(f"{label}: perturbation {k}: {scores[-1]:.4f}", flush=True)
        found[label] = {"weights": weights, "scores": scores, "mean": sum(scores) / len(scores)}
        with open(os.path.join(run_dir, "mirror.json"), "w") as handle:
            json.dump({"seed": SEED, "bases": found}, handle, indent=1)


if __name__ == "__main__":
    main()
