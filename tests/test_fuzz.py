"""Fuzzing with hypothesis: random bytes and random structures where users put files and arguments.

The agent must exit 2, writing nothing, when input.txt itself is not a game (that it answers
whatever params.json and its state file hold is tests/test_agent.py's property, whose
strategies the bundle's slow test here borrows); experiment configs must
load or fail with ConfigError; the two command-line tools must end with a status and at
most a clean message, never a traceback. Each property runs briefly in the default test
run and at length under ``--hypothesis-profile=long`` (the profiles: ``tests/conftest.py``).
"""

import io
import os
from contextlib import redirect_stderr, redirect_stdout

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PASS
from engine.agent import STATE_FILE
from engine.agent import main as agent_main
from engine.features import FEATURES
from engine.players.host import format_input, read_output
from engine.playout import random_opening
from evolve.config import ConfigError, load_config, validate
from tests.conftest import HANG, ROOT, examples
from tests.test_agent import params_files, state_files

COMMAND_LINES = examples(0.4)  # each a command run in-process

# -- the agent -------------------------------------------------------------------------------------


def agent_case(tmp_path, input_bytes):
    """Run the agent in-process on ``input_bytes`` with an empty params.json; (status, move or None)."""
    (tmp_path / "params.json").write_bytes(b"{}")
    (tmp_path / "input.txt").write_bytes(input_bytes)
    if (tmp_path / "output.txt").exists():
        (tmp_path / "output.txt").unlink()
    with redirect_stderr(io.StringIO()):
        status = agent_main(str(tmp_path / "params.json"), str(tmp_path))
    return status, read_output(str(tmp_path / "output.txt")) if (tmp_path / "output.txt").exists() else None


def bad_input_is_refused(tmp_path, input_bytes):
    status, move = agent_case(tmp_path, input_bytes)
    if status == 0:  # the random bytes happened to be a game
        assert move is not None
    else:
        assert status == 2 and move is None


input_files = st.binary(max_size=80) | st.lists(
    st.sampled_from(["1", "2", "0", "00000", "12012", "3", "\n", "\r\n", " ", "x"]), max_size=16
).map(lambda parts: "".join(parts).encode())


@pytest.mark.fast
@given(input_files)
def test_input_that_is_not_a_game_is_refused_cleanly(tmp_path_factory, input_bytes):
    bad_input_is_refused(tmp_path_factory.mktemp("input"), input_bytes)


# -- experiment configs ----------------------------------------------------------------------------

toml_scalars = (
    st.integers()
    | st.floats()
    | st.booleans()
    | st.text(max_size=6)
    | st.sampled_from(["greedy", "random", "handset@1", "ga", "cmaes", "hall_of_fame"])
)
config_objects = st.fixed_dictionaries(
    {},
    optional={
        "name": toml_scalars,
        "seed": toml_scalars,
        "population": st.integers(-2, 6) | toml_scalars,
        "generations": st.integers(-1, 3) | toml_scalars,
        "depth": st.integers(-1, 14) | toml_scalars,
        "strategy": toml_scalars,
        "workers": toml_scalars,
        "ga": st.dictionaries(
            st.sampled_from(
                ["tournament_size", "hall_of_fame", "mutation_sigma", "blend_alpha", "crossover_probability", "speed"]
            ),
            toml_scalars,
            max_size=4,
        ),
        "panel": st.lists(
            st.dictionaries(
                st.sampled_from(["opponent", "games", "weight", "random_opening", "x"]), toml_scalars, max_size=5
            ),
            max_size=3,
        )
        | toml_scalars,
        "self_play": st.dictionaries(st.sampled_from(["against", "opponents", "games", "weight"]), toml_scalars),
        "bounds": st.dictionaries(
            st.sampled_from(list(FEATURES) + ["speed"]),
            st.lists(st.floats() | st.integers(), max_size=3) | toml_scalars,
            max_size=3,
        ),
    },
)


def config_loads_or_names_the_problem(data):
    try:
        config = validate(data, "fuzz.toml")
    except ConfigError as error:
        assert "fuzz.toml" in str(error)
        return
    assert config.population >= 2 and config.panel


@pytest.mark.fast
@given(config_objects)
def test_configs_load_or_fail_with_config_error(data):
    config_loads_or_names_the_problem(data)


def config_file_loads_or_names_the_problem(tmp_path, raw):
    path = tmp_path / "fuzz.toml"
    path.write_bytes(raw)
    try:
        load_config(str(path))
    except ConfigError as error:
        assert str(path) in str(error)


