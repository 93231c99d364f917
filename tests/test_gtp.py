"""Go software's ways in: ``littlego gtp`` as an engine, any GTP engine as a player, play in the
terminal, and replaying SGF records."""

import io
import sys

import pytest

from engine import BLACK, PASS
from engine.coords import move_from_text
from engine.play.match import run_match
from engine.play.settings import GameSettings
from engine.play.sgf import read_game
from engine.players.gnugo import gnugo_path
from engine.players.gtp import point_to_vertex, vertex_to_point
from tests.conftest import HANG, ROOT, Engine, cli


@pytest.mark.fast
def test_vertices_round_trip():
    for point in range(25):
        assert vertex_to_point(point_to_vertex(point)) == point
    assert point_to_vertex(0) == "A5" and point_to_vertex(24) == "E1" and point_to_vertex(PASS) == "pass"
    assert vertex_to_point("c3") == 12 and vertex_to_point("PASS") == PASS
    for bad in ("I3", "F1", "A0", "A6", "", "C", "3C"):
        with pytest.raises(ValueError):
            vertex_to_point(bad)


@pytest.mark.fast
def test_the_required_commands(engine):
    assert engine.ok("protocol_version") == "2"
    assert engine.ok("name") == "littlego"
    assert "handset@2" in engine.ok("version")
    commands = engine.ok("list_commands").split()
    for name in (
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "quit",
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
        "undo",
        "showboard",
        "final_score",
        "loadsgf",
        "printsgf",
        "time_settings",
        "time_left",
        "kgs-genmove_cleanup",
    ):
        assert name in commands
        assert engine.ok("known_command " + name) == "true"
    assert engine.ok("known_command fly") == "false"
    assert engine.ok("time_settings 300 10 1") == "" and "syntax" in engine.error("time_settings 300")
    assert engine.ok("time_left b 290 0") == "" and "syntax" in engine.error("time_left b soon 0")
    assert "size" in engine.error("boardsize 9")
    assert engine.ok("boardsize 5") == ""
    assert engine.ok("komi 6.5") == "" and "komi" in engine.error("komi many")
    engine.ok("play b C3")
    engine.ok("clear_board")
    assert ". . . . ." in engine.ok("showboard")  # cleared
    move = engine.ok("kgs-genmove_cleanup b")  # genmove's twin: Little-Go counts every stone anyway
    assert move == "pass" or vertex_to_point(move) in range(25)
    assert "white's turn" in engine.error("kgs-genmove_cleanup b")


@pytest.mark.fast
def test_ids_empty_lines_comments_and_malformed_input(engine):
    assert engine.raw("7 name\n") == "=7 littlego\n"
    assert engine.raw("\n\n   \n# only a comment\n12 protocol_version # and a comment\n") == "=12 2\n"
    assert engine.raw("3 fly\n").startswith("?3 unknown command")
    assert engine.raw("na\x01me\n") == "= littlego\n"  # control characters are dropped
    assert engine.raw("\tname\t\n") == "= littlego\n"
    assert engine.raw("5\n").startswith("?5")
    assert engine.raw("play\n").startswith("? syntax error")
    assert engine.raw("play b\n").startswith("? syntax error")
    assert engine.raw("play purple C3\n").startswith("? syntax error")
    assert engine.raw("play b Z9\n").startswith("? syntax error")
    assert engine.raw("genmove\n").startswith("? syntax error")
    assert engine.raw("boardsize five\n").startswith("? syntax error")
    assert engine.raw("\xe9\xe9 \xff\n").startswith("? unknown command")
    assert engine.ok("name") == "littlego"  # still alive


@pytest.mark.fast
def test_illegal_plays_are_errors_and_change_nothing(engine):
    engine.ok("play b C3")
    before = engine.ok("showboard")
    assert "occupied" in engine.error("play w C3")
    assert "turn" in engine.error("play b pass")  # a pass out of turn (a stone out of turn is a setup stone)
    assert engine.ok("showboard") == before
    # Suicide: Black into a corner White holds both sides of.
    for move in ("w B5", "b D3", "w A4"):
        engine.ok("play " + move)
    assert "suicide" in engine.error("play b A5")


