"""The experiment config's keys, one row each: a ``ConfigKey`` (its type, default, check and range in
words) in its table's schema (``TOP_KEYS``, ``GA_KEYS``, ``PANEL_KEYS``, ...), and a table of TOML checked against
them (``check_table``), every error a ``ConfigError`` naming the file and the key. ``evolve.experiment.schema``
declares the records the keys fill; ``evolve.config`` reads a file into them.
"""

import enum
import math
from typing import Any, Callable, Dict, NamedTuple, Optional

from engine.constants import COURSE_CPU_LIMIT, MAX_MOVES
from engine.errors import UserError
from engine.play.executors import SCHEDULER_FORMS, check_scheduler
from engine.players.searcher import SearcherName
from engine.sandbox.limits import SandboxMode
from engine.search_settings import SEARCH_SETTINGS

_DEPTH = SEARCH_SETTINGS["depth"]  # the fitness games' depth takes the search setting's range
_KIND_WORDS = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


class ConfigError(UserError, ValueError):
    """An experiment config that cannot be run; the message names the file and the key."""


class StrategyName(str, enum.Enum):
    """The optimiser ``evolve run`` runs: the config's ``strategy``. Its string is what the config, the
    checkpoint and the run's lines hold."""

    GA = "ga"
    CMAES = "cmaes"
    SPSA = "spsa"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


STRATEGIES = tuple(strategy.value for strategy in StrategyName)


class ConfigKey(NamedTuple):
    """One key of an experiment config's table, declared once: its type, its default and the values it
    may take. Each key is also a field of its table's record, of the key's type and in the table's order
    (``evolve.experiment.schema``'s records; the tests hold each record to its table)."""

    kind: type  # int, float, str or bool (an integer is read as a float where the key is a float)
    default: Any  # None: the key is required
    check: Optional[Callable[[Any], object]] = None  # whether a value of the kind is allowed
    range_words: str = ""  # the values allowed, in words, as an error states them

    def read(self, value: object, name: str, path: str) -> Any:
        """``value`` as the key holds it (an integer as a float where the key is a float, a member where
        the key is a closed set of strings), checked: a ConfigError naming ``path`` and the key's ``name``
        where it is of another type, not finite or out of range."""
        if issubclass(self.kind, enum.Enum):
            if not isinstance(value, str):
                raise ConfigError(f"{path}: {name!r} must be a string, found {value!r}")
            try:
                return self.kind(value)
            except ValueError:
                raise ConfigError(f"{path}: {name!r} = {value!r} is out of range: {self.range_words}") from None
        if self.kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, self.kind) or (isinstance(value, bool) and self.kind is not bool):
            raise ConfigError(f"{path}: {name!r} must be {_KIND_WORDS[self.kind]}, found {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{path}: {name!r} must be a finite number, found {value!r}")
        if self.check is not None and not self.check(value):
            raise ConfigError(f"{path}: {name!r} = {value!r} is out of range: {self.range_words}")
        return value

    def typed(self, value: Any) -> Any:
        """A value of plain data (a checkpoint's) as the record holds it: a member where the key is a closed set."""
        return self.kind(value) if issubclass(self.kind, enum.Enum) else value

    def plain(self, value: Any) -> Any:
        """The record's value as plain data: a closed set's member as its string."""
        return value.value if isinstance(value, enum.Enum) else value


# A table's keys: name -> its row.
Schema = Dict[str, ConfigKey]


def check_table(table: object, schema: Schema, where: str, path: str) -> Dict[str, Any]:
    """The keys of a TOML table (``where``: its name, '' for the top level), each read by its row and the
    missing ones at their defaults; ConfigError naming ``path`` and the key where one is unknown, missing
    (a required key) or wrong."""
    if not isinstance(table, dict):
        raise ConfigError("{}: {} must be a table".format(path, where or "the config"))
    unknown = sorted(set(table) - set(schema))
    if unknown:
        raise ConfigError(f"{path}: unknown key {_join(where, unknown[0])!r} (known: {', '.join(sorted(schema))})")
    result: Dict[str, Any] = {}
    for key, row in schema.items():
        name = _join(where, key)
        if key in table:
            result[key] = row.read(table[key], name, path)
        elif row.default is None:
            raise ConfigError(f"{path}: missing key {name!r}")
        else:
            result[key] = row.default
    return result


def defaults(schema: Schema) -> Dict[str, Any]:
    """A table of ``schema``'s defaults: what a config written before the table existed had."""
    return {key: row.default for key, row in schema.items()}


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


