"""Every failure a user can cause ends in a message, and no finished work is thrown away.

One test (or a few) per class of failure: an engine that fails while it is set up, an output
path that cannot be written, settings and files of the wrong shape, messages that say what
is wrong, several run folders where one is expected, SGF set-up stones, progress in a log.
"""

import io
import json
import os
import sys

import pytest
from sgfmill import sgf

from engine.book import Book, BookError
from engine.cli.littlego import main as littlego
from engine.common.progress import counter
from engine.play.executors import check_scheduler
from engine.play.game import play_game
from engine.players.base import Reason
from engine.players.scripted import RandomPlayer
from engine.players.specs import make_player
from engine.training.trainer import TrainingError, check_settings
from evolve.checkpoint import CHECKPOINT, RunError
from evolve.cli import _where_it_stands
from evolve.cli import main as evolve
from evolve.runs import read_generations
from tests.conftest import GENERATION, HANG, ROOT, cli

# Engines that fail while they are set up: one exits at once, one answers with the wrong words,
# one refuses every command.
REFUSER = "import sys\nfor line in sys.stdin:\n    sys.stdout.write('? no\\n\\n'); sys.stdout.flush()\n"


@pytest.fixture
def refuser(tmp_path):
    path = tmp_path / "refuser.py"
    path.write_text(REFUSER)
    return f"gtp:{sys.executable} {path}"


