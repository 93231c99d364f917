"""``evolve label`` and ``evolve fit``: exact labels from the compiled solver, and weights fitted to them."""

import argparse
from typing import Any, Dict, List, Mapping, Tuple

from engine.cli.parts.argument_types import file_to_write, integer_range, ply_range, positive_int, weight, weight_bound
from engine.cli.parts.arguments import add_search_settings, add_solving, chosen_search_settings, solving
from engine.cli.parts.commands import Subcommands, command
from engine.data import SHIPPED_PARAMS
from engine.errors import InvalidInput
from engine.features import FEATURES
from engine.params import Params, genome_of, load_params, save_params
from engine.patterns import PATTERNS
from engine.position import Position
from evolve.genome import feature_of, genes
from evolve.solved.fit import CMAES_DEFAULTS, fit_labels, fitted_params
from evolve.solved.labels import build_labels, load_many
from evolve.solved.pattern_fit import fit_patterns

Labelled = Tuple[List[Position], List[int], Dict[str, Dict[str, Any]]]  # load_many's
METHODS = ("patterns", "cmaes")  # evolve fit's: the tuner benchmark's best first (experiments/tuners-20261128)


def register(commands: Subcommands) -> None:
    label = command(commands, "label", _label)
    label.add_argument("--positions", type=positive_int, required=True, help="how many positions")
    label.add_argument("--plies", type=ply_range, default=(6, 14), help="plies to sample, LOW-HIGH (default 6-14)")
    label.add_argument("--seed", type=int, default=1, help="the games' seed (default 1)")
    add_solving(label, "processes for sampling and solving", progress=False)
    label.add_argument("--out", required=True, help="labels file to write (gzipped JSON, e.g. labels.json.gz)")
    fit = command(commands, "fit", _fit)
    fit.add_argument("labels", nargs="+", help="labels files from 'evolve label' (a position in several counts once)")
    fit.add_argument("--out", required=True, help="params file to write")
    fit.add_argument(
        "--start",
        default=SHIPPED_PARAMS,
        help="params to start from and compare with (default: the shipped params.json)",
    )
    method = fit.add_mutually_exclusive_group()
    method.add_argument(
        "--method",
        choices=METHODS,
        help="patterns: every feature's weight and the 189 pattern weights of 2x2 windows (engine.patterns) by "
        "their gradient (L-BFGS-B, deterministic), the tuner benchmark's best; cmaes: the features' weights "
        "alone by DEAP's CMA-ES (--generations, --population, --seed, --only). Default: patterns, or cmaes "
        "with --only",
    )
    method.add_argument(
        "--patterns",
        dest="method",
        action="store_const",
        const="patterns",
        help="the same as --method patterns",
    )
    _add_cmaes_options(fit)
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


def _add_cmaes_options(fit: argparse.ArgumentParser) -> None:
    """``evolve fit``'s options of --method cmaes alone (``_method`` refuses them beside the pattern fit)."""
    fit.add_argument(
        "--generations", type=positive_int, help=f"CMA-ES generations (default {CMAES_DEFAULTS['generations']})"
    )
    fit.add_argument(
        "--population",
        type=integer_range(4, 10000),
        help=f"CMA-ES offspring a generation (default {CMAES_DEFAULTS['population']})",
    )
    fit.add_argument("--seed", type=int, help=f"CMA-ES seed (default {CMAES_DEFAULTS['seed']})")


def _label(args: argparse.Namespace) -> int:
    """sample positions from quick games and label each with the exact solver

    Play quick games from random 2-ply openings (the shipped weights at depths 1-3, greedy
    and aggressive, a quarter of the moves random), keep distinct positions (under the
    board's symmetries) at the plies given, and have the compiled solver say whether the
    side to move wins in each. The file is what 'evolve fit' tunes on. About half a CPU
    second a position at plies 6-14; needs a C compiler.
    """
    file_to_write(args.out, "--out", "labels.json.gz")
    build_labels(
        args.out,
        args.positions,
        tuple(args.plies),
        seed=args.seed,
        **solving(args)._asdict(),
    )
    return 0


