"""A match's journal: every finished game on its own line, so that a stopped or killed match
continues from the games it had played (``littlego match ... --resume FILE``).

The first line holds the match's settings; a match continues only with the same ones, so its
games are the games an uninterrupted match would have played. Games finish in game order, so
the journal holds the first games of the match; a line cut off by a kill is dropped.
"""

import gzip
import io
import json
import lzma
import os
from typing import Any, Callable, Dict, Generic, List, Mapping, Optional, Protocol, Tuple, TypeVar

from engine.errors import UserError
from engine.players.base import Reason

FORMAT = "littlego-match 1"

# A journal's header: the match's settings as JSON (a journal holds any match's).
Header = Dict[str, Any]


class JournalGame(Protocol):
    """What a journal needs of a game record (a MatchGame): its index in the match, how it ended, its fields."""

    @property
    def index(self) -> int: ...

    @property
    def reason(self) -> Reason: ...

    def _asdict(self) -> Dict[str, Any]: ...


G = TypeVar("G", bound=JournalGame)  # the records of a journal's games


class JournalError(UserError, ValueError):
    """A journal that cannot be continued; the message names the file and why."""


class Journal(Generic[G]):
    """The games of a match so far (``games``), and a way to add the next one (``append``)."""

    def __init__(self, path: str, settings: Mapping[str, object], games: List[G]):
        self.path, self.settings, self.games = path, settings, games

    @classmethod
    def open(cls, path: str, settings: Mapping[str, object], game_type: Callable[..., G]) -> "Journal[G]":
        """The journal at ``path`` for a match with ``settings`` (a JSON-ready dict): its games
        as ``game_type`` records; a new journal when there is no file yet."""
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            with open(path, "w") as handle:
                handle.write(json.dumps(dict(settings, format=FORMAT), sort_keys=True) + "\n")
            return cls(path, settings, [])
        with open(path, "rb") as handle:
            _, games, kept = _read(handle.read(), path, game_type, settings)
        with open(path, "r+b") as handle:  # a cut-off line goes before the next game comes
            handle.truncate(min(kept, os.path.getsize(path)))
        return cls(path, settings, games)

    def append(self, game: G) -> None:
        """Record a finished game, on disk before the next one is counted."""
        record = dict(game._asdict(), reason=game.reason.value)
        with open(self.path, "a") as handle:
            handle.write(json.dumps(record) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        self.games.append(game)


def read_journal(path: str, game_type: Callable[..., G]) -> Tuple[Header, List[G]]:
    """(the match's settings, its games as ``game_type`` records) of the journal at ``path``, plain or
    compressed (``.xz``, ``.gz``: a finished match's journal, kept), read only; JournalError when it is
    not a journal."""
    openers: Dict[str, Callable[..., io.BufferedIOBase]] = {".xz": lzma.open, ".gz": gzip.open}
    opener = openers.get(os.path.splitext(path)[1], open)
    with opener(path, "rb") as handle:
        header, games, _ = _read(handle.read(), path, game_type)
    return header, games


def _read(
    data: bytes, path: str, game_type: Callable[..., G], settings: Optional[Mapping[str, object]] = None
) -> Tuple[Header, List[G], int]:
    """(settings, games, the bytes of the lines kept) of a journal's bytes: a last line cut off by a kill is
    left out; JournalError when the first line is no journal's (or, given ``settings``, another match's) or
    a later one no game of the match."""
    lines = data.split(b"\n")
    header = _line(lines[0], path, 1)
    if not isinstance(header, dict) or header.pop("format", None) != FORMAT:
        raise JournalError(f"{path}: not a match journal ({FORMAT})")
    if settings is not None:
        _same_match(header, settings, path)
    games: List[G] = []
    kept = len(lines[0]) + 1
    for number, line in enumerate(lines[1:], 2):
        try:
            if line.strip():
                games.append(_game(_line(line, path, number), game_type, len(games), path, number))
        except JournalError:
            if any(rest.strip() for rest in lines[number:]):
                raise
            break  # the last line, cut off by a kill
        kept += len(line) + 1
    return header, games, kept


def _same_match(header: Header, settings: Mapping[str, object], path: str) -> None:
    """JournalError unless the journal's settings (``header``) are ``settings``: a match continues only as itself."""
    for name in sorted(set(header) | set(settings)):
        if header.get(name) != settings.get(name):
            raise JournalError(
                f"{path}: a match with {name} {header.get(name)!r}, not {settings.get(name)!r}: continue it "
                "with the settings it was "
                "started with, or name a new file"
            )


def _line(raw: bytes, path: str, number: int) -> object:
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        raise JournalError(f"{path}:{number}: not a JSON line")


def _game(record: Any, game_type: Callable[..., G], index: int, path: str, number: int) -> G:
    """A ``game_type`` record from a journal line; JournalError when it is not the next game."""
    try:
        game = game_type(**dict(record, reason=Reason(record["reason"]), cpu=[tuple(c) for c in record["cpu"]]))
    except (TypeError, KeyError, ValueError) as error:
        raise JournalError(f"{path}:{number}: not a game of this match ({error})")
    if game.index != index:
        raise JournalError(f"{path}:{number}: game {game.index} where game {index} was due")
    return game
