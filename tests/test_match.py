"""Matches: reproducible, colour-fair, reported with honest statistics."""

import json
import os

import pytest

from engine.constants import BLACK, WHITE
from engine.coords import move_from_text
from engine.play.game import GameRecord, MatchGame
from engine.play.match import every_opening_games, match_sprt, run_match
from engine.play.settings import GameSettings
from engine.play.stats import elo_with_margin, expected_score, pair_sprt_llr, sprt_llr, wilson_interval
from engine.play.summary import format_report, openings_kept, summarise
from engine.players.base import Reason
from engine.players.gnugo import gnugo_path
from engine.playout import opening_sequences, random_opening
from tests.conftest import HANG, cli, kill_when_journal_holds, start_cli


@pytest.mark.fast
def test_statistics_match_textbook_values():
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    elo, margin = elo_with_margin(75, 100)
    assert elo == pytest.approx(190.85, abs=0.01)
    assert 70 < margin < 100


@pytest.mark.fast
def test_matches_replay_exactly_whatever_the_jobs():
    one, games_one = run_match("agent@2", "random", 6, GameSettings(jobs=1, seed=4, progress=False), opening_plies=3)
    two, games_two = run_match("agent@2", "random", 6, GameSettings(jobs=2, seed=4, progress=False), opening_plies=3)
    assert [g.moves for g in games_one] == [g.moves for g in games_two]
    assert one.wins == two.wins


@pytest.mark.fast
def test_pairs_share_their_opening_and_swap_colours():
    summary, games = run_match("greedy", "random", 4, GameSettings(jobs=1, seed=9, progress=False), opening_plies=4)
    assert games[0].moves[:4] == games[1].moves[:4]
    assert games[0].moves[:4] != games[2].moves[:4]
    assert games[0].black == "greedy" and games[1].black == "random"
    assert summary.games == 4 and sum(summary.wins.values()) == 4
    by_colour = summary.wins_by_colour
    assert sum(c["black"] + c["white"] for c in by_colour.values()) == 4
    assert sum(summary.end.values()) == 4
    assert "win rate" in format_report(summary)


@pytest.mark.fast
def test_a_side_can_take_one_colour_in_every_game():
    summary, games = run_match(
        "greedy", "random", 4, GameSettings(jobs=1, seed=9, progress=False), opening_plies=4, a_colour=BLACK
    )
    assert [g.black for g in games] == ["greedy"] * 4
    assert len({tuple(g.moves[:4]) for g in games}) == 4  # an opening of its own each
    assert summary.a_colour == "black"
    assert summary.wins_by_colour["greedy"]["white"] == summary.wins_by_colour["random"]["black"] == 0
    with pytest.raises(ValueError, match="alternating"):
        run_match("greedy", "random", 4, GameSettings(jobs=1, progress=False), a_colour=WHITE, sprt=(0, 20))


@pytest.mark.fast
def test_every_opening_is_played_once_with_each_colour():
    assert len(set(opening_sequences(1))) == 25 and len(set(opening_sequences(2))) == 600
    drawn = {tuple(random_opening(2, seed)[1]) for seed in range(300)}
    assert drawn <= set(opening_sequences(2))  # what random openings draw from, all of it
    summary, games = run_match(
        "greedy", "random", 4, GameSettings(jobs=2, seed=3, progress=False), opening_plies=1, every_opening=True
    )
    assert summary.games == len(games) == every_opening_games(1) == 50 and summary.every_opening
    assert every_opening_games(2) == 1200 and every_opening_games(3) == 2 * 13800
    assert [tuple(g.moves[:1]) for g in games[0::2]] == [tuple(g.moves[:1]) for g in games[1::2]]
    assert sorted(move_from_text(g.moves[0]) for g in games[0::2]) == list(range(25))
    assert [g.black for g in games[:2]] == ["greedy", "random"]
    assert "Openings: every opening of 1 ply, once with each colour" in format_report(summary)
    for wrong, why in (
        (dict(opening_plies=0), "plies from 1 to 3"),
        (dict(opening_plies=4), "plies from 1 to 3"),
        (dict(opening_plies=1, a_colour=BLACK), "alternating"),
        (dict(opening_plies=1, sprt=(0, 20)), "no SPRT"),
    ):
        with pytest.raises(ValueError, match=why):
            run_match("greedy", "random", 4, GameSettings(jobs=1, progress=False), every_opening=True, **wrong)