def test_the_ko_rule_is_the_courses(engine, vector_games):
    for game in vector_games:
        plies = game["plies"]
        banned = [k for k, ply in enumerate(plies) if ply["ko"]]
        if banned:
            break
    k = banned[0]
    for ply in plies[:k]:
        engine.ok(
            "play {} {}".format(
                "b" if ply["player"] == BLACK else "w",
                point_to_vertex(PASS if ply["move"] == "PASS" else move_from_text(ply["move"])),
            )
        )
    colour = "b" if plies[k]["player"] == BLACK else "w"
    point = move_from_text(plies[k]["ko"][0])
    assert "KO" in engine.error(f"play {colour} {point_to_vertex(point)}")


def test_a_whole_game_then_pass_and_score_undo_and_sgf(engine, tmp_path):
    moves = 0
    colour = "b"
    while "game over" not in engine.ok("showboard"):
        assert engine.ok("genmove " + colour) != "resign"
        moves += 1
        colour = "w" if colour == "b" else "b"
        assert moves <= 24
    board = engine.ok("showboard")
    assert "game over" in board
    assert engine.ok("genmove b") == "pass" and engine.ok("genmove w") == "pass"
    score = engine.ok("final_score")
    assert score[:2] in ("B+", "W+")
    # a referee that does not know the 24-ply end (gogui-twogtp) plays on: accepted, not played
    engine.ok("play b pass")
    engine.ok("play w c3")  # judged by nothing: the game is over
    assert "2 plays after the end, not played" in engine.ok("showboard") and engine.ok("final_score") == score
    engine.ok("undo")
    engine.ok("undo")
    assert "after the end" not in engine.ok("showboard")
    record = engine.ok("printsgf")
    path = tmp_path / "game.sgf"
    path.write_text(record)
    replayed = read_game(path.read_bytes())
    assert replayed.positions[-1].is_over and len(replayed.moves) == moves
    engine.ok("undo")
    assert "game over" not in engine.ok("showboard")
    assert engine.ok(f"loadsgf {path}") in ("black", "white")
    assert "game over" in engine.ok("showboard")
    assert engine.ok(f"loadsgf {path} 3") == "black"  # the position before move 3
    assert "ply 2 of 24" in engine.ok("showboard")
    assert "cannot load" in engine.error("loadsgf /no/such/file.sgf")
    engine.ok("quit")
    assert engine.process.wait(timeout=HANG) == 0


def test_black_passing_first_ends_the_game_as_the_course_does(engine):
    engine.ok("play b pass")
    assert engine.ok("genmove w") == "pass"
    assert engine.ok("final_score") == "W+2.5"


@pytest.mark.fast
def test_the_engine_ends_quietly_at_the_end_of_input():
    gtp = Engine("--player", "random")
    gtp.ok("name")
    assert gtp.close() == 0


@pytest.mark.fast
def test_a_bad_player_spec_is_one_clear_line():
    result = cli("littlego", "gtp", "--player", "nobody", stdin="name\n", timeout=HANG)
    assert result.returncode == 2 and "unknown player 'nobody'" in result.stderr and "Traceback" not in result.stderr


# -- any GTP engine as a player ----------------------------------------------------------------------


def test_littlego_gtp_plays_a_match_through_the_gtp_player():
    summary, games = run_match(
        "handset@2",  # the opponent's strength is not what is tested: quick
        "gtp:littlego gtp --player handset@4",
        2,
        GameSettings(jobs=1, progress=False, seed=5),
        opening_plies=2,
    )
    assert summary.end["end"] == 2, summary.faults
    assert all(g.white.startswith("gtp:") or g.black.startswith("gtp:") for g in games)


