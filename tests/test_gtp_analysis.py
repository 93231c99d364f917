"""What a GUI computes from ``littlego gtp`` comes out right: Lizzie's version check, setup and handicap stones,
principal variations and score leads from the solver, estimates never shown as exact."""

import pytest

from engine.constants import BLACK, PASS
from engine.players.gtp import point_to_vertex, vertex_to_point
from engine.position import Position
from engine.ui.analyze import ESTIMATE_FLOOR, Analysis, MoveAnalysis, kata_line, principal_move, win_rate
from engine.ui.gtp_server import package_version
from tests.test_gtp import analysis_items


def first_lines(engine, command, count=1):
    """The first ``count`` lines of an analysis ``command``; the analysis then ended by ``name``."""
    engine.process.stdin.write(command + "\n")
    engine.process.stdin.flush()
    assert engine.process.stdout.readline() == "=\n"
    lines = [engine.process.stdout.readline() for _ in range(count)]
    engine.process.stdin.write("name\n")
    engine.process.stdin.flush()
    while engine.process.stdout.readline() != "\n":
        pass
    assert engine.raw("") == "= littlego\n"
    return lines


def test_version_passes_lizzies_check_and_names_our_release(engine):
    answer = engine.ok("version")
    # Lizzie 0.7.4 splits the answer at spaces and reads the second number of its first word as Leela Zero's
    # minor release, warning below 15.
    assert int(answer.split(" ")[0].split(".")[1]) >= 15
    assert f"littlego {package_version()}" in answer and "handset@2" in answer


def test_set_free_handicap_sets_up_black_stones_with_white_to_move(engine):
    assert "syntax error" in engine.error("set_free_handicap C3 Z9")
    assert "bad vertex list" in engine.error("set_free_handicap C3")
    assert "bad vertex list" in engine.error("set_free_handicap C3 C3")
    engine.ok("set_free_handicap C3 D4")
    board = engine.ok("showboard")
    # two stones with White to move: the fewest plies a game reaches them in is 3 (as loadsgf counts)
    assert "ply 3 of 24, 21 left; White to move" in board
    assert engine.error("set_free_handicap B2 B3") == "board not empty"
    assert engine.ok("genmove w") != "resign" and "ply 4 of 24" in engine.ok("showboard")
    engine.ok("undo")
    engine.ok("undo")  # the handicap goes back as one
    assert "ply 0 of 24, 24 left; Black to move" in engine.ok("showboard")


@pytest.mark.fast
def test_setup_stones_count_their_plies_as_a_record_does(engine):
    # Two black stones and White to move: no game reaches that at ply 2 (Black moves at even plies).
    engine.ok("play b c3")
    engine.ok("play b d4")
    assert "ply 3 of 24, 21 left; White to move" in engine.ok("showboard")


def test_the_winning_moves_line_is_the_solvers_and_legal(engine):
    (line,) = first_lines(engine, "lz-analyze b 5")
    first = line.split("info move ")[1].split()
    assert first[0] == "C3" and first[first.index("order") + 1] == "0"
    pv = first[first.index("pv") + 1 :]
    assert pv[0] == "C3" and len(pv) >= 4  # the prefill holds the first plies with every move
    position = Position.initial()
    for vertex in pv:  # a line of legal moves, each a win for whoever plays it where a win is there
        move = vertex_to_point(vertex)
        assert move in position.all_moves()
        position = position.play_point(move)


class FakeSolver:
    """An exact solver that knows one position with its margins, and nothing after it."""

    def __init__(self, position, results, margins):
        self.position, self.answers, self.known_margins = position, results, margins

    def results(self, position):
        return (self.answers, False) if position == self.position else (None, True)

    def known(self, position):
        return self.answers if position == self.position else None

    def margins(self, position):
        return self.known_margins if position == self.position else None


@pytest.mark.fast
def test_score_lead_comes_from_the_exact_margins():
    position = Position.initial()
    moves = position.all_moves()
    results = {move: move == 12 for move in moves}
    margins = {move: 3.0 if move == 12 else -2.5 for move in moves}
    items = Analysis(FakeSolver(position, results, margins)).moves(position)
    assert items[0].move == 12 and items[0].margin == 3.0 and all(item.exact for item in items)
    parsed = kata_line(items).split("info move ")[1:]
    assert parsed[0].split()[:11] == "C3 visits 10000 winrate 1.0000 scoreLead 3 prior 0 lcb 1.0000".split()
    assert all(" scoreLead -2.5 " in part for part in parsed[1:])


@pytest.mark.fast
def test_an_estimate_never_reads_as_exact():
    assert win_rate(1e6) == 1 - ESTIMATE_FLOOR and win_rate(-1e6) == ESTIMATE_FLOOR
    items = Analysis(solver=None).moves(Position.initial())
    rates = analysis_items(kata_line(items))
    for item in items:
        if not item.exact:
            assert ESTIMATE_FLOOR <= item.winrate <= 1 - ESTIMATE_FLOOR
            assert rates[point_to_vertex(item.move)][1] <= 100  # an exact win's visits are 10,000 shared


@pytest.mark.fast
def test_the_principal_move_is_a_winning_one_the_evaluation_likes_best():
    position = Position.initial()
    results = {move: move in (0, 12) for move in position.all_moves()}
    assert principal_move(position, results, lambda child, captured=0: 0.0) == 0  # equals: board order
    # the evaluation is the child's mover's (White's): what White dislikes, Black likes
    assert principal_move(position, results, lambda child, captured=0: 1.0 if child.colour_at(12) else 0.0) == 0
    likes_c3 = lambda child, captured=0: -1.0 if child.colour_at(12) == BLACK else 0.0  # noqa: E731
    assert principal_move(position, results, likes_c3) == 12
    lost = {move: False for move in position.all_moves()}
    assert principal_move(position, lost, lambda child, captured=0: 0.0) == 0
    assert MoveAnalysis(PASS, 0.0, True).line == ()
