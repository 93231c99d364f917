"""The engine against the course host's own verdicts, on every ply of 500 games."""

import pytest

from engine import Position
from engine.bitboard import points_of
from engine.coords import move_from_text, move_to_text


def _position(ply):
    return Position.from_boards(ply["player"], ply["previous"], ply["current"], ply["n_move"])


@pytest.mark.fast
def test_vectors_cover_the_interesting_cases(vector_games):
    plies = [ply for game in vector_games for ply in game["plies"]]
    assert len(vector_games) == 500 and len(plies) > 10000
    assert sum(1 for ply in plies if ply["ko"]) > 50
    assert sum(1 for ply in plies if ply["move"] == "PASS") > 100


@pytest.mark.fast
def test_legal_moves_match_the_host_on_every_ply(vector_games):
    mismatches = []
    for game in vector_games:
        for ply in game["plies"]:
            legal = [f"{i},{j}" for i, j in _position(ply).legal_moves()]
            if legal != ply["legal"]:
                mismatches.append((game["seed"], ply["n_move"], legal, ply["legal"]))
    assert mismatches == []


@pytest.mark.fast
def test_ko_banned_points_match_the_host(vector_games):
    mismatches = []
    for game in vector_games:
        for ply in game["plies"]:
            ko = sorted(move_to_text(p) for p in points_of(_position(ply).ko_mask()))
            if ko != sorted(ply["ko"]):
                mismatches.append((game["seed"], ply["n_move"], ko, ply["ko"]))
    assert mismatches == []


def test_board_after_every_legal_move_matches_the_host(vector_games):
    mismatches = []
    for game in vector_games:
        for ply in game["plies"]:
            position = _position(ply)
            for move, after in ply["after"].items():
                board = position.play_point(move_from_text(move)).board_string()
                if board != after:
                    mismatches.append((game["seed"], ply["n_move"], move, board, after))
    assert mismatches == []


@pytest.mark.fast
def test_end_of_game_verdict_and_winner_match_the_host(vector_games):
    mismatches = []
    for game in vector_games:
        for ply in game["plies"]:
            after = _position(ply).play_point(move_from_text(ply["move"]))
            if (after.is_over, after.winner) != (ply["ended"], ply["winner"]):
                mismatches.append((game["seed"], ply["n_move"], after.is_over, after.winner))
    assert mismatches == []


@pytest.mark.fast
def test_whole_games_replay_to_the_hosts_result(vector_games):
    """Playing each game from the empty board through our own positions ends as the host's did."""
    for game in vector_games:
        position = Position.initial()
        for ply in game["plies"]:
            assert position.board_string() == ply["current"]
            assert position.previous_string() == ply["previous"]
            position = position.play_point(move_from_text(ply["move"]))
        assert position.is_over
        assert position.winner == game["winner"]
        assert position.score()[0] == game["black"]
