"""The solved table of every 2-ply opening: complete, in agreement with the proved book and the
compiled solver, and refused with a clear message when a file is not one."""

import json
import random

import pytest

from engine.book import book_key, load_book
from engine.constants import BLACK, WHITE
from engine.data import SHIPPED_BOOK
from engine.native.solver import NativeSolver
from engine.play.openings import OpeningsError, every_opening, load_openings, openings_json
from engine.playout import random_opening


def test_the_shipped_table_answers_every_two_ply_opening():
    table = load_openings()
    openings = every_opening(table.plies)
    assert table.plies == 2 and set(table.black_wins) == set(openings) and len(openings) == 85
    for seed in range(200):
        position, _ = random_opening(2, seed)
        assert table.won_side(seed) == table.winner(position) in (BLACK, WHITE)


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
