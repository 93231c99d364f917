"""``littlego check``: a player on the solved won positions, the references' recorded answers, the moves
that reach a position on the board, the state an agent keeps, and the report's text, JSON and SGF."""

import json
import os
import random
import shutil
import textwrap

import pytest
from sgfmill import sgf, sgf_grammar

from engine.constants import BLACK, PASS, WHITE
from engine.data import CHECK_ANSWERS, CHECK_POSITIONS
from engine.native.solver import position_from_text
from engine.players.gnugo import gnugo_path
from engine.players.program import ProgramPlayer
from engine.position import Position
from engine.ruler import reference_answers
from engine.ruler.check import asked_answers, run_check
from engine.ruler.check_report import check_json, format_check, misses_sgf
from engine.ruler.history import NoHistory, board_address, moves_to, shown_position
from engine.ruler.position_set import PositionSet, load_positions, save_positions
from engine.ruler.reference_answers import DEFAULT_REFERENCES, identity, load_answers, usable
from engine.sandbox.limits import DEFAULT_LIMITS
from tests.conftest import ROOT, cli

needs_gpp = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
needs_jdk = pytest.mark.skipif(shutil.which("javac") is None or shutil.which("java") is None, reason="needs a JDK")
EXPERIMENT_FILES = (
    "experiments/regret-20261127/fresh-3-8.json.gz",
    "experiments/regret-20261127/recorded-all-2-7.json.gz",
    "experiments/regret-20261125/positions-4-11.json.gz",
)

# An agent that counts its moves in a file of its folder, as many students' agents do, and plays the
# first empty point.
COUNTING_AGENT = textwrap.dedent(
    """\
    import os
    count = int(open("moves.txt").read()) if os.path.exists("moves.txt") else 0
    with open("moves.txt", "w") as handle:
        handle.write(str(count + 1))
    lines = open("input.txt").read().split()
    board = "".join(lines[6:11])
    point = board.index("0")
    with open("output.txt", "w") as handle:
        handle.write("{},{}".format(point // 5, point % 5))
    """
)


@pytest.fixture(scope="module")
def shipped():
    return load_positions(CHECK_POSITIONS)


@pytest.mark.fast
def test_the_shipped_set_is_the_benchmarks_files_merged(shipped):
    merged = [entry["file"] for entry in shipped.info["merged"]]
    assert merged == list(EXPERIMENT_FILES)
    assert len(shipped.won(True)) == 434  # held out, distinct under the board's symmetries
    assert os.path.getsize(CHECK_POSITIONS) < 100_000


@pytest.mark.fast
def test_every_position_of_the_shipped_set_is_reached_by_its_moves(shipped):
    for solved in shipped.positions:
        position = solved.position()
        moves = moves_to(position)
        assert shown_position(moves) == position  # board, previous board, ply and side to move
        assert len(moves) == solved.ply


@pytest.mark.fast
def test_the_moves_keep_the_ko_and_the_pass():
    # White's 1,1 just took Black's 1,2: Black may not take back at once (the KO), 8 plies in.
    ko = Position.from_picture(
        """
        .XO..
        XO.O.
        .XO..
        .....
        .....
        """,
        BLACK,
        previous="""
        .XO..
        X.XO.
        .XO..
        .....
        .....
        """,
        moves_played=8,
    )
    position = shown_position(moves_to(ko))
    assert position == ko and position.ko_mask() == 1 << 7
    # Black passed last: the move before that pass placed a stone (two passes would have ended the game).
    passed = Position.from_picture("X....\n.O...\n.....\n.....\n.....", WHITE, moves_played=3)
    moves = moves_to(passed)
    assert moves[-1] == PASS and moves[-2] != PASS and shown_position(moves) == passed
    assert board_address([12, 7, PASS]) == "#/board?moves=C3,C4,pass" and board_address([]) == "#/board"


@pytest.mark.fast
def test_a_board_no_game_reaches_has_no_moves():
    crowded = Position.from_boards(WHITE, "1111111110000000000000000", "1111111110000000000000000", 3)
    with pytest.raises(NoHistory):
        moves_to(crowded)
    with pytest.raises(NoHistory):
        moves_to(Position.from_boards(WHITE, "0" * 25, "0" * 25, 0))  # Black moves first


