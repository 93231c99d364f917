"""Where the wins go: a match with random openings, each opening settled by the compiled solver,
and every won opening the agent gave away found, with the move that gave it away.

Three steps, each resumed from OUT when the same command runs again (a cut run keeps its work):

1. the match, as ``littlego match AGENT AGAINST --games 2N --random-opening 2 --seed SEED
   --resume OUT/match.journal --sgf OUT/match-sgf --json > OUT/match.json`` plays it (N openings,
   both colours from each): the journal keeps each game as it ends (and is a SOURCE for the other
   tools here); OUT/match-sgf/ is the folder ``records.py unpack OUT/match.journal.xz`` gives back;
2. the openings: which side each distinct opening (the position after the two random plies)
   leaves won, answered as ``openings.py solve-seed`` does (the earlier experiments' answers,
   the shipped book, else the compiled solver) into OUT/openings.json;
3. the give-aways: in each game the agent lost from an opening won for it, its first move that
   turned a won position into a lost one, checked by the compiled solver on the position after
   each of its moves in turn; then the winning move there that its static evaluation rates
   highest, the agent's Decision there (re-run: a timed search may pick another move than it
   played) and the static evaluation (the agent's params, else the shipped ones) after the move
   played and after the winning move, both for the agent. OUT/giveaways.json holds the figures
   and a record per such game, written as each is answered.

Run it from anywhere with the project importable (installed, or PYTHONPATH at the repository):
  python3 experiments/tools/giveaways.py OUT --seed SEED [--openings N] [--jobs JOBS]

The summary printed at the end (and kept as OUT/report.txt): the won openings kept, by colour;
each give-away's ply and move (ply: the plies played before it, so Black's first move after the
opening is ply 2); a histogram by ply. The compiled solver (a C compiler) settles positions of
the first plies in minutes each (--table-bits sets its table: 128 MiB a process by default,
512 MiB at 24); GNU Go: ``apt-get install gnugo``.
"""

import argparse
import json
import multiprocessing
import os
import random
import sys
import time
from collections import Counter
from functools import partial
from typing import Dict, List, NamedTuple, Optional

from openings import PLIES, solve_seed

from engine.agent import decide_move
from engine.bitboard import count
from engine.book import book_key
from engine.cli.arguments import add_table_bits, positive_int
from engine.cli.exits import run_command
from engine.cli.match import match_lines
from engine.common.seeds import derive_seed
from engine.constants import BLACK, PASS, colour_word
from engine.coords import move_from_text, move_to_text
from engine.data import SHIPPED_PARAMS
from engine.errors import InvalidInput
from engine.features import make_evaluator
from engine.native.solver import NativeSolver
from engine.params import load_params
from engine.play.match import run_match
from engine.players.searcher import AgentPlayer
from engine.players.specs import KNOWN, make_player
from engine.position import Position
from engine.protocol import write_atomic


class LostGame(NamedTuple):
    """A game the agent lost from an opening won for it, as a worker examines it: the game's index,
    the agent's spec and colour, the moves (the course's text), how the game ended and the seed of
    the agent's tie-breaks in it."""

    index: int
    agent: str
    colour: int
    moves: List[str]
    end: str
    seed: int


class GiveAway(NamedTuple):
    """Where a LostGame was given away: the agent's first move after which the other side wins
    (``ply`` None where none did: the game was lost otherwise, ``end`` says how). ``winning``:
    the winning move there that the static evaluation rates highest; ``decision_*``: the agent's
    Decision there, re-run (None for a player that is not our agent); ``evaluation_*``: the
    static evaluation after the move played and after ``winning``, for the agent; what the
    compiled solver spent on the game."""

    game: int
    record: str
    colour: str
    end: str
    ply: Optional[int] = None
    played: Optional[str] = None
    winning: Optional[str] = None
    decision_move: Optional[str] = None
    decision_how: Optional[str] = None
    decision_depth: Optional[int] = None
    decision_value: Optional[float] = None
    evaluation_played: Optional[float] = None
    evaluation_winning: Optional[float] = None
    solver_seconds: float = 0.0
    solver_nodes: int = 0


