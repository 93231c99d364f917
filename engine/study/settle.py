"""Which side each random opening leaves won, settled by the compiled solver, and how many of the
games where the agent had the won side it won (``littlego openings``).

An answers file is ``{book key: true when Black to move wins}``, written again after each answer,
so a cut-off run keeps what it has and the same command goes on from there. An opening is the
position after the games' first PLIES plies, one per symmetry class (the book's key).
Little-Go has no draws (komi 2.5), so from each opening exactly one colour is won.

- ``solve_records``: every distinct opening of a match's records (a SOURCE,
  ``engine.play.records``), each given to the compiled solver, ``jobs`` processes at a time;
- ``solve_seed``: the openings of a match before or while it is played, drawn as ``littlego match
  --random-opening 2 --seed SEED`` draws them, each taken from the shipped table
  (``engine/data/openings.json``) or an EARLIER answers file, else from the shipped book (Black to
  move at a position of its Black section: a proven win), else solved;
- ``build_table``: every distinct opening of PLIES plies (85 classes), settled as ``solve_seed``
  does, written as the openings file ``engine.play.openings`` reads (``engine/data/openings.json``);
- ``kept_report``: for a player of the records, the games whose opening left its colour won and
  how many of them it won.

Every opening to solve is looked up in the store of solved positions first (``store``: a path, or
None for none; ``engine.native.store``), and what the solver answers is kept there.
"""

import json
import os
import time
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Tuple

from engine.book import book_key, load_book
from engine.common.pools import process_pool
from engine.data import SHIPPED_BOOK
from engine.native.compiler import OPENING_TABLE_BITS
from engine.native.solver import describe_position, position_from_text
from engine.native.store import open_store
from engine.native.stored_solver import Solving, StoredSolver
from engine.play.openings import OpeningsError, every_opening, load_openings, match_openings, openings_json
from engine.play.records import default_folder, games
from engine.play.sgf import Replay, read_game
from engine.position import Position
from engine.protocol import write_atomic
from engine.study import Say, say_now

PLIES = 2
SETTLING = Solving(jobs=2, table_bits=OPENING_TABLE_BITS)  # how openings are settled unless told: no store
Answers = Dict[str, bool]  # an opening's book key -> whether Black (to move) wins it
SolveJob = Tuple[str, str, int, Optional[str]]  # (key, the position's text, table bits, the store's path)


def record_openings(source: str) -> Iterator[Tuple[str, Replay, Position, str]]:
    """(path, replay, the opening position, its key) of every record in ``source``; the path is the one
    the record had in the folder the match wrote."""
    folder = default_folder(source)
    for name, data in games(source):
        path = os.path.join(folder, name)
        replay = read_game(data, path)
        opening = replay.positions[PLIES]
        yield path, replay, opening, book_key(opening)[0]


def read_answers(path: str) -> Answers:
    """The answers in ``path`` ({book key: Black wins}); none when there is no such file yet."""
    if not os.path.exists(path):
        return {}
    with open(path) as handle:
        answers: Answers = json.load(handle)
    return answers


def _save(path: str, answers: Mapping[str, bool]) -> None:
    write_atomic(path, json.dumps(answers, indent=1, sort_keys=True) + "\n")


def _solve(job: SolveJob) -> Tuple[str, bool, int, float]:
    """Worker: (key, Black wins, the solver's nodes, seconds) of an opening given as (key, its text, table
    bits, the store's path or None); the answer kept in the store."""
    key, text, table_bits, store = job
    started = time.time()
    with StoredSolver(store, table_bits) as solver:
        won = solver.wins(position_from_text(text))
        return key, won, solver.nodes, time.time() - started


def stored_answers(todo: Mapping[str, Position], store: Optional[str]) -> Answers:
    """{key: Black wins} of the openings of ``todo`` ({key: position}) whose value the store at ``store``
    (a path; None: none) holds."""
    if store is None or not todo:
        return {}
    with open_store(store) as stored:
        values = {key: stored.value(position) for key, position in todo.items()}
    return {key: won for key, won in values.items() if won is not None}


def solve_all(todo: Mapping[str, Position], out: str, answers: Answers, solving: Solving, say: Say = say_now) -> None:
    """Settle the openings ``todo`` ({key: position}): from the store ``solving`` names where it holds
    them, the rest solved ``solving.jobs`` at a time (each answer kept in the store); each answer added
    to ``answers`` and saved to ``out`` as it comes."""
    jobs, table_bits, store = solving
    held = stored_answers(todo, store)
    if held:
        answers.update(held)
        _save(out, answers)
        say(f"{len(held)} openings from the store {store}")
    work: List[SolveJob] = [
        (key, describe_position(position), table_bits, store) for key, position in sorted(todo.items())
    ]
    work = [job for job in work if job[0] not in held]
    if not work:
        return
    with process_pool(min(jobs, len(work)), "spawn") as pool:
        for key, won, nodes, seconds in pool.imap_unordered(_solve, work):
            answers[key] = won
            _save(out, answers)
            say("{} black {} ({:,} nodes, {:.0f} s)".format(key, "wins" if won else "loses", nodes, seconds))


