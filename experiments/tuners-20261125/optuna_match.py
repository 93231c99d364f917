"""The tuner comparison's sixth leg (PLAN.md): Optuna's TPE sampler on the 400-game match as shipped.

    python3 experiments/tuners-20261125/optuna_match.py RUN_DIR [--trials 24] [--jobs 2]

Each trial's weights (a trust region of the shipped ones) play the match as shipped in nodes against
params.json; the study lives in RUN_DIR/study.db (SQLite), so the same command continues a stopped
run, and RUN_DIR/trials.json is rewritten after each trial. Optuna is not a dependency of the
project (python3 -m pip install optuna==5.0.0).
"""

import argparse
import json
import os
import time

import optuna

from engine.features import FEATURE_TABLE
from engine.params import load_params, make_params, save_params
from engine.play.match import run_match
from engine.play.settings import GameSettings

SEED = 4934  # the sampler's and every trial's match's
GAMES = 400
OPENING_PLIES = 2
REGION = 0.10  # a weight moves within this share of its bound range of the shipped value (twice match-ga.toml's sigma)
STARTUP = 8


def region(shipped):
    """{feature: (low, high)}: the trust region around the shipped weights, inside the table's bounds."""
    found = {}
    for feature in FEATURE_TABLE:
        low, high = feature.bounds
        value, step = shipped.weights[feature.name], REGION * (high - low)
        found[feature.name] = (max(low, value - step), min(high, value + step))
    return found


def score(weights, run_dir, number, shipped, jobs, seed=SEED, against="params.json"):
    """The weights' score in the match as shipped against ``against`` (a params file; seed ``seed``)."""
    path = os.path.join(run_dir, f"trial-{number:03d}.json")
    save_params(path, make_params(weights, source=f"optuna trial {number}", **shipped.search()))
    summary, _ = run_match(
        "shipped:" + path,
        "shipped:" + against,
        GAMES,
        GameSettings(seed=seed, jobs=jobs, progress=False),
        opening_plies=OPENING_PLIES,
    )
    return summary.a_win_rate


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--trials", type=int, default=24)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    os.makedirs(args.run_dir, exist_ok=True)
    shipped = load_params("params.json")
    bounds = region(shipped)
    sampler = optuna.samplers.TPESampler(seed=SEED, multivariate=True, n_startup_trials=STARTUP)
    study = optuna.create_study(
        study_name="match",
        storage=f"sqlite:///{os.path.join(args.run_dir, 'study.db')}",
        sampler=sampler,
        direction="maximize",
        load_if_exists=True,
    )
    if not study.trials:
        study.enqueue_trial(dict(shipped.weights))

    def objective(trial):
        weights = {name: trial.suggest_float(name, low, high) for name, (low, high) in bounds.items()}
        started = time.process_time()
        result = score(weights, args.run_dir, trial.number, shipped, args.jobs)
        trial.set_user_attr("main_cpu", time.process_time() - started)
        return result

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    while len([t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]) < args.trials:
        study.optimize(objective, n_trials=1)
        done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
        best = max(done, key=lambda t: (t.value, -t.number))
        print(
            f"trial {done[-1].number}: {done[-1].value:.4f}  best so far: trial {best.number} {best.value:.4f}",
            flush=True,
        )
        document = {
            "seed": SEED,
            "games": GAMES,
            "region": REGION,
            "trials": [{"number": t.number, "score": t.value, "weights": t.params} for t in done],
            "best": best.number,
        }
        with open(os.path.join(args.run_dir, "trials.json"), "w") as handle:
            json.dump(document, handle, indent=1)


if __name__ == "__main__":
    main()
