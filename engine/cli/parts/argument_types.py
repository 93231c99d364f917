"""The values an argument may take, checked as it is read: argparse types that refuse nonsense (a user's
mistake in an argument is one line naming it, from argparse, and exit status 2), and the files and folders
a command will write, checked before any long work. Both command-line tools use them."""

import argparse
import math
import os
import sys
from typing import Callable, Optional, Tuple

from engine.constants import MAX_MOVES, MAX_WEIGHT
from engine.course.editions import ALIASES, EDITIONS, edition
from engine.errors import InvalidInput, ParamsError
from engine.play.executors import check_scheduler
from engine.search_settings import SEARCH_SETTINGS, SearchSetting


def _integer(text: str, low: float, high: float, words: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {words}, got {text!r}")
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"expected {words}, got {value}")
    return value


def _float(text: str, fits: Callable[[float], bool], what: str, expected: str) -> float:
    """``text`` as a number; ArgumentTypeError saying ``what`` was expected when it is none, and
    ``expected`` when ``fits(value)`` is false."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    if not fits(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text}")
    return value


def positive_int(text: str) -> int:
    """An integer of at least 1."""
    return _integer(text, 1, sys.maxsize, "a positive integer")


def non_negative_int(text: str) -> int:
    """An integer of at least 0."""
    return _integer(text, 0, sys.maxsize, "an integer of at least 0")


def depth(text: str) -> int:
    """A search depth, in the depth setting's range."""
    setting = SEARCH_SETTINGS["depth"]
    return _integer(text, setting.low, setting.high, f"a search depth from {setting.low} to {setting.high}")


def integer_range(low: int, high: int) -> Callable[[str], int]:
    """An argument type for an integer from ``low`` to ``high``."""

    def parse(text: str) -> int:
        return _integer(text, low, high, f"an integer from {low} to {high}")

    return parse


def scheduler(text: str) -> str:
    """A Dask scheduler spec: local:N or tcp://HOST:PORT."""
    try:
        return check_scheduler(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error))


def positive_seconds(text: str) -> float:
    """A finite, positive number of seconds."""
    return _float(text, lambda v: math.isfinite(v) and v > 0, "seconds", "a positive, finite number of seconds")


def elo_pair(text: str) -> Tuple[float, float]:
    """ELO0,ELO1 for --sprt: two numbers, the first below the second."""
    try:
        elo0, elo1 = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected ELO0,ELO1 such as 0,20, got {text!r}")
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        raise argparse.ArgumentTypeError(f"expected ELO0 < ELO1, both finite, got {text!r}")
    return elo0, elo1


def share(text: str) -> float:
    """A share of games from 0 to 1 (0.5: half of them)."""
    return _float(text, lambda v: 0 <= v <= 1, "a number", "a share from 0 to 1")


def weight_bound(text: str) -> float:
    """A positive bound on the weights, at most MAX_WEIGHT."""
    return _float(text, lambda v: 0 < v <= MAX_WEIGHT, "a number", f"a bound above 0 and at most {MAX_WEIGHT:g}")


def weight(text: str) -> float:
    """A weight: a finite number of at most MAX_WEIGHT in size (a larger one the params file would rescale)."""
    return _float(
        text,
        lambda v: math.isfinite(v) and abs(v) <= MAX_WEIGHT,
        "a number",
        f"a finite weight from {-MAX_WEIGHT:g} to {MAX_WEIGHT:g}",
    )


def ply_range_from(lowest: int, example: str) -> Callable[[str], Tuple[int, int]]:
    """An argument type for plies LOW-HIGH (or one ply) from ``lowest`` to the last that has a move to
    play; ``example`` shows the form to a user who gave another."""

    def parse(text: str) -> Tuple[int, int]:
        low_text, _, high_text = text.partition("-")
        try:
            low, high = int(low_text), int(high_text or low_text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected plies as LOW-HIGH (e.g. {example}), got {text!r}")
        if not lowest <= low <= high <= MAX_MOVES - 1:
            raise argparse.ArgumentTypeError(
                f"expected plies from {lowest} to {MAX_MOVES - 1} with LOW <= HIGH, got {text!r}"
            )
        return low, high

    return parse


# Plies inside a game that still has a move to play, from the second on: where positions are drawn.
ply_range = ply_range_from(2, "6-14")


def edition_key(text: str) -> str:
    """A course edition's key, from its key or an alias (spring2022, latest)."""
    try:
        return edition(text).key
    except InvalidInput as error:
        raise argparse.ArgumentTypeError(str(error))


EDITION_NAMES = "{} (or {})".format(
    ", ".join(e.key for e in EDITIONS), ", ".join(f"{alias} for {key}" for alias, key in sorted(ALIASES.items()))
)


def setting_type(setting: SearchSetting) -> Callable[[str], Optional[float]]:
    """The argparse type of the search setting ``setting`` (a SearchSetting): its kind within its range;
    a setting bounded by another (the CPU cap by the budget) is checked against it once both are known."""

    def parse(text: str) -> Optional[float]:
        try:
            value = setting.kind(text)
            return setting.check(value, "option")
        except (ValueError, ParamsError):
            raise argparse.ArgumentTypeError(f"expected {setting.range_words()}, got {text!r}")

    parse.__name__ = setting.name  # argparse names the type in its errors
    return parse


def folder_to_write(path: str, option: str) -> str:
    """``path`` as a folder that exists (created if missing); OSError naming ``option`` when it is a file."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise NotADirectoryError(20, f"{option} names a file, not a folder", path)
    os.makedirs(path, exist_ok=True)
    return path


def file_to_write(path: str, option: str, example: str) -> str:
    """``path`` as a file that can be written, checked before any long work: OSError naming
    ``option`` when it is a folder (suggesting ``example`` in it), when its folder does not
    exist, or when that folder cannot be written."""
    if os.path.isdir(path):
        raise IsADirectoryError(
            21, f"{option} names a folder; give a file name (for example {os.path.join(path, example)})", path
        )
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(
            2, f"{option}: no such folder to write {os.path.basename(path)} into (create it first)", folder
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(13, f"{option}: cannot write into this folder", folder)
    return path
