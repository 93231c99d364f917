"""The ``littlego`` command: matches, the course judge, bundling, GTP, play and replay, benchmarks."""

import argparse
import json
import math
import os
import sys
import time

from engine.constants import BLACK, COURSE_CPU_LIMIT, MAX_MOVES, WHITE
from engine.agent import infer_moves_played
from engine.book import BookError, load_book
from engine.params import ParamsError
from engine.position import IllegalMove, Position
from engine.protocol import read_input, write_atomic
from engine.search import SearchTimeout
from engine.solver import Solver
from engine.arena.bench import bench_rules, bench_search, bench_solve
from engine.arena.bundle import write_bundle
from engine.arena.commandline import (
    SCHEDULER_HELP, count, depth, file_to_write, folder_to_write, integer_range, positive_int, positive_seconds, run_command,
    scheduler,
)
from engine.arena.executors import ExecutorError
from engine.arena.data import RULES_VECTORS, SHIPPED_BOOK, SHIPPED_PARAMS, DataError
from engine.arena.gtp import serve
from engine.arena.gtp import board_diagram, colour_word
from engine.arena.human import describe, offer_sgf, parse_human_move, play_in_terminal, replay, verdict
from engine.arena.judge import judge
from engine.arena.sgf import SgfError
from engine.arena.match import run_match, format_report
from engine.arena.native import NativeError, NativeSolver, build_book, check_book, extend_book
from engine.arena.specs import KNOWN, make_player
from engine.arena.training import PLOT, TABLE, Training, TrainingError


def elo_pair(text):
    """ELO0,ELO1 for --sprt: two numbers, the first below the second."""
    try:
        elo0, elo1 = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("expected ELO0,ELO1 such as 0,20, got {!r}".format(text))
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        raise argparse.ArgumentTypeError("expected ELO0 < ELO1, both finite, got {!r}".format(text))
    return elo0, elo1


def _print_result(result, as_json):
    if as_json:
        print(json.dumps(result, indent=2))


def _bench_rules(args):
    _print_result(bench_rules(vectors=args.vectors, repeats=args.repeats, playout_games=args.playout_games,
                              seed=args.seed, report=_quiet(args)), args.json)
    return 0


def _bench_search(args):
    _print_result(bench_search(depths=range(1, args.max_depth + 1), params_path=args.params,
                               game_seeds=range(1, args.games + 1), report=_quiet(args),
                               budgets=args.budgets), args.json)
    return 0


def _bench_solve(args):
    _print_result(bench_solve(plies=args.plies, positions=args.positions, seed=args.seed, report=_quiet(args)),
                  args.json)
    return 0


def _quiet(args):
    """The report function: lines printed as they come, or nothing when the result is printed as JSON."""
    return (lambda line: None) if args.json else print


def _bundle(args):
    book = args.book
    if book is None and not args.no_book and os.path.exists(SHIPPED_BOOK):
        book = SHIPPED_BOOK
    for path in write_bundle(args.outdir, args.params, force=args.force, book_path=book):
        print("wrote {}".format(path))
    return 0


def _match(args):
    if args.sgf:
        folder_to_write(args.sgf, "--sgf")          # before any game is played
    summary, _ = run_match(args.a, args.b, args.games, jobs=args.jobs, seed=args.seed,
                           opening_plies=args.random_opening, cpu_limit=args.cpu_limit,
                           progress=True if not args.json and sys.stderr.isatty() else _match_lines(args.a, args.games),
                           sgf_dir=args.sgf,
                           scheduler=args.scheduler, sprt=args.sprt,
                           a_colour={"black": BLACK, "white": WHITE}.get(args.colour))
    print(json.dumps(summary, indent=2) if args.json else format_report(summary))
    if "interrupted" in summary:
        print("interrupted {}: the figures are for those".format(summary["interrupted"]), file=sys.stderr)
        return 130
    return 0


