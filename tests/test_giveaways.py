"""The give-away study (``littlego study giveaways``, engine/study/): in a game lost from a
won position, the first move that gave the win away, as the compiled solver finds it, checked
against games built with the Python solver; the study's tally by colour; its one-line errors. And the
two smaller studies of a match's records: a lost game walked back to the move that lost it, and the
moves fixed depths pick (``littlego study mistakes``, ``study depth``)."""

import json
import os
import random

import pytest

from engine.cli.littlego import main
from engine.constants import BLACK, WHITE
from engine.coords import move_from_text, move_to_text
from engine.play.game import MatchGame
from engine.play.settings import GameSettings
from engine.play.sgf import game_sgf, read_game
from engine.players.base import Reason
from engine.players.specs import make_player
from engine.position import Position
from engine.solver import Solver
from engine.study import giveaways
from engine.study.examine import GiveAway, LostGame, examine, first_giveaway, positions_of_game
from engine.study.giveaways import StudyPlan

START = 14  # the built games are won for the side to move here: late enough for quick solving


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


def lost_game(moves, colour, agent="champion"):
    return LostGame(7, agent, colour, [move_to_text(m) for m in moves], "end", 1)


def test_the_first_move_that_gives_the_win_away_is_found_with_a_winning_move_and_what_the_agent_says(native):
    moves, colour, first = a_built_game()
    found = examine(lost_game(moves, colour), native, make_player("champion"), start=START)
    position = positions_of_game(moves)[first]
    assert (found.game, found.record, found.colour) == (7, "game-0007.sgf", "black" if colour == BLACK else "white")
    assert (found.ply, found.played) == (first, move_to_text(moves[first]))  # the first give-away, not the second
    solver = Solver()
    winning = next(m for m in position.legal_points() if move_to_text(m) == found.winning)
    assert found.winning != found.played and not solver.wins(position.play_point(winning))
    # the agent solves exactly from ply 12: re-run there, it keeps the win
    decided = next(m for m in position.legal_points() if move_to_text(m) == found.decision_move)
    assert found.decision_how == "solver" and not solver.wins(position.play_point(decided))
    assert isinstance(found.evaluation_played, float) and isinstance(found.evaluation_winning, float)


def test_a_game_whose_every_win_was_kept_has_no_give_away(native):
    moves, colour, first = a_built_game()
    kept = moves[:first]  # the game up to its first give-away
    found = examine(lost_game(kept, colour, "random"), native, make_player("random"), START)
    assert found.ply is None and found.played is None and found.decision_how is None
    positions = positions_of_game(kept)
    assert first_giveaway(positions[START:], kept[START:], colour, native) is None


def match_game(index, moves, a_colour, winner):
    black, white = ("champion", "gnugo") if a_colour == BLACK else ("gnugo", "champion")
    return MatchGame(black, white, winner, Reason.END, "", moves, 0, 0, [], index=index, a_colour=a_colour)


def study_plan(tmp_path):
    return StudyPlan(str(tmp_path / "study"), openings=2, table_bits=18, settings=GameSettings(seed=5, jobs=1))


def study_games():
    """(MatchGames, the openings' answers): a game lost from a won opening, one won from a lost one,
    one from an opening not settled."""
    opening = ["2,2", "1,2"]
    results = [
        match_game(0, opening + ["0,0"], BLACK, WHITE),  # the won side, lost: a give-away to find
        match_game(1, opening + ["0,1"], WHITE, WHITE),  # the lost side, won anyway
        match_game(2, ["0,0", "4,4"], BLACK, BLACK),  # an opening not settled
    ]
    return results, {giveaways.opening_key(opening): True}


