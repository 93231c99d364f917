"""Our searcher on the ruler: one position, one fresh search, as the agent plays it.

The host runs the agent in a new process a move, so nothing (table, killers, history) carries from one
move to the next, and the agent takes the first of tied moves. ``FreshSearch`` plays so: a move depends
on the position alone, never on what else a worker searched nor on the order, at the params' CPU budget
and cap counted in nodes (``engine.players.shipped.node_plan``), or where ``plain`` to their depth with
no limit. No book and no solver: the evaluation decides. (Before 2026-11-27 evening ties went at
random, seeded by the text: on the 330 held-out won positions of ``experiments/regret-20261127`` the
shipped weights' move differed in 29 and kept the win in one position fewer.)
"""

from engine.constants import Move
from engine.params import Params
from engine.players.base import Player
from engine.players.searcher import SearcherName, searcher_for
from engine.players.shipped import NODES_PER_SECOND, node_plan
from engine.position import Position


def chosen_move(
    params: Params,
    position: Position,
    searcher: SearcherName = SearcherName.NATIVE,
    nodes_per_second: int = NODES_PER_SECOND,
    plain: bool = False,
) -> Move:
    """The move a fresh search of ``params`` plays in ``position`` (``searcher``: "native" or "python",
    the same moves): at the params' node budget and cap, or where ``plain`` to their depth."""
    fresh = searcher_for(searcher)(params.evaluator(), rng=None)
    if plain:
        found = fresh.iterative(position, params.depth)
        assert found is not None  # without limits every depth completes
        return found.move
    budget, cap = node_plan(params, nodes_per_second)
    return fresh.iterative_nodes(position, params.depth, budget, cap).move


class FreshSearch(Player):
    """``chosen_move`` as a player: picklable, so that a pool's worker makes it (``FreshSearch(params)``
    is itself the ``make`` of ``engine.ruler.measure``: calling it gives the player)."""

    def __init__(
        self,
        params: Params,
        searcher: SearcherName = SearcherName.NATIVE,
        plain: bool = False,
        nodes_per_second: int = NODES_PER_SECOND,
    ) -> None:
        self.params, self.searcher, self.plain, self.nodes_per_second = params, searcher, plain, nodes_per_second
        self.spec = "our searcher" + (" to its depth" if plain else " at its node budget")

    def __call__(self) -> "FreshSearch":
        return self

    def move(self, position: Position) -> Move:
        return chosen_move(self.params, position, self.searcher, self.nodes_per_second, self.plain)