def _match_lines(name_a, games):
    """Progress for a match whose stderr is no terminal (a log file, or beside --json): a line
    every twentieth of the games with A's score so far, and the SPRT's state when there is one."""
    step = max(1, games // 20)
    started = time.time()

    def report(done, total, test, a_wins):
        if done % step == 0 or done == total or (test and test["decision"]):
            line = "{} of {} games played ({:.0f} s): {} won {}, lost {}".format(
                done, total, time.time() - started, name_a, a_wins, done - a_wins)
            if test:
                line += ", SPRT LLR {:.2f} in ({:.2f}, {:.2f})".format(test["llr"], test["lower"], test["upper"])
            print(line, file=sys.stderr, flush=True)
    return report


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


def _train(args):
    if args.resume:
        training = Training.resume(args.resume)
    else:
        settings = dict((name, getattr(args, name)) for name in (
            "games", "seed", "alpha", "gamma", "eval_every", "eval_games", "epsilon_start", "epsilon_end",
            "epsilon_games", "horizon", "min_updates") if getattr(args, name) is not None)
        if args.opponent:
            settings["opponents"] = args.opponent
        if args.panel:
            settings["panel"] = args.panel
        training = Training.create(args.out, settings)
    print("training folder: {} ({} of {} games done)".format(training.folder, training.done,
                                                             training.settings["games"]))
    training.run(progress=sys.stderr.isatty())
    print("finished: {} (table {}, curve {})".format(training.folder, TABLE, PLOT))
    return 0


def _solve(args):
    position = _position_to_solve(args)
    if position.is_over:
        print("the game is over: {}".format(verdict(position)))
        return 0
    print(board_diagram(position))
    if args.native:
        return _solve_native(position)
    solver = Solver()
    deadline = time.process_time() + args.seconds
    try:
        values = solver.move_values(position, deadline)
    except SearchTimeout:
        print("not solved within {:g} s of CPU ({:,} nodes): try a later position or more --seconds".format(
            args.seconds, solver.nodes))
        return 1
    best = max(values.values())
    mover = colour_word(position.player).capitalize()
    print("{} to move {} with perfect play, by {:g} (komi included); {:,} nodes".format(
        mover, "wins" if best > 0 else "loses", abs(best), solver.nodes))
    for move, margin in sorted(values.items(), key=lambda item: -item[1]):
        print("  {:<12} {}  {:+g}".format(describe(move), "win " if margin > 0 else "loss", margin))
    return 0


def _solve_native(position):
    with NativeSolver() as solver:
        results = solver.move_results(position)
        nodes = solver.nodes
    mover = colour_word(position.player).capitalize()
    won = any(results.values())
    print("{} to move {} with perfect play; {:,} nodes (compiled solver: win or loss only)".format(
        mover, "wins" if won else "loses", nodes))
    for move, wins in sorted(results.items(), key=lambda item: not item[1]):
        print("  {:<12} {}".format(describe(move), "win " if wins else "loss"))
    return 0


def _book_build(args):
    file_to_write(args.out, "--out")
    folder = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(folder):           # found out now, not after hours of solving
        raise FileNotFoundError(2, "no such folder to write the book into", folder)
    started = _cpu_with_children()

    def progress(position, count=[0]):
        count[0] += 1
        if count[0] % 1000 == 0:
            print("  {:,} positions (ply {})".format(count[0], position.moves_played), file=sys.stderr)

    book = build_book(args.max_ply, args.table_bits, progress, jobs=args.jobs,
                      report=lambda text: print(text, file=sys.stderr, flush=True))
    write_atomic(args.out, book.to_json())
    print("{}: {:,} positions up to ply {}, {:,} solver nodes, {:.0f} s of CPU (the solver's included)".format(
        args.out, len(book), args.max_ply, book.info["provenance"]["nodes"], _cpu_with_children() - started))
    return 0


def _book_extend(args):
    out = args.out or args.book
    file_to_write(out, "--out")
    book = _existing_book(args.book)
    if args.max_ply <= book.info.get("max_ply", 0):
        raise ValueError("{} already reaches ply {}: --max-ply must be deeper".format(
            args.book, book.info.get("max_ply", 0)))
    started, before = _cpu_with_children(), len(book)

    def progress(done, total, ply):
        print("  ply {}: {:,} of {:,} positions solved".format(ply, done, total), file=sys.stderr, flush=True)

    grown, nodes = extend_book(book, args.max_ply, args.table_bits, args.jobs, progress)
    provenance = dict(grown.info.get("provenance") or {})
    provenance["extended"] = list(provenance.get("extended", [])) + [{
        "command": "littlego book extend {} --max-ply {} --table-bits {} --jobs {}".format(
            args.book, args.max_ply, args.table_bits, args.jobs),
        "nodes": nodes, "positions_added": len(grown) - before}]
    grown.info["provenance"] = provenance
    write_atomic(out, grown.to_json())
    print("{}: {:,} positions up to ply {} ({:,} added), {:,} solver nodes, {:.0f} s of CPU (the solver's "
          "included)".format(out, len(grown), grown.info["max_ply"], len(grown) - before, nodes,
                             _cpu_with_children() - started))
    return 0


def _book_upgrade(args):
    out = args.out or args.book
    file_to_write(out, "--out")
    book = _existing_book(args.book)
    before = os.path.getsize(args.book)
    size = len(book.moves)                       # every key read and checked before anything is written
    write_atomic(out, book.to_json())
    print("{}: {:,} positions, {:,} bytes (was {:,})".format(out, size, os.path.getsize(out), before))
    return 0


def _cpu_with_children():
    """CPU seconds of this process and of its finished child processes (the compiled solver)."""
    times = os.times()
    return times[0] + times[1] + times[2] + times[3]


def _book_check(args):
    book = _existing_book(args.book)
    solver = NativeSolver(args.table_bits) if args.solve else None
    try:
        met, missing, wrong = check_book(book, solver, args.max_ply)
    finally:
        if solver:
            solver.close()
    print("{}: {:,} entries; a Black following it meets {:,} positions up to ply {}: {} without a move{}".format(
        args.book, len(book), met, args.max_ply if args.max_ply is not None else book.info.get("max_ply"),
        len(missing), ", {} moves that lose the win".format(len(wrong)) if args.solve else ""))
    for position in missing[:5]:
        print("no move for:\n{}".format(position))
    for position, move in wrong[:5]:
        print("{} loses the win in:\n{}".format(describe(move), position))
    return 1 if missing or wrong else 0


def _existing_book(path):
    """The book at ``path``; ValueError saying why when there is none or it is unusable."""
    book = load_book(path, warn=_raise_value_error)
    if book is None:
        raise ValueError("{}: no such book".format(path))
    return book


def _raise_value_error(message):
    raise ValueError(message)


def _position_to_solve(args):
    """The position a ``solve`` command names: an SGF record's end, a course input file, or moves."""
    if args.moves is not None:
        position = Position.initial()
        for number, text in enumerate(args.moves.replace(";", " ").split(), 1):
            try:
                position = position.play_point(parse_human_move(text))
            except (ValueError, IllegalMove) as error:
                raise ValueError("--moves: move {} ({}): {}".format(number, text, error))
        return position
    if args.position is None:
        raise ValueError("give a position: an SGF file, an input.txt (with --plies), or --moves")
    with open(args.position, "rb") as handle:
        head = handle.read(64).lstrip()
    if head.startswith(b"("):
        return replay(args.position, lambda text: None, verdict_only=True).positions[-1]
    game = read_input(args.position)
    plies = args.plies if args.plies is not None else infer_moves_played(game, os.devnull)
    return Position.from_boards(game.player, game.previous, game.current, plies)


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
    search.add_argument("--budgets", type=positive_seconds, nargs="*", default=[0.5, 2.5], metavar="SECONDS",
                        help="CPU budgets to report the depth reached within (default: 0.5 2.5)")
    search.add_argument("--json", action="store_true", help="print the figures as JSON")
    search.set_defaults(handler=_bench_search)
    solve_bench = targets.add_parser(
        "solve", help="the exact solver's nodes and CPU to find a winning move, at chosen plies",
        description="Play random moves from the empty board to each ply (reproducibly from --seed), then time "
                    "Solver().winning_move there, as the agent does from its solve_from ply; report the nodes "
                    "(the same on any machine) and the CPU seconds.")
    solve_bench.add_argument("--plies", type=integer_range(6, MAX_MOVES - 1), nargs="+", default=[12, 10],
                             help="plies to solve at (default: 12 10)")
    solve_bench.add_argument("--positions", type=count, default=6, help="positions at each ply (default 6)")
    solve_bench.add_argument("--seed", type=int, default=11, help="seed of the random moves (default 11)")
    solve_bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    solve_bench.set_defaults(handler=_bench_solve)

    bundle = commands.add_parser(
        "bundle", help="write a self-contained my_player3.py and its params.json (and a book.json) for submission",
        description="Write OUTDIR/my_player3.py (the engine inlined, standard library only, "
                    "Python 3.7), OUTDIR/params.json and OUTDIR/book.json (the opening book): the files a "
                    "course submission holds.")
    bundle.add_argument("outdir", help="folder to write into (created if missing)")
    bundle.add_argument("--params", default=SHIPPED_PARAMS, help="params file (default: %(default)s)")
    bundle.add_argument("--force", action="store_true", help="replace a submission already in OUTDIR")
    which_book = bundle.add_mutually_exclusive_group()
    which_book.add_argument("--book", help="the opening book (littlego book build) to ship beside it as book.json "
                                           "(default: the shipped book.json, where there is one)")
    which_book.add_argument("--no-book", action="store_true", help="ship no opening book")
    bundle.set_defaults(handler=_bundle)

    match = commands.add_parser(
        "match", help="play a match between two players and report it",
        description="Play GAMES games between players A and B, colours alternating, in parallel "
                    "and reproducibly from --seed. Ctrl-C (SIGINT) ends the match early and reports the "
                    "games finished (exit status 130). Players: " + KNOWN + ".")
    match.add_argument("a", metavar="A", help="first player spec")
    match.add_argument("b", metavar="B", help="second player spec")
    match.add_argument("--games", type=positive_int, default=20, help="games to play (default 20)")
    match.add_argument("--jobs", type=positive_int, default=None, help="parallel games (default: all cores)")
    match.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    match.add_argument("--random-opening", type=integer_range(0, MAX_MOVES - 2), default=0, metavar="K",
                       help="start each colour-swapped pair from the same K random plies")
    match.add_argument("--cpu-limit", type=positive_seconds, default=COURSE_CPU_LIMIT, metavar="SECONDS",
                       help="CPU seconds per move for program players (default %(default)s, as the course)")
    match.add_argument("--colour", choices=("alternate", "black", "white"), default="alternate",
                       help="A's colour: alternating (default; pairs share an opening), or the same in every "
                            "game, each game with its own opening (to measure A as Black, say)")
    match.add_argument("--sgf", metavar="DIR", help="write every game as SGF into DIR")
    match.add_argument("--sprt", type=elo_pair, metavar="ELO0,ELO1",
                       help="stop when a sequential probability ratio test (alpha = beta = 0.05) accepts H0 (A is "
                            "ELO0 Elo stronger than B) or H1 (ELO1); --games is then the most to play")
    match.add_argument("--scheduler", type=scheduler, default=None, help=SCHEDULER_HELP.replace(
        "the experiment's [executor], else ", ""))
    match.add_argument("--json", action="store_true",
                       help="print one JSON object instead of the table (progress: lines on stderr, as whenever "
                            "stderr is not a terminal)")
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

    solve = commands.add_parser(
        "solve", help="solve a position exactly: who wins with perfect play, by how much, every move's value",
        description="Search a position to the end of the game (24 plies) and print who wins with perfect play "
                    "and by how many stones (komi included), and the exact value of every legal move. The "
                    "position is the end of an SGF record, a course input.txt (give --plies, the plies already "
                    "played, or it is estimated from the stones), or --moves from the empty board. Pure Python: "
                    "positions from about ply 10 on solve in seconds to minutes.")
    solve.add_argument("position", nargs="?", help="SGF file or input.txt")
    solve.add_argument("--moves", help="moves from the empty board, as i,j or C3 or pass, separated by spaces")
    solve.add_argument("--plies", type=integer_range(0, MAX_MOVES), help="plies played before an input.txt")
    solve.add_argument("--seconds", type=positive_seconds, default=120.0,
                       help="CPU seconds to give up after (default %(default)s)")
    solve.add_argument("--native", action="store_true",
                       help="use the compiled solver (needs a C compiler): any position, win or loss of every move")
    solve.set_defaults(handler=_solve)

    book = commands.add_parser("book", help="build or check the opening book (book.json)")
    book_targets = book.add_subparsers(dest="target", metavar="ACTION")
    book_targets.required = True
    build = book_targets.add_parser(
        "build", help="compute the opening book with the compiled exact solver",
        description="Solve the opening with the compiled solver (engine/arena/native/solve.c, compiled once with "
                    "the machine's C compiler) and write a book of one winning Black move for every position, up "
                    "to --max-ply, that a Black following the book can meet whatever White plays, one entry per "
                    "symmetry class. The agent plays the book's move where it has one, and solves exactly from "
                    "its params' solve_from ply on.")
    build.add_argument("--max-ply", type=integer_range(0, MAX_MOVES - 2), default=8,
                       help="the last ply with book moves (default %(default)s)")
    build.add_argument("--out", default="book.json", help="file to write (default: %(default)s)")
    build.add_argument("--table-bits", type=integer_range(16, 28), default=24,
                       help="log2 of the solver's table buckets (32 bytes each; default %(default)s: 512 MiB), "
                            "per process")
    build.add_argument("--jobs", type=positive_int, default=1,
                       help="solver processes: more than 1 proves the first move's replies in parallel, one "
                            "process each (default %(default)s)")
    build.set_defaults(handler=_book_build)
    extend = book_targets.add_parser(
        "extend", help="add deeper plies to a book with the compiled exact solver",
        description="Find, with the compiled solver, a winning move for every position up to --max-ply that a "
                    "Black following BOOK can meet and that has no book move yet, one ply of Black's at a time, "
                    "and write the deeper book (BOOK itself unless --out). Positions are solved in chunks, "
                    "--jobs processes at a time. Fails, writing nothing, if a position met is lost.")
    extend.add_argument("book", help="book file to extend")
    extend.add_argument("--max-ply", type=integer_range(0, MAX_MOVES - 2), required=True,
                        help="the new last ply with book moves")
    extend.add_argument("--out", help="file to write (default: BOOK)")
    extend.add_argument("--table-bits", type=integer_range(16, 28), default=22,
                        help="log2 of each solver process's table buckets (default %(default)s: 128 MiB)")
    extend.add_argument("--jobs", type=positive_int, default=1, help="solver processes (default %(default)s)")
    extend.set_defaults(handler=_book_extend)
    upgrade = book_targets.add_parser(
        "upgrade", help="rewrite a book in the current file format",
        description="Read BOOK (any format this version reads, every entry checked) and write it in the current "
                    "one, its positions and information unchanged: BOOK itself unless --out.")
    upgrade.add_argument("book", help="book file to rewrite")
    upgrade.add_argument("--out", help="file to write (default: BOOK)")
    upgrade.set_defaults(handler=_book_upgrade)
    check = book_targets.add_parser(
        "check", help="check that a book covers every position a Black following it can meet",
        description="Walk every position up to the book's last ply that a Black following the book can meet, "
                    "whatever White plays, and report those without a book move; with --solve, also ask the "
                    "compiled solver whether each book move keeps the win. Exit status 1 when any fails.")
    check.add_argument("book", help="book file")
    check.add_argument("--max-ply", type=integer_range(0, MAX_MOVES - 2), help="walk to this ply (default: the book's)")
    check.add_argument("--solve", action="store_true", help="check every move with the compiled solver")
    check.add_argument("--table-bits", type=integer_range(16, 28), default=24,
                       help="log2 of the solver's table buckets (default %(default)s)")
    check.set_defaults(handler=_book_check)

    train = commands.add_parser("train", help="train a learning player (qlearning)")
    learners = train.add_subparsers(dest="target", metavar="LEARNER")
    learners.required = True
    qlearning = learners.add_parser(
        "qlearning", help="tabular Q-learning against chosen opponents, with a learning curve",
        description="Train the tabular Q-learner (states under the 8 board symmetries) against the opponents in "
                    "turn ('self' is self-play), evaluating it every --eval-every games against the --panel. "
                    "OUT gets settings.json, checkpoint.pkl, table.json.gz (for the qlearning:TABLE player), "
                    "curve.tsv and curve.png; --resume OUT continues a stopped or killed training exactly.")
    qlearning.add_argument("--out", default="qlearning", help="training folder (default: %(default)s)")
    qlearning.add_argument("--resume", metavar="OUT", help="continue the training in this folder")
    qlearning.add_argument("--games", type=positive_int, help="training games (default 20000)")
    qlearning.add_argument("--opponent", action="append", metavar="SPEC",
                           help="an opponent, taken in turn (repeatable; default: random, greedy, aggressive, self)")
    qlearning.add_argument("--seed", type=int, help="seed (default 1)")
    qlearning.add_argument("--alpha", type=float, help="learning rate (default 0.2)")
    qlearning.add_argument("--gamma", type=float, help="discount (default 0.95)")
    qlearning.add_argument("--epsilon-start", type=float, help="exploration rate at the start (default 0.3)")
    qlearning.add_argument("--epsilon-end", type=float, help="exploration rate at the end (default 0.02)")
    qlearning.add_argument("--epsilon-games", type=positive_int,
                           help="games over which exploration falls linearly from start to end (default: 3/4 of the games)")
    qlearning.add_argument("--horizon", type=integer_range(1, MAX_MOVES),
                           help="plies the table covers; later moves are the fallback's (default 10)")
    qlearning.add_argument("--min-updates", type=positive_int,
                           help="updates a state needs to be kept in the saved table (default 2)")
    qlearning.add_argument("--eval-every", type=positive_int, help="games between evaluations (default 2000)")
    qlearning.add_argument("--eval-games", type=positive_int, help="games against each panel player (default 40)")
    qlearning.add_argument("--panel", action="append", metavar="SPEC",
                           help="an evaluation opponent (repeatable; default: random, greedy)")
    qlearning.set_defaults(handler=_train)
    return parser


def main(argv=None):
    """Entry point of the ``littlego`` console script."""
    # ValueError: bad params, data, player specs or match settings, each named in the message.
    return run_command("littlego", build_parser().parse_args(argv), (ParamsError, DataError, SgfError, ExecutorError, TrainingError, NativeError, BookError, ValueError))


if __name__ == "__main__":
    sys.exit(main())
