"""The opening book: keys under the symmetries, the file format, building, extending and
checking it with the compiled solver, and the agent and the bundle playing it."""

import functools
import json
import os
import random
import re
import subprocess
import sys

import pytest

from engine import BLACK, PASS, WHITE, Position
from engine.agent import choose_move
from engine.book import Book, BookError, book_key, key_ply, load_book
from engine.data import SHIPPED_BOOK
from engine.native.book_build import build_book, build_white_book, read_any_book, trim_book
from engine.native.book_fill import extend_book, merge_books
from engine.native.sections import (
    book_positions,
    book_sections,
    check_book,
    losing_first_moves,
    with_sections,
)
from engine.native.solver import describe_position
from engine.params import default_params
from engine.solver import Solver
from engine.symmetry import SYMMETRIES, turn_move, unturn_move
from tests.conftest import HANG, cli, random_position, turn, won_position


def test_a_book_built_from_a_won_position_keeps_the_win_against_every_reply(native):
    start = won_position(14, seed=3)
    book = build_book(18, table_bits=18, start=start)
    assert len(book) > 10
    met, missing, wrong = check_book(book, Solver(), start=start)
    assert met >= len(book) and not missing and not wrong


@pytest.mark.slow
def test_a_book_built_in_parallel_is_as_complete_and_as_right(native):
    start = won_position(14, seed=3)
    reports = []
    book = build_book(18, table_bits=18, start=start, jobs=2, report=reports.append)
    # a first move is kept only when every reply is proved won: those of the last one tried
    last = max(i for i, line in enumerate(reports) if "replies to prove" in line)
    proved = reports[last + 1 :]
    assert proved and all(" won " in line for line in proved)
    assert len(proved) == int(reports[last].split(": ")[1].split()[0])
    met, missing, wrong = check_book(book, Solver(), start=start)
    assert met >= len(book) > 10 and not missing and not wrong
    assert book_sections(book)[0].provenance["command"].endswith("--jobs 2")


@pytest.mark.slow
def test_an_extended_book_covers_the_new_plies_and_keeps_the_win(native):
    start = won_position(12, seed=3)
    shallow = build_book(14, table_bits=18, start=start)
    assert check_book(shallow, start=start, max_ply=18)[1]  # plies 16 and 18 have no moves yet
    for jobs in (1, 2):
        deep, nodes = extend_book(shallow, 18, table_bits=18, jobs=jobs, chunk=5)
        assert book_sections(deep)[0].max_ply == 18 and nodes > 0
        assert set(shallow.moves.items()) <= set(deep.moves.items())  # the old moves stay as they were
        met, missing, wrong = check_book(deep, Solver(), start=start)
        assert met > len(shallow) and not missing and not wrong


def test_extending_a_book_that_gave_the_win_away_fails_and_says_where(native):
    start = won_position(14, seed=3)
    book = build_book(16, table_bits=18, start=start)
    key, index = book_key(start)
    losing = [move for move in start.all_moves() if native.wins(start.play_point(move))]
    assert losing
    book.moves[key] = turn_move(losing[0], index)
    with pytest.raises(BookError, match="no winning move at ply 16"):
        extend_book(Book(dict(book.moves), {"max_ply": 14, "start": describe_position(start)}), 16, table_bits=18)


@pytest.mark.fast
def test_book_keys_are_the_same_under_every_symmetry_and_moves_turn_back():
    rng = random.Random(2)
    for _ in range(40):
        position = random_position(rng, 1, 12)
        key, index = book_key(position)
        for table in SYMMETRIES:
            turned = turn(position, table)
            turned_key, turned_index = book_key(turned)
            assert turned_key == key
            for move in position.legal_points()[:4] + [PASS]:
                canonical = turn_move(move, index)
                image = move if move == PASS else table[move]
                back = unturn_move(canonical, turned_index)
                # the same move, or (on a board with symmetries of its own) one that gives the same position
                assert back == image or book_key(turned.play_point(back))[0] == book_key(turned.play_point(image))[0]


