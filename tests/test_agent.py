"""The shipped agent as the course runs it: one process per move, never losing by crashing."""

import io
import json
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stderr

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from engine import BLACK, PASS, WHITE
from engine.agent import STATE_FILE, infer_moves_played, main
from engine.features import FEATURES
from engine.params import load_params
from engine.play.game import play_game
from engine.players.host import format_input, read_output
from engine.players.specs import make_player
from engine.playout import random_opening
from engine.protocol import GameInput
from engine.submission.bundle import core_modules, write_bundle
from tests.conftest import HANG, ROOT, cli, fast_params

EMPTY = "0" * 25


@pytest.fixture
def agent_dir(tmp_path):
    """A folder holding the agent as a user would copy it: my_player3.py, the core engine/, params.json.

    The tools (every subpackage of engine/) are left out: the agent must run on the playing
    core alone.
    """
    folder = tmp_path / "agent"
    (folder / "engine").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "my_player3.py"), str(folder))
    shutil.copy(os.path.join(ROOT, "params.json"), str(folder))
    for name in os.listdir(os.path.join(ROOT, "engine")):
        if name.endswith(".py"):
            shutil.copy(os.path.join(ROOT, "engine", name), str(folder / "engine"))
    return folder


def run_agent(folder, input_text):
    (folder / "input.txt").write_text(input_text)
    return subprocess.run(
        [sys.executable, "my_player3.py"],
        cwd=str(folder),
        capture_output=True,
        text=True,
        timeout=HANG,
    )


@pytest.mark.slow
@pytest.mark.parametrize("agent_colour", [BLACK, WHITE])
def test_plays_whole_games_one_process_per_move(agent_dir, agent_colour):
    agent = make_player("cmd:" + str(agent_dir))
    opponent = make_player("random")
    black, white = (agent, opponent) if agent_colour == BLACK else (opponent, agent)
    record = play_game(black, white, seed=11)
    assert record.reason == "end", record.detail  # no illegal move, crash or timeout
    assert record.winner in (BLACK, WHITE) and len(record.moves) >= 12


@pytest.mark.fast
def test_bad_input_gives_a_clear_message_and_nonzero_exit(agent_dir):
    result = run_agent(agent_dir, "1\n00000\n00000\n")
    assert result.returncode == 2
    assert "input.txt:" in result.stderr and "expected 11 lines" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (agent_dir / "output.txt").exists()


# -- whatever params.json and the state file hold, the agent answers --------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)

weights = st.fixed_dictionaries(
    {name: st.floats(allow_nan=True, allow_infinity=True) | st.integers() | st.just(10**400) for name in FEATURES}
)

params_objects = st.fixed_dictionaries(
    {
        "weights": weights | json_values,
        "search": st.fixed_dictionaries(
            {"depth": st.integers(-3, 3) | json_values, "cpu_budget": st.floats(-1, 0.3) | json_values}
        )
        | json_values,
    },
    optional={"format": st.integers(0, 2) | json_values, "provenance": json_values, "extra": json_values},
)

params_files = (
    st.binary(max_size=300)
    | params_objects.map(lambda obj: json.dumps(obj).encode())
    | json_values.map(lambda obj: json.dumps(obj).encode())
)

state_files = st.binary(max_size=200) | st.tuples(
    st.sampled_from(["littlego-state 1", "littlego-state 2", ""]),
    st.sampled_from(["1", "2", "x"]),
    st.integers(-30, 40) | st.just(10**30),
    st.text("012", min_size=25, max_size=25),
).map(lambda parts: "\n".join(str(p) for p in parts).encode())


