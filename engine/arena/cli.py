"""The ``littlego`` command: matches, the course judge, bundling, GTP, play and replay, benchmarks."""

import argparse
import json
import sys

from engine.constants import BLACK, COURSE_CPU_LIMIT, MAX_MOVES, WHITE
from engine.params import ParamsError
from engine.arena.bench import bench_rules, bench_search
from engine.arena.bundle import write_bundle
from engine.arena.commandline import (
    SCHEDULER_HELP, count, depth, folder_to_write, integer_range, positive_int, positive_seconds, run_command,
    scheduler,
)
from engine.arena.executors import ExecutorError
from engine.arena.data import RULES_VECTORS, SHIPPED_PARAMS, DataError
from engine.arena.gtp import serve
from engine.arena.human import offer_sgf, play_in_terminal, replay
from engine.arena.judge import judge
from engine.arena.sgf import SgfError
from engine.arena.match import run_match, format_report
from engine.arena.specs import KNOWN, make_player


def _print_result(result, as_json):
    if as_json:
        print(json.dumps(result, indent=2))


def _bench_rules(args):
    _print_result(bench_rules(vectors=args.vectors, repeats=args.repeats, playout_games=args.playout_games,
                              seed=args.seed, report=_quiet(args)), args.json)
    return 0


def _bench_search(args):
    _print_result(bench_search(depths=range(1, args.max_depth + 1), params_path=args.params,
                               game_seeds=range(1, args.games + 1), report=_quiet(args)), args.json)
    return 0


def _quiet(args):
    """The report function: lines printed as they come, or nothing when the result is printed as JSON."""
    return (lambda line: None) if args.json else print


def _bundle(args):
    for path in write_bundle(args.outdir, args.params, force=args.force):
        print("wrote {}".format(path))
    return 0


def _match(args):
    if args.sgf:
        folder_to_write(args.sgf, "--sgf")          # before any game is played
    summary, _ = run_match(args.a, args.b, args.games, jobs=args.jobs, seed=args.seed,
                           opening_plies=args.random_opening, cpu_limit=args.cpu_limit,
                           progress=not args.json and sys.stderr.isatty(), sgf_dir=args.sgf,
                           scheduler=args.scheduler)
    print(json.dumps(summary, indent=2) if args.json else format_report(summary))
    return 0


def _judge(args):
    return judge(args.moves, args.dir, args.verbose)


def _gtp(args):
    return serve(make_player(args.player), sys.stdin, sys.stdout, seed=args.seed)


def _read_line(prompt):
    """A line typed at the terminal (or piped in), None at the end of input."""
    try:
        return input(prompt)
    except EOFError:
        print()
        return None


def _write(text):
    sys.stdout.write(text)
    sys.stdout.flush()


def _play(args):
    human = BLACK if args.colour == "black" else WHITE
    opponent = make_player(args.opponent)
    moves, final, quit = play_in_terminal(opponent, human, _read_line, _write, seed=args.seed)
    if moves and not quit:
        offer_sgf(moves, human, args.opponent, final, _read_line, _write)
    return 0


def _replay(args):
    replay(args.game, _write, verdict_only=args.verdict_only, read_line=_read_line if args.step else None)
    return 0


