"""``evolve run``, ``resume``, ``log``, ``plot``, ``export`` and ``constants``: start and continue a run,
read it, export its best weights; list the constants of an agent's code that a run can tune."""

import argparse
import json
import os
import shutil
import time
from typing import Mapping, Sequence

from engine.cli.parts.argument_types import file_to_write, folder_to_write, positive_int, scheduler
from engine.cli.parts.arguments import (
    SCHEDULER_HELP,
    add_cluster_options,
    add_json,
    add_progress,
    add_renamed,
    add_search_settings,
    chosen_search_settings,
    progress_bar,
)
from engine.cli.parts.commands import Subcommands, command
from engine.common.generation_record import read_generations
from engine.course.agent_constants import default_bounds, find_constants
from engine.course.build import recognise
from engine.course.constant_roles import cost_note, untunable
from engine.data import SHIPPED_PARAMS
from engine.errors import InvalidInput
from engine.params import load_params
from engine.search_settings import SEARCH_TABLE
from evolve.agents.code_individual import TUNED_DIFF
from evolve.agents.program_individual import AgentWeights, previous_of
from evolve.checkpoint import load_checkpoint
from evolve.experiment.schema import Config, ProgramIndividual
from evolve.loop import Evolution
from evolve.runs import export_best, export_tuned_agent, format_table, plot_run, program_of


def register(commands: Subcommands) -> None:
    run = command(commands, "run", _run)
    run.add_argument("config", help="experiment config (TOML)")
    run.add_argument("--runs-dir", default="runs", help="where run folders go (default: runs)")
    resume = command(commands, "resume", _resume)
    resume.add_argument("run", nargs="+", help="run folder (one)")
    resume.add_argument(
        "--generations",
        type=positive_int,
        default=None,
        metavar="N",
        help="go on to generation N instead of the config's (extends a finished run)",
    )
    for parser in (run, resume):
        parser.add_argument(
            "--jobs",
            type=positive_int,
            default=None,
            help="parallel games (default: the config's 'jobs', else all cores)",
        )
        add_renamed(parser, "--workers", "--jobs", type=positive_int, dest="jobs")
        add_progress(parser)
        parser.add_argument("--scheduler", type=scheduler, default=None, help=SCHEDULER_HELP)
        add_cluster_options(parser)
    log = command(commands, "log", _log)
    log.add_argument("run", nargs="+", help="run folders (one or more)")
    add_json(log, "the records")
    plot = command(commands, "plot", _plot)
    plot.add_argument("run", nargs="+", help="run folders (one or more)")
    plot.add_argument("--out", default=None, help="folder for the images (default: the run folder)")
    export = command(commands, "export", _export)
    export.add_argument("run", nargs="+", help="run folder (one)")
    export.add_argument(
        "--to",
        required=True,
        help="params file to write (e.g. params.json; for a run that evolved a "
        "program's weights, the agent's weights file; for one that tuned the constants of its code, a new "
        "folder for the tuned agent)",
    )
    add_search_settings(export, "--to's where it exists, else the shipped params.json's")
    constants = command(commands, "constants", _constants)
    constants.add_argument("folder", help="a course agent's folder (my_player3.py, my_player.cpp, my_player.java...)")
    add_json(constants, "the constants")


