"""The ``evolve`` command: run, resume, log, plot, export and ship runs; bench; label and fit; the solved
game's positions, regret and exploitability; the tuner benchmark.
Each group's parser and handlers live in its own module here: ``runs`` (run, resume, log, plot,
export, constants), ``ship``, ``bench``, ``fit`` (label, fit), ``network``, ``solved`` (positions,
regret, exploit), ``tuners``, ``agent_tuners`` and ``network_tuners``."""

import argparse
import os
import sys
from typing import List, Optional

from engine.cli.parts.commands import tool_parser
from engine.cli.parts.exits import STOPPED_STATUS, run_command
from engine.errors import UserError
from engine.play.executors import ExecutorError
from evolve.checkpoint import has_checkpoint
from evolve.cli import agent_tuners, bench, fit, network, network_tuners, runs, ship, solved, tuners
from evolve.fitness import FitnessGameError

EVOLVE_GROUPS = (runs, ship, bench, fit, network, solved, tuners, agent_tuners, network_tuners)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``evolve``."""
    return tool_parser(
        "evolve",
        "Evolve Little-Go evaluation weights with DEAP: run an experiment config, watch it, resume it, "
        "inspect it, export the best weights, ship them through a test at the playing budget; fit weights "
        "to the exact solver's labels.",
        [group.register for group in EVOLVE_GROUPS],
    )


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``evolve`` console script."""
    args = build_parser().parse_args(argv)
    evolving = args.command in ("run", "resume")
    try:
        return run_command(
            "evolve",
            args,
            (UserError,),
            passed_on=(FitnessGameError, ExecutorError),
            on_interrupt=lambda: "interrupted" + (": " + _where_it_stands(args, interrupted=True) if evolving else ""),
            on_os_error=lambda: _where_it_stands(args) if evolving else "",
        )
    except (FitnessGameError, ExecutorError) as error:
        print(
            "evolve {}: {}\n{}".format(args.command, error, _where_it_stands(args) if evolving else ""), file=sys.stderr
        )
        return STOPPED_STATUS


def _where_it_stands(args: argparse.Namespace, interrupted: bool = False) -> str:
    """What a stopped run or resume can do next: resume from its checkpoint, or start again if it has none
    (after a failure, once its cause is fixed; after Ctrl-C, at once)."""
    folders = getattr(args, "run", None)
    if not folders or len(folders) != 1:
        return "no run folder was made"
    run = folders[0]
    fix = "" if interrupted else "fix the cause, then "
    again = "run it again" if interrupted else "fix the cause and run again"
    if not os.path.isdir(run):
        return f"no generation finished, so its run folder was removed: {again}"
    if has_checkpoint(run):
        return f"the last finished generation is checkpointed: {fix}'evolve resume {run}' continues"
    return f"no generation finished, so there is no checkpoint to resume from: {again}"