@pytest.mark.fast
def test_keys_tell_apart_what_changes_the_rest_of_the_game():
    empty = Position.initial()
    after_pass = empty.play_point(12).play_point(PASS)  # Black to move; a pass now ends the game
    placed = empty.play_point(12).play_point(0).play_point(PASS)
    assert (
        book_key(after_pass)[0]
        != book_key(Position.from_boards(BLACK, "0" * 12 + "1" + "0" * 12, "0" * 12 + "1" + "0" * 12, 3))[0]
    )  # the ply differs
    assert "p" in book_key(after_pass)[0].split(".")[1]
    assert "p" not in book_key(placed.play_point(1))[0].split(".")[1]


@pytest.mark.fast
def test_a_damaged_book_is_refused_with_its_name(tmp_path):
    for text, problem in (
        ("{", "not JSON"),
        ("[]", "not a book"),
        ('{"format": "littlego-book 1", "moves": {"k": 99}}', "littlego book upgrade"),
    ):
        path = tmp_path / "book.json"
        path.write_text(text)
        with pytest.raises(BookError, match=problem):
            Book.from_json(text, str(path))
        with pytest.raises(BookError, match=str(path)):
            load_book(str(path))
    with pytest.raises(BookError, match="missing.json: cannot read: No such file"):
        load_book(str(tmp_path / "missing.json"))
    path.write_text('{"format": "littlego-book 1", "moves": {"k": 99}}')
    with pytest.raises(BookError, match="entry 'k'"):  # the upgrade's reader checks every entry
        read_any_book(str(path))


@pytest.mark.fast
def test_a_damaged_book_of_the_grouped_format_is_refused_with_what_is_wrong():
    for plies, problem in (
        ("[]", '"plies" must be an object'),
        ('{"x": {}}', "ply 'x'"),
        ('{"2": {"25": "ab"}}', "ply 2: a move is a point"),
        ('{"2": {"7": ["ab"]}}', "ply 2, move 7: the keys must be one string"),
    ):
        with pytest.raises(BookError, match=re.escape(problem)):
            Book.from_json(f'{{"format": "littlego-book 2", "plies": {plies}}}', "b.json")
    for keys, problem in (('{"7": "ab", "8": "ab"}', "a second move for key 'ab'"), ('{"7": "a-b"}', "not a key")):
        with pytest.raises(BookError, match=problem):  # the tools read every key; the agent needs only its own
            _ = Book.from_json(f'{{"format": "littlego-book 2", "plies": {{"2": {keys}}}}}').moves


def test_a_book_file_groups_its_keys_by_ply_and_move_and_reads_back_the_same(small_book):
    start, book = small_book
    text = book.to_json()
    document = json.loads(text)
    assert document["format"] == "littlego-book 2" and list(document)[-1] == "plies"
    assert sum(len(keys.split()) for groups in document["plies"].values() for keys in groups.values()) == len(book)
    read = Book.from_json(text)
    assert len(read) == len(book) and read.info == book.info
    positions = [position for position, move in book_positions(book, start=start)]
    assert [read.move(p) for p in positions] == [book.move(p) for p in positions]  # answered from the strings
    assert read.moves == book.moves and Book.from_json(read.to_json()).moves == book.moves
    first = {"format": "littlego-book 1", "moves": book.moves}  # the first format: refused, the upgrade named
    first.update(book.info)
    with pytest.raises(BookError, match="littlego book upgrade"):
        Book.from_json(json.dumps(first))


@pytest.mark.fast
def test_littlego_book_upgrade_rewrites_a_first_format_book_with_the_same_moves(small_book, tmp_path):
    start, book = small_book
    old = tmp_path / "old.json"
    document = {"format": "littlego-book 1", "moves": book.moves}
    document.update(book.info)
    old.write_text(json.dumps(document, indent=0))
    done = cli("littlego", "book", "upgrade", old, "--out", tmp_path / "new.json", timeout=HANG)
    assert done.returncode == 0, done.stdout + done.stderr
    new = load_book(str(tmp_path / "new.json"))
    assert new.moves == book.moves and new.info == book.info and "littlego-book 1" in old.read_text()


@pytest.mark.fast
def test_a_book_move_that_is_illegal_is_never_played():
    position = Position.initial().play_point(12).play_point(7)
    key, index = book_key(position)
    book = Book({key: turn_move(12, index)})  # 12 is occupied
    assert book.move(position) is None
    assert (
        choose_move(position, default_params()._replace(depth=1, cpu_budget=0.2, cpu_cap=0.5), book=book)
        in position.all_moves()
    )