def _game(index, a_colour, winner, moves):
    return MatchGame("b", "w", winner, Reason.END, "", moves, 0, 0, [], index=index, a_colour=a_colour)


@pytest.mark.fast
def test_a_match_from_solved_openings_counts_the_won_openings_each_player_kept():
    # 2,2 is the only winning first move (the game is solved), so after 2,2 and any reply Black wins;
    # after 0,0 and 2,2 White wins (the solved table). A keeps a won opening as Black and one as White,
    # B gives one away as Black and keeps one as White.
    games = [
        _game(0, BLACK, BLACK, ["2,2", "0,0", "1,1"]),
        _game(1, WHITE, WHITE, ["2,2", "4,4", "1,1"]),
        _game(2, BLACK, WHITE, ["0,0", "2,2", "1,1"]),
        _game(3, WHITE, WHITE, ["0,0", "2,2"]),
    ]
    summary = summarise("A", "B", games)
    assert openings_kept(("A", "B"), games, 2) == {"A": (2, 2), "B": (1, 2)}
    assert openings_kept(("A", "B"), games[:2], 2) == {"A": (1, 1), "B": (0, 1)}
    assert openings_kept(("A", "B"), games, 3) is None  # the table settles 2-ply openings only
    assert openings_kept(("A", "B"), games, 0) is None
    report = format_report(summary._replace(won_openings_kept=openings_kept(("A", "B"), games[:2], 2)))
    assert "Won openings kept (each opening settled by the solved table): A 1 of 1, B 0 of 1" in report
    played, _ = run_match("greedy", "random", 4, GameSettings(jobs=1, seed=9, progress=False), opening_plies=2)
    assert sum(had for _, had in played.won_openings_kept.values()) == 4
    assert json.loads(json.dumps(played.to_json()))["won_openings_kept"] == {
        name: list(kept) for name, kept in played.won_openings_kept.items()
    }


@pytest.mark.fast
def test_sgf_records_open_in_sgfmill(tmp_path):
    from sgfmill import sgf

    _, games = run_match("greedy", "random", 2, GameSettings(jobs=1, progress=False), sgf_dir=str(tmp_path))
    files = sorted(os.listdir(str(tmp_path)))
    assert files == ["game-0000.sgf", "game-0001.sgf"]
    for name, record in zip(files, games):
        game = sgf.Sgf_game.from_bytes((tmp_path / name).read_bytes())
        assert game.get_size() == 5
        assert len(game.get_main_sequence()) - 1 == len(record.moves)
        assert game.get_winner() == ("b" if record.winner == 1 else "w")