@given(params_files | st.none(), state_files | st.none(), st.integers(0, 20), st.integers(0, 10**6))
@example(b"{not json", None, 0, 0)
@example(json.dumps({"weights": {}}).encode(), None, 0, 0)
@example(b"", None, 1, 0)
@example(None, None, 1, 0)  # no params.json at all
@example(b"\xff\xfe{not utf-8}", b"", 4, 1)
@example(fast_params(margin=10**400), None, 4, 2)  # too large for a float
@example(fast_params(margin=float("inf")), None, 4, 3)  # written as Infinity, which Python reads
@example(b"[" * 100000 + b"]" * 100000, None, 4, 4)  # nested deeper than the parser's recursion
@example(b'{"weights": ' * 5000 + b"1" + b"}" * 5000, None, 4, 5)
@example(b"null", None, 4, 6)
def test_the_agent_answers_whatever_params_json_and_its_state_file_hold(
    tmp_path_factory, params_bytes, state_bytes, plies, seed
):
    """Exit 0 and a legal move (PASS at worst); a params.json it cannot use (or none) is named in a
    warning, and the agent plays with the built-in defaults."""
    folder = tmp_path_factory.mktemp("agent")
    position, _ = random_opening(plies, seed)
    for name, content in (("params.json", params_bytes), (STATE_FILE, state_bytes)):
        if content is not None:
            (folder / name).write_bytes(content)
    (folder / "input.txt").write_text(
        format_input(position.player, position.previous_string(), position.board_string())
    )
    with redirect_stderr(io.StringIO()) as err:
        status = main(str(folder / "params.json"), str(folder))
    assert status == 0
    if not position.is_over:
        move = read_output(str(folder / "output.txt"))
        assert move == PASS or position.is_legal(move), (move, position)
    try:
        load_params(str(folder / "params.json"))
    except Exception:
        assert "built-in defaults" in err.getvalue() and "Traceback" not in err.getvalue()


@pytest.mark.fast
def test_a_failing_search_falls_back_to_a_legal_move(tmp_path, monkeypatch):
    import engine.agent

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(engine.agent, "choose_move", broken)
    (tmp_path / "input.txt").write_text(format_input(BLACK, EMPTY, EMPTY))
    assert main(os.path.join(ROOT, "params.json"), str(tmp_path)) == 0
    i, j = read_output(str(tmp_path / "output.txt"))
    assert 0 <= i < 5 and 0 <= j < 5


@pytest.mark.fast
def test_ply_count_survives_games_in_an_uncleaned_folder(tmp_path):
    state = str(tmp_path / STATE_FILE)
    assert infer_moves_played(GameInput(BLACK, EMPTY, EMPTY), state) == 0
    assert infer_moves_played(GameInput(WHITE, EMPTY, "1" + "0" * 24), state) == 1
    (tmp_path / STATE_FILE).write_text("littlego-state 1\n2\n6\n" + "12" + "0" * 23 + "\n")
    matching = GameInput(WHITE, "12" + "0" * 23, "121" + "0" * 22)
    assert infer_moves_played(matching, state) == 7
    # A new game in the same folder is recognised from the boards, whatever the state says.
    assert infer_moves_played(GameInput(WHITE, EMPTY, "0" * 24 + "1"), state) == 1
    # A state that does not match gives an estimate of the right parity.
    stranger = GameInput(BLACK, "1122" + "0" * 21, "11221" + "0" * 20)
    assert infer_moves_played(stranger, state) % 2 == 0
    crowded = GameInput(BLACK, "1" * 12 + "2" * 12 + "0", "1" * 12 + "2" * 12 + "0")
    assert infer_moves_played(crowded, state) == 22  # Black's last ply, even
    assert infer_moves_played(crowded._replace(player=WHITE), state) == 23


def test_the_agent_keeps_the_ply_count_over_two_games_in_one_folder(tmp_path, monkeypatch):
    """Driven move by move as the host drives it; the folder is never cleaned between games."""
    import random

    import engine.agent
    from engine import PASS, Position
    from engine.params import default_params
    from engine.players.host import write_input

    fast = default_params()._replace(depth=2)
    monkeypatch.setattr(engine.agent, "load_params", lambda path: fast)
    rng = random.Random(4)
    for agent_colour in (BLACK, WHITE):
        position = Position.initial()
        while not position.is_over:
            if position.player == agent_colour:
                write_input(
                    str(tmp_path / "input.txt"), position.player, position.previous_string(), position.board_string()
                )
                assert main("unused", str(tmp_path)) == 0
                answer = read_output(str(tmp_path / "output.txt"))
                state = (tmp_path / STATE_FILE).read_text().split()
                assert int(state[3]) == position.moves_played + 1  # the agent knew the ply
                position = position.play(answer)
            else:
                legal = position.legal_moves()
                position = position.play(rng.choice(legal) if legal else PASS)