config_files = st.binary(max_size=200) | st.lists(
    st.sampled_from(
        [
            'name = "x"\n',
            "seed = 1\n",
            "population = 4\n",
            "generations = 1\n",
            "[[panel]]\n",
            'opponent = "greedy"\n',
            "games = 2\n",
            "weight = inf\n",
            "[ga]\n",
            "hall_of_fame = 9\n",
            "[bounds]\n",
            "margin = [0, nan]\n",
            "\xff",
            "[[[\n",
            "= =\n",
        ]
    ),
    max_size=12,
).map(lambda parts: "".join(parts).encode("utf-8", "surrogateescape"))


@pytest.mark.fast
@given(config_files)
def test_config_files_load_or_fail_with_config_error(tmp_path_factory, raw):
    config_file_loads_or_names_the_problem(tmp_path_factory.mktemp("config"), raw)


# -- the command lines ------------------------------------------------------------------------------

# Words that make commands fail, or succeed fast: nothing here starts a long job.
LITTLEGO_WORDS = [
    "match",
    "bundle",
    "judge",
    "bench",
    "rules",
    "search",
    "random",
    "greedy",
    "agent@0",
    "cmd:",
    "gnugo:99",
    "bogus",
    "--games",
    "--jobs",
    "--seed",
    "--random-opening",
    "--cpu-limit",
    "--sgf",
    "--json",
    "--params",
    "--force",
    "-m",
    "--dir",
    "--max-depth",
    "--vectors",
    "--repeats",
    "0",
    "-1",
    "1",
    "2",
    "99",
    "nan",
    "inf",
    "x",
    "",
    "/nonexistent",
    "/dev/null",
    "--help",
]
EVOLVE_WORDS = [
    "run",
    "resume",
    "log",
    "plot",
    "export",
    "bench",
    "--workers",
    "--runs-dir",
    "--to",
    "--out",
    "--depth",
    "--games",
    "--opponent",
    "--json",
    "--no-progress",
    "/nonexistent",
    "/dev/null",
    "0",
    "-1",
    "x",
    "",
    "bogus",
    "--help",
]


def ends_cleanly(main, argv, workdir):
    """main(argv) returns a status or exits through argparse; no other exception, no traceback printed."""
    if "match" in argv and "--games" not in argv:
        argv = argv + ["--games", "2"]
    if "bench" in argv and ("rules" in argv or "search" in argv or main.__module__ == "evolve.cli"):
        return  # a real benchmark takes too long for a fuzz case
    if "bundle" in argv or "export" in argv or "plot" in argv or "--sgf" in argv:
        argv = [os.path.join(workdir, a) if a in ("x", "1", "2") else a for a in argv]
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exit:
            status = exit.code
    assert status in (0, 1, 2, 3, 4), (argv, status, err.getvalue())
    assert "Traceback" not in err.getvalue(), (argv, err.getvalue())


def cli_case(tmp_path, words, tool):
    from engine.cli.littlego import main as littlego
    from evolve.cli import main as evolve

    main = littlego if tool == "littlego" else evolve
    cwd = os.getcwd()
    os.chdir(str(tmp_path))
    try:
        ends_cleanly(main, words, str(tmp_path))
    finally:
        os.chdir(cwd)


cli_args = st.one_of(
    st.tuples(st.just("littlego"), st.lists(st.sampled_from(LITTLEGO_WORDS), max_size=7)),
    st.tuples(st.just("evolve"), st.lists(st.sampled_from(EVOLVE_WORDS), max_size=6)),
)


@pytest.mark.fast
@COMMAND_LINES
@given(cli_args)
def test_command_lines_end_cleanly(tmp_path_factory, case):
    tool, words = case
    cli_case(tmp_path_factory.mktemp("cli"), words, tool)


# -- the bundled submission, run as the course runs it ---------------------------------------------


@pytest.mark.slow
@settings(max_examples=60)
@given(params_files, state_files, st.integers(0, 20), st.integers(0, 10**6))
def test_the_bundle_always_answers(tmp_path_factory, params_bytes, state_bytes, plies, seed):
    import subprocess
    import sys

    from engine.submission.bundle import write_bundle

    folder = tmp_path_factory.mktemp("bundle")
    write_bundle(str(folder), os.path.join(ROOT, "params.json"))
    position, _ = random_opening(plies, seed)
    (folder / "params.json").write_bytes(params_bytes)
    (folder / STATE_FILE).write_bytes(state_bytes)
    (folder / "input.txt").write_text(
        format_input(position.player, position.previous_string(), position.board_string())
    )
    result = subprocess.run(
        [sys.executable, "my_player3.py"],
        cwd=str(folder),
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    move = read_output(str(folder / "output.txt"))
    assert position.is_over or move == PASS or position.is_legal(move)
