"""The game records of a match, read from wherever they are kept, and packed into one file.

A SOURCE of records is any of:

- a folder of SGF records (what ``littlego match --sgf DIR`` writes);
- a tar archive of such a folder, compressed or not (``gnugo-sgf.tar.xz``);
- a match journal (``littlego match --resume FILE``), plain or compressed (``.journal.xz``,
  ``.journal.gz``): its games as the SGF records the match writes with ``--sgf``, byte for byte
  (``game-0000.sgf`` ...).

``littlego records unpack`` writes a SOURCE's records back into the folder the match wrote
(``default_folder``), so that commands which read that folder run as written; ``littlego records
pack`` keeps a folder as one reproducible ``.tar.xz``. The studies read a SOURCE with ``games``.
"""

import glob
import io
import lzma
import os
import random
import tarfile
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from engine.book import book_key
from engine.common.seeds import derive_seed
from engine.errors import UserError
from engine.play.game import MatchGame
from engine.play.journal import JournalError, read_journal
from engine.play.sgf import game_record_sgf, read_game, sgf_name
from engine.position import Position

PACK_PRESET = 9 | lzma.PRESET_EXTREME  # xz -9e: records are kept once and read rarely


class RecordsError(UserError, ValueError):
    """A SOURCE that holds no game records; the message names it."""


def games(source: str) -> Iterator[Tuple[str, bytes]]:
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
                data = archive.extractfile(member)
                assert data is not None  # a regular file's member always reads
                yield os.path.basename(member.name), data.read()
    else:
        try:
            _, played = read_journal(source, MatchGame)
        except JournalError as error:
            raise RecordsError(
                f"{source}: neither a folder of SGF records, a tar archive of one, nor a match journal ({error})"
            )
        for game in played:
            yield sgf_name(game.index), game_record_sgf(game)


def default_folder(source: str) -> str:
    """The folder the match wrote SOURCE's records to (a folder: itself), where ``unpack`` puts them:
    ``X.journal.xz`` -> ``X-sgf``, ``X-sgf.tar.xz`` -> ``X-sgf``."""
    base = source.rstrip("/")
    if os.path.isdir(base):
        return base
    for suffix in (".xz", ".gz", ".tar", ".journal"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return base if base.endswith("-sgf") else base + "-sgf"


def unpack(source: str, folder: Optional[str] = None) -> Tuple[int, str]:
    """Write the records of ``source`` into ``folder`` (default: ``default_folder``); (how many, the folder)."""
    folder = folder or default_folder(source)
    records = list(games(source))  # all read before the folder is made: a SOURCE of no records leaves none
    os.makedirs(folder, exist_ok=True)
    for name, data in records:
        with open(os.path.join(folder, name), "wb") as out:
            out.write(data)
    return len(records), folder


def pack(folder: str, archive: Optional[str] = None) -> str:
    """Write the ``*.sgf`` of ``folder`` as one reproducible tar.xz (sorted, no times or owners; default
    ``FOLDER.tar.xz``); the archive's path."""
    archive = archive or folder.rstrip("/") + ".tar.xz"
    top = os.path.basename(folder.rstrip("/"))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in games(folder):
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    with open(archive, "wb") as out:
        out.write(lzma.compress(buffer.getvalue(), preset=PACK_PRESET))
    return archive


def recorded_positions(
    sources: Iterable[str],
    plies: Tuple[int, int],
    seed: int = 1,
    per_ply: Optional[int] = None,
    skip: Optional[Callable[[Position], bool]] = None,
) -> Dict[int, List[Position]]:
    """{ply: [Position]}: the positions of the games in ``sources`` (any SOURCE) at each ply of ``plies``
    (low, high), none over, none that ``skip(position)`` refuses, each distinct under the board's
    symmetries (its first meeting kept); at each ply all of them, or ``per_ply`` drawn by ``seed``."""
    by_ply: Dict[int, List[Position]] = {ply: [] for ply in range(plies[0], plies[1] + 1)}
    keys = set()
    for source in sources:
        for name, data in games(source):
            for position in read_game(data, f"{source}: {name}").positions:
                if position.moves_played not in by_ply or position.is_over or (skip and skip(position)):
                    continue
                key = book_key(position)[0]
                if key not in keys:
                    keys.add(key)
                    by_ply[position.moves_played].append(position)
    if per_ply is not None:
        for ply, found in by_ply.items():
            if len(found) > per_ply:
                by_ply[ply] = random.Random(derive_seed(seed, ply)).sample(found, per_ply)
    return by_ply
