"""What the board shows about a position beyond its stones: every legal move's value, the
shipped agent's move, and an opponent's reply.

The values come from the store of solved positions (``engine.native.store``; the package's prefill
holds every position of the first plies) and the solvers: the compiled solver says which moves
win (``engine.native.solver``), then the Python solver their exact stone margins
(``engine.solver.Solver.move_values``), which it settles from about ply 12 on. Where the
compiled solver has not answered within ``seconds`` (a second or two), the page gets the agent's
evaluation search, marked as such and as pending, while the solver goes on in the background;
the page asks again until the exact wins and losses come (or the solver's ``patience`` runs
out, or another position is asked for). Both solvers' answers (the wins and losses, the margins)
are kept in the store. The functions named ``*_job`` run in worker processes (``workers``); the
compiled solver is a process of its own, killed past its patience or when a newer position is
asked for (``engine.ui.web.native_values``).
"""

import time
from typing import Dict, List, NamedTuple, Optional, Tuple, TypedDict

from engine.constants import Move
from engine.native.compiler import NativeError
from engine.sandbox.limits import Limits
from engine.ui.web.board_game import BadRequest, position_after
from engine.ui.web.native_values import SOLVE_PATIENCE, NativeValues
from engine.ui.web.worker_jobs import (
    REFUTATION_DEPTH,
    AgentChoice,
    PlayerTrouble,
    Refutation,
    Reply,
    Searched,
    agent_job,
    margins_job,
    refutations_job,
    reply_job,
    search_job,
)
from engine.ui.web.workers import WorkerLost, Workers, WorkerTimeout


class MoveValue(NamedTuple):
    """One legal move's value for the mover: ``wins`` (True, False, or None when not
    solved), ``margin`` the exact final stone margin with perfect play after it (komi included;
    None when not settled in time), ``value`` the agent's search value where nothing is exact."""

    move: Move
    wins: Optional[bool]
    margin: Optional[float]
    value: Optional[float]


class BoardValues(NamedTuple):
    """Every legal move's MoveValue (PASS included); ``exact`` whether they come from the
    solvers, ``depth`` the search depth where they do not, ``seconds`` the time taken, ``note``
    what the page should say about them, ``more`` whether asking for the margins may add them,
    ``pending`` whether the compiled solver is still at work on the position (ask again: the
    exact wins and losses replace the search values when it answers)."""

    exact: bool
    moves: List[MoveValue]
    depth: Optional[int]
    seconds: float
    note: str
    more: bool
    pending: bool = False


class RefutationRow(TypedDict):
    """A move of a lost position: the opponent's replies that keep its win (``keeping``) of all its
    ``replies``, and the shallowest ``depth`` at which the agent's search finds one (``worker_jobs.Refutation``)."""

    move: Move
    keeping: int
    replies: int
    depth: Optional[int]


class Refutations(TypedDict):
    """What ``Analyst.refutations`` answers (its docstring says what each key holds)."""

    lost: Optional[bool]
    moves: List[RefutationRow]
    least_bad: Optional[Move]
    complete: bool
    deepest: int  # REFUTATION_DEPTH: the deepest depth a row's ``depth`` was looked for at


# The ply from which the board asks the Python solver for the margins by itself: from there it settles a
# position's in seconds (ply 13 about 4 CPU s, ply 12 about 10); before it, minutes or more, and each
# futile try would hold a worker the next position needs. "Keep solving" asks for them at any ply.
AUTO_MARGINS_PLY = 12
KEEP_SOLVING_SECONDS = 300.0  # CPU seconds the page's "keep solving" gives the margins of one position
# Wall seconds the compiled solver has for the replies to every move of a lost position: a worker of the
# board's two is busy meanwhile, so an opponent's reply may wait that long.
REFUTATION_SECONDS = 8.0


def _exact_wins(wins: Dict[Move, bool], start: float, note: str, more: bool = False) -> BoardValues:
    """BoardValues of the exact wins and losses alone, with the ``note`` that says why; ``more``: the page
    asks for the margins next."""
    return BoardValues(
        True, [MoveValue(move, won, None, None) for move, won in wins.items()], None, time.time() - start, note, more
    )


def _hardest_first(row: RefutationRow) -> Tuple[float, int, int]:
    """The order of a lost position's moves: the smallest share of replies that keep the opponent's win,
    then the fewest such replies, then the deepest search to find one (none within REFUTATION_DEPTH:
    deepest)."""
    share = row["keeping"] / row["replies"] if row["replies"] else 1.0
    return share, row["keeping"], -(row["depth"] or REFUTATION_DEPTH + 1)