class Study(NamedTuple):
    """The figures of a study (OUT/giveaways.json): by the agent's colour, the games whose opening
    left it the won side (``won``), those it won (``kept``), the games from openings lost for it
    and those it won anyway (``saved``); games whose opening is not settled yet; the give-aways."""

    agent: str
    against: str
    seed: int
    games: int
    won: Dict[str, int]
    kept: Dict[str, int]
    lost: Dict[str, int]
    saved: Dict[str, int]
    unsettled: int
    giveaways: List[GiveAway]

    def to_json(self):
        document = self._asdict()
        document["giveaways"] = [giveaway._asdict() for giveaway in self.giveaways]
        return document


REPORT = "report.txt"  # the summary, in OUT as printed


def record_name(index):
    """The name ``littlego match --sgf`` gives game ``index``."""
    return f"game-{index:04d}.sgf"


def replay(moves):
    """The positions of a game: the one before each move of ``moves`` (points or PASS), then the last."""
    positions = [Position.initial()]
    for move in moves:
        positions.append(positions[-1].play_point(move))
    return positions


def first_giveaway(positions, moves, colour, solver, progress=None):
    """The index k of the first move of ``colour`` (``moves[k]``, from ``positions[k]``) after which
    the other side wins, by ``solver``; None when there is none. ``positions[0]`` must be won for
    ``colour``: until its first such move every position is (the other side's moves cannot change
    that), so only the positions after its own moves need solving. ``progress(line)`` hears each
    answer."""
    for k, (position, move) in enumerate(zip(positions, moves)):
        if position.player != colour:
            continue
        started = time.time()
        lost = solver.wins(positions[k + 1])
        if progress:
            verdict = "gives the win away" if lost else "keeps it won"
            progress(f"ply {position.moves_played} {move_to_text(move)}: {verdict} ({time.time() - started:.0f} s)")
        if lost:
            return k
    return None


def evaluation_after(position, move, evaluate):
    """The static evaluation of the position after ``move``, for the side that plays it, as the
    search scores a move at its root."""
    child = position.play_point(move)
    captured = count(position.opp) - count(child.own)
    return -evaluate(child, -captured)


def winning_move(position, solver, evaluate, losing=(), progress=None):
    """The move the static evaluation rates highest among those that win (by ``solver``), the
    ``losing`` ones known already left out; None in a lost position. ``progress(line)`` hears each
    move tried."""
    moves = [move for move in position.legal_points() + [PASS] if move not in losing]
    moves.sort(key=lambda move: -evaluation_after(position, move, evaluate))
    for move in moves:
        started = time.time()
        wins = not solver.wins(position.play_point(move))
        if progress:
            verdict = "wins" if wins else "loses too"
            progress(
                f"ply {position.moves_played} {move_to_text(move)} instead: {verdict} ({time.time() - started:.0f} s)"
            )
        if wins:
            return move
    return None


def shipped_evaluator():
    params = load_params(SHIPPED_PARAMS)
    return make_evaluator(params.weights, params.endgame)


def examine(game, solver, player, start=PLIES, progress=None):
    """The GiveAway of a LostGame whose position after ``start`` plies is won for the agent
    (``player``: the agent, for its Decision and evaluation)."""
    moves = [move_from_text(text) for text in game.moves]
    positions = replay(moves)
    started, nodes = time.time(), solver.nodes
    found = first_giveaway(positions[start:], moves[start:], game.colour, solver, progress)
    names = (game.index, record_name(game.index), colour_word(game.colour), game.end)
    if found is None:
        return GiveAway(*names, solver_seconds=time.time() - started, solver_nodes=solver.nodes - nodes)
    position, played = positions[start + found], moves[start + found]
    agent = isinstance(player, AgentPlayer)
    evaluate = player.evaluate if agent else shipped_evaluator()
    winning = winning_move(position, solver, evaluate, (played,), progress)
    seconds, nodes = time.time() - started, solver.nodes - nodes
    decision = decide_move(position, player.params, random.Random(game.seed), player.book) if agent else None
    return GiveAway(
        *names,
        ply=position.moves_played,
        played=move_to_text(played),
        winning=None if winning is None else move_to_text(winning),
        decision_move=decision and move_to_text(decision.move),
        decision_how=decision and decision.how,
        decision_depth=decision and decision.depth,
        decision_value=decision and decision.value,
        evaluation_played=evaluation_after(position, played, evaluate),
        evaluation_winning=None if winning is None else evaluation_after(position, winning, evaluate),
        solver_seconds=seconds,
        solver_nodes=nodes,
    )


