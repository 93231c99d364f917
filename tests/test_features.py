"""Each evaluation feature on a board picture, from the side to move."""

from engine import Position, BLACK, WHITE
from engine.features import (
    FEATURES, feature_values, margin, liberties, atari_own, atari_opp, two_liberty, euler,
    euler_number, edge, corner, eyes, real_eyes, margin_late,
)


def board(picture, player=BLACK, moves_played=0):
    return Position.from_picture(picture, player=player, moves_played=moves_played)


RING = board("""
    XXX..
    X.X..
    XXX..
    .....
    ....O""")


def test_margin_counts_stones_and_komi_for_the_mover():
    assert margin(RING) == 8 - 1 - 2.5
    assert margin(board(RING.picture(), player=WHITE)) == 1 + 2.5 - 8


def test_margin_late_grows_with_the_ply_count():
    early = board(RING.picture(), moves_played=0)
    late = board(RING.picture(), moves_played=12)
    assert margin_late(early) == 0 and margin_late(late) == margin(late) / 2


def test_liberties_are_distinct_empty_neighbours():
    assert liberties(RING) == 7 - 2


def test_atari_and_two_liberty_stones():
    # Black to move sees White's (3,4)-(4,4) pair with one liberty left.
    position = board("""
        .X...
        X....
        ....X
        ...XO
        ...XO""")
    assert atari_opp(position) == 2
    assert atari_own(position) == 0
    assert atari_own(board(position.picture(), player=WHITE)) == 2
    single = board("""
        X....
        .....
        .....
        .....
        .....""")
    assert two_liberty(single) == 1            # a corner stone has two liberties


def test_euler_number_is_components_minus_holes():
    assert euler_number(RING.own) == 0               # one component with one hole
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
    assert euler_number(diagonal.own) == 2           # 4-connectivity: diagonal is not connected
    assert euler(RING) == -1


def test_edge_and_corner_stones():
    position = board("""
        X...X
        .O...
        .....
        .....
        O...O""")
    assert edge(position) == 2 - 2
    assert corner(position) == 2 - 2
    assert edge(board(""".....
        .X...
        .....
        .....
        O....""")) == -1


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
    assert real_eyes(false_eye.own, false_eye.opp) == 2     # (0,0) corner eye and (1,1)
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
    assert eyes(RING) == 1


def test_feature_values_agree_with_the_single_features():
    values = dict(zip(FEATURES, feature_values(RING, captured=3)))
    assert values["margin"] == margin(RING)
    assert values["liberties"] == liberties(RING)
    assert values["euler"] == euler(RING)
    assert values["eyes"] == eyes(RING)
    assert values["edge"] == edge(RING)
    assert values["corner"] == corner(RING)
    assert values["captures"] == 3
    assert len(values) == len(FEATURES)