# Slow set: GNU Go through the GTP player is played in the default run by test_match's gnugo match (14 s)
@pytest.mark.slow
@pytest.mark.skipif(not gnugo_path(), reason="GNU Go is not installed")
def test_gnu_go_plays_through_the_gtp_player():
    summary, _ = run_match(
        "champion", f"gtp:{gnugo_path()} --mode gtp --level 1", 2, GameSettings(jobs=1, progress=False), opening_plies=2
    )
    assert summary.end["end"] == 2, summary.faults


FAKE_ENGINES = {
    "crasher": "import sys\nfor line in sys.stdin:\n    if line.startswith('genmove'):\n        sys.exit(3)\n"
    "    print('= \\n', flush=True)\n",
    "hanger": "import sys, time\nfor line in sys.stdin:\n    if line.startswith('genmove'):\n        time.sleep(60)\n"
    "    print('= \\n', flush=True)\n",
    "refuser": "import sys\nfor line in sys.stdin:\n    print(('? no' if line.startswith('genmove') else '= ') + '\\n',"
    " flush=True)\n",
    "rambler": "import sys\nfor line in sys.stdin:\n    print(('= Z9' if line.startswith('genmove') else '= ') + '\\n',"
    " flush=True)\n",
    "occupier": "import sys\nfor line in sys.stdin:\n    print(('= C3' if line.startswith('genmove') else '= ')"
    " + '\\n', flush=True)\n",
}


@pytest.mark.parametrize(
    "name, reason, words",
    [
        ("crasher", "crash", "closed its output"),
        ("hanger", "timeout", "wall time"),
        ("refuser", "bad-output", "? no"),
        ("rambler", "bad-output", "Z9"),
        ("occupier", "illegal", "occupied"),
    ],
)
@pytest.mark.slow
def test_a_failing_gtp_engine_loses_with_the_reason(tmp_path, name, reason, words):
    from engine.play.game import play_game
    from engine.players.gtp import gtp_player
    from engine.players.specs import make_player

    script = tmp_path / (name + ".py")
    script.write_text(FAKE_ENGINES[name])
    player = gtp_player(f"{sys.executable} {script}", wall_limit=2)
    record = play_game(make_player("random"), player, seed=3)
    assert record.reason == reason and record.winner == BLACK, record.detail
    assert words in record.detail


# -- a person in the terminal -----------------------------------------------------------------------


def littlego(*args, stdin="", cwd=ROOT):
    result = cli("littlego", *args, stdin=stdin, timeout=HANG, cwd=cwd)
    return result.returncode, result.stdout, result.stderr


@pytest.mark.fast
def test_a_person_plays_a_whole_legal_game_and_saves_it(tmp_path):
    # Passing at once as White: Black (random) places a stone, White passes, and so on until the end.
    path = tmp_path / "mine.sgf"
    status, out, err = littlego("play", "random", "--colour", "white", stdin="pass\n" * 12 + str(path) + "\n")
    assert status == 0 and "Traceback" not in err, err
    assert "You play white" in out and "wins:" in out and "saved" in out
    game = read_game(path.read_bytes())
    assert game.positions[-1].is_over and game.black == "random" and game.white == "you"


def test_quit_at_the_save_prompt_saves_nothing(tmp_path):
    status, out, err = littlego("play", "random", "--colour", "white", stdin="pass\n" * 12 + "quit\n", cwd=tmp_path)
    assert status == 0 and "Traceback" not in err, err
    assert "save the game" in out and "saved" not in out and not (tmp_path / "quit").exists()


@pytest.mark.fast
def test_a_person_is_refused_illegal_and_malformed_moves_and_can_undo(tmp_path):
    stdin = "2,2\n2,2\nC3\nfoo\n9,9\nZ9\nundo\nundo\nB2\nquit\n"
    status, out, err = littlego("play", "handset@1", stdin=stdin)
    assert status == 0, err
    refusals = [line for line in out.splitlines() if "refused" in line]
    assert len(refusals) == 5  # 2,2 and C3 occupied; foo, 9,9 and Z9 malformed
    assert "occupied" in refusals[0] and "occupied" in refusals[1] and "not a move" in refusals[2]
    assert "nothing to undo" in out  # the second undo: back at the start already
    assert out.count("ply 2 of 24") >= 2 and out.rstrip().endswith("quit.")
    assert "save the game" not in out  # quitting saves nothing


