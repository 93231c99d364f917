"""``evolve network``: the evaluation's hidden layer fitted to solved positions and its search's leaves."""

import argparse
import datetime
import time

from engine.cli.parts.argument_types import file_to_write, integer_range, positive_int
from engine.cli.parts.arguments import add_solving, solving
from engine.cli.parts.commands import Subcommands, command
from engine.data import SHIPPED_PARAMS
from engine.errors import InvalidInput
from engine.network import MAX_UNITS
from engine.params import load_params, save_params
from engine.ruler.position_set import load_positions, won_positions
from evolve.cli.tuners import add_problem_files
from evolve.solved import network_fit
from evolve.solved.network_ensemble import fit_ensemble
from evolve.solved.network_fit import NetworkOptions, extra_positions


def register(commands: Subcommands) -> None:
    parser = command(commands, "network", _network)
    add_problem_files(
        parser,
        "the fit reads their training splits, and each round is scored on their held-out splits (the tuner "
        "benchmark's: see docs/evolving.md)",
    )
    parser.add_argument("--out", required=True, help="params file to write (the weights and the layer)")
    parser.add_argument(
        "--start",
        default=SHIPPED_PARAMS,
        help="params whose search settings the written file keeps (default: the shipped params.json)",
    )
    parser.add_argument(
        "--depth",
        type=positive_int,
        default=4,
        help="the depth of the searches that draw leaves and score the held-out positions, with no book and no "
        "solver (default %(default)s)",
    )
    _add_layer(parser)
    _add_data(parser)
    add_solving(parser, "processes scoring positions and drawing leaves", progress=False)


def _add_layer(parser: argparse.ArgumentParser) -> None:
    """The layer's size, its fit and its rounds of leaves."""
    parser.add_argument(
        "--hidden",
        type=integer_range(1, MAX_UNITS),
        default=network_fit.HIDDEN,
        help=f"the layer's units, 1 to {MAX_UNITS} (default %(default)s)",
    )
    parser.add_argument(
        "--leaves",
        type=integer_range(0, 10),
        default=1,
        help="rounds that add the search's leaves, valued by the solver, and fit again (default %(default)s)",
    )
    parser.add_argument(
        "--per", type=positive_int, default=network_fit.PER, help="leaves a training position a round (default 10)"
    )
    parser.add_argument(
        "--iterations",
        type=positive_int,
        default=network_fit.ITERATIONS,
        help="L-BFGS iterations a fit (default %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=1, help="the layer's starting weights (default 1)")
    parser.add_argument(
        "--ensemble",
        type=integer_range(1, MAX_UNITS),
        default=1,
        metavar="N",
        help="fit N layers, from seeds --seed to --seed+N-1, each with its own rounds, and write their mean: "
        "the features' mean weights and every member's units, each out weight divided by N (N x --hidden "
        f"units, at most {MAX_UNITS}; N times the CPU). Default 1: one fit",
    )


def _add_data(parser: argparse.ArgumentParser) -> None:
    """The positions fitted beside the benchmark's won training positions."""
    parser.add_argument(
        "--won-only",
        action="store_true",
        help="fit only the won positions of the training splits (as before 2026-11-29); by default the lost ones "
        "too, each with the positions its moves lead to, all won for the opponent (they gained 4 and 8 held-out "
        "positions in two seeds)",
    )
    parser.add_argument(
        "--fit-only",
        nargs="+",
        default=[],
        metavar="FILE",
        help="more positions files from 'evolve positions' whose training splits join the fit (and draw leaves) "
        "but whose held-out splits are neither fitted nor scored: more data, the same benchmark",
    )


def _network(args: argparse.Namespace) -> int:
    """fit the evaluation's hidden layer to solved positions and the leaves of its search

    Fit the features' weights and a layer of --hidden tanh units (engine.network: they read the
    board's points and the features) to the training splits of --positions (and of --fit-only): each
    position (the lost ones too, unless --won-only) and each position a move leads to, valued by the
    solver. Then, --leaves times: draw --per of the leaves the fitted evaluation's search (to
    --depth) reads from each won training position, have the compiled solver value them, and fit
    again on everything. After each fit it prints the share of the held-out won positions whose
    move, searched to --depth with no book and no solver, keeps the win. Writes a params file with
    the last fit's weights and layer and --start's search settings; with --ensemble N, N such fits
    from seeds --seed onwards and their mean (every member's units side by side), whose held-out
    share it prints last. 32 units and one round of leaves took 9.5 minutes on 2 cores
    (2026-11-29, the store of solved positions nearly empty); needs a C compiler.
    """
    file_to_write(args.out, "--out", "network.json")
    if args.ensemble * args.hidden > MAX_UNITS:
        raise InvalidInput(
            f"--ensemble {args.ensemble} x --hidden {args.hidden}: {args.ensemble * args.hidden} units; the engine's "
            f"layer holds at most {MAX_UNITS}"
        )
    start = load_params(args.start)
    sets = [load_positions(path) for path in args.positions]  # each file read once
    won = won_positions(sets)
    if not won.train or not won.held_out:
        raise InvalidInput(
            f"--positions: {len(won.train)} won training positions and {len(won.held_out)} held-out ones; "
            "the fit needs both (files from 'evolve positions' hold a held-out fifth)"
        )
    extra = extra_positions(won, sets, not args.won_only, [load_positions(path) for path in args.fit_only])
    if extra:
        print(f"beside {len(won.train)} won training positions: {len(extra)} more ({sum(p.won for p in extra)} won)")
    began = time.process_time()
    options = NetworkOptions(args.hidden, network_fit.LAYER_RIDGE, args.iterations, args.seed, args.leaves, args.per)
    fit = fit_ensemble(won, args.depth, start, options, args.ensemble, solving(args), extra=extra)
    provenance = {
        "source": "fitted",
        "method": "evolve network",
        "positions": list(args.positions),
        "fit_only": list(args.fit_only),
        "lost": not args.won_only,
        "options": dict(options._asdict(), ensemble=args.ensemble),
        "members": [
            {"seed": seed, "rounds": [figures._asdict() for figures in history]} for seed, history in fit.members
        ],
        "kept": fit.kept,
        "of": len(won.held_out),
        "cpu_seconds": fit.cpu_seconds,
        "date": datetime.date.today().isoformat(),
    }
    save_params(args.out, fit.params.with_settings(provenance=provenance))
    of, units = len(won.held_out), args.ensemble * args.hidden
    print(
        f"wrote {args.out}: {units} units; kept {fit.kept} of {of} held-out won positions at depth {args.depth} "
        f"({fit.kept / of:.1%}); {fit.cpu_seconds:.0f} CPU s ({time.process_time() - began:.0f} in this process)"
    )
    return 0