def _fit(args: argparse.Namespace) -> int:
    """fit evaluation weights to labelled positions (no games, no noise)

    Minimise the log loss of the evaluation's guess (logistic in the evaluation) that the
    side to move wins, over the positions of a labels file ('evolve label'); a fifth of the
    positions are held out and reported. By default every feature's weight and the 189 pattern
    weights, by their gradient (L-BFGS-B: seconds, deterministic), which the tuner benchmark
    found best where the evaluation decides alone; --method cmaes fits the features' weights
    alone with DEAP's CMA-ES (and --only, one feature's). Writes a params file whose search
    settings are those of --start unless given.
    """
    args.method = _method(args)
    file_to_write(args.out, "--out", "params.json")
    start = load_params(args.start)
    positions, labels, info = load_many(args.labels)
    weights = genome_of(start)
    if args.tapered and start.endgame is None:
        weights += weights  # flat weights: the same at both ends of the game
    names = genes(len(weights) > len(FEATURES))
    if args.captures is not None:
        weights = [args.captures if feature_of(name) == "captures" else w for name, w in zip(names, weights)]
    settings = start._replace(**chosen_search_settings(args, start))
    if args.method == "patterns":
        return _fit_patterns(args, (positions, labels, info), start, weights, settings)
    cmaes = {
        name: CMAES_DEFAULTS[name] if getattr(args, name) is None else getattr(args, name) for name in CMAES_DEFAULTS
    }
    fitted, figures = fit_labels(
        positions,
        labels,
        weights,
        limit=args.bound,
        generations=cmaes["generations"],
        population=cmaes["population"],
        seed=cmaes["seed"],
        only=args.only,
    )
    params = fitted_params(fitted, figures, args.labels, info, settings)
    save_params(args.out, params)
    _print_fit(figures, args.bound)
    print(
        "wrote {}{}: {}".format(
            args.out, " (tapered)" if params.endgame else "", ", ".join(f"{k} {v:.3g}" for k, v in fitted.items())
        )
    )
    return 0


def _method(args: argparse.Namespace) -> str:
    """The fit --method (or its default) names; InvalidInput where an option is another method's."""
    method: str = args.method or ("cmaes" if args.only else "patterns")
    if method == "patterns":
        if args.only:
            raise InvalidInput("--only fits one feature's weight, by CMA-ES: add --method cmaes")
        given = [f"--{name}" for name in CMAES_DEFAULTS if getattr(args, name) is not None]
        if given:
            raise InvalidInput(f"{', '.join(given)}: CMA-ES's; the pattern fit has none (add --method cmaes)")
    return method


def _fit_patterns(
    args: argparse.Namespace, loaded: Labelled, start: Params, weights: List[float], settings: Params
) -> int:
    """``evolve fit`` (--method patterns): every weight and the pattern weights, by L-BFGS-B, on ``loaded``
    (positions, labels, infos: ``load_many``'s)."""
    positions, labels, info = loaded
    start_patterns = None if start.patterns is None else [start.patterns[name] for name in PATTERNS]
    fitted, patterns, figures = fit_patterns(positions, labels, weights, start_patterns, limit=args.bound)
    params = fitted_params(fitted, figures, args.labels, info, settings, strategy="l-bfgs-b").with_patterns(
        patterns, "fitted weights"
    )
    save_params(args.out, params)
    _print_fit(figures, args.bound)
    largest = sorted(zip(patterns, PATTERNS), key=lambda pair: -abs(pair[0]))[:5]
    print(
        "wrote {}{}: {}; pattern weights from {:.3g} to {:.3g}, the largest {}".format(
            args.out,
            " (tapered)" if params.endgame else "",
            ", ".join(f"{k} {v:.3g}" for k, v in fitted.items()),
            min(patterns),
            max(patterns),
            ", ".join(f"{name} {w:.3g}" for w, name in largest),
        )
    )
    return 0


def _print_fit(figures: Mapping[str, Any], bound: float) -> None:
    """The fit's figures: the start's and the new weights' on the fitted and held-out positions, the
    held-out ranking accuracy by ply, and the weights left on the bound."""
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
                bound, ", ".join(figures["on_bound"])
            )
        )
