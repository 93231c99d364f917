"""The course-style host against deliberately broken players, and the judge against the vectors."""

import os

import pytest

from engine import BLACK, WHITE
from engine.play.game import play_game
from engine.players.host import format_input
from engine.players.program import ProgramPlayer
from engine.players.specs import make_player
from engine.protocol import read_input
from engine.ui.judge import judge

BROKEN = {
    "crash": "raise SystemExit('I give up')",
    "garbage": "open('output.txt', 'w').write('hello')",
    "lowercase": "open('output.txt', 'w').write('pass')",
    "silent": "pass",
    "sleeper": "import time; time.sleep(60)",
    "burner": "while True: pass",
    "slow-then-move": (
        "import time\nstart = time.process_time()\n"
        "while time.process_time() - start < 1.2: pass\n"
        "open('output.txt', 'w').write('PASS')"
    ),
    "occupier": "open('output.txt', 'w').write('0,0')",
    "off-board": "open('output.txt', 'w').write('9,9')",
    "traceback": "import json; json.loads('{')",
}


def broken_player(tmp_path, name, cpu_limit=0.5):
    """A broken program player. Only the sleeper meets a short wall-clock limit: the CPU
    burners must reach the CPU limit first, however busy the machine is."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "my_player3.py").write_text(BROKEN[name] + "\n")
    return ProgramPlayer(str(folder), cpu_limit=cpu_limit, wall_limit=3 if name == "sleeper" else 300)


@pytest.mark.parametrize(
    "name, reason, words",
    [
        ("crash", "crash", "I give up"),
        ("traceback", "crash", "JSONDecodeError"),
        ("garbage", "bad-output", "hello"),
        ("lowercase", "bad-output", "pass"),
        ("silent", "bad-output", "no output.txt"),
        ("sleeper", "timeout", "wall time"),
        ("burner", "timeout", "CPU"),
        ("slow-then-move", "timeout", "over the 0.5 s limit"),
        ("occupier", "illegal", "occupied"),
        ("off-board", "illegal", "9,9 is off the board"),
    ],
)
def test_broken_players_lose_for_the_right_reason(tmp_path, name, reason, words):
    player = broken_player(tmp_path, name)
    record = play_game(player, make_player("random"), seed=1)
    assert record.reason == reason, record.detail
    assert record.winner == WHITE
    assert record.detail.startswith("Black") and words in record.detail


@pytest.mark.fast
def test_broken_white_player_loses_too(tmp_path):
    record = play_game(make_player("random"), broken_player(tmp_path, "garbage"), seed=1)
    assert record.reason == "bad-output" and record.winner == BLACK


@pytest.mark.fast
def test_private_copy_leaves_the_players_folder_clean(tmp_path):
    player = broken_player(tmp_path, "occupier")
    play_game(player, make_player("random"), seed=1)
    assert sorted(os.listdir(str(tmp_path / "occupier"))) == ["my_player3.py"]


def test_judge_agrees_with_the_vectors(tmp_path, vector_games):
    for game in vector_games[:120]:
        plies = game["plies"]
        for number, ply in enumerate(plies):
            (tmp_path / "input.txt").write_text(format_input(ply["player"], ply["previous"], ply["current"]))
            (tmp_path / "output.txt").write_text(ply["move"])
            with open(os.devnull, "w") as quiet:
                code = judge(ply["n_move"] + 1, str(tmp_path), out=quiet)
            if ply["ended"]:
                assert code == ply["winner"]
            else:
                assert code == 0
                following = plies[number + 1]
                written = read_input(str(tmp_path / "input.txt"))
                assert written == (following["player"], following["previous"], following["current"])


@pytest.mark.fast
def test_judge_ends_the_game_for_a_bad_answer(tmp_path):
    (tmp_path / "input.txt").write_text(format_input(BLACK, "0" * 25, "0" * 25))
    for answer in ["pass", "9,9", "x"]:
        (tmp_path / "output.txt").write_text(answer)
        with open(os.devnull, "w") as quiet:
            assert judge(1, str(tmp_path), out=quiet) == WHITE
    (tmp_path / "output.txt").unlink()
    with open(os.devnull, "w") as quiet:
        assert judge(1, str(tmp_path), out=quiet) == WHITE


@pytest.mark.fast
def test_judge_reports_a_bad_input_without_crashing(tmp_path):
    (tmp_path / "input.txt").write_text("7\n")
    with open(os.devnull, "w") as quiet:
        assert judge(3, str(tmp_path), out=quiet) == 4


@pytest.mark.fast
def test_every_kind_of_player_answers_a_flat_point_or_pass(tmp_path):
    from engine import PASS, Position

    folder = tmp_path / "corner"
    folder.mkdir()
    (folder / "my_player3.py").write_text("open('output.txt', 'w').write('1,2')\n")
    position = Position.initial()
    program = ProgramPlayer(str(folder))
    program.new_game(BLACK, 1)
    try:
        assert program.move(position) == 7  # row 1, column 2
    finally:
        program.close()
    for spec in ("random", "greedy", "aggressive", "alphabeta", "handset@1", "champion"):
        player = make_player(spec)
        player.new_game(BLACK, 1)
        move = player.move(position)
        assert move == PASS or (isinstance(move, int) and 0 <= move < 25), (spec, move)
