"""The course's input.txt/output.txt protocol: tolerant reads, located errors, atomic writes."""

import os

import pytest

from engine import PASS
from engine.players.host import parse_output
from engine.protocol import InputFormatError, read_input, write_atomic, write_output

GOOD = "2\n00110\n00210\n00200\n02000\n00000\n00110\n00210\n00200\n02010\n00000"


def write(tmp_path, text, mode="w"):
    path = tmp_path / "input.txt"
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text)
    return str(path)


@pytest.mark.fast
def test_reads_the_assignments_example(tmp_path):
    game = read_input(write(tmp_path, GOOD))
    assert game.player == 2
    assert game.previous == "0011000210002000200000000"
    assert game.current == "0011000210002000201000000"


@pytest.mark.fast
@pytest.mark.parametrize(
    "variant",
    [
        GOOD.replace("\n", "\r\n"),
        GOOD + "\n",
        GOOD + "\n\n",
        GOOD.replace("\n", "  \n"),
    ],
)
def test_tolerates_crlf_trailing_blanks_and_final_newlines(tmp_path, variant):
    assert read_input(write(tmp_path, variant)) == read_input(write(tmp_path, GOOD))


@pytest.mark.fast
@pytest.mark.parametrize(
    "text, line, column, words",
    [
        ("3" + GOOD[1:], 1, 1, "colour"),
        (GOOD.replace("00210", "0021", 1), 3, 5, "5 digits"),
        (GOOD.replace("02000", "02300", 1), 5, 3, "0, 1 or 2"),
        ("\n".join(GOOD.split("\n")[:9]), 9, 0, "11 lines"),
        (GOOD + "\n00000", 11, 0, "11 lines"),
        (GOOD.replace("02010", "0201x"), 10, 5, "0, 1 or 2"),
    ],
)
def test_rejects_what_cannot_be_an_input_naming_file_line_and_column(tmp_path, text, line, column, words):
    path = write(tmp_path, text)
    with pytest.raises(InputFormatError) as error:
        read_input(path)
    assert (error.value.line, error.value.column) == (line, column)
    assert words in str(error.value) and path in str(error.value)


@pytest.mark.fast
def test_missing_and_binary_files_are_input_format_errors(tmp_path):
    with pytest.raises(InputFormatError, match="cannot read"):
        read_input(str(tmp_path / "absent.txt"))
    with pytest.raises(InputFormatError, match="ASCII"):
        read_input(write(tmp_path, b"1\n\xff", mode="wb"))


@pytest.mark.fast
def test_output_is_read_as_the_host_reads_it():
    assert parse_output("2,3") == (2, 3)
    assert parse_output("PASS\n") == PASS
    assert parse_output("1,4\ngarbage") == (1, 4)
    assert parse_output(" 2,3,4 ") == (2, 3)  # the host ignores later fields
    assert parse_output("5,-1") == (5, -1)  # parsable, but off the board: illegal
    for bad in ["pass", "", "2;3", "a,b", "2", "Pass,1"]:
        with pytest.raises(ValueError):
            parse_output(bad)


@pytest.mark.fast
def test_writes_are_atomic(tmp_path, monkeypatch):
    path = str(tmp_path / "output.txt")
    write_output(path, 13)
    assert open(path).read() == "2,3"

    def broken_replace(source, destination):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        write_atomic(path, "PASS")
    assert open(path).read() == "2,3"  # the old file is intact
    assert os.listdir(str(tmp_path)) == ["output.txt"]  # and no temporary is left
