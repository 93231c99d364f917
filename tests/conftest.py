"""Shared test helpers: the repository's root, the rules vectors, the compiled solver, positions turned."""

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, settings

from engine.constants import PASS
from engine.data import load_rules_vectors
from engine.native.compiler import NoCompiler, compiled_solver
from engine.native.search import native_library
from engine.native.solver import NativeSolver
from engine.params import default_params, params_to_dict
from engine.position import Position
from engine.sandbox import spares
from engine.solver import Solver

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLOW_TIMEOUT = 1800  # seconds a slow-set test may run before it fails (the default run's: pyproject.toml)
# No test waits on a wall-clock limit that a busy machine can exceed: a subprocess is waited for until it
# ends, and what stops a hang is the test's own timeout (pytest-timeout), which fails it at the line that
# waits. HANG is the bound for waits that take one (a subprocess's timeout), past every test's timeout.
HANG = SLOW_TIMEOUT


@pytest.fixture(autouse=True)
def no_spare_sandboxes():
    """No game's sandbox started ahead by one test is another's (``engine.sandbox.spares``)."""
    yield
    spares.close_all()


@pytest.fixture(autouse=True)
def private_store(tmp_path_factory, monkeypatch):
    """Every test's own store of solved positions (the tools read and grow one by default): never the
    user's, and never one another test filled; the path, for the tests that look into it."""
    path = tmp_path_factory.mktemp("store") / "solved.sqlite"
    monkeypatch.setenv("LITTLEGO_STORE", str(path))
    return path


# -- running the command-line tools as a user would ------------------------------------------------

TOOLS = {"littlego": "engine.cli.littlego", "evolve": "evolve.cli"}


def _command(tool, args):
    return [sys.executable, "-m", TOOLS.get(tool, tool)] + [str(arg) for arg in args]


def cli(tool, *args, cwd=ROOT, timeout=HANG, stdin=None):
    """Run ``littlego`` or ``evolve`` (or any module with a main) as a user would, from ``cwd``; the
    CompletedProcess, with text stdout and stderr."""
    return subprocess.run(
        _command(tool, args),
        cwd=str(cwd),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start_cli(tool, *args, cwd=ROOT, **options):
    """The same, started and left running: the Popen (to stop, kill or wait for)."""
    return subprocess.Popen(
        _command(tool, args),
        cwd=str(cwd),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        **options,
    )


# Fuzzing (tests/test_agent.py, tests/test_fuzz*.py): every property runs briefly in the default run
# ("quick") and at length with `--hypothesis-profile=long` (docs/development.md names the files).
FUZZ = dict(deadline=None, suppress_health_check=list(HealthCheck))
settings.register_profile("quick", max_examples=25, **FUZZ)
settings.register_profile("long", max_examples=1500, **FUZZ)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))


# A line of generations.jsonl as a run writes it, for the tests that break or fuzz one.
GENERATION = {
    "generation": 0,
    "best_fitness": [0.5, 1.0],
    "win_rate": {"mean": 0.4, "std": 0.1, "standard_error": 0.05},
    "best_by_colour": {"black": 0.5, "white": None},
    "diversity": 0.2,
    "games": 10,
    "seconds": 1.0,
    "games_per_second": 10.0,
    "best_weights": {"margin": 1.0},
}


def fast_params(**weights):
    """A params.json's bytes: the shipped defaults searched to depth 2 in at most a second, ``weights`` changed."""
    data = params_to_dict(default_params())
    data["search"] = {"depth": 2, "cpu_budget": 1.0}
    data["weights"].update(weights)
    return json.dumps(data).encode()


def examples(share):
    """Settings that try ``share`` of the profile's examples (at least 2): for properties whose examples
    are slow (a game, a process). Read when a test module is collected, after the profile is loaded."""
    return settings(max_examples=max(2, int(round(settings.default.max_examples * share))))


@pytest.fixture(scope="session")
def vector_games():
    return load_rules_vectors()


def wait_until(condition, what, process=None, poll=0.05):
    """Poll ``condition()`` until it is true, with no wall-clock limit: a hang is the test's timeout's to
    name. ``process``: a Popen whose end first fails the wait at once (it can no longer come true), saying
    ``what`` was waited for."""
    while not condition():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the process ended (exit {process.returncode}) before {what}")
        time.sleep(poll)


def wait_for_run_file(runs_dir, name, process=None):
    """The run folder under ``runs_dir`` once it holds ``name`` (a run started by another process)."""

    def folder():
        found = os.listdir(str(runs_dir)) if os.path.isdir(str(runs_dir)) else []
        return os.path.join(str(runs_dir), found[0]) if found else None

    wait_until(lambda: folder() and os.path.exists(os.path.join(folder(), name)), f"a run folder held {name}", process)
    return folder()


