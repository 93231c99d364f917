"""``littlego train qlearning``: train the Q-learner against chosen opponents, with a learning curve.

A training folder holds ``settings.json`` (what was asked), ``checkpoint.pkl`` (the whole
state after the last evaluation: table, random stream, curve), ``table.json.gz`` (the
learned values, the file a ``qlearning:TABLE`` player reads), ``curve.tsv`` and
``curve.png``. Every game depends only on the settings and its index, so a training
resumed after a kill reaches the same table as one never stopped.
"""

import datetime
import json
import math
import os
import pickle
import random
from typing import Any, Callable, Dict, List, Optional, TypedDict, cast

from tqdm import tqdm

from engine.common.seeds import derive_seed
from engine.constants import BLACK, MAX_MOVES, WHITE
from engine.constants import opponent as other_colour
from engine.errors import UserError
from engine.play.game import play_game
from engine.players.qlearning import LittleGo, QLearner, learner_player, play_episode, save_table
from engine.players.scripted import GreedyPlayer
from engine.players.specs import make_player
from engine.protocol import write_atomic

SETTINGS, CHECKPOINT, TABLE, CURVE, PLOT = "settings.json", "checkpoint.pkl", "table.json.gz", "curve.tsv", "curve.png"
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
        self.curve: List[Dict[str, Any]] = []  # the evaluations: games, epsilon, states, win_rate, seen

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
        path = os.path.join(folder, CHECKPOINT)
        if os.path.exists(path):
            try:
                with open(path, "rb") as handle:
                    state = pickle.load(handle)
                training.learner.table = state["table"]
                training.rng.setstate(state["rng"])
                training.done, training.curve = state["done"], state["curve"]
            except Exception as error:
                raise TrainingError(f"{path}: not a readable checkpoint ({type(error).__name__}: {error})")
        return training

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

    def _game(self, index, opponents):
        settings = self.settings
        side = BLACK if index % 2 == 0 else WHITE
        opponent = opponents[index % len(opponents)]
        game_seed = derive_seed(settings["seed"], index)
        rate = epsilon(settings, index)
        if opponent is None:  # self-play: the learner's own policy, exploring as it does
            own = random.Random(game_seed)
            own_fallback = GreedyPlayer()
            own_fallback.new_game(other_colour(side), derive_seed(game_seed, 2))

            def opponent_move(position):
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

    def _evaluate(self, report):
        settings = self.settings
        point = {
            "games": self.done,
            "epsilon": round(epsilon(settings, self.done), 4),
            "states": len(self.learner.table),
            "win_rate": {},
        }
        player = learner_player(self.learner, settings["horizon"])
        for number, spec in enumerate(settings["panel"]):
            opponent = make_player(spec)
            wins = 0
            for game in range(settings["eval_games"]):
                seed = derive_seed(settings["seed"], number, game)  # the same games at every point
                black, white = (player, opponent) if game % 2 == 0 else (opponent, player)
                record = play_game(black, white, seed=seed)
                wins += record.winner == (BLACK if game % 2 == 0 else WHITE)
            point["win_rate"][spec] = wins / settings["eval_games"]
        point["seen"] = player.seen / max(player.seen + player.unseen, 1)
        self.curve.append(point)
        report(
            "after {} games: {} (table {} states, {:.0%} of its moves from the table)".format(
                self.done,
                ", ".join(f"{k} {v:.0%}" for k, v in point["win_rate"].items()),
                point["states"],
                point["seen"],
            )
        )

    def _checkpoint(self):
        folder = self.folder
        write_atomic(
            os.path.join(folder, CHECKPOINT),
            pickle.dumps(
                {"table": self.learner.table, "rng": self.rng.getstate(), "done": self.done, "curve": self.curve},
                protocol=pickle.HIGHEST_PROTOCOL,
            ),
        )
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

    def _plot(self):
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
