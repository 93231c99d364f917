"""The store of solved positions (engine/native/store.py): what one tool solves, another reads back."""

import multiprocessing
import random
import sqlite3

import pytest

import engine.native.store as store_module
import engine.native.store_file as store_file_module
import engine.native.stored_solver as stored_solver_module
from engine.constants import PASS
from engine.coords import move_from_text
from engine.data import SOLVED_PREFILL
from engine.native.grow import positions_to_grow, ship_store
from engine.native.solver import NativeSolver, describe_position, position_from_text
from engine.native.store import SolvedStore
from engine.native.store_file import StoreError
from engine.native.store_schema import store_key
from engine.native.stored_solver import Solving, StoredSolver
from engine.position import Position
from engine.symmetry import SYMMETRIES
from evolve.solved.exploit import adversary_move
from evolve.solved.labels import label_positions
from evolve.solved.positions import solve_positions
from tests.conftest import cli, random_position, turn

MAX_PREFILL_BYTES = 1024 * 1024  # the package's prefill stays well under a megabyte (issue 61)


def _positions(seed, count, low=14, high=17):
    rng = random.Random(seed)
    return [random_position(rng, low, high) for _ in range(count)]


class CountingSolver:
    """Stands in for NativeSolver: counts the solvers started and the questions asked, answering truly."""

    started = 0
    questions = 0

    def __init__(self, table_bits=16):
        CountingSolver.started += 1
        self.real = NativeSolver(16)

    def wins(self, position):
        CountingSolver.questions += 1
        return self.real.wins(position)

    def move_results(self, position):
        CountingSolver.questions += 1
        return self.real.move_results(position)

    @property
    def nodes(self):
        return self.real.nodes

    def close(self):
        self.real.close()


class RefusingSolver:
    """Stands in for NativeSolver where nothing may be solved again (in a worker process too)."""

    def __init__(self, *args, **kwargs):
        raise AssertionError("the compiled solver was started for a position the store holds")


@pytest.mark.fast
def test_a_position_stored_in_one_orientation_reads_back_in_all_eight(native, tmp_path):
    store = SolvedStore(tmp_path / "solved.sqlite")
    for position in _positions(3, 4):
        results = native.move_results(position)
        margins = {move: (2.5 if wins else -0.5) + index for index, (move, wins) in enumerate(results.items())}
        store.record(position, results, margins=margins)
        for table in SYMMETRIES:
            image = turn(position, table)
            assert store.results(image) == native.move_results(image)
            assert store.value(image) == native.wins(image) == any(results.values())
            assert store.margins(image) == {
                move if move == "PASS" else table[move]: margin for move, margin in margins.items()
            }
    assert store.check() == []


@pytest.mark.fast
def test_keys_tell_apart_the_colour_to_move():
    position = _positions(5, 1)[0]
    other = position_from_text(describe_position(position).replace(str(position.player), str(3 - position.player), 1))
    assert store_key(position)[0] != store_key(other)[0]


@pytest.mark.fast
def test_a_value_alone_is_kept_and_the_moves_added_later(native, tmp_path):
    store = SolvedStore(tmp_path / "solved.sqlite")
    position = _positions(7, 1)[0]
    store.record(position, won=native.wins(position))
    assert store.value(position) == native.wins(position) and store.results(position) is None
    store.record(position, native.move_results(position))
    assert store.results(position) == native.move_results(position)
    assert store.summary()["by_ply"] == {position.moves_played: (1, 0)}


