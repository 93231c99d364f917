"""The game records of an experiment's matches, packed one file per match, and read back.

A SOURCE is any of:
  - a folder of SGF records (what ``littlego match --sgf DIR`` writes);
  - a tar archive of such a folder, compressed or not (``gnugo-sgf.tar.xz``);
  - a match journal (``littlego match --resume FILE``), plain or compressed (``.journal.xz``,
    ``.journal.gz``): its games as the SGF records the match writes with ``--sgf``, byte for
    byte (``game-0000.sgf`` ...).

Usage (from the repository root):
  python3 experiments/tools/records.py unpack SOURCE [DIR]
  python3 experiments/tools/records.py pack DIR [ARCHIVE]

``unpack`` writes the SGF records of SOURCE into DIR; by default the folder the match wrote
beside it (``X.journal.xz`` -> ``X-sgf/``, ``X-sgf.tar.xz`` -> ``X-sgf/``), so that an
experiment's commands that read that folder run as written. ``pack`` writes DIR's ``*.sgf``
as one reproducible tar.xz (default ``DIR.tar.xz``: sorted, no times or owners).

Other tools in this folder read a SOURCE directly with ``games(SOURCE)``, and name a record
``os.path.join(default_folder(SOURCE), name)``: the path it had in the folder the match wrote.
"""

import glob
import gzip
import io
import json
import lzma
import os
import sys
import tarfile

from engine.play.sgf import game_sgf, result_text

JOURNAL_FORMAT = "littlego-match 1"


def games(source):
    """(name, SGF bytes) of every record in ``source``, in name order (= game order)."""
    if os.path.isdir(source):
        for path in sorted(glob.glob(os.path.join(source, "*.sgf"))):
            with open(path, "rb") as handle:
                yield os.path.basename(path), handle.read()
    elif tarfile.is_tarfile(source):
        with tarfile.open(source) as archive:
            members = sorted(
                (m for m in archive.getmembers() if m.isfile() and m.name.endswith(".sgf")),
                key=lambda m: os.path.basename(m.name),
            )
            for member in members:
                yield os.path.basename(member.name), archive.extractfile(member).read()
    else:
        for record in journal_games(source):
            yield "game-{:04d}.sgf".format(record["index"]), journal_sgf(record)


def journal_games(path):
    """The games of a match journal (plain, .xz or .gz) as the dicts of its lines."""
    with _open_text(path) as handle:
        lines = [line for line in handle if line.strip()]
    header = json.loads(lines[0]) if lines else {}
    if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
        raise ValueError(f"{path}: neither a folder of SGF records, a tar archive of one, nor a match journal")
    return [json.loads(line) for line in lines[1:]]


def journal_sgf(record):
    """A journal's game as the SGF record ``littlego match --sgf`` writes (engine.play.match.write_sgf_games)."""
    return game_sgf(
        record["moves"],
        record["black"],
        record["white"],
        result_text(record["winner"], record["black_stones"], record["white_stones"], record["reason"] != "end"),
        record["detail"] or None,
    )


def _open_text(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt")
    if path.endswith(".gz"):
        return gzip.open(path, "rt")
    return open(path)


def default_folder(source):
    """Where ``unpack`` puts SOURCE's records: the folder the match wrote them to (a folder: itself)."""
    base = source.rstrip("/")
    if os.path.isdir(base):
        return base
    for suffix in (".xz", ".gz", ".tar", ".journal"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return base if base.endswith("-sgf") else base + "-sgf"


def unpack(source, folder=None):
    folder = folder or default_folder(source)
    os.makedirs(folder, exist_ok=True)
    count = 0
    for name, data in games(source):
        with open(os.path.join(folder, name), "wb") as out:
            out.write(data)
        count += 1
    print(f"{count} records from {source} in {folder}")


def pack(folder, archive=None):
    archive = archive or folder.rstrip("/") + ".tar.xz"
    top = os.path.basename(folder.rstrip("/"))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in games(folder):
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    with open(archive, "wb") as out:
        out.write(lzma.compress(buffer.getvalue(), preset=9 | lzma.PRESET_EXTREME))
    print(f"{folder} -> {archive} ({os.path.getsize(archive):,} bytes)")


if __name__ == "__main__":
    if len(sys.argv) in (3, 4) and sys.argv[1] == "unpack":
        unpack(*sys.argv[2:])
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "pack":
        pack(*sys.argv[2:])
    else:
        sys.exit(__doc__)
