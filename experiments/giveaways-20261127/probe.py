"""Which one-weight changes turn the give-aways of seed 4971 into a winning move (python3 probe.py > probe.txt).

Each give-away position (the moves of its game to the first losing move, SGF points) is searched as
the shipped agent plays, in nodes (engine.ruler.fresh_search.chosen_move), with params.json as shipped and with
one weight changed; WIN marks the winning move the solver found, "played" the move given away,
anything else another point (i,j), not solved here."""

from engine.params import load_params
from engine.position import Position
from engine.ruler.fresh_search import chosen_move


def point(sgf):
    col, row = ord(sgf[0]) - 97, ord(sgf[1]) - 97
    return row * 5 + col


games = {
    "0045": (["be", "ac", "cc"], "bc", "cb"),
    "0225": (["eb", "dd", "cc"], "dc", "bc"),
    "0392": (["dc", "db"], "cb", "cc"),
    "0247": (["da", "be", "dc", "cc", "cb"], "bb", "bc"),
}
base = load_params("params.json")
variants = [("as shipped", {})]
for name, values in (
    ("euler", [0.0, 1.0]),
    ("liberties", [1.0, 2.0, 3.0]),
    ("two_liberty", [0.0, 2.0]),
    ("cross", [2.0, 5.0]),
    ("edge", [0.0, -4.0]),
    ("margin_late", [0.0, 4.0]),
):
    for v in values:
        variants.append((f"{name} {v:g}", {name: v}))
for game, (moves, played, winning) in games.items():
    pos = Position.initial()
    for m in moves:
        pos = pos.play_point(point(m))
    row = []
    for label, change in variants:
        params = base._replace(weights=dict(base.weights, **change))
        move = chosen_move(params, pos)
        mark = "WIN" if move == point(winning) else ("played" if move == point(played) else f"{move // 5},{move % 5}")
        row.append(f"{label}: {mark}")
    print(game, "played", played, "wins", winning, "|", "; ".join(row), flush=True)
