"""Which windows next: 2x2 and 3x3 window shapes fitted to the solver's values, outside the engine.

A prototype for choosing the next pattern class from evidence (engine/patterns.py has the 2x2 windows
only). For each window set it builds, from the tuner benchmark's training split, every won position and
every position a move leads to, valued by the solver (the ``values`` fitness's data); one weight a
(class, content) of each window read under each of the 8 symmetries (contents a symmetry maps onto each
other get equal counts, so the fit weighs them alike); fits a logistic guess of the mover's win by
L-BFGS with an L2 penalty on the shape weights; and counts the held-out won positions whose move,
searched to depth 4 by the Python searcher with that evaluation, keeps the win.

    PYTHONPATH=. python3 experiments/patterns-20261128/windows.py 2x2 2x2+3x3 --ridge 1e-4
"""

import argparse
import multiprocessing

import numpy
from scipy.optimize import minimize
from scipy.sparse import csr_matrix, hstack

from engine.features import feature_values
from engine.native.solver import position_from_text
from engine.search import Searcher
from engine.symmetry import SYMMETRIES
from evolve.solved.tuners import load_problem

FILES = (
    "experiments/regret-20261127/fresh-3-8.json.gz",
    "experiments/regret-20261127/recorded-all-2-7.json.gz",
    "experiments/regret-20261125/positions-4-11.json.gz",
)
# Each class's window in the top-left of the board: corner, edge, centre.
CLASSES = {
    "2x2": ((0, 1, 5, 6), (1, 2, 6, 7), (6, 7, 11, 12)),
    "3x3": ((0, 1, 2, 5, 6, 7, 10, 11, 12), (1, 2, 3, 6, 7, 8, 11, 12, 13), (6, 7, 8, 11, 12, 13, 16, 17, 18)),
}
SCALE = 10.0  # evaluation units a logit


def windows_of(kinds):
    """[(class id, the window's points under one symmetry)] of the window kinds named."""
    return [
        ((kind, number), tuple(image[p] for p in window))
        for kind in kinds
        for number, window in enumerate(CLASSES[kind])
        for image in SYMMETRIES
    ]


def shapes(position, windows):
    """The (class, content) of each window read under each symmetry, the mover's view."""
    found = []
    for name, points in windows:
        code = 0
        for point in points:
            code = 3 * code + (position.own >> point & 1) + 2 * (position.opp >> point & 1)
        found.append((name, code))
    return found


def dataset(problem, windows):
    rows, keys, wins = [], [], []
    for text, winning, _ in problem.train:
        position = position_from_text(text)
        children = [(position.play_point(m), 0.0 if m in winning else 1.0) for m in position.all_moves()]
        for child, won in [(position, 1.0)] + children:
            if not child.is_over:
                rows.append(feature_values(child, 0))
                keys.append(shapes(child, windows))
                wins.append(won)
    return numpy.array(rows), keys, numpy.array(wins)


def fit(rows, keys, wins, ridge):
    index = {}
    for found in keys:
        for key in found:
            index.setdefault(key, len(index))
    cells = [(r, index[key]) for r, found in enumerate(keys) for key in found]
    counts = csr_matrix(([1.0] * len(cells), tuple(zip(*cells))), shape=(len(wins), len(index)))
    scale = rows.std(axis=0) + 1e-9
    matrix = hstack([csr_matrix(rows / scale), counts]).tocsr()
    base = rows.shape[1]

    def loss(w):
        z = matrix @ w
        value = numpy.mean(numpy.logaddexp(0, z) - wins * z) + ridge * w[base:] @ w[base:]
        gradient = matrix.T @ (1 / (1 + numpy.exp(-z)) - wins) / len(wins)
        gradient[base:] += 2 * ridge * w[base:]
        return value, gradient

    w = minimize(loss, numpy.zeros(matrix.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 2000}).x
    return w[:base] / scale, {key: w[base + k] for key, k in index.items()}


_MODEL = {}


def _kept(entry):
    text, winning, _ = entry
    features, weights, windows = _MODEL["features"], _MODEL["weights"], _MODEL["windows"]

    def evaluate(position, captured=0):
        value = float(numpy.dot(features, feature_values(position, 0)))
        value += sum(weights.get(key, 0.0) for key in shapes(position, windows))
        return SCALE * value + SCALE * 0.5 * captured

    return Searcher(evaluate, rng=None).iterative(position_from_text(text), 4).move in winning


def _start(model):
    _MODEL.update(model)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", help="window sets: 2x2, 3x3 or 2x2+3x3")
    parser.add_argument("--ridge", type=float, default=1e-4)
    args = parser.parse_args()
    problem = load_problem(FILES, 4)
    for chosen in args.sets:
        windows = windows_of(chosen.split("+"))
        rows, keys, wins = dataset(problem, windows)
        features, weights = fit(rows, keys, wins, args.ridge)
        model = {"features": features, "weights": weights, "windows": windows}
        with multiprocessing.Pool(2, _start, (model,)) as pool:
            kept = sum(pool.map(_kept, problem.held_out, chunksize=8))
        print(
            f"{chosen}: {len(weights)} shapes seen in {len(wins)} positions, ridge {args.ridge:g}: kept {kept} of "
            f"{len(problem.held_out)} held-out won positions at depth 4 ({kept / len(problem.held_out):.1%})"
        )


if __name__ == "__main__":
    main()