def _examine(game, table_bits):
    """Worker: the GiveAway of a LostGame, the compiled solver's answers printed as they come."""

    def progress(line):
        print(f"  {record_name(game.index)} ({colour_word(game.colour)}): {line}", flush=True)

    player = make_player(game.agent)
    try:
        with NativeSolver(table_bits) as solver:
            return examine(game, solver, player, progress=progress)
    finally:
        player.close()


def play(args, out):
    """Step 1: the match (continued from its journal); its MatchGames in game order."""
    games = 2 * args.openings
    print(f"{args.agent} against {args.against}: {games} games from seed {args.seed}", flush=True)
    summary, results = run_match(
        args.agent,
        args.against,
        games,
        jobs=args.jobs,
        seed=args.seed,
        opening_plies=PLIES,
        progress=match_lines(args.agent, games),
        sgf_dir=os.path.join(out, "match-sgf"),
        journal=os.path.join(out, "match.journal"),
    )
    write_atomic(os.path.join(out, "match.json"), json.dumps(summary.to_json(), indent=2) + "\n")
    if summary.interrupted:
        raise KeyboardInterrupt
    return results


def opening_key(moves):
    """The book key of a game's opening (the position after its PLIES random plies), from its moves' text."""
    return book_key(replay([move_from_text(text) for text in moves[:PLIES]])[PLIES])[0]


def tally(args, results, answers, giveaways):
    """The Study of these MatchGames, openings answered (``answers``: book key -> Black wins) and GiveAways."""
    figures = {name: Counter() for name in ("won", "kept", "lost", "saved")}
    unsettled = 0
    for game in results:
        key = opening_key(game.moves)
        if key not in answers:
            unsettled += 1
            continue
        colour = colour_word(game.a_colour)
        won_side = answers[key] == (game.a_colour == BLACK)
        figures["won" if won_side else "lost"][colour] += 1
        figures["kept" if won_side else "saved"][colour] += game.a_won
    by_colour = {name: {colour: counter[colour] for colour in ("black", "white")} for name, counter in figures.items()}
    giveaways = sorted(giveaways.values())
    return Study(
        args.agent, args.against, args.seed, len(results), **by_colour, unsettled=unsettled, giveaways=giveaways
    )


def lost_games(args, results, answers):
    """The LostGames of the match: the agent lost from an opening won for it."""
    found = []
    for game in results:
        if answers.get(opening_key(game.moves)) == (game.a_colour == BLACK) and not game.a_won:
            seed = derive_seed(derive_seed(args.seed, game.index), game.a_colour)  # as engine.play.game seeds it
            found.append(LostGame(game.index, args.agent, game.a_colour, game.moves, game.reason.value, seed))
    return found


def answered(function, items, jobs):
    """``function(item)`` for each of ``items``, as they come: in this process when ``jobs`` is 1,
    else in up to ``jobs`` spawned ones."""
    if jobs == 1 or len(items) < 2:
        yield from map(function, items)
        return
    with multiprocessing.get_context("spawn").Pool(min(jobs, len(items))) as pool:
        yield from pool.imap_unordered(function, items)


def examine_all(args, out, results, answers):
    """Step 3: the Study, with the GiveAway of every LostGame, each kept in OUT/giveaways.json as it comes."""
    path = os.path.join(out, "giveaways.json")
    done = {}
    if os.path.exists(path):
        done = {record["game"]: GiveAway(**record) for record in json.load(open(path))["giveaways"]}
    todo = [game for game in lost_games(args, results, answers) if game.index not in done]
    print(f"{len(done) + len(todo)} games lost from won openings: {len(todo)} to examine", flush=True)
    for giveaway in answered(partial(_examine, table_bits=args.table_bits), todo, args.jobs):
        done[giveaway.game] = giveaway
        write_atomic(path, json.dumps(tally(args, results, answers, done).to_json(), indent=1) + "\n")
        where = f"ply {giveaway.ply}, {giveaway.played}" if giveaway.ply is not None else f"no move ({giveaway.end})"
        print(f"{giveaway.record} ({giveaway.colour}): given away at {where}", flush=True)
    figures = tally(args, results, answers, done)
    write_atomic(path, json.dumps(figures.to_json(), indent=1) + "\n")
    return figures


