"""docs/add-a-feature.md followed end to end, in a copy of the tree: its three edits, then its checks.

The guide's edits are made as a reader makes them, by text, each at a line the guide names;
a line that is gone fails the test saying which step of the guide went stale. Every command
then runs in the copy (its folder first on the path, the compiled code cached apart), so the
copy's code is what answers: the compiled twin against the Python, a tiny native evolution,
its export, the bundle, and the bundled agent playing a move with the new weight.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

from engine.constants import BLACK, NUM_POINTS, WHITE
from engine.players.host import format_input, read_output
from engine.position import Position
from tests.conftest import HANG, ROOT

# The new feature: empty points that touch the mover's stones and none of the opponent's, minus
# the opponent's such points. A few bitboard operations in both languages, and not a sum of others.
NAME, BOUNDS = "influence", (-5.0, 5.0)
ROW = (
    '    Feature(name="influence", meaning="empty points next to the mover\'s stones and none of the opponent\'s, '
    f"minus the opponent's\", default=0.0, bounds={BOUNDS!r}),\n"
)
PYTHON = (
    '        "influence": count(empty & neighbours(own) & ~neighbours(opp))'
    " - count(empty & neighbours(opp) & ~neighbours(own)),\n"
)
C = "    f[FEATURE_INFLUENCE] = count(empty & nbrs(own) & ~nbrs(opp)) - count(empty & nbrs(opp) & ~nbrs(own));\n"

# What the commands need; experiments/ (megabytes of past runs) is left out.
COPIED = ("engine", "evolve", "tests", "pyproject.toml", "params.json", "book.json", "my_player3.py")
# The guide's checks less the one long search comparison (16 s): the features on every ply of the
# rules vectors and the searches on random weights (the new one among them) stay.
GUIDE_TESTS = [
    "tests/test_features.py",
    "tests/test_native.py",
    "tests/test_native_search.py",
    "-k",
    "not few_hundred_positions",
]
TINY_RUN = """
name = "feature"
seed = 5
population = 2
generations = 1
strategy = "ga"
depth = 1
jobs = 1

[ga]
tournament_size = 2
hall_of_fame = 1

[[panel]]
opponent = "greedy"
games = 2
random_opening = 2

[fitness]
engine = "native"
"""


def copy_tree(destination):
    """The parts of the repository the commands need, under ``destination`` (links kept as links)."""
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.egg-info", ".pytest_cache")
    for name in COPIED:
        source = os.path.join(ROOT, name)
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(destination, name), symlinks=True, ignore=junk)
        else:
            shutil.copy2(source, os.path.join(destination, name))


def insert(tree, name, step, after, text, before_line=None):
    """Put ``text`` just after the one occurrence of ``after`` in the file ``name`` of ``tree`` (or, given
    ``before_line``, just before the first line that is exactly it after that); a line that is gone fails
    naming the guide's step."""
    path = os.path.join(tree, name)
    with open(path) as handle:
        source = handle.read()
    where = source.find(after)
    if where < 0 or source.find(after, where + 1) >= 0:
        pytest.fail(
            f"docs/add-a-feature.md step {step} is stale: {name} no longer holds the line {after.strip()!r} once"
        )
    where += len(after)
    if before_line is not None:
        end = source.find("\n" + before_line + "\n", where - 1)
        if end < 0:
            pytest.fail(
                f"docs/add-a-feature.md step {step} is stale: no line {before_line!r} after {after.strip()!r} in {name}"
            )
        where = end + 1
    with open(path, "w") as handle:
        handle.write(source[:where] + text + source[where:])


def follow_the_guides_edits(tree):
    """The guide's three edits: the table's row, the Python computation, the C computation."""
    insert(tree, "engine/features.py", "1 (one row in FEATURE_TABLE)", "FEATURE_TABLE = (\n", ROW, before_line=")")
    insert(tree, "engine/features.py", "2 (its Python computation in feature_values)", "    values = {\n", PYTHON)
    insert(
        tree,
        "engine/native/search_features.h",
        "3 (its C computation in feature_values)",
        "static void feature_values(const pos_t *p, double *f) {\n",
        C,
        before_line="}",
    )


def run(tree, cache, *command):
    """A command run in ``tree``, first on the path; its result, or a failure showing its output."""
    env = dict(os.environ, PYTHONPATH=tree, XDG_CACHE_HOME=cache)
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(list(command), cwd=tree, env=env, capture_output=True, text=True, timeout=HANG)
    if done.returncode != 0:
        pytest.fail("{} failed ({}):\n{}\n{}".format(" ".join(command), done.returncode, done.stdout, done.stderr))
    return done


@pytest.mark.slow
def test_the_guide_adds_a_feature_that_evolves_and_ships(library, tmp_path):
    tree, cache = str(tmp_path / "tree"), str(tmp_path / "cache")
    copy_tree(tree)
    follow_the_guides_edits(tree)
    python = sys.executable

    # The copy's engine is the one imported, with the feature at the table's end.
    found = run(tree, cache, python, "-c", "import engine.features as f; print(f.__file__); print(f.FEATURES[-1])")
    assert found.stdout.split() == [os.path.join(tree, "engine", "features.py"), NAME]

    # The guide's checks: the compiled twin computes the feature as the Python does.
    run(tree, cache, python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *GUIDE_TESTS)

    # A tiny native evolution; its best weights exported over the copy's params.json, which
    # `littlego bundle` ships by default.
    with open(os.path.join(tree, "tiny.toml"), "w") as handle:
        handle.write(TINY_RUN)
    run(tree, cache, python, "-m", "evolve.cli", "run", "tiny.toml", "--runs-dir", "runs", "--no-progress")
    (run_dir,) = os.listdir(os.path.join(tree, "runs"))
    run(tree, cache, python, "-m", "evolve.cli", "export", os.path.join("runs", run_dir), "--to", "params.json")
    with open(os.path.join(tree, "params.json")) as handle:
        evolved = json.load(handle)["weights"]
    assert BOUNDS[0] <= evolved[NAME] <= BOUNDS[1]
    run(tree, cache, python, "-m", "engine.cli.littlego", "bundle", "submission", "--no-book")
    submission = os.path.join(tree, "submission")
    with open(os.path.join(submission, "params.json")) as handle:
        assert json.load(handle)["weights"] == evolved

    # The bundled agent, alone in its folder, answers White's first move by searching with the new weight.
    alone = str(tmp_path / "agent")
    shutil.copytree(submission, alone)
    empty, centre = "0" * NUM_POINTS, NUM_POINTS // 2
    black_first = empty[:centre] + str(BLACK) + empty[centre + 1 :]
    with open(os.path.join(alone, "input.txt"), "w") as handle:
        handle.write(format_input(WHITE, empty, black_first))
    played = run(alone, cache, python, "my_player3.py")
    assert played.stderr == ""  # no weight missing, no search failed
    position = Position.from_boards(WHITE, empty, black_first, 1)
    assert read_output(os.path.join(alone, "output.txt")) in position.legal_moves()
