"""Reading a run folder back: the generation table, plots, and exporting the best weights."""

import json
import math
import os

from engine.params import save_params
from evolve.checkpoint import RunError, load_checkpoint
from evolve.loop import GENERATIONS, best_params, rate_text


def read_generations(run_dir):
    """The records of generations.jsonl, in order; RunError naming the file and line of one
    that is not a generation's record."""
    path = os.path.join(run_dir, GENERATIONS)
    if not os.path.isdir(run_dir):
        raise RunError("{}: no such run folder".format(run_dir))
    if not os.path.exists(path):
        raise RunError("{}: no {} (not a run folder, or no generation finished yet)".format(run_dir, GENERATIONS))
    records = []
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                where = "{}:{}".format(path, number)
                try:
                    record = json.loads(line.decode("utf-8"))
                except (ValueError, RecursionError):
                    raise RunError("{}: not a JSON line".format(where))
                records.append(_checked_generation(record, where))
    if not records:
        raise RunError("{}: no generation recorded yet".format(path))
    return records


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _checked_generation(record, where):
    """``record`` if it holds what the table and the plots read; RunError naming the field otherwise."""
    def need(ok, field, words):
        if not ok:
            raise RunError("{}: not a generation's record: {} must be {}".format(where, field, words))
    need(isinstance(record, dict), "the line", "an object")
    need(isinstance(record.get("generation"), int) and not isinstance(record["generation"], bool), "generation",
         "an integer")
    best = record.get("best_fitness")
    need(isinstance(best, list) and len(best) == 2 and all(map(_number, best)), "best_fitness", "two numbers")
    rates = record.get("win_rate")
    need(isinstance(rates, dict) and _number(rates.get("mean")) and _number(rates.get("std")), "win_rate",
         "an object with a mean and a std")
    need(rates.get("standard_error") is None or _number(rates["standard_error"]), "win_rate.standard_error",
         "a number or null")
    colours = record.get("best_by_colour", {})
    need(isinstance(colours, dict) and all(v is None or _number(v) for v in colours.values()), "best_by_colour",
         "an object of numbers")
    for field in ("diversity", "games", "seconds", "games_per_second"):
        need(_number(record.get(field)), field, "a number")
    weights = record.get("best_weights")
    need(isinstance(weights, dict) and weights and all(map(_number, weights.values())), "best_weights",
         "an object of numbers")
    return record


def format_table(records):
    """The generation table."""
    rows = ["{:>4} {:>9} {:>8} {:>7} {:>7} {:>8} {:>7} {:>7} {:>9} {:>6} {:>8} {:>8}".format(
        "gen", "best win", "margin", "Black", "White", "mean win", "spread", "SE", "diversity", "games", "seconds",
        "games/s")]
    for r in records:
        colour = r.get("best_by_colour", {})
        rows.append("{:>4} {:>9.3f} {:>+8.2f} {:>7} {:>7} {:>8.3f} {:>7.3f} {:>7} {:>9.3f} {:>6} {:>8.1f} {:>8.1f}".format(
            r["generation"], r["best_fitness"][0], r["best_fitness"][1], rate_text(colour.get("black")),
            rate_text(colour.get("white")), r["win_rate"]["mean"], r["win_rate"]["std"],
            rate_text(r["win_rate"].get("standard_error")), r["diversity"], r["games"], r["seconds"],
            r["games_per_second"]))
    return "\n".join(rows)


def plot_run(run_dir, out_dir=None):
    """Write fitness.png and weights.png; their paths."""
    import matplotlib                   # slow to import, and only plots need it
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    records = read_generations(run_dir)
    out_dir = out_dir or run_dir
    generations = [r["generation"] for r in records]
    best = [r["best_fitness"][0] for r in records]
    mean = [r["win_rate"]["mean"] for r in records]
    std = [r["win_rate"]["std"] for r in records]
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.plot(generations, best, marker="o", label="best (hall of fame)")
    axes.plot(generations, mean, marker=".", label="population mean")
    axes.fill_between(generations, [m - s for m, s in zip(mean, std)], [m + s for m, s in zip(mean, std)],
                      alpha=0.2, label="mean +/- 1 std")
    axes.set_xlabel("generation")
    axes.set_ylabel("win rate against the panel")
    axes.set_ylim(-0.05, 1.05)
    axes.set_title(os.path.basename(os.path.normpath(run_dir)))
    axes.legend(loc="lower right")
    figure.tight_layout()
    fitness_path = os.path.join(out_dir, "fitness.png")
    figure.savefig(fitness_path, dpi=100)
    plt.close(figure)
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for k, name in enumerate(records[0]["best_weights"]):
        # The default colour cycle has ten colours: later lines are dashed to stay distinct.
        axes.plot(generations, [r["best_weights"].get(name, math.nan) for r in records], marker=".", label=name,
                  linestyle="-" if k < 10 else "--")
    axes.set_xlabel("generation")
    axes.set_ylabel("weight of the best individual")
    axes.legend(fontsize="small", ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.tight_layout()
    weights_path = os.path.join(out_dir, "weights.png")
    figure.savefig(weights_path, dpi=100)
    plt.close(figure)
    return [fitness_path, weights_path]


def export_best(run_dir, destination, depth=None, cpu_budget=None, cpu_cap=None, solve_from=None):
    """Write the run's best weights to a params.json with their provenance; the Params written."""
    state = load_checkpoint(run_dir)
    params = best_params(run_dir, state["config"], state["generation"], state["halloffame"][0],
                         depth, cpu_budget, cpu_cap, solve_from)
    save_params(destination, params)
    return params
