"""Fuzzing the newer parts: GTP engines that misbehave at any step (set-up included), book
files and headers, training folders, generation logs, SGF records with set-up stones and
off-board moves. Each property runs briefly in the default run and at length under ``--hypothesis-profile=long``.

Every case must end in a result or in the tool's own error naming the problem: never a
traceback, never a hang (a hanging engine costs its wall-clock limit and loses).
"""

import json
import pickle
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.book import Book, BookError
from engine.constants import BLACK, WHITE
from engine.native.sections import book_positions
from engine.play.game import play_game
from engine.play.sgf import SgfError, game_sgf, read_game
from engine.players.base import Reason
from engine.players.gtp import gtp_player
from engine.players.scripted import RandomPlayer
from engine.training.trainer import CHECKPOINT, SETTINGS, Training, TrainingError
from evolve.checkpoint import RunError
from evolve.runs import format_table, read_generations
from tests.conftest import GENERATION, examples
from tests.test_agent import json_values

FILES = examples(0.6)  # a file read and written back
ENGINES = examples(0.12)  # a game against a GTP engine process (3 in the quick profile, 180 in the long)

# -- GTP engines that misbehave at any step --------------------------------------------------------

# What the engine does with its k-th command; after the list it behaves.
STEPS = st.sampled_from(["ok", "close", "hang", "junk", "refuse", "garbage-move", "illegal-move", "resign"])
ENGINE = """import sys, time
steps = {steps!r}
for number, line in enumerate(sys.stdin):
    step = steps[number] if number < len(steps) else "ok"
    genmove = line.startswith("genmove")
    if step == "close":
        sys.exit(0)
    if step == "hang":
        time.sleep(60)
    answer = {{"junk": "what?", "refuse": "? no", "garbage-move": "= Z9" if genmove else "=",
              "illegal-move": "= A1" if genmove else "=", "resign": "= resign" if genmove else "="}}.get(
        step, "= pass" if genmove else "=")
    sys.stdout.write(answer + "\\n\\n")
    sys.stdout.flush()
"""


def misbehaving_engine_loses_or_plays(folder, steps, black):
    script = folder / "engine.py"
    script.write_text(ENGINE.format(steps=steps))
    engine = gtp_player(f"{sys.executable} {script}", "gtp:fuzz", wall_limit=0.5)
    players = (engine, RandomPlayer()) if black else (RandomPlayer(), engine)
    record = play_game(*players, seed=len(steps))
    assert record.winner in (BLACK, WHITE) and record.reason in Reason
    if record.reason != Reason.END:
        assert record.detail, record
    return record


@pytest.mark.slow
@ENGINES
@given(st.lists(STEPS, max_size=8), st.booleans())
def test_a_misbehaving_gtp_engine_loses_its_game_or_plays_it(tmp_path_factory, steps, black):
    misbehaving_engine_loses_or_plays(tmp_path_factory.mktemp("gtp"), steps, black)


# -- book files and headers -------------------------------------------------------------------------

book_headers = st.fixed_dictionaries(
    {},
    optional={
        "side": st.sampled_from(["black", "white"]) | json_values,
        "max_ply": st.integers(-2, 30) | json_values,
        "positions": st.integers(0, 9) | json_values,
        "provenance": st.just({}) | json_values,
        "start": st.just("1 0 " + "0" * 25 + " " + "0" * 25) | st.text(max_size=60) | json_values,
    },
)
book_plies = (
    st.dictionaries(
        st.text("0123456789x", min_size=1, max_size=3),
        st.dictionaries(
            st.sampled_from(["7", "12", "PASS", "25", "x"]),
            st.text("0123456789abcz. ", max_size=30) | json_values,
            max_size=3,
        ),
        max_size=3,
    )
    | json_values
)
book_documents = st.builds(
    lambda header, plies, form: dict(header, plies=plies, format=form),
    book_headers,
    book_plies,
    st.sampled_from(["littlego-book 2", "littlego-book 1", None]),
)
book_texts = st.binary(max_size=200).map(lambda raw: raw.decode("latin-1")) | book_documents.map(json.dumps)


def book_reads_or_names_the_problem(text):
    try:
        book = Book.from_json(text, "fuzz.json")
        len(book.moves)
        for _ in zip(range(50), book_positions(book)):
            pass
    except BookError as error:
        assert "fuzz.json" in str(error)