def run(tool, args, capsys):
    status = tool(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


# -- an engine that fails at set-up loses its game, with the reason --------------------------------


@pytest.mark.fast
@pytest.mark.parametrize("spec", ["gtp:false", "gtp:echo hi"])
def test_an_engine_that_closes_at_set_up_loses_the_game_with_the_reason(spec):
    record = play_game(make_player(spec), RandomPlayer(), seed=3)
    assert record.winner == 2 and record.reason == Reason.CRASH and "Black at set-up" in record.detail
    record = play_game(RandomPlayer(), make_player(spec), seed=3)
    assert record.winner == 1 and "White at set-up" in record.detail


# Slow set: a refusing engine loses in the default run in test_gtp's failing engines (16 s)
@pytest.mark.slow
def test_an_engine_that_refuses_every_command_loses_in_a_match_and_at_the_gtp(refuser, capsys):
    status, out, err = run(littlego, ["match", refuser, "random", "--games", "2", "--jobs", "1"], capsys)
    assert status == 0 and "bad-output 2" in out and "at set-up" in out
    process = cli("littlego", "gtp", "--player", refuser, stdin="genmove b\nquit\n", timeout=HANG)
    assert process.returncode == 0 and "= resign" in process.stdout and "failed at set-up" in process.stderr
    process = cli("littlego", "play", "gtp:false", stdin="quit\n", timeout=HANG)
    assert process.returncode == 0 and "loses before the game starts" in process.stdout
    assert "Traceback" not in process.stderr


# -- what a long command writes is checked before it works -----------------------------------------


@pytest.mark.fast
def test_an_output_folder_that_does_not_exist_is_refused_before_any_work(tmp_path, capsys):
    missing = str(tmp_path / "missing" / "out.json")
    status, _, err = run(evolve, ["label", "--positions", "5", "--out", missing], capsys)
    assert status == 2 and "no such folder to write out.json into" in err
    status, _, err = run(
        littlego, ["book", "extend", os.path.join(ROOT, "book.json"), "--max-ply", "11", "--out", missing], capsys
    )
    assert status == 2 and "no such folder" in err
    status, _, err = run(littlego, ["book", "build", "--out", str(tmp_path)], capsys)
    assert status == 2 and os.path.join(str(tmp_path), "book.json") in err  # the hint names a book
    status, _, err = run(evolve, ["label", "--positions", "5", "--out", str(tmp_path)], capsys)
    assert status == 2 and "labels.json.gz" in err


# -- settings and files of the wrong shape are refused where they are read -------------------------


@pytest.mark.fast
@pytest.mark.parametrize(
    "text",
    [
        "local:0",
        "local:9999",
        "tcp://host:0",
        "tcp://host:70000",
        "tls://host:0",
        "tcp://a b:1",
        "tcp://host",
        "udp://host:1",
    ],
)
def test_a_scheduler_dask_cannot_use_is_refused(text):
    with pytest.raises(ValueError, match="scheduler"):
        check_scheduler(text)


@pytest.mark.fast
def test_good_schedulers_pass():
    for text in (
        "local:1",
        "local:256",
        "tcp://127.0.0.1:8786",
        "tcp://[::1]:1",
        "tcp://node-3.example.org:65535",
        "tls://node-3.example.org:8786",
    ):
        assert check_scheduler(text) == text


@pytest.mark.fast
def test_a_failed_start_does_not_promise_a_checkpoint(tmp_path):
    class Args:
        run = [str(tmp_path)]

    assert "no checkpoint" in _where_it_stands(Args)
    (tmp_path / CHECKPOINT).write_bytes(b"x")
    assert f"evolve resume {tmp_path}" in _where_it_stands(Args)
    Args.run = None
    assert "no run folder" in _where_it_stands(Args)


@pytest.mark.fast
@pytest.mark.parametrize(
    "field, value, words",
    [
        ("max_ply", "ten", '"max_ply" must be a number'),
        ("max_ply", 99, "a ply from 0 to 24"),
        ("max_ply", None, '"max_ply" must be a number'),  # found by the long fuzz run
        ("start", 5, '"start" must be text'),
        ("provenance", [], '"provenance" must be an object'),
        ("side", True, '"side" must be text'),
    ],
)
def test_a_book_header_of_the_wrong_type_is_named(tmp_path, capsys, field, value, words):
    document = {"format": "littlego-book 2", "plies": {}, field: value}
    with pytest.raises(BookError, match=words):
        Book.from_json(json.dumps(document), "b.json")
    path = tmp_path / "b.json"
    path.write_text(json.dumps(document))
    for command in (["book", "check", str(path)], ["book", "extend", str(path), "--max-ply", "4"]):
        status, _, err = run(littlego, command, capsys)
        assert status == 2 and words in err and "playing without" not in err


@pytest.mark.fast
def test_a_book_start_that_is_no_position_is_named(tmp_path, capsys):
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"format": "littlego-book 2", "plies": {}, "start": "1 0 garbage"}))
    status, _, err = run(littlego, ["book", "check", str(path)], capsys)
    assert status == 2 and str(path) in err and "PLAYER PLY PREVIOUS CURRENT" in err


@pytest.mark.fast
@pytest.mark.parametrize(
    "settings, words",
    [
        ([], "must be an object"),
        ({"opponents": "random"}, "opponents must be a list"),
        ({"panel": [3]}, "panel must be a list"),
        ({"rewards": {"win": "1"}}, "rewards must be"),
        ({"rewards": {"win": float("nan"), "loss": -1, "draw": 0}}, "rewards must be"),
        ({"seed": "x"}, "seed must be an integer"),
        ({"horizon": 99}, "horizon must be at most"),
        ({"games": 1.5}, "games must be a positive integer"),
    ],
)
def test_training_settings_of_the_wrong_shape_are_named(settings, words):
    with pytest.raises(TrainingError, match=words):
        check_settings(settings)


@pytest.mark.fast
def test_a_training_folder_with_damaged_settings_is_refused_on_resume(tmp_path, capsys):
    (tmp_path / "settings.json").write_text(json.dumps({"opponents": "random"}))
    status, _, err = run(littlego, ["train", "qlearning", "--resume", str(tmp_path)], capsys)
    assert status == 2 and "not a training folder" in err and "opponents must be a list" in err


