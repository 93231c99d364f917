"""Tabular Q-learning over a small game interface, Little-Go's states under the 8 board
symmetries, and the ``qlearning[:TABLE]`` player.

Reading guide: a *game* (``LittleGo`` here, tic-tac-toe in the tests) says what a state's
legal actions are, plays one, tells when it is over and who won, and ``observe``s a state
as the learner sees it: a hashable key and each legal action's name in the key's frame
(for Little-Go the canonical board under the symmetries, and the action turned with it).
``QLearner`` holds the table and the one-step rule; ``play_episode`` runs one game between
the learner and any opponent and updates the learner at each of its decisions.
"""

import gzip
import json
import random
from typing import Any, Callable, Dict, Hashable, Iterable, List, Mapping, Optional, Protocol, Sequence, Tuple

from engine import symmetry
from engine.bitboard import points_of
from engine.constants import MAX_MOVES, NUM_POINTS, PASS, Colour, Move
from engine.errors import UserError
from engine.players.base import Player
from engine.players.scripted import GreedyPlayer
from engine.position import Position
from engine.protocol import read_file, write_atomic

TABLE_FORMAT = 2  # 1: keyed by an earlier canonical form; retrain or re-key such a table

# The learner's table, {key: {action: [value, updates]}}: keys and actions are the game's (ints for Little-Go).
QTable = Dict[Any, Dict[Any, List[float]]]
ValueTable = Dict[int, Dict[int, float]]  # a table as the player reads it: {key: {action: value}}
State = Any  # a game's own state (a Position for Little-Go), only passed back to the game
GameMove = Any  # a game's own move (a point or PASS for Little-Go), only passed back to the game


class EpisodeGame(Protocol):
    """What ``play_episode`` asks of a game (``LittleGo``; tic-tac-toe in the tests)."""

    def start(self) -> State: ...

    def to_move(self, state: State) -> Hashable: ...

    def tabular(self, state: State) -> bool: ...

    def play(self, state: State, move: GameMove) -> State: ...

    def over(self, state: State) -> bool: ...

    def winner(self, state: State) -> Optional[Hashable]: ...

    def observe(self, state: State) -> Tuple[Hashable, Mapping[GameMove, Hashable]]: ...


class ActionValues(Protocol):
    """What the player reads its values from: a ValueTable, or a learner's live one (``_LiveValues``)."""

    def get(self, key: int) -> Optional[Dict[int, float]]: ...


# -- the learner ----------------------------------------------------------------------------------


class QLearner:
    """A table of action values with the one-step Q-learning update and epsilon-greedy choice.

    ``table[key][action] = [value, updates]``. Unseen actions are worth ``initial``.
    """

    def __init__(self, alpha: float = 0.2, gamma: float = 0.95, initial: float = 0.0, table: Optional[QTable] = None):
        self.alpha, self.gamma, self.initial = alpha, gamma, initial
        self.table: QTable = table if table is not None else {}

    def value(self, key: Hashable, action: Hashable) -> float:
        entry = self.table.get(key, {}).get(action)
        return self.initial if entry is None else entry[0]

    def best_value(self, key: Hashable, actions: Iterable[Hashable]) -> float:
        return max(self.value(key, action) for action in actions)

    def greedy(self, key: Hashable, actions: Iterable[Hashable], rng: random.Random) -> Hashable:
        """The action of highest value, ties broken at random."""
        values = [(self.value(key, action), action) for action in actions]
        top = max(value for value, _ in values)
        return rng.choice([action for value, action in values if value == top])

    def choose(self, key: Hashable, actions: Sequence[Hashable], epsilon: float, rng: random.Random) -> Hashable:
        """Epsilon-greedy: a random action with probability ``epsilon``, else the greedy one."""
        if rng.random() < epsilon:
            return rng.choice(actions)
        return self.greedy(key, actions, rng)

    def update(
        self,
        key: Hashable,
        action: Hashable,
        reward: float,
        next_key: Optional[Hashable] = None,
        next_actions: Sequence[Hashable] = (),
    ) -> None:
        """Q(s,a) += alpha * (reward + gamma * max Q(s',a') - Q(s,a)); no future after a last action."""
        future = self.gamma * self.best_value(next_key, next_actions) if next_key is not None and next_actions else 0.0
        entry = self.table.setdefault(key, {}).setdefault(action, [self.initial, 0])
        entry[0] += self.alpha * (reward + future - entry[0])
        entry[1] += 1