def build_parser():
    """The argument parser of ``littlego``."""
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
                    "(the rules vectors shipped with the package, by default) and random playouts from the "
                    "empty board; each figure is the median of "
                    "--repeats runs on one core.")
    rules.add_argument("--vectors", default=RULES_VECTORS,
                       help="rules-vectors file (.jsonl.gz); default: %(default)s")
    rules.add_argument("--repeats", type=positive_int, default=5, help="runs per figure (default 5)")
    rules.add_argument("--playout-games", type=positive_int, default=2000,
                       help="random games per playout run (default 2000)")
    rules.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    rules.add_argument("--json", action="store_true", help="print the figures as JSON")
    rules.set_defaults(handler=_bench_rules)

    search = targets.add_parser(
        "search", help="alpha-beta nodes/s and seconds per move at depths 1..5; whole-game CPU",
        description="Search a fixed set of opening, middle-game and end-game positions at each "
                    "depth (one core), then play whole games of the shipped agent against random, "
                    "one process per move as the course runs it, and report the agent's CPU.")
    search.add_argument("--params", default=None, help="params file (default: the shipped params.json)")
    search.add_argument("--max-depth", type=depth, default=5, help="deepest depth (default 5)")
    search.add_argument("--games", type=count, default=1,
                        help="whole-game pairs (agent as Black and as White) to time (default 1)")
    search.add_argument("--json", action="store_true", help="print the figures as JSON")
    search.set_defaults(handler=_bench_search)

    bundle = commands.add_parser(
        "bundle", help="write a self-contained my_player3.py and its params.json for submission",
        description="Write OUTDIR/my_player3.py (the engine inlined, standard library only, "
                    "Python 3.7) and OUTDIR/params.json: the two files a course submission holds.")
    bundle.add_argument("outdir", help="folder to write into (created if missing)")
    bundle.add_argument("--params", default=SHIPPED_PARAMS, help="params file (default: %(default)s)")
    bundle.add_argument("--force", action="store_true", help="replace a submission already in OUTDIR")
    bundle.set_defaults(handler=_bundle)

    match = commands.add_parser(
        "match", help="play a match between two players and report it",
        description="Play GAMES games between players A and B, colours alternating, in parallel "
                    "and reproducibly from --seed. Players: " + KNOWN + ".")
    match.add_argument("a", metavar="A", help="first player spec")
    match.add_argument("b", metavar="B", help="second player spec")
    match.add_argument("--games", type=positive_int, default=20, help="games to play (default 20)")
    match.add_argument("--jobs", type=positive_int, default=None, help="parallel games (default: all cores)")
    match.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    match.add_argument("--random-opening", type=integer_range(0, MAX_MOVES - 2), default=0, metavar="K",
                       help="start each colour-swapped pair from the same K random plies")
    match.add_argument("--cpu-limit", type=positive_seconds, default=COURSE_CPU_LIMIT, metavar="SECONDS",
                       help="CPU seconds per move for program players (default %(default)s, as the course)")
    match.add_argument("--sgf", metavar="DIR", help="write every game as SGF into DIR")
    match.add_argument("--scheduler", type=scheduler, default=None, help=SCHEDULER_HELP.replace(
        "the experiment's [executor], else ", ""))
    match.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    match.set_defaults(handler=_match)

    judge = commands.add_parser(
        "judge", help="judge one ply like the course's host.py (for the course's build.sh)",
        description="Read input.txt and output.txt, judge the move, write the next input.txt. "
                    "Exit 0: game goes on; 1: Black wins; 2: White wins; 4: input.txt unusable.")
    judge.add_argument("-m", "--moves", type=count, required=True,
                       help="plies played, this one included (the game ends at %d)" % MAX_MOVES)
    judge.add_argument("-v", "--verbose", action="store_true", help="print the board")
    judge.add_argument("--dir", default=".", help="the player's folder (default: current)")
    judge.set_defaults(handler=_judge)

    gtp = commands.add_parser(
        "gtp", help="be a GTP (Go Text Protocol 2) engine on stdin/stdout, for GUIs and tournament tools",
        description="Answer GTP commands on stdin/stdout under Little-Go rules (5x5, komi 2.5, the course's "
                    "KO rule, 24 plies), playing genmove with any player. A GUI such as Sabaki or GoGui "
                    "runs it as the command: littlego gtp --player champion")
    gtp.add_argument("--player", default="champion", help="the player answering genmove (default: %(default)s)")
    gtp.add_argument("--seed", type=int, default=1, help="seed of the player's random choices (default 1)")
    gtp.set_defaults(handler=_gtp)

    play = commands.add_parser(
        "play", help="play a game against any player in the terminal",
        description="Play Little-Go in the terminal against OPPONENT. Type moves as i,j (the course's row, "
                    "column), a GTP vertex such as C3, or pass; undo takes back your last move; quit stops. "
                    "At the end the game can be saved as SGF.")
    play.add_argument("opponent", nargs="?", default="champion", help="player spec (default: %(default)s)")
    play.add_argument("--colour", "--color", choices=("black", "white"), default="black",
                      help="the colour you play (default: black, who moves first)")
    play.add_argument("--seed", type=int, default=1, help="seed of the opponent's random choices (default 1)")
    play.set_defaults(handler=_play)

    replay_parser = commands.add_parser(
        "replay", help="step through a recorded game (SGF), judged by Little-Go rules",
        description="Show a 5x5 SGF game move by move: the board, captures and plies left after each move, "
                    "then the result under Little-Go rules. A move the rules refuse is an error naming it.")
    replay_parser.add_argument("game", help="SGF file")
    replay_parser.add_argument("--verdict-only", action="store_true", help="print only the result")
    replay_parser.add_argument("--step", action="store_true", help="wait for Enter before each move")
    replay_parser.set_defaults(handler=_replay)
    return parser


def main(argv=None):
    """Entry point of the ``littlego`` console script."""
    # ValueError: bad params, data, player specs or match settings, each named in the message.
    return run_command("littlego", build_parser().parse_args(argv), (ParamsError, DataError, SgfError, ExecutorError, ValueError))


if __name__ == "__main__":
    sys.exit(main())
