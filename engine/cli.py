"""The ``littlego`` command: benchmarks, matches, the course judge and bundling."""

import argparse
import json
import sys


def _bench_rules(args):
    from engine.bench import bench_rules
    result = bench_rules(vectors=args.vectors, repeats=args.repeats,
                         playout_games=args.playout_games, seed=args.seed,
                         report=(lambda line: None) if args.json else print)
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


def build_parser():
    """The argument parser of ``littlego``."""
    from engine.bench import DEFAULT_VECTORS
    parser = argparse.ArgumentParser(
        prog="littlego",
        description="Little-Go (5x5 Go of the USC CSCI-561 course): engine tools.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    bench = commands.add_parser("bench", help="measure the engine's speed on one core")
    targets = bench.add_subparsers(dest="target", metavar="TARGET")
    targets.required = True
    rules = targets.add_parser(
        "rules", help="legal-move generation (positions/s) and random playouts (moves/s)",
        description="Measure Position.legal_moves() over every position of the rules vectors "
                    "and random playouts from the empty board; each figure is the median of "
                    "--repeats runs on one core.")
    rules.add_argument("--vectors", default=DEFAULT_VECTORS,
                       help="rules-vectors file (.jsonl.gz); default: %(default)s")
    rules.add_argument("--repeats", type=_positive, default=5, help="runs per figure (default 5)")
    rules.add_argument("--playout-games", type=_positive, default=2000,
                       help="random games per playout run (default 2000)")
    rules.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    rules.add_argument("--json", action="store_true", help="print the figures as JSON")
    rules.set_defaults(handler=_bench_rules)
    return parser


def _positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a positive integer, got {!r}".format(text))
    if value < 1:
        raise argparse.ArgumentTypeError("expected a positive integer, got {}".format(value))
    return value


def main(argv=None):
    """Entry point of the ``littlego`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
