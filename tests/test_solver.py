"""The exact solver against plain minimax to the end, the agent keeping won positions won, search
limits (CPU cap, node budget), and the SPRT of matches."""

import math
import time

import pytest

from engine import PASS, Position
from engine.agent import choose_move
from engine.bitboard import points_of
from engine.constants import WHITE
from engine.features import make_evaluator
from engine.params import default_params
from engine.play.match import run_match
from engine.play.settings import GameSettings
from engine.play.stats import sprt_bounds, sprt_llr
from engine.playout import random_opening
from engine.search import Searcher, terminal_value
from engine.solver import Solver, settled_win_loss
from tests.conftest import HANG, cli


def minimax_margin(position):
    """The exact margin for the side to move, by plain minimax over every move to the end."""
    if position.is_over:
        return position.margin()
    return max(-minimax_margin(position.play_point(move)) for move in points_of(position.legal_mask()) + [PASS])


def late_positions(plies, count):
    found, seed = [], 0
    while len(found) < count:
        position, _ = random_opening(plies, seed)
        seed += 1
        if not position.is_over:
            found.append(position)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("plies", [18, 19, 20, 21])
def test_the_solver_agrees_with_plain_minimax(plies):
    for position in late_positions(plies, 6):
        exact = minimax_margin(position)
        solver = Solver()
        assert solver.wins(position) == (exact > 0)
        assert solver.margin(position) == exact
        move, margin = solver.best_move(position)
        assert margin == exact and -minimax_margin(position.play_point(move)) == exact
        for move, value in solver.move_values(position).items():
            assert value == -minimax_margin(position.play_point(move))
        winning = solver.winning_move(position)
        if exact > 0:
            assert minimax_margin(position.play_point(winning)) < 0
            assert set(solver.winning_moves(position)) == {
                m for m in points_of(position.legal_mask()) + [PASS] if minimax_margin(position.play_point(m)) < 0
            }
        else:
            assert winning is None and solver.winning_moves(position) == []


WALL = """
    XXXXX
    XXXXX
    X.X..
    .....
    O...O"""


@pytest.mark.fast
def test_a_group_with_more_liberties_than_plies_left_settles_the_game():
    # Black's 12 stones have 5 liberties with 4 plies left: no sequence captures them, and
    # White's 2 stones plus 2 moves cannot come within komi.
    assert settled_win_loss(Position.from_picture(WALL, moves_played=20)) == 1.0
    assert settled_win_loss(Position.from_picture(WALL, player=WHITE, moves_played=21)) == -1.0
    # with 6 plies left the 5 liberties could all be filled: nothing is certain
    assert settled_win_loss(Position.from_picture(WALL, moves_played=18)) is None
    assert settled_win_loss(Position.from_picture(WALL, player=WHITE, moves_played=19)) is None


@pytest.mark.fast
def test_settled_results_agree_with_search_to_the_end():
    """Every position the static bound settles has that result by a full search (a searcher
    without the bound, itself checked against plain minimax above)."""
    plain = Searcher(lambda position, captured=0: 0.0, terminal=terminal_value)
    settled = 0
    for plies in (20, 21, 22, 23):
        for position in late_positions(plies, 60):
            value = settled_win_loss(position)
            if value is not None:
                settled += 1
                exact = plain.value(position, 24 - plies, -float("inf"), float("inf"))
                assert (value > 0) == (exact > 0), position
    assert settled >= 30


def test_the_agent_keeps_a_won_position_won_from_the_solving_ply():
    params = default_params()._replace(solve_from=12, cpu_budget=1.0, cpu_cap=4.0)
    checked = 0
    for position in late_positions(16, 12):
        solver = Solver()
        if not solver.wins(position):
            continue
        move = choose_move(position, params)
        assert not Solver().wins(position.play_point(move)), position
        checked += 1
    assert checked >= 3


def test_no_move_passes_the_cpu_cap():
    params = default_params()._replace(depth=12, cpu_budget=0.2, cpu_cap=0.3, solve_from=10)
    for position in late_positions(4, 2) + late_positions(10, 2):
        start = time.process_time()
        move = choose_move(position, params)
        assert time.process_time() - start < 0.3 + 0.25  # one node-check interval past the cap at most
        position.play_point(move)  # legal: IllegalMove otherwise


