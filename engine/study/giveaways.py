"""Where the wins go: a match from random openings, each opening settled by the compiled solver,
and every won opening the agent gave away found, with the move that gave it away
(``littlego study giveaways``).

Three steps, each resumed from OUT when the same study runs again (a cut run keeps its work):

1. the match, as ``littlego match AGENT AGAINST --games 2N --random-opening 2 --seed SEED
   --resume OUT/match.journal --sgf OUT/match-sgf --json > OUT/match.json`` plays it (N openings,
   both colours from each): the journal keeps each game as it ends (and is a SOURCE of records,
   ``engine.play.records``); OUT/match-sgf/ is the folder ``littlego records unpack
   OUT/match.journal.xz`` gives back;
2. the openings: which side each distinct opening (the position after the two random plies)
   leaves won, answered as ``littlego openings solve-seed`` does (the shipped table, the shipped
   book, the store of solved positions, else the compiled solver) into OUT/openings.json;
3. the give-aways: in each game the agent lost from an opening won for it, its first move that
   turned a won position into a lost one, checked by the compiled solver on the position after
   each of its moves in turn (the store of solved positions read first, and every answer kept
   there: ``engine.native.stored_solver.StoredSolver``); then the winning move there that its static evaluation rates
   highest, the agent's Decision there (re-run: a timed search may pick another move than it
   played) and the static evaluation (the agent's params, else the shipped ones) after the move
   played and after the winning move, both for the agent. OUT/giveaways.json holds the figures
   and a record per such game, written as each is answered.

The summary printed at the end (and kept as OUT/report.txt): the won openings kept, by colour;
each give-away's ply and move (ply: the plies played before it, so Black's first move after the
opening is ply 2); a histogram by ply.
"""

import json
import os
from collections import Counter
from functools import partial
from typing import Any, Callable, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, TypeVar

from engine.book import book_key
from engine.common.pools import process_pool
from engine.common.seeds import derive_seed
from engine.constants import BLACK, colour_word
from engine.errors import InvalidInput
from engine.native.compiler import DEFAULT_TABLE_BITS
from engine.native.stored_solver import StoredSolver
from engine.play.game import MatchGame
from engine.play.match import run_match
from engine.play.openings import opening_position
from engine.play.settings import DEFAULT_GAME_SETTINGS, GameSettings
from engine.play.sgf import sgf_name
from engine.players.specs import make_player
from engine.protocol import write_atomic
from engine.study import say_now
from engine.study.examine import GiveAway, LostGame, examine
from engine.study.settle import PLIES, SETTLING, Answers, solve_seed


class StudyPlan(NamedTuple):
    """What a study plays and where it keeps it: its folder ``out``; the random openings (two games
    each); the agent's and the opponent's player specs; the solver's table bits; and how the match's
    games are played (a GameSettings: its seed is the study's, and its jobs the solver processes too;
    its journal is always OUT/match.journal, which the study resumes from); the store of solved
    positions its solvers read and grow (a path; None: none)."""

    out: str
    openings: int = 200
    agent: str = "champion"
    against: str = "gnugo"
    table_bits: int = DEFAULT_TABLE_BITS
    settings: GameSettings = DEFAULT_GAME_SETTINGS
    store: Optional[str] = None

    @property
    def seed(self) -> int:
        """The match's seed: its openings follow from it."""
        return self.settings.seed

    @property
    def jobs(self) -> int:
        """Parallel games, then parallel solver processes."""
        return self.settings.jobs or os.cpu_count() or 1


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

    def to_json(self) -> Dict[str, Any]:
        document = self._asdict()
        document["giveaways"] = [giveaway._asdict() for giveaway in self.giveaways]
        return document


REPORT_FILE = "report.txt"  # the summary, in OUT as printed
Item = TypeVar("Item")
ItemResult = TypeVar("ItemResult")


def _examine(game: LostGame, table_bits: int, store: Optional[str] = None) -> GiveAway:
    """Worker: the GiveAway of a LostGame, the compiled solver's answers (from the store at ``store``
    where it holds them) printed as they come."""

    def progress(line: str) -> None:
        say_now(f"  {sgf_name(game.index)} ({colour_word(game.colour)}): {line}")

    player = make_player(game.agent)
    try:
        with StoredSolver(store, table_bits) as solver:
            return examine(game, solver, player, progress=progress)
    finally:
        player.close()


def play_study(plan: StudyPlan) -> List[MatchGame]:
    """Step 1: the match (continued from its journal in OUT); its MatchGames in game order."""
    games = 2 * plan.openings
    say_now(f"{plan.agent} against {plan.against}: {games} games from seed {plan.seed}")
    settings = plan.settings._replace(jobs=plan.jobs, journal=os.path.join(plan.out, "match.journal"))
    summary, results = run_match(
        plan.agent, plan.against, games, settings, opening_plies=PLIES, sgf_dir=os.path.join(plan.out, "match-sgf")
    )
    write_atomic(os.path.join(plan.out, "match.json"), json.dumps(summary.to_json(), indent=2) + "\n")
    if summary.interrupted:
        raise KeyboardInterrupt
    return results


