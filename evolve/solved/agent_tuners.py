"""The tuner benchmark's second problem: a student's agent, tuned as ``evolve run`` tunes it.

A leg is one ``evolve run`` of an agent's own experiment (``examples/plain-python/evolve.toml``, say: its
``[individual]``, population and strategy settings) with its strategy, seed and fitness replaced: the
panel's games (``games``) or the exact regret on a positions file's training split (``regret``, the panel
dropped). It stops after the generation whose fitness jobs pass the leg's CPU budget, so every tuner and
fitness gets the same CPU. Its best individual is then exported as a tuned agent folder (``evolve
export``) and measured as a student would measure it: the share of the file's held-out won positions it
keeps and of its training ones (``littlego check``), and the course's grade (``littlego grade``).
"""

import contextlib
import copy
import io
import json
import os
import shutil
import sys
import time
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Sequence, TextIO, Tuple

import tomli_w

from engine.cli.littlego import main as littlego
from engine.errors import InvalidInput
from evolve.agents.program_individual import best_file
from evolve.loop import Evolution
from evolve.runs import export_tuned_agent
from evolve.tuner import RUN_STRATEGIES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

AGENT_FITNESSES = ("games", "regret")  # the panel's games, or the exact regret on the training split
CHECKED_SPLITS = ("train", "held-out")  # the positions file's splits a tuned agent is checked on


class AgentLeg(NamedTuple):
    """One run of the benchmark: ``tuner`` (a run strategy) on ``fitness`` from ``seed``, for ``budget``
    CPU seconds of fitness jobs."""

    tuner: str
    fitness: str
    seed: int
    budget: float

    @property
    def name(self) -> str:
        """The leg's name, as its config, run and agent folders are named."""
        return f"{self.tuner}-{self.fitness}-{self.seed}"


class Share(NamedTuple):
    """Won positions kept of those asked."""

    kept: int
    won: int

    @property
    def share(self) -> float:
        return self.kept / self.won if self.won else 0.0


class AgentMeasure(NamedTuple):
    """An agent folder as a student measures it: its shares of the positions file's training and
    held-out won positions, and its grade (out of 100) with the games and seed it was played with."""

    train: Share
    held_out: Share
    grade: float


