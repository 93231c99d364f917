"""Hostile but realistic use: corrupt files, odd arguments, two commands at once, Ctrl-C, a full disk.

Each class of failure the issue lists has a test here: the agent always answers, a user's
mistake is one clear line and a non-zero exit, nonsense is refused on load, a run or training
folder handed over is data (reading it runs none of its code), one process at a time writes a
run, the bundle never half-overwrites, and the judge reads output.txt as the course's host does.
"""

import errno
import json
import os
import pickle
import random
import signal
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import BLACK, PASS, Position
from engine.agent import STATE_FILE
from engine.agent import main as agent_main
from engine.common import plain_state
from engine.constants import MAX_WEIGHT
from engine.features import make_evaluator
from engine.params import default_params, load_params
from engine.players.host import OutputFormatError, format_input, parse_output, read_output
from engine.players.qlearning import load_table
from engine.search import Searcher
from engine.submission.bundle import write_bundle
from engine.training import trainer
from evolve.checkpoint import CHECKPOINT, LEGACY_CHECKPOINT, LOCK, RunError, RunLock, load_checkpoint
from evolve.config import ConfigError, load_config
from evolve.loop import Evolution
from evolve.runs import read_generations
from tests.conftest import HANG, ROOT, cli, fast_params, start_cli, wait_for_run_file

EMPTY = "0" * 25
MIDGAME = ("1122100000" + "0" * 15, "1122102000" + "0" * 15)  # previous, current: White just played


def assert_one_clear_line(result, *words):
    """``result`` (a tool run by conftest's cli) failed with status 2 and one line on stderr naming ``words``."""
    status, err = result.returncode, result.stderr
    assert status == 2, err
    assert "Traceback" not in err
    lines = [
        line for line in err.splitlines() if line.strip() and not line.startswith("usage:") and not line.startswith(" ")
    ]
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], err


# -- the agent always answers --------------------------------------------------------------------


def play_once(folder, params_bytes=None, state_bytes=None, player=BLACK, boards=(EMPTY, EMPTY)):
    """Run the agent in-process in ``folder``; (exit status, the move written or None)."""
    if params_bytes is not None:
        (folder / "params.json").write_bytes(params_bytes)
    if state_bytes is not None:
        (folder / STATE_FILE).write_bytes(state_bytes)
    (folder / "input.txt").write_text(format_input(player, *boards))
    if (folder / "output.txt").exists():
        (folder / "output.txt").unlink()
    status = agent_main(str(folder / "params.json"), str(folder))
    move = read_output(str(folder / "output.txt")) if (folder / "output.txt").exists() else None
    return status, move


def assert_legal(move, player, boards):
    position = Position.from_boards(player, boards[0], boards[1], 2)
    assert move == PASS or position.is_legal(move), move


@pytest.mark.fast
def test_extreme_weights_are_scaled_with_a_warning_and_change_no_move(tmp_path):
    path = tmp_path / "params.json"
    path.write_bytes(fast_params(**{name: w * 1e6 for name, w in default_params().weights.items()}))
    warnings = []
    scaled = load_params(str(path), warn=warnings.append)
    assert warnings and "scaled" in warnings[0]
    assert max(abs(w) for w in scaled.weights.values()) == pytest.approx(MAX_WEIGHT)
    position = Position.from_boards(BLACK, *MIDGAME, moves_played=4)
    original = Searcher(make_evaluator(default_params().weights)).iterative(position, 4)
    tamed = Searcher(make_evaluator(scaled.weights)).iterative(position, 4)
    assert tamed.depth == 4 and tamed.move == original.move  # the search no longer stops at depth 1


@pytest.mark.fast
@pytest.mark.parametrize(
    "state",
    [
        "littlego-state 1\n1\n-7\n" + MIDGAME[0] + "\n",  # negative ply count
        "littlego-state 1\n1\n21\n" + MIDGAME[0] + "\n",  # more plies than the game allows here
        "littlego-state 1\n1\n1\n" + MIDGAME[0] + "\n",  # fewer plies than stones on the board
        "littlego-state 1\n1\n4\n" + MIDGAME[0] + "\n",  # Black's move on an odd ply
        "littlego-state 1\n1\n" + "9" * 5000 + "\n" + MIDGAME[0] + "\n",
    ],
)
def test_a_state_file_that_contradicts_the_boards_is_not_trusted(tmp_path, state, capsys):
    status, move = play_once(tmp_path, fast_params(), state.encode(), BLACK, MIDGAME)
    assert status == 0
    assert_legal(move, BLACK, MIDGAME)
    plies = int((tmp_path / STATE_FILE).read_text().split()[3]) - 1
    assert plies % 2 == 0 and 6 <= plies <= 22  # 6 stones: at least 6 plies, Black's parity


