"""The give-away study (experiments/tools/giveaways.py): in a game lost from a won position, the
first move that gave the win away, as the compiled solver finds it, checked against games built
with the Python solver; the study's tally by colour; its one-line errors."""

import argparse
import importlib
import json
import os
import random
import sys

import pytest

from engine.constants import BLACK, WHITE
from engine.coords import move_to_text
from engine.play.match import MatchGame
from engine.players.base import Reason
from engine.players.specs import make_player
from engine.position import Position
from engine.solver import Solver
from tests.conftest import ROOT

TOOLS = os.path.join(ROOT, "experiments", "tools")
START = 14  # the built games are won for the side to move here: late enough for quick solving


@pytest.fixture(scope="module")
def giveaways():
    """The script as a module (it imports its neighbours in experiments/tools, as when it runs)."""
    sys.path.insert(0, TOOLS)
    try:
        yield importlib.import_module("giveaways")
    finally:
        sys.path.remove(TOOLS)


def built_game(seed):
    """(moves, the colour won after START plies, the index of its first losing move): random moves
    to a position won for the side to move, then by the Python solver that side keeps the win,
    the other side plays anything, the first side gives the win away, the other gives it back,
    and the first gives it away again. None when some step has no such move."""
    rng, solver = random.Random(seed), Solver()
    position, moves = Position.initial(), []
    while position.moves_played < START:
        moves.append(rng.choice(position.legal_points()))
        position = position.play_point(moves[-1])
    if position.is_over or not solver.wins(position):
        return None
    colour = position.player
    # each step: does the side to move play a move after which the other side wins?
    for other_wins in (False, None, True, True, True):
        legal = position.legal_points()
        fitting = (
            legal if other_wins is None else [m for m in legal if solver.wins(position.play_point(m)) == other_wins]
        )
        if not fitting:
            return None
        moves.append(rng.choice(fitting))
        position = position.play_point(moves[-1])
    return moves, colour, START + 2


def a_built_game():
    return next(game for game in map(built_game, range(100)) if game)


def lost_game(giveaways, moves, colour, agent="champion"):
    return giveaways.LostGame(7, agent, colour, [move_to_text(m) for m in moves], "end", 1)


def test_the_first_move_that_gives_the_win_away_is_found_with_a_winning_move_and_what_the_agent_says(giveaways, native):
    moves, colour, first = a_built_game()
    found = giveaways.examine(lost_game(giveaways, moves, colour), native, make_player("champion"), start=START)
    position = giveaways.replay(moves)[first]
    assert (found.game, found.record, found.colour) == (7, "game-0007.sgf", "black" if colour == BLACK else "white")
    assert (found.ply, found.played) == (first, move_to_text(moves[first]))  # the first give-away, not the second
    solver = Solver()
    winning = next(m for m in position.legal_points() if move_to_text(m) == found.winning)
    assert found.winning != found.played and not solver.wins(position.play_point(winning))
    # the agent solves exactly from ply 12: re-run there, it keeps the win
    decided = next(m for m in position.legal_points() if move_to_text(m) == found.decision_move)
    assert found.decision_how == "solver" and not solver.wins(position.play_point(decided))
    assert isinstance(found.evaluation_played, float) and isinstance(found.evaluation_winning, float)


def test_a_game_whose_every_win_was_kept_has_no_give_away(giveaways, native):
    moves, colour, first = a_built_game()
    kept = moves[:first]  # the game up to its first give-away
    found = giveaways.examine(lost_game(giveaways, kept, colour, "random"), native, make_player("random"), START)
    assert found.ply is None and found.played is None and found.decision_how is None
    positions = giveaways.replay(kept)
    assert giveaways.first_giveaway(positions[START:], kept[START:], colour, native) is None


def match_game(index, moves, a_colour, winner):
    black, white = ("champion", "gnugo") if a_colour == BLACK else ("gnugo", "champion")
    return MatchGame(black, white, winner, Reason.END, "", moves, 0, 0, [], index=index, a_colour=a_colour)


STUDY = argparse.Namespace(seed=5, agent="champion", against="gnugo", jobs=1, table_bits=18)