# -- sections: the White book and books put together ------------------------------------------


@pytest.mark.fast
def test_the_white_book_starts_after_each_losing_first_move_once_per_symmetry_class():
    starts = losing_first_moves()
    boards = sorted(start.board_string() for start in starts)
    assert len(starts) == 6 and all(start.moves_played == 1 and start.player == WHITE for start in starts)
    assert "0" * 25 in boards  # Black's pass
    placed = {board.index("1") for board in boards if "1" in board}
    assert len(placed) == 5 and 12 not in placed  # 2,2 wins: no White book after it
    assert len({book_key(start)[0] for start in starts}) == 6


@pytest.fixture(scope="module")
def white_book(native):
    """A White book of two sections from two won White positions (the real one starts at ply 1)."""
    starts = [won_position(13, seed=3), won_position(13, seed=4)]
    return starts, build_white_book(17, table_bits=18, jobs=2, starts=starts)


def test_a_white_book_has_a_section_per_start_each_keeping_the_win(white_book):
    starts, book = white_book
    sections = book_sections(book)
    assert [s.start.board_string() for s in sections] == [s.board_string() for s in starts]
    assert all(s.side == "white" and s.max_ply == 17 for s in sections)
    for start in starts:
        met, missing, wrong = check_book(book, Solver(), start=start)
        assert met > 1 and not missing and not wrong
    assert all(p.moves_played % 2 == 1 for p, m in book_positions(book))  # White's plies only


def test_merged_books_serve_every_section_and_read_back_the_same(small_book, white_book, tmp_path):
    (_, black), (_, white) = small_book, white_book
    merged, filled, nodes = merge_books([black, white], table_bits=18)
    assert [s.side for s in book_sections(merged)] == ["black", "white", "white"]
    assert set(merged.moves) == set(black.moves) | set(white.moves) and filled == 0
    met, missing, wrong = check_book(merged, Solver())
    assert met > len(black) and not missing and not wrong
    path = tmp_path / "book.json"
    path.write_text(merged.to_json())
    again = load_book(str(path))
    assert again.moves == merged.moves and book_sections(again) == book_sections(merged)


def test_a_position_left_without_a_move_is_solved_when_books_are_merged(white_book):
    starts, book = white_book
    key = book_key(starts[1])[0]
    damaged = Book({k: v for k, v in book.moves.items() if k != key}, dict(book.info))
    assert check_book(damaged)[1]
    merged, filled, nodes = merge_books([damaged], table_bits=18)
    assert filled >= 1 and nodes > 0
    met, missing, wrong = check_book(merged, Solver())
    assert not missing and not wrong


def test_littlego_book_merge_and_check_say_what_each_section_holds(small_book, white_book, tmp_path):
    (_, black), (_, white) = small_book, white_book
    (tmp_path / "black.json").write_text(black.to_json())
    (tmp_path / "white.json").write_text(white.to_json())

    merge = ("merge", "black.json", "white.json", "--out", "both.json", "--table-bits", "18")
    done = cli("littlego", "book", *merge, cwd=tmp_path, timeout=HANG)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "in 3 sections" in done.stdout + done.stderr
    done = cli("littlego", "book", "check", "both.json", "--solve", "--table-bits", "18", cwd=tmp_path, timeout=HANG)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if "meets" in line]  # the report is on stdout
    assert [line.split()[0] for line in lines] == ["black", "white", "white"]
    assert all(line.endswith("0 without a move, 0 moves that lose the win") for line in lines)
    extend = ("extend", "white.json", "--max-ply", "17", "--side", "white")
    done = cli("littlego", "book", *extend, cwd=tmp_path, timeout=HANG)
    assert done.returncode == 2 and "already reaches ply 17 for white" in done.stdout + done.stderr