TOP_KEYS: Schema = {
    "name": ConfigKey(
        kind=str,
        default=None,
        check=lambda v: v and all(c.isalnum() or c in "-_" for c in v),
        range_words="letters, digits, - or _",
    ),
    "description": ConfigKey(kind=str, default=""),
    "seed": ConfigKey(kind=int, default=None),
    "population": ConfigKey(kind=int, default=None, check=lambda v: 2 <= v <= 10000, range_words="2 to 10000"),
    # DEAP's count: generation 0 is the first population, then this many generations of evolution (so a
    # run records generations 0 to N, N + 1 in all; the log's first line says so).
    "generations": ConfigKey(
        kind=int,
        default=None,
        check=lambda v: 0 <= v <= 100000,
        range_words="0 to 100000 (after generation 0; 0: the first population measured alone, nothing evolved)",
    ),
    "strategy": ConfigKey(kind=StrategyName, default=StrategyName.CMAES, range_words="'ga', 'cmaes' or 'spsa'"),
    "depth": ConfigKey(
        kind=int,
        default=2,
        check=lambda v: _DEPTH.low <= v <= _DEPTH.high,
        range_words=f"{_DEPTH.low} to {_DEPTH.high}",
    ),
    "jobs": ConfigKey(
        kind=int, default=0, check=lambda v: 0 <= v <= 4096, range_words="0 (all cores) to 4096: parallel games"
    ),
    "black_weight": ConfigKey(
        kind=float,
        default=1.0,
        check=lambda v: 0 < v <= 100,
        range_words="positive, at most 100 (how many times a game as Black counts)",
    ),
    "tapered": ConfigKey(kind=bool, default=False),
}
# A random opening leaves at least two plies of the 24-ply game to play.
_OPENING = ConfigKey(
    kind=int, default=2, check=lambda v: 0 <= v <= MAX_MOVES - 2, range_words=f"0 to {MAX_MOVES - 2} plies"
)
GA_KEYS: Schema = {
    "tournament_size": ConfigKey(
        kind=int, default=3, check=lambda v: v >= 2, range_words="at least 2 (and at most the population)"
    ),
    "crossover_probability": ConfigKey(kind=float, default=0.6, check=lambda v: 0 <= v <= 1, range_words="in [0, 1]"),
    "blend_alpha": ConfigKey(kind=float, default=0.3, check=lambda v: 0 <= v <= 1, range_words="in [0, 1]"),
    "mutation_probability": ConfigKey(kind=float, default=0.4, check=lambda v: 0 <= v <= 1, range_words="in [0, 1]"),
    "gene_mutation_probability": ConfigKey(
        kind=float, default=0.3, check=lambda v: 0 < v <= 1, range_words="in (0, 1]"
    ),
    "mutation_sigma": ConfigKey(
        kind=float, default=0.1, check=lambda v: 0 < v <= 1, range_words="in (0, 1]: a share of each feature's range"
    ),
    "hall_of_fame": ConfigKey(
        kind=int, default=2, check=lambda v: v >= 1, range_words="at least 1 (and less than the population)"
    ),
}
SPSA_KEYS: Schema = {
    "c": ConfigKey(
        kind=float,
        default=0.05,
        check=lambda v: 0 < v <= 0.5,
        range_words="in (0, 0.5]: the first perturbation, a share of each weight's range",
    ),
    "step": ConfigKey(
        kind=float,
        default=0.05,
        check=lambda v: 0 < v <= 1,
        range_words="in (0, 1]: the first step's move when every pair's difference agrees, "
        "a share of each weight's range",
    ),
    "hall_of_fame": ConfigKey(kind=int, default=2, check=lambda v: v >= 1, range_words="at least 1"),
}
CMAES_KEYS: Schema = {
    "sigma": ConfigKey(
        kind=float, default=0.05, check=lambda v: 0 < v <= 1, range_words="in (0, 1]: a share of the bounds' range"
    ),
    "hall_of_fame": ConfigKey(kind=int, default=2, check=lambda v: v >= 1, range_words="at least 1"),
}
PANEL_KEYS: Schema = {
    "opponent": ConfigKey(kind=str, default=None),
    "games": ConfigKey(
        kind=int,
        default=None,
        check=lambda v: 2 <= v <= 10000 and v % 2 == 0,
        range_words="an even number from 2 to 10000 (each opening as Black and White)",
    ),
    "weight": ConfigKey(kind=float, default=1.0, check=lambda v: 0 < v <= 1e6, range_words="positive (at most 1e6)"),
    "random_opening": _OPENING,
    # each game from its own opening, the individual in the colour the opening leaves won
    "won_side": ConfigKey(kind=bool, default=False),
}
SELF_PLAY_KEYS: Schema = {
    "against": ConfigKey(
        kind=str,
        default="hall_of_fame",
        check=lambda v: v in ("hall_of_fame", "population"),
        range_words="'hall_of_fame' or 'population'",
    ),
    "opponents": ConfigKey(kind=int, default=2, check=lambda v: 1 <= v <= 1000, range_words="1 to 1000"),
    "games": ConfigKey(
        kind=int,
        default=2,
        check=lambda v: 2 <= v <= 10000 and v % 2 == 0,
        range_words="an even number from 2 to 10000",
    ),
    "weight": ConfigKey(
        kind=float,
        default=1.0,
        check=lambda v: 0 <= v <= 1e6,
        range_words="zero or more, at most 1e6 (its share of the fitness)",
    ),
    "random_opening": _OPENING,
}