@pytest.mark.fast
def test_the_end_of_input_stops_a_game_cleanly():
    status, out, err = littlego("play", "random", stdin="1,1\n")
    assert status == 0 and "Traceback" not in err and "quit." in out


@pytest.mark.fast
def test_play_refuses_an_unknown_opponent():
    status, _, err = littlego("play", "nobody")
    assert status == 2 and "unknown player" in err and "Traceback" not in err


# -- replay -------------------------------------------------------------------------------------------


def test_replay_shows_the_games_a_match_wrote(tmp_path):
    _, games = run_match(
        "greedy", "random", 2, GameSettings(jobs=1, progress=False), sgf_dir=str(tmp_path), opening_plies=2
    )
    for game in games:
        path = tmp_path / f"game-{game.index:04d}.sgf"
        status, out, err = littlego("replay", str(path))
        assert status == 0, err
        assert out.count("\nmove ") == len(game.moves)
        assert "plies left" in out
        status, verdict, _ = littlego("replay", str(path), "--verdict-only")
        winner = "Black wins" if game.winner == BLACK else "White wins"
        assert winner in verdict and verdict.count("\n") == 1


@pytest.mark.fast
@pytest.mark.parametrize(
    "content, words",
    [
        (b"hello", "not an SGF"),
        (b"(;FF[4]SZ[9];B[aa])", "9x9"),
        (b"(;FF[4]SZ[5];B[cc];W[cc])", "move 2 (White 2,2): illegal under Little-Go rules: 2,2 is occupied"),
        (b"(;FF[4]SZ[5];B[cc];B[dd])", "move 2 (Black 3,3): it was White's turn"),
    ],
)
def test_replay_names_what_is_wrong(tmp_path, content, words):
    path = tmp_path / "bad.sgf"
    path.write_bytes(content)
    status, _, err = littlego("replay", str(path))
    assert status == 2 and words in err and "Traceback" not in err


@pytest.mark.fast
@pytest.mark.timeout(60)
def test_loadsgf_reads_only_a_bounded_regular_file_and_answers_one_way_for_every_refusal(tmp_path):
    """A controller names any path: a device is not read until memory runs out, a FIFO does not hang the
    engine, and the answer does not tell which files exist."""
    import os

    from engine.play.sgf import SGF_FILE_BYTES
    from engine.players.specs import make_player
    from engine.ui.gtp_server import GtpEngine

    fifo = tmp_path / "fifo.sgf"
    os.mkfifo(fifo)
    large = tmp_path / "large.sgf"
    large.write_bytes(b"(;FF[4]SZ[5]C[" + b"x" * SGF_FILE_BYTES + b"])")
    not_sgf = tmp_path / "notes.txt"
    not_sgf.write_text("a secret of the grader's\n")
    gtp = GtpEngine(make_player("random"))
    answers = set()
    for path in ("/dev/zero", str(fifo), str(large), str(not_sgf), str(tmp_path), "/no/such/file.sgf"):
        answer = gtp.handle(f"loadsgf {path}")  # one that blocks fails the test at its timeout
        assert answer.startswith("? cannot load file"), (path, answer)
        answers.add(answer.replace(path, "PATH"))
    assert len(answers) == 1, answers  # one message for every refusal
    record = tmp_path / "game.sgf"
    record.write_text("(;FF[4]GM[1]SZ[5];B[cc];W[dd])")
    assert gtp.handle(f"loadsgf {record}") == "= black\n\n"


def weighted_rate(items):
    """The position's win rate as Lizzie computes it from a line: the moves' rates weighted by their visits."""
    return sum(rate * visits for rate, visits, _ in items.values()) / sum(visits for _, visits, _ in items.values())


