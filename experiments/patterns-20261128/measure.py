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

``--leaves R`` (``windows`` and ``net``): after the fit, R rounds each adding ``--per`` of the leaves the
depth-4 search evaluates from each training position (drawn at random), valued by the compiled solver
(through the store), and fitting again on all: the values where the search reads the evaluation, not
only one move from the training positions. The fit then weighs the search's captures itself (as the
engine's ``captures`` feature); without leaves, half a logit a stone. Each line also counts the first
441 training positions kept: how far the fit learns its own data.

``net``: a nonlinear evaluation, outside the engine: the 50 board inputs (the mover's stones, the
opponent's) and the 13 features into one layer of ``--hidden`` tanh units, beside a linear term, fitted
by L-BFGS to the same values under each of the board's 8 symmetries.

    PYTHONPATH=. python3 experiments/patterns-20261128/measure.py windows 2x2 --leaves 2
    PYTHONPATH=. python3 experiments/patterns-20261128/measure.py net --hidden 64 --leaves 1
"""

import argparse
import multiprocessing
import random
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
from engine.ruler.fresh_search import chosen_move
from engine.search import Searcher
from engine.symmetry import SYMMETRIES
from evolve.solved.exploit import wins_against_adversary, won_openings
from evolve.solved.tuners import load_problem

# --- windows -------------------------------------------------------------------------------------


def _entries(positions):
    """(text, winning moves, ply) of each SolvedPosition, as this script was written to read them."""
    return [(p.text, p.winning, p.ply) for p in positions]


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
    for text, winning, _ in _entries(problem.train):
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


_MODEL = {}  # a worker's model: {"kind": "windows" or "net", ...} (``_evaluate``)


def _evaluate(position, captured=0):
    """The value of ``position`` for its mover under the worker's model, in evaluation units. A model
    fitted on leaves (``fitted_captures``) weighs the search's captures by its own weight; another, by
    half a logit a stone."""
    model = _MODEL
    values = feature_values(position, captured if model["fitted_captures"] else 0)
    if model["kind"] == "windows":
        value = float(numpy.dot(model["features"], values))
        value += sum(model["weights"].get(key, 0.0) for key in shapes(position, model["windows"], model["liberties"]))
    else:
        inputs = numpy.concatenate([planes(position), (numpy.array(values) - model["mean"]) / model["scale"]])
        hidden = numpy.tanh(inputs @ model["first"] + model["bias"])
        value = float(hidden @ model["second"] + model["offset"] + inputs @ model["linear"])
    if not model["fitted_captures"]:
        value += 0.5 * captured
    return SCALE * value


def _kept(entry):
    text, winning, _ = entry
    return Searcher(_evaluate, rng=None).iterative(position_from_text(text), 4).move in winning


def _leaves(job):
    """Up to ``per`` of the leaves the depth-4 search evaluates from a training position (as text and the
    mover's net captures there), drawn with ``seed``."""
    (text, _, _), per, seed = job
    seen = []

    def recording(position, captured=0):
        seen.append((position, captured))
        return _evaluate(position, captured)

    Searcher(recording, rng=None).iterative(position_from_text(text), 4)
    drawn = random.Random(seed).sample(seen, min(per, len(seen)))
    return [(describe_position(position), captured) for position, captured in drawn if not position.is_over]


def _start(model):
    _MODEL.clear()
    _MODEL.update(model)


def _rounds(args, problem, label, fit_model, add):
    """Fit, count the held-out won positions kept at depth 4 (and as many training ones), and, for each
    of ``--leaves`` rounds, add ``--per`` leaves of each training position's search, valued by the solver,
    and fit again. ``fit_model(fitted_captures)`` gives the model; ``add(position, captured, win)`` adds a
    value to the data."""
    fitted_captures = False
    with StoredSolver(default_store_path(), 22) as solver:
        for round_ in range(args.leaves + 1):
            model = fit_model(fitted_captures)
            with multiprocessing.Pool(2, _start, (model,)) as pool:
                kept = sum(pool.map(_kept, _entries(problem.held_out), chunksize=8))
                trained = sum(pool.map(_kept, _entries(problem.train[: len(problem.held_out)]), chunksize=8))
                print(
                    f"{label}, leaf round {round_}: kept {kept} of {len(problem.held_out)} held-out won positions at "
                    f"depth 4 ({kept / len(problem.held_out):.1%}); {trained} of the first "
                    f"{len(problem.held_out)} training ones",
                    flush=True,
                )
                if round_ == args.leaves:
                    return
                jobs = [
                    (entry, args.per, 1000 * round_ + number) for number, entry in enumerate(_entries(problem.train))
                ]
                found = pool.map(_leaves, jobs, chunksize=8)
            for text, captured in (leaf for batch in found for leaf in batch):
                position = position_from_text(text)
                add(position, captured, 1.0 if solver.wins(position) else 0.0)
            fitted_captures = True


def windows(args):
    problem = load_problem(FILES, 4)
    for chosen in args.sets:
        _window_set(args, problem, chosen)


def _window_set(args, problem, chosen):
    """``windows`` for one window set, ``chosen`` (``2x2+3x3``, say)."""
    windows = windows_of(chosen.split("+"))
    rows, keys, wins, groups = dataset(problem, windows, args.liberties)
    rows, wins = list(rows), list(wins)

    def fit_model(fitted_captures):
        features, weights = fit(numpy.array(rows), keys, numpy.array(wins), args.ridge, groups, args.rank)
        return {
            "kind": "windows",
            "features": features,
            "weights": weights,
            "windows": windows,
            "liberties": args.liberties,
            "fitted_captures": fitted_captures,
        }

    def add(position, captured, win):
        rows.append(feature_values(position, captured))
        keys.append(shapes(position, windows, args.liberties))
        wins.append(win)

    label = f"{chosen}{' (liberties)' if args.liberties else ''}, ridge {args.ridge:g}, rank {args.rank:g}"
    _rounds(args, problem, label, fit_model, add)


# --- net -----------------------------------------------------------------------------------------


def planes(position):
    """The mover's stones, then the opponent's, a 0/1 input a point."""
    own, opp = position.own, position.opp
    return numpy.array([own >> p & 1 for p in range(25)] + [opp >> p & 1 for p in range(25)], dtype=float)


def fit_net(boards, values, wins, hidden, ridge, iterations, seed):
    """An MLP's weights (one tanh layer of ``hidden`` units beside a linear term) minimising the log loss of
    the mover's win plus an L2 penalty on the layer's weights, by L-BFGS, on every row under each of the
    board's 8 symmetries."""
    boards, values = numpy.array(boards), numpy.array(values, dtype=float)
    images = []
    for image in SYMMETRIES:
        order = numpy.empty(25, dtype=int)
        order[list(image)] = numpy.arange(25)  # the point each image point reads
        images.append(numpy.hstack([boards[:, order], boards[:, 25 + order]]))
    mean, scale = values.mean(axis=0), values.std(axis=0) + 1e-9
    inputs = numpy.hstack([numpy.vstack(images), numpy.tile((values - mean) / scale, (len(SYMMETRIES), 1))])
    targets = numpy.tile(numpy.array(wins), len(SYMMETRIES))
    count, width = inputs.shape
    cut = numpy.cumsum([width * hidden, hidden, hidden, 1])

    def unpack(w):
        first, bias, second, offset, linear = numpy.split(w, cut)
        return first.reshape(width, hidden), bias, second, offset[0], linear

    def loss(w):
        first, bias, second, offset, linear = unpack(w)
        layer = numpy.tanh(inputs @ first + bias)
        z = layer @ second + offset + inputs @ linear
        value = numpy.mean(numpy.logaddexp(0, z) - targets * z) + ridge * (numpy.sum(first**2) + second @ second)
        dz = (1 / (1 + numpy.exp(-z)) - targets) / count
        dlayer = numpy.outer(dz, second) * (1 - layer * layer)
        gradient = [inputs.T @ dlayer + 2 * ridge * first, dlayer.sum(0), layer.T @ dz + 2 * ridge * second]
        return value, numpy.concatenate([part.ravel() for part in gradient] + [[dz.sum()], inputs.T @ dz])

    rng = numpy.random.default_rng(seed)
    start = numpy.concatenate(
        [rng.normal(0, width**-0.5, width * hidden), numpy.zeros(hidden), rng.normal(0, hidden**-0.5, hidden)]
        + [numpy.zeros(1 + width)]
    )
    w = minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": iterations}).x
    first, bias, second, offset, linear = unpack(w)
    return {"first": first, "bias": bias, "second": second, "offset": offset, "linear": linear}, mean, scale


def net(args):
    problem = load_problem(FILES, 4)
    boards, values, wins = [], [], []

    def add(position, captured, win):
        boards.append(planes(position))
        values.append(feature_values(position, captured))
        wins.append(win)

    for text, winning, _ in _entries(problem.train):
        position = position_from_text(text)
        add(position, 0, 1.0)
        for move in position.all_moves():
            child = position.play_point(move)
            if not child.is_over:
                add(child, 0, 0.0 if move in winning else 1.0)

    def fit_model(fitted_captures):
        weights, mean, scale = fit_net(boards, values, wins, args.hidden, args.ridge, args.iterations, args.seed)
        return {"kind": "net", "mean": mean, "scale": scale, "fitted_captures": fitted_captures, **weights}

    label = f"net of {args.hidden} units, ridge {args.ridge:g}, {args.iterations} iterations"
    _rounds(args, problem, label, fit_model, add)


# --- openings ------------------------------------------------------------------------------------


def openings(args):
    with StoredSolver(default_store_path(), 22) as solver:
        openings = won_openings(solver)
        for path in args.params:
            spec = f"native:{path}@{args.depth}"
            empty = wins_against_adversary(make_player(spec), describe_position(Position.initial()), solver)
            kept = [wins_against_adversary(make_player(spec), describe_position(p), solver) for p in openings]
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
    for text, wins, ply in _entries(problem.held_out):
        move = chosen_move(params, position_from_text(text), plain=True)
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
    four = commands.add_parser("net", help="a one-layer network on the board and the features, outside the engine")
    four.add_argument("--hidden", type=int, default=64, help="the layer's units")
    four.add_argument("--ridge", type=float, default=1e-4)
    four.add_argument("--iterations", type=int, default=1000, help="L-BFGS iterations a fit")
    four.add_argument("--seed", type=int, default=1, help="the layer's starting weights")
    four.set_defaults(run=net)
    for sub in (three, four):
        sub.add_argument("--leaves", type=int, default=0, help="rounds of the search's leaves added (default 0)")
        sub.add_argument("--per", type=int, default=10, help="leaves a training position a round (default 10)")
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
