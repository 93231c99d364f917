"""The tuner benchmark's report: the summary as a Markdown table (``benchmark_table``) and the curves of the
held-out share, or of the won openings kept, against CPU seconds (``plot_curves``); ``evolve tuners`` writes
both."""

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from evolve.solved import tuners
from evolve.solved.exploit import OpeningsExploitability
from evolve.solved.tuners import Candidate


def _cpu(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.0f} s"


def benchmark_table(summary: tuners.BenchmarkSummary) -> str:
    """The summary as a Markdown table, with the correlations under it."""
    lines = [
        f"Depth {summary.depth}, no book, no solver; {summary.budget:g} CPU s a leg; training "
        f"{summary.train} won positions, held out {summary.held_out_won}; the hand-set weights keep "
        f"{summary.start_held_out:.1%} of the held-out ones (perfect play: 100%).",
        "",
        "| tuner | fitness | seeds | held out at the end: median (min-max) | CPU to 80% | 90% | 95% | 99% |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    exploited = any(row.openings for row in summary.rows)
    if exploited:
        lines[-2] += " won openings kept at the end: median (min-max) | empty board won |"
        lines[-1] += " --- | --- |"
    for row in summary.rows:
        reach = row.cpu_to_reach
        line = (
            f"| {row.tuner} | {row.fitness} | {row.seeds} | {row.final_median:.1%} "
            f"({row.final_min:.1%}-{row.final_max:.1%}) | "
            + " | ".join(_cpu(reach[key]) for key in ("0.80", "0.90", "0.95", "0.99"))
            + " |"
        )
        if exploited:
            kept = row.openings
            line += (
                f" {kept.median} of {kept.of} ({kept.min}-{kept.max}) | {kept.empty_board} of {row.seeds} |"
                if kept
                else " - | - |"
            )
        lines.append(line)
    start = summary.start_openings
    if start:
        lines += [
            "",
            f"Against the exact adversary, the hand-set weights {'win' if start.empty_board else 'lose'} the "
            f"empty board as Black and keep {start.kept} of the {start.of} won 2-ply openings (every position "
            "after two moves whose mover wins; perfect play: all, and the empty board).",
        ]
    if summary.correlations:
        lines += [
            "",
            "Rank correlation (Spearman) of the final candidates' held-out share (the features' weights "
            "alone) with: "
            + ", ".join(f"{name} {value:+.2f}" for name, value in summary.correlations.items() if name != "held_out"),
        ]
    return "\n".join(lines)


def plot_curves(
    results: Sequence[tuners.LegResult],
    start_share: float,
    path: str,
    openings: Optional[Mapping[Candidate, OpeningsExploitability]] = None,
) -> None:
    """The held-out share against CPU seconds, a panel a fitness, a line a tuner (the median over seeds, the
    band their range); with ``openings`` (every mark's candidate's), the share of the won openings kept
    against the exact adversary instead, ``start_share`` being the hand-set weights' share of them."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    groups: Dict[Tuple[str, str], List[tuners.LegResult]] = {}
    fitnesses: List[str] = []
    for result in results:
        groups.setdefault((result.leg.fitness, result.leg.tuner), []).append(result)
        if result.leg.fitness not in fitnesses:
            fitnesses.append(result.leg.fitness)
    fitnesses = [f for f in tuners.FITNESSES if f in fitnesses]
    colours = dict(zip(tuners.TUNERS, pyplot.rcParams["axes.prop_cycle"].by_key()["color"]))
    figure, panels = pyplot.subplots(1, len(fitnesses), figsize=(4.5 * len(fitnesses), 4.5), sharey=True, squeeze=False)
    for panel, fitness in zip(panels[0], fitnesses):
        for tuner in tuners.TUNERS:
            legs = groups.get((fitness, tuner))
            if not legs:
                continue
            cpu = [mark.cpu for mark in legs[0].marks]
            columns = list(zip(*[[_measure(mark, openings) for mark in leg.marks] for leg in legs]))
            medians = [sorted(column)[len(column) // 2] for column in columns]
            panel.plot(cpu, medians, marker="o", markersize=3, color=colours[tuner], label=tuner)
            panel.fill_between(
                cpu, [min(c) for c in columns], [max(c) for c in columns], alpha=0.12, color=colours[tuner]
            )
        panel.axhline(start_share, color="grey", linestyle=":", label="hand-set weights")
        panel.axhline(1.0, color="black", linewidth=0.8, label="perfect play")
        panel.set_title(f"fitness: {fitness}")
        panel.set_xlabel("CPU seconds of the leg")
        panel.set_ylim((0.0 if openings else min(start_share, 0.6) - 0.02), 1.01)
        panel.legend(fontsize=7, loc="lower right")
    panels[0][0].set_ylabel("won 2-ply openings kept" if openings else "held-out won positions kept")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)


def _measure(mark: tuners.Mark, openings: Optional[Mapping[Candidate, OpeningsExploitability]]) -> float:
    """A curve's value at ``mark``: its held-out share, or with ``openings`` its share of the won openings kept."""
    if openings is None:
        assert mark.held_out_share is not None
        return mark.held_out_share
    report = openings[mark.weights]
    return report.kept / report.of
