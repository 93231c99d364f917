"""What a generation records: the figures of its population and of its best individual for its entry in
``generations.jsonl`` (a ``GenerationRecord``, ``engine.common.generation_record``), and its line in the log and on
the terminal."""

from typing import Any, Dict, List, NamedTuple, Optional, Sequence

import numpy

from engine.common.generation_record import ByColour, GenerationRecord, Margins, WinRates
from evolve.genome import Individual


def by_colour(individual: Individual) -> ByColour:
    """The win rates of an individual as Black and as White in its last evaluation."""
    report = getattr(individual, "report", {}) or {}
    return ByColour(report.get("black_win_rate"), report.get("white_win_rate"))


def rate_text(value: Optional[float]) -> str:
    """A win rate or its standard error as the log and the table write it; ``-`` where there is none."""
    return "-" if value is None else f"{value:.3f}"


class PopulationFigures(NamedTuple):
    """A population's part of its generation's record (``GenerationRecord``): its ``win_rate`` and
    ``margin`` figures and its ``individuals``, each with its weights, fitness and report."""

    win_rate: WinRates
    margin: Margins
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
        Margins(best=float(margins.max()), mean=float(margins.mean()), std=float(margins.std())),
        [
            dict(
                {"weights": [float(w) for w in ind], "fitness": list(ind.fitness.values)}, **getattr(ind, "report", {})
            )
            for ind in evaluated
        ],
    )


def generation_line(entry: GenerationRecord) -> str:
    """A generation's line: the best's fitness and win rates by colour, the population's mean and spread beside
    the noise of a fitness, diversity, games and games/s, and the regret fitness's figures where it has them."""
    colour = entry.best_by_colour or ByColour(None, None)
    regret = ""
    if entry.positions is not None:
        kept, held_out = entry.best_regret_kept or 0.0, entry.best_held_out
        share = (held_out.share if held_out else None) or 0.0
        regret = f"  regret: kept {kept:.3f}, held out {share:.3f} ({entry.positions} positions searched)"
    return (
        "gen {generation:>3}  best {win:.3f} ({margin:+.2f}; Black {black}, White {white})  mean {mean:.3f}  "
        "spread {std:.3f} (noise: SE {se:.3f})  diversity {diversity:.3f}  {games} games  "
        "{rate:.1f} games/s{cpu}{regret}".format(
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
            rate=entry.games_per_second,
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
