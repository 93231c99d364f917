"""Every evaluation term on a board picture where it is non-zero, from the side to move.

``feature_values`` is the one implementation of the features: each test reads its terms
by name, so every term the search uses is checked here.
"""

import pytest

from engine import BLACK, KOMI, MAX_MOVES, WHITE, Position
from engine.features import FEATURES, euler_number, feature_values, group_risk, real_eyes


def board(picture, player=BLACK, moves_played=0):
    return Position.from_picture(picture, player=player, moves_played=moves_played)


def terms(position, captured=0):
    """The features of a position by name."""
    return dict(zip(FEATURES, feature_values(position, captured)))


RING = board("""
    XXX..
    X.X..
    XXX..
    .....
    ....O""")


@pytest.mark.fast
def test_every_feature_is_named_once():
    assert len(FEATURES) == len(set(FEATURES)) == len(feature_values(RING))


@pytest.mark.fast
def test_margin_counts_stones_and_komi_for_the_mover():
    assert terms(RING)["margin"] == 8 - 1 - 2.5
    assert terms(board(RING.picture(), player=WHITE))["margin"] == 1 + 2.5 - 8


@pytest.mark.fast
def test_margin_late_grows_with_the_ply_count():
    assert terms(board(RING.picture(), moves_played=0))["margin_late"] == 0
    late = terms(board(RING.picture(), moves_played=12))
    assert late["margin_late"] == late["margin"] / 2 == (8 - 1 - 2.5) / 2
    assert terms(board(RING.picture(), moves_played=24))["margin_late"] == 8 - 1 - 2.5


@pytest.mark.fast
def test_liberties_are_distinct_empty_neighbours():
    # The ring breathes at its hole and six outside points; the corner stone at two.
    assert terms(RING)["liberties"] == 7 - 2
    assert terms(board(RING.picture(), player=WHITE))["liberties"] == 2 - 7


ATARI = """
    .X...
    X....
    .....
    ...XO
    ...XO"""


@pytest.mark.fast
def test_atari_terms_count_stones_in_one_liberty_groups():
    # White's (3,4)-(4,4) pair has one liberty left, (2,4); every Black group has three.
    black_to_move = terms(board(ATARI))
    assert black_to_move["atari_opp"] == 2 and black_to_move["atari_own"] == 0
    white_to_move = terms(board(ATARI, player=WHITE))
    assert white_to_move["atari_own"] == 2 and white_to_move["atari_opp"] == 0


@pytest.mark.fast
def test_two_liberty_counts_stones_one_move_from_atari():
    corner_stone = """
        X....
        .....
        .....
        .....
        ....."""
    assert terms(board(corner_stone))["two_liberty"] == 1
    assert terms(board(corner_stone, player=WHITE))["two_liberty"] == -1
    # A pair on the edge has three liberties: not counted.
    assert (
        terms(
            board("""
        XX...
        .....
        .....
        .....
        .....""")
        )["two_liberty"]
        == 0
    )


@pytest.mark.fast
def test_group_risk_splits_groups_by_liberties():
    position = board(ATARI)
    empty = ~(position.own | position.opp) & ((1 << 25) - 1)
    assert group_risk(position.opp, empty) == (2, 0)
    assert group_risk(position.own, empty) == (0, 0)
    squeezed = board("""
        XO...
        .....
        .....
        .....
        .....""")
    empty = ~(squeezed.own | squeezed.opp) & ((1 << 25) - 1)
    # The corner stone breathes only at (1,0); the White stone beside it at (0,2) and (1,1).
    assert group_risk(squeezed.own, empty) == (1, 0) and group_risk(squeezed.opp, empty) == (0, 1)


@pytest.mark.fast
def test_euler_number_is_components_minus_holes():
    assert euler_number(RING.own) == 0  # one component with one hole
    assert euler_number(RING.opp) == 1
    two_stones = board("""
        X.X..
        .....
        .....
        .....
        .....""")
    assert euler_number(two_stones.own) == 2
    diagonal = board("""
        X....
        .X...
        .....
        .....
        .....""")
    assert euler_number(diagonal.own) == 2  # 4-connectivity: diagonal is not connected
    assert terms(RING)["euler"] == 0 - 1


EDGES = """
    X...X
    .O...
    .....
    .....
    ....."""


@pytest.mark.fast
def test_edge_and_corner_stones():
    assert terms(board(EDGES))["edge"] == 2 - 0
    assert terms(board(EDGES))["corner"] == 2 - 0
    assert terms(board(EDGES, player=WHITE))["edge"] == -2
    side = terms(
        board("""
        .X...
        .....
        O....
        .....
        O....""")
    )
    assert side["edge"] == 1 - 2 and side["corner"] == 0 - 1


@pytest.mark.fast
def test_real_and_false_eyes():
    assert real_eyes(RING.own, RING.opp) == 1
    false_eye = board("""
        .X...
        X.X..
        OX...
        .....
        .....""")
    # (1,1) has one white diagonal of four: still real in the centre. On the edge one
    # enemy diagonal makes an eye false:
    assert real_eyes(false_eye.own, false_eye.opp) == 2  # (0,0) corner eye and (1,1)
    edge_false = board("""
        X.X..
        OX...
        .....
        .....
        .....""")
    assert real_eyes(edge_false.own, edge_false.opp) == 0
    centre_false = board("""
        O.XO.
        .X.X.
        .OX..
        .....
        .....""")
    assert real_eyes(centre_false.own, centre_false.opp) == 0  # (1,2) has two white diagonals
    assert terms(RING)["eyes"] == 1
    assert terms(board(RING.picture(), player=WHITE))["eyes"] == -1


@pytest.mark.fast
def test_captures_is_what_the_search_supplies():
    assert terms(RING, captured=3)["captures"] == 3
    assert terms(RING)["captures"] == 0


@pytest.mark.fast
def test_swapping_colours_and_the_mover_changes_no_term_but_komi():
    swap = str.maketrans("XO", "OX")
    for picture in (RING.picture(), ATARI, EDGES):
        for moves_played in (0, 12):
            as_black = terms(board(picture, BLACK, moves_played))
            as_white = terms(board(picture.translate(swap), WHITE, moves_played))
            assert as_white.pop("margin") - as_black.pop("margin") == 2 * KOMI
            assert as_white.pop("margin_late") - as_black.pop("margin_late") == 2 * KOMI * moves_played / MAX_MOVES
            assert as_black == as_white
