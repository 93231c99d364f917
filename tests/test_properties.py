"""Properties of the rules over random games (hypothesis)."""

import os
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import BLACK, PASS, WHITE, IllegalMove, Position
from engine.bitboard import FULL, count, grow, neighbours
from engine.coords import move_from_public
from engine.players.host import format_input, read_output
from engine.protocol import parse_input, write_output

choices = st.lists(st.integers(min_value=0, max_value=10**6), max_size=30)


def play_out(picks):
    """The positions of a game whose moves are chosen by ``picks`` (PASS rarely)."""
    position = Position.initial()
    positions = [position]
    for pick in picks:
        if position.is_over:
            break
        legal = position.legal_moves()
        move = PASS if not legal or pick % 23 == 0 else legal[pick % len(legal)]
        position = position.play(move)
        positions.append(position)
    return positions


def swap_colours(position):
    swap = str.maketrans("12", "21")
    return Position.from_boards(
        WHITE if position.player == BLACK else BLACK,
        position.previous_string().translate(swap),
        position.board_string().translate(swap),
        position.moves_played,
    )


@pytest.mark.fast
@given(choices)
def test_no_group_is_left_without_liberties(picks):
    for position in play_out(picks):
        empty = FULL ^ position.own ^ position.opp
        for stones in (position.own, position.opp):
            assert grow(stones & neighbours(empty), stones) == stones
        assert position.regular


@pytest.mark.fast
@given(choices)
def test_colour_swap_symmetry(picks):
    # A finished game is not a matter of the boards alone (the last move decided it).
    for position in (p for p in play_out(picks) if not p.is_over):
        swapped = swap_colours(position)
        assert swapped.legal_moves() == position.legal_moves()
        assert swapped.ko_mask() == position.ko_mask()
        for move in position.legal_moves()[:5]:
            assert swap_colours(position.play(move)).board_string() == swapped.play(move).board_string()


@pytest.mark.fast
@given(choices)
def test_whole_board_legality_equals_per_move_legality(picks):
    for position in play_out(picks)[-3:]:
        listed = set(position.legal_moves())
        for i in range(5):
            for j in range(5):
                try:
                    position.play((i, j))
                    accepted = True
                except IllegalMove:
                    accepted = False
                assert accepted == ((i, j) in listed) == position.is_legal((i, j))


@pytest.mark.fast
@given(choices)
def test_stone_counts_after_a_placement(picks):
    positions = play_out(picks)
    for before, after in zip(positions, positions[1:]):
        if after.black | after.white == before.black | before.white and after.own == before.opp:
            continue  # a pass
        mover_before, mover_after = count(before.own), count(after.opp)
        assert mover_after == mover_before + 1
        assert count(after.own) <= count(before.opp)


@pytest.mark.fast
@given(choices)
def test_zobrist_follows_the_board_and_the_side(picks):
    for position in play_out(picks):
        same = Position.from_boards(
            position.player, position.previous_string(), position.board_string(), position.moves_played
        )
        assert same.zobrist() == position.zobrist()
        assert swap_colours(position).zobrist() != position.zobrist() or position.own == position.opp == 0


@pytest.mark.fast
@given(
    st.sampled_from([BLACK, WHITE]),
    st.text("012", min_size=25, max_size=25),
    st.text("012", min_size=25, max_size=25),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_input_round_trip(player, previous, current, newline, final_newline):
    text = format_input(player, previous, current).replace("\n", newline)
    if final_newline:
        text += newline
    assert parse_input(text) == (player, previous, current)


@pytest.mark.fast
@settings(max_examples=40)
@given(st.one_of(st.just(PASS), st.tuples(st.integers(0, 4), st.integers(0, 4))))
def test_output_round_trip(move):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "output.txt")
        point = move_from_public(move)
        write_output(path, point)
        assert read_output(path) == move
        assert os.listdir(folder) == ["output.txt"]
