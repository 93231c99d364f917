"""The atlas of the positions an evaluation still misjudges: the benchmark's held-out won positions whose
move, searched to a fixed depth with no book and no solver, gives the win away, by ply and by shape.

    PYTHONPATH=. python3 experiments/patterns-20261128/atlas.py fitted.json --depth 4 > atlas.md

Prints Markdown: the kept share by ply; each misjudged position (ply, colour, board, the move played,
the winning moves); the 2x2 shapes most over-represented in the misjudged positions against the kept
ones (per position, the mover's view), which is where the next feature should look.
"""

import argparse
from collections import Counter

from engine.coords import move_to_text
from engine.native.solver import position_from_text
from engine.params import load_params
from engine.patterns import PATTERNS, pattern_counts
from evolve.solved.regret import chosen_move
from evolve.solved.tuners import load_problem

FILES = (
    "experiments/regret-20261127/fresh-3-8.json.gz",
    "experiments/regret-20261127/recorded-all-2-7.json.gz",
    "experiments/regret-20261125/positions-4-11.json.gz",
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("params")
    parser.add_argument("--depth", type=int, default=4)
    args = parser.parse_args()
    params = load_params(args.params).with_settings(depth=args.depth)
    problem = load_problem(FILES, args.depth)
    by_ply, missed, shapes = {}, [], {True: Counter(), False: Counter()}
    for text, wins, ply in problem.held_out:
        move = chosen_move(params, text, plain=True)
        good = move in wins
        kept, of = by_ply.get(ply, (0, 0))
        by_ply[ply] = (kept + good, of + 1)
        position = position_from_text(text)
        shapes[good].update({PATTERNS[k]: 1 for k, n in enumerate(pattern_counts(position.own, position.opp)) if n})
        if not good:
            missed.append((ply, position, move, wins))
    total = sum(k for k, _ in by_ply.values())
    print(f"# Atlas: {args.params} at depth {args.depth}, no book, no solver\n")
    print(f"Kept {total} of {len(problem.held_out)} held-out won positions.\n")
    print("| ply | kept | of |\n| --- | --- | --- |")
    for ply, (kept, of) in sorted(by_ply.items()):
        print(f"| {ply} | {kept} | {of} |")
    kept_count, missed_count = len(problem.held_out) - len(missed), len(missed)
    print("\n## Shapes over-represented where the win is given away\n")
    print("Share of the misjudged positions showing the shape, against the kept ones (shapes in 5 or more).\n")
    print("| shape | misjudged | kept | ratio |\n| --- | --- | --- | --- |")
    rows = []
    for name in PATTERNS:
        bad, fine = shapes[False][name] / max(missed_count, 1), shapes[True][name] / max(kept_count, 1)
        if shapes[False][name] >= 5:
            rows.append((bad / max(fine, 1e-9), name, bad, fine))
    for ratio, name, bad, fine in sorted(rows, reverse=True)[:12]:
        print(f"| `{name}` | {bad:.0%} | {fine:.0%} | {ratio:.1f} |")
    print("\n## The misjudged positions\n")
    print("X: Black's stones, O: White's; moves as the course writes them (row,column).\n")
    for ply, position, move, wins in sorted(missed, key=lambda entry: entry[0]):
        colour = "Black" if position.player == 1 else "White"
        board = position.picture()
        winning = ", ".join(sorted(move_to_text(m) for m in wins))
        print(f"ply {ply}, {colour} to play: played {move_to_text(move)}; winning: {winning}\n```\n{board}\n```")


if __name__ == "__main__":
    main()