@pytest.mark.fast
def test_the_study_counts_the_games_from_won_openings_by_the_agents_colour(tmp_path):
    plan, (results, answers) = study_plan(tmp_path), study_games()
    lost = giveaways.lost_games(plan, results, answers)
    assert [(game.index, game.colour, game.moves[-1]) for game in lost] == [(0, BLACK, "0,0")]
    found = GiveAway(0, "game-0000.sgf", "black", "end", ply=2, played="0,0", winning="2,1")
    study = giveaways.study_of(plan, results, answers, {0: found})
    assert (study.won, study.kept) == ({"black": 1, "white": 0}, {"black": 0, "white": 0})
    assert (study.lost, study.saved) == ({"black": 0, "white": 1}, {"black": 0, "white": 1})
    assert study.unsettled == 1 and study.giveaways == [found]
    lines = giveaways.report(study)
    assert "won openings kept: 0 of 1 (as Black 0 of 1, as White 0 of 0)" in lines
    assert lines[lines.index("by ply (Black, White):") + 1].split() == ["2", "#", "(1,", "0)"]
    assert any(line.startswith("  game-0000.sgf ply 2: played 0,0 (-), wins with 2,1 (-)") for line in lines)


@pytest.mark.fast
def test_a_study_run_again_examines_only_the_games_not_answered_yet(monkeypatch, tmp_path):
    plan, (results, answers) = study_plan(tmp_path), study_games()
    os.makedirs(plan.out)
    examined = []

    def examine(game, table_bits, store=None):
        assert table_bits == plan.table_bits
        examined.append(game.index)
        return GiveAway(game.index, giveaways.sgf_name(game.index), "black", game.end, ply=2)

    monkeypatch.setattr(giveaways, "_examine", examine)
    first = giveaways.examine_all(plan, results, answers)
    again = giveaways.examine_all(plan, results, answers)
    assert examined == [0] and first == again and again.giveaways[0].ply == 2


def test_the_study_keeps_its_summary_beside_its_records(monkeypatch, tmp_path, capsys):
    # The summary is OUT/report.txt as well as what is printed: a lost log loses nothing.
    plan, (results, answers) = study_plan(tmp_path), study_games()

    class Quiet:
        def close(self):
            pass

    def solve_seed(seed, count, path, solving):
        assert (seed, count, solving.jobs, solving.store) == (plan.seed, 2 * plan.openings, plan.jobs, plan.store)
        with open(path, "w") as handle:
            json.dump(answers, handle)

    def examine(game, table_bits, store=None):
        return GiveAway(game.index, giveaways.sgf_name(game.index), "black", game.end, ply=2)

    monkeypatch.setattr(giveaways, "make_player", lambda spec: Quiet())
    monkeypatch.setattr(giveaways, "play_study", lambda plan: results)
    monkeypatch.setattr(giveaways, "solve_seed", solve_seed)
    monkeypatch.setattr(giveaways, "_examine", examine)
    lines = giveaways.run_study(plan)
    kept = (tmp_path / "study" / "report.txt").read_text()
    assert kept == "\n".join(lines) + "\n" and "won openings kept: 0 of 1" in kept
    assert capsys.readouterr().out.endswith("\n" + kept)
    assert sorted(os.listdir(plan.out)) == ["giveaways.json", "openings.json", "report.txt"]


@pytest.mark.fast
def test_the_command_plays_the_match_it_is_given(monkeypatch, tmp_path):
    # littlego study giveaways: the options reach the study's plan, the game options included.
    plans = []
    monkeypatch.setattr("engine.cli.study.run_study", lambda plan: plans.append(plan))
    out = str(tmp_path / "out")
    words = ["--seed", "3801", "--openings", "3", "--agent", "random", "--against", "greedy", "--jobs", "1"]
    assert main(["study", "giveaways", out, *words, "--cpu-limit", "2", "--table-bits", "18", "--no-progress"]) == 0
    (plan,) = plans
    assert plan[:5] == (out, 3, "random", "greedy", 18) and (plan.seed, plan.jobs) == (3801, 1)
    assert plan.settings._replace(progress=None) == GameSettings(seed=3801, jobs=1, cpu_limit=2.0, progress=None)
    assert callable(plan.settings.progress)  # --no-progress: a line every twentieth of the games