def kill_when_journal_holds(process, journal, lines):
    """SIGKILL ``process`` once its ``journal`` file holds ``lines`` lines; the games it holds then (its
    lines less the header)."""
    wait_until(
        lambda: journal.exists() and sum(1 for _ in open(str(journal))) >= lines,
        f"{journal} held {lines} lines",
        process,
    )
    process.send_signal(signal.SIGKILL)
    process.communicate()
    return sum(1 for _ in open(str(journal))) - 1


@pytest.fixture(scope="session")
def library():
    """The compiled searcher's library; a test needing it is skipped only where no C compiler is found
    (a failed build, or C that disagrees with the Python's features, fails it)."""
    try:
        return native_library()
    except NoCompiler as error:
        pytest.skip(str(error))


@pytest.fixture(scope="module")
def native():
    try:
        compiled_solver()
    except NoCompiler as error:  # a failed build or a mismatch fails instead
        pytest.skip(str(error))
    with NativeSolver(table_bits=18) as solver:
        yield solver


def turn(position, table):
    """``position`` turned by the point permutation ``table`` (both boards)."""

    def turned(board):
        cells = ["0"] * 25
        for point, cell in enumerate(board):
            cells[table[point]] = cell
        return "".join(cells)

    return Position.from_boards(
        position.player, turned(position.previous_string()), turned(position.board_string()), position.moves_played
    )


def random_position(rng, low, high, pass_rate=0.08):
    """A position from random moves (a pass now and then), between plies ``low`` and ``high``, not over."""
    while True:
        position = Position.initial()
        target = rng.randint(low, high)
        while position.moves_played < target and not position.is_over:
            legal = position.legal_points()
            move = PASS if not legal or rng.random() < pass_rate else rng.choice(legal)
            position = position.play_point(move)
        if not position.is_over:
            return position


def won_position(plies, seed):
    rng, solver = random.Random(seed), Solver()
    while True:
        position = random_position(rng, plies, plies, pass_rate=0.0)
        if position.moves_played == plies and solver.wins(position):
            return position


# -- the checkout under test is the one installed --------------------------------------------------


INSTALL_HERE = "run `pip install -e '.[test]'` in this checkout"


def _installed_elsewhere():
    """What is wrong when a process started outside this folder with a sandboxed agent's environment
    does not import this checkout's engine; None when it does."""
    import tempfile

    from engine.sandbox.bwrap import environment

    with tempfile.TemporaryDirectory() as home:
        found = subprocess.run(
            [sys.executable, "-c", "import engine, os; print(os.path.dirname(os.path.dirname(engine.__file__)))"],
            cwd=home,
            env=environment(home),
            capture_output=True,
            text=True,
            timeout=HANG,
        )
    where = found.stdout.strip()
    if found.returncode != 0:
        last = (found.stderr.strip().splitlines() or ["no message"])[-1]
        return f"{sys.executable} cannot import engine outside {ROOT} ({last})"
    if os.path.realpath(where) != os.path.realpath(ROOT):
        return f"{sys.executable} imports engine from {where}, another checkout than {ROOT}"
    return None


def pytest_configure(config):
    config._littlego_install = _installed_elsewhere()


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))


def pytest_report_header(config):
    problem = config._littlego_install
    if problem:
        return [f"WARNING: {problem}", f"  the sandboxed agents' tests will fail: first {INSTALL_HERE}"]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    problem = config._littlego_install
    if problem and exitstatus == pytest.ExitCode.TESTS_FAILED:
        terminalreporter.write_sep("=", "littlego is not installed from this checkout", yellow=True)
        terminalreporter.write_line(f"{problem}: the sandboxed agents import it from there (every move a fault).")
        terminalreporter.write_line(f"Test again, first {INSTALL_HERE} (the README's test command does).")


# -- littlego gtp in a process ------------------------------------------------------------------------


class Engine:
    """``littlego gtp`` in a subprocess, one command at a time."""

    def __init__(self, *args):
        self.process = start_cli("littlego", "gtp", *args, stdin=subprocess.PIPE)

    def raw(self, text):
        """Send text; the next response (lines up to the blank line), as the engine wrote it."""
        self.process.stdin.write(text)
        self.process.stdin.flush()
        lines = []
        while True:
            line = self.process.stdout.readline()
            assert line, "the engine closed its output; stderr: " + self.process.stderr.read()
            if line == "\n":
                return "".join(lines)
            lines.append(line)

    def ok(self, command):
        answer = self.raw(command + "\n")
        assert answer.startswith("="), (command, answer)
        return answer[1:].strip()

    def error(self, command):
        answer = self.raw(command + "\n")
        assert answer.startswith("?"), (command, answer)
        return answer[1:].strip()

    def close(self):
        self.process.stdin.close()
        return self.process.wait(timeout=HANG)


@pytest.fixture
def engine():
    gtp = Engine("--player", "handset@2")
    yield gtp
    gtp.process.kill()
    gtp.process.wait()
