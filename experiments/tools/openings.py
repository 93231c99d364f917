"""Which side each random opening of a match left won, by the compiled solver, and how many
of the games where the agent had the won side it won.

Usage (from the repository root; SOURCE: the match's records, see records.py):
  python3 experiments/tools/openings.py solve SOURCE OUT.json [JOBS]
  python3 experiments/tools/openings.py solve-seed SEED GAMES OUT.json [JOBS [EARLIER.json ...]]
  python3 experiments/tools/openings.py report SOURCE OUT.json [AGENT]
  python3 experiments/tools/openings.py table OUT.json [JOBS]

``solve`` gives every distinct opening of the records (the position after the games' first two
plies, one per symmetry class, the book's key) to the compiled solver, JOBS processes at a
time, and writes {key: true when Black to move wins} to OUT.json after each answer (so a
cut-off run keeps what it has).

``solve-seed`` settles the openings of a match before or while it is played: it draws them
exactly as ``littlego match --random-opening 2 --seed SEED`` does (game i opens from
derive_seed(SEED, i // 2): both colours from each opening) and settles each distinct one:
  - in the shipped table of every 2-ply opening (engine/data/openings.json) or in one of the
    EARLIER.json files (default: the compiled solver's answers of earlier experiments,
    experiments/random-openings-20261122/gnugo-openings.json and
    experiments/white-book-20261123/openings-2808.json): taken from there;
  - Black to move at a position the shipped book (book.json) holds (the Black section: a
    proven win): Black wins;
  - otherwise the compiled solver, JOBS at a time.
It writes OUT.json as ``solve`` does.

``table`` settles every distinct opening of two plies (85 symmetry classes) as ``solve-seed``
does (the shipped table, the EARLIER files, else the compiled solver, its answers kept in
OUT.json.work as they come) and writes them as an openings file (``engine.play.openings``):
``engine/data/openings.json`` is its output.

``report`` counts, for the player named AGENT (default champion) in the records, the games
whose opening left its colour a won position and how many of them it won.
Little-Go has no draws (komi 2.5), so from each opening exactly one colour is won.
"""

import json
import multiprocessing
import os
import sys
import time

from records import default_folder
from records import games as records

from engine.book import book_key, load_book
from engine.common.seeds import derive_seed
from engine.data import SHIPPED_BOOK
from engine.native.solver import NativeSolver, describe_position, position_from_text
from engine.play.openings import OpeningsError, every_opening, load_openings, openings_json
from engine.play.sgf import read_game
from engine.playout import random_opening
from engine.protocol import write_atomic

PLIES = 2
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EARLIER = tuple(
    os.path.join(ROOT, "experiments", path)
    for path in ("random-openings-20261122/gnugo-openings.json", "white-book-20261123/openings-2808.json")
)


def games(source):
    """(path, replay, the opening position, its key) of every record in ``source``."""
    folder = default_folder(source)
    for name, data in records(source):
        path = os.path.join(folder, name)
        replay = read_game(data, path)
        opening = replay.positions[PLIES]
        yield path, replay, opening, book_key(opening)[0]


def _solve(job):
    key, text = job
    started = time.time()
    with NativeSolver(24) as solver:
        won = solver.wins(position_from_text(text))
        return key, won, solver.nodes, time.time() - started


def _save(out, results):
    write_atomic(out, json.dumps(results, indent=1, sort_keys=True) + "\n")


def _solve_all(todo, out, results, jobs):
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        for key, won, nodes, seconds in pool.imap_unordered(_solve, sorted(todo.items())):
            results[key] = won
            _save(out, results)
            print(
                "{} black {} ({:,} nodes, {:.0f} s)".format(key, "wins" if won else "loses", nodes, seconds), flush=True
            )


def solve(source, out, jobs):
    results = json.load(open(out)) if os.path.exists(out) else {}
    todo = {}
    for _, _, opening, key in games(source):
        if key not in results:
            todo[key] = describe_position(opening)
    print(len(todo), "openings to solve", flush=True)
    _solve_all(todo, out, results, jobs)