@pytest.mark.fast
def test_a_state_file_that_agrees_is_trusted(tmp_path):
    play_once(tmp_path, fast_params(), b"littlego-state 1\n1\n7\n" + MIDGAME[0].encode() + b"\n", BLACK, MIDGAME)
    assert (tmp_path / STATE_FILE).read_text().split()[3] == "9"  # ply 8 played, 9 after it


@pytest.mark.fast
def test_output_is_written_where_no_temporary_file_can_be_made(tmp_path, monkeypatch):
    """A read-only folder with a writable output.txt from the previous game (root ignores
    permissions, so the failure to create a temporary file is simulated)."""
    import tempfile

    (tmp_path / "output.txt").write_text("4,4")  # the previous game's answer
    (tmp_path / "params.json").write_bytes(fast_params())
    (tmp_path / "input.txt").write_text(format_input(BLACK, EMPTY, EMPTY))

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    assert agent_main(str(tmp_path / "params.json"), str(tmp_path)) == 0
    monkeypatch.undo()
    assert read_output(str(tmp_path / "output.txt")) != (4, 4)


# -- the judge reads output.txt as the course's host does ------------------------------------------


def course_read_output(path):
    """The course host's reading of output.txt, as its read.py does it: text mode, first line."""
    with open(path, encoding="utf-8") as handle:
        position = handle.readline().strip().split(",")
        if position[0] == "PASS":
            return PASS
        return int(position[0]), int(position[1])


@pytest.mark.fast
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.binary(max_size=12)
    | st.lists(
        st.sampled_from(
            [
                "1",
                "2",
                "0",
                "-1",
                ",",
                " ",
                "\t",
                "\r",
                "\n",
                "\r\n",
                "PASS",
                "pass",
                "_",
                "+",
                "x",
                "\xa0",
                "\u0663",
                "\x0b",
                "\x0c",
                "\x1c",
                "\u2028",
                "\x85",
            ]
        ),
        max_size=8,
    ).map(lambda parts: "".join(parts).encode("utf-8"))
)
def test_output_txt_is_read_exactly_as_the_course_reads_it(tmp_path, raw):
    path = tmp_path / "output.txt"
    path.write_bytes(raw)
    try:
        expected = course_read_output(str(path))
    except (ValueError, IndexError):  # UnicodeDecodeError is a ValueError
        expected = "unreadable"
    try:
        ours = read_output(str(path))
    except OutputFormatError:
        ours = "unreadable"
    assert ours == expected, raw


@pytest.mark.fast
def test_a_bare_carriage_return_ends_the_line():
    assert parse_output("2,3\rjunk") == (2, 3)
    with pytest.raises(OutputFormatError):
        parse_output("\r2,3")


# -- validation that refuses nonsense --------------------------------------------------------------

TINY = """
name = "tiny"
seed = 3
population = 4
generations = 2
strategy = "ga"
depth = 1
jobs = 1

[ga]
hall_of_fame = 1
tournament_size = 2

[[panel]]
opponent = "greedy"
games = 2
random_opening = 2
"""


@pytest.mark.fast
@pytest.mark.parametrize(
    "change, words",
    [
        (lambda t: t.replace("games = 2\n", "games = 2\nweight = inf\n"), "'panel[0].weight' must be a finite number"),
        (lambda t: t.replace("games = 2\n", "games = 2\nweight = nan\n"), "'panel[0].weight' must be a finite number"),
        (lambda t: t + "\n[self_play]\nweight = inf\n", "'self_play.weight' must be a finite number"),
        (lambda t: t + "\n[bounds]\nmargin = [0, inf]\n", "'bounds.margin'"),
        (lambda t: t + "\n[bounds]\nmargin = [-1e9, 0]\n", "'bounds.margin'"),
        (
            lambda t: t.replace("hall_of_fame = 1", "hall_of_fame = 4"),
            "'ga.hall_of_fame' = 4 must be less than the population",
        ),
        (lambda t: t.replace("tournament_size = 2", "tournament_size = 5"), "'ga.tournament_size' = 5"),
        (lambda t: t.replace("random_opening = 2", "random_opening = 30"), "'panel[0].random_opening' = 30"),
        (lambda t: t.replace("random_opening = 2", "random_opening = -1"), "'panel[0].random_opening' = -1"),
        (lambda t: t.replace("population = 4", "population = 100000000000"), "'population'"),
        (lambda t: t.replace("jobs = 1", "jobs = -1"), "'jobs' = -1"),
    ],
)
def test_configs_with_nonsense_are_refused_naming_the_key(tmp_path, change, words):
    path = tmp_path / "bad.toml"
    path.write_text(change(TINY))
    with pytest.raises(ConfigError) as error:
        load_config(str(path))
    assert words in str(error.value) and str(path) in str(error.value)


