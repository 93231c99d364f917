"""The solved table of every 2-ply opening: complete, in agreement with the proved book and the
compiled solver, and refused with a clear message when a file is not one; a match's openings settled
and counted (``littlego openings``)."""

import json
import os
import random

import pytest

from engine.book import book_key, load_book
from engine.cli.littlego import main
from engine.constants import BLACK, WHITE
from engine.coords import move_from_text
from engine.data import SHIPPED_BOOK, SOLVED_OPENINGS
from engine.native.solver import NativeSolver
from engine.native.stored_solver import Solving
from engine.play.match import run_match
from engine.play.openings import OpeningsError, every_opening, load_openings, match_openings, openings_json
from engine.play.settings import GameSettings
from engine.playout import random_opening
from engine.position import Position
from engine.study.examine import positions_of_game
from engine.study.settle import solve_all


@pytest.mark.fast
def test_the_shipped_table_answers_every_two_ply_opening():
    table = load_openings()
    openings = every_opening(table.plies)
    assert table.plies == 2 and set(table.black_wins) == set(openings) and len(openings) == 85
    for seed in range(200):
        position, _ = random_opening(2, seed)
        assert table.won_side(seed) == table.winner(position) in (BLACK, WHITE)


@pytest.mark.fast
def test_the_table_agrees_with_the_proved_black_book():
    table, book = load_openings(), load_book(SHIPPED_BOOK)
    in_book = [key for key, position in every_opening(2).items() if book.move(position) is not None]
    assert in_book  # Black's book answers every White reply to 2,2
    assert all(table.black_wins[key] for key in in_book)


@pytest.mark.slow
def test_the_table_agrees_with_the_compiled_solver_on_openings_drawn_at_random():
    table, openings = load_openings(), every_opening(2)
    with NativeSolver(22) as solver:
        for key in random.Random(37).sample(sorted(openings), 2):
            assert solver.wins(openings[key]) == table.black_wins[key], key


@pytest.mark.fast
@pytest.mark.parametrize(
    "text, words",
    [
        ("{", "not an openings file (JSON)"),
        ('{"format": "other"}', 'expected "format"'),
        (openings_json(2, {}).replace('"plies": 2', '"plies": -1'), "'plies' must be"),
        (openings_json(2, {"abc.2": 1}), "true or false"),
    ],
)
def test_a_bad_openings_file_names_itself_and_what_is_wrong(tmp_path, text, words):
    path = tmp_path / "openings.json"
    path.write_text(text)
    with pytest.raises(OpeningsError) as error:
        load_openings(str(path))
    assert words in str(error.value) and str(path) in str(error.value)


def test_an_opening_the_table_lacks_is_named(tmp_path):
    path = tmp_path / "openings.json"
    path.write_text(openings_json(2, {}))
    position, _ = random_opening(2, 1)
    with pytest.raises(OpeningsError, match=book_key(position)[0]):
        load_openings(str(path)).winner(position)
    assert json.loads(openings_json(2, {"b.2": True, "a.2": False}))["black_wins"] == {"a.2": False, "b.2": True}


# -- settling a match's openings: littlego openings (engine/study/settle.py) ---------------------------


def opening(game):
    """The position after a MatchGame's two random plies."""
    return positions_of_game([move_from_text(text) for text in game.moves[:2]])[-1]


@pytest.mark.fast
def test_the_openings_a_seed_draws_are_the_ones_its_match_plays():
    _, played = run_match("random", "greedy", 12, GameSettings(seed=11, jobs=1, progress=False), opening_plies=2)
    keys = {book_key(opening(game))[0] for game in played}
    assert keys == set(match_openings(2, 11, 12)) and len(keys) > 1


@pytest.mark.fast
def test_solve_seed_settles_a_matchs_openings_from_the_shipped_table(tmp_path, capsys):
    out, table = str(tmp_path / "answers.json"), load_openings()
    assert main(["openings", "solve-seed", "2808", "200", out, "--jobs", "1"]) == 0
    line = "58 openings: 58 settled already (58 from the earlier experiment, 0 by the book), 0 to solve\n"
    assert capsys.readouterr().out == line
    assert json.load(open(out)) == {key: table.black_wins[key] for key in match_openings(2, 2808, 200)}
    assert main(["openings", "solve-seed", "2808", "200", out]) == 0  # again: nothing left to settle
    assert "(0 from the earlier experiment, 0 by the book), 0 to solve" in capsys.readouterr().out


def test_the_table_built_from_the_answers_known_is_the_shipped_file(tmp_path, capsys):
    out = tmp_path / "openings.json"
    assert main(["openings", "table", str(out), "--jobs", "1"]) == 0
    assert out.read_bytes() == open(SOLVED_OPENINGS, "rb").read() and os.listdir(str(tmp_path)) == ["openings.json"]
    assert capsys.readouterr().out.endswith("Black wins 35 of 85\n")


def test_the_report_counts_the_games_kept_from_won_openings_by_colour(tmp_path, capsys):
    sgf, table = str(tmp_path / "match-sgf"), load_openings()
    _, played = run_match("greedy", "random", 8, GameSettings(seed=11, jobs=1, progress=False), 2, sgf)
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(table.black_wins))
    assert main(["openings", "report", sgf, str(answers), "--agent", "greedy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    won_side = [g for g in played if table.winner(opening(g)) == g.a_colour]
    given_away = [os.path.join(sgf, f"game-{g.index:04d}.sgf") for g in won_side if not g.a_won]
    assert given_away  # seed 11: greedy gives two of its four won openings away
    assert lines[:-2] == [f"lost from a won opening: {path}" for path in given_away]
    kept = sum(g.a_won for g in won_side)
    assert lines[-2].startswith(f"greedy: won {kept} of {len(won_side)} games whose opening left it the won side")
    assert lines[-1].endswith("; 0 games with unsolved openings")


def test_the_compiled_solver_answers_each_opening_and_keeps_it_as_it_comes(tmp_path, native):
    rng, position = random.Random(3), Position.initial()
    while position.moves_played < 14:
        position = position.play_point(rng.choice(position.legal_points()))
    key, out, said = book_key(position)[0], str(tmp_path / "answers.json"), []
    solve_all({key: position}, out, {"known.2": False}, Solving(1, 18), say=said.append)
    assert json.load(open(out)) == {"known.2": False, key: native.wins(position)}
    assert said[0].startswith(f"{key} black {'wins' if native.wins(position) else 'loses'} (")


def test_a_report_without_answers_says_so_in_one_line(tmp_path, capsys):
    assert main(["openings", "report", str(tmp_path), str(tmp_path / "none.json")]) == 2
    assert capsys.readouterr().err.strip().endswith("none.json: no answers (write them with 'littlego openings solve')")
