"""Alpha-beta: same values as plain minimax, exact endgames, reproducible tie-breaks."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import BLACK, MAX_MOVES, PASS, Position
from engine.bitboard import points_of
from engine.features import make_evaluator
from engine.params import DEFAULT_WEIGHTS
from engine.playout import random_opening
from engine.search import WIN, Searcher, terminal_value

# Path-independent weights (no captures-since-root term), so the table cannot change values.
WEIGHTS = dict(DEFAULT_WEIGHTS, captures=0.0)
EVALUATE = make_evaluator(WEIGHTS)


def minimax(position, depth):
    """Plain negamax, no pruning, no table: the reference."""
    if position.is_over:
        return terminal_value(position)
    if depth == 0:
        return EVALUATE(position, 0)
    return max(root_values(position, depth).values())


def root_values(position, depth):
    """{move: its minimax value for the mover} of every move at ``position``."""
    return {move: -minimax(position.play_point(move), depth - 1) for move in points_of(position.legal_mask()) + [PASS]}


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 20), st.integers(1, 3))
def test_alphabeta_value_equals_minimax(seed, plies, depth):
    position, _ = random_opening(plies, seed)
    if position.is_over:
        return
    result = Searcher(EVALUATE).search(position, depth)
    assert result.value == pytest.approx(minimax(position, depth))
    assert result.value == pytest.approx(-minimax(position.play_point(result.move), depth - 1))


@pytest.mark.fast
def test_takes_a_winning_capture():
    position = Position.from_picture(
        """
        .OX..
        OX...
        X....
        .....
        .....""",
        player=BLACK,
    )
    assert Searcher(EVALUATE).search(position, 1).move == 0  # (0,0) captures two


@pytest.mark.fast
def test_last_plies_are_played_perfectly():
    for seed in range(30):
        position, _ = random_opening(MAX_MOVES - 3, seed)
        if position.is_over:
            continue
        result = Searcher(EVALUATE).search(position, 3)  # sees the 24-ply end
        assert abs(result.value) > WIN / 2
        assert result.value == pytest.approx(minimax(position, 3))


@pytest.mark.fast
def test_a_finished_game_outweighs_any_evaluation():
    lost = Position.initial().play(PASS)  # White wins at once
    assert lost.is_over and terminal_value(lost) > WIN
    assert Searcher(EVALUATE).search(Position.initial(), 1).move != PASS


@pytest.mark.fast
def test_random_tie_break_is_reproducible_and_varied():
    start = Position.initial()
    moves = [Searcher(EVALUATE, rng=random.Random(seed)).search(start, 2).move for seed in range(12)]
    again = [Searcher(EVALUATE, rng=random.Random(seed)).search(start, 2).move for seed in range(12)]
    assert moves == again
    assert len(set(moves)) > 1  # the board's symmetry gives ties
    assert Searcher(EVALUATE).search(start, 2).move == Searcher(EVALUATE).search(start, 2).move


@pytest.mark.fast
def test_cpu_budget_answers_from_the_deepest_completed_depth():
    position, _ = random_opening(4, 3)
    result = Searcher(EVALUATE).iterative(position, 12, cpu_budget=0.05)
    assert 1 <= result.depth < 12
    assert result.move == PASS or position.play_point(result.move)


@pytest.mark.fast
def test_search_refuses_a_finished_game():
    with pytest.raises(ValueError):
        Searcher(EVALUATE).search(Position.initial().play(PASS), 2)


@pytest.mark.fast
@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 14), st.integers(1, 2))
def test_the_runner_up_is_proved_within_close_of_the_best_exactly_when_another_move_is(seed, plies, depth):
    position, _ = random_opening(plies, seed)
    if position.is_over:
        return
    values = root_values(position, depth)
    close = 30.0
    searcher = Searcher(EVALUATE)
    searcher.close = close
    result = searcher.search(position, depth)
    best = max(values.values())
    assert result.value == pytest.approx(best)
    others = max((value for move, value in values.items() if move != result.move), default=-float("inf"))
    if abs(others - (best - close)) > 1e-6:  # not right at the threshold
        assert (result.runner_up is not None) == (others > best - close)
    if result.runner_up is not None:
        assert best - close < result.runner_up <= others + 1e-6
    assert Searcher(EVALUATE).search(position, depth).runner_up is None


def test_an_unclear_position_may_plan_its_depths_to_the_hard_budget():
    # From the empty board every move has symmetric twins of the same value: always unclear.
    start = Position.initial()
    plain = Searcher(EVALUATE).iterative(start, 12, cpu_budget=0.01, cpu_cap=2.0, hard_budget=0.01, close=1.0)
    longer = Searcher(EVALUATE).iterative(start, 12, cpu_budget=0.01, cpu_cap=2.0, hard_budget=1.0, close=1.0)
    assert longer.runner_up is not None
    assert longer.depth > plain.depth