def analysis_items(line):
    """{vertex: (winrate, visits, order)} of one lz-analyze line."""
    items = {}
    for part in line.split("info move ")[1:]:
        words = part.split()
        fields = dict(zip(words[1::2], words[2::2]))
        items[words[0]] = (float(fields["winrate"]), int(fields["visits"]), int(fields["order"]))
    return items


@pytest.mark.fast
def test_sabakis_analysis_exchange_streams_exact_values_until_the_next_command():
    # The exchange Sabaki makes: lz-analyze with an interval in centiseconds; "=" and a line of every
    # move each interval; any next command ends it with a blank line, then is answered as usual.
    engine = Engine("--player", "handset@2")
    try:
        engine.process.stdin.write("lz-analyze B 5\n")
        engine.process.stdin.flush()
        assert engine.process.stdout.readline() == "=\n"
        first, second = engine.process.stdout.readline(), engine.process.stdout.readline()
        items = analysis_items(first)
        # the empty board, from the store's prefill: 2,2 (C3) is Black's only winning move
        assert items["C3"] == (10000.0, 10000, 0) and len(items) == 26
        assert all(rate == 0.0 and visits == 1 for vertex, (rate, visits, _) in items.items() if vertex != "C3")
        # a GUI's win rate of the position, its moves' weighted by their visits, is Black's win (Lizzie's bar)
        assert weighted_rate(items) > 0.997 * 10000  # ten-thousandths in Leela Zero's form
        assert analysis_items(second) == items
        engine.process.stdin.write("play b c3\n")
        engine.process.stdin.flush()
        rest = []
        while True:  # more lines may have come before the command was read; then the blank line
            line = engine.process.stdout.readline()
            if line == "\n":
                break
            assert line.startswith("info move "), line
            rest.append(line)
        assert engine.raw("") == "=\n"  # then the play's own answer
        assert "X" in engine.ok("showboard")  # and it was played
        answer = engine.raw("kata-analyze w interval 5\nname\n")
        lines = answer.splitlines()
        assert lines[0] == "=" and all(line.startswith("info move ") for line in lines[1:])
        kata = analysis_items(lines[1])
        assert set(kata) == {point_to_vertex(p) for p in range(25) if p != 12} | {"pass"}
        assert all(rate == 0.0 for rate, _, _ in kata.values())  # after 2,2 every White move loses
        assert engine.raw("") == "= littlego\n"  # the command that ended it, answered
        assert engine.ok("known_command lz-analyze") == "true"
    finally:
        engine.process.kill()