def test_a_node_budget_gives_the_same_move_on_any_machine():
    evaluate = make_evaluator(default_params().weights)
    position = late_positions(6, 1)[0]
    first = Searcher(evaluate).iterative(position, 12, node_budget=20000)
    second = Searcher(evaluate).iterative(position, 12, node_budget=20000)
    assert (first.move, first.depth, first.value) == (second.move, second.depth, second.value)
    assert first.depth < 12


@pytest.mark.fast
def test_the_budget_stops_deepening_and_the_cap_stops_a_search():
    evaluate = make_evaluator(default_params().weights)
    position = late_positions(3, 1)[0]
    start = time.process_time()
    result = Searcher(evaluate).iterative(position, 12, cpu_budget=0.1, cpu_cap=0.5)
    assert time.process_time() - start < 0.5 + 0.25 and 1 <= result.depth < 12


@pytest.mark.fast
def test_the_sprt_ratio_and_bounds():
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(math.log(0.95 / 0.05))
    p0, p1 = 0.5, 1 / (1 + 10 ** (-20 / 400))
    assert sprt_llr(30, 20, 0, 20) == pytest.approx(30 * math.log(p1 / p0) + 20 * math.log((1 - p1) / (1 - p0)))


@pytest.mark.fast
def test_a_match_stops_when_the_sprt_decides():
    summary, games = run_match("greedy", "random", 400, GameSettings(jobs=1, progress=False), sprt=(0, 150))
    test = summary.sprt
    assert test.decision == "H1" and len(games) < 400 and len(games) % 2 == 0
    assert test.llr >= test.upper
    summary, games = run_match("random", "random", 600, GameSettings(jobs=2, progress=False, seed=2), sprt=(100, 200))
    assert summary.sprt.decision == "H0" and len(games) < 600


def test_solve_prints_every_moves_exact_value():
    moves = "2,2 1,2 2,1 1,1 3,2 2,3 1,3 3,3 2,4 0,3 3,1 4,3 1,4 0,1 4,2 0,2 0,0 1,0"
    result = cli("littlego", "solve", "--moves", moves, timeout=HANG)
    assert result.returncode == 0, result.stderr
    position = Position.initial()
    for text in moves.split():
        i, j = (int(x) for x in text.split(","))
        position = position.play_point(5 * i + j)
    exact = minimax_margin(position)
    assert (
        "Black to move {} with perfect play, by {:g}".format("wins" if exact > 0 else "loses", abs(exact))
        in result.stdout
    )
    assert result.stdout.count("  win ") + result.stdout.count("  loss") == len(points_of(position.legal_mask())) + 1


@pytest.mark.fast
def test_bench_solve_reports_the_nodes_it_counted():
    from engine.submission.speed import bench_solve

    lines = []
    result = bench_solve(plies=(18,), positions=2, seed=3, report=lines.append)
    (row,) = result["plies"]
    assert row["ply"] == 18 and row["positions"] == 2 and row["nodes"] > 2
    assert "{:,} nodes".format(row["nodes"]) in lines[0]


@pytest.mark.fast
def test_bench_solve_on_recorded_games_counts_what_finishes_within_each_editions_share(tmp_path):
    from engine.course.editions import EDITIONS
    from engine.data import SHIPPED_PARAMS
    from engine.params import load_params
    from engine.play.sgf import game_sgf, sgf_name
    from engine.submission.speed import bench_solve, solving_shares

    folder = tmp_path / "games-sgf"
    folder.mkdir()
    moves = ["0,0", "4,4", "0,4", "4,0", "1,1", "3,3", "1,3", "3,1", "2,0", "2,4", "0,2", "4,2", "1,2", "3,2"]
    turned = ["4,4", "0,0", "4,0", "0,4", "3,3", "1,1", "3,1", "1,3", "2,4", "2,0", "4,2", "0,2", "3,2", "1,2"]
    for index, game in enumerate((moves, turned, moves[:10])):  # the turned game is the same positions
        (folder / sgf_name(index)).write_bytes(game_sgf(game))
    lines = []
    result = bench_solve(plies=(12, 14), positions=5, report=lines.append, records=(str(folder),))
    assert result["source"] == "records" and [row["positions"] for row in result["plies"]] == [1, 1]
    shares = solving_shares(load_params(SHIPPED_PARAMS))
    assert set(shares) == {e.key for e in EDITIONS} and shares["earlier"] < shares["fall2020"] < shares["fall2023"]
    row = result["plies"][0]
    assert all(0 <= row["within_solving_share"][key] <= 1 for key in shares)
    assert all(f"{key} ({share:.2f} s)" in lines[0] for key, share in shares.items())