@pytest.mark.fast
def test_a_position_whose_children_the_store_holds_follows_from_them_without_the_solver(native, tmp_path, monkeypatch):
    """A store filled at one ply answers the ply before it: every move's result follows from the values
    of the positions after it (an ended game's from its count), and is stored; one child missing and the
    solver is asked."""
    position = next(p for p in _positions(11, 20, 18, 20) if any(p.play_point(m).is_over for m in p.all_moves()))
    store = SolvedStore(tmp_path / "solved.sqlite")
    children = {move: position.play_point(move) for move in position.all_moves()}
    for child in children.values():
        if not child.is_over:
            store.record(child, won=native.wins(child))
    monkeypatch.setattr(stored_solver_module, "NativeSolver", RefusingSolver)
    with StoredSolver(store) as solver:
        assert solver.move_results(position) == native.move_results(position) and solver.asked == 0
    assert store.results(position) == native.move_results(position)
    other = next(p for p in _positions(12, 5, 18, 20) if store.results(p) is None)
    monkeypatch.setattr(stored_solver_module, "NativeSolver", CountingSolver)
    monkeypatch.setattr(CountingSolver, "questions", 0)
    monkeypatch.setattr(CountingSolver, "started", 0)
    with StoredSolver(store) as solver:
        assert solver.move_results(other) == native.move_results(other) and CountingSolver.questions == 1