@pytest.mark.fast
@pytest.mark.parametrize(
    "change, words",
    [
        (lambda r: [], "must be an object"),
        (lambda r: dict(r, generation="0"), "generation must be an integer"),
        (lambda r: dict(r, best_fitness=[1]), "best_fitness must be two numbers"),
        (lambda r: dict(r, win_rate=None), "win_rate must be"),
        (lambda r: dict(r, games="ten"), "games must be a number"),
        (lambda r: dict(r, best_weights={}), "best_weights must be"),
    ],
)
def test_a_generation_line_that_is_json_but_not_a_generation_is_named(tmp_path, capsys, change, words):
    lines = [json.dumps(GENERATION), json.dumps(change(dict(GENERATION)))]
    (tmp_path / "generations.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(RunError, match="generations.jsonl:2: not a generation's record: .*" + words):
        read_generations(str(tmp_path))
    for command in ("log", "plot"):
        status, _, err = run(evolve, [command, str(tmp_path)], capsys)
        assert status == 2 and "generations.jsonl:2" in err


@pytest.mark.fast
@pytest.mark.parametrize("value", ["nan", "inf", "1e9", "-2000"])
def test_fit_refuses_a_captures_weight_the_file_would_rescale_or_cannot_hold(tmp_path, capsys, value):
    with pytest.raises(SystemExit) as exit_status:
        evolve(["fit", "x.json.gz", "--out", str(tmp_path / "p.json"), "--captures", value])
    assert exit_status.value.code == 2 and "a finite weight" in capsys.readouterr().err


# -- several run folders where one is expected -----------------------------------------------------


@pytest.mark.fast
def test_log_takes_several_runs_and_export_says_which_to_pick(tmp_path, capsys):
    for name in ("run-a", "run-b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "generations.jsonl").write_text(json.dumps(GENERATION) + "\n")
    runs = [str(tmp_path / "run-a"), str(tmp_path / "run-b")]
    status, out, _ = run(evolve, ["log"] + runs, capsys)
    assert status == 0 and out.count("best win") == 2 and runs[0] in out and runs[1] in out
    status, _, err = run(evolve, ["export"] + runs + ["--to", str(tmp_path / "p.json")], capsys)
    assert status == 2 and "give one run folder" in err and runs[1] in err


# -- messages that say what is wrong ---------------------------------------------------------------


@pytest.mark.fast
def test_an_off_board_sgf_move_and_set_up_stone_are_named(tmp_path, capsys):
    (tmp_path / "off.sgf").write_text("(;GM[1]FF[4]SZ[5];B[zz])")
    status, _, err = run(littlego, ["replay", str(tmp_path / "off.sgf")], capsys)
    assert status == 2 and "move 1: 'zz' is not a point of the 5x5 board" in err
    (tmp_path / "setup.sgf").write_text("(;GM[1]FF[4]SZ[5]AB[cc]AW[zz];B[aa])")
    status, _, err = run(littlego, ["replay", str(tmp_path / "setup.sgf")], capsys)
    assert status == 2 and "bad setup stones: a point off the 5x5 board in AB[cc] AW[zz]" in err


@pytest.mark.fast
@pytest.mark.parametrize(
    "setup, words",
    [
        ("AB[cc][dd]AW[cc]", "setup sets 2,2 more than once"),
        ("AB[cc]AE[cc]", "setup sets 2,2 more than once"),
        ("AB[aa]AW[ab][ba]", "setup stones with no liberty, which no game reaches: 0,0"),
        ("AW[aa][ab]AB[ac][ba][bb]", "no liberty, which no game reaches: 0,0 1,0"),
    ],
)
def test_sgf_setups_are_checked_as_positions(tmp_path, capsys, setup, words):
    (tmp_path / "setup.sgf").write_text(f"(;GM[1]FF[4]SZ[5]{setup})")
    status, _, err = run(littlego, ["solve", str(tmp_path / "setup.sgf")], capsys)
    assert status == 2 and words in err, err


@pytest.mark.fast
def test_a_python_solve_that_runs_out_of_time_names_the_compiled_solver(capsys):
    status, out, _ = run(littlego, ["solve", "--moves", "2,2", "--seconds", "0.05"], capsys)
    assert status == 1 and "--native" in out


# -- records ---------------------------------------------------------------------------------------


def test_printsgf_after_loading_set_up_stones_writes_a_record_sgfmill_reads(tmp_path):
    (tmp_path / "setup.sgf").write_text("(;GM[1]FF[4]SZ[5]AB[cc][dd]AW[ee]PL[W];W[aa])")
    commands = "loadsgf {}\nprintsgf\nquit\n".format(tmp_path / "setup.sgf")
    process = cli("littlego", "gtp", "--player", "random", stdin=commands, timeout=HANG)
    answers = process.stdout.split("\n\n")
    assert answers[0] == "= black" and answers[1].startswith("= (;")
    game = sgf.Sgf_game.from_bytes(answers[1][2:].encode())
    black, white, _ = game.get_root().get_setup_stones()
    assert len(black) == 2 and len(white) == 1 and game.get_root().get("PL") == "w"


# -- progress in a log -----------------------------------------------------------------------------


@pytest.mark.fast
def test_progress_in_a_log_is_a_line_every_tenth_or_every_few_seconds(monkeypatch):
    stream = io.StringIO()
    update = counter("solving", "position", 20, stream)
    for done in range(1, 21):
        update(done)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 10 and lines[-1].startswith("solving: 20 of 20 positions done")
    monkeypatch.setattr("engine.common.progress.LINE_SECONDS", 1e-9)
    stream = io.StringIO()
    update = counter("checking", "position", None, stream)
    update(5)
    assert "checking: 5 positions done" in stream.getvalue()


@pytest.mark.fast
def test_littlego_help_names_every_book_action(capsys):
    with pytest.raises(SystemExit):
        littlego(["--help"])
    assert "build, extend, merge, trim, upgrade or check" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        littlego(["book", "--help"])
    out = capsys.readouterr().out
    assert all(action in out for action in ("build", "extend", "merge", "trim", "upgrade", "check"))


@pytest.mark.fast
def test_a_setup_stone_record_is_solved_as_the_same_position_reached_by_moves(tmp_path, capsys):
    from engine.coords import move_from_text, to_ij
    from engine.position import Position

    moves = "2,2 2,4 0,1 1,4 4,0 3,4 3,1 2,1 4,3 3,2 2,3 0,4"  # 12 plies, no capture
    position = Position.initial()
    for word in moves.split():
        position = position.play_point(move_from_text(word))
    setup = {"B": [], "W": []}
    for point in range(25):
        colour = position.colour_at(point)
        if colour:
            i, j = to_ij(point)
            setup["B" if colour == 1 else "W"].append("[" + "abcde"[j] + "abcde"[i] + "]")  # SGF: column, row
    record = tmp_path / "setup.sgf"
    record.write_text("(;GM[1]FF[4]SZ[5]AB{}AW{}PL[B])".format("".join(setup["B"]), "".join(setup["W"])))
    words = ["solve", "--native", "--no-store", "--no-progress"]
    assert littlego(words + ["--moves", moves]) == 0
    by_moves = capsys.readouterr().out
    assert littlego(words + [str(record)]) == 0  # its plies inferred from its stones: 12

    def results(out):  # every line but the solver's node count (the boards before the last move differ)
        return [line for line in out.splitlines() if "nodes" not in line]

    assert results(capsys.readouterr().out) == results(by_moves) and "ply 12 of 24" in by_moves
    assert littlego(words + [str(record), "--plies", "14"]) == 0  # --plies honoured
    assert "ply 14 of 24" in capsys.readouterr().out
    assert littlego(words + [str(record), "--plies", "13"]) == 2
    assert "Black to move after 13 plies" in capsys.readouterr().err
