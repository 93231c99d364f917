"""The ``evolve`` command: run, resume, log, plot, export, bench; label and fit."""

import argparse
import json
import os
import sys

from engine.cli.arguments import (
    SCHEDULER_HELP,
    SEARCH_SETTINGS,
    add_close_stones,
    add_json,
    add_sandbox,
    add_search_settings,
    add_table_bits,
    command,
    depth,
    elo_pair,
    file_to_write,
    folder_to_write,
    integer_range,
    ply_range,
    positive_int,
    positive_seconds,
    program_limits,
    reporter,
    run_command,
    scheduler,
    search_settings,
    subcommands,
    weight,
    weight_bound,
)
from engine.cli.match import match_lines
from engine.constants import COURSE_CPU_LIMIT, MAX_MOVES
from engine.data import SHIPPED_PARAMS
from engine.errors import InvalidInput, UserError
from engine.features import FEATURES
from engine.params import genome_of, load_params, save_params
from engine.play.executors import SCHEDULER_FORMS, ExecutorError
from engine.play.match import format_report
from engine.players.searcher import ENGINES
from engine.players.specs import make_player
from evolve.bench import bench_games
from evolve.checkpoint import CHECKPOINT
from evolve.config import load_config
from evolve.fit import fit_labels, fitted_params
from evolve.fitness import FitnessGameError, engine_for
from evolve.genome import feature_of, genes
from evolve.labels import build_labels, load_many
from evolve.loop import Evolution
from evolve.runs import export_best, format_table, plot_run, program_of, read_generations
from evolve.ship import DEFAULT_GAMES, DEFAULT_OPENING, DEFAULT_SPRT, describe, prepare, ship, ship_folder


def _run(args):
    """start a run from an experiment config (experiments/*.toml)

    Create runs/<name>-<time>/ and evolve; a checkpoint is written after every generation,
    so 'evolve resume' can continue a stopped run.
    """
    engine_for(load_config(args.config)["fitness"]["engine"])  # a config it cannot honour makes no run folder
    evolution = Evolution.create(
        args.config,
        runs_dir=args.runs_dir,
        workers=args.workers,
        progress=not args.no_progress and sys.stderr.isatty(),
        scheduler=args.scheduler,
    )
    args.run = [evolution.run_dir]  # what a failure's message can point to
    print(f"run folder: {evolution.run_dir}")
    evolution.run()
    program = evolution.config.get("individual")
    print(
        "finished: {run}\nnext: evolve log {run} | evolve plot {run} | {last}".format(
            run=evolution.run_dir,
            last="evolve export {} --to {}".format(
                evolution.run_dir, os.path.join(program["program"], program["weights_file"])
            )
            if program
            else "evolve ship " + evolution.run_dir,
        )
    )
    return 0


def _one_run(runs):
    """The one run folder a command that changes or exports a run was given; ValueError naming
    them when there are several (a pattern such as runs/smoke-* that matched more than one)."""
    if len(runs) > 1:
        raise InvalidInput(
            "give one run folder, not {}: {} (the newest by name is {})".format(len(runs), ", ".join(runs), max(runs))
        )
    return runs[0]


def _resume(args):
    """continue a stopped or killed run from its last checkpoint"""
    run = _one_run(args.run)
    evolution = Evolution.resume(
        run, workers=args.workers, progress=not args.no_progress and sys.stderr.isatty(), scheduler=args.scheduler
    )
    if evolution.generation >= evolution.config["generations"]:
        print(f"{run}: already finished ({evolution.generation} generations)")
        return 0
    print(f"resuming {run} after generation {evolution.generation}")
    evolution.run()
    print(f"finished: {run}")
    return 0


def _log(args):
    """print the generation table of one or more runs"""
    tables = [(run, read_generations(run)) for run in args.run]  # every folder checked before printing
    if args.json:
        print(json.dumps(tables[0][1] if len(tables) == 1 else dict(tables), indent=2))
        return 0
    for number, (run, records) in enumerate(tables):
        if len(tables) > 1:
            print("{}{}".format("\n" if number else "", run))
        print(format_table(records))
    return 0


def _plot(args):
    """write fitness.png and weights.png for each run given

    The images go into each run's folder, or with --out into that folder (one run only).
    """
    if args.out:
        _one_run(args.run)
        folder_to_write(args.out, "--out")
    for run in args.run:
        read_generations(run)  # every folder checked before any image is written
    for run in args.run:
        for path in plot_run(run, args.out):
            print(f"wrote {path}")
    return 0