def play_episode(
    game: EpisodeGame,
    learner: QLearner,
    opponent_move: Callable[[State], GameMove],
    learner_side: Hashable,
    epsilon: float,
    rng: random.Random,
    rewards: Mapping[str, float],
    fallback_move: Optional[Callable[[State], GameMove]] = None,
) -> Optional[Hashable]:
    """One game: the learner (side ``learner_side``) against ``opponent_move(state)``.

    The learner's previous decision is updated when it next decides (the opponent's reply
    is part of its world), and its last one with the result: ``rewards`` maps "win",
    "loss" and "draw" to numbers. Where ``game.tabular(state)`` is false (past a horizon),
    the learner plays ``fallback_move`` and learns nothing: its last decision in the table
    is then rewarded with how the game ended. Returns the winner (a side, or None for a draw).
    """
    state = game.start()
    previous = None
    while not game.over(state):
        if game.to_move(state) == learner_side and not game.tabular(state):
            assert fallback_move is not None, "a game past its horizon needs a fallback move"
            state = game.play(state, fallback_move(state))
        elif game.to_move(state) == learner_side:
            key, actions = game.observe(state)
            names = list(actions)
            if previous is not None:
                learner.update(previous[0], previous[1], 0.0, key, [actions[a] for a in names])
            action = learner.choose(key, [actions[a] for a in names], epsilon, rng)
            move = next(a for a in names if actions[a] == action)
            previous = (key, action)
            state = game.play(state, move)
        else:
            state = game.play(state, opponent_move(state))
    winner = game.winner(state)
    if previous is not None:
        outcome = "draw" if winner is None else "win" if winner == learner_side else "loss"
        learner.update(previous[0], previous[1], rewards[outcome])
    return winner


# -- Little-Go under the 8 symmetries ---------------------------------------------------------------

PASS_ACTION = NUM_POINTS  # the canonical name of a pass
_KEY_PLAYER = 40  # bits of a key below the colour to move: the board (3 ** 25 < 2 ** 40)


def state_key(position: Position) -> Tuple[int, int]:
    """(key, symmetry): the board's canonical form (``engine.symmetry``), the side to move and the ply.

    The ply is part of the key because the game ends at the 24th: the same stones mean
    something else with 3 plies left than with 13. Positions where a KO ban or a pass
    could end the game share keys with their plain twins; the learner's legal actions
    come from the real position, so no illegal move can result.
    """
    (board, _), turned = symmetry.canonical(position.black, position.white)
    key = board | position.player << _KEY_PLAYER | position.moves_played << (_KEY_PLAYER + 2)
    return key, turned


class LittleGo:
    """Little-Go as a game for the learner: sides BLACK and WHITE, actions points or PASS.

    The table covers the first ``horizon`` plies, where positions recur often enough to be
    learned; later ones are left to the fallback.
    """

    def __init__(self, horizon: int = MAX_MOVES):
        self.horizon = horizon

    def tabular(self, position: Position) -> bool:
        return position.moves_played < self.horizon

    @staticmethod
    def start() -> Position:
        return Position.initial()

    @staticmethod
    def to_move(position: Position) -> Colour:
        return position.player

    @staticmethod
    def actions(position: Position) -> List[Move]:
        return points_of(position.legal_mask()) + [PASS]

    @staticmethod
    def play(position: Position, move: Move) -> Position:
        return position.play_point(move)

    @staticmethod
    def over(position: Position) -> bool:
        return position.is_over

    @staticmethod
    def winner(position: Position) -> Optional[Colour]:
        return position.winner

    @staticmethod
    def observe(position: Position) -> Tuple[int, Dict[Move, int]]:
        """(key, {legal move: its canonical action}) for the side to move."""
        key, turned = state_key(position)
        image = symmetry.SYMMETRIES[turned]
        actions: Dict[Move, int] = dict((point, image[point]) for point in points_of(position.legal_mask()))
        actions[PASS] = PASS_ACTION
        return key, actions


