"""The labels fitness of the tuner benchmark (``evolve.solved.tuners``): every move of won positions
labelled by the solver.

A won position's moves either keep the win or give it away, exactly. ``labels_of`` gathers the one-ply
features of every move of such positions with those labels (a ``Labels``); ``label_loss`` is minus the
log of the probability that a softmax of the moves' one-ply evaluations gives the winning moves, Texel's
way (no search), with its gradient for a tuner that follows it.
"""

from typing import List, Literal, NamedTuple, Sequence, Tuple, Union, overload

import numpy

from engine.constants import PASS, Move
from engine.features import feature_values
from engine.native.solver import position_from_text
from engine.ruler.position_set import SolvedPosition

LABEL_SCALE = 0.1  # logits per unit of evaluation: a stone of margin (weight 10) is one logit


class Labels(NamedTuple):
    """The one-ply features of every move of every won training position: ``features`` (moves x FEATURES,
    from the mover's side after its move), ``wins`` (1 where the move keeps the win), and ``owner`` (the
    position each row belongs to, 0 to positions - 1)."""

    features: numpy.ndarray
    wins: numpy.ndarray
    owner: numpy.ndarray
    positions: int


def move_features(text: str) -> List[Tuple[Move, Tuple[float, ...]]]:
    """[(move, the mover's features after it)] of every legal move of the position ``text``: the child's
    features negated (they are from the child's side to move), its captures the mover's."""
    position = position_from_text(text)
    rows = []
    moves: List[Move] = [*position.legal_points(), PASS]
    for move in moves:
        child = position.play_point(move)
        captured = bin(position.opp).count("1") - bin(child.own).count("1")
        rows.append((move, tuple(-value for value in feature_values(child, -captured))))
    return rows


def labels_of(positions: Sequence[SolvedPosition]) -> Labels:
    """The Labels of the won ``positions``."""
    features: List[Tuple[float, ...]] = []
    wins: List[float] = []
    owner: List[int] = []
    for number, solved in enumerate(positions):
        winning = solved.winning
        for move, values in move_features(solved.text):
            features.append(values)
            wins.append(1.0 if move in winning else 0.0)
            owner.append(number)
    return Labels(numpy.array(features), numpy.array(wins), numpy.array(owner), len(positions))


@overload
def label_loss(weights: Sequence[float], labels: Labels, gradient: Literal[False] = False) -> float: ...


@overload
def label_loss(weights: Sequence[float], labels: Labels, gradient: Literal[True]) -> Tuple[float, numpy.ndarray]: ...


def label_loss(
    weights: Sequence[float], labels: Labels, gradient: bool = False
) -> Union[float, Tuple[float, numpy.ndarray]]:
    """The mean over positions of minus the log of the probability that a softmax of the moves' one-ply
    evaluations (times LABEL_SCALE) gives the winning moves; with ``gradient``, (loss, its gradient)."""
    w = numpy.asarray(weights, dtype=float)
    logits = LABEL_SCALE * labels.features @ w
    top = numpy.full(labels.positions, -numpy.inf)
    numpy.maximum.at(top, labels.owner, logits)
    shifted = numpy.exp(logits - top[labels.owner])
    every = numpy.bincount(labels.owner, shifted, labels.positions)
    good = numpy.bincount(labels.owner, shifted * labels.wins, labels.positions)
    loss = float(numpy.mean(numpy.log(every) - numpy.log(good)))
    if not gradient:
        return loss
    # d/dw of log(every) - log(good): the features' mean under all moves' softmax minus under the winning ones'.
    all_share = shifted / every[labels.owner]
    good_share = shifted * labels.wins / good[labels.owner]
    grad = LABEL_SCALE * ((all_share - good_share)[:, None] * labels.features).sum(axis=0) / labels.positions
    return loss, grad