def _export(args):
    """write a run's best weights as params.json, with provenance

    The search settings are those of the file --to replaces, else the shipped params.json's,
    unless given ('evolve ship' exports, then tests before replacing). A run that evolved a
    program's weights ([individual]) writes its weights file, the provenance beside it
    (weights.json -> weights.provenance.json); the search settings are refused there.
    """
    run = _one_run(args.run)
    file_to_write(args.to, "--to", "params.json")
    if program_of(run):
        written = export_best(run, args.to, **{name: getattr(args, name) for name in SEARCH_SETTINGS})
        what = "{}'s weights; provenance in {}".format(written.provenance["program"], written.sidecar)
    else:
        settings = load_params(args.to if os.path.isfile(args.to) else SHIPPED_PARAMS, warn=lambda message: None)
        written = export_best(run, args.to, **search_settings(args, settings))
        what = "playing depth {}{}".format(written.depth, ", tapered" if written.endgame else "")
    fitness = written.provenance["fitness"]
    print(
        "wrote {} ({}): generation {} of {}, win rate {:.3f}, margin {:+.2f}".format(
            args.to,
            what,
            written.provenance["generation"],
            written.provenance["run"],
            fitness["win_rate"],
            fitness["mean_stone_margin"],
        )
    )
    return 0


def _ship(args):
    """export a run's best weights and replace params.json only if they win a test at the playing budget

    Export the best individual of RUN with the search settings of --to (the candidate), bundle
    it and --to as two course agents (the same code and book, each move a process under the
    course's CPU limit) and play them from random openings, both colours from each, until a
    sequential probability ratio test (alpha = beta = 0.05) accepts H0 (the candidate is ELO0
    Elo stronger) or H1 (ELO1), or --games pass. Only H1 writes --to, with the test in its
    provenance. Everything lives in RUN/ship/; the same command continues a stopped test.
    Given a params file instead of a run (evolve fit --out's), its weights are the candidate and
    the test lives in ship/ beside it. Exit status: 0 shipped, 1 not shipped (H0, or undecided), 130 interrupted.
    """
    run = _one_run(args.run)
    file_to_write(args.to, "--to", "params.json")
    plan = prepare(
        run,
        args.to,
        games=args.games,
        sprt=args.sprt,
        seed=args.seed,
        random_opening=args.random_opening,
        cpu_limit=args.cpu_limit,
        book=not args.no_book,
        close_stones=args.close_stones,
    )
    print(describe(run, args.to, plan), flush=True)
    progress = True if sys.stderr.isatty() and not args.no_progress else match_lines("candidate", plan.games)
    limits = program_limits(args, ["cmd:" + os.path.join(ship_folder(run), "candidate")])
    result = ship(run, args.to, plan, jobs=args.jobs, progress=progress, limits=limits)
    print(format_report(result.summary))
    print(("shipped: " if result.shipped else "not shipped: ") + result.reason)
    return 0 if result.shipped else 130 if result.summary.interrupted else 1


def _bench(args):
    """fitness games per second with 1 and 2 workers, for each search engine and depth

    Play a fixed batch of fitness games (varied weights against --opponent) on the local pool
    with each worker count, for each --engine and --depth, and report games per second; with
    both engines, how many times the native engine's games/s the Python one's are. For
    example: evolve bench --engine native python --depth 4 6 --workers 1
    """
    make_player(args.opponent).close()  # a bad spec fails before any pool starts
    result = bench_games(
        worker_counts=tuple(args.workers),
        games=args.games,
        depths=tuple(args.depth),
        engines=tuple(dict.fromkeys(args.engine)),
        opponent=args.opponent,
        scheduler=args.scheduler,
        report=reporter(args),
    )
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


def _label(args):
    """sample positions from quick games and label each with the exact solver

    Play quick games from random 2-ply openings (the shipped weights at depths 1-3, greedy
    and aggressive, a quarter of the moves random), keep distinct positions (under the
    board's symmetries) at the plies given, and have the compiled solver say whether the
    side to move wins in each. The file is what 'evolve fit' tunes on. About half a CPU
    second a position at plies 6-14; needs a C compiler.
    """
    file_to_write(args.out, "--out", "labels.json.gz")
    build_labels(
        args.out, args.positions, tuple(args.plies), seed=args.seed, jobs=args.jobs, table_bits=args.table_bits
    )
    return 0


