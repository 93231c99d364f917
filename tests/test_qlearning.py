"""The tabular Q-learner: perfect tic-tac-toe against random play, Little-Go states under the
8 symmetries, training that resumes exactly, and the qlearning player."""

import os
import random
import signal

import pytest

from engine import BLACK, PASS, Position
from engine.bitboard import points_of
from engine.play.game import play_game
from engine.players.qlearning import (
    LittleGo,
    QLearner,
    QLearningPlayer,
    load_table,
    play_episode,
    state_key,
)
from engine.players.specs import make_player
from engine.playout import random_opening
from engine.symmetry import SYMMETRIES, turn
from engine.training.trainer import CHECKPOINT, TABLE, Training, TrainingError
from tests.conftest import HANG, cli, start_cli, wait_until

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class TicTacToe:
    """Tic-tac-toe as a game for the learner: a state is (board tuple, side to move)."""

    @staticmethod
    def tabular(state):
        return True

    @staticmethod
    def start():
        return (0,) * 9, 1

    @staticmethod
    def to_move(state):
        return state[1]

    @staticmethod
    def winner(state):
        board = state[0]
        for a, b, c in LINES:
            if board[a] and board[a] == board[b] == board[c]:
                return board[a]
        return None

    @classmethod
    def over(cls, state):
        return cls.winner(state) is not None or all(state[0])

    @staticmethod
    def play(state, cell):
        board, side = state
        return board[:cell] + (side,) + board[cell + 1 :], 3 - side

    @staticmethod
    def observe(state):
        return state, dict((cell, cell) for cell in range(9) if not state[0][cell])


def random_move(rng):
    return lambda state: rng.choice([cell for cell in range(9) if not state[0][cell]])


def greedy_game(learner, rng, side):
    """A game of the learner's greedy policy (no exploration, no learning) against random play."""
    state = TicTacToe.start()
    while not TicTacToe.over(state):
        if TicTacToe.to_move(state) == side:
            key, actions = TicTacToe.observe(state)
            state = TicTacToe.play(state, learner.greedy(key, list(actions), rng))
        else:
            state = TicTacToe.play(state, random_move(rng)(state))
    return TicTacToe.winner(state)


def test_tic_tac_toe_against_random_play_is_never_lost_after_training():
    # A loss costs far more than a win earns: against a random player the learner must
    # prefer the safe draw to a gamble, as the course's example does.
    learner = QLearner(alpha=0.3, gamma=0.9)
    rng = random.Random(5)
    rewards = {"win": 1.0, "loss": -10.0, "draw": 0.5}
    games = 30000
    for game in range(games):
        epsilon = max(0.02, 0.5 * (1 - game / (games * 0.8)))
        play_episode(TicTacToe, learner, random_move(rng), 1 + game % 2, epsilon, rng, rewards)
    test_rng = random.Random(99)
    results = [(greedy_game(learner, test_rng, 1 + game % 2), 1 + game % 2) for game in range(1000)]
    assert sum(1 for winner, side in results if winner is not None and winner != side) == 0
    assert sum(1 for winner, side in results if winner == side) > 800  # and it wins most of them


@pytest.mark.fast
def test_the_update_is_the_one_step_rule():
    learner = QLearner(alpha=0.5, gamma=0.9)
    learner.update("s", "a", 0.0, "t", ["x", "y"])
    assert learner.value("s", "a") == 0.0
    learner.update("t", "x", 1.0)  # a last action: no future
    assert learner.value("t", "x") == 0.5
    learner.update("s", "a", 0.0, "t", ["x", "y"])
    assert learner.value("s", "a") == pytest.approx(0.5 * (0.9 * 0.5))
    assert learner.table["s"]["a"][1] == 2  # updates counted


@pytest.mark.fast
def test_the_symmetries_are_the_eight_of_the_square():
    assert len(set(SYMMETRIES)) == 8 and all(sorted(image) == list(range(25)) for image in SYMMETRIES)
    for seed in range(30):
        position, _ = random_opening(9, seed)
        for symmetry, image in enumerate(SYMMETRIES):
            turned = sum(1 << image[p] for p in points_of(position.black))
            assert turn(position.black, symmetry) == turned