def test_cli_json_and_errors():
    result = cli("littlego", "match", "greedy", "random", "--games", "2", "--jobs", "1", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for key in ("games", "wins", "wins_by_colour", "end"):
        assert key in data
    assert set(data["end"]) == {"end", "illegal", "timeout", "crash", "bad-output"}
    bad = cli("littlego", "match", "greedy", "nobody")
    assert bad.returncode == 2 and "unknown player 'nobody'" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.fast
def test_a_match_logged_to_a_file_says_how_far_it_is_with_the_sprt_state(capsys):
    from engine.cli.littlego import main

    assert main(["match", "greedy", "random", "--games", "40", "--jobs", "1", "--sprt", "0,20", "--json"]) == 0
    out, err = capsys.readouterr()
    summary = json.loads(out)  # stdout stays one JSON object
    lines = err.splitlines()
    assert lines[0].startswith("2 of 40 games played") and "SPRT LLR" in lines[0]
    assert lines[-1].startswith("{} of 40 games played".format(summary["games"]))
    assert "greedy won {}, lost {}".format(summary["wins"]["greedy"], summary["wins"]["random"]) in lines[-1]
    assert "{:.2f}".format(summary["sprt"]["llr"]) in lines[-1]


@pytest.mark.slow
@pytest.mark.skipif(not gnugo_path(), reason="GNU Go is not installed")
def test_gnugo_plays_a_match_against_the_champion():
    summary, games = run_match("champion", "gnugo:1", 2, GameSettings(jobs=1, progress=False))
    assert summary.end["end"] == 2, summary.faults


def interrupt_after(monkeypatch, count):
    """Make a match's games raise KeyboardInterrupt (Ctrl-C) after ``count`` of them; the real game job."""
    import engine.play.match as match_module

    real_game, played = match_module.game_job, []

    def interrupted(job):
        if len(played) == count:
            raise KeyboardInterrupt
        played.append(job[0])
        return real_game(job)

    monkeypatch.setattr(match_module, "game_job", interrupted)
    return real_game


@pytest.mark.fast
def test_ctrl_c_ends_the_match_with_the_games_finished(monkeypatch, capsys):
    import engine.play.match as match_module
    from engine.cli.littlego import main

    interrupt_after(monkeypatch, 4)
    status = main(["match", "greedy", "random", "--games", "10", "--jobs", "1", "--json"])
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert status == 130 and summary["games"] == 4 and summary["interrupted"] == "after 4 of 10 games"
    assert "interrupted after 4 of 10 games" in err
    monkeypatch.setattr(match_module, "game_job", lambda job: (_ for _ in ()).throw(KeyboardInterrupt))
    assert main(["match", "greedy", "random", "--games", "10", "--jobs", "1"]) == 130  # nothing played
    assert "interrupted" in capsys.readouterr().err


@pytest.mark.fast
def test_a_match_continued_from_its_journal_ends_as_an_uninterrupted_one(tmp_path, monkeypatch):
    import engine.play.match as match_module

    whole, whole_games = run_match(
        "greedy", "random", 60, GameSettings(jobs=1, seed=5, progress=False), opening_plies=2, sprt=(0, 150)
    )
    journal = str(tmp_path / "match.jsonl")
    real_game = interrupt_after(monkeypatch, 7)
    first, _ = run_match(
        "greedy",
        "random",
        60,
        GameSettings(jobs=1, seed=5, progress=False, journal=journal),
        opening_plies=2,
        sprt=(0, 150),
    )
    assert first.interrupted == "after 7 of 60 games"
    monkeypatch.setattr(match_module, "game_job", real_game)
    with open(journal, "a") as handle:
        handle.write('{"black": "gre')  # a line cut off by a kill
    again, again_games = run_match(
        "greedy",
        "random",
        60,
        GameSettings(jobs=2, seed=5, progress=False, journal=journal),
        opening_plies=2,
        sprt=(0, 150),
    )

    def without_cpu(games):  # CPU seconds differ from run to run
        return [game._replace(cpu=len(game.cpu)) for game in games]

    assert again.interrupted is None and without_cpu(again_games) == without_cpu(whole_games)
    assert again.sprt == whole.sprt and again.wins == whole.wins and again.end == whole.end
    assert sum(1 for _ in open(journal)) == 1 + len(whole_games)


@pytest.mark.slow
def test_a_killed_match_continues_with_the_same_command(tmp_path):
    journal = tmp_path / "match.jsonl"
    command = [
        "match",
        "agent@2",
        "handset@2",
        "--games",
        "40",
        "--jobs",
        "1",
        "--seed",
        "3",
        "--random-opening",
        "2",
        "--json",
        "--resume",
        str(journal),
    ]
    process = start_cli("littlego", *command)
    done = kill_when_journal_holds(process, journal, 6)
    assert 5 <= done < 40
    resumed = cli("littlego", *command, timeout=HANG)
    assert resumed.returncode == 0, resumed.stderr
    whole = cli("littlego", *command[:-2], timeout=HANG)
    first, second = json.loads(resumed.stdout), json.loads(whole.stdout)
    for key in ("games", "wins", "wins_by_colour", "end", "a_mean_stone_margin"):
        assert first[key] == second[key]


@pytest.mark.fast
def test_a_journal_of_another_match_is_refused(tmp_path, capsys):
    from engine.cli.littlego import main

    journal = str(tmp_path / "match.jsonl")
    assert main(["match", "greedy", "random", "--games", "2", "--jobs", "1", "--json", "--resume", journal]) == 0
    capsys.readouterr()
    assert main(["match", "greedy", "random", "--games", "4", "--jobs", "1", "--resume", journal]) == 2
    err = capsys.readouterr().err
    assert "a match with games 2, not 4" in err and "Traceback" not in err


def test_the_pair_sprt_is_the_generalised_sprt_of_colour_pairs():
    elo0, elo1 = 0, 20
    s0, s1 = expected_score(elo0), expected_score(elo1)
    counts = (300, 1000, 400)  # pairs of A's score 0, 1/2, 1
    n = sum(counts)
    mean = (0.5 * counts[1] + counts[2]) / n
    variance = (0.25 * counts[1] + counts[2]) / n - mean * mean
    normal = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)  # its normal approximation, small Elo
    assert pair_sprt_llr(counts, elo0, elo1) == pytest.approx(normal, rel=0.05)
    assert pair_sprt_llr((10, 80, 10), elo0, elo1) < 0 < pair_sprt_llr((10, 70, 20), elo0, elo1)
    assert pair_sprt_llr((10, 70, 20), elo0, elo1) < pair_sprt_llr((10, 60, 30), elo0, elo1)
    # Split pairs (each colour wins once) carry less noise than two independent games: the same score
    # decides sooner as pairs.
    assert pair_sprt_llr((0, 60, 40), elo0, elo1) > sprt_llr(140, 60, elo0, elo1)