def opening_key(moves: Sequence[str]) -> str:
    """The book key of a game's opening (the position after its PLIES random plies), from its moves' text."""
    return book_key(opening_position(moves, PLIES))[0]


def study_of(
    plan: StudyPlan, results: Sequence[MatchGame], answers: Answers, giveaways: Mapping[int, GiveAway]
) -> Study:
    """The Study of these MatchGames, openings answered (``answers``: book key -> Black wins) and GiveAways."""
    figures: Dict[str, Counter[str]] = {name: Counter() for name in ("won", "kept", "lost", "saved")}
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
    found = sorted(giveaways.values())
    return Study(plan.agent, plan.against, plan.seed, len(results), **by_colour, unsettled=unsettled, giveaways=found)


def lost_games(plan: StudyPlan, results: Sequence[MatchGame], answers: Answers) -> List[LostGame]:
    """The LostGames of the match: the agent lost from an opening won for it."""
    found = []
    for game in results:
        if answers.get(opening_key(game.moves)) == (game.a_colour == BLACK) and not game.a_won:
            seed = derive_seed(derive_seed(plan.seed, game.index), game.a_colour)  # as engine.play.game seeds it
            found.append(LostGame(game.index, plan.agent, game.a_colour, game.moves, game.reason.value, seed))
    return found


def answered(function: Callable[[Item], ItemResult], items: Sequence[Item], jobs: int) -> Iterator[ItemResult]:
    """``function(item)`` for each of ``items``, as they come: in this process when ``jobs`` is 1,
    else in up to ``jobs`` spawned ones."""
    if jobs == 1 or len(items) < 2:
        yield from map(function, items)
        return
    with process_pool(min(jobs, len(items)), "spawn") as pool:
        yield from pool.imap_unordered(function, items)


def examine_all(plan: StudyPlan, results: Sequence[MatchGame], answers: Answers) -> Study:
    """Step 3: the Study, with the GiveAway of every LostGame, each kept in OUT/giveaways.json as it comes."""
    path = os.path.join(plan.out, "giveaways.json")
    done: Dict[int, GiveAway] = {}
    if os.path.exists(path):
        with open(path) as handle:
            done = {record["game"]: GiveAway(**record) for record in json.load(handle)["giveaways"]}
    todo = [game for game in lost_games(plan, results, answers) if game.index not in done]
    say_now(f"{len(done) + len(todo)} games lost from won openings: {len(todo)} to examine")
    for giveaway in answered(partial(_examine, table_bits=plan.table_bits, store=plan.store), todo, plan.jobs):
        done[giveaway.game] = giveaway
        write_atomic(path, json.dumps(study_of(plan, results, answers, done).to_json(), indent=1) + "\n")
        where = f"ply {giveaway.ply}, {giveaway.played}" if giveaway.ply is not None else f"no move ({giveaway.end})"
        say_now(f"{giveaway.record} ({giveaway.colour}): given away at {where}")
    figures = study_of(plan, results, answers, done)
    write_atomic(path, json.dumps(figures.to_json(), indent=1) + "\n")
    return figures


def _signed(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:+.2f}"


def _by_colour(what: str, done: Mapping[str, int], of: Mapping[str, int]) -> str:
    """'what: D of O (as Black d of o, as White d of o)' from {colour: count} tallies."""
    return "{}: {} of {} (as Black {} of {}, as White {} of {})".format(
        what, sum(done.values()), sum(of.values()), done["black"], of["black"], done["white"], of["white"]
    )


def giveaway_line(giveaway: GiveAway) -> str:
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


def report(study: Study) -> List[str]:
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


def run_study(plan: StudyPlan) -> List[str]:
    """Run (or resume) the study ``plan`` asks for, in its folder; the lines of its summary, which it prints
    and keeps in OUT/report.txt."""
    if plan.agent == plan.against:
        raise InvalidInput("the agent and its opponent must differ (the games tell them apart by name)")
    for spec in (plan.agent, plan.against):
        make_player(spec).close()  # a bad spec, or no GNU Go, fails before any work
    os.makedirs(plan.out, exist_ok=True)
    results = play_study(plan)
    answers_path = os.path.join(plan.out, "openings.json")
    solve_seed(plan.seed, 2 * plan.openings, answers_path, SETTLING._replace(jobs=plan.jobs, store=plan.store))
    with open(answers_path) as handle:
        answers = json.load(handle)
    lines = report(examine_all(plan, results, answers))
    text = "\n".join(lines)
    print(text)
    write_atomic(os.path.join(plan.out, REPORT_FILE), text + "\n")
    return lines
