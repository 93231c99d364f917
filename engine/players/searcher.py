"""Our agent as a player: the search with a set of Params, timed as the course plays or at a fixed depth."""

import enum
from typing import Optional, Type

from engine.agent import choose_move
from engine.book import Book
from engine.constants import MAX_MOVES, Colour, Move
from engine.errors import InvalidInput
from engine.native.search import searcher_class
from engine.params import Params
from engine.players.base import Player
from engine.position import Position
from engine.search import Searcher


class SearcherName(str, enum.Enum):
    """Which of our searchers an untimed agent searches with: the same moves either way. Its string is what
    the command line, a config and the records hold."""

    NATIVE = "native"  # the compiled twin (engine.native.search)
    PYTHON = "python"  # engine.search.Searcher

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


SEARCHERS = tuple(name.value for name in SearcherName)


def searcher_for(searcher: SearcherName) -> Type[Searcher]:
    """The searcher class of a searcher's name: ``python`` is ``engine.search.Searcher``, ``native`` its
    compiled twin (the Python one, with a warning, where none can be built)."""
    if searcher not in SEARCHERS:
        raise InvalidInput("unknown searcher {!r} (known: {})".format(searcher, ", ".join(SEARCHERS)))
    return Searcher if searcher == SearcherName.PYTHON else searcher_class()


class AgentPlayer(Player):
    """Our agent with Params. Timed, it plays as ``my_player3.py`` does (``engine.agent.choose_move``:
    the opening book's move if it is given one, the exact solver late, the CPU budget, the first of
    tied moves), at ``depth`` at most if given. Untimed, it searches
    to a fixed depth, so that a move depends only on the position and the seed, never on the
    machine's speed (as evolution needs), with the searcher ``searcher`` names.
    """

    def __init__(
        self,
        params: Params,
        depth: Optional[int] = None,
        spec: str = "agent",
        timed: bool = True,
        book: Optional[Book] = None,
        searcher: SearcherName = SearcherName.PYTHON,
    ):
        # A depth given means a plain search to that depth: no exact solving late in the game.
        self.params = params if depth is None else params.with_settings(depth=depth, solve_from=MAX_MOVES)
        self.book = book  # the opening book, played first when timed (as my_player3.py does)
        self.depth = self.params.depth
        self.timed = timed
        self.evaluate = params.evaluator()
        self.spec = spec
        self.searcher_type = Searcher if timed else searcher_for(searcher)

    def new_game(self, colour: Colour, seed: int) -> None:
        Player.new_game(self, colour, seed)
        self.searcher = self.searcher_type(self.evaluate, rng=self.rng)

    def move(self, position: Position) -> Move:
        if self.timed:
            return choose_move(position, self.params, None, self.book)  # ties as the agent breaks them
        found = self.searcher.iterative(position, self.depth)
        assert found is not None  # with no limit of time or nodes, every depth completes
        return found.move