def test_a_config_that_is_not_utf8_is_one_clear_line(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(TINY.replace('"tiny"', '"t\xefny"').encode("latin-1"))
    assert_one_clear_line(cli("evolve", "run", path, "--runs-dir", tmp_path / "runs"), str(path), "UTF-8")
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "args, words",
    [
        (["match", "random", "random", "--random-opening", "23"], "--random-opening"),
        (["match", "random", "random", "--random-opening", "-1"], "--random-opening"),
        (["match", "random", "random", "--cpu-limit", "0"], "--cpu-limit"),
        (["match", "random", "random", "--cpu-limit", "nan"], "--cpu-limit"),
        (["match", "random", "random", "--games", "0"], "--games"),
        (["bench", "search", "--max-depth", "99"], "--max-depth"),
    ],
)
def test_littlego_refuses_nonsense_arguments(args, words):
    result = cli("littlego", *args)
    assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (["run", "experiments/smoke.toml", "--workers", "-1"], "--workers"),
        (["bench", "--games", "0"], "--games"),
        (["export", "RUN", "--to", "x.json", "--depth", "0"], "--depth"),
    ],
)
def test_evolve_refuses_nonsense_arguments(args, words, tmp_path):
    result = cli("evolve", *args, cwd=ROOT)
    assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr
    assert not os.path.exists(os.path.join(ROOT, "runs", "never"))


# -- user errors around runs: one clear line ----------------------------------------------------------


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A finished two-generation run folder."""
    folder = tmp_path_factory.mktemp("run")
    config = folder / "tiny.toml"
    config.write_text(TINY)
    evolution = Evolution.create(
        str(config), runs_dir=str(folder / "runs"), jobs=1, progress=False, out=open(os.devnull, "w")
    )
    return evolution.run()


def copy_run(run_dir, tmp_path):
    import shutil

    target = str(tmp_path / "run")
    shutil.copytree(run_dir, target)
    return target


def edited(**changes):
    """A damage: the checkpoint's JSON with ``changes`` made to its fields."""
    return lambda data: json.dumps(dict(json.loads(data), **changes)).encode()