def _sample(positions, count, seed):
    won = [p for p in positions.positions if p.won]
    return [won[i] for i in sorted(random.Random(seed).sample(range(len(won)), count))]


@pytest.mark.parametrize("spec, count", [("alphabeta", 300), ("shipped", 25), ("gnugo", 12)])
def test_the_recorded_answers_are_what_the_references_answer(shipped, spec, count):
    if spec == "gnugo" and gnugo_path() is None:
        pytest.skip("needs GNU Go")
    recorded = load_answers(CHECK_ANSWERS, shipped).players[spec]
    assert recorded.identity == identity(spec), (
        f"{spec} changed since its answers were recorded: littlego check --record-references "
        "engine/data/check-answers.json.gz (docs/check.md)"
    )
    sample = _sample(shipped, count, seed=75)
    assert asked_answers(spec, sample) == [recorded.answers[p.text] for p in sample]


@pytest.mark.fast
def test_the_table_records_every_default_reference(shipped):
    recorded = load_answers(CHECK_ANSWERS, shipped)
    assert tuple(recorded.players) == DEFAULT_REFERENCES
    assert recorded.info["positions"]["won"] == sum(p.won for p in shipped.positions)


@pytest.mark.fast
def test_a_check_shows_the_references_recorded_at_once(shipped, tmp_path):
    positions = shipped.won(True)[:6]
    recorded = load_answers(CHECK_ANSWERS, shipped)
    result = run_check("greedy", positions, ("alphabeta", "shipped"), recorded, where="of a test")
    assert [p.recorded for p in result.references] == [True, True]
    assert result.checked.kept.won == 6 and not result.checked.recorded
    text = format_check(result, served="http://127.0.0.1:8561/?token=abc")
    assert "greedy" in text and "shipped (recorded)" in text
    for miss in result.checked.kept.misses:  # every miss: its board, its address, whole
        address = "http://127.0.0.1:8561/?token=abc" + board_address(moves_to(miss.solved.position()))
        assert address in text
    data = check_json(result)
    assert [m["position"] for m in data["misses"]] == [m.solved.text for m in result.checked.kept.misses]
    collection = sgf_grammar.parse_sgf_collection(misses_sgf(result))
    assert len(collection) == len(result.checked.kept.misses)
    for miss, tree in zip(result.checked.kept.misses, collection):
        game = sgf.Sgf_game.from_coarse_game_tree(tree)
        root = game.get_root()
        assert root.get("PL") == ("b" if miss.solved.colour == BLACK else "w")
        assert "winning moves" in root.get("C")


@pytest.mark.fast
def test_a_program_players_left_files_are_the_state_it_keeps(tmp_path):
    agent = tmp_path / "counting"
    agent.mkdir()
    (agent / "my_player3.py").write_text(COUNTING_AGENT)
    player = ProgramPlayer(str(agent), limits=DEFAULT_LIMITS)
    position = Position.initial().play_point(12)
    player.new_game(WHITE, 1)
    try:
        assert player.left_files() == []
        player.move(position)
        assert player.left_files() == ["moves.txt"]
    finally:
        player.close()
    assert player.left_files() == []