def test_an_alternating_match_tests_its_pairs_and_a_fixed_colour_its_games():
    paired, _ = run_match("greedy", "random", 20, GameSettings(jobs=1, progress=False, seed=3), sprt=(0, 150))
    assert paired.sprt.model == "pairs" and paired.sprt.games % 2 == 0
    games = [
        g._replace(a_colour=BLACK) for g in run_match("greedy", "random", 6, GameSettings(jobs=1, progress=False))[1]
    ]
    assert match_sprt(games, 0, 20).model == "games"


@pytest.mark.fast
def test_a_match_game_is_a_game_record_then_the_match_s_own_two_fields():
    """MatchGame writes its fields out (for readers and the type checker): a GameRecord's, in order and typed
    alike, then the game's index and A's colour; a field added to GameRecord must be added there too."""
    assert MatchGame._fields == GameRecord._fields + ("index", "a_colour")
    assert {name: MatchGame.__annotations__[name] for name in GameRecord._fields} == GameRecord.__annotations__


@pytest.mark.fast
def test_each_game_setting_is_one_row_that_reaches_every_command_and_the_record(tmp_path):
    """Every row of GAME_TABLE is a GameSettings field, and an option of each command that plays games
    (but those it leaves out) whose value reaches the record the command passes on; a new setting is one
    row."""
    from engine.cli.littlego import build_parser
    from engine.cli.parts.arguments import game_settings
    from engine.play.settings import GAME_TABLE
    from evolve.cli import build_parser as evolve_parser

    assert GameSettings._fields == tuple(setting.name for setting in GAME_TABLE)
    assert GameSettings() == tuple(setting.default for setting in GAME_TABLE)
    given = {
        "seed": ("7", 7),
        "jobs": ("3", 3),
        "scheduler": ("local:2", "local:2"),
        "cpu_limit": ("2.5", 2.5),
        "journal": ("games.jsonl", "games.jsonl"),
        "progress": (None, False),
        "limits": None,  # the sandbox's options: the limits of the players a command plays
    }
    assert set(given) == set(GameSettings._fields)  # a new row needs a value here: the test names it
    commands = {
        "match": (build_parser(), ["match", "greedy", "random"], ()),
        "tournament": (build_parser(), ["tournament", "greedy", "random"], ("cpu_limit",)),
        "grade": (build_parser(), ["grade", "greedy"], ("cpu_limit", "journal")),
        "ship": (evolve_parser(), ["ship", "run", "--to", "p.json"], ("scheduler", "journal")),
    }
    for name, (parser, words, omitted) in commands.items():
        for setting in GAME_TABLE:
            if given[setting.name] is None:
                continue
            text, value = given[setting.name]
            option = [setting.option] + ([text] if text is not None else [])
            if setting.name in omitted:
                with pytest.raises(SystemExit):
                    parser.parse_args(words + option)
                continue
            settings = game_settings(parser.parse_args(words + option))
            assert getattr(settings, setting.name) == value, (name, setting.name)
        assert parser.parse_args(words).sandbox == "auto"  # the limits' options are there


def test_an_experiment_config_plays_its_fitness_games_by_the_same_record(tmp_path):
    """The fitness's games: the config's seed, workers and scheduler, a program individual's CPU limit and
    sandbox, reach a GameSettings as the commands' options do."""
    from evolve.config import load_config

    path = tmp_path / "run.toml"
    path.write_text(
        'name = "x"\nseed = 5\npopulation = 4\ngenerations = 1\nworkers = 3\n[executor]\nscheduler = "local:2"\n'
        '[[panel]]\nopponent = "greedy"\ngames = 2\n'
    )
    settings = load_config(str(path)).games()
    assert isinstance(settings, GameSettings)
    assert (settings.seed, settings.jobs, settings.scheduler, settings.limits) == (5, 3, "local:2", None)
    assert load_config(str(path)).games(jobs=1, scheduler="local:4").jobs == 1