def test_a_trimmed_book_keeps_the_sides_moves_to_the_new_ply_and_stays_complete(small_book, white_book):
    (_, black), (_, white) = small_book, white_book
    both, _, _ = merge_books([black, white], table_bits=18)
    trimmed = trim_book(both, 15, side="white")
    white_plies = sorted({key_ply(key) for key in trimmed.moves if key_ply(key) % 2})
    assert white_plies and max(white_plies) == 15
    assert {k for k in trimmed.moves if key_ply(k) % 2 == 0} == {k for k in both.moves if key_ply(k) % 2 == 0}
    assert all(both.moves[key] == move for key, move in trimmed.moves.items())
    assert len(trimmed) < len(both) and trimmed.info["positions"] == len(trimmed)
    sections = book_sections(trimmed)
    assert [(s.side, s.max_ply) for s in sections] == [("black", 18), ("white", 15), ("white", 15)]
    assert all("--max-ply 15 --side white" in s.provenance["trimmed"] for s in sections[1:])
    met, missing, wrong = check_book(trimmed, Solver())
    assert met > 0 and not missing and not wrong
    # a section that starts after the new last ply goes
    assert [s.side for s in book_sections(trim_book(both, 12, side="white"))] == ["black"]


def test_littlego_book_trim_writes_a_smaller_book_and_refuses_a_deeper_target(white_book, tmp_path):
    (tmp_path / "white.json").write_text(white_book[1].to_json())

    done = cli(
        "littlego", "book", "trim", "white.json", "--max-ply", "15", "--out", "small.json", cwd=tmp_path, timeout=HANG
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "small.json").stat().st_size < (tmp_path / "white.json").stat().st_size
    assert "to ply 15" in done.stdout + done.stderr
    assert all(key_ply(key) <= 15 for key in load_book(str(tmp_path / "small.json")).moves)
    done = cli(
        "littlego", "book", "trim", "white.json", "--max-ply", "17", "--out", "same.json", cwd=tmp_path, timeout=HANG
    )
    output = done.stdout + done.stderr
    assert done.returncode == 2 and "must be shallower" in output and "Traceback" not in output
    assert not (tmp_path / "same.json").exists()


# -- a book in use ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_book(native):
    start = won_position(14, seed=3)
    return start, build_book(18, table_bits=18, start=start)


@pytest.mark.fast
def test_the_agent_plays_the_book_move_at_once(small_book):
    start, book = small_book
    params = default_params()._replace(cpu_budget=0.01, cpu_cap=0.02)
    assert choose_move(start, params, book=book) == book.move(start) is not None


