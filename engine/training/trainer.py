"""``littlego train qlearning``: train the Q-learner against chosen opponents, with a learning curve.

A training folder holds ``settings.json`` (what was asked), ``checkpoint.json`` (the whole
state after the last evaluation: table, random stream, curve, as JSON data, so that resuming a
folder handed over runs none of its author's code), ``table.json.gz`` (the learned values, the
file a ``qlearning:TABLE`` player reads), ``curve.tsv`` and ``curve.png``. Every game depends
only on the settings and its index, so a training resumed after a kill reaches the same table
as one never stopped. A training from before checkpoints were JSON left ``checkpoint.pkl``,
plain data pickled: it is read admitting no class or function at all
(``engine.common.plain_state.load_pickle``), and the next checkpoint replaces it.
"""

import datetime
import json
import math
import os
import random
from typing import Any, Callable, Dict, List, Optional, Sequence, TypedDict, cast

from tqdm import tqdm

from engine.common import plain_state
from engine.common.seeds import derive_seed
from engine.constants import BLACK, MAX_MOVES, WHITE, Move
from engine.constants import opponent as other_colour
from engine.errors import UserError
from engine.play.game import play_game
from engine.players.base import Player
from engine.players.qlearning import LittleGo, QLearner, QTable, learner_player, play_episode, save_table
from engine.players.scripted import GreedyPlayer
from engine.players.specs import make_player
from engine.position import Position
from engine.protocol import write_atomic

SETTINGS, CHECKPOINT, TABLE, CURVE, PLOT = "settings.json", "checkpoint.json", "table.json.gz", "curve.tsv", "curve.png"
LEGACY_TRAINING_CHECKPOINT = "checkpoint.pkl"  # a training's checkpoint before they were JSON
SELF = "self"


class TrainingSettings(TypedDict):
    """A training's settings (``settings.json``): DEFAULTS's keys, each checked by ``check_settings``;
    ``epsilon_games`` is None in DEFAULTS alone (``check_settings`` fills it in)."""

    games: int
    opponents: List[str]
    seed: int
    alpha: float
    gamma: float
    epsilon_start: float
    epsilon_end: float
    epsilon_games: Optional[int]
    rewards: Dict[str, float]
    eval_every: int
    eval_games: int
    panel: List[str]
    min_updates: int
    horizon: int


class CurvePoint(TypedDict):
    """An evaluation of the learner (a point of the curve, ``Training._evaluate``'s)."""

    games: int  # training games played before it
    epsilon: float  # the exploration rate at that game
    states: int  # the states in the learner's table
    win_rate: Dict[str, float]  # {panel spec: the learner's share of the evaluation games won}
    seen: float  # the share of the learner's evaluation moves found in its table


DEFAULTS: TrainingSettings = {
    "games": 20000,
    "opponents": ["random", "greedy", "aggressive", SELF],
    "seed": 1,
    "alpha": 0.2,
    "gamma": 0.95,
    "epsilon_start": 0.3,
    "epsilon_end": 0.02,
    "epsilon_games": None,
    "rewards": {"win": 1.0, "loss": -1.0, "draw": 0.0},
    "eval_every": 2000,
    "eval_games": 40,
    "panel": ["random", "greedy"],
    "min_updates": 2,
    "horizon": 10,
}


class TrainingError(UserError, ValueError):
    """Settings or a training folder that cannot be used; the message says which and why."""