class AgentLegResult(NamedTuple):
    """A leg's outcome: the generations it played, the CPU its fitness jobs spent, its wall time, the tuned
    constants of its best individual and that agent's measure."""

    leg: AgentLeg
    generations: int
    cpu_seconds: float
    seconds: float
    weights: Dict[str, float]
    measure: AgentMeasure

    def to_json(self) -> Dict[str, Any]:
        """The result as a JSON object (a line of ``legs.jsonl``)."""
        return {
            "leg": self.leg._asdict(),
            "generations": self.generations,
            "cpu_seconds": round(self.cpu_seconds, 3),
            "seconds": round(self.seconds, 3),
            "weights": self.weights,
            "measure": measure_json(self.measure),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "AgentLegResult":
        """The result ``to_json`` wrote."""
        return cls(
            leg=AgentLeg(**data["leg"]),
            generations=int(data["generations"]),
            cpu_seconds=float(data["cpu_seconds"]),
            seconds=float(data["seconds"]),
            weights={str(k): float(v) for k, v in data["weights"].items()},
            measure=measure_of_json(data["measure"]),
        )


def measure_json(measure: AgentMeasure) -> Dict[str, Any]:
    """An AgentMeasure as a JSON object."""
    return {"train": list(measure.train), "held_out": list(measure.held_out), "grade": measure.grade}


def measure_of_json(data: Mapping[str, Any]) -> AgentMeasure:
    """The AgentMeasure ``measure_json`` wrote."""
    return AgentMeasure(Share(*data["train"]), Share(*data["held_out"]), float(data["grade"]))


def agent_legs(tuners: Sequence[str], fitnesses: Sequence[str], seeds: Sequence[int], budget: float) -> List[AgentLeg]:
    """Every leg: each tuner on each fitness, seed by seed (so that a benchmark stopped part way has as many
    seeds of each)."""
    for tuner in tuners:
        if tuner not in RUN_STRATEGIES:
            raise InvalidInput(f"no run strategy {tuner!r}: one of {', '.join(RUN_STRATEGIES)}")
    for fitness in fitnesses:
        if fitness not in AGENT_FITNESSES:
            raise InvalidInput(f"no fitness {fitness!r} for an agent: one of {', '.join(AGENT_FITNESSES)}")
    return [AgentLeg(t, f, s, budget) for s in seeds for t in tuners for f in fitnesses]


def load_experiment(path: str) -> Dict[str, Any]:
    """The TOML of an agent's experiment, which must tune the constants of a program ([individual])."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise InvalidInput(f"{path}: cannot read: {error.strerror or error}")
    except tomllib.TOMLDecodeError as error:
        raise InvalidInput(f"{path}: not valid TOML: {error}")
    if "individual" not in data:
        raise InvalidInput(f"{path}: no [individual] table: the benchmark tunes an agent's own constants")
    if not data.get("panel"):
        raise InvalidInput(f"{path}: no [[panel]]: the games fitness plays the experiment's panel")
    return data


def leg_config(experiment: Mapping[str, Any], leg: AgentLeg, positions: str) -> Dict[str, Any]:
    """The experiment's config for ``leg``: its strategy and seed, no verdict games at the end (the leg is
    measured afterwards), and its fitness: the panel as it is, or the exact regret on ``positions`` in its
    place."""
    data = copy.deepcopy(dict(experiment))
    data.update(name=f"{data.get('name', 'agent')}-{leg.name}", seed=leg.seed, strategy=leg.tuner)
    data["individual"]["verdict_games"] = 0
    data.pop("regret", None)
    if leg.fitness == "regret":
        data.pop("panel")
        data["regret"] = {"positions": positions}
    return data


def write_toml(path: str, data: Mapping[str, Any]) -> None:
    """``data`` as a TOML file at ``path``, whole or not at all."""
    partial = path + ".partial"
    with open(partial, "wb") as handle:
        tomli_w.dump(dict(data), handle)
    os.replace(partial, path)


def cli_output(main: Callable[[List[str]], int], argv: List[str], log: TextIO) -> str:
    """What a command's ``main`` printed on ``argv`` (its messages to stderr go to ``log``); InvalidInput,
    naming the command, where it failed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(log):
        status = main(argv)
    log.write(printed.getvalue())
    if status != 0:
        raise InvalidInput(
            f"{' '.join(argv)}: exit status {status} (its messages are in {getattr(log, 'name', 'the log')})"
        )
    return printed.getvalue()


def measure_agent(
    agent: str, positions: str, grade_games: int, grade_seed: int, jobs: int, folder: str, log: TextIO
) -> AgentMeasure:
    """``agent`` (a folder) checked on both splits of ``positions`` and graded with ``grade_games`` games an
    opponent from ``grade_seed``, on ``jobs`` processes; the reports are kept in ``folder``."""
    os.makedirs(folder, exist_ok=True)
    shares: List[Share] = []
    for split in CHECKED_SPLITS:
        report = os.path.join(folder, f"check-{split}.json")
        common = ["--no-references", "--no-progress", "--jobs", str(jobs), "--json", report]
        cli_output(littlego, ["check", agent, "--positions", positions, "--split", split] + common, log)
        with open(report, encoding="utf-8") as handle:
            checked = json.load(handle)["checked"]
        shares.append(Share(int(checked["kept"]), int(checked["won"])))
    grade_argv = ["grade", agent, "--games", str(grade_games), "--seed", str(grade_seed), "--json"]
    graded = cli_output(littlego, grade_argv + ["--jobs", str(jobs), "--no-progress"], log)
    with open(os.path.join(folder, "grade.json"), "w", encoding="utf-8") as handle:
        handle.write(graded)
    return AgentMeasure(shares[0], shares[1], float(json.loads(graded)["points"]))


