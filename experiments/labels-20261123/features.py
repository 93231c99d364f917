"""Would another feature help the evaluation? Each candidate is added to the eleven, the fit
is run again on the same positions (evolve.solved.fit, the same seed and settings), and the ranking
accuracy within a ply on the held-out fifth is compared. Then weights by phase: one set for
plies 6-9, another for 10-14. Run from the repository root:

  python3 experiments/labels-20261123/features.py experiments/labels-20261123/labels-*.json.gz
"""

import sys

import numpy

from engine.bitboard import FULL, count, grow, neighbours, points_of
from engine.features import FEATURES
from engine.params import load_params
from evolve.solved import fit, fit_figures
from evolve.solved.labels import load_many


def single_colour_regions(position):
    """Empty points in empty regions bordered by the mover's stones only, minus the opponent's."""
    own, opp = position.own, position.opp
    empty = FULL ^ own ^ opp
    total, rest = 0, empty
    while rest:
        region = grow(rest & -rest, empty)
        rest ^= region
        border = neighbours(region) & ~region
        if border & own and not border & opp:
            total += count(region)
        elif border & opp and not border & own:
            total -= count(region)
    return total


def after_pass(position):
    passed = position.play("PASS")
    return None if passed.is_over else passed


def best_capture(position):
    """The most stones one move of the mover captures now."""
    if position is None:
        return 0
    return max(
        [count(position.opp) - count(position.play_point(p).own) for p in points_of(position.legal_mask())] or [0]
    )


CANDIDATES = {
    "single-colour regions": single_colour_regions,
    "legal moves, mover minus opponent": lambda p: (
        count(p.legal_mask()) - (count(after_pass(p).legal_mask()) if after_pass(p) else 0)
    ),
    "best capture now": best_capture,
    "the opponent's best capture": lambda p: best_capture(after_pass(p)),
    "the mover's stones": lambda p: count(p.own),
}


def main(paths):
    positions, labels, _ = load_many(paths)
    labels = numpy.array(labels, dtype=float)
    plies = numpy.array([p.moves_played for p in positions])
    held = fit.held_out_mask(positions)
    base = fit.feature_matrix(positions)
    shipped = load_params("params.json").weights
    start = [shipped[name] for name in FEATURES]
    print(f"{len(positions)} positions, {int(held.sum())} held out")

    def refit(extra, names):
        features = numpy.column_stack([base] + extra) if extra else base
        names = tuple(FEATURES) + tuple(names)
        weights, _ = fit.fit_weights(
            features[~held],
            labels[~held],
            plies[~held],
            start + [0.0] * len(extra),
            fit.default_bounds(100.0, names),
            generations=300,
            names=names,
        )
        return fit_figures.ranking_accuracy(weights, features[held], labels[held], plies[held]), weights

    print(f"the shipped weights: {fit_figures.ranking_accuracy(start, base[held], labels[held], plies[held]):.4f}")
    alone, _ = refit([], [])
    print(f"the eleven features, fitted: {alone:.4f}")
    columns = {}
    for name, function in CANDIDATES.items():
        columns[name] = numpy.array([function(p) for p in positions], dtype=float)
        accuracy, weights = refit([columns[name]], [name])
        print(f"  + {name:<36} {accuracy:.4f} ({accuracy - alone:+.4f}), its weight {weights[-1]:.2f}")
    accuracy, _ = refit(list(columns.values()), list(columns))
    print(f"  + all five: {accuracy:.4f} ({accuracy - alone:+.4f})")
    early = (plies <= 9).astype(float)[:, None]
    phased = numpy.column_stack([base * early, base * (1 - early)])
    names = tuple(name if name == "captures" else name + when for when in ("@6-9", "@10-14") for name in FEATURES)
    weights, _ = fit.fit_weights(
        phased[~held],
        labels[~held],
        plies[~held],
        start + start,
        fit.default_bounds(100.0, names),
        generations=300,
        names=names,
    )
    accuracy = fit_figures.ranking_accuracy(weights, phased[held], labels[held], plies[held])
    print(f"weights by phase (plies 6-9, 10-14): {accuracy:.4f} ({accuracy - alone:+.4f})")


if __name__ == "__main__":
    main(sys.argv[1:])
