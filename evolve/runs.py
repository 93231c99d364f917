"""Reading a run folder back: the generation table, plots, and exporting the best weights."""

import datetime
import json
import math
import os
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from engine.common.generation_record import ByColour, GenerationRecord, read_generations
from engine.common.runfolder import CONFIG_COPY, START_WEIGHTS
from engine.params import Params, make_params, save_params
from evolve import genome
from evolve.agents.code_individual import write_tuned_agent
from evolve.agents.program_individual import AgentWeights, refuse_search_settings, save_agent_weights
from evolve.checkpoint import load_checkpoint
from evolve.config import load_config
from evolve.experiment.config_keys import ConfigError
from evolve.experiment.schema import Config, ProgramIndividual
from evolve.generations import per_second_text, rate_text
from evolve.params_genes import run_genome

if TYPE_CHECKING:  # matplotlib is slow to import, and only plots need it
    from matplotlib.figure import Figure

# The most gene trajectories one weights plot draws (a run of a whole hidden layer has thousands).
PLOTTED_GENES = 20


def format_table(records: Sequence[GenerationRecord]) -> str:
    """The generation table; where the run has [regret], the best's share of the fitness's won positions kept
    (``kept``), of the held-out ones (``held out``) and the ruler's positions a second beside it."""
    regret = any(r.positions is not None for r in records)
    head = "{:>4} {:>9} {:>8} {:>7} {:>7} {:>8} {:>7} {:>7} {:>9} {:>6} {:>8} {:>8} {:>8}"
    names = ["gen", "best win", "margin", "Black", "White", "mean win", "spread", "SE", "diversity", "games"]
    names += ["seconds", "CPU s", "games/s"]
    if regret:
        head += " {:>6} {:>8} {:>6}"
        names += ["kept", "held out", "pos/s"]
    rows = [head.format(*names)]
    for r in records:
        colour = r.best_by_colour or ByColour(None, None)  # runs before it was recorded: none
        row = "{:>4} {:>9.3f} {:>+8.2f} {:>7} {:>7} {:>8.3f} {:>7.3f} {:>7} {:>9.3f} {:>6} {:>8.1f} {:>8} {:>8}"
        values: List[Any] = [
            r.generation,
            r.best_fitness[0],
            r.best_fitness[1],
            rate_text(colour.black),
            rate_text(colour.white),
            r.win_rate.mean,
            r.win_rate.std,
            rate_text(r.win_rate.standard_error),
            r.diversity,
            r.games,
            r.seconds,
            "-" if r.cpu_seconds is None else f"{r.cpu_seconds:.1f}",  # runs before CPU was recorded
            per_second_text(r.games_per_second),  # 0.03, not 0.0
        ]
        if regret:
            row += " {:>6} {:>8} {:>6}"
            held_out = r.best_held_out.share if r.best_held_out else None
            rate = "-" if r.positions_per_second is None else per_second_text(r.positions_per_second)
            values += [rate_text(r.best_regret_kept), rate_text(held_out), rate]
        rows.append(row.format(*values))
    return "\n".join(rows)


def plot_run(run_dir: str, out_dir: Optional[str] = None) -> List[str]:
    """Write fitness.png and weights.png; their paths."""
    import matplotlib  # slow to import, and only plots need it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = read_generations(run_dir)
    out_dir = out_dir or run_dir
    try:
        bounds = load_config(os.path.join(run_dir, CONFIG_COPY)).bounds
    except (ConfigError, OSError):  # a config copy of an older schema: the weights drawn without their bounds
        bounds = {}
    paths = []
    title = os.path.basename(os.path.normpath(run_dir))
    for name, figure in (
        ("fitness.png", fitness_figure(records, title, original_win_rate(run_dir, records))),
        ("weights.png", weights_figure(records, bounds, start_weights(run_dir))),
    ):
        paths.append(os.path.join(out_dir, name))
        figure.savefig(paths[-1], dpi=100, bbox_inches="tight")  # nothing cut off at the edges
        plt.close(figure)
    return paths


def original_win_rate(run_dir: str, records: Sequence[GenerationRecord]) -> Optional[float]:
    """The win rate in generation 0 of the weights the run started from (its first ``[start]`` row: a program
    individual's own weights), None where it started from none or generation 0 is not recorded."""
    try:
        with open(os.path.join(run_dir, START_WEIGHTS)) as handle:
            rows = json.load(handle).get("weights") or []
    except (OSError, ValueError, AttributeError):
        return None
    if not rows or not records or records[0].generation != 0:
        return None
    first = [float(w) for w in rows[0]]
    for individual in records[0].individuals or []:
        weights = [float(w) for w in individual.get("weights", [])]
        if len(weights) == len(first) and all(abs(a - b) < 1e-9 for a, b in zip(weights, first)):
            return float(individual["fitness"][0])
    return None