def _signed(value):
    return "-" if value is None else f"{value:+.2f}"


def _by_colour(what, done, of):
    """'what: D of O (as Black d of o, as White d of o)' from {colour: count} tallies."""
    return "{}: {} of {} (as Black {} of {}, as White {} of {})".format(
        what, sum(done.values()), sum(of.values()), done["black"], of["black"], done["white"], of["white"]
    )


def giveaway_line(giveaway):
    """One give-away as the summary lists it."""
    g = giveaway
    if g.ply is None:
        return f"  {g.record}: no move lost it (the game ended by {g.end})"
    decision = "no decision (not our agent)"
    if g.decision_how:
        depth = "" if g.decision_depth is None else f" to depth {g.decision_depth}"
        value = "" if g.decision_value is None else f", value {_signed(g.decision_value)}"
        decision = f"{g.decision_how}{depth}{value}, picks {g.decision_move}"
    return (
        f"  {g.record} ply {g.ply}: played {g.played} ({_signed(g.evaluation_played)}), "
        f"wins with {g.winning} ({_signed(g.evaluation_winning)}); re-run: {decision}"
    )


def report(study):
    """The summary of a Study, as lines: the tallies by colour, each give-away by colour, a histogram by ply."""
    lines = [
        f"{study.agent} against {study.against}, seed {study.seed}: {study.games} games"
        + (f" ({study.unsettled} with unsettled openings)" if study.unsettled else ""),
        _by_colour("won openings kept", study.kept, study.won),
        _by_colour("lost openings won anyway", study.saved, study.lost),
    ]
    for colour in ("black", "white"):
        found = [g for g in study.giveaways if g.colour == colour]
        if found:
            lines.append(
                f"given away as {colour.capitalize()} ({len(found)}; the first losing move, solver-checked, and the "
                "static evaluation after it and after a winning move, for the agent):"
            )
            lines.extend(map(giveaway_line, found))
    plies = Counter((g.ply, g.colour) for g in study.giveaways if g.ply is not None)
    if plies:
        lines.append("by ply (Black, White):")
        for ply in sorted({ply for ply, _ in plies}):
            black, white = plies[ply, "black"], plies[ply, "white"]
            lines.append(f"  {ply:2d} {'#' * (black + white):<10} ({black}, {white})")
    return lines


def run_study(args):
    if args.agent == args.against:
        raise InvalidInput("the agent and its opponent must differ (the games tell them apart by name)")
    for spec in (args.agent, args.against):
        make_player(spec).close()  # a bad spec, or no GNU Go, fails before any work
    out = args.out
    os.makedirs(out, exist_ok=True)
    results = play(args, out)
    answers_path = os.path.join(out, "openings.json")
    solve_seed(args.seed, 2 * args.openings, answers_path, args.jobs)
    answers = json.load(open(answers_path))
    text = "\n".join(report(examine_all(args, out, results, answers)))
    print(text)
    write_atomic(os.path.join(out, REPORT), text + "\n")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="giveaways.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", metavar="OUT", help="the study's folder (created; the same OUT resumes)")
    parser.add_argument("--seed", type=int, required=True, help="the match's seed (its openings follow from it)")
    parser.add_argument(
        "--openings", type=positive_int, default=200, help="random openings, 2 games each (default 200)"
    )
    parser.add_argument("--against", default="gnugo", help="the opponent's player spec (default gnugo)")
    parser.add_argument("--agent", default="champion", help=f"the agent's player spec (default champion; {KNOWN})")
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=os.cpu_count() or 1,
        help="parallel games, then parallel solver processes (default: all cores)",
    )
    add_table_bits(parser, "each give-away solver process's")
    parser.set_defaults(handler=run_study, command=None)
    return parser


if __name__ == "__main__":
    sys.exit(
        run_command(
            "giveaways.py",
            build_parser().parse_args(),
            on_interrupt="interrupted: the same command continues from OUT, keeping what is done",
        )
    )
