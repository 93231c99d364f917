"""What a generation records: its entry in ``generations.jsonl`` (the figures of its population and
of its best individual) and its line in the log and on the terminal."""

from typing import Any, Dict, Mapping, Optional, Sequence

import numpy

from evolve.genome import Individual


def by_colour(individual: Individual) -> Dict[str, Optional[float]]:
    """The win rates of an individual as Black and as White in its last evaluation."""
    report = getattr(individual, "report", {}) or {}
    return {"black": report.get("black_win_rate"), "white": report.get("white_win_rate")}


def rate_text(value: Optional[float]) -> str:
    """A win rate or its standard error as the log and the table write it; ``-`` where there is none."""
    return "-" if value is None else f"{value:.3f}"


def population_figures(evaluated: Sequence[Individual]) -> Dict[str, Any]:
    """The win rates' and margins' statistics of the individuals evaluated, the mean standard error of a
    fitness, and every individual with its weights, fitness and report."""
    figures = _stats(evaluated)
    errors = [ind.report["standard_error"] for ind in evaluated if getattr(ind, "report", None)]
    figures["win_rate"]["standard_error"] = float(numpy.mean(errors)) if errors else None
    figures["individuals"] = [
        dict({"weights": [float(w) for w in ind], "fitness": list(ind.fitness.values)}, **getattr(ind, "report", {}))
        for ind in evaluated
    ]
    return figures


def _stats(population: Sequence[Individual]) -> Dict[str, Any]:
    wins = numpy.array([ind.fitness.values[0] for ind in population])
    margins = numpy.array([ind.fitness.values[1] for ind in population])
    return {
        "win_rate": {
            "best": float(wins.max()),
            "mean": float(wins.mean()),
            "std": float(wins.std()),
            "min": float(wins.min()),
        },
        "margin": {"best": float(margins.max()), "mean": float(margins.mean()), "std": float(margins.std())},
    }


def generation_line(entry: Mapping[str, Any]) -> str:
    """A generation's line: the best's fitness and win rates by colour, the population's mean and spread beside
    the noise of a fitness, diversity, games and games/s, and the regret fitness's figures where it has them."""
    colour = entry["best_by_colour"]
    regret = ""
    if "best_held_out" in entry:
        regret = "  regret: kept {:.3f}, held out {:.3f} ({} positions searched)".format(
            entry["best_regret_kept"] or 0.0,
            (entry["best_held_out"] or {}).get("share") or 0.0,
            entry.get("positions", "?"),
        )
    return (
        "gen {generation:>3}  best {win:.3f} ({margin:+.2f}; Black {black}, White {white})  mean {mean:.3f}  "
        "spread {std:.3f} (noise: SE {se:.3f})  diversity {diversity:.3f}  {games} games  "
        "{rate:.1f} games/s{cpu}{regret}".format(
            generation=entry["generation"],
            win=entry["best_fitness"][0],
            margin=entry["best_fitness"][1],
            black=rate_text(colour["black"]),
            white=rate_text(colour["white"]),
            mean=entry["win_rate"]["mean"],
            std=entry["win_rate"]["std"],
            se=entry["win_rate"]["standard_error"] or 0.0,
            diversity=entry["diversity"],
            games=entry["games"],
            rate=entry["games_per_second"],
            cpu=f"  {entry['cpu_seconds']:.0f} CPU s" if entry.get("cpu_seconds") is not None else "",
            regret=regret,
        )
    )


HARDER_OPPONENTS = "handset@2, champion, or gnugo"  # what a saturated panel may add, hardest last


def saturation_warning(entry: Mapping[str, Any]) -> Optional[str]:
    """The warning of a generation whose fitness no longer tells its individuals apart, or None: every one
    at the same win rate (all won, or all lost), or their spread within the noise of one fitness."""
    rates = entry["win_rate"]
    noise = rates.get("standard_error")
    if rates["min"] == rates["best"]:
        kind = "every individual won every game" if rates["best"] >= 1.0 else "every individual scored the same"
        if rates["best"] <= 0.0:
            kind = "every individual lost every game"
    elif noise and rates["std"] < noise:
        kind = f"the individuals' spread ({rates['std']:.3f}) is within one fitness's noise ({noise:.3f})"
    else:
        return None
    if rates["best"] <= 0.0:
        advice = "an easier opponent (random, greedy), or more games"
    elif rates["min"] >= 1.0:
        advice = f"a harder opponent ({HARDER_OPPONENTS}) to the panel"
    else:
        advice = f"more games an individual, or a harder opponent ({HARDER_OPPONENTS})"
    return (
        f"generation {entry['generation']}: {kind}: the panel no longer tells them apart, so selection is "
        f"blind; add {advice}"
    )
