"""``littlego train``: train a learning player (the tabular Q-learner)."""

import argparse

from engine.cli.parts.argument_types import integer_range, positive_int
from engine.cli.parts.arguments import add_progress, progress_bar
from engine.cli.parts.commands import Subcommands, command, group
from engine.constants import MAX_MOVES
from engine.training.trainer import PLOT, TABLE, Training

_SETTINGS = (
    "games",
    "seed",
    "alpha",
    "gamma",
    "eval_every",
    "eval_games",
    "epsilon_start",
    "epsilon_end",
    "epsilon_games",
    "horizon",
    "min_updates",
)


def register(commands: Subcommands) -> None:
    learners = group(commands, "train", "train a learning player (qlearning)", "LEARNER")
    qlearning = command(learners, "qlearning", _train)
    option = qlearning.add_argument
    option("--out", default="qlearning", help="training folder (default: %(default)s)")
    option("--resume", metavar="OUT", help="continue the training in this folder")
    option("--games", type=positive_int, help="training games (default 20000)")
    option(
        "--opponent",
        action="append",
        metavar="SPEC",
        help="an opponent, taken in turn (repeatable; default: random, greedy, aggressive, self)",
    )
    option("--seed", type=int, help="seed (default 1)")
    add_progress(qlearning)
    option("--alpha", type=float, help="learning rate (default 0.2)")
    option("--gamma", type=float, help="discount (default 0.95)")
    option("--epsilon-start", type=float, help="exploration rate at the start (default 0.3)")
    option("--epsilon-end", type=float, help="exploration rate at the end (default 0.02)")
    option(
        "--epsilon-games",
        type=positive_int,
        help="games over which exploration falls linearly from start to end (default: 3/4 of the games)",
    )
    option(
        "--horizon",
        type=integer_range(1, MAX_MOVES),
        help="plies the table covers; later moves are the fallback's (default 10)",
    )
    option("--min-updates", type=positive_int, help="updates a state needs to be kept in the saved table (default 2)")
    option("--eval-every", type=positive_int, help="games between evaluations (default 2000)")
    option("--eval-games", type=positive_int, help="games against each panel player (default 40)")
    option(
        "--panel", action="append", metavar="SPEC", help="an evaluation opponent (repeatable; default: random, greedy)"
    )


def _train(args: argparse.Namespace) -> int:
    """tabular Q-learning against chosen opponents, with a learning curve

    Train the tabular Q-learner (states under the 8 board symmetries) against the opponents
    in turn ('self' is self-play), evaluating it every --eval-every games against the
    --panel. OUT gets settings.json, checkpoint.json, table.json.gz (for the qlearning:TABLE
    player), curve.tsv and curve.png; --resume OUT continues a stopped or killed training
    exactly.
    """
    if args.resume:
        training = Training.resume(args.resume)
    else:
        settings = dict((name, getattr(args, name)) for name in _SETTINGS if getattr(args, name) is not None)
        if args.opponent:
            settings["opponents"] = args.opponent
        if args.panel:
            settings["panel"] = args.panel
        training = Training.create(args.out, settings)
    print(
        "training folder: {} ({} of {} games done)".format(training.folder, training.done, training.settings["games"])
    )
    training.run(progress=progress_bar(args))
    print(f"finished: {training.folder} (table {TABLE}, curve {PLOT})")
    return 0
