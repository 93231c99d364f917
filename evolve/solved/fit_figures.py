"""How well evaluation weights tell won positions from lost ones: the figures of a fit (``evolve.solved.fit``).

Read through a logistic curve, ``1 / (1 + exp(-evaluation / TEMPERATURE))`` is the evaluation's guess
that the mover wins; ``log_loss`` is the mean log loss of that guess over labelled positions, what the
fit minimises. The search compares positions of one ply with each other, so the figure that says how
well weights order positions is the ranking accuracy by ply (``ranking_accuracy``, the area under the
ROC curve): the chance that a won position of a ply evaluates above a lost one of the same ply, 0.5 for
a coin. ``weight_figures`` gathers the figures of a set of weights on some positions.
"""

from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy

Array = numpy.ndarray  # numpy's arrays: a feature matrix (positions x genes), labels 1/0, plies, weights
ColumnWeights = Union[Sequence[float], Array]  # weights in the columns' order, as a list or an array

TEMPERATURE = 10.0  # evaluation units per logit of the mover's chance to win


def logistic_loss(logits: Array, targets: Array) -> Tuple[float, Array]:
    """The one log loss of every fit: (the mean log loss, natural log, of the guesses sigmoid(``logits``) of
    ``targets``, each from 0 to 1 (a won position's 1); its gradient by each logit). 0.693 is a coin's."""
    value = float(numpy.mean(numpy.logaddexp(0.0, logits) - targets * logits))
    slope = (0.5 * (1.0 + numpy.tanh(0.5 * logits)) - targets) / len(targets)  # the sigmoid, without overflow
    return value, slope


def log_loss(
    weights: ColumnWeights,
    features: Array,
    labels: Array,
    offsets: Optional[Array] = None,
    columns: Optional[Array] = None,
) -> float:
    """Mean log loss of the weights' guesses (natural log): 0.693 is a coin's. ``offsets``: a
    constant per ply (``columns`` says which applies) added to the evaluations."""
    values = features.dot(numpy.asarray(weights, dtype=float))
    if offsets is not None and columns is not None:
        values = values + columns.dot(offsets)
    return logistic_loss(values / TEMPERATURE, labels)[0]


def accuracy(weights: ColumnWeights, features: Array, labels: Array) -> float:
    """The share of positions whose winner the evaluation's sign names (0 counts as wrong)."""
    values = features.dot(numpy.asarray(weights, dtype=float))
    return float(numpy.mean(numpy.where(labels == 1, values > 0, values < 0)))


def ranking_accuracy(weights: ColumnWeights, features: Array, labels: Array, plies: Array) -> Optional[float]:
    """The chance that a won position evaluates above a lost one of the same ply (ties count
    half), over all such pairs of every ply; None when no ply has both."""
    values = features.dot(numpy.asarray(weights, dtype=float))
    right = pairs = 0.0
    for ply in set(plies.tolist()):
        chosen = plies == ply
        won, lost = values[chosen & (labels == 1)], values[chosen & (labels == 0)]
        if len(won) and len(lost):
            order = numpy.sort(lost)
            below = numpy.searchsorted(order, won, side="left")
            not_above = numpy.searchsorted(order, won, side="right")
            right += float(below.sum()) + 0.5 * float((not_above - below).sum())
            pairs += len(won) * len(lost)
    return right / pairs if pairs else None


def best_scale(weights: ColumnWeights, features: Array, labels: Array) -> Tuple[float, float]:
    """(factor, log loss): the factor by which to scale the weights for the least log loss.
    Scaling changes no move the search picks, so weights fitted elsewhere are compared fairly."""
    factors = 2.0 ** numpy.arange(-8, 8.01, 0.125)
    losses = [log_loss(numpy.asarray(weights) * f, features, labels) for f in factors]
    k = int(numpy.argmin(losses))
    return float(factors[k]), float(losses[k])


def weight_figures(weights: ColumnWeights, features: Array, labels: Array, plies: Array) -> Dict[str, Any]:
    """Figures for a set of weights on some positions: count, accuracy, log loss at the best
    scale, and the accuracy by ply."""
    factor, loss = best_scale(weights, features, labels)
    overall = ranking_accuracy(weights, features, labels, plies)
    by_ply = {}
    for ply in sorted(set(plies.tolist())):
        chosen = plies == ply
        figure = ranking_accuracy(weights, features[chosen], labels[chosen], plies[chosen])
        by_ply[str(ply)] = None if figure is None else round(figure, 4)
    return {
        "positions": int(len(labels)),
        "ranking_accuracy": None if overall is None else round(overall, 4),
        "accuracy": round(accuracy(weights, features, labels), 4),
        "log_loss": round(loss, 4),
        "scale": factor,
        "ranking_accuracy_by_ply": by_ply,
    }
