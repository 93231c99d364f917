#!/bin/sh
# After the SPRT of PLAN.md has ended (sprt.json, the match's report): replace params.json by the
# candidate only if the SPRT accepted H1 and params.json is still the file the test played
# against. Run from the repository root. It changes nothing otherwise, and says why.
set -e
python3 - <<'PY'
import datetime, hashlib, json, sys
from engine.params import load_params, save_params

folder = "experiments/centre-20261124"
TESTED_AGAINST = "abd48129c3c4384e85c382c0cbad79be68b884a505c0949f30227b781c1fb97b"  # params.json at 13:19 UTC
report = json.load(open(f"{folder}/sprt.json"))
test = report["sprt"]
if test["decision"] != "H1":
    sys.exit(f"not shipped: the SPRT decided {test['decision']} after {report['games']} games (LLR {test['llr']:.2f})")
if hashlib.sha256(open("params.json", "rb").read()).hexdigest() != TESTED_AGAINST:
    sys.exit("not shipped: params.json changed since the test began")
candidate = load_params(f"{folder}/candidate-params.json")
previous = load_params("params.json")
wins = report["wins"][report["a"]]
provenance = dict(
    candidate.provenance,
    exported_by="evolve fit experiments/labels-20261123/labels-11.json.gz experiments/labels-20261123/labels-101.json.gz "
    "--only centre --out experiments/centre-20261124/candidate-params.json",
    shipped_after={
        "test": "SPRT, alpha = beta = 0.05, course bundles at the playing budget (experiments/centre-20261124/PLAN.md)",
        "elo0": test["elo0"], "elo1": test["elo1"], "games": report["games"], "candidate_wins": wins,
        "llr": round(test["llr"], 3), "seed": report["seed"], "random_opening": report["random_opening"],
        "journal": f"{folder}/sprt.journal",
        "replaced": {key: previous.provenance.get(key) for key in ("source", "run", "generation")},
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
    },
)
save_params("params.json", candidate._replace(provenance=provenance))
print(f"shipped: {wins} of {report['games']} games, LLR {test['llr']:.2f}; params.json replaced")
PY