def _fit(args):
    """fit evaluation weights to labelled positions with CMA-ES (no games, no noise)

    Minimise the log loss of the evaluation's guess (logistic in the evaluation) that the
    side to move wins, over the positions of a labels file ('evolve label'), with DEAP's
    CMA-ES; a fifth of the positions are held out and reported. Writes a params file whose
    search settings are those of --start unless given.
    """
    file_to_write(args.out, "--out", "params.json")
    start = load_params(args.start)
    positions, labels, info = load_many(args.labels)
    weights = genome_of(start)
    if args.tapered and start.endgame is None:
        weights += weights  # flat weights: the same at both ends of the game
    names = genes(len(weights) > len(FEATURES))
    if args.captures is not None:
        weights = [args.captures if feature_of(name) == "captures" else w for name, w in zip(names, weights)]
    fitted, figures = fit_labels(
        positions,
        labels,
        weights,
        limit=args.bound,
        generations=args.generations,
        population=args.population,
        seed=args.seed,
        only=args.only,
    )
    settings = start._replace(**search_settings(args, start))
    params = fitted_params(fitted, figures, args.labels, info, settings)
    save_params(args.out, params)
    for name in ("fitted", "held_out"):
        for who in ("start", "new"):
            figure = figures[name][who]
            print(
                "{:<9} {:<5} weights: {} positions, ranking accuracy {:.3f}, sign right {:.3f}, log loss {:.4f} "
                "(at scale {:g})".format(
                    name.replace("_", " "),
                    who,
                    figure["positions"],
                    figure["ranking_accuracy"],
                    figure["accuracy"],
                    figure["log_loss"],
                    figure["scale"],
                )
            )
    print(
        "ranking accuracy by ply, held out (start -> new): "
        + ", ".join(
            "{} {:.2f}->{:.2f}".format(ply, figures["held_out"]["start"]["ranking_accuracy_by_ply"][ply], value)
            for ply, value in figures["held_out"]["new"]["ranking_accuracy_by_ply"].items()
            if value is not None
        )
    )
    if figures["on_bound"]:
        print(
            "on the bound (+-{:g}): {}; a wider --bound lets them go further".format(
                args.bound, ", ".join(figures["on_bound"])
            )
        )
    print(
        "wrote {}{}: {}".format(
            args.out, " (tapered)" if params.endgame else "", ", ".join(f"{k} {v:.3g}" for k, v in fitted.items())
        )
    )
    return 0


def build_parser():
    """The argument parser of ``evolve``."""
    parser = argparse.ArgumentParser(
        prog="evolve",
        description="Evolve Little-Go evaluation weights with DEAP: run an experiment "
        "config, watch it, resume it, inspect it, export the best weights.",
    )
    commands = subcommands(parser, "command", "COMMAND")
    for register in (_register_runs, _register_reading, _register_bench, _register_label, _register_fit):
        register(commands)
    return parser


def _register_runs(commands):
    run = command(commands, "run", _run)
    run.add_argument("config", help="experiment config (TOML)")
    run.add_argument("--runs-dir", default="runs", help="where run folders go (default: runs)")
    resume = command(commands, "resume", _resume)
    resume.add_argument("run", nargs="+", help="run folder (one)")
    for parser in (run, resume):
        parser.add_argument(
            "--workers",
            type=positive_int,
            default=None,
            help="worker processes (default: the config's, else all cores)",
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        parser.add_argument("--scheduler", type=scheduler, default=None, help=SCHEDULER_HELP)


def _register_reading(commands):
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
        "program's weights, the agent's weights file)",
    )
    add_search_settings(export, "--to's where it exists, else the shipped params.json's")
    ship_ = command(commands, "ship", _ship)
    ship_.add_argument("run", nargs="+", help="run folder (one), or a params file to ship (evolve fit's, say)")
    ship_.add_argument(
        "--to",
        default="params.json",
        help="the params file the candidate is tested against and replaces (default params.json)",
    )
    ship_.add_argument(
        "--games", type=positive_int, default=DEFAULT_GAMES, help="the most games the test plays (default %(default)s)"
    )
    ship_.add_argument(
        "--sprt",
        type=elo_pair,
        default=DEFAULT_SPRT,
        metavar="ELO0,ELO1",
        help="the test's hypotheses in Elo over --to (default 0,20)",
    )
    ship_.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the games' seed (default: from the run's seed, the same for every attempt)",
    )
    ship_.add_argument(
        "--random-opening",
        type=integer_range(0, MAX_MOVES - 2),
        default=DEFAULT_OPENING,
        metavar="K",
        help="each pair of games starts from the same K random plies (default %(default)s)",
    )
    ship_.add_argument(
        "--cpu-limit",
        type=positive_seconds,
        default=COURSE_CPU_LIMIT,
        metavar="SECONDS",
        help="CPU seconds a move (default %(default)s, as the course)",
    )
    ship_.add_argument(
        "--no-book",
        action="store_true",
        help="bundle both without the opening book (quicker, to try ship out; the agent ships with it)",
    )
    add_close_stones(ship_, "--to's: the candidate differs from it in its weights alone")
    ship_.add_argument("--jobs", type=positive_int, default=None, help="parallel games (default: all cores)")
    ship_.add_argument("--no-progress", action="store_true", help="progress as lines, not a bar")
    add_sandbox(ship_)