@pytest.mark.parametrize(
    "damage, words",
    [
        (lambda data: data[: len(data) // 2], "not a readable checkpoint"),
        (lambda data: b"", "not a readable checkpoint"),
        (lambda data: b"\xff" + data, "not a readable checkpoint"),
        (lambda data: json.dumps(["a", "list"]).encode(), "not an evolve checkpoint"),
        (lambda data: json.dumps({"config": {}}).encode(), "not an evolve checkpoint"),
        (edited(population=[{"genes": ["a", "b"], "fitness": [1, 2]}]), "its population"),
    ],
)
@pytest.mark.parametrize("command", ["resume", "export"])
def test_a_damaged_checkpoint_is_one_clear_line(finished_run, tmp_path, damage, words, command):
    run = copy_run(finished_run, tmp_path)
    path = os.path.join(run, CHECKPOINT)
    data = open(path, "rb").read()
    open(path, "wb").write(damage(data))
    extra = ["--to", str(tmp_path / "p.json")] if command == "export" else []
    assert_one_clear_line(cli("evolve", command, run, *extra), CHECKPOINT, words)


@pytest.mark.fast
@pytest.mark.parametrize(
    "damage, field",
    [
        (edited(config=["not", "a", "config"]), "its config"),
        (edited(generation="one"), "its generation"),
        (edited(population=[{"genes": [0.5], "fitness": [1.0, 2.0]}]), "its population"),  # too few genes
        (edited(population=[{"genes": None, "fitness": [1.0]}]), "its population"),
        (edited(halloffame={"size": 1, "individuals": []}), "its halloffame"),  # export reads its first
        (edited(logbook={"header": None, "entries": [{"gen": "zero"}]}), "its logbook"),
        (edited(records="none"), "its records"),
        (edited(strategy={"theta": [0.5]}), "its strategy"),  # a GA keeps none
        (edited(random_state=[3, [0] * 10, None]), "its random_state"),
        (edited(random_state=[3, [-1] * 625, None]), "its random_state"),
        (edited(numpy_state=["MT19937", "words", 0, 0, 0.0]), "its numpy_state"),
        (edited(numpy_state=["MT19937", [2**40] * 624, 624, 0, 0.0]), "its numpy_state"),
    ],
)
def test_a_checkpoint_of_the_wrong_shape_names_the_file_and_the_field(finished_run, tmp_path, damage, field):
    run = copy_run(finished_run, tmp_path)
    path = os.path.join(run, CHECKPOINT)
    data = open(path, "rb").read()
    open(path, "wb").write(damage(data))
    with pytest.raises(RunError) as error:
        load_checkpoint(run)  # what export and resume read first
    assert str(error.value).startswith(f"{path}: not an evolve checkpoint") and field in str(error.value)


# -- a run folder handed over is data: reading it runs none of its code ------------------------------


class RunsCode:
    """What a crafted pickle holds: an object whose unpickling calls ``function(argument)``."""

    def __init__(self, function, argument):
        self.function, self.argument = function, argument

    def __reduce__(self):
        return self.function, (self.argument,)


CRAFTED = {  # each makes the file ``marker`` when unpickled
    "os.system": lambda marker: RunsCode(os.system, f"touch {marker}"),
    "builtins.exec": lambda marker: RunsCode(exec, f"open({str(marker)!r}, 'w').close()"),
}


def crafted_pickle(tmp_path, payload, marker):
    """A pickle that makes ``marker`` when read, inside the state of a checkpoint; shown to work first."""
    tried = tmp_path / "it-runs"
    pickle.loads(pickle.dumps(CRAFTED[payload](tried)))
    assert tried.exists()  # unpickled as pickle does, it runs its code
    return pickle.dumps({"config": CRAFTED[payload](marker), "generation": 0, "halloffame": []})


@pytest.mark.parametrize("payload", sorted(CRAFTED))
@pytest.mark.parametrize("command", ["resume", "export"])
def test_a_crafted_pickled_checkpoint_runs_no_code(finished_run, tmp_path, payload, command):
    run = copy_run(finished_run, tmp_path)
    marker = tmp_path / "it-ran"
    os.remove(os.path.join(run, CHECKPOINT))  # a run folder as a run from before JSON checkpoints left it
    open(os.path.join(run, LEGACY_CHECKPOINT), "wb").write(crafted_pickle(tmp_path, payload, marker))
    extra = ["--to", str(tmp_path / "p.json")] if command == "export" else []
    result = cli("evolve", command, run, *extra)
    assert not marker.exists() and not (tmp_path / "p.json").exists()  # its code never ran
    assert_one_clear_line(result, LEGACY_CHECKPOINT, "not an evolve checkpoint", payload.replace("os.", "posix."))


@pytest.mark.fast
def test_a_pickled_checkpoint_may_make_no_class_of_its_own(finished_run, tmp_path):
    # DEAP's creator pickles its classes as meta_create(name, base, attributes): one of another name is refused.
    from deap import creator

    evil = creator.meta_create("Evil", list, {})  # noqa: F841 (bound in deap.creator, as its pickles expect)
    run = copy_run(finished_run, tmp_path)
    os.remove(os.path.join(run, CHECKPOINT))
    open(os.path.join(run, LEGACY_CHECKPOINT), "wb").write(pickle.dumps({"population": [creator.Evil()]}))
    del creator.Evil
    with pytest.raises(RunError, match="not an evolve checkpoint.*'Evil'"):
        load_checkpoint(run)


TRAINING = {"games": 20, "opponents": ["random", "self"], "eval_every": 10, "eval_games": 2, "panel": ["random"]}


def training_folder(tmp_path):
    """A training folder made and not yet run (its settings.json alone)."""
    return trainer.Training.create(str(tmp_path / "training"), TRAINING).folder


@pytest.mark.parametrize("payload", sorted(CRAFTED))
def test_a_crafted_pickled_training_checkpoint_runs_no_code(tmp_path, payload):
    folder = training_folder(tmp_path)
    marker = tmp_path / "it-ran"
    open(os.path.join(folder, trainer.LEGACY_TRAINING_CHECKPOINT), "wb").write(
        crafted_pickle(tmp_path, payload, marker)
    )
    result = cli("littlego", "train", "qlearning", "--resume", folder)
    assert not marker.exists()  # its code never ran
    assert_one_clear_line(result, trainer.LEGACY_TRAINING_CHECKPOINT, "not a training checkpoint")


@pytest.mark.fast
@pytest.mark.parametrize(
    "state, words",
    [
        ("[1, 2", "not JSON"),
        ('["a", "list"]', "the checkpoint is an object"),
        ('{"table": [], "rng": [3, [], null], "done": 0, "curve": []}', "random state"),
        ('{"table": [["key", []]], "rng": null, "done": 0, "curve": []}', "key is an integer"),
        ('{"table": [[1, [[0, "high", 1]]]], "rng": null, "done": 0, "curve": []}', "value is a number"),
        ('{"table": [], "rng": null, "done": -1, "curve": []}', "games done"),
        ('{"table": [], "rng": null, "done": 0, "curve": [{"games": 10}]}', "curve lacks"),
    ],
)
def test_a_training_checkpoint_of_the_wrong_shape_names_the_file(tmp_path, state, words):
    folder = training_folder(tmp_path)
    rng = json.dumps(plain_state.random_state_to_json(random.Random(1).getstate()))
    path = os.path.join(folder, trainer.CHECKPOINT)
    open(path, "w").write(state.replace('"rng": null', f'"rng": {rng}'))
    with pytest.raises(trainer.TrainingError) as error:
        trainer.Training.resume(folder)
    assert str(error.value).startswith(f"{path}: not a readable checkpoint") and words in str(error.value)


def test_a_training_resumes_from_a_pickled_checkpoint_of_before_json(tmp_path, monkeypatch):
    # Plain data, as `littlego train` pickled it before checkpoints were JSON: read admitting no class at all,
    # it goes on to the table of a training never stopped, and a JSON checkpoint replaces it.
    quiet = lambda line: None  # noqa: E731
    whole = trainer.Training.create(str(tmp_path / "whole"), TRAINING).run(report=quiet)
    real_game = trainer.Training._game

    def cut_off(training, index, opponents):
        if index == TRAINING["eval_every"] + 2:
            raise KeyboardInterrupt
        real_game(training, index, opponents)

    monkeypatch.setattr(trainer.Training, "_game", cut_off)
    stopped = trainer.Training.create(str(tmp_path / "stopped"), TRAINING)
    with pytest.raises(KeyboardInterrupt):
        stopped.run(report=quiet)
    monkeypatch.undo()
    kept = json.load(open(os.path.join(stopped.folder, trainer.CHECKPOINT)))
    state = {
        "table": {
            key: {action: [value, updates] for action, value, updates in actions} for key, actions in kept["table"]
        },
        "rng": (kept["rng"][0], tuple(kept["rng"][1]), kept["rng"][2]),
        "done": kept["done"],
        "curve": kept["curve"],
    }
    assert state["done"] == TRAINING["eval_every"]
    open(os.path.join(stopped.folder, trainer.LEGACY_TRAINING_CHECKPOINT), "wb").write(pickle.dumps(state))
    os.remove(os.path.join(stopped.folder, trainer.CHECKPOINT))
    trainer.Training.resume(stopped.folder).run(report=quiet)
    assert (
        load_table(os.path.join(stopped.folder, trainer.TABLE))[0] == load_table(os.path.join(whole, trainer.TABLE))[0]
    )
    assert trainer.LEGACY_TRAINING_CHECKPOINT not in os.listdir(stopped.folder)


@pytest.mark.slow
def test_run_folder_arguments_that_name_the_wrong_kind_of_thing(finished_run, tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    config = tmp_path / "tiny.toml"
    config.write_text(TINY)
    assert_one_clear_line(cli("evolve", "run", config, "--runs-dir", a_file), "a-file", "not a folder")
    assert_one_clear_line(cli("evolve", "export", finished_run, "--to", tmp_path), "--to names a folder")
    assert_one_clear_line(cli("evolve", "plot", finished_run, "--out", a_file), "--out names a file")
    match = cli("littlego", "match", "random", "random", "--games", "2", "--sgf", a_file)
    assert_one_clear_line(match, "--sgf names a file")


def test_a_closed_pipe_is_not_an_error(finished_run):
    process = start_cli("evolve", "log", finished_run, "--json")
    process.stdout.read(10)
    process.stdout.close()  # as `| head -c 10` does
    err = process.stderr.read()
    process.wait(timeout=HANG)
    assert "Traceback" not in err and "Error" not in err


def test_a_full_disk_stops_the_run_cleanly_and_it_resumes(tmp_path, monkeypatch, capsys):
    import evolve.loop
    from evolve.cli import main

    config = tmp_path / "tiny.toml"
    config.write_text(TINY)
    reference = read_generations(
        Evolution.create(
            str(config), runs_dir=str(tmp_path / "reference"), jobs=1, progress=False, out=open(os.devnull, "w")
        ).run()
    )
    real_save = evolve.loop.save_checkpoint
    saved = []

    def disk_fills_after_one(run_dir, state):
        if saved:
            raise OSError(errno.ENOSPC, "No space left on device", os.path.join(run_dir, CHECKPOINT))
        saved.append(run_dir)
        real_save(run_dir, state)

    monkeypatch.setattr(evolve.loop, "save_checkpoint", disk_fills_after_one)
    assert main(["run", str(config), "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "evolve resume" in err and "Traceback" not in err
    monkeypatch.undo()
    run = saved[0]
    assert main(["resume", run, "--no-progress", "--jobs", "1"]) == 0

    def strip(records):
        return [(r.generation, r.best_fitness, r.individuals) for r in records]

    assert strip(read_generations(run)) == strip(reference)


def interruptible():
    """In the child: Ctrl-C as a terminal delivers it (a test run in the background inherits SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_leaves_a_clean_message_no_worker_traceback_and_a_resumable_run(tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text(TINY.replace("generations = 2", "generations = 40").replace("depth = 1", "depth = 2"))
    process = start_cli(
        "evolve",
        "run",
        config,
        "--runs-dir",
        tmp_path / "runs",
        "--workers",
        "2",
        "--no-progress",
        start_new_session=True,
        preexec_fn=interruptible,
    )
    run_dir = wait_for_run_file(tmp_path / "runs", CHECKPOINT, process)  # the first generation is checkpointed
    os.killpg(process.pid, signal.SIGINT)  # a terminal sends it to the whole group
    out, err = process.communicate(timeout=HANG)
    assert process.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    done = len(read_generations(run_dir))
    assert 1 <= done < 41
    assert cli("evolve", "log", run_dir).returncode == 0


def test_a_kill_stops_a_run_as_ctrl_c_does(tmp_path):
    # SIGTERM to the main process alone (kill PID, a batch system's stop): the same message and
    # status as Ctrl-C, no traceback from the workers left behind, the run resumable.
    config = tmp_path / "tiny.toml"
    config.write_text(TINY.replace("generations = 2", "generations = 40").replace("depth = 1", "depth = 2"))
    process = start_cli("evolve", "run", config, "--runs-dir", tmp_path / "runs", "--jobs", "2", "--no-progress")
    run_dir = wait_for_run_file(tmp_path / "runs", CHECKPOINT, process)
    process.terminate()
    out, err = process.communicate(timeout=HANG)
    assert process.returncode == 130, err
    assert "interrupted" in err and "evolve resume" in err and "Traceback" not in err
    assert "fix the cause" not in err  # nothing failed: the run resumes as it is
    assert 1 <= len(read_generations(run_dir)) < 41


# -- one writer per run -----------------------------------------------------------------------------


def test_a_resume_is_refused_while_another_process_holds_the_run(tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text(TINY.replace("generations = 2", "generations = 6"))
    evolution = Evolution.create(
        str(config), runs_dir=str(tmp_path / "runs"), jobs=1, progress=False, out=open(os.devnull, "w")
    )
    run_dir = evolution.run(stop_after=1)
    before = read_generations(run_dir)
    holder = RunLock(run_dir).acquire()  # this process plays the other writer
    try:
        result = cli("evolve", "resume", run_dir, "--jobs", "1", "--no-progress")
    finally:
        holder.release()
    assert result.returncode == 2
    assert f"in use by process {os.getpid()}" in result.stderr and "Traceback" not in result.stderr
    assert read_generations(run_dir) == before


def test_two_concurrent_resumes_write_each_generation_once(tmp_path):
    # Whether the second resume is refused or finds the run already finished depends on timing;
    # either way no generation may be written twice.
    config = tmp_path / "tiny.toml"
    config.write_text(TINY.replace("generations = 2", "generations = 6") + '\n[fitness]\nengine = "python"\n')
    evolution = Evolution.create(
        str(config), runs_dir=str(tmp_path / "runs"), jobs=1, progress=False, out=open(os.devnull, "w")
    )
    run_dir = evolution.run(stop_after=1)
    resumes = [start_cli("evolve", "resume", run_dir, "--jobs", "1", "--no-progress") for _ in range(2)]
    results = [(p.wait(timeout=HANG), p.stderr.read()) for p in resumes]
    statuses = sorted(status for status, _ in results)
    assert statuses in ([0, 0], [0, 2]), results
    for status, err in results:
        assert "Traceback" not in err
        if status == 2:
            assert "in use by process" in err
    generations = [r.generation for r in read_generations(run_dir)]
    assert generations == list(range(7))


def test_a_lock_left_by_a_killed_process_is_taken_over(tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text(TINY)
    process = start_cli(
        "evolve",
        "run",
        config,
        "--runs-dir",
        tmp_path / "runs",
        "--workers",
        "1",
        "--no-progress",
        start_new_session=True,
    )
    run_dir = wait_for_run_file(tmp_path / "runs", LOCK, process)
    os.killpg(process.pid, signal.SIGKILL)
    process.communicate()
    assert f"process {process.pid}" in open(os.path.join(run_dir, LOCK)).read()
    result = cli("evolve", "resume", run_dir, "--jobs", "1", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert [r.generation for r in read_generations(run_dir)] == [0, 1, 2]


@pytest.mark.fast
def test_runs_started_together_never_share_a_folder(tmp_path):
    config = tmp_path / "tiny.toml"
    config.write_text(TINY.replace("generations = 2", "generations = 1"))
    runs = [
        Evolution.create(
            str(config), runs_dir=str(tmp_path / "runs"), jobs=1, progress=False, out=open(os.devnull, "w")
        )
        for _ in range(3)
    ]
    assert len({run.run_dir for run in runs}) == 3
    for run in runs:
        run.lock.release()


# -- the bundle ---------------------------------------------------------------------------------------


def test_the_bundle_refuses_to_overwrite_unless_forced(tmp_path):
    out = tmp_path / "submission"
    write_bundle(str(out), os.path.join(ROOT, "params.json"))
    (out / "params.json").write_text("mine")
    assert_one_clear_line(cli("littlego", "bundle", out), "already there", "--force")
    assert (out / "params.json").read_text() == "mine"
    result = cli("littlego", "bundle", out, "--force")
    assert result.returncode == 0, result.stderr
    assert json.loads((out / "params.json").read_text())["weights"]
    assert sorted(os.listdir(str(out))) == ["book.json", "my_player3.py", "params.json"]  # the shipped book too


@pytest.mark.fast
def test_the_bundle_leaves_nothing_half_written(tmp_path):
    out = tmp_path / "submission"
    (out / "params.json").mkdir(parents=True)  # a target that is a folder
    assert_one_clear_line(cli("littlego", "bundle", out, "--force"), "params.json", "is a folder")
    assert sorted(os.listdir(str(out))) == ["params.json"]  # no player, no stray temporary file


HANGING_CLEANUP = """
import sys, threading, time, types
import engine.cli.parts.exits as exits
exits.INTERRUPT_GRACE = 1.0
lock = threading.Lock()
def handler(args):
    lock.acquire()
    try:
        print("ready", flush=True)
        time.sleep(60)
    finally:
        lock.acquire()  # a lock the interrupt left held: this cleanup waits for ever
args = types.SimpleNamespace(command="demo", handler=handler)
sys.exit(exits.run_command("littlego", args, on_interrupt="interrupted: resume it"))
"""


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_an_interrupt_whose_cleanup_hangs_still_ends_the_process_with_its_message(number):
    process = subprocess.Popen(
        [sys.executable, "-c", HANGING_CLEANUP], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout.readline() == "ready\n"
    process.send_signal(number)
    out, err = process.communicate(timeout=HANG)
    assert process.returncode == 130
    assert "interrupted: resume it" in err and "did not end within 1 s of the interrupt: ended" in err