@pytest.mark.fast
def test_symmetric_positions_share_a_key_and_moves_map_back():
    for seed in range(20):
        position, _ = random_opening(7, seed)
        key, actions = LittleGo.observe(position)
        for image in SYMMETRIES:
            cells = ["0"] * 25
            for point in range(25):
                colour = position.colour_at(point)
                cells[image[point]] = str(colour)
            board = "".join(cells)
            twin = Position.from_boards(position.player, board, board, position.moves_played)
            twin_key, twin_actions = LittleGo.observe(twin)
            assert twin_key == key
            # The same canonical action names the same move in each frame.
            assert sorted(twin_actions.values()) == sorted(actions.values())
            for move, action in actions.items():
                if move != PASS:
                    assert twin_actions[image[move]] == action
    assert state_key(Position.initial())[0] != state_key(Position.initial().play_point(12))[0]


@pytest.mark.fast
def test_the_player_uses_the_table_and_falls_back_where_it_learned_nothing():
    position = Position.initial()
    key, actions = LittleGo.observe(position)
    values = {key: {actions[12]: 1.0}}
    player = QLearningPlayer(values)
    player.new_game(BLACK, 1)
    assert player.move(position) == 12 and player.seen == 1
    player.move(position.play_point(12).play_point(0))
    assert player.unseen == 1


def settings(**changes):
    base = {
        "games": 400,
        "opponents": ["random", "greedy", "self"],
        "seed": 3,
        "eval_every": 100,
        "eval_games": 4,
        "panel": ["random"],
    }
    base.update(changes)
    return base


def test_training_writes_a_table_a_curve_and_a_plot(tmp_path):
    folder = Training.create(str(tmp_path / "t"), settings(games=200)).run(report=lambda line: None)
    names = sorted(os.listdir(folder))
    assert names == ["checkpoint.json", "curve.png", "curve.tsv", "settings.json", "table.json.gz"]
    lines = open(os.path.join(folder, "curve.tsv")).read().splitlines()
    assert lines[0].split("\t") == ["games", "epsilon", "states", "from_table", "random"] and len(lines) == 3
    values, meta = load_table(os.path.join(folder, TABLE))
    assert values and meta["games"] == 200
    player = make_player("qlearning:" + os.path.join(folder, TABLE))
    record = play_game(player, make_player("random"), seed=1)
    assert record.reason == "end"


def test_a_killed_training_resumes_to_the_same_table(tmp_path):
    reference = Training.create(str(tmp_path / "reference"), settings()).run(report=lambda line: None)
    folder = str(tmp_path / "killed")
    process = start_cli(
        "littlego",
        "train",
        "qlearning",
        "--out",
        folder,
        "--games",
        "400",
        "--seed",
        "3",
        "--eval-every",
        "100",
        "--eval-games",
        "4",
        "--opponent",
        "random",
        "--opponent",
        "greedy",
        "--opponent",
        "self",
        "--panel",
        "random",
        start_new_session=True,
    )
    wait_until(lambda: os.path.exists(os.path.join(folder, CHECKPOINT)), "the first checkpoint", process)
    os.killpg(process.pid, signal.SIGKILL)
    process.communicate()
    assert Training.resume(folder).done < 400  # it was cut off
    status = cli("littlego", "train", "qlearning", "--resume", folder, timeout=HANG)
    assert status.returncode == 0, status.stderr
    assert load_table(os.path.join(folder, TABLE))[0] == load_table(os.path.join(reference, TABLE))[0]
    assert Training.resume(folder).curve == Training.resume(reference).curve


@pytest.mark.fast
@pytest.mark.parametrize(
    "change, words",
    [
        ({"games": 0}, "games"),
        ({"alpha": 0}, "alpha"),
        ({"gamma": 2}, "gamma"),
        ({"speed": 1}, "speed"),
        ({"opponents": ["nobody"]}, "unknown player"),
        ({"panel": []}, "panel"),
    ],
)
def test_bad_settings_are_refused(tmp_path, change, words):
    with pytest.raises((TrainingError, ValueError), match=words):
        Training.create(str(tmp_path / "t"), settings(**change))


@pytest.mark.fast
def test_a_bad_table_is_one_clear_line(tmp_path):
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(b"not gzip")
    status = cli("littlego", "match", "qlearning:" + str(bad), "random", "--games", "2", timeout=HANG)
    assert status.returncode == 2 and "not a Q-table" in status.stderr and "Traceback" not in status.stderr