def test_the_bundled_agent_reads_the_book_beside_it(small_book, tmp_path):
    start, book = small_book
    path = tmp_path / "book.json"
    path.write_text(book.to_json())
    out = tmp_path / "bundle"
    done = cli("littlego", "bundle", out, "--book", path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert Book.from_json((out / "book.json").read_text()).moves == book.moves
    # The host's input for the start position, and the state file that tells the ply count.
    (out / "input.txt").write_text(
        "{}\n{}\n{}".format(
            start.player,
            "\n".join(start.previous_string()[r : r + 5] for r in range(0, 25, 5)),
            "\n".join(start.board_string()[r : r + 5] for r in range(0, 25, 5)),
        )
    )
    (out / "littlego_state.txt").write_text(
        f"littlego-state 1\n{start.player}\n{start.moves_played - 1}\n{start.previous_string()}\n"
    )
    done = subprocess.run(
        [sys.executable, "my_player3.py"], cwd=str(out), stderr=subprocess.PIPE, text=True, timeout=HANG
    )
    assert done.returncode == 0, done.stderr
    move = book.move(start)
    assert (out / "output.txt").read_text().strip() == ("PASS" if move == PASS else "{},{}".format(*divmod(move, 5)))


def test_bundle_refuses_a_damaged_book_before_writing_anything(tmp_path):
    path = tmp_path / "book.json"
    path.write_text("{")
    out = tmp_path / "bundle"
    done = cli("littlego", "bundle", out, "--book", path)
    output = done.stdout + done.stderr
    assert done.returncode == 2 and "not JSON" in output and "Traceback" not in output
    assert not (out / "my_player3.py").exists()


@pytest.mark.fast
def test_book_check_reports_a_position_without_a_move(small_book, tmp_path):
    start, book = small_book
    key = book_key(start)[0]
    damaged = Book({k: v for k, v in book.moves.items() if k != key}, dict(book.info))
    met, missing, wrong = check_book(damaged, start=start)
    assert [book_key(p)[0] for p in missing] == [key]


def test_littlego_book_check_walks_from_the_books_start_and_says_what_it_found(small_book, tmp_path):
    start, book = small_book
    path = tmp_path / "book.json"
    path.write_text(book.to_json())
    done = cli("littlego", "book", "check", path, "--solve", "--table-bits", "18", timeout=HANG)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 without a move, 0 moves that lose the win" in done.stdout + done.stderr
    done = cli("littlego", "book", "build", "--out", tmp_path / "missing" / "book.json", timeout=HANG)
    output = done.stdout + done.stderr
    assert done.returncode == 2 and "no such folder" in output and "Traceback" not in output


def test_littlego_book_extend_adds_the_next_plies_and_refuses_a_shallower_target(small_book, tmp_path):
    start, book = small_book

    def ply(key):
        return int(re.match(r"\d+", key.split(".")[1]).group())

    shallow = Book(
        {key: move for key, move in book.moves.items() if ply(key) <= 16},
        with_sections(book.info, [book_sections(book)[0]._replace(max_ply=16)]),
    )
    path = tmp_path / "book.json"
    path.write_text(shallow.to_json())

    done = cli("littlego", "book", "extend", path, "--max-ply", "16", timeout=HANG)
    output = done.stdout + done.stderr
    assert done.returncode == 2 and "must be deeper" in output and "Traceback" not in output
    deeper = ("--max-ply", "18", "--jobs", "2", "--table-bits", "18", "--out", tmp_path / "deep.json")
    done = cli("littlego", "book", "extend", path, *deeper, timeout=HANG)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "up to ply 18" in done.stdout + done.stderr
    deep = load_book(str(tmp_path / "deep.json"))
    met, missing, wrong = check_book(deep, Solver(), start=start)
    assert not missing and not wrong and len(deep) > len(shallow)
    assert (
        book_sections(deep)[0].provenance["extended"][-1]["command"].endswith("--max-ply 18 --table-bits 18 --jobs 2")
    )
    assert load_book(str(path)).moves == shallow.moves  # the input stays as it was


# -- the shipped book ------------------------------------------------------------------------


def shipped_book():
    book = load_book(SHIPPED_BOOK)
    assert book is not None, "book.json is shipped beside params.json"
    return book


@functools.lru_cache(maxsize=1)
def shipped_book_positions():
    """Every (position, move) a Black following the shipped book meets (one walk: 138k positions)."""
    return tuple(book_positions(shipped_book(), start=Position.initial(), max_ply=10))


@pytest.mark.slow
def test_the_shipped_book_opens_2_2_and_has_a_move_against_every_reply_to_its_last_ply():
    book = shipped_book()
    assert book.move(Position.initial()) == 12  # 2,2: the only winning first move
    met = shipped_book_positions()
    assert len(met) > 100000 and all(move is not None for position, move in met)
    black = book_sections(book)[0]
    assert black.side == "black" and black.start.moves_played == 0
    assert max(position.moves_played for position, move in met) == black.max_ply == 10
    assert "littlego book build" in black.provenance["command"]
    assert "littlego book extend" in black.provenance["extended"][0]["command"]


def test_the_shipped_book_has_white_a_winning_line_after_every_losing_first_move():
    white = [section for section in book_sections(shipped_book()) if section.side == "white"]
    assert sorted(section.start.board_string() for section in white) == sorted(
        start.board_string() for start in losing_first_moves()
    )
    assert all(section.max_ply == 11 and "--side white" in section.provenance["command"] for section in white)
    met = list(book_positions(shipped_book(), max_ply=7))  # the whole walk to ply 11: the slow test below
    assert len(met) > 10000 and all(move is not None for position, move in met)


@pytest.mark.slow
def test_the_shipped_book_has_a_move_wherever_a_side_following_it_can_be_to_its_last_ply():
    met, missing, wrong = check_book(shipped_book())  # 677k positions, all seven sections
    assert met > 650000 and not missing


def white_book_descents(count, plies, seed):
    """(position, book move) at ``plies`` met by a White following the shipped book, Black at random."""
    book, rng = shipped_book(), random.Random(seed)
    starts = [section.start for section in book_sections(book) if section.side == "white"]
    found = []
    while len(found) < count:
        position = rng.choice(starts)
        target = rng.choice(plies)
        while position.moves_played < target and not position.is_over:
            after = position.play_point(book.move(position))
            position = after if after.is_over else after.play_point(rng.choice(after.all_moves()))
        if not position.is_over:
            found.append((position, book.move(position)))
    return found


def test_a_fresh_compiled_solver_confirms_a_sample_of_the_shipped_white_book(native):
    sample = white_book_descents(24, (5, 7, 9, 11), seed=7)
    assert all(move is not None for position, move in sample)
    for position, move in sample:
        assert not native.wins(position.play_point(move)), position


def sample_of_shipped_positions(count, plies, seed):
    rng = random.Random(seed)
    found = [(p, m) for p, m in shipped_book_positions() if p.moves_played in plies]
    return rng.sample(found, count)


def test_a_fresh_compiled_solver_confirms_a_sample_of_the_shipped_book(native):
    for position, move in sample_of_shipped_positions(24, (6, 8, 10), seed=5):
        assert not native.wins(position.play_point(move)), position


@pytest.mark.slow
def test_the_python_solver_confirms_shipped_book_moves_at_plies_8_and_10():
    # an implementation that shares nothing with the one that built the book
    for position, move in sample_of_shipped_positions(3, (8,), seed=6) + sample_of_shipped_positions(6, (10,), seed=6):
        assert not Solver().wins(position.play_point(move)), position


def test_bundle_ships_the_shipped_book_unless_told_not_to(tmp_path):
    done = cli("littlego", "bundle", tmp_path / "with")
    assert done.returncode == 0, done.stdout + done.stderr
    assert Book.from_json((tmp_path / "with" / "book.json").read_text()).moves == shipped_book().moves
    done = cli("littlego", "bundle", tmp_path / "without", "--no-book")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(os.listdir(str(tmp_path / "without"))) == ["my_player3.py", "params.json"]


def test_the_bundled_agent_opens_2_2_from_the_book(tmp_path):
    out = tmp_path / "submission"
    done = cli("littlego", "bundle", out)
    assert done.returncode == 0, done.stdout + done.stderr
    (out / "input.txt").write_text("1\n" + "00000\n" * 9 + "00000")
    done = subprocess.run(
        [sys.executable, "my_player3.py"], cwd=str(out), stderr=subprocess.PIPE, text=True, timeout=HANG
    )
    assert done.returncode == 0, done.stderr
    assert (out / "output.txt").read_text().strip() == "2,2"


def test_the_bundled_agent_answers_a_losing_first_move_from_the_white_book(tmp_path):
    out = tmp_path / "submission"
    done = cli("littlego", "bundle", out)
    assert done.returncode == 0, done.stdout + done.stderr
    after = Position.initial().play_point(6)  # Black opened 1,1, which loses
    (out / "input.txt").write_text("2\n" + "00000\n" * 5 + "00000\n01000\n" + "00000\n" * 2 + "00000")
    done = subprocess.run(
        [sys.executable, "my_player3.py"], cwd=str(out), stderr=subprocess.PIPE, text=True, timeout=HANG
    )
    assert done.returncode == 0, done.stderr
    move = shipped_book().move(after)
    assert (out / "output.txt").read_text().strip() == "{},{}".format(*divmod(move, 5))
    assert not done.stderr


def _another_games_book():
    """A well-formed book that answers the empty board with 0,0 (a losing first move)."""
    key, index = book_key(Position.initial())
    return Book({key: turn_move(0, index)}).to_json()


@pytest.mark.parametrize(
    "book_text", [None, "{not json", _another_games_book()], ids=["missing", "damaged", "another-games"]
)
def test_the_agent_opens_2_2_whatever_the_book_file_holds(tmp_path, book_text):
    out = tmp_path / "submission"
    done = cli("littlego", "bundle", out, "--no-book")
    assert done.returncode == 0, done.stdout + done.stderr
    if book_text is not None:
        (out / "book.json").write_text(book_text)
    (out / "input.txt").write_text("1\n" + "00000\n" * 9 + "00000")
    done = subprocess.run(
        [sys.executable, "my_player3.py"], cwd=str(out), stderr=subprocess.PIPE, text=True, timeout=HANG
    )
    assert done.returncode == 0, done.stderr
    assert (out / "output.txt").read_text().strip() == "2,2"
    book = Book.from_json(_another_games_book())
    assert book.move(Position.initial()) == 0
    assert choose_move(Position.initial(), default_params(), book=book) == 12