class Analyst:
    """The board's analysis for the web app: values, the agent's move, an opponent's reply."""

    def __init__(
        self,
        workers: Workers,
        seconds: float = 2.0,
        reply_seconds: float = 60.0,
        limits: Optional[Limits] = None,
        store: Optional[str] = None,
        patience: float = SOLVE_PATIENCE,
        replies: Optional[Workers] = None,
    ):
        self.workers = workers  # the analysis: values, searches, the agent's move
        # the opponents' moves, apart (a game never waits behind the analysis); None: the same workers
        self.replies = workers if replies is None else replies
        self.limits = limits  # how program players' moves run (None: the sandbox's defaults)
        self.seconds = seconds
        self.reply_seconds = reply_seconds
        self.store = store  # the store of solved positions (a path; None: the package's prefill alone)
        self.native = NativeValues(seconds, store=store, patience=patience)
        # (moves, (depth, values)): the last search, shown again while the solver works.
        self.searched: Optional[Tuple[List[Move], Searched]] = None

    def search(self, moves: List[Move]) -> Searched:
        """(depth, {move: search value}) after ``moves``: the agent's search, once per position in a row."""
        if self.searched is None or self.searched[0] != moves:
            found = self.workers.call(
                "the agent's search", search_job, (moves, self.seconds), self.seconds + 30, topic=tuple(moves)
            )
            self.searched = (list(moves), found)
        return self.searched[1]

    def values(self, moves: List[Move], margins: bool = True, seconds: Optional[float] = None) -> BoardValues:
        """The BoardValues of every legal move after ``moves``; without ``margins``, the compiled solver's
        wins and losses alone where it has them (quick: the page asks for the margins next). ``seconds``:
        the margins' CPU time this once, more than the board's (the page's "keep solving"), at most
        KEEP_SOLVING_SECONDS."""
        budget = self.seconds if seconds is None else min(max(seconds, self.seconds), KEEP_SOLVING_SECONDS)
        position = position_after(moves)
        if position.is_over:
            return BoardValues(True, [], None, 0.0, "the game is over", False)
        start = time.time()
        pending = False
        try:
            wins, pending = self.native.results(position)
            why = "the exact solver is at work" if pending else f"not solved within {self.native.patience:g} s"
        except NativeError as error:
            wins, why = None, f"no compiled solver ({error})"
        if wins is not None and not margins:
            return _exact_wins(wins, start, "exact win or loss; the margins are being solved", more=True)
        if wins is not None or why.startswith("no compiled"):
            found = self.native.margins(position)
            if found is None and seconds is None and wins is not None and position.moves_played < AUTO_MARGINS_PLY:
                note = f"exact win or loss; the margins before ply {AUTO_MARGINS_PLY} take the Python solver minutes"
                return _exact_wins(wins, start, note + " or more: keep solving asks for them")
            if found is None:
                found = self.workers.call(
                    "the exact solver", margins_job, (moves, budget), budget + 30, topic=tuple(moves)
                )
                if found is not None:
                    self.native.keep_margins(position, found)
            if found is not None:
                return BoardValues(
                    True,
                    [MoveValue(move, margin > 0, margin, None) for move, margin in found.items()],
                    None,
                    time.time() - start,
                    "exact: the final stone margin of each move",
                    False,
                )
        if wins is not None:
            note = f"exact win or loss; the margins were not settled within {budget:g} s of CPU"
            return _exact_wins(wins, start, note)
        depth, searched = self.search(moves)
        return BoardValues(
            False,
            [MoveValue(move, None, None, value) for move, value in searched.items()],
            depth,
            time.time() - start,
            f"{why}: the agent's evaluation search at depth {depth}, not exact" + (" (solving…)" if pending else ""),
            False,
            pending,
        )

    def refutations(self, moves: List[Move]) -> Refutations:
        """How hard each move of a lost position after ``moves`` is to answer: {"lost": whether every move
        loses (None: not known yet), "moves": [{move, keeping, replies, depth}] (the opponent's replies that
        keep its win, of all its replies, and the shallowest depth at which the agent's search finds one;
        the smallest share first, then the deepest), "least_bad": the move whose refutation is hardest to
        find, "complete": whether every move was reached within REFUTATION_SECONDS,
        "deepest": REFUTATION_DEPTH}."""
        position = position_after(moves)
        if position.is_over:
            return {"lost": None, "moves": [], "least_bad": None, "complete": True, "deepest": REFUTATION_DEPTH}
        try:
            wins, _ = self.native.results(position)
        except NativeError:
            wins = None
        if wins is None or any(wins.values()):
            return {
                "lost": None if wins is None else False,
                "moves": [],
                "least_bad": None,
                "complete": True,
                "deepest": REFUTATION_DEPTH,
            }
        try:
            answers: Dict[Move, Refutation] = self.workers.call(
                "the exact solver",
                refutations_job,
                (moves, REFUTATION_SECONDS, self.store),
                REFUTATION_SECONDS + 60,
                topic=tuple(moves),
            )
        except (WorkerTimeout, WorkerLost, NativeError):
            answers = {}
        rows: List[RefutationRow] = sorted(
            (
                {"move": move, "keeping": found.keeping, "replies": found.replies, "depth": found.depth}
                for move, found in answers.items()
            ),
            key=_hardest_first,
        )
        return {
            "lost": True,
            "moves": rows,
            "least_bad": rows[0]["move"] if rows else None,
            "complete": len(rows) == len(wins),
            "deepest": REFUTATION_DEPTH,
        }

    def agent(self, moves: List[Move]) -> AgentChoice:
        return self.workers.call("the shipped agent", agent_job, (moves,), 60, topic=tuple(moves))

    def reply(self, spec: object, moves: List[Move], seed: int) -> Reply:
        if not isinstance(spec, str) or not spec.strip():
            raise BadRequest("opponent must be a player spec such as champion, random or gnugo")
        try:
            return self.replies.call(
                f"player {spec!r}", reply_job, (spec, moves, seed, self.limits), self.reply_seconds
            )
        except (WorkerTimeout, WorkerLost) as error:  # a player that hangs or takes its process down
            raise PlayerTrouble(str(error))

    def close(self) -> None:
        self.native.close()