def start_weights(run_dir: str) -> Optional[Dict[str, float]]:
    """The first weights the run started from (its first ``[start]`` row, by gene name), None where it names
    none or kept no gene names."""
    try:
        with open(os.path.join(run_dir, START_WEIGHTS)) as handle:
            data = json.load(handle)
        rows, genes = data.get("weights") or [], data.get("genes")
    except (OSError, ValueError, AttributeError):
        return None
    if not rows or not isinstance(genes, list) or len(rows[0]) != len(genes):
        return None
    return {str(gene): float(value) for gene, value in zip(genes, rows[0])}


def fitness_figure(records: Sequence[GenerationRecord], title: str, original: Optional[float] = None) -> "Figure":
    """The best's and the mean's win rate a generation, the mean's band of one standard deviation (within
    the rate's possible range), a tick a whole generation; and where the run started from weights of its own
    (a program individual's), the ``original``'s win rate in generation 0 as a line across."""
    from matplotlib import pyplot
    from matplotlib.ticker import MaxNLocator

    generations = [r.generation for r in records]
    best = [r.best_fitness[0] for r in records]
    mean = [r.win_rate.mean for r in records]
    std = [r.win_rate.std for r in records]
    figure, axes = pyplot.subplots(figsize=(7, 4))
    axes.plot(generations, best, marker="o", label="best (hall of fame)")
    axes.plot(generations, mean, marker=".", label="population mean")
    if original is not None:
        axes.axhline(original, linestyle="--", color="grey", label="the original (its generation 0 win rate)")
    axes.fill_between(
        generations,
        [max(0.0, m - s) for m, s in zip(mean, std)],
        [min(1.0, m + s) for m, s in zip(mean, std)],
        alpha=0.2,
        label="mean +/- 1 std (within 0 and 1)",
    )
    axes.set_xlabel("generation (0: the first population)")
    axes.set_ylabel("win rate against the panel")
    axes.set_ylim(-0.05, 1.05)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_title(title)
    axes.legend(loc="lower right")
    figure.tight_layout()
    return figure


