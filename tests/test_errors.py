"""User errors against bugs: one line and exit 2 for what the user gave; a traceback and the bug line
for anything else."""

import pytest

import engine.cli.match
import evolve.cli.runs as evolve_runs
from engine.book import BookError
from engine.cli.littlego import main as littlego
from engine.cli.parts.exits import BUG_STATUS
from engine.common.runfolder import RunError
from engine.data import DataError
from engine.errors import InvalidInput, ParamsError, UserError
from engine.native.compiler import NativeError
from engine.native.store_file import StoreError
from engine.play.journal import JournalError
from engine.play.openings import OpeningsError
from engine.play.records import RecordsError
from engine.play.sgf import SgfError
from engine.players.qlearning import QTableError
from engine.position import IllegalMove
from engine.protocol import InputFormatError
from engine.sandbox.limits import SandboxError, UntrustedFolderError
from engine.training.trainer import TrainingError
from evolve.cli import main as evolve
from evolve.config import ConfigError
from evolve.shipping.ship_plan import ShipError
from evolve.solved.labels import LabelsError


@pytest.mark.fast
def test_every_error_a_user_causes_is_a_user_error():
    for kind in (
        BookError,
        RunError,
        DataError,
        InvalidInput,
        NativeError,
        ParamsError,
        JournalError,
        OpeningsError,
        RecordsError,
        SgfError,
        QTableError,
        IllegalMove,
        InputFormatError,
        SandboxError,
        UntrustedFolderError,
        TrainingError,
        ConfigError,
        LabelsError,
        ShipError,
        StoreError,
    ):
        assert issubclass(kind, UserError), kind


@pytest.mark.fast
@pytest.mark.parametrize(
    "words, says",
    [
        (["match", "nosuchplayer", "random", "--games", "2"], "unknown player 'nosuchplayer'"),
        (["solve"], "give a position"),
    ],
)
def test_a_user_error_in_littlego_is_one_line_and_exit_2(capsys, words, says):
    assert littlego(words) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.fast
def test_a_user_error_in_evolve_is_one_line_and_exit_2(tmp_path, capsys):
    assert evolve(["log", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.fast
def test_a_user_error_quoting_a_students_name_reaches_the_terminal_escaped(monkeypatch, capsys):
    """A message may quote a file or folder name a student chose: its escape sequences and carriage returns
    reach the terminal as text, its own lines as lines."""

    def refused(*args, **kwargs):
        raise InvalidInput("agent \x1b[2J\x1b]0;pwned\x07 \u202eevil\r: refused\n  a second line")

    monkeypatch.setattr(engine.cli.match, "run_match", refused)
    assert littlego(["match", "random", "greedy", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\r" not in err and "\u202e" not in err and "\x07" not in err
    assert "agent \\x1b[2J\\x1b]0;pwned\\x07 \\u202eevil\\r: refused\n  a second line" in err


@pytest.mark.fast
def test_a_bug_in_a_littlego_command_shows_its_traceback_and_says_it_is_a_bug(monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise ValueError("a deliberate bug")

    monkeypatch.setattr(engine.cli.match, "run_match", broken)
    assert littlego(["match", "random", "greedy", "--games", "2"]) == BUG_STATUS
    err = capsys.readouterr().err
    assert "Traceback" in err and "ValueError: a deliberate bug" in err
    assert "littlego match: this is a bug in littlego" in err


@pytest.mark.fast
def test_a_bug_in_an_evolve_command_shows_its_traceback_and_says_it_is_a_bug(monkeypatch, capsys, tmp_path):
    def broken(*args, **kwargs):
        raise KeyError("a deliberate bug")

    monkeypatch.setattr(evolve_runs, "read_generations", broken)
    assert evolve(["log", str(tmp_path)]) == BUG_STATUS
    err = capsys.readouterr().err
    assert "Traceback" in err and "KeyError: 'a deliberate bug'" in err and "evolve log: this is a bug" in err