def _constants(args: argparse.Namespace) -> int:
    """list the numbers in an agent's code that a run can tune without editing it

    Python: numbers assigned at module, class and function level (qualified: evaluate.weight,
    Player.bonus), a method's self.NAME, arguments' defaults (search.depth) and the entries of dict
    and list literals, assigned, returned or passed (WEIGHTS.edge, TABLE[1][3]), the numbers
    of an evaluation's products (evaluate.factor1, from 10 * own in evaluate); C++: const,
    constexpr and static variables, globals and members, and #defines; Java: static final
    constants and field initialisers; in C++ and Java, an evaluation's locals too
    (evaluate.libertyWeight); in every source of the folder and its subfolders. Each
    with its value, its role (an evaluation weight, a search, time or rules setting, a counter
    or sentinel), where it lives and the range a run tunes it in unless [individual.bounds] says
    (a depth from 1 up, a time limit within the course's 10 s). Name the ones to tune in the
    experiment's [individual] table: constants = ["evaluate.*", "KOMI"] (names or shell
    patterns; a pattern chooses weights alone, a setting or counter is named one by one).
    """
    folder = args.folder
    if not os.path.isdir(folder):
        raise InvalidInput(f"{folder}: no such folder")
    if recognise(folder) is None:
        raise InvalidInput(f"{folder} holds no course agent (my_player3.py, my_player.cpp, my_player.java...)")
    found = find_constants(folder)
    if args.json:
        rows = [
            dict(
                c._asdict(),
                where=c.where,
                kind="integer" if c.integer else "real",
                role=c.role.value,
                default_bounds=None if untunable(c.name, c.value) else default_bounds(c),
                untunable=untunable(c.name, c.value),
                cost=cost_note(c.name, c.value),
            )
            for c in found
        ]
        print(json.dumps(rows, indent=1))
        return 0
    if not found:
        print(f"{folder}: no constant found (a number assigned to a name, a const, a #define, a static final...)")
        return 0
    width = max(len(c.name) for c in found)
    print(f"{'name':<{width}}  {'value':>10}  {'kind':<7}  {'role':<7}  {'default range':<22}  where")
    for constant in found:
        low, high = default_bounds(constant)
        value = format(constant.value, "g")
        kind = "integer" if constant.integer else "real"
        span = f"[{low:g}, {high:g}]" if untunable(constant.name, constant.value) is None else "none (below)"
        role = constant.role.value
        print(f"{constant.name:<{width}}  {value:>10}  {kind:<7}  {role:<7}  {span:<22}  {constant.where}")
    costs = [(c.name, cost) for c in found for cost in [cost_note(c.name, c.value)] if cost is not None]
    costs += [(c.name, f"no default range: {why}") for c in found for why in [untunable(c.name, c.value)] if why]
    if costs:
        print()
    for name, cost in costs:  # what a depth or a time limit costs, before anyone tunes it
        print(f"{name}: {cost}")
    print(
        f"\n{len(found)} constants. To tune some without editing the code, an experiment's [individual] table "
        f'names them: program = "{folder}", constants = ["NAME", "evaluate.*"] (names, or shell patterns); '
        "a pattern chooses evaluation weights alone (role weight): name a setting or a counter one by one to "
        "tune it. [individual.bounds] may give one a range other than the default."
    )
    return 0


def _run(args: argparse.Namespace) -> int:
    """start a run from an experiment config (experiments/*.toml)

    Create runs/<name>-<time>/ and evolve; a checkpoint is written after every generation,
    so 'evolve resume' can continue a stopped run.
    """
    evolution = Evolution.create(
        args.config,
        runs_dir=args.runs_dir,
        jobs=args.jobs,
        progress=progress_bar(args),
        scheduler=args.scheduler,
    )
    args.run = [evolution.run_dir]  # what a failure's message can point to
    print(f"run folder: {evolution.run_dir}")
    evolution.run()
    program = evolution.config.individual
    print(
        "finished: {run}\nnext: evolve log {run} | evolve plot {run} | {last}".format(
            run=evolution.run_dir,
            last=f"evolve export {evolution.run_dir} --to "
            + (
                program.program.rstrip("/") + "-tuned"
                if program is not None and program.constants
                else os.path.join(program.program, program.weights_file)
                if program is not None
                else ""
            )
            if program is not None
            else "evolve ship " + evolution.run_dir,
        )
    )
    return 0


def one_run(runs: Sequence[str]) -> str:
    """The one run folder a command that changes or exports a run was given; ValueError naming
    them when there are several (a pattern such as runs/smoke-* that matched more than one)."""
    if len(runs) > 1:
        raise InvalidInput(
            "give one run folder, not {}: {} (the newest by name is {})".format(len(runs), ", ".join(runs), max(runs))
        )
    return runs[0]


def _resume(args: argparse.Namespace) -> int:
    """continue a stopped or killed run from its last checkpoint, or extend a finished one

    The run goes on exactly as it would have without the stop. With --generations N a run
    (finished or not) goes on to generation N instead of its config's: its strategy's state
    (CMA-ES's, SPSA's gains) carries on as it stands.
    """
    run = one_run(args.run)
    evolution = Evolution.resume(run, jobs=args.jobs, progress=progress_bar(args), scheduler=args.scheduler)
    if args.generations is not None:
        if args.generations <= evolution.generation:
            raise InvalidInput(
                f"--generations {args.generations}: {run} has already run {evolution.generation} generations"
            )
        evolution.extend(args.generations)
        print(f"{run}: extended to {args.generations} generations")
    if evolution.generation >= evolution.config.generations:
        print(
            f"{run}: already finished ({evolution.generation} generations; --generations N extends it to generation N)"
        )
        return 0
    print(f"resuming {run} after generation {evolution.generation}")
    evolution.run()
    print(f"finished: {run}")
    return 0


