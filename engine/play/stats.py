"""The statistics of a match, apart from playing it: pure functions of counts.

The Wilson score interval of a win rate, the Elo difference a score implies with its
margin (as cutechess reports it), and Wald's sequential probability ratio test: on won and
lost games (a binomial model: no draws in Little-Go), or, where games come in colour pairs
of one opening, on the pairs' scores (0, 1/2 or 1: the trinomial case of fishtest's and
OpenBench's pentanomial model), whose likelihoods are the multinomial's with its mean held at
each hypothesis's score (the generalised SPRT).
"""

import math
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

Z95 = 1.959963984540054  # the two-sided 95% quantile of the normal distribution


def wilson_interval(wins: int, games: int, z: float = Z95) -> Tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_difference(score: float) -> float:
    """Elo difference implied by a score rate (inf at 0 or 1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def elo_with_margin(wins: int, games: int) -> Tuple[float, float]:
    """(Elo difference, its 95% error margin), as cutechess reports it."""
    score = wins / games
    deviation = math.sqrt(score * (1 - score) / games)
    low, high = elo_difference(score - Z95 * deviation), elo_difference(score + Z95 * deviation)
    return elo_difference(score), (high - low) / 2


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> Tuple[float, float]:
    """(lower, upper) log-likelihood-ratio bounds of Wald's test: accept H0 below, H1 above."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt_llr(wins: int, losses: int, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (A is ``elo1`` stronger) against H0 (``elo0``), for won/lost games."""
    p0, p1 = (1 / (1 + 10 ** (-elo / 400)) for elo in (elo0, elo1))
    return wins * math.log(p1 / p0) + losses * math.log((1 - p1) / (1 - p0))


PAIR_SCORES = (0.0, 0.5, 1.0)  # a colour pair's score for A: both lost, one won, both won
PRIOR_COUNT = 1e-3  # added to each pair score's count, so that a score not seen yet is not impossible


def expected_score(elo: float) -> float:
    """The score a player ``elo`` Elo stronger makes, in the logistic model."""
    return 1 / (1 + 10 ** (-elo / 400))


def _constrained(frequencies: Sequence[float], mean: float) -> List[float]:
    """The pair-score probabilities nearest ``frequencies`` (maximum likelihood) whose mean is ``mean``:
    p_j = f_j / (1 + t (x_j - mean)), with t found by bisection where the mean comes out right."""
    shifts = [score - mean for score in PAIR_SCORES]
    low = -1 / max(shifts) + 1e-12 if max(shifts) > 0 else -1e12
    high = -1 / min(shifts) - 1e-12 if min(shifts) < 0 else 1e12
    for _ in range(200):
        middle = (low + high) / 2
        if sum(f * d / (1 + middle * d) for f, d in zip(frequencies, shifts)) > 0:
            low = middle
        else:
            high = middle
    return [f / (1 + middle * d) for f, d in zip(frequencies, shifts)]


def pair_sprt_llr(pair_counts: Sequence[int], elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (A is ``elo1`` stronger) against H0 (``elo0``) for colour pairs:
    ``pair_counts`` (n0, n1, n2) pairs of A's score 0, 1/2 and 1."""
    counts = [n + PRIOR_COUNT for n in pair_counts]
    total = sum(counts)
    frequencies = [n / total for n in counts]
    p0, p1 = (_constrained(frequencies, expected_score(elo)) for elo in (elo0, elo1))
    return sum(n * math.log(b / a) for n, a, b in zip(pair_counts, p0, p1) if n)


class SprtState(NamedTuple):
    """The test after some games: its hypotheses, LLR, bounds and decision (None while it goes on)."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    llr: float
    lower: float
    upper: float
    games: int
    decision: Optional[str]  # "H1", "H0" or None
    model: str = "games"  # "games": won and lost games; "pairs": the scores of colour pairs

    def to_json(self) -> Dict[str, object]:
        """The state as a JSON-ready dict."""
        return dict(self._asdict())


def sprt_state(wins: int, losses: int, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> SprtState:
    """The SprtState after ``wins`` and ``losses`` of A's."""
    return _state(sprt_llr(wins, losses, elo0, elo1), elo0, elo1, alpha, beta, wins + losses, "games")


def pair_sprt_state(
    pair_counts: Sequence[int], elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05
) -> SprtState:
    """The SprtState after colour pairs of A's scores 0, 1/2 and 1 counted in ``pair_counts``."""
    return _state(pair_sprt_llr(pair_counts, elo0, elo1), elo0, elo1, alpha, beta, 2 * sum(pair_counts), "pairs")


def _state(llr: float, elo0: float, elo1: float, alpha: float, beta: float, games: int, model: str) -> SprtState:
    lower, upper = sprt_bounds(alpha, beta)
    decision = "H1" if llr >= upper else "H0" if llr <= lower else None
    return SprtState(elo0, elo1, alpha, beta, llr, lower, upper, games, decision, model)