def check_settings(settings: object) -> TrainingSettings:
    """Complete, checked settings (DEFAULTS filled in); TrainingError naming the bad one."""
    if not isinstance(settings, dict):
        raise TrainingError(f"settings must be an object of name: value, not {type(settings).__name__}")
    unknown = sorted(set(settings) - set(DEFAULTS))
    if unknown:
        raise TrainingError(f"unknown setting {unknown[0]!r}")
    checked: Dict[str, Any] = dict(DEFAULTS, **settings)
    if checked["epsilon_games"] is None:  # by default exploration falls over the first three quarters
        checked["epsilon_games"] = max(1, checked["games"] * 3 // 4) if _is_int(checked["games"]) else 1
    for name in ("games", "eval_every", "eval_games", "epsilon_games", "min_updates", "horizon"):
        if not _is_int(checked[name]) or checked[name] < 1:
            raise TrainingError(f"{name} must be a positive integer, not {checked[name]!r}")
    if checked["horizon"] > MAX_MOVES:
        raise TrainingError("horizon must be at most {} plies, not {}".format(MAX_MOVES, checked["horizon"]))
    if not _is_int(checked["seed"]):
        raise TrainingError("seed must be an integer, not {!r}".format(checked["seed"]))
    for name, low, high in (("alpha", 0, 1), ("gamma", 0, 1), ("epsilon_start", 0, 1), ("epsilon_end", 0, 1)):
        value = checked[name]
        if not _is_number(value) or not low <= value <= high or (name == "alpha" and value == 0):
            raise TrainingError(
                "{} must be a number in [{}, {}]{}, not {!r}".format(
                    name, low, high, " and above 0" if name == "alpha" else "", value
                )
            )
    rewards = checked["rewards"]
    if not (
        isinstance(rewards, dict)
        and set(rewards) == set(DEFAULTS["rewards"])
        and all(_is_number(value) and math.isfinite(value) for value in rewards.values())
    ):
        raise TrainingError(f"rewards must be an object of finite numbers for win, loss and draw, not {rewards!r}")
    for name in ("opponents", "panel"):
        if not (isinstance(checked[name], list) and checked[name] and all(isinstance(s, str) for s in checked[name])):
            raise TrainingError(f"{name} must be a list of at least one player spec, not {checked[name]!r}")
    for spec in [s for s in checked["opponents"] if s != SELF] + checked["panel"]:
        make_player(spec).close()  # ValueError naming a bad spec
    return cast(TrainingSettings, checked)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def epsilon(settings: TrainingSettings, game: int) -> float:
    """The exploration rate of a game: linear from epsilon_start to epsilon_end over epsilon_games."""
    games = settings["epsilon_games"]
    assert games is not None, "settings not checked: check_settings fills in epsilon_games"
    share = min(game / games, 1.0)
    return settings["epsilon_start"] + share * (settings["epsilon_end"] - settings["epsilon_start"])


class Training:
    """One training folder: its settings, the learner, and where it stands."""

    def __init__(self, folder: str, settings: TrainingSettings):
        self.folder = folder
        self.settings = settings
        self.learner = QLearner(settings["alpha"], settings["gamma"])
        self.game = LittleGo(settings["horizon"])
        self.fallback = GreedyPlayer()
        self.rng = random.Random(settings["seed"])
        self.done = 0
        self.curve: List[CurvePoint] = []  # the evaluations

    @classmethod
    def create(cls, folder: str, settings: object) -> "Training":
        checked = check_settings(settings)
        if os.path.exists(os.path.join(folder, SETTINGS)):
            raise TrainingError(f"{folder}: a training is already there (resume it with --resume)")
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise TrainingError(f"{folder}: not a folder")
        os.makedirs(folder, exist_ok=True)
        write_atomic(os.path.join(folder, SETTINGS), json.dumps(checked, indent=2) + "\n")
        return cls(folder, checked)

    @classmethod
    def resume(cls, folder: str) -> "Training":
        try:
            with open(os.path.join(folder, SETTINGS)) as handle:
                settings = check_settings(json.load(handle))
        except (OSError, ValueError) as error:
            raise TrainingError(f"{folder}: not a training folder ({error})")
        training = cls(folder, settings)
        path, legacy = os.path.join(folder, CHECKPOINT), os.path.join(folder, LEGACY_TRAINING_CHECKPOINT)
        if os.path.exists(path):
            training._restore(_read_checkpoint(path), path)
        elif os.path.exists(legacy):
            training._restore(_read_legacy(legacy), legacy)
        return training

    def _restore(self, state: object, path: str) -> None:
        """Take up the state of a checkpoint's data; TrainingError naming ``path`` where it is not one."""
        try:
            kept = plain_state.fields(state, "the checkpoint", ("table", "rng", "done", "curve"))
            table = _table_from_json(kept["table"])
            rng = plain_state.random_state_from_json(kept["rng"])
            done = plain_state.whole_number(kept["done"], "its games done")
            curve = [_point(point, self.settings["panel"]) for point in plain_state.items(kept["curve"], "its curve")]
        except (KeyError, OverflowError, TypeError, ValueError) as error:
            raise TrainingError(f"{path}: not a readable checkpoint ({error})")
        self.learner.table, self.done, self.curve = table, done, curve
        self.rng.setstate(rng)

    def run(self, progress: bool = False, report: Callable[[str], object] = print) -> str:
        """Train to the settings' number of games, evaluating and checkpointing every eval_every games."""
        settings = self.settings
        opponents = [None if spec == SELF else make_player(spec) for spec in settings["opponents"]]
        bar = tqdm(total=settings["games"], initial=self.done, unit="game", leave=False) if progress else None
        try:
            while self.done < settings["games"]:
                self._game(self.done, opponents)
                self.done += 1
                if bar:
                    bar.update(1)
                if self.done % settings["eval_every"] == 0 or self.done == settings["games"]:
                    self._evaluate(report)
                    self._checkpoint()
        finally:
            if bar:
                bar.close()
            for opponent in opponents:
                if opponent is not None:
                    opponent.close()
        return self.folder

    def _game(self, index: int, opponents: Sequence[Optional[Player]]) -> None:
        settings = self.settings
        side = BLACK if index % 2 == 0 else WHITE
        opponent = opponents[index % len(opponents)]
        game_seed = derive_seed(settings["seed"], index)
        rate = epsilon(settings, index)
        if opponent is None:  # self-play: the learner's own policy, exploring as it does
            own = random.Random(game_seed)
            own_fallback = GreedyPlayer()
            own_fallback.new_game(other_colour(side), derive_seed(game_seed, 2))

            def opponent_move(position: Position) -> Move:
                if not self.game.tabular(position):
                    return own_fallback.move(position)
                key, actions = LittleGo.observe(position)
                chosen = self.learner.choose(key, list(actions.values()), rate, own)
                return next(move for move, action in actions.items() if action == chosen)
        else:
            opponent.new_game(other_colour(side), game_seed)
            opponent_move = opponent.move
        self.fallback.new_game(side, derive_seed(game_seed, 1))
        play_episode(
            self.game, self.learner, opponent_move, side, rate, self.rng, settings["rewards"], self.fallback.move
        )

    def _evaluate(self, report: Callable[[str], object]) -> None:
        settings = self.settings
        exploration, states = round(epsilon(settings, self.done), 4), len(self.learner.table)
        win_rate: Dict[str, float] = {}
        player = learner_player(self.learner, settings["horizon"])
        for number, spec in enumerate(settings["panel"]):
            opponent = make_player(spec)
            wins = 0
            for game in range(settings["eval_games"]):
                seed = derive_seed(settings["seed"], number, game)  # the same games at every point
                black, white = (player, opponent) if game % 2 == 0 else (opponent, player)
                record = play_game(black, white, seed=seed)
                wins += record.winner == (BLACK if game % 2 == 0 else WHITE)
            win_rate[spec] = wins / settings["eval_games"]
        point: CurvePoint = {
            "games": self.done,
            "epsilon": exploration,
            "states": states,
            "win_rate": win_rate,
            "seen": player.seen / max(player.seen + player.unseen, 1),
        }
        self.curve.append(point)
        report(
            "after {} games: {} (table {} states, {:.0%} of its moves from the table)".format(
                self.done,
                ", ".join(f"{k} {v:.0%}" for k, v in point["win_rate"].items()),
                point["states"],
                point["seen"],
            )
        )

    def _checkpoint(self) -> None:
        folder = self.folder
        state = {
            "table": _table_to_json(self.learner.table),
            "rng": plain_state.random_state_to_json(self.rng.getstate()),
            "done": self.done,
            "curve": self.curve,
        }
        write_atomic(os.path.join(folder, CHECKPOINT), json.dumps(state, separators=(",", ":")) + "\n")
        if os.path.exists(os.path.join(folder, LEGACY_TRAINING_CHECKPOINT)):  # replaced by the JSON
            os.remove(os.path.join(folder, LEGACY_TRAINING_CHECKPOINT))
        meta = {
            "source": "littlego train qlearning",
            "folder": os.path.basename(os.path.abspath(folder)),
            "games": self.done,
            "settings": self.settings,
            "fallback": "greedy",
            "horizon": self.settings["horizon"],
            "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        }
        save_table(os.path.join(folder, TABLE), self.learner, meta, self.settings["min_updates"])
        panel = self.settings["panel"]
        lines = ["games\tepsilon\tstates\tfrom_table\t" + "\t".join(panel)]
        for point in self.curve:
            lines.append(
                "{}\t{}\t{}\t{:.3f}\t{}".format(
                    point["games"],
                    point["epsilon"],
                    point["states"],
                    point["seen"],
                    "\t".join("{:.3f}".format(point["win_rate"][s]) for s in panel),
                )
            )
        write_atomic(os.path.join(folder, CURVE), "\n".join(lines) + "\n")
        self._plot()

    def _plot(self) -> None:
        import matplotlib  # slow to import, and only the plot needs it

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, axes = plt.subplots(figsize=(7, 4))
        games = [point["games"] for point in self.curve]
        for spec in self.settings["panel"]:
            axes.plot(games, [point["win_rate"][spec] for point in self.curve], marker="o", label="vs " + spec)
        axes.plot(games, [point["seen"] for point in self.curve], linestyle="--", label="moves from the table")
        axes.set_xlabel("training games")
        axes.set_ylabel("win rate ({} games each)".format(self.settings["eval_games"]))
        axes.set_ylim(-0.05, 1.05)
        axes.set_title("Q-learning: " + os.path.basename(os.path.abspath(self.folder)))
        axes.legend(loc="lower right")
        figure.tight_layout()
        staging = os.path.join(self.folder, ".curve.tmp.png")
        figure.savefig(staging, dpi=100)
        plt.close(figure)
        os.replace(staging, os.path.join(self.folder, PLOT))


def _read_checkpoint(path: str) -> object:
    """A checkpoint file's JSON data; TrainingError naming ``path`` where it has none."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as error:
        raise TrainingError(f"{path}: cannot read: {error.strerror or error}")
    except (ValueError, RecursionError) as error:  # not UTF-8, not JSON, or nested past reading
        raise TrainingError(f"{path}: not a readable checkpoint (not JSON: {error})")


def _read_legacy(path: str) -> object:
    """An older training's pickled checkpoint as the JSON data of one: plain data, read admitting no class
    or function (RefusedPickle, before any of its code runs, for one that names any); TrainingError naming
    ``path`` where it is not one."""
    try:
        with open(path, "rb") as handle:
            state = plain_state.load_pickle(handle, {})
    except OSError as error:
        raise TrainingError(f"{path}: cannot read: {error.strerror or error}")
    except plain_state.RefusedPickle as error:
        raise TrainingError(f"{path}: not a training checkpoint: {error} (refused before any of it ran)")
    except Exception as error:  # unpickling can raise almost anything on a damaged file
        raise TrainingError(f"{path}: not a readable checkpoint ({type(error).__name__}: {error})")
    try:
        kept = plain_state.fields(state, "the checkpoint", ("table", "rng"))
        return dict(
            kept,
            table=[
                [key, [[action, *entry] for action, entry in actions.items()]] for key, actions in kept["table"].items()
            ],
            rng=plain_state.random_state_to_json(kept["rng"]),
        )
    except (AttributeError, TypeError, ValueError) as error:
        raise TrainingError(f"{path}: not a readable checkpoint ({error})")


def _table_to_json(table: QTable) -> List[List[Any]]:
    """The learner's table as JSON data: [key, [[action, value, updates], ...]] for each state, in its order."""
    return [
        [key, [[action, value, updates] for action, (value, updates) in actions.items()]]
        for key, actions in table.items()
    ]


def _table_from_json(data: object) -> QTable:
    """The learner's table of ``_table_to_json``'s data (Little-Go's keys and actions: integers); ValueError."""
    table: QTable = {}
    for row in plain_state.items(data, "its table"):
        if len(plain_state.items(row, "a state of its table")) != 2:
            raise ValueError("a state of its table is [key, its actions]")
        key, actions = row
        if not _is_int(key):
            raise ValueError(f"a state's key is an integer, not {key!r}")
        entries: Dict[Any, List[float]] = {}
        table[key] = entries
        for entry in plain_state.items(actions, "a state's actions"):
            if len(plain_state.items(entry, "an action's entry")) != 3:
                raise ValueError("an action's entry is [action, value, updates]")
            action, value, updates = entry
            if not _is_int(action):
                raise ValueError(f"an action is an integer, not {action!r}")
            entries[action] = [
                plain_state.number(value, "an action's value"),
                plain_state.whole_number(updates, "an action's updates"),
            ]
    return table


def _point(data: object, panel: List[str]) -> CurvePoint:
    """A point of the curve (``Training._evaluate``'s), checked: the curve and the plot read each field."""
    point = plain_state.fields(data, "a point of its curve", ("games", "epsilon", "states", "win_rate", "seen"))
    plain_state.whole_number(point["games"], "a point's games")
    plain_state.whole_number(point["states"], "a point's states")
    plain_state.number(point["epsilon"], "a point's epsilon")
    plain_state.number(point["seen"], "a point's share seen")
    rates = plain_state.fields(point["win_rate"], "a point's win rates", panel)
    for spec in panel:
        plain_state.number(rates[spec], f"a point's win rate against {spec}")
    return cast(CurvePoint, point)  # its fields checked above; any others kept as the checkpoint had them