@pytest.mark.fast
def test_without_a_solver_the_analysis_shows_the_searchs_estimates_best_first():
    from engine.position import Position
    from engine.ui.analyze import Analysis, lz_line

    items = Analysis(solver=None).moves(Position.initial())
    # a pass on the empty board ends the game, lost by komi: exact; every other move an estimate
    assert len(items) == 26 and [item.move for item in items if item.exact] == [PASS]
    assert items[-1].move == PASS and items[-1].winrate == 0.0 and items[-1].margin == -2.5
    assert [item.winrate for item in items] == sorted((item.winrate for item in items), reverse=True)
    parsed = analysis_items(lz_line(items))
    assert [parsed[point_to_vertex(item.move)][2] for item in items] == list(range(26))
    assert all(0 < rate < 10000 for vertex, (rate, _, _) in parsed.items() if vertex != "pass")
    # the best estimates share 100 visits, the others 1: never as settled-looking as an exact value's 10000
    best = items[0].winrate
    for item in items:
        rate, visits, _ = parsed[point_to_vertex(item.move)]
        assert visits == (1 if item.winrate < best - 0.01 else 100 // sum(i.winrate >= best - 0.01 for i in items))
    plain = sum(rate for rate, _, _ in parsed.values()) / len(parsed)  # every move alike: the old lines' reading
    assert abs(weighted_rate(parsed) - best * 10000) < abs(plain - best * 10000) / 3


def test_an_analysis_of_a_finished_game_is_an_error_and_the_engine_goes_on():
    # A record that ends in passes, as most do: Sabaki and Lizzie ask for an analysis at its end.
    engine = Engine("--player", "handset@2")
    try:
        for move in ("b c3", "w c2", "b pass", "w pass"):
            engine.ok("play " + move)
        for command in ("kata-analyze B 50", "lz-analyze 10"):
            assert engine.error(command) == "the game is over: W+2.5"  # a stone each, and komi
        assert engine.ok("name") == "littlego" and engine.ok("undo") == ""
        assert engine.raw("lz-analyze W 5\nname\n").startswith("=\ninfo move ")  # a pass undone: analysed
    finally:
        engine.process.kill()


@pytest.mark.fast
def test_an_analysis_that_fails_ends_its_answer_and_the_next_command_is_answered(monkeypatch, capsys):
    from engine.players.specs import make_player
    from engine.ui import analyze, gtp_server

    def broken(self, position):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(analyze.Analysis, "moves", broken)
    out = io.StringIO()
    assert gtp_server.serve_gtp(make_player("random"), iter(["lz-analyze B 5\n", "name\n"]), out) == 0
    assert out.getvalue() == "=\n\n= littlego\n\n"  # the analysis's answer ended, then the next one
    assert "littlego gtp: the analysis stopped: RuntimeError: disk on fire" in capsys.readouterr().err


def test_stones_of_one_colour_in_a_row_set_up_the_position_as_guis_send_a_record(engine):
    # Sabaki and Lizzie send a record's AB/AW stones, and an edited board, as plays, several of one colour in
    # a row: each stone out of turn sets up the board with it, the other colour to move, a ply a stone.
    for move in ("b c3", "b d4", "b b2", "w c4"):
        engine.ok("play " + move)
    board = engine.ok("showboard")
    assert "ply 4 of 24, 20 left; Black to move" in board
    rows = {line.split()[2]: line.split()[3:8] for line in board.splitlines() if line.startswith("  i ")}
    assert rows["3"][2] == "X" and rows["4"][3] == "X" and rows["2"][1] == "X" and rows["4"][2] == "O"
    assert "occupied" in engine.error("play w c3") and "ply 4 of 24" in engine.ok("showboard")
    engine.ok("play b e5")  # and the game goes on from there
    record = engine.ok("printsgf")
    assert record.startswith("(;FF[4]AB[bd][cc][db]") and "PL[W]" in record and ";W[cb]" in record and "B[ea]" in record
    for _ in range(5):  # each move and setup stone taken back, the last first
        engine.ok("undo")
    assert "ply 0 of 24, 24 left; Black to move" in engine.ok("showboard") and "cannot" in engine.error("undo")


def test_lz_analyze_analyses_the_colour_it_names_as_if_to_move():
    from engine.constants import BLACK, WHITE
    from engine.position import Position
    from engine.ui.gtp_server import to_move

    after = Position.initial().play_point(12)  # Black at C3, White to move
    turned = to_move(after, BLACK)
    assert turned.player == BLACK and turned.moves_played == 1 and turned.colour_at(12) == BLACK
    assert 12 not in turned.all_moves() and to_move(after, WHITE).player == WHITE
    engine = Engine("--player", "handset@2")
    try:
        engine.ok("play b c3")

        def first_line(command):
            engine.process.stdin.write(command + "\n")
            engine.process.stdin.flush()
            assert engine.process.stdout.readline() == "=\n"
            line = engine.process.stdout.readline()
            engine.process.stdin.write("name\n")
            engine.process.stdin.flush()
            while engine.process.stdout.readline() != "\n":  # the lines until the blank one that ends them
                pass
            assert engine.raw("") == "= littlego\n"
            return analysis_items(line)

        white, black = first_line("lz-analyze w 5"), first_line("lz-analyze b 5")
        assert set(white) == set(black) and "C3" not in black  # the same board, the same moves
        assert all(rate == 0.0 for rate, _, _ in white.values())  # after 2,2 every White move loses
        assert any(rate > 0 for rate, _, _ in black.values())  # Black to move again: its moves, not lost ones
    finally:
        engine.process.kill()
