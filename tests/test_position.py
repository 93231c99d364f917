"""The rules on board pictures: each test reads like a Go diagram."""

import pytest

from engine import BLACK, MAX_MOVES, PASS, WHITE, IllegalMove, Position


@pytest.mark.fast
def test_initial_position():
    position = Position.initial()
    assert position.player == BLACK and position.moves_played == 0
    assert len(position.legal_moves()) == 25
    assert not position.is_over and position.winner is None


@pytest.mark.fast
def test_ko_fight():
    position = Position.from_picture(
        """
        .XO..
        XO.O.
        .XO..
        .....
        .....""",
        player=BLACK,
    )
    taken = position.play((1, 2))  # Black captures the white stone
    assert taken.picture().splitlines()[1] == "X.XO."
    assert not taken.is_legal((1, 1))  # White may not retake at once
    with pytest.raises(IllegalMove, match="KO"):
        taken.play((1, 1))
    assert (1, 1) not in taken.legal_moves()
    later = taken.play((4, 4)).play((4, 0))  # a ko threat and its answer
    assert later.is_legal((1, 1))  # now White may retake
    retaken = later.play((1, 1))
    assert retaken.picture().splitlines()[1] == "XO.O."
    assert not retaken.is_legal((1, 2))  # and Black is banned in turn


@pytest.mark.fast
def test_snapback():
    position = Position.from_picture(
        """
        ..OX.
        OOOX.
        XXXX.
        .....
        .....""",
        player=BLACK,
    )
    throw_in = position.play((0, 1))  # Black's stone can be taken...
    taken = throw_in.play((0, 0))
    assert taken.picture().splitlines()[0] == "O.OX."
    recaptured = taken.play((0, 1))  # ...but retaking is no KO: 5 stones fall
    assert recaptured.picture() == "\n".join([".X.X.", "...X.", "XXXX.", ".....", "....."])
    assert recaptured.score() == (7, 0 + 2.5)


@pytest.mark.fast
def test_one_move_captures_two_groups():
    position = Position.from_picture(
        """
        O.OX.
        X.X..
        .....
        .....
        .....""",
        player=BLACK,
    )
    after = position.play((0, 1))
    assert after.picture().splitlines()[0] == ".X.X."
    assert after.score() == (4, 2.5)


@pytest.mark.fast
def test_capture_that_looks_like_suicide_is_legal():
    position = Position.from_picture(
        """
        .OX..
        OX...
        X....
        .....
        .....""",
        player=BLACK,
    )
    assert position.is_legal((0, 0))
    after = position.play((0, 0))
    assert after.picture().splitlines()[:2] == ["X.X..", ".X..."]


@pytest.mark.fast
def test_suicide_is_illegal():
    position = Position.from_picture(
        """
        .OX..
        O....
        .....
        .....
        .....""",
        player=BLACK,
    )
    assert not position.is_legal((0, 0))
    assert (0, 0) not in position.legal_moves()
    with pytest.raises(IllegalMove, match="suicide"):
        position.play((0, 0))


@pytest.mark.fast
def test_occupied_point_is_illegal():
    position = Position.initial().play((2, 2))
    with pytest.raises(IllegalMove, match="occupied"):
        position.play((2, 2))


@pytest.mark.fast
def test_black_pass_on_ply_one_ends_the_game_for_white():
    after = Position.initial().play(PASS)
    assert after.is_over and after.winner == WHITE


@pytest.mark.fast
def test_two_passes_end_the_game_and_one_does_not():
    position = Position.initial().play((2, 2))
    one = position.play(PASS)
    assert not one.is_over
    two = one.play(PASS)
    assert two.is_over and two.winner == WHITE  # 1 stone against komi 2.5


@pytest.mark.fast
def test_pass_after_a_move_is_not_the_end():
    position = Position.initial().play((2, 2)).play(PASS).play((0, 0))
    assert not position.play(PASS).is_over


@pytest.mark.fast
def test_the_24th_ply_ends_the_game():
    board = """
        XXXX.
        X.X.X
        OOOOO
        .O.O.
        OO.OO"""
    position = Position.from_picture(board, player=WHITE, moves_played=MAX_MOVES - 1)
    assert not position.is_over
    last = position.play((1, 1))
    assert last.is_over and last.moves_played == MAX_MOVES
    assert last.winner == WHITE
    with pytest.raises(IllegalMove, match="over"):
        last.play(PASS)
    assert last.legal_moves() == []
    earlier = Position.from_picture(board, player=WHITE, moves_played=MAX_MOVES - 2)
    assert not earlier.play((1, 1)).is_over


@pytest.mark.fast
def test_black_needs_three_stones_more_than_white():
    wins = Position.from_picture(
        """
        XXXXX
        XXX..
        OOOO.
        OOO..
        .....""",
        player=WHITE,
        moves_played=MAX_MOVES - 1,
    ).play(PASS)
    assert wins.score() == (8, 9.5) and wins.winner == WHITE
    black_wins = Position.from_picture(
        """
        XXXXX
        XXXXX
        OOOO.
        OOO..
        .....""",
        player=WHITE,
        moves_played=MAX_MOVES - 1,
    ).play(PASS)
    assert black_wins.winner == BLACK


@pytest.mark.fast
def test_impossible_boards_are_accepted_and_judged_as_the_host_does():
    # A white group without liberties (no real game reaches this): Black's move far away
    # removes it, because the judge removes every dead opponent group after a placement.
    position = Position.from_picture(
        """
        OX...
        X....
        .....
        .....
        .....""",
        player=BLACK,
    )
    assert not position.regular
    after = position.play((4, 4))
    assert after.picture().splitlines()[0] == ".X..."


@pytest.mark.fast
def test_from_boards_accepts_lists_and_rejects_nonsense():
    rows = [[0] * 5 for _ in range(5)]
    rows[2][2] = 1
    position = Position.from_boards(WHITE, [[0] * 5] * 5, rows, moves_played=1)
    assert position.board_string()[12] == "1"
    with pytest.raises(ValueError, match="point 3"):
        Position.from_boards(BLACK, "0" * 25, "0003" + "0" * 21)
    with pytest.raises(ValueError, match="player"):
        Position.from_boards(3, "0" * 25, "0" * 25)
    with pytest.raises(ValueError, match="25 points"):
        Position.from_boards(BLACK, "0" * 24, "0" * 25)


@pytest.mark.fast
def test_play_rejects_malformed_moves():
    with pytest.raises(IllegalMove, match="off the"):
        Position.initial().play((5, 0))
    with pytest.raises(IllegalMove):
        Position.initial().play("2,2")