@pytest.mark.fast
@FILES
@given(book_texts)
def test_a_book_file_reads_or_names_the_problem(text):
    book_reads_or_names_the_problem(text)


# -- training folders -------------------------------------------------------------------------------

checkpoints = st.binary(max_size=100) | json_values.map(lambda value: pickle.dumps(value))


def training_resumes_or_names_the_problem(folder, settings_text, checkpoint):
    (folder / SETTINGS).write_text(settings_text)
    if checkpoint is not None:
        (folder / CHECKPOINT).write_bytes(checkpoint)
    try:
        Training.resume(str(folder))
    except TrainingError as error:
        assert str(folder) in str(error)


training_settings = (
    json_values.map(json.dumps)
    | st.text(max_size=40)
    | st.fixed_dictionaries(
        {},
        optional={
            "games": json_values,
            "opponents": json_values,
            "panel": json_values,
            "rewards": json_values,
            "horizon": json_values,
            "seed": json_values,
        },
    ).map(json.dumps)
)


@pytest.mark.fast
@FILES
@given(training_settings, st.none() | checkpoints)
def test_a_training_folder_resumes_or_names_the_problem(tmp_path_factory, settings_text, checkpoint):
    training_resumes_or_names_the_problem(tmp_path_factory.mktemp("training"), settings_text, checkpoint)


# -- generation logs --------------------------------------------------------------------------------

generation_lines = (
    st.binary(max_size=80)
    | st.dictionaries(st.sampled_from(sorted(GENERATION)), json_values, max_size=4).map(
        lambda change: json.dumps(dict(GENERATION, **change)).encode()
    )
    | json_values.map(lambda value: json.dumps(value).encode())
)


def generations_read_or_name_the_line(folder, lines):
    (folder / "generations.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    try:
        format_table(read_generations(str(folder)))
    except RunError as error:
        assert "generations.jsonl" in str(error)


@pytest.mark.fast
@FILES
@given(st.lists(generation_lines, max_size=4))
def test_a_generation_log_reads_or_names_the_line(tmp_path_factory, lines):
    generations_read_or_name_the_line(tmp_path_factory.mktemp("run"), lines)


# -- SGF with set-up stones and off-board moves -----------------------------------------------------

sgf_points = st.text("abcdefz", min_size=2, max_size=2) | st.sampled_from(["", "tt", "a", "abc"])
sgf_records = st.builds(
    lambda size, black, white, player, moves: "(;GM[1]FF[4]SZ[{}]{}{}{}{})".format(
        size,
        "AB" + "".join(f"[{p}]" for p in black) if black else "",
        "AW" + "".join(f"[{p}]" for p in white) if white else "",
        player,
        "".join(f";{colour}[{point}]" for colour, point in moves),
    ),
    st.sampled_from([5, 5, 5, 9]),
    st.lists(sgf_points, max_size=4),
    st.lists(sgf_points, max_size=4),
    st.sampled_from(["", "PL[B]", "PL[W]", "PL[x]"]),
    st.lists(st.tuples(st.sampled_from(["B", "W"]), sgf_points), max_size=8),
)


def sgf_reads_and_writes_back_or_names_the_problem(text):
    try:
        replay = read_game(text.encode(), "fuzz.sgf")
    except SgfError as error:
        assert str(error).startswith("fuzz.sgf: ") and str(error).rstrip()[-1] != ":"
        return
    again = read_game(game_sgf(replay.moves, start=replay.positions[0]), "again.sgf")
    assert again.positions == replay.positions and again.moves == replay.moves


@pytest.mark.fast
@FILES
@given(sgf_records)
def test_an_sgf_record_reads_and_writes_back_or_names_the_problem(text):
    sgf_reads_and_writes_back_or_names_the_problem(text)


# Slow set: the fuzzed engine plays in the default run in test_a_misbehaving_gtp_engine_loses_its_game_or_plays_it
@pytest.mark.slow
def test_the_fuzzed_engine_script_behaves_when_told_to(tmp_path):
    """The engine model itself: with no misbehaviour it plays a whole game to its end."""
    assert misbehaving_engine_loses_or_plays(tmp_path, [], True).reason == Reason.END
    assert misbehaving_engine_loses_or_plays(tmp_path, ["ok", "hang"], True).reason == Reason.TIMEOUT
    assert (
        misbehaving_engine_loses_or_plays(tmp_path, ["ok", "ok", "ok", "garbage-move"], True).reason
        == Reason.BAD_OUTPUT
    )
