"""``littlego serve``: the runs dashboard and the analysis board, in a browser."""

import argparse
import os

from engine.cli.parts.argument_types import integer_range, positive_seconds
from engine.cli.parts.arguments import add_sandbox, add_store, sandbox_limits, store_path
from engine.cli.parts.commands import Subcommands, command
from engine.common.hosts import is_loopback
from engine.errors import InvalidInput
from engine.ui.web.server import serve


def register(commands: Subcommands) -> None:
    parser = command(commands, "serve", _serve)
    parser.add_argument("--runs", default="runs", help="the folder of run folders to show (default: %(default)s)")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default: %(default)s, this machine only; from elsewhere, "
        "use an SSH tunnel rather than another address)",
    )
    parser.add_argument(
        "--port", type=integer_range(0, 65535), default=8561, help="the port (default %(default)s; 0: any free one)"
    )
    parser.add_argument(
        "--solve-seconds",
        type=positive_seconds,
        default=2.0,
        help="the time each solver may take on a position of the board (default %(default)s)",
    )
    parser.add_argument(
        "--allow-programs",
        action="store_true",
        help="let the board play opponents that run a command (cmd:, program:, gtp:); whoever has the printed "
        "address may then run commands as you (gtp: with no sandbox): loopback only",
    )
    add_sandbox(parser)
    add_store(parser)


def _serve(args: argparse.Namespace) -> int:
    """serve the runs dashboard and the analysis board to a browser

    Serve a local web app: the evolution runs under --runs (each run's fitness, win rates,
    diversity, weights, config, log and match reports, updated while the run writes them),
    and a board to play any player spec on, showing every legal move's exact value from the
    solvers, the opening book's move and the shipped agent's move. Open the address it
    prints: it holds a secret token, without which the server plays nothing, so that other
    users of this machine cannot make it play. Opponents that run a command (cmd:, program:,
    gtp:) are played only with --allow-programs. Ctrl-C stops it.
    """
    if os.path.exists(args.runs) and not os.path.isdir(args.runs):
        raise NotADirectoryError(20, "--runs names a file, not a folder of runs", args.runs)
    if not is_loopback(args.host):
        if args.allow_programs:
            raise InvalidInput(
                f"--allow-programs runs commands for whoever has the address: it needs a loopback --host, not "
                f"{args.host} (use an SSH tunnel to 127.0.0.1)"
            )
        print(
            f"warning: listening on {args.host} lets other machines reach this server (players that run commands are "
            "refused); an SSH tunnel to 127.0.0.1 is safer"
        )

    limits = sandbox_limits(args)  # how a cmd: opponent on the board runs (the warning where it is not isolated)

    def announce(url: str) -> None:
        print(
            "serving the runs in {}{} and the board at {} (Ctrl-C stops)".format(
                args.runs, "" if os.path.isdir(args.runs) else " (none yet)", url
            ),
            flush=True,
        )

    serve(args.runs, args.host, args.port, args.solve_seconds, announce, limits, store_path(args), args.allow_programs)
    return 0