@pytest.mark.fast
@pytest.mark.parametrize(
    "words, message",
    [
        ([], "littlego study giveaways: give --seed: the match's seed (its openings follow from it)"),
        (["--seed", "1", "--agent", "random", "--against", "random"], "the agent and its opponent must differ"),
        (["--seed", "1"], "littlego study giveaways: GNU Go is not installed (apt-get install gnugo)"),
    ],
    ids=["no seed", "same players", "no GNU Go"],
)
def test_a_study_refused_says_why_in_one_line_before_any_work(monkeypatch, tmp_path, capsys, words, message):
    monkeypatch.setattr("engine.players.gnugo.gnugo_path", lambda: None)
    assert main(["study", "giveaways", str(tmp_path / "out"), *words]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
    assert not (tmp_path / "out").exists()  # refused before any work


# -- walking a lost game back, and fixed depths: littlego study mistakes, study depth ------------------


@pytest.fixture
def given_away_at_ply_12(tmp_path, native):
    """(a folder with one record, the losing move): random moves to a position won for Black at ply 12,
    where the champion (Black) plays a move that loses it, and one more move."""
    for seed in range(50):
        rng, position, moves = random.Random(seed), Position.initial(), []
        while position.moves_played < 12:
            moves.append(rng.choice(position.legal_points()))
            position = position.play_point(moves[-1])
        losing = [m for m in position.legal_points() if native.wins(position.play_point(m))]
        if native.wins(position) and losing:
            after = position.play_point(losing[0])
            moves += [losing[0], after.legal_points()[0]]
            (tmp_path / "match-sgf").mkdir()
            (tmp_path / "match-sgf" / "game-0000.sgf").write_bytes(game_sgf(moves, "champion", "gnugo", "W+F"))
            return str(tmp_path / "match-sgf"), losing[0]
    pytest.fail("no game of 50 seeds is won for Black at ply 12 with a losing move")


@pytest.mark.fast
def test_walking_back_names_the_agents_move_that_lost_the_win(given_away_at_ply_12, capsys):
    folder, losing = given_away_at_ply_12
    assert main(["study", "mistakes", folder, "game-0000.sgf", "--table-bits", "18"]) == 0
    walked, found = capsys.readouterr().out.splitlines()
    assert (
        walked.startswith("  ply 12 won ")
        and found == f"game-0000.sgf colour black mistake at ply 12 move {move_to_text(losing)}"
    )


def test_each_fixed_depths_pick_is_judged_by_the_solver(given_away_at_ply_12, capsys, native):
    folder, _ = given_away_at_ply_12
    assert main(["study", "depth", folder, "game-0000.sgf:12", "--deepest", "3", "--table-bits", "18"]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert [line[:3] for line in lines] == [["game-0000.sgf", "12", "d2"], ["game-0000.sgf", "12", "d3"]]
    position = read_game(open(os.path.join(folder, "game-0000.sgf"), "rb").read()).positions[12]
    for _, _, _, move, verdict, _ in lines:
        assert verdict == ("L" if native.wins(position.play_point(move_from_text(move))) else "W")


@pytest.mark.parametrize(
    "words, message",
    [
        (["mistakes", "{folder}", "game-0009.sgf"], "{folder}: no record game-0009.sgf"),
        (["depth", "{folder}", "game-0000.sgf:30"], "{folder}: game-0000.sgf has no position at ply 30"),
    ],
    ids=["no such record", "no such ply"],
)
def test_a_position_the_records_lack_is_named_in_one_line(tmp_path, capsys, words, message):
    folder = tmp_path / "match-sgf"
    folder.mkdir()
    (folder / "game-0000.sgf").write_bytes(game_sgf(["2,2", "1,2"], "champion", "gnugo", "B+F"))
    assert main(["study"] + [word.format(folder=folder) for word in words]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message.format(folder=folder) in err


def test_a_position_without_its_ply_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["study", "depth", "records", "game-0000.sgf"])
    assert exit.value.code == 2
    assert "argument NAME:PLY: expected a record and a ply as NAME:PLY" in capsys.readouterr().err.splitlines()[-1]