def _names_a_path(value: str) -> bool:
    """Whether ``value`` can name a file or a folder: not blank, and no NUL byte."""
    return bool(value.strip()) and "\0" not in value


def _scheduler(value: str) -> bool:
    try:
        return value == "" or bool(check_scheduler(value))
    except ValueError:
        return False


class PlayMode(str, enum.Enum):
    """How our searcher's individuals play: ``[fitness] play``. Its string is what the config, the checkpoint and
    the generations' records hold."""

    DEPTH = "depth"  # a plain search to the config's depth
    AS_SHIPPED = "as-shipped"  # as the agent ships (AS_SHIPPED says how)

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


AS_SHIPPED = (
    "(the book, the evaluation search with the depth, CPU budget, cap and close_stones of 'fitness.settings' "
    "counted in nodes, exact play from its solve_from: engine.players.shipped)"
)


class SearcherChoice(str, enum.Enum):
    """The config's ``[fitness] searcher``: one of our searchers (``engine.players.searcher.SearcherName``), or
    ``auto``, the compiled one where it can be built, else the Python one, warned (``evolve.fitness.choose_searcher``).
    Its string is what the config and the checkpoint hold."""

    AUTO = "auto"
    NATIVE = SearcherName.NATIVE.value
    PYTHON = SearcherName.PYTHON.value

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


FITNESS_KEYS: Schema = {
    "searcher": ConfigKey(
        kind=SearcherChoice,
        default=SearcherChoice.AUTO,
        range_words="'auto' (the compiled twin of the searcher where a C compiler is found, else the Python searcher, "
        "said), 'native' (the compiled twin or nothing: the same moves, tens of times faster) or 'python'",
    ),
    # Successive halving: the games of each panel entry in `rounds` parts; after each part but the
    # last only the best `keep` share of the individuals still playing plays on.
    "rounds": ConfigKey(
        kind=int, default=1, check=lambda v: 1 <= v <= 64, range_words="1 (every game for everyone) to 64"
    ),
    "keep": ConfigKey(
        kind=float,
        default=0.5,
        check=lambda v: 0 < v < 1,
        range_words="in (0, 1): the share of individuals that plays the next round",
    ),
    # How our searcher's individuals play: a plain search to `depth`, or as the agent ships (PlayMode).
    "play": ConfigKey(
        kind=PlayMode,
        default=PlayMode.DEPTH,
        range_words="'depth' (a plain search to 'depth') or 'as-shipped' " + AS_SHIPPED,
    ),
    "settings": ConfigKey(
        kind=str, default="", check=lambda v: "\0" not in v, range_words="a params file ('': the shipped params.json)"
    ),
}
# The exact regret fitness: the share of a positions file's won positions where the individual keeps the win.
REGRET_KEYS: Schema = {
    "positions": ConfigKey(
        kind=str, default=None, check=_names_a_path, range_words="a positions file from 'evolve positions'"
    ),
    "weight": ConfigKey(
        kind=float,
        default=1.0,
        check=lambda v: 0 < v <= 1e6,
        range_words="positive, at most 1e6 (its share of the fitness)",
    ),
}
START_KEYS: Schema = {
    "random": ConfigKey(
        kind=float,
        default=0.0,
        check=lambda v: 0 <= v <= 1,
        range_words="in [0, 1]: the share of the population beyond the start weights drawn at random from the bounds",
    ),
}
EXECUTOR_KEYS: Schema = {
    "scheduler": ConfigKey(
        kind=str, default="", check=_scheduler, range_words="'' (the local process pool), " + SCHEDULER_FORMS
    ),
}
# A course agent whose own weights file holds the genome (evolve.agents.program_individual); [individual.bounds]
# name the genes.
INDIVIDUAL_KEYS: Schema = {
    "program": ConfigKey(
        kind=str, default=None, check=_names_a_path, range_words="an agent folder, relative to where evolve runs"
    ),
    "weights_file": ConfigKey(kind=str, default="weights.json"),
    "sandbox": ConfigKey(
        kind=SandboxMode,
        default=SandboxMode.AUTO,
        range_words="'auto', 'strict' or 'off', as littlego grade's --sandbox",
    ),
    "cpu_limit": ConfigKey(
        kind=float,
        default=COURSE_CPU_LIMIT,
        check=lambda v: 0 < v <= COURSE_CPU_LIMIT,
        range_words=f"CPU seconds a move, above 0 and at most the course's {COURSE_CPU_LIMIT:g}",
    ),
    # evolve.verdict: the best against the agent the run began from, at the run's end.
    "verdict_games": ConfigKey(
        kind=int,
        default=40,
        check=lambda v: 0 <= v <= 10000 and v % 2 == 0,
        range_words="games of the run's best against the original agent at its end: an even number, 0 (none) to 10000",
    ),
}