def _damage(path, how):
    data = bytearray(path.read_bytes())
    if how == "truncated":
        path.write_bytes(bytes(data[: len(data) // 2 + 100]))
    elif how == "overwritten":
        for offset in range(4096, len(data), 997):  # past the header: the pages themselves
            data[offset] ^= 0x5A
        path.write_bytes(bytes(data))
    elif how == "not sqlite":
        path.write_bytes(b'{"format": "littlego-book 2"}\n' + bytes(data[100:200]))


@pytest.mark.fast
@pytest.mark.parametrize("how", ["truncated", "overwritten", "not sqlite"])
def test_a_damaged_store_is_refused_with_its_name_never_read(native, tmp_path, how):
    path = tmp_path / "solved.sqlite"
    with SolvedStore(path) as store:
        for position in _positions(11, 30, 10, 18):
            store.record(position, native.move_results(position))
        store._execute("PRAGMA wal_checkpoint(TRUNCATE)")
    _damage(path, how)
    with pytest.raises(StoreError, match=str(path)):
        store = SolvedStore(path)
        for position in _positions(11, 30, 10, 18):  # a damage quick_check missed is found on read, never served
            store.results(position)
        assert store.check() == []


@pytest.mark.fast
def test_an_entry_whose_value_changed_under_sqlite_is_refused_not_served(native, tmp_path):
    path = tmp_path / "solved.sqlite"
    position = _positions(29, 1)[0]
    SolvedStore(path).record(position, native.move_results(position))
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE positions SET won = 1 - won")  # a flipped bit: the pages stay well formed
    store = SolvedStore(path)
    with pytest.raises(StoreError, match="checksum"):
        store.results(position)
    assert len(store.check()) == 1


@pytest.mark.fast
def test_a_store_of_other_rules_or_format_is_refused(tmp_path):
    path = tmp_path / "solved.sqlite"
    SolvedStore(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE meta SET value = 'older-rules' WHERE name = 'rules'")
    with pytest.raises(StoreError, match="other rules"):
        SolvedStore(path)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE games (moves TEXT)")
    with pytest.raises(StoreError, match="not a store"):
        SolvedStore(other)


@pytest.mark.fast
def test_what_the_adversary_solved_is_not_solved_again_by_the_regret_positions(monkeypatch, tmp_path):
    """Two tools over the same positions: the exploit report's adversary, then 'evolve positions'."""
    path = tmp_path / "solved.sqlite"
    monkeypatch.setattr(stored_solver_module, "NativeSolver", CountingSolver)
    parents = _positions(13, 3, 12, 14)
    with StoredSolver(path) as adversary:
        moves = [adversary_move(adversary, position) for position in parents]
        first_questions = CountingSolver.questions
    assert first_questions > 0 and CountingSolver.started == 1
    children = [p.play_point(m) for p in parents for m in p.legal_points()]
    children = [describe_position(child) for child in children if not child.is_over]
    assert moves and children
    solved, nodes = solve_positions(children, str(tmp_path / "positions.journal"), store=path)
    assert CountingSolver.questions == first_questions and CountingSolver.started == 1 and nodes == 0
    with NativeSolver(16) as native:
        assert all(solved[text] == native.move_results(position_from_text(text)) for text in children)


@pytest.mark.fast
def test_what_the_regret_positions_solved_the_labels_read_without_the_solver(monkeypatch, tmp_path):
    """'evolve positions' then 'evolve label' over the same positions: the labels' workers start no solver."""
    path = tmp_path / "solved.sqlite"
    texts = [describe_position(p) for p in _positions(17, 6)]
    solved, nodes = solve_positions(texts, str(tmp_path / "positions.journal"), store=path)
    assert nodes > 0
    monkeypatch.setattr(stored_solver_module, "NativeSolver", RefusingSolver)  # the forked workers inherit it
    labelled, nodes, interrupted = label_positions(texts, jobs=2, store=path)
    assert nodes == 0 and not interrupted
    assert dict(labelled) == {text: int(any(solved[text].values())) for text in texts}


def _solve_share(path, texts):
    with StoredSolver(path, table_bits=16) as solver:
        return {text: solver.move_results(position_from_text(text)) for text in texts}


@pytest.mark.fast
def test_several_processes_writing_overlapping_positions_at_once_keep_the_store_whole(tmp_path):
    path = str(tmp_path / "solved.sqlite")
    texts = [describe_position(p) for p in _positions(19, 24, 13, 16)]
    shares = [texts[start : start + 12] for start in range(0, 24, 4)]  # each position in two or three shares
    with multiprocessing.get_context("fork").Pool(4) as pool:
        answers = pool.starmap(_solve_share, [(path, share) for share in shares])
    store = SolvedStore(path)
    assert store.check() == []
    assert store.summary()["positions"] == len({store_key(position_from_text(text))[0] for text in texts})
    with NativeSolver(16) as native:
        for share in answers:
            for text, results in share.items():
                assert (
                    store.results(position_from_text(text)) == results == native.move_results(position_from_text(text))
                )


@pytest.mark.fast
def test_a_store_another_process_holds_while_it_opens_is_waited_for_not_called_damaged(monkeypatch, tmp_path):
    """SQLite may answer "database is locked" on open without waiting (a writer creating the file or
    recovering its log): the store waits and tries again, and past BUSY_SECONDS says busy, not damaged."""
    path = str(tmp_path / "solved.sqlite")
    SolvedStore(path).close()
    opened = store_module.SolvedStore._open
    locked_tries = []

    def locked_twice(self, connection):
        if len(locked_tries) < 2:
            locked_tries.append(1)
            raise sqlite3.OperationalError("database is locked")
        return opened(self, connection)

    monkeypatch.setattr(store_module.SolvedStore, "_open", locked_twice)
    store = SolvedStore(path)
    assert len(locked_tries) == 2 and store.summary()["positions"] == 0
    store.close()

    def always_locked(self, connection):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(store_module.SolvedStore, "_open", always_locked)
    monkeypatch.setattr(store_file_module, "BUSY_SECONDS", 0.2)
    with pytest.raises(StoreError, match="busy: another process") as refused:
        SolvedStore(path)
    assert "damaged" not in str(refused.value)


def _moves_text(position_moves):
    return " ".join("pass" if move == "PASS" else f"{move // 5},{move % 5}" for move in position_moves)


def test_littlego_solve_native_answers_a_stored_position_from_the_store(tmp_path):
    rng, moves = random.Random(23), []
    position = Position.initial()
    while position.moves_played < 15:
        move = rng.choice(position.legal_points())
        moves.append(move)
        position = position.play_point(move)
    store = tmp_path / "solved.sqlite"
    first = cli("littlego", "solve", "--native", "--moves", _moves_text(moves), "--store", store, "--no-progress")
    second = cli("littlego", "solve", "--native", "--moves", _moves_text(moves), "--store", store, "--no-progress")
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert "nodes" in first.stdout and f"from the store {store}" in second.stdout
    assert first.stdout.splitlines()[-5:] == second.stdout.splitlines()[-5:]
    (tmp_path / "broken.sqlite").write_bytes(b"not a database at all, but long enough to look like one" * 10)
    broken = cli("littlego", "solve", "--native", "--moves", _moves_text(moves), "--store", tmp_path / "broken.sqlite")
    assert broken.returncode == 2 and "broken.sqlite" in broken.stderr and "Traceback" not in broken.stderr


LATE_MOVES = "2,2 1,2 2,1 1,1 1,3 2,3 3,2 0,2 3,3 2,4 1,4 3,4 0,3 0,1"  # a ply-14 position with a dozen replies


@pytest.mark.fast
def test_positions_to_grow_are_those_reached_distinct_under_the_symmetries():
    every = positions_to_grow(Position.initial(), (0, 2))
    assert {ply: len(found) for ply, found in every.items()} == {0: 1, 1: 6, 2: 91}  # 85 placements, 6 after a pass
    sampled = positions_to_grow(Position.initial(), (2, 3), sample=20, seed=4)
    assert [len(found) for found in sampled.values()] == [20, 20]
    assert all(len({store_key(p)[0] for p in found}) == 20 for found in sampled.values())


@pytest.mark.slow
def test_littlego_store_grow_is_resumable_and_info_and_check_describe_it(tmp_path):
    store = tmp_path / "solved.sqlite"
    grow = ["store", "grow", "--plies", "14-15", "--moves", LATE_MOVES, "--jobs", "2", "--table-bits", "16"]
    first = cli("littlego", *grow, "--store", store, "--no-progress")
    assert first.returncode == 0, first.stderr
    assert "ply 14: 1 solved, 0 held already" in first.stdout
    again = cli("littlego", *grow, "--store", store, "--no-progress")
    assert "ply 14: 0 solved, 1 held already" in again.stdout and "ply 15: 0 solved" in again.stdout
    info = cli("littlego", "store", "info", "--store", store)
    assert "ply 14: 1 with every move" in info.stdout and "rules" in info.stdout, info.stderr
    assert cli("littlego", "store", "check", "--store", store).stdout.strip().endswith("whole")
    store.write_bytes(store.read_bytes()[:3000])
    broken = cli("littlego", "store", "check", "--store", store)
    assert broken.returncode == 2 and str(store) in broken.stderr and len(broken.stderr.strip().splitlines()) == 1
    missing = cli("littlego", "store", "info", "--store", tmp_path / "none.sqlite")
    assert missing.returncode == 2 and "no store" in missing.stderr
    assert "beneath it, read-only, the prefill" in info.stdout
    out = tmp_path / "prefill.sqlite"
    shipped = cli("littlego", "store", "ship", "--plies", "0-1", "--store", tmp_path / "fresh.sqlite", "--out", out)
    assert shipped.returncode == 2 and "no store" in shipped.stderr
    cli("littlego", "store", "grow", "--plies", "0-1", "--store", tmp_path / "fresh.sqlite", "--no-progress")
    shipped = cli("littlego", "store", "ship", "--plies", "0-1", "--store", tmp_path / "fresh.sqlite", "--out", out)
    assert "7 positions (plies 0-1)" in shipped.stdout, shipped.stderr  # the prefill's, beneath the fresh store


# -- the prefill: what the package ships, beneath every store ------------------------------------------


def _shipped(native, tmp_path, positions):
    """The path of a prefill of ``positions``, written by ship_store from a store that solved them."""
    source = tmp_path / "grown.sqlite"
    with SolvedStore(source, prefill=None) as store:
        for position in positions:
            store.record(position, native.move_results(position))
    by_ply = {}
    for position in positions:
        by_ply.setdefault(position.moves_played, []).append(position)
    ship_store(source, by_ply, tmp_path / "prefill.sqlite")
    return tmp_path / "prefill.sqlite"


def test_a_store_reads_the_prefill_beneath_its_own_file_and_never_writes_it(native, tmp_path):
    shipped, later = _positions(41, 3), _positions(42, 1)[0]
    prefill = _shipped(native, tmp_path, shipped)
    before = prefill.read_bytes()
    store = SolvedStore(tmp_path / "mine.sqlite", prefill=prefill)
    for position in shipped:
        image = turn(position, SYMMETRIES[5])
        assert store.results(image) == native.move_results(image) and store.holds(position)
    store.record(later, won=native.wins(later))
    results = native.move_results(shipped[0])
    margin = {PASS: 1.5 if results[PASS] else -1.5}
    store.record(shipped[0], results, margins=margin)  # what it adds to a shipped position goes to its own file
    assert store.results(shipped[0]) == results and store.margins(shipped[0]) == margin
    summary = store.summary()
    assert summary["positions"] == 2 and summary["prefill"]["positions"] == 3
    assert store.check() == []
    store.close()
    assert prefill.read_bytes() == before and not (tmp_path / "prefill.sqlite-wal").exists()
    with pytest.raises(StoreError, match="reading only"):
        SolvedStore(prefill, read_only=True).record(later, won=True)


def test_ship_refuses_a_store_that_lacks_a_position_and_writes_nothing(native, tmp_path):
    positions = _positions(43, 2)
    source = tmp_path / "grown.sqlite"
    SolvedStore(source, prefill=None).record(positions[0], native.move_results(positions[0]))
    with pytest.raises(StoreError, match="1 of the 2 positions"):
        ship_store(source, {0: positions}, tmp_path / "prefill.sqlite")
    assert not (tmp_path / "prefill.sqlite").exists()


@pytest.mark.parametrize("how", ["truncated", "other rules"])
def test_a_damaged_prefill_or_one_of_other_rules_is_refused_by_name(native, tmp_path, how):
    prefill = _shipped(native, tmp_path, _positions(44, 30, 10, 18))
    if how == "truncated":
        _damage(prefill, how)
    else:
        with sqlite3.connect(prefill) as connection:
            connection.execute("UPDATE meta SET value = 'older-rules' WHERE name = 'rules'")
    with pytest.raises(StoreError, match=str(prefill)):
        SolvedStore(tmp_path / "mine.sqlite", prefill=prefill)


def test_the_shipped_prefill_holds_every_position_of_its_plies_and_the_empty_boards_one_winning_move(
    private_store, monkeypatch
):
    monkeypatch.setattr(stored_solver_module, "NativeSolver", RefusingSolver)
    with StoredSolver(private_store) as solver:  # the tools' default store, empty: the prefill answers
        shipped = solver.store.prefill.summary()
        last = max(shipped["by_ply"])
        every = positions_to_grow(Position.initial(), (0, last))
        assert {ply: moves for ply, (moves, _) in shipped["by_ply"].items()} == {p: len(f) for p, f in every.items()}
        assert all(solver.store.holds(position) for found in every.values() for position in found)
        first = solver.move_results(Position.initial())
    assert [move for move, wins in first.items() if wins] == [12]  # the centre, 2,2, alone wins
    assert solver.store.prefill.path == SOLVED_PREFILL and shipped["bytes"] < MAX_PREFILL_BYTES


# -- one tool's answers, every other tool's: the compiled solver is asked each position once ----------


@pytest.fixture
def native_questions(monkeypatch):
    """The questions put to any NativeSolver in this process from now on ("wins", "moves", "book")."""
    asked = []
    ask, lines = NativeSolver._ask, NativeSolver.book_lines

    def counted_ask(self, line):
        asked.append(line.split()[0])
        return ask(self, line)

    def counted_lines(self, max_ply, start=None, progress=None):
        asked.append("book")
        return lines(self, max_ply, start, progress)

    monkeypatch.setattr(NativeSolver, "_ask", counted_ask)
    monkeypatch.setattr(NativeSolver, "book_lines", counted_lines)
    return asked


@pytest.mark.fast
def test_what_littlego_solve_solved_the_board_openings_study_and_book_read_without_the_solver(
    native, native_questions, tmp_path, capsys
):
    """``littlego solve --native`` settles a ply-14 position; then the board's analysis, the openings'
    settling, ``study depth`` and the book's filling and checking use it and ask the solver nothing."""
    from engine.book import Book, book_key
    from engine.cli.littlego import main
    from engine.constants import colour_word
    from engine.native.book_fill import fill_book
    from engine.native.sections import BookSection, check_book, with_sections
    from engine.play.sgf import game_sgf
    from engine.study.settle import solve_all
    from engine.ui.board import position_from_moves
    from engine.ui.web.native_values import NativeValues

    path = str(tmp_path / "solved.sqlite")
    assert main(["solve", "--native", "--moves", LATE_MOVES, "--store", path, "--no-progress"]) == 0
    assert "nodes" in capsys.readouterr().out and native_questions  # solved: nothing was stored before
    solved = len(native_questions)
    position = position_from_moves(LATE_MOVES)
    results = SolvedStore(path).results(position)
    children = {move: position.play_point(move) for move in results}

    board = NativeValues(5.0, store=path)
    assert board.results(position) == (results, False) and board.solver is None
    board.close()

    answers, said = {}, []
    todo = {book_key(child)[0]: child for child in children.values() if not child.is_over}
    solve_all(todo, str(tmp_path / "answers.json"), answers, Solving(2, 16, str(path)), say=said.append)
    assert answers == {book_key(c)[0]: not results[m] for m, c in children.items() if not c.is_over}
    assert said == [f"{len(todo)} openings from the store {path}"]

    folder = tmp_path / "match-sgf"
    folder.mkdir()
    moves = LATE_MOVES.split() + [PASS, PASS]
    (folder / "game-0000.sgf").write_bytes(game_sgf(moves, "champion", "gnugo", "W+F"))
    assert main(["study", "depth", str(folder), "game-0000.sgf:14", "--deepest", "2", "--store", path]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.split()[4] == ("W" if results[move_from_text(line.split()[3])] else "L")

    section = BookSection(colour_word(position.player), position, position.moves_played, {})
    book = Book({}, with_sections({}, [section]))
    assert fill_book(book, table_bits=16, store=path) == (1, 0)
    with StoredSolver(path, table_bits=16) as checker:
        assert check_book(book, checker, start=position) == (1, [], [])
        assert checker.asked == 0

    assert len(native_questions) == solved  # not one question more after the first tool


def test_what_the_book_builder_proved_book_check_and_the_openings_read_without_the_solver(
    native, native_questions, tmp_path, capsys
):
    """``build_book`` keeps the values its lines prove; ``littlego book check --solve`` and the openings'
    settling then read every one of them from the store."""
    from engine.book import book_key
    from engine.cli.littlego import main
    from engine.native.book_build import build_book
    from engine.native.book_fill import line_values
    from engine.native.sections import book_positions
    from engine.study.settle import solve_all
    from tests.conftest import won_position

    path, start = str(tmp_path / "solved.sqlite"), won_position(14, seed=3)
    book = build_book(17, table_bits=16, start=start, store=path)
    assert native_questions == ["book"]
    (tmp_path / "book.json").write_text(book.to_json())
    assert main(["book", "check", str(tmp_path / "book.json"), "--solve", "--store", path, "--no-progress"]) == 0
    assert "0 without a move, 0 moves that lose the win" in capsys.readouterr().out
    values = line_values(book_positions(book))
    answers = {}
    todo = {book_key(position)[0]: position for position in values}
    solve_all(todo, str(tmp_path / "answers.json"), answers, Solving(1, 16, str(path)), say=lambda line: None)
    assert answers == {book_key(position)[0]: won for position, won in values.items()}
    assert native_questions == ["book"]
