"""A match's game records read back from wherever they are kept (``littlego records``,
engine/play/records.py): a journal, plain or compressed, gives the SGF records the match wrote,
byte for byte; a packed folder gives them back; packing is reproducible; anything else is one line."""

import gzip
import lzma
import os
import shutil

import pytest

from engine.cli.littlego import main
from engine.play.match import run_match
from engine.play.records import default_folder, games, pack, unpack
from engine.play.settings import GameSettings


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """(its --sgf folder, its journal) of a small match from random openings."""
    folder = tmp_path_factory.mktemp("match")
    sgf, journal = str(folder / "match-sgf"), str(folder / "match.journal")
    settings = GameSettings(seed=3, jobs=1, journal=journal, progress=False)
    run_match("greedy", "random", 4, settings, opening_plies=2, sgf_dir=sgf)
    return sgf, journal


def compressed(journal, suffix, tmp_path):
    path = str(tmp_path / ("match.journal" + suffix))
    with open(journal, "rb") as plain, {".xz": lzma.open, ".gz": gzip.open}[suffix](path, "wb") as packed:
        packed.write(plain.read())
    return path


@pytest.mark.fast
@pytest.mark.parametrize("suffix", ["", ".xz", ".gz"])
def test_a_journal_gives_the_records_the_match_wrote_byte_for_byte(played, tmp_path, suffix):
    sgf, journal = played
    source = compressed(journal, suffix, tmp_path) if suffix else journal
    written = list(games(sgf))
    assert [name for name, _ in written] == [f"game-{k:04d}.sgf" for k in range(4)]
    assert list(games(source)) == written


def test_records_unpack_where_the_match_wrote_them_and_pack_the_same_bytes_every_time(played, tmp_path, capsys):
    sgf, journal = played
    source = compressed(journal, ".xz", tmp_path)
    assert default_folder(source) == str(tmp_path / "match-sgf")
    assert main(["records", "unpack", source]) == 0
    assert capsys.readouterr().out == f"4 records from {source} in {tmp_path / 'match-sgf'}\n"
    assert list(games(str(tmp_path / "match-sgf"))) == list(games(sgf))
    first = pack(str(tmp_path / "match-sgf"))
    again = pack(str(tmp_path / "match-sgf"), str(tmp_path / "again.tar.xz"))
    assert first == str(tmp_path / "match-sgf.tar.xz") and open(first, "rb").read() == open(again, "rb").read()
    shutil.rmtree(str(tmp_path / "match-sgf"))
    assert unpack(first) == (4, str(tmp_path / "match-sgf"))
    assert list(games(str(tmp_path / "match-sgf"))) == list(games(sgf))


@pytest.mark.fast
@pytest.mark.parametrize(
    "words, message",
    [
        (["unpack", "{readme}"], "neither a folder of SGF records, a tar archive of one, nor a match journal"),
        (["unpack", "{missing}"], "No such file or directory"),
        (["pack", "{readme}"], "not a folder of SGF records"),
    ],
    ids=["not records", "no such file", "pack a file"],
)
def test_what_holds_no_records_is_refused_in_one_line(tmp_path, capsys, words, message):
    readme = tmp_path / "README.md"
    readme.write_text("# not a journal\n")
    paths = {"readme": str(readme), "missing": str(tmp_path / "missing.journal")}
    assert main(["records"] + [word.format(**paths) for word in words]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"littlego records {words[0]}: ") and message in err
    assert os.listdir(str(tmp_path)) == ["README.md"]