def run_agent_leg(
    experiment: Mapping[str, Any],
    leg: AgentLeg,
    positions: str,
    out: str,
    jobs: int,
    grade: Tuple[int, int],
) -> AgentLegResult:
    """Play ``leg`` of ``experiment`` in ``out`` (``configs/``, ``runs/``, ``agents/``, ``measures/`` and
    ``logs/`` under it,
    each named by the leg; what an earlier, stopped try of the leg left is replaced) on ``jobs`` workers,
    and measure its tuned agent, graded with ``grade`` = (games an opponent, seed)."""
    for sub in ("configs", "runs", "agents", "measures", "logs"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    config = os.path.join(out, "configs", leg.name + ".toml")
    runs = os.path.join(out, "runs", leg.name)
    agent = os.path.join(out, "agents", leg.name)
    for stale in (runs, agent):
        shutil.rmtree(stale, ignore_errors=True)
    write_toml(config, leg_config(experiment, leg, positions))
    started = time.time()
    with open(os.path.join(out, "logs", leg.name + ".log"), "w", encoding="utf-8") as log:
        evolution = Evolution.create(config, runs, jobs, progress=False, out=log)
        run = evolution.run(fitness_cpu=leg.budget)
        spent = sum(record.cpu_seconds or 0.0 for record in evolution.records)
        with open(os.path.join(run, best_file(evolution.config)), encoding="utf-8") as handle:
            best = {name: float(value) for name, value in json.load(handle).items()}  # as the code holds them
        seconds = time.time() - started
        export_tuned_agent(run, agent)
        measured = measure_agent(
            agent, positions, grade[0], grade[1], jobs, os.path.join(out, "measures", leg.name), log
        )
    return AgentLegResult(leg, evolution.generation + 1, spent, seconds, best, measured)


class Spread(NamedTuple):
    """The median, least and greatest of a row's legs' figures."""

    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> "Spread":
        ordered = sorted(values)
        middle = len(ordered) // 2
        median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
        return cls(median, ordered[0], ordered[-1])


class AgentRow(NamedTuple):
    """A tuner on a fitness, over its legs' seeds."""

    tuner: str
    fitness: str
    seeds: Tuple[int, ...]
    generations: Spread
    cpu_seconds: Spread
    train: Spread
    held_out: Spread
    grade: Spread


def agent_rows(results: Sequence[AgentLegResult]) -> List[AgentRow]:
    """One row a tuner and fitness, in the order of their first leg."""
    groups: Dict[Tuple[str, str], List[AgentLegResult]] = {}
    for result in results:
        groups.setdefault((result.leg.tuner, result.leg.fitness), []).append(result)
    return [
        AgentRow(
            tuner,
            fitness,
            tuple(sorted(r.leg.seed for r in legs)),
            Spread.of([r.generations for r in legs]),
            Spread.of([r.cpu_seconds for r in legs]),
            Spread.of([r.measure.train.share for r in legs]),
            Spread.of([r.measure.held_out.share for r in legs]),
            Spread.of([r.measure.grade for r in legs]),
        )
        for (tuner, fitness), legs in sorted(groups.items())
    ]


def _shares(spread: Spread) -> str:
    return f"{spread.median:.1%} ({spread.low:.1%}-{spread.high:.1%})"


def format_agent_table(start: AgentMeasure, rows: Sequence[AgentRow]) -> str:
    """The benchmark's table in Markdown: the agent as it is, then a row a tuner and fitness."""
    lines = [
        "| tuner (the run's) | fitness | seeds | generations | fitness CPU s | training kept | held out kept: "
        "median (min-max) | grade: median (min-max) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        f"| the agent as it is | - | - | - | - | {start.train.share:.1%} | {start.held_out.share:.1%} | "
        f"{start.grade:g} |",
    ]
    for row in rows:
        lines.append(
            f"| {row.tuner} | {row.fitness} | {len(row.seeds)} | {row.generations.median:g} | "
            f"{row.cpu_seconds.median:.0f} | {row.train.median:.1%} | {_shares(row.held_out)} | "
            f"{row.grade.median:g} ({row.grade.low:g}-{row.grade.high:g}) |"
        )
    return "\n".join(lines)
