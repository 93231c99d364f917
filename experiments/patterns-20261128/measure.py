"""Measures of the evaluation alone (issue 59, 2026-11-28): exploitability from the openings, the atlas of
the positions it misjudges, and which windows a pattern class should read next.

    PYTHONPATH=. python3 experiments/patterns-20261128/measure.py openings --depth 4 params.json fitted.json
    PYTHONPATH=. python3 experiments/patterns-20261128/measure.py atlas fitted.json --depth 4 > atlas.md
    PYTHONPATH=. python3 experiments/patterns-20261128/measure.py windows 2x2 2x2+3x3 --ridge 1e-4

``openings``: each params file plays as ``native:PARAMS@DEPTH`` (its weights searched to a fixed depth
on the compiled searcher: no book, no solver) against the exact adversary of ``evolve exploit``, first
as Black from the empty board (Black wins it), then from each 2-ply opening that leaves the mover won
(``evolve.solved.exploit.won_openings``: 273, symmetric images apart); prints whether it keeps the empty
board and how many of the won openings it keeps.

``atlas``: the tuner benchmark's held-out won positions whose move, searched to a fixed depth with no
book and no solver, gives the win away: the kept share by ply, the 2x2 shapes most over-represented in
the misjudged positions against the kept ones (per position, the mover's view), and each misjudged
position (ply, colour, board, the move played, the winning moves), as Markdown.

``windows``: a prototype outside the engine (``engine/patterns.py`` has the 2x2 windows only). For each
window set it builds, from the benchmark's training split, every won position and every position a move
leads to, valued by the solver (the ``values`` fitness's data); one weight a (class, content) of each
window read under each of the 8 symmetries (contents a symmetry maps onto each other get equal counts,
so the fit weighs them alike); fits a logistic guess of the mover's win by L-BFGS with an L2 penalty on
the shape weights; and counts the held-out won positions whose move, searched to depth 4 by the Python
searcher with that evaluation, keeps the win. ``--liberties``: each point of a window says empty, the
mover's stone in atari or not, the opponent's in atari or not (5 states, not 3); ``--rank L``: the loss
adds L times the cross-entropy of each training position's winning moves under a softmax of its moves'
values (the search's question), beside the log loss of each position's value.

    PYTHONPATH=. python3 experiments/patterns-20261128/measure.py windows 2x2 --liberties
    PYTHONPATH=. python3 experiments/patterns-20261128/measure.py windows 2x2 2x2+3x3 --rank 1
"""

import argparse
import multiprocessing
from collections import Counter

import numpy
from scipy.optimize import minimize
from scipy.sparse import csr_matrix, hstack

from engine.bitboard import groups as stone_groups
from engine.bitboard import neighbours
from engine.coords import move_to_text
from engine.features import feature_values
from engine.native.solver import describe_position, position_from_text
from engine.native.store import default_store_path
from engine.native.stored_solver import StoredSolver
from engine.params import load_params
from engine.patterns import PATTERNS, pattern_counts
from engine.players.specs import make_player
from engine.position import Position
from engine.search import Searcher
from engine.symmetry import SYMMETRIES
from evolve.solved.exploit import keeps, won_openings
from evolve.solved.regret import chosen_move
from evolve.solved.tuners import load_problem

# --- windows -------------------------------------------------------------------------------------

FILES = (
    "experiments/regret-20261127/fresh-3-8.json.gz",
    "experiments/regret-20261127/recorded-all-2-7.json.gz",
    "experiments/regret-20261125/positions-4-11.json.gz",
)
# Each class's window in the top-left of the board: corner, edge, centre.
CLASSES = {
    "2x2": ((0, 1, 5, 6), (1, 2, 6, 7), (6, 7, 11, 12)),
    "3x3": ((0, 1, 2, 5, 6, 7, 10, 11, 12), (1, 2, 3, 6, 7, 8, 11, 12, 13), (6, 7, 8, 11, 12, 13, 16, 17, 18)),
    "5x1": ((0, 1, 2, 3, 4), (5, 6, 7, 8, 9), (10, 11, 12, 13, 14)),  # the edge line, the second, the middle
}
SCALE = 10.0  # evaluation units a logit


def windows_of(kinds):
    """[(class id, the window's points under one symmetry)] of the window kinds named."""
    return [
        ((kind, number), tuple(image[p] for p in window))
        for kind in kinds
        for number, window in enumerate(CLASSES[kind])
        for image in SYMMETRIES
    ]


def _atari(stones, empty):
    """The stones of ``stones`` in groups with one liberty."""
    mask = 0
    for group in stone_groups(stones):
        liberties = neighbours(group) & empty
        if liberties & (liberties - 1) == 0:
            mask |= group
    return mask


def shapes(position, windows, liberties=False):
    """The (class, content) of each window read under each symmetry, the mover's view; with ``liberties``
    a point says empty, the mover's in atari, the mover's, the opponent's in atari or the opponent's."""
    own, opp = position.own, position.opp
    if liberties:
        empty = ~(own | opp) & ((1 << 25) - 1)
        own_atari, opp_atari = _atari(own, empty), _atari(opp, empty)
    found = []
    for name, points in windows:
        code = 0
        for point in points:
            if not liberties:
                code = 3 * code + (own >> point & 1) + 2 * (opp >> point & 1)
            elif own >> point & 1:
                code = 5 * code + (1 if own_atari >> point & 1 else 2)
            elif opp >> point & 1:
                code = 5 * code + (3 if opp_atari >> point & 1 else 4)
            else:
                code = 5 * code
        found.append((name, code))
    return found


