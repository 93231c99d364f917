"""One game lost from a won position, examined with the compiled solver: the first move of the loser
that gave the win away, the winning move there that its static evaluation rates highest, what the
agent decides there when asked again, and the evaluation after both moves. The give-away study
(``engine.study.giveaways``) examines every such game of its match; the tests check the first
give-away against games built with the Python solver.
"""

import time
from typing import Iterable, List, NamedTuple, Optional, Protocol, Sequence

from engine.agent import decide_move
from engine.bitboard import count
from engine.constants import Colour, Move, colour_word
from engine.coords import move_from_text, move_to_text
from engine.data import SHIPPED_PARAMS
from engine.features import Evaluator, WeightedEvaluator
from engine.params import load_params
from engine.play.sgf import sgf_name
from engine.players.base import Player
from engine.players.searcher import AgentPlayer
from engine.position import Position
from engine.study import Say
from engine.study.settle import PLIES


class LostGame(NamedTuple):
    """A game the agent lost from an opening won for it, as a worker examines it: the game's index,
    the agent's spec and colour, the moves (the course's text), how the game ended and the seed of
    the agent's tie-breaks in it."""

    index: int  # type: ignore[assignment]  # the game's index, as the records name it; shadows tuple.index
    agent: str
    colour: int
    moves: List[str]
    end: str
    seed: int


class WinSolver(Protocol):
    """What judges positions here: the compiled solver (``NativeSolver``), or ``StoredSolver`` in front of it."""

    @property
    def nodes(self) -> int:
        """The nodes it has searched so far."""
        ...

    def wins(self, position: Position) -> bool:
        """Whether the side to move wins ``position`` with perfect play."""
        ...


class GiveAway(NamedTuple):
    """Where a LostGame was given away: the agent's first move after which the other side wins
    (``ply`` None where none did: the game was lost otherwise, ``end`` says how). ``winning``:
    the winning move there that the static evaluation rates highest; ``decision_*``: the agent's
    Decision there, re-run (None for a player that is not our agent); ``evaluation_*``: the
    static evaluation after the move played and after ``winning``, for the agent; what the
    compiled solver spent on the game."""

    game: int
    record: str
    colour: str
    end: str
    ply: Optional[int] = None
    played: Optional[str] = None
    winning: Optional[str] = None
    decision_move: Optional[str] = None
    decision_how: Optional[str] = None
    decision_depth: Optional[int] = None
    decision_value: Optional[float] = None
    evaluation_played: Optional[float] = None
    evaluation_winning: Optional[float] = None
    solver_seconds: float = 0.0
    solver_nodes: int = 0


def positions_of_game(moves: Iterable[Move]) -> List[Position]:
    """The positions of a game: the one before each move of ``moves`` (points or PASS), then the last."""
    positions = [Position.initial()]
    for move in moves:
        positions.append(positions[-1].play_point(move))
    return positions


def first_giveaway(
    positions: Sequence[Position],
    moves: Sequence[Move],
    colour: Colour,
    solver: WinSolver,
    progress: Optional[Say] = None,
) -> Optional[int]:
    """The index k of the first move of ``colour`` (``moves[k]``, from ``positions[k]``) after which
    the other side wins, by ``solver``; None when there is none. ``positions[0]`` must be won for
    ``colour``: until its first such move every position is (the other side's moves cannot change
    that), so only the positions after its own moves need solving. ``progress(line)`` hears each
    answer."""
    for k, (position, move) in enumerate(zip(positions, moves)):
        if position.player != colour:
            continue
        started = time.time()
        lost = solver.wins(positions[k + 1])
        if progress:
            verdict = "gives the win away" if lost else "keeps it won"
            progress(f"ply {position.moves_played} {move_to_text(move)}: {verdict} ({time.time() - started:.0f} s)")
        if lost:
            return k
    return None


def evaluation_after(position: Position, move: Move, evaluate: Evaluator) -> float:
    """The static evaluation of the position after ``move``, for the side that plays it, as the
    search scores a move at its root."""
    child = position.play_point(move)
    captured = count(position.opp) - count(child.own)
    return -evaluate(child, -captured)


def winning_move(
    position: Position,
    solver: WinSolver,
    evaluate: Evaluator,
    losing: Sequence[Move] = (),
    progress: Optional[Say] = None,
) -> Optional[Move]:
    """The move the static evaluation rates highest among those that win (by ``solver``), the
    ``losing`` ones known already left out; None in a lost position. ``progress(line)`` hears each
    move tried."""
    every: List[Move] = position.all_moves()
    moves = [move for move in every if move not in losing]
    moves.sort(key=lambda move: -evaluation_after(position, move, evaluate))
    for move in moves:
        started = time.time()
        wins = not solver.wins(position.play_point(move))
        if progress:
            verdict = "wins" if wins else "loses too"
            progress(
                f"ply {position.moves_played} {move_to_text(move)} instead: {verdict} ({time.time() - started:.0f} s)"
            )
        if wins:
            return move
    return None


def shipped_evaluator() -> WeightedEvaluator:
    params = load_params(SHIPPED_PARAMS)
    return params.evaluator()


def examine(
    game: LostGame, solver: WinSolver, player: Player, start: int = PLIES, progress: Optional[Say] = None
) -> GiveAway:
    """The GiveAway of a LostGame whose position after ``start`` plies is won for the agent
    (``player``: the agent, for its Decision and evaluation)."""
    moves = [move_from_text(text) for text in game.moves]
    positions = positions_of_game(moves)
    started, nodes = time.time(), solver.nodes
    found = first_giveaway(positions[start:], moves[start:], game.colour, solver, progress)
    names = (game.index, sgf_name(game.index), colour_word(game.colour), game.end)
    if found is None:
        return GiveAway(*names, solver_seconds=time.time() - started, solver_nodes=solver.nodes - nodes)
    position, played = positions[start + found], moves[start + found]
    agent = player if isinstance(player, AgentPlayer) else None
    evaluate = agent.evaluate if agent is not None else shipped_evaluator()
    winning = winning_move(position, solver, evaluate, (played,), progress)
    seconds, nodes = time.time() - started, solver.nodes - nodes
    # As the agent decides.
    decision = decide_move(position, agent.params, None, agent.book) if agent is not None else None
    return GiveAway(
        *names,
        ply=position.moves_played,
        played=move_to_text(played),
        winning=None if winning is None else move_to_text(winning),
        decision_move=decision and move_to_text(decision.move),
        decision_how=decision and decision.how,
        decision_depth=decision and decision.depth,
        decision_value=decision and decision.value,
        evaluation_played=evaluation_after(position, played, evaluate),
        evaluation_winning=None if winning is None else evaluation_after(position, winning, evaluate),
        solver_seconds=seconds,
        solver_nodes=nodes,
    )