def study_games(giveaways):
    """(MatchGames, the openings' answers): a game lost from a won opening, one won from a lost one,
    one from an opening not settled."""
    opening = ["2,2", "1,2"]
    results = [
        match_game(0, opening + ["0,0"], BLACK, WHITE),  # the won side, lost: a give-away to find
        match_game(1, opening + ["0,1"], WHITE, WHITE),  # the lost side, won anyway
        match_game(2, ["0,0", "4,4"], BLACK, BLACK),  # an opening not settled
    ]
    return results, {giveaways.opening_key(opening): True}


def test_the_study_counts_the_games_from_won_openings_by_the_agents_colour(giveaways):
    results, answers = study_games(giveaways)
    lost = giveaways.lost_games(STUDY, results, answers)
    assert [(game.index, game.colour, game.moves[-1]) for game in lost] == [(0, BLACK, "0,0")]
    found = giveaways.GiveAway(0, "game-0000.sgf", "black", "end", ply=2, played="0,0", winning="2,1")
    study = giveaways.tally(STUDY, results, answers, {0: found})
    assert (study.won, study.kept) == ({"black": 1, "white": 0}, {"black": 0, "white": 0})
    assert (study.lost, study.saved) == ({"black": 0, "white": 1}, {"black": 0, "white": 1})
    assert study.unsettled == 1 and study.giveaways == [found]
    lines = giveaways.report(study)
    assert "won openings kept: 0 of 1 (as Black 0 of 1, as White 0 of 0)" in lines
    assert lines[lines.index("by ply (Black, White):") + 1].split() == ["2", "#", "(1,", "0)"]
    assert any(line.startswith("  game-0000.sgf ply 2: played 0,0 (-), wins with 2,1 (-)") for line in lines)


def test_a_study_run_again_examines_only_the_games_not_answered_yet(giveaways, monkeypatch, tmp_path):
    results, answers = study_games(giveaways)
    examined = []

    def examine(game, table_bits):
        assert table_bits == STUDY.table_bits
        examined.append(game.index)
        return giveaways.GiveAway(game.index, giveaways.record_name(game.index), "black", game.end, ply=2)

    monkeypatch.setattr(giveaways, "_examine", examine)
    first = giveaways.examine_all(STUDY, str(tmp_path), results, answers)
    again = giveaways.examine_all(STUDY, str(tmp_path), results, answers)
    assert examined == [0] and first == again and again.giveaways[0].ply == 2


def test_the_study_keeps_its_summary_beside_its_records(giveaways, monkeypatch, tmp_path, capsys):
    # The summary is OUT/report.txt as well as what is printed: a lost log loses nothing.
    results, answers = study_games(giveaways)

    class Quiet:
        def close(self):
            pass

    def solve_seed(seed, count, path, jobs):
        with open(path, "w") as handle:
            json.dump(answers, handle)

    def examine(game, table_bits):
        return giveaways.GiveAway(game.index, giveaways.record_name(game.index), "black", game.end, ply=2)

    monkeypatch.setattr(giveaways, "make_player", lambda spec: Quiet())
    monkeypatch.setattr(giveaways, "play", lambda args, out: results)
    monkeypatch.setattr(giveaways, "solve_seed", solve_seed)
    monkeypatch.setattr(giveaways, "_examine", examine)
    args = argparse.Namespace(**dict(vars(STUDY), out=str(tmp_path / "study"), openings=2))
    assert giveaways.run_study(args) == 0
    kept = (tmp_path / "study" / "report.txt").read_text()
    assert "won openings kept: 0 of 1" in kept and capsys.readouterr().out.endswith("\n" + kept)
    assert sorted(os.listdir(str(tmp_path / "study"))) == ["giveaways.json", "openings.json", "report.txt"]


def test_without_gnu_go_the_study_says_how_to_install_it_in_one_line(giveaways, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr("engine.players.gnugo.gnugo_path", lambda: None)
    args = giveaways.build_parser().parse_args([str(tmp_path / "out"), "--seed", "1"])
    assert giveaways.run_command("giveaways.py", args) == 2
    assert capsys.readouterr().err.strip() == "giveaways.py: GNU Go is not installed (apt-get install gnugo)"
    assert not (tmp_path / "out").exists()  # refused before any work
