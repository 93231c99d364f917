"""The compiled solver against the Python rules and solver, and the game's numbers it is compiled with."""

import os
import random

import pytest

import engine.native.search as native_searcher
from engine import BLACK, Position
from engine.constants import KOMI, MAX_MOVES, NUM_POINTS
from engine.features import FEATURES
from engine.native.compiler import SOLVER_SOURCE, NativeError, NoCompiler, compiled_solver, game_defines
from engine.native.solver import NATIVE_PASS, NativeSolver
from engine.solver import Solver
from engine.symmetry import SYMMETRIES
from tests.conftest import random_position, won_position


def test_the_compiled_solver_agrees_with_the_python_rules_and_solver_on_every_move(native):
    # Every legal move (the C program's legality) and its exact result, against engine.position
    # and engine.solver, on late positions with captures, passes and KO points among them.
    rng, python = random.Random(1), Solver()
    kinds = {"capture": 0, "ko": 0, "passed": 0}
    for _ in range(120):
        position = random_position(rng, 15, 23)
        expected = {move: not python.wins(position.play_point(move)) for move in position.all_moves()}
        assert native.move_results(position) == expected, position
        kinds["ko"] += bool(position.ko_mask())
        kinds["passed"] += position.passed
        kinds["capture"] += position.mover_lost_stones()
    assert all(kinds.values()), kinds  # the sample holds each special case


@pytest.mark.fast
def test_the_compiled_solver_says_a_finished_position_by_its_score(native):
    position = Position.from_picture(
        """
        XXXXX
        XXXXX
        XX.OO
        OOOOO
        OOOOO""",
        player=BLACK,
        moves_played=22,
    )
    assert native.wins(position) == Solver().wins(position)


@pytest.mark.fast
def test_a_bad_request_is_a_clear_error(native):
    with pytest.raises(NativeError, match="refused"):
        native._ask("wins 3 0 000 000")
    late = won_position(16, seed=4)
    assert native.wins(late) is True  # still answering after it


@pytest.mark.fast
def test_the_compiled_sources_take_the_games_numbers_from_the_constants():
    defines = game_defines()
    for margin in range(-NUM_POINTS, NUM_POINTS + 1):
        assert (margin >= defines["BLACK_WINS_FROM"]) == (margin - KOMI > 0)  # Black's stones minus White's
        assert (margin >= defines["WHITE_WINS_FROM"]) == (margin + KOMI > 0)  # White's stones minus Black's
    assert defines["PASS"] == NATIVE_PASS == NUM_POINTS and defines["MAX_MOVES"] == MAX_MOVES
    assert defines["SYMMETRY_POINTS"] == "{" + ",".join("{" + ",".join(map(str, t)) + "}" for t in SYMMETRIES) + "}"
    with open(SOLVER_SOURCE) as handle:
        source = handle.read()
    for literal in (
        "d >= 3",
        "d >= -2",
        "? 3 : -2",
        "player == 1",
        "3 - ",
        "#define PASS",
        "#define MAX_MOVES",
        "#define N ",
    ):
        assert literal not in source


def test_a_damaged_cached_solver_is_compiled_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    try:
        binary = compiled_solver()
    except NoCompiler as error:  # a failed build or a mismatch fails instead
        pytest.skip(str(error))
    with open(binary, "wb"):
        pass  # an empty file where the program was
    assert compiled_solver() == binary and os.path.getsize(binary) > 0
    with NativeSolver(table_bits=16) as solver:
        assert solver.wins(won_position(16, seed=4)) is True


def _searcher_built_with(monkeypatch, tmp_path, features):
    """search.c built and loaded as if FEATURE_TABLE named ``features`` (in a cache of its own)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(native_searcher, "FEATURES", features)
    native_searcher.native_library.cache_clear()
    try:
        return native_searcher.native_library()
    finally:
        native_searcher.native_library.cache_clear()


@pytest.mark.fast
def test_a_feature_the_c_never_computes_fails_loudly_naming_it(monkeypatch, tmp_path):
    try:
        native_searcher.native_library()
    except NoCompiler as error:
        pytest.skip(str(error))
    with pytest.raises(NativeError, match=r"does not compute the feature triangles .*f\[FEATURE_TRIANGLES\]"):
        _searcher_built_with(monkeypatch, tmp_path, FEATURES + ("triangles",))
    monkeypatch.setattr(native_searcher, "FEATURES", FEATURES + ("triangles",))
    with pytest.raises(NativeError):  # and it is never taken for "no compiler here"
        native_searcher.native_available()


@pytest.mark.fast
def test_a_c_feature_the_table_lacks_does_not_build(monkeypatch, tmp_path):
    try:
        native_searcher.native_library()
    except NoCompiler as error:
        pytest.skip(str(error))
    with pytest.raises(NativeError, match="FEATURE_EYES"):
        _searcher_built_with(monkeypatch, tmp_path, tuple(name for name in FEATURES if name != "eyes"))
