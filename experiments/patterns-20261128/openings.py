"""Exploitability from the empty board and from every won 2-ply opening, the evaluation alone.

Each params file plays as ``native:PARAMS@DEPTH`` (its weights searched to a fixed depth on the
compiled searcher: no book, no solver) against the exact adversary of ``evolve exploit``, first as
Black from the empty board (Black wins it), then from each 2-ply opening that leaves the mover won,
one of each class under the board's symmetries. Prints, per params file, whether it keeps the
empty board and how many of the won openings it keeps.

    PYTHONPATH=. python3 experiments/patterns-20261128/openings.py --depth 4 params.json fitted.json
"""

import argparse

from engine.book import book_key
from engine.native.solver import describe_position
from engine.native.store import default_store_path
from engine.native.stored_solver import StoredSolver
from engine.players.specs import make_player
from engine.position import Position
from evolve.solved.exploit import keeps


def won_openings(solver):
    """The text of one 2-ply position of each class whose mover wins (the solver's ``position text``)."""
    seen, found = set(), []
    root = Position.initial()
    for first in root.all_moves():
        after = root.play_point(first)
        for second in [] if after.is_over else after.all_moves():
            position = after.play_point(second)
            key = book_key(position)
            if position.is_over or key in seen:
                continue
            seen.add(key)
            if any(solver.move_results(position).values()):
                found.append(position)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("params", nargs="+")
    parser.add_argument("--depth", type=int, default=4)
    args = parser.parse_args()
    with StoredSolver(default_store_path(), 22) as solver:
        openings = won_openings(solver)
        for path in args.params:
            spec = f"native:{path}@{args.depth}"
            empty = keeps(make_player(spec), describe_position(Position.initial()), solver)
            kept = [keeps(make_player(spec), describe_position(p), solver) for p in openings]
            print(
                f"{spec}: empty board as Black {'kept' if empty else 'LOST'}; won 2-ply openings kept "
                f"{sum(kept)} of {len(kept)}",
                flush=True,
            )


if __name__ == "__main__":
    main()