@pytest.mark.slow
def test_bundle_plays_a_whole_game_from_an_empty_folder(tmp_path):
    out = tmp_path / "submission"
    write_bundle(str(out), os.path.join(ROOT, "params.json"))
    assert sorted(os.listdir(str(out))) == ["my_player3.py", "params.json"]
    record = play_game(make_player("random"), make_player("cmd:" + str(out)), seed=2)
    assert record.reason == "end", record.detail


@pytest.mark.fast
def test_bundle_refuses_bad_params(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    result = cli("littlego", "bundle", tmp_path / "out", "--params", bad)
    assert result.returncode == 2 and "weights" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.fast
def test_everything_the_agent_runs_parses_under_python_37(tmp_path):
    write_bundle(str(tmp_path), os.path.join(ROOT, "params.json"))
    files = [os.path.join(ROOT, "engine", name + ".py") for name in core_modules()]
    files += [os.path.join(ROOT, "my_player3.py"), str(tmp_path / "my_player3.py")]
    runner = "import sys, vermin; sys.exit(vermin.main())"
    result = subprocess.run(
        [sys.executable, "-c", runner, "--no-tips", "--violations", "-t=3.7-"] + files,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert result.returncode == 0, result.stdout


def _python37():
    candidates = [shutil.which("python3.7"), "/root/.pyenv/versions/3.7.16/bin/python3.7"]
    for candidate in candidates:
        if candidate and os.path.exists(candidate):
            probe = subprocess.run(
                [candidate, "-c", "import sys; print(sys.version_info[:2])"],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            if probe.returncode == 0 and probe.stdout.strip() == "(3, 7)":
                return candidate
    return None


@pytest.mark.slow
@pytest.mark.skipif(_python37() is None, reason="no Python 3.7 interpreter here")
def test_bundle_plays_under_python_37_as_the_course_server_runs(tmp_path):
    out = tmp_path / "submission"
    write_bundle(str(out), os.path.join(ROOT, "params.json"))
    agent = make_player(f"cmd:{out}::{_python37()} my_player3.py")
    record = play_game(agent, make_player("random"), seed=8)
    assert record.reason == "end", record.detail
    assert record.winner in (BLACK, WHITE) and len(record.moves) >= 12


@pytest.mark.fast
@pytest.mark.parametrize("plies, close_stones", [(3, 0.5), (13, 0.5), (3, None)])
def test_with_close_stones_an_unclear_move_before_the_solving_ply_may_plan_to_the_cap(plies, close_stones, monkeypatch):
    from engine import agent
    from engine.search import Searcher

    asked = {}

    def spy(self, position, max_depth, cpu_budget=None, cpu_cap=None, node_budget=None, **unclear):
        asked.update(unclear, budget=cpu_budget, cap=cpu_cap)
        return Searcher.search(self, position, 1)

    monkeypatch.setattr(Searcher, "iterative", spy)
    monkeypatch.setattr(agent.Solver, "winning_move", lambda self, position, deadline: None)  # lost: search
    params = load_params(os.path.join(ROOT, "params.json"))._replace(close_stones=close_stones)
    position, _ = random_opening(plies, 7)
    assert agent.decide_move(position, params).how == "search"
    if close_stones is not None and plies < params.solve_from:
        assert asked["close"] > 0 and asked["hard_budget"] == asked["cap"] > asked["budget"]
    else:
        assert "close" not in asked and "hard_budget" not in asked


@pytest.mark.fast
def test_a_bundle_given_an_empty_book_writes_it(tmp_path):
    """An empty book is still a book: the bundle writes book.json for it (it was left out as falsy)."""
    from engine.book import Book, load_book

    empty = tmp_path / "empty-book.json"
    empty.write_text(Book({}).to_json())
    written = write_bundle(str(tmp_path / "out"), os.path.join(ROOT, "params.json"), book_path=str(empty))
    assert str(tmp_path / "out" / "book.json") in written
    assert len(load_book(str(tmp_path / "out" / "book.json"))) == 0