def _log(args: argparse.Namespace) -> int:
    """print the generation table of one or more runs"""
    tables = [(run, read_generations(run)) for run in args.run]  # every folder checked before printing
    if args.json:
        lines = {run: [record.to_json() for record in records] for run, records in tables}
        print(json.dumps(lines[args.run[0]] if len(tables) == 1 else lines, indent=2))
        return 0
    for number, (run, records) in enumerate(tables):
        if len(tables) > 1:
            print("{}{}".format("\n" if number else "", run))
        print(format_table(records))
    return 0


def _plot(args: argparse.Namespace) -> int:
    """write fitness.png and weights.png for each run given

    The images go into each run's folder, or with --out into that folder (one run only).
    """
    if args.out:
        one_run(args.run)
        folder_to_write(args.out, "--out")
    for run in args.run:
        read_generations(run)  # every folder checked before any image is written
    for run in args.run:
        for path in plot_run(run, args.out):
            print(f"wrote {path}")
    return 0


def _export(args: argparse.Namespace) -> int:
    """write a run's best weights as params.json, with provenance

    The search settings are those of the file --to replaces, else the shipped params.json's,
    unless given ('evolve ship' exports, then tests before replacing). A run that evolved a
    program's weights ([individual]) writes its weights file, the provenance beside it
    (weights.json -> weights.provenance.json); the search settings are refused there. The file
    --to replaces is kept beside it (weights.json -> weights.before-TIME.json); a run resumed
    afterwards does not count what export wrote as a change of the agent's code.
    """
    run = one_run(args.run)
    individual = program_of(run)
    if individual is not None and individual.constants:
        return _export_tuned(run, individual, args)
    file_to_write(args.to, "--to", "params.json")
    kept = None
    if os.path.isfile(args.to):  # the file replaced stays, beside it: nothing an export overwrites is lost
        kept = previous_of(args.to, time.time())
        shutil.copy2(args.to, kept)
    if individual is not None:
        written = export_best(run, args.to, **{setting.name: getattr(args, setting.name) for setting in SEARCH_TABLE})
    else:
        settings = load_params(args.to if os.path.isfile(args.to) else SHIPPED_PARAMS, warn=lambda message: None)
        written = export_best(run, args.to, **chosen_search_settings(args, settings))
    if isinstance(written, AgentWeights):
        what = "{}'s weights; provenance in {}".format(written.provenance["program"], written.sidecar)
    else:
        what = "playing depth {}{}".format(written.depth, ", tapered" if written.endgame else "")
    fitness = written.provenance["fitness"]
    config = load_checkpoint(run).config
    print(
        "wrote {} ({}): generation {} of {}, {}".format(
            args.to, what, written.provenance["generation"], written.provenance["run"], fitness_words(config, fitness)
        )
    )
    if kept:
        print(f"the file it replaced is kept as {kept}")
    return 0


def fitness_words(config: Config, fitness: Mapping[str, float]) -> str:
    """A provenance's ``fitness`` in words: the win rate and margin of games, the share of won positions kept
    of a [regret] fitness alone, or both, for the fitness the run's ``config`` measured."""
    rate, margin = fitness["win_rate"], fitness["mean_stone_margin"]
    if config.regret is not None and not config.panel:
        return f"won positions kept {rate:.3f}"
    if config.regret is not None:
        return f"fitness {rate:.3f} (the win rate and the share of won positions kept), margin {margin:+.2f}"
    return f"win rate {rate:.3f}, margin {margin:+.2f}"


def _export_tuned(run: str, individual: ProgramIndividual, args: argparse.Namespace) -> int:
    """``evolve export`` of a run that tuned the constants of an agent's code: the tuned agent in a new folder."""
    search_given = [s.name for s in SEARCH_TABLE if getattr(args, s.name, None) is not None]
    if search_given:
        raise InvalidInput(
            f"--{search_given[0].replace('_', '-')} is our searcher's: this run tuned the constants of a program's code"
        )
    diff, where = export_tuned_agent(run, args.to)
    config = load_checkpoint(run).config
    changed = sum(1 for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++"))
    print(
        "wrote {}: {} with its constants tuned ({} changed, shown in {}): generation {} of {}, {}; the original "
        "is untouched".format(
            args.to,
            individual.program,
            f"{changed} line" + ("" if changed == 1 else "s"),
            os.path.join(args.to, TUNED_DIFF),
            where["generation"],
            where["run"],
            fitness_words(config, where["fitness"]),
        )
    )
    return 0