def openings(seed, count):
    """{key: position} of the distinct openings of a match of ``count`` games."""
    found = {}
    for pair in range((count + 1) // 2):
        position, _ = random_opening(PLIES, derive_seed(seed, pair))
        found.setdefault(book_key(position)[0], position)
    return found


def _known(earlier_paths):
    """{key: black wins} from the shipped table (where there is one) and the EARLIER files."""
    try:
        known = dict(load_openings().black_wins)
    except OpeningsError:
        known = {}
    for path in earlier_paths:
        known.update(json.load(open(path)))
    return known


def solve_seed(seed, count, out, jobs, earlier_paths=EARLIER):
    results = json.load(open(out)) if os.path.exists(out) else {}
    earlier = _known(earlier_paths)
    book = load_book(SHIPPED_BOOK)
    todo, by = {}, {"earlier": 0, "book": 0}
    for key, position in sorted(openings(seed, count).items()):
        if key in results:
            continue
        if key in earlier:
            results[key], by["earlier"] = earlier[key], by["earlier"] + 1
        elif book.move(position) is not None:
            results[key], by["book"] = True, by["book"] + 1
        else:
            todo[key] = describe_position(position)
    _save(out, results)
    print(
        "{} openings: {} settled already ({} from the earlier experiment, {} by the book), {} to solve".format(
            len(results) + len(todo), len(results), by["earlier"], by["book"], len(todo)
        ),
        flush=True,
    )
    _solve_all(todo, out, results, jobs)


def table(out, jobs):
    work = out + ".work"
    results = json.load(open(work)) if os.path.exists(work) else {}
    known = _known(EARLIER)
    todo = {}
    for key, position in sorted(every_opening(PLIES).items()):
        if key in results:
            continue
        if key in known:
            results[key] = known[key]
        else:
            todo[key] = describe_position(position)
    _save(work, results)
    print(
        f"{len(results) + len(todo)} openings of {PLIES} plies: {len(results)} known, {len(todo)} to solve", flush=True
    )
    _solve_all(todo, work, results, jobs)
    write_atomic(out, openings_json(PLIES, results))
    os.remove(work)
    print(f"wrote {out}: Black wins {sum(results.values())} of {len(results)}")


def report(source, out, agent):
    results = json.load(open(out))
    won_side, kept, unknown, lost_side, saved = {}, {}, 0, {}, {}
    for path, replay, _opening, key in games(source):
        black = replay.black == agent
        colour = "black" if black else "white"
        if key not in results:
            unknown += 1
            continue
        won = replay.result.startswith("B" if black else "W")
        if results[key] == black:  # the agent's colour is the won side here
            won_side[colour] = won_side.get(colour, 0) + 1
            kept[colour] = kept.get(colour, 0) + won
            if not won:
                print("lost from a won opening:", path)
        else:
            lost_side[colour] = lost_side.get(colour, 0) + 1
            saved[colour] = saved.get(colour, 0) + won
    total, kept_all = sum(won_side.values()), sum(kept.values())
    print(
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
    print(
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


if __name__ == "__main__":
    action, rest = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else (None, [])
    if action == "solve" and len(rest) in (2, 3):
        solve(rest[0], rest[1], int(rest[2]) if len(rest) > 2 else 2)
    elif action == "solve-seed" and len(rest) >= 3:
        solve_seed(int(rest[0]), int(rest[1]), rest[2], int(rest[3]) if len(rest) > 3 else 2, rest[4:] or EARLIER)
    elif action == "table" and len(rest) in (1, 2):
        table(rest[0], int(rest[1]) if len(rest) > 1 else 2)
    elif action == "report" and len(rest) in (2, 3):
        report(rest[0], rest[1], rest[2] if len(rest) > 2 else "champion")
    else:
        sys.exit(__doc__)
