"""What a generation records: the figures of its population and of its best individual for its entry in
``generations.jsonl`` (a ``GenerationRecord``, ``engine.common.generation_record``), and its line in the log and on
the terminal."""

import math
from typing import Any, Dict, List, NamedTuple, Optional, Sequence

import numpy

from engine.common.generation_record import ByColour, GenerationRecord, MarginFigures, WinRates
from evolve.genome import FitnessReport, Individual


def by_colour(individual: Individual) -> ByColour:
    """The win rates of an individual as Black and as White in its last evaluation."""
    report: FitnessReport = getattr(individual, "report", None) or FitnessReport()  # none before an evaluation here
    return ByColour(report.get("black_win_rate"), report.get("white_win_rate"))


def rate_text(value: Optional[float]) -> str:
    """A win rate or its standard error as the log and the table write it; ``-`` where there is none."""
    return "-" if value is None else f"{value:.3f}"


class PopulationFigures(NamedTuple):
    """A population's part of its generation's record (``GenerationRecord``): its ``win_rate`` and
    ``margin`` figures and its ``individuals``, each with its weights, fitness and report."""

    win_rate: WinRates
    margin: MarginFigures
    individuals: List[Dict[str, Any]]


def population_figures(evaluated: Sequence[Individual]) -> PopulationFigures:
    """The win rates' and margins' statistics of the individuals evaluated, the mean standard error of a
    fitness, and every individual with its weights, fitness and report."""
    wins = numpy.array([ind.fitness.values[0] for ind in evaluated])
    margins = numpy.array([ind.fitness.values[1] for ind in evaluated])
    errors = [ind.report["standard_error"] for ind in evaluated if getattr(ind, "report", None)]
    return PopulationFigures(
        WinRates(
            best=float(wins.max()),
            mean=float(wins.mean()),
            std=float(wins.std()),
            min=float(wins.min()),
            standard_error=float(numpy.mean(errors)) if errors else None,
        ),
        MarginFigures(best=float(margins.max()), mean=float(margins.mean()), std=float(margins.std())),
        [
            dict(
                {"weights": [float(w) for w in ind], "fitness": list(ind.fitness.values)}, **getattr(ind, "report", {})
            )
            for ind in evaluated
        ],
    )


def per_second_text(rate: float) -> str:
    """A rate a second, its digits shown below 1 (0.047, not 0.0)."""
    return f"{rate:.1f}" if rate >= 1 or rate == 0 else f"{rate:.2g}"


def generation_line(entry: GenerationRecord) -> str:
    """A generation's line: the best's fitness and win rates by colour, the population's mean and spread beside
    the noise of a fitness, diversity, games and games/s, and the regret fitness's figures where it has them."""
    colour = entry.best_by_colour or ByColour(None, None)
    regret = ""
    if entry.positions is not None:
        kept, held_out = entry.best_regret_kept or 0.0, entry.best_held_out
        share = (held_out.share if held_out else None) or 0.0
        per_second = entry.positions_per_second
        rate = f", {per_second_text(per_second)} positions/s" if per_second is not None else ""
        regret = f"  regret: kept {kept:.3f}, held out {share:.3f} ({entry.positions} positions asked{rate})"
    return (
        "gen {generation:>3}  best {win:.3f} ({margin:+.2f}; Black {black}, White {white})  mean {mean:.3f}  "
        "spread {std:.3f} (noise: SE {se:.3f})  diversity {diversity:.3f}  {games} games  "
        "{rate} games/s{cpu}{regret}".format(
            generation=entry.generation,
            win=entry.best_fitness[0],
            margin=entry.best_fitness[1],
            black=rate_text(colour.black),
            white=rate_text(colour.white),
            mean=entry.win_rate.mean,
            std=entry.win_rate.std,
            se=entry.win_rate.standard_error or 0.0,
            diversity=entry.diversity,
            games=entry.games,
            rate=per_second_text(entry.games_per_second),
            cpu=f"  {entry.cpu_seconds:.0f} CPU s" if entry.cpu_seconds is not None else "",
            regret=regret,
        )
    )