def test_check_names_the_files_an_agent_keeps_its_state_in(tmp_path):
    agent = tmp_path / "counting"
    agent.mkdir()
    (agent / "my_player3.py").write_text(COUNTING_AGENT)
    done = cli("littlego", "check", str(agent), "--limit", "3", "--no-references", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert "moves.txt (after 3 of 3)" in done.stdout
    assert "each position alone, in a fresh copy of its folder" in done.stdout


def _checked(tmp_path, folder, limit, *more):
    report = tmp_path / "check.json"
    done = cli(
        "littlego", "check", folder, "--limit", str(limit), "--jobs", "2", "--json", str(report), "--misses", "0", *more
    )
    assert done.returncode == 0, done.stderr
    budget = "each move held to 10 s of CPU, the course's limit" if not more else ""
    assert budget in done.stdout
    data = json.loads(report.read_text())
    assert data["checked"]["won"] == limit and data["checked"]["answers"] == "asked"
    assert [r["spec"] for r in data["references"]] == list(DEFAULT_REFERENCES)
    assert all(r["answers"] == "recorded" for r in data["references"])
    assert data["checked"]["state_files"] == {}
    return data


def test_a_python_agent_folder_is_checked(tmp_path):
    data = _checked(tmp_path, "examples/plain-python", 4)
    assert len(data["misses"]) == 4 - data["checked"]["kept"]
    smaller = _checked(tmp_path, "examples/plain-python", 2, "--cpu-limit", "2.5")  # a budget below the course's
    assert smaller["checked"]["asked"].endswith("each move held to 2.5 s of CPU, below the course's 10 s")


@needs_gpp
def test_a_cpp_agent_folder_is_built_once_and_checked(tmp_path):
    _checked(tmp_path, "examples/plain-cpp", 3)


@needs_jdk
def test_a_java_agent_folder_is_built_once_and_checked(tmp_path):
    _checked(tmp_path, "examples/plain-java", 3)


def test_check_writes_its_sgf_and_json_of_every_miss(tmp_path):
    report, record = tmp_path / "check.json", tmp_path / "misses.sgf"
    done = cli("littlego", "check", "random", "--limit", "8", "--json", str(report), "--sgf", str(record))
    assert done.returncode == 0, done.stderr
    data = json.loads(report.read_text())
    assert len(sgf_grammar.parse_sgf_collection(record.read_bytes())) == len(data["misses"]) > 0
    for miss in data["misses"]:
        assert miss["address"] == board_address(moves_to(position_from_text(miss["position"])))
        assert miss["address"] in done.stdout


@pytest.mark.parametrize(
    "args, words",
    [
        (["examples/no-such-agent"], "no such agent folder"),
        (["tests"], "holds no agent"),
        (["nonsense:1"], "unknown player"),
        (["greedy", "--positions", "README.md"], "README.md"),
        (["greedy", "--references", "alphabeta,nobody"], "unknown player"),
    ],
)
def test_a_mistake_is_one_line_and_status_2(args, words):
    done = cli("littlego", "check", *args)
    assert done.returncode == 2 and words in done.stderr and len(done.stderr.strip().split("\n")) == 1, done.stderr


def test_help_explains_check():
    done = cli("littlego", "check", "--help")
    assert done.returncode == 0 and "--record-references" in done.stdout and "held-out" in done.stdout
    assert os.path.isfile(os.path.join(ROOT, "docs", "check.md"))


@pytest.mark.fast
def test_recorded_answers_stand_only_for_the_player_they_were_recorded_of(shipped, monkeypatch):
    recorded = load_answers(CHECK_ANSWERS, shipped)
    won = shipped.won(True)[:5]
    stale = recorded.players["shipped"]._replace(identity={"params.json": "another", "book.json": "another"})
    changed = recorded._replace(players=dict(recorded.players, shipped=stale))
    answers, note = usable(changed, "shipped", won)
    assert answers is None and "params.json" in note and "book.json" in note
    monkeypatch.setattr(reference_answers, "gnugo_version", lambda: "")  # GNU Go not installed here
    answers, note = usable(recorded, "gnugo", won)
    assert answers == [recorded.players["gnugo"].answers[p.text] for p in won] and "not installed" in note
    assert usable(recorded, "greedy", won) == (None, "")  # never recorded: asked now


def test_record_references_writes_a_table_check_reads(shipped, tmp_path):
    small = PositionSet({"test": True}, tuple(shipped.positions[:40]))
    positions, table = tmp_path / "positions.json.gz", tmp_path / "answers.json.gz"
    save_positions(str(positions), small)
    done = cli(
        "littlego", "check", "--record-references", str(table), "--references", "alphabeta,greedy",
        "--positions", str(positions), "--jobs", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    recorded = load_answers(str(table), load_positions(str(positions)))
    won = [p for p in small.positions if p.won]
    assert list(recorded.players) == ["alphabeta", "greedy"] and recorded.info["command"].startswith("littlego check")
    assert [recorded.players["greedy"].answers[p.text] for p in won] == asked_answers("greedy", won)
    with pytest.raises(reference_answers.AnswersError):
        load_answers(str(table), shipped)  # the answers to other positions