def dataset(problem, windows, liberties=False):
    """Rows (features), keys (shapes), wins (the mover's) of every training position and every position
    its moves lead to; and groups: for each training position with winning and losing moves, its children's
    rows and whether each move wins."""
    rows, keys, wins, groups = [], [], [], []
    for text, winning, _ in problem.train:
        position = position_from_text(text)
        rows.append(feature_values(position, 0))
        keys.append(shapes(position, windows, liberties))
        wins.append(1.0)
        kids, good = [], []
        for move in position.all_moves():
            child = position.play_point(move)
            if child.is_over:
                continue
            kids.append(len(rows))
            good.append(1.0 if move in winning else 0.0)
            rows.append(feature_values(child, 0))
            keys.append(shapes(child, windows, liberties))
            wins.append(0.0 if move in winning else 1.0)
        if any(good) and not all(good):
            groups.append((kids, good))
    return numpy.array(rows), keys, numpy.array(wins), groups


def fit(rows, keys, wins, ridge, groups=(), rank=0.0):
    """The features' weights and {shape: weight} minimising the log loss of the mover's win, an L2 penalty
    on the shapes, and ``rank`` times the mean cross-entropy of each group's winning moves under a softmax
    of the moves' values (minus their children's logits)."""
    index = {}
    for found in keys:
        for key in found:
            index.setdefault(key, len(index))
    cells = [(r, index[key]) for r, found in enumerate(keys) for key in found]
    counts = csr_matrix(([1.0] * len(cells), tuple(zip(*cells))), shape=(len(wins), len(index)))
    scale = rows.std(axis=0) + 1e-9
    matrix = hstack([csr_matrix(rows / scale), counts]).tocsr()
    base = rows.shape[1]
    children = numpy.array([k for kids, _ in groups for k in kids], dtype=int)
    winning = numpy.array([g for _, good in groups for g in good])
    starts = numpy.cumsum([0] + [len(kids) for kids, _ in groups][:-1])
    segment = numpy.repeat(numpy.arange(len(groups)), [len(kids) for kids, _ in groups])

    def loss(w):
        z = matrix @ w
        value = numpy.mean(numpy.logaddexp(0, z) - wins * z) + ridge * w[base:] @ w[base:]
        dz = (1 / (1 + numpy.exp(-z)) - wins) / len(wins)
        if rank and groups:
            moves = -z[children]
            top = numpy.maximum.reduceat(moves, starts)
            e = numpy.exp(moves - top[segment])
            every, good = numpy.add.reduceat(e, starts), numpy.add.reduceat(e * winning, starts)
            value += rank * numpy.mean(numpy.log(every) - numpy.log(good))
            numpy.add.at(dz, children, -rank * (e / every[segment] - winning * e / good[segment]) / len(groups))
        gradient = matrix.T @ dz
        gradient[base:] += 2 * ridge * w[base:]
        return value, gradient

    w = minimize(loss, numpy.zeros(matrix.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 3000}).x
    return w[:base] / scale, {key: w[base + k] for key, k in index.items()}


_MODEL = {}


def _kept(entry):
    text, winning, _ = entry
    features, weights, windows = _MODEL["features"], _MODEL["weights"], _MODEL["windows"]

    def evaluate(position, captured=0):
        value = float(numpy.dot(features, feature_values(position, 0)))
        value += sum(weights.get(key, 0.0) for key in shapes(position, windows, _MODEL["liberties"]))
        return SCALE * value + SCALE * 0.5 * captured

    return Searcher(evaluate, rng=None).iterative(position_from_text(text), 4).move in winning


def _start(model):
    _MODEL.update(model)


def windows(args):
    problem = load_problem(FILES, 4)
    for chosen in args.sets:
        windows = windows_of(chosen.split("+"))
        rows, keys, wins, groups = dataset(problem, windows, args.liberties)
        features, weights = fit(rows, keys, wins, args.ridge, groups, args.rank)
        model = {"features": features, "weights": weights, "windows": windows, "liberties": args.liberties}
        with multiprocessing.Pool(2, _start, (model,)) as pool:
            kept = sum(pool.map(_kept, problem.held_out, chunksize=8))
        print(
            f"{chosen}{' (liberties)' if args.liberties else ''}: {len(weights)} shapes seen in {len(wins)} positions, "
            f"ridge {args.ridge:g}, rank {args.rank:g}: kept {kept} of "
            f"{len(problem.held_out)} held-out won positions at depth 4 ({kept / len(problem.held_out):.1%})"
        )


# --- openings ------------------------------------------------------------------------------------


def openings(args):
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


# --- atlas ---------------------------------------------------------------------------------------


def atlas(args):
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("openings", help="exploitability from the empty board and the won 2-ply openings")
    one.add_argument("params", nargs="+")
    one.add_argument("--depth", type=int, default=4)
    one.set_defaults(run=openings)
    two = commands.add_parser("atlas", help="the held-out won positions the evaluation gives away")
    two.add_argument("params")
    two.add_argument("--depth", type=int, default=4)
    two.set_defaults(run=atlas)
    three = commands.add_parser("windows", help="window sets fitted and searched outside the engine")
    three.add_argument("sets", nargs="+", help="window sets: 2x2, 3x3, 5x1 (whole lines) or sums of them, 2x2+3x3")
    three.add_argument("--ridge", type=float, default=1e-4)
    three.add_argument("--liberties", action="store_true", help="points in atari apart: 5 states a point")
    three.add_argument("--rank", type=float, default=0.0, help="the weight of a move-ranking term in the loss")
    three.set_defaults(run=windows)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