# -- the table on disk --------------------------------------------------------------------------------


class QTableError(UserError, ValueError):
    """A Q-table file that cannot be used; the message names it."""


def save_table(path: str, learner: QLearner, meta: Mapping[str, object], min_updates: int = 1) -> int:
    """Write the table (states whose actions were updated at least ``min_updates`` times) as gzip JSON, atomically."""
    states = {}
    for key, actions in learner.table.items():
        if sum(updates for _, updates in actions.values()) >= min_updates:
            states[format(key, "x")] = dict((str(action), round(value, 4)) for action, (value, _) in actions.items())
    data = {"format": TABLE_FORMAT, "meta": meta, "states": states}
    write_atomic(
        path, gzip.compress(json.dumps(data, separators=(",", ":"), sort_keys=True).encode("utf-8"), 9, mtime=0)
    )
    return len(states)


def load_table(path: str) -> Tuple[ValueTable, Dict[str, Any]]:
    """(values {key: {action: value}}, meta) from a table file; QTableError saying what is wrong."""
    raw = read_file(path, QTableError)
    try:
        data = json.loads(gzip.decompress(raw).decode("utf-8"))
    except (OSError, ValueError, EOFError, RecursionError) as error:  # BadGzipFile is an OSError
        raise QTableError(f"{path}: not a Q-table (gzip JSON): {error}")
    if isinstance(data, dict) and data.get("format") == 1:
        raise QTableError(
            f"{path}: a Q-table of format 1, keyed by an earlier version's canonical boards: train it "
            "again ('littlego train qlearning')"
        )
    if not isinstance(data, dict) or data.get("format") != TABLE_FORMAT or not isinstance(data.get("states"), dict):
        raise QTableError(f"{path}: not a Q-table of format {TABLE_FORMAT}")
    try:
        values = dict(
            (int(key, 16), dict((int(action), float(value)) for action, value in actions.items()))
            for key, actions in data["states"].items()
        )
    except (ValueError, TypeError, AttributeError) as error:
        raise QTableError(f"{path}: a state that is not a table of action values: {error}")
    return values, data.get("meta", {})


# -- the player -------------------------------------------------------------------------------------


class QLearningPlayer(Player):
    """Greedy on learned values; in a position it never saw, the one-ply capture rule (``greedy``)."""

    def __init__(self, values: ActionValues, spec: str = "qlearning", horizon: int = MAX_MOVES):
        self.values = values
        self.spec = spec
        self.horizon = horizon
        self.fallback = GreedyPlayer()
        self.seen = self.unseen = 0

    def new_game(self, colour: Colour, seed: int) -> None:
        Player.new_game(self, colour, seed)
        self.fallback.new_game(colour, seed)

    def move(self, position: Position) -> Move:
        if position.moves_played >= self.horizon:
            return self.fallback.move(position)
        key, actions = LittleGo.observe(position)
        known = self.values.get(key)
        if not known:
            self.unseen += 1
            return self.fallback.move(position)
        self.seen += 1
        best = max(known.get(action, 0.0) for action in actions.values())
        return self.rng.choice([move for move, action in actions.items() if known.get(action, 0.0) == best])


def learner_player(learner: QLearner, horizon: int, spec: str = "qlearning (training)") -> QLearningPlayer:
    """A QLearningPlayer reading a learner's live table (for evaluation during training)."""
    return QLearningPlayer(_LiveValues(learner.table), spec, horizon)


class _LiveValues:
    """The learner's table seen as {key: {action: value}}, without copying it."""

    def __init__(self, table: QTable):
        self.table = table

    def get(self, key: int) -> Optional[Dict[int, float]]:
        actions = self.table.get(key)
        return None if not actions else dict((action, entry[0]) for action, entry in actions.items())
