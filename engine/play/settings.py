"""How games are played, declared once: GAME_TABLE's rows are the fields of the GameSettings record that
match, grade, tournament, ship and the evolution's fitness pass whole, and the command-line options of every
command that plays games (``engine.cli.parts.arguments.add_game_options`` reads the rows; a new setting is one
row here)."""

import enum
from typing import Callable, NamedTuple, Optional, Union

from engine.constants import COURSE_CPU_LIMIT
from engine.sandbox.limits import Limits

# How a command shows its games' progress: True a bar, False nothing, a function hears of each game
# (``engine.play.match.run_match`` and ``play_all`` say with what).
ProgressOption = Union[bool, Callable[..., object]]

WHERE_GAMES_RUN = (
    "where games run: a Dask scheduler, tls://HOST:PORT (tcp:// in the clear: loopback, or with --plain-tcp), "
    "or local:N for a Dask cluster of N processes on this machine"
)


class OptionKind(enum.Enum):
    """How a setting's command-line option reads."""

    INT = "int"  # a whole number
    COUNT = "count"  # a whole number, at least 1
    SECONDS = "seconds"  # a positive number of seconds
    SCHEDULER = "scheduler"  # where games run, and the cluster's options
    FILE = "file"  # a path
    OFF = "off"  # a flag that sets False
    SANDBOX = "sandbox"  # the sandbox's options, read into a Limits


class GameSetting(NamedTuple):
    """One setting of how games are played: the GameSettings field, its default, and its option."""

    name: str  # the GameSettings field
    default: object
    option: str  # the command-line option
    kind: OptionKind  # how the option reads
    meaning: str  # the option's help


GAME_TABLE = (
    GameSetting(name="seed", default=1, option="--seed", kind=OptionKind.INT, meaning="seed of the games"),
    GameSetting(
        name="jobs", default=None, option="--jobs", kind=OptionKind.COUNT, meaning="parallel games (default: all cores)"
    ),
    GameSetting(
        name="scheduler",
        default=None,
        option="--scheduler",
        kind=OptionKind.SCHEDULER,
        meaning=WHERE_GAMES_RUN + " (default: the local process pool)",
    ),
    GameSetting(
        name="cpu_limit",
        default=COURSE_CPU_LIMIT,
        option="--cpu-limit",
        kind=OptionKind.SECONDS,
        meaning=f"CPU seconds a move of a program player may take (default {COURSE_CPU_LIMIT:g}, as the course)",
    ),
    GameSetting(
        name="journal",
        default=None,
        option="--resume",
        kind=OptionKind.FILE,
        meaning="keep every finished game in FILE; when FILE holds games of this same command (stopped or killed), "
        "continue after them, to the result it would have had",
    ),
    GameSetting(
        name="progress",
        default=True,
        option="--no-progress",
        kind=OptionKind.OFF,
        meaning="progress as lines on stderr, not a bar (as whenever stderr is not a terminal)",
    ),
    GameSetting(
        name="limits",
        default=None,
        option="--sandbox",
        kind=OptionKind.SANDBOX,
        meaning="how program players run (None: the defaults)",
    ),
)
GAME_SETTINGS = {setting.name: setting for setting in GAME_TABLE}


class GameSettings(NamedTuple):
    """How a command plays its games, one field for each row of GAME_TABLE: ``seed`` (the games' seed),
    ``jobs`` (parallel games; None: all cores), ``scheduler`` (a Dask scheduler; None: the local process
    pool), ``cpu_limit`` (a program player's CPU seconds a move), ``journal`` (a file that keeps finished
    games, so that a stopped run continues; None: none), ``progress`` (True draws a bar, False nothing, a
    function hears of each game), ``limits`` (a sandbox.Limits for program players; None: the defaults).
    The fields are GAME_TABLE's rows in order, with their defaults (``tests/test_match.py`` checks both)."""

    seed: int = 1
    jobs: Optional[int] = None
    scheduler: Optional[str] = None
    cpu_limit: float = COURSE_CPU_LIMIT
    journal: Optional[str] = None
    progress: ProgressOption = True
    limits: Optional[Limits] = None


DEFAULT_GAME_SETTINGS = GameSettings()