def _register_bench(commands):
    bench = command(commands, "bench", _bench)
    bench.add_argument("--workers", type=positive_int, nargs="+", default=[1, 2], help="worker counts (default: 1 2)")
    bench.add_argument("--games", type=positive_int, default=40, help="games per measurement (default 40)")
    bench.add_argument("--depth", type=depth, nargs="+", default=[2], help="search depths (default: 2)")
    bench.add_argument(
        "--engine",
        choices=ENGINES,
        nargs="+",
        default=["native"],
        help="search engines, the same moves at different speeds (default: native)",
    )
    bench.add_argument("--opponent", default="greedy", help="opponent spec (default greedy)")
    bench.add_argument(
        "--scheduler",
        type=scheduler,
        default=None,
        help="also measure a Dask cluster (" + SCHEDULER_FORMS + ") against the local pool",
    )
    add_json(bench)


def _register_label(commands):
    label = command(commands, "label", _label)
    label.add_argument("--positions", type=positive_int, required=True, help="how many positions")
    label.add_argument("--plies", type=ply_range, default=(6, 14), help="plies to sample, LOW-HIGH (default 6-14)")
    label.add_argument("--seed", type=int, default=1, help="the games' seed (default 1)")
    label.add_argument(
        "--jobs",
        type=positive_int,
        default=os.cpu_count() or 1,
        help="processes for sampling and solving (default: all cores)",
    )
    add_table_bits(label)
    label.add_argument("--out", required=True, help="labels file to write (gzipped JSON, e.g. labels.json.gz)")


def _register_fit(commands):
    fit = command(commands, "fit", _fit)
    fit.add_argument("labels", nargs="+", help="labels files from 'evolve label' (a position in several counts once)")
    fit.add_argument("--out", required=True, help="params file to write")
    fit.add_argument(
        "--start",
        default=SHIPPED_PARAMS,
        help="params to start from and compare with (default: the shipped params.json)",
    )
    fit.add_argument("--generations", type=positive_int, default=300, help="CMA-ES generations (default 300)")
    fit.add_argument(
        "--population", type=integer_range(4, 10000), default=24, help="CMA-ES offspring a generation (default 24)"
    )
    fit.add_argument("--seed", type=int, default=1, help="CMA-ES seed (default 1)")
    fit.add_argument(
        "--bound",
        type=weight_bound,
        default=100.0,
        help="every weight within +-BOUND (the margin's from 0; default 100)",
    )
    fit.add_argument(
        "--captures",
        type=weight,
        default=None,
        help="the captures weight, which positions alone cannot fit (default: --start's)",
    )
    fit.add_argument(
        "--only",
        action="append",
        metavar="FEATURE",
        help="fit this feature's weight alone (repeat for more), every other weight kept as --start's: "
        "a feature added to an evaluation that plays well, weighed in its units",
    )
    fit.add_argument(
        "--tapered",
        action="store_true",
        help="fit tapered weights, an opening's and an endgame's (interpolated by ply), even from flat "
        "--start weights (tapered --start weights are always fitted tapered)",
    )
    add_search_settings(fit, "--start's")


def main(argv=None):
    """Entry point of the ``evolve`` console script."""
    args = build_parser().parse_args(argv)
    evolving = args.command in ("run", "resume")
    try:
        return run_command(
            "evolve",
            args,
            (UserError,),
            passed_on=(FitnessGameError, ExecutorError),
            on_interrupt=lambda: "interrupted" + (": " + _where_it_stands(args) if evolving else ""),
            on_os_error=lambda: _where_it_stands(args) if evolving else "",
        )
    except (FitnessGameError, ExecutorError) as error:
        print(
            "evolve {}: {}\n{}".format(args.command, error, _where_it_stands(args) if evolving else ""), file=sys.stderr
        )
        return 3


def _where_it_stands(args):
    """What a stopped run or resume can do next: resume from its checkpoint, or start again if it has none."""
    runs = getattr(args, "run", None)
    if not runs or len(runs) != 1:
        return "no run folder was made"
    if os.path.exists(os.path.join(runs[0], CHECKPOINT)):
        return f"the last finished generation is checkpointed: fix the cause, then 'evolve resume {runs[0]}' continues"
    return "no generation finished, so there is no checkpoint to resume from: fix the cause and run again"


if __name__ == "__main__":
    sys.exit(main())