HARDER_OPPONENTS = "handset@2, champion, or gnugo"  # what a saturated panel may add, hardest last


def saturation_warning(generation: int, rates: WinRates) -> Optional[str]:
    """The warning of a generation whose fitness no longer tells its individuals apart, or None: every one
    at the same win rate (all won, or all lost), or their spread within the noise of one fitness."""
    best, lowest, noise = rates.best, rates.min, rates.standard_error
    if best is None or lowest is None:  # a record no run wrote
        return None
    if lowest == best:
        kind = "every individual won every game" if best >= 1.0 else "every individual scored the same"
        if best <= 0.0:
            kind = "every individual lost every game"
    elif noise and rates.std < noise:
        kind = f"the individuals' spread ({rates.std:.3f}) is within one fitness's noise ({noise:.3f})"
    else:
        return None
    if best <= 0.0:
        advice = "an easier opponent (random, greedy), or more games"
    elif lowest >= 1.0:
        advice = f"a harder opponent ({HARDER_OPPONENTS}) to the panel"
    else:
        advice = f"more games an individual, or a harder opponent ({HARDER_OPPONENTS})"
    return f"generation {generation}: {kind}: the panel no longer tells them apart, so selection is blind; add {advice}"


# The best individual's training share may pass its held-out share by this much before the two are said to
# part, or by twice the gap's standard error where that is more (two binomial shares: which positions fell
# in which split): a gap within the noise of the split is no sign of over-fitting, nor is a gap of one
# position in fifty on a large file. Said once the gap has held for OVERFIT_GENERATIONS generations running:
# the held-out share is one individual's, and one best may land on the wrong side of its noise by chance.
OVERFIT_FLOOR = 0.02
OVERFIT_GENERATIONS = 2


def overfit_margin(entry: GenerationRecord) -> Optional[float]:
    """How far the best's training share may pass its held-out share in ``entry`` before the two part (the
    larger of OVERFIT_FLOOR and twice the gap's standard error); None without the two shares."""
    held_out, kept = entry.best_held_out, entry.best_regret_kept
    if held_out is None or held_out.share is None or kept is None or not entry.positions or not entry.evaluated:
        return None
    trained = entry.positions // entry.evaluated  # the won fitness positions each individual was asked
    variance = kept * (1 - kept) / max(trained, 1) + held_out.share * (1 - held_out.share) / held_out.won
    return max(OVERFIT_FLOOR, 2 * math.sqrt(variance))


def overfitting_warning(entries: Sequence[GenerationRecord]) -> Optional[str]:
    """The warning of a run whose best individual's training share has passed its held-out share by more than
    ``overfit_margin`` in each of the last OVERFIT_GENERATIONS generations of ``entries``, or None."""
    last = entries[-OVERFIT_GENERATIONS:]
    if len(last) < OVERFIT_GENERATIONS:
        return None
    for entry in last:
        margin = overfit_margin(entry)
        held_out = entry.best_held_out
        if margin is None or held_out is None or held_out.share is None or entry.best_regret_kept is None:
            return None
        if entry.best_regret_kept - held_out.share <= margin:
            return None
    entry = last[-1]
    assert entry.best_held_out is not None and entry.best_held_out.share is not None  # checked above
    return (
        f"generation {entry.generation}: the best individual keeps {entry.best_regret_kept:.3f} of the fitness's "
        f"won positions but {entry.best_held_out.share:.3f} of the held-out ones (a gap past "
        f"{overfit_margin(entry):.3f}, twice its noise or {OVERFIT_FLOOR}, for {OVERFIT_GENERATIONS} generations "
        "running): the run is learning its positions, not the game; export an earlier generation's best "
        "(evolve log shows each), or draw more positions (evolve positions)"
    )