def solve_records(source: str, out: str, solving: Solving = SETTLING, say: Say = say_now) -> None:
    """Settle every distinct opening of the records in ``source`` with the compiled solver, into ``out``."""
    answers = read_answers(out)
    todo = {key: opening for _, _, opening, key in record_openings(source) if key not in answers}
    say(f"{len(todo)} openings to solve")
    solve_all(todo, out, answers, solving, say)


def known_answers(earlier: Iterable[str] = ()) -> Answers:
    """{key: Black wins} from the shipped table (where there is one) and the ``earlier`` answers files."""
    try:
        known = dict(load_openings().black_wins)
    except OpeningsError:
        known = {}
    for path in earlier:
        with open(path) as handle:
            known.update(json.load(handle))
    return known


def solve_seed(
    seed: int, count: int, out: str, solving: Solving = SETTLING, earlier: Iterable[str] = (), say: Say = say_now
) -> None:
    """Settle the distinct openings of a match of ``count`` games from ``seed`` into ``out``: from the
    shipped table or ``earlier``, the shipped book, else the store or the compiled solver (``solving``)."""
    answers = read_answers(out)
    known = known_answers(earlier)
    book = load_book(SHIPPED_BOOK)
    todo: Dict[str, Position] = {}
    by = {"earlier": 0, "book": 0}
    for key, position in sorted(match_openings(PLIES, seed, count).items()):
        if key in answers:
            continue
        if key in known:
            answers[key], by["earlier"] = known[key], by["earlier"] + 1
        elif book.move(position) is not None:
            answers[key], by["book"] = True, by["book"] + 1
        else:
            todo[key] = position
    _save(out, answers)
    say(
        "{} openings: {} settled already ({} from the earlier experiment, {} by the book), {} to solve".format(
            len(answers) + len(todo), len(answers), by["earlier"], by["book"], len(todo)
        )
    )
    solve_all(todo, out, answers, solving, say)


def build_table(out: str, solving: Solving = SETTLING, earlier: Iterable[str] = (), say: Say = say_now) -> None:
    """Write the openings file ``out`` of every opening of PLIES plies: the shipped table's answers and
    ``earlier``'s, the rest from the store or solved as ``solving`` says (kept in ``OUT.work`` as they come, so
    a cut-off build goes on)."""
    work = out + ".work"
    answers = read_answers(work)
    known = known_answers(earlier)
    todo: Dict[str, Position] = {}
    for key, position in sorted(every_opening(PLIES).items()):
        if key in answers:
            continue
        if key in known:
            answers[key] = known[key]
        else:
            todo[key] = position
    _save(work, answers)
    say(f"{len(answers) + len(todo)} openings of {PLIES} plies: {len(answers)} known, {len(todo)} to solve")
    solve_all(todo, work, answers, solving, say)
    write_atomic(out, openings_json(PLIES, answers))
    os.remove(work)
    say(f"wrote {out}: Black wins {sum(answers.values())} of {len(answers)}")


def _count(tally: Dict[str, int], colour: str, amount: int = 1) -> None:
    tally[colour] = tally.get(colour, 0) + amount


def kept_report(source: str, answers: Mapping[str, bool], agent: str = "champion") -> List[str]:
    """The lines that say, for the player named ``agent`` in the records of ``source``, which games it
    lost from an opening won for it, then how many such games it won, by colour, and how many from
    openings lost for it (``answers``: {key: Black wins})."""
    lines: List[str] = []
    won_side: Dict[str, int] = {}
    kept: Dict[str, int] = {}
    lost_side: Dict[str, int] = {}
    saved: Dict[str, int] = {}
    unknown = 0
    for path, replay, _opening, key in record_openings(source):
        black = replay.black == agent
        colour = "black" if black else "white"
        if key not in answers:
            unknown += 1
            continue
        assert replay.result is not None, f"{path}: a match's record always has its result"
        won = replay.result.startswith("B" if black else "W")
        if answers[key] == black:  # the agent's colour is the won side here
            _count(won_side, colour)
            _count(kept, colour, won)
            if not won:
                lines.append(f"lost from a won opening: {path}")
        else:
            _count(lost_side, colour)
            _count(saved, colour, won)
    total, kept_all = sum(won_side.values()), sum(kept.values())
    lines.append(
        "{}: won {} of {} games whose opening left it the won side ({:.1%}): as Black {} of {}, as White "
        "{} of {}".format(
            agent,
            kept_all,
            total,
            kept_all / total if total else 0,
            kept.get("black", 0),
            won_side.get("black", 0),
            kept.get("white", 0),
            won_side.get("white", 0),
        )
    )
    lines.append(
        "  and {} of {} games from openings lost for it (as Black {} of {}, as White {} of {}); {} games "
        "with unsolved openings".format(
            sum(saved.values()),
            sum(lost_side.values()),
            saved.get("black", 0),
            lost_side.get("black", 0),
            saved.get("white", 0),
            lost_side.get("white", 0),
            unknown,
        )
    )
    return lines