def weights_figure(
    records: Sequence[GenerationRecord],
    bounds: Mapping[str, Tuple[float, float]],
    start: Optional[Mapping[str, float]] = None,
) -> "Figure":
    """Each weight's trajectory (where the strategy stands: SPSA's centre, CMA-ES's mean, the GA population's
    mean; a run from before that was recorded, its best individual's), its ``bounds`` ({name: (low, high)})
    dotted in its colour, a tick a whole generation; where the run started from weights (``start``, by gene
    name), each trajectory begins there, at "start", before generation 0's update."""
    from matplotlib import pyplot
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    generations = [r.generation for r in records]
    centred = all(r.centre is not None for r in records)  # else a run from before the centre was recorded
    trajectories = [(r.centre if r.centre is not None and centred else r.best_weights) for r in records]
    begun = start is not None and records[0].generation == 0 and set(start) == set(trajectories[0])
    if begun:
        assert start is not None
        generations, trajectories = [-1] + generations, [dict(start)] + trajectories
    names = _most_moved(trajectories, bounds, PLOTTED_GENES)
    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    for k, name in enumerate(names):
        # The default colour cycle has ten colours: later lines are dashed to stay distinct.
        line = axes.plot(
            generations,
            [weights.get(name, math.nan) for weights in trajectories],
            marker=".",
            label=name,
            linestyle="-" if k < 10 else "--",
        )[0]
        for end in bounds.get(name, ()):
            axes.axhline(end, color=line.get_color(), linestyle=":", linewidth=0.8, alpha=0.6)
    axes.set_xlabel("generation (0: the first population)" + ("; start: the start weights" if begun else ""))
    axes.set_ylabel("weight")
    axes.set_title(
        "each weight where "
        + ("the strategy stands (SPSA: centre; CMA-ES: mean; GA: population mean)" if centred else "the best is")
        + "; dotted: its bounds"
        + (
            f"; the {len(names)} of {len(trajectories[0])} genes that moved most"
            if len(names) < len(trajectories[0])
            else ""
        ),
        fontsize="small",
    )
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    if begun:
        axes.xaxis.set_major_formatter(FuncFormatter(lambda x, _: "start" if x == -1 else f"{x:.0f}"))
    axes.legend(fontsize="small", ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.tight_layout()
    return figure


def _most_moved(
    trajectories: Sequence[Mapping[str, float]], bounds: Mapping[str, Tuple[float, float]], most: int
) -> List[str]:
    """The genes of ``trajectories`` to draw, in genome order: all of them, or past ``most`` the ``most`` that
    moved furthest from where they began, in shares of their bounds' range (a whole layer is thousands)."""
    names = list(trajectories[0])
    if len(names) <= most:
        return names

    def moved(name: str) -> float:
        low, high = bounds.get(name, (0.0, 1.0))
        values = [weights.get(name, math.nan) for weights in trajectories]
        return max(abs(value - values[0]) for value in values if not math.isnan(value)) / (high - low)

    chosen = set(sorted(names, key=moved, reverse=True)[:most])
    return [name for name in names if name in chosen]


def export_best(run_dir: str, destination: str, **settings: Optional[float]) -> Union[Params, AgentWeights]:
    """Write the run's best weights to a params.json with their provenance; the Params written. For a
    program individual, the agent's own weights file and its provenance's sidecar (search settings refused:
    a program has none); the AgentWeights written. ``settings``: search settings by name (SEARCH_TABLE)."""
    checkpoint = load_checkpoint(run_dir)
    config, best = checkpoint.config, checkpoint.halloffame[0]
    if config.individual is not None:
        refuse_search_settings(**settings)
        return save_agent_weights(
            destination, config, best, provenance(run_dir, config, checkpoint.generation, best.fitness.values)
        )
    params = best_params(run_dir, config, checkpoint.generation, best, **settings)
    save_params(destination, params)
    return params


def export_tuned_agent(run_dir: str, destination: str) -> Tuple[str, Dict[str, Any]]:
    """Write the best of a run that tuned the constants of an agent's code as the new agent folder
    ``destination`` (``write_tuned_agent``); the diff's text and the provenance written."""
    checkpoint = load_checkpoint(run_dir)
    config, best = checkpoint.config, checkpoint.halloffame[0]
    assert config.individual is not None and config.individual.constants, f"{run_dir} tuned no constants"
    where = provenance(run_dir, config, checkpoint.generation, best.fitness.values)
    return write_tuned_agent(destination, config.individual, config.genes, best, where), where


def program_of(run_dir: str) -> Optional[ProgramIndividual]:
    """The run's ProgramIndividual (its program, weights file...) where it evolves a program's weights, else None."""
    return load_checkpoint(run_dir).config.individual


def best_params(
    run_dir: str, config: Config, generation: int, best: genome.Individual, **settings: Optional[float]
) -> Params:
    """Validated Params of an evolved individual, with where it came from, and the search ``settings``
    given (by name; engine.search_settings.SEARCH_TABLE). A run that evolved parts of a start file plays the
    rest as that file has it, its search settings too unless given, and its provenance says what the start
    file's did (``started_from``: the fit the evolution finished, say)."""
    evolved = run_genome(config.genes, config.start.base)
    where = provenance(run_dir, config, generation, best.fitness.values)
    source = f"{run_dir} generation {generation}"
    if evolved.base is None:  # by feature, so that a feature added since the run began is recorded at 0
        weights, endgame = genome.by_feature(best, config.genes)
        return make_params(weights, where, source, endgame, **settings)
    where["started_from"] = dict(evolved.base.provenance, parts=list(config.start.parts))
    given = {name: value for name, value in settings.items() if value is not None}
    return evolved.params(best, source, dict(evolved.base.search(), **given), where)


def _how_played(config: Config) -> Dict[str, Any]:
    """How the run's individuals played their fitness: as shipped (its search settings, in nodes) or to a depth."""
    if config.fitness.search is not None:
        return {
            "evolved_as_shipped": {name: value for name, value in config.fitness.search.items() if value is not None}
        }
    return {"evolved_at_depth": config.depth}


def provenance(run_dir: str, config: Config, generation: int, fitness: Sequence[float]) -> Dict[str, Any]:
    """Where a set of evolved weights came from."""
    return {
        "source": "evolved",
        "run": os.path.basename(os.path.normpath(run_dir)),
        "experiment": config.name,
        "generation": generation,
        "fitness": {"win_rate": fitness[0], "mean_stone_margin": fitness[1]},
        **({} if config.individual is not None else _how_played(config)),  # a program plays as its code says
        "strategy": config.strategy.value,
        "panel": [entry.opponent for entry in config.panel],
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
    }
