"""Experiment configs (TOML), validated once, on load, into a Config: errors name the key and the file.

Each key is one row of its table's schema (``_TOP``, ``_GA``, ...: its type, default, check and range
in words); the records (``Config``, ``GaSettings``, ``PanelEntry``, ...) take their fields from those rows.
"""

import copy
import hashlib
import math
import os
from typing import Dict, NamedTuple, Optional, Tuple

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from engine.constants import COURSE_CPU_LIMIT, MAX_MOVES, MAX_WEIGHT
from engine.data import SHIPPED_PARAMS
from engine.errors import UserError
from engine.features import FEATURE_TABLE, FEATURES
from engine.params import ABSENT_WEIGHT, SEARCH_SETTINGS, ParamsError, genome_of, load_params
from engine.play.executors import SCHEDULER_FORMS, check_scheduler
from engine.play.openings import OpeningsError, load_openings
from engine.play.settings import GameSettings
from engine.players.searcher import ENGINES
from engine.players.specs import make_player
from engine.sandbox.limits import MODES, Limits, UntrustedFolderError
from evolve.genome import ENDGAME, UNRECORDED_GENES, feature_of, genes, named
from evolve.program import fingerprint, folder_problem, name_problem, read_agent_weights, start_row
from evolve.regret import RegretError, load_positions

_DEPTH = SEARCH_SETTINGS["depth"]  # the fitness games' depth takes the search setting's range

# Per-feature bounds on the weights: the genome lives inside this box.
DEFAULT_BOUNDS = {feature.name: feature.bounds for feature in FEATURE_TABLE}

# The schema: key -> (type, default, check, description). None default = required. Each row is also a
# field of its table's record (``_record`` below).
STRATEGIES = ("ga", "cmaes", "spsa")
_TOP = {
    "name": (str, None, lambda v: v and all(c.isalnum() or c in "-_" for c in v), "letters, digits, - or _"),
    "description": (str, "", None, ""),
    "seed": (int, None, None, ""),
    "population": (int, None, lambda v: 2 <= v <= 10000, "2 to 10000"),
    "generations": (int, None, lambda v: 1 <= v <= 100000, "1 to 100000"),
    "strategy": (str, "ga", lambda v: v in STRATEGIES, "'ga', 'cmaes' or 'spsa'"),
    "depth": (int, 2, lambda v: _DEPTH.low <= v <= _DEPTH.high, f"{_DEPTH.low} to {_DEPTH.high}"),
    "workers": (int, 0, lambda v: 0 <= v <= 4096, "0 (all cores) to 4096"),
    "black_weight": (
        float,
        1.0,
        lambda v: 0 < v <= 100,
        "positive, at most 100 (how many times a game as Black counts)",
    ),
    "tapered": (bool, False, None, ""),
}
# A random opening leaves at least two plies of the 24-ply game to play.
_OPENING = (int, 2, lambda v: 0 <= v <= MAX_MOVES - 2, f"0 to {MAX_MOVES - 2} plies")
_GA = {
    "tournament_size": (int, 3, lambda v: v >= 2, "at least 2 (and at most the population)"),
    "crossover_probability": (float, 0.6, lambda v: 0 <= v <= 1, "in [0, 1]"),
    "blend_alpha": (float, 0.3, lambda v: 0 <= v <= 1, "in [0, 1]"),
    "mutation_probability": (float, 0.4, lambda v: 0 <= v <= 1, "in [0, 1]"),
    "gene_mutation_probability": (float, 0.3, lambda v: 0 < v <= 1, "in (0, 1]"),
    "mutation_sigma": (float, 0.1, lambda v: 0 < v <= 1, "in (0, 1]: a share of each feature's range"),
    "hall_of_fame": (int, 2, lambda v: v >= 1, "at least 1 (and less than the population)"),
}
_SPSA = {
    "c": (float, 0.05, lambda v: 0 < v <= 0.5, "in (0, 0.5]: the first perturbation, a share of each weight's range"),
    "step": (
        float,
        0.02,
        lambda v: 0 < v <= 1,
        "in (0, 1]: the first step for a gradient of 1, a share of each weight's range",
    ),
    "hall_of_fame": (int, 2, lambda v: v >= 1, "at least 1"),
}
_CMAES = {
    "sigma": (float, 0.2, lambda v: 0 < v <= 1, "in (0, 1]: a share of the bounds' range"),
    "hall_of_fame": (int, 2, lambda v: v >= 1, "at least 1"),
}
_PANEL = {
    "opponent": (str, None, None, ""),
    "games": (
        int,
        None,
        lambda v: 2 <= v <= 10000 and v % 2 == 0,
        "an even number from 2 to 10000 (each opening as Black and White)",
    ),
    "weight": (float, 1.0, lambda v: 0 < v <= 1e6, "positive (at most 1e6)"),
    "random_opening": _OPENING,
    # each game from its own opening, the individual in the colour the opening leaves won
    "won_side": (bool, False, None, ""),
}
_SELF_PLAY = {
    "against": (str, "hall_of_fame", lambda v: v in ("hall_of_fame", "population"), "'hall_of_fame' or 'population'"),
    "opponents": (int, 2, lambda v: 1 <= v <= 1000, "1 to 1000"),
    "games": (int, 2, lambda v: 2 <= v <= 10000 and v % 2 == 0, "an even number from 2 to 10000"),
    "weight": (float, 1.0, lambda v: 0 <= v <= 1e6, "zero or more, at most 1e6 (its share of the fitness)"),
    "random_opening": _OPENING,
}


def _scheduler(value):
    try:
        return value == "" or bool(check_scheduler(value))
    except ValueError:
        return False


PLAYS = ("depth", "as-shipped")
AS_SHIPPED = (
    "(the book, the evaluation search with the depth, CPU budget, cap and close_stones of 'fitness.settings' "
    "counted in nodes, exact play from its solve_from: engine.players.shipped)"
)
FITNESS_ENGINES = ("auto",) + ENGINES  # auto: native where it can be built, python (warned) where not
_FITNESS = {
    "engine": (
        str,
        "auto",
        lambda v: v in FITNESS_ENGINES,
        "'auto' (the compiled twin of the searcher where a C compiler is found, else the Python searcher, "
        "said), 'native' (the compiled twin or nothing: the same moves, tens of times faster) or 'python'",
    ),
    # Successive halving: the games of each panel entry in `rounds` parts; after each part but the
    # last only the best `keep` share of the individuals still playing plays on.
    "rounds": (int, 1, lambda v: 1 <= v <= 64, "1 (every game for everyone) to 64"),
    "keep": (float, 0.5, lambda v: 0 < v < 1, "in (0, 1): the share of individuals that plays the next round"),
    # How our searcher's individuals play: a plain search to `depth`, or as the agent ships (PLAYS).
    "play": (str, "depth", lambda v: v in PLAYS, "'depth' (a plain search to 'depth') or 'as-shipped' " + AS_SHIPPED),
    "settings": (str, "", lambda v: "\0" not in v, "a params file ('': the shipped params.json)"),
}
# The exact regret fitness: the share of a positions file's won positions where the individual keeps the win.
_REGRET = {
    "positions": (str, None, lambda v: v.strip() and "\0" not in v, "a positions file from 'evolve positions'"),
    "weight": (float, 1.0, lambda v: 0 < v <= 1e6, "positive, at most 1e6 (its share of the fitness)"),
}
_START = {
    "random": (
        float,
        0.0,
        lambda v: 0 <= v <= 1,
        "in [0, 1]: the share of the population beyond the start weights drawn at random from the bounds",
    ),
}
_EXECUTOR = {
    "scheduler": (str, "", _scheduler, "'' (the local process pool), " + SCHEDULER_FORMS),
}
# A course agent whose own weights file holds the genome (evolve.program); [individual.bounds] name the genes.
_INDIVIDUAL = {
    "program": (str, None, lambda v: v.strip() and "\0" not in v, "an agent folder, relative to where evolve runs"),
    "weights_file": (str, "weights.json", None, ""),
    "sandbox": (str, "auto", lambda v: v in MODES, "'auto', 'strict' or 'off', as littlego grade's --sandbox"),
    "cpu_limit": (
        float,
        COURSE_CPU_LIMIT,
        lambda v: 0 < v <= COURSE_CPU_LIMIT,
        f"CPU seconds a move, above 0 and at most the course's {COURSE_CPU_LIMIT:g}",
    ),
}
# The most a program's weight may be: any number an agent's JSON reader takes, but a finite box to search.
PROGRAM_WEIGHT = 1e9


# Panel players search to a fixed depth; past this a single game takes minutes.
MAX_PANEL_DEPTH = 8


def _record(name, schema, *more):
    """A NamedTuple with a field for each key of ``schema``, typed as declared there, then the ``more``
    (name, type) fields that validation derives: a key added to a schema is a field of its record."""
    record = NamedTuple(name, [(key, kind) for key, (kind, _, _, _) in schema.items()] + list(more))
    record.__new__.__defaults__ = (None,) * len(more)  # derived fields: None until validation derives them
    return record


class GaSettings(_record("_GaFields", _GA)):
    """The [ga] table: the genetic algorithm's operators (``_GA`` declares each key)."""

    __slots__ = ()


class SpsaSettings(_record("_SpsaFields", _SPSA)):
    """The [spsa] table: SPSA's gains and hall of fame (``_SPSA``; evolve.spsa says what each means)."""

    __slots__ = ()


class CmaesSettings(_record("_CmaesFields", _CMAES)):
    """The [cmaes] table: CMA-ES's step and hall of fame (``_CMAES`` declares each key)."""

    __slots__ = ()


class SelfPlay(_record("_SelfPlayFields", _SELF_PLAY)):
    """The [self_play] table: the games against the run's own genomes (``_SELF_PLAY``); weight 0 where the
    config has no such table."""

    __slots__ = ()


class ExecutorSettings(_record("_ExecutorFields", _EXECUTOR)):
    """The [executor] table: where the games run (``_EXECUTOR``)."""

    __slots__ = ()


class FitnessSettings(_record("_FitnessFields", _FITNESS, ("search", Optional[Dict[str, float]]))):
    """The [fitness] table: the engine, the successive halving of the games and how our searcher's
    individuals play (``_FITNESS``); ``search``: for play = "as-shipped", the search settings of the
    ``settings`` params file as read when the run began (None otherwise)."""

    __slots__ = ()


class RegretSettings(_record("_RegretFields", _REGRET, ("digest", str), ("won", int))):
    """The [regret] table (``_REGRET``): the positions file, its weight in the fitness, the SHA-256 of the
    file as the run began (a changed file is refused) and how many of its fitness positions are won."""

    __slots__ = ()


class PanelEntry(_record("_PanelFields", _PANEL)):
    """One [[panel]] opponent and its games (``_PANEL``)."""

    __slots__ = ()


class Start(_record("_StartFields", _START, ("params", Tuple[str, ...]), ("weights", Tuple[Tuple[float, ...], ...]))):
    """The [start] table (``_START``), with the files ``params`` named (for a program individual, its own
    weights file where it holds the genes) and their ``weights``, read once, in the genes' order."""

    __slots__ = ()


class ProgramIndividual(
    _record("_IndividualFields", _INDIVIDUAL, ("folder", str), ("base", Dict[str, object]), ("fingerprint", str))
):
    """The [individual] table (``_INDIVIDUAL``), with the agent's ``folder`` (absolute), the ``base`` its
    weights file held when the run began (what it keeps beside the genes) and the ``fingerprint`` of its
    code then (``evolve.program.fingerprint``)."""

    __slots__ = ()


# The config's tables of keys, beside the top level's: name -> (schema, record), in the order checked.
_TABLES = {
    "ga": (_GA, GaSettings),
    "cmaes": (_CMAES, CmaesSettings),
    "spsa": (_SPSA, SpsaSettings),
    "self_play": (_SELF_PLAY, SelfPlay),
    "executor": (_EXECUTOR, ExecutorSettings),
    "fitness": (_FITNESS, FitnessSettings),
}

_ConfigFields = _record(
    "_ConfigFields",
    _TOP,
    *[(name, record) for name, (_, record) in _TABLES.items()],
    ("start", Start),
    ("panel", Tuple[PanelEntry, ...]),
    ("genes", Tuple[str, ...]),
    ("bounds", Dict[str, Tuple[float, float]]),
    ("individual", Optional[ProgramIndividual]),
    ("regret", Optional[RegretSettings]),
)


class Config(_ConfigFields):
    """A validated experiment config: a field for each top-level key (``_TOP``), a record for each table,
    the panel's entries, the names of the genes in genome order and their (low, high) bounds, and the
    program individual (None where the genome is our searcher's weights).

    ``to_json`` and ``from_json`` convert it to and from plain data, the form a checkpoint keeps."""

    __slots__ = ()

    def games(self, jobs=None, scheduler=None, progress=True):
        """How the run's fitness games are played, as every command that plays games says it (a GameSettings,
        engine.play.settings): ``jobs`` workers (None: the config's, else all cores), ``scheduler`` (None: the
        config's [executor], else the local pool), the run's seed, and for a program individual its CPU limit
        and sandbox. Each game's own seed derives from the seed."""
        individual = self.individual
        return GameSettings(
            seed=self.seed,
            jobs=jobs or self.workers or os.cpu_count() or 1,
            scheduler=scheduler or self.executor.scheduler or None,
            cpu_limit=individual.cpu_limit if individual is not None else COURSE_CPU_LIMIT,
            limits=Limits(mode=individual.sandbox) if individual is not None else None,
            progress=progress,
        )

    def hall_of_fame_size(self):
        """How many elites the strategy keeps: [ga]'s, [cmaes]'s or [spsa]'s hall_of_fame."""
        return getattr(self, self.strategy).hall_of_fame

    def to_json(self):
        """The config as plain data (dicts, lists, strings, numbers), as a checkpoint keeps it: readable
        whatever becomes of these classes."""
        data = {key: getattr(self, key) for key in _TOP}
        data.update((name, dict(getattr(self, name)._asdict())) for name in _TABLES)
        data["start"] = dict(
            self.start._asdict(), params=list(self.start.params), weights=[list(row) for row in self.start.weights]
        )
        data["panel"] = [dict(entry._asdict()) for entry in self.panel]
        data["genes"] = list(self.genes)
        data["bounds"] = {gene: list(pair) for gene, pair in self.bounds.items()}
        if self.individual is not None:
            data["individual"] = dict(self.individual._asdict(), base=copy.deepcopy(self.individual.base))
        if self.regret is not None:
            data["regret"] = dict(self.regret._asdict())
        return data

    @classmethod
    def from_json(cls, data):
        """The record of plain data as ``to_json`` writes it (a checkpoint's config, which
        ``evolve.checkpoint`` brings up to date first); a key no field names is ignored."""
        start = data["start"]
        individual = data.get("individual")
        return cls(
            **{key: data[key] for key in _TOP},
            **{
                name: _from_table(record, data[name] if name in data else _defaults(schema))
                for name, (schema, record) in _TABLES.items()
            },
            start=_from_table(Start, start)._replace(
                params=tuple(start["params"]), weights=tuple(tuple(float(x) for x in row) for row in start["weights"])
            ),
            panel=tuple(_from_table(PanelEntry, entry) for entry in data["panel"]),
            genes=tuple(data["genes"]),
            bounds={gene: (float(low), float(high)) for gene, (low, high) in data["bounds"].items()},
            individual=None if individual is None else _from_table(ProgramIndividual, individual),
            regret=None if data.get("regret") is None else _from_table(RegretSettings, data["regret"]),
        )


def _defaults(schema):
    """A table of ``schema``'s defaults: what a config written before the table existed had."""
    return {key: default for key, (_, default, _, _) in schema.items()}


def _from_table(record, table):
    """A record of a table of plain data: its fields' values, whatever else the table holds."""
    return record(**{field: table[field] for field in record._fields})


class ConfigError(UserError, ValueError):
    """An experiment config that cannot be run; the message names the file and the key."""


def _check_table(table, schema, where, path):
    if not isinstance(table, dict):
        raise ConfigError("{}: {} must be a table".format(path, where or "the config"))
    unknown = sorted(set(table) - set(schema))
    if unknown:
        raise ConfigError(
            "{}: unknown key {!r}{} (known: {})".format(path, _join(where, unknown[0]), "", ", ".join(sorted(schema)))
        )
    result = {}
    for key, (kind, default, check, words) in schema.items():
        name = _join(where, key)
        if key not in table:
            if default is None:
                raise ConfigError(f"{path}: missing key {name!r}")
            result[key] = default
            continue
        value = table[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise ConfigError(
                "{}: {!r} must be {}, found {!r}".format(
                    path,
                    name,
                    {int: "an integer", float: "a number", str: "a string", bool: "true or false"}[kind],
                    value,
                )
            )
        if kind is float and not math.isfinite(value):
            raise ConfigError(f"{path}: {name!r} must be a finite number, found {value!r}")
        if check is not None and not check(value):
            raise ConfigError(f"{path}: {name!r} = {value!r} is out of range: {words}")
        result[key] = value
    return result


def _join(where, key):
    return f"{where}.{key}" if where else key


def validate(data, path="config", start_weights=None):
    """The Config of decoded TOML, every key checked; ConfigError naming the file and the key.

    ``start_weights``: the weights of ``[start] params`` as a run recorded them when it began
    (its START_WEIGHTS file), used instead of reading the files again."""
    data = copy.deepcopy(data)
    start = data.pop("start", {})
    params_files = start.pop("params", []) if isinstance(start, dict) else []
    individual = data.pop("individual", None)
    regret = data.pop("regret", None)
    top = dict((k, v) for k, v in data.items() if k not in ("panel", "bounds") and k not in _TABLES)
    checked = _check_table(top, _TOP, "", path)
    tables = {
        name: record(**_check_table(data.get(name, {}), schema, name, path))
        for name, (schema, record) in _TABLES.items()
    }
    if "self_play" not in data:
        tables["self_play"] = tables["self_play"]._replace(weight=0.0)
    start = Start(**_check_table(start, _START, "start", path), params=(), weights=())
    # the genes, their bounds and the start weights are settled below, from [bounds] or [individual]
    regret = None if regret is None else _regret(regret, path)
    shipped = tables["fitness"].play == "as-shipped"
    panel = _panel(data.get("panel"), path, optional=regret is not None, as_shipped=shipped)
    config = Config(**checked, **tables, start=start, panel=panel, genes=(), bounds={}, individual=None, regret=regret)
    if individual is None:
        names = tuple(genes(config.tapered))
        config = config._replace(genes=names, bounds=_bounds(data.get("bounds", {}), path, names))
        config = config._replace(start=_start(config, params_files, path, start_weights))
    else:
        config = _individual(config, individual, data, params_files, path, start_weights)
    if config.individual is not None and (config.fitness.play == "as-shipped" or config.regret is not None):
        what = "'fitness.play' = \"as-shipped\"" if config.fitness.play == "as-shipped" else "[regret]"
        raise ConfigError(f"{path}: [individual] evolves a program's weights: {what} is our searcher's")
    if config.fitness.play == "as-shipped":
        config = _as_shipped(config, path)
    _check_rounds(config, path)
    if config.strategy == "ga":
        _check_ga(config, path)
    return config


def _panel(panel, path, optional=False, as_shipped=False):
    """The [[panel]] entries, each checked, its opponent a player that can be made and searches no deeper
    than MAX_PANEL_DEPTH (``champion`` may where fitness plays ``as_shipped``: it plays at a node budget
    then); none where ``optional`` (a [regret] fitness alone) and the config names none."""
    if optional and panel is None:
        return ()
    if not isinstance(panel, list) or not panel:
        raise ConfigError(f"{path}: 'panel' must list at least one [[panel]] opponent (or [regret] positions)")
    entries = []
    for index, table in enumerate(panel):
        where = f"panel[{index}]"
        entry = PanelEntry(**_check_table(table, _PANEL, where, path))
        try:
            opponent = make_player(entry.opponent, timed=False)
            opponent.close()
        except ValueError as error:
            raise ConfigError(f"{path}: {where}.opponent: {error}")
        shipped = as_shipped and entry.opponent.partition(":")[0] == "champion"
        if getattr(opponent, "depth", 0) > MAX_PANEL_DEPTH and not shipped:
            raise ConfigError(
                f"{path}: {where}.opponent: {entry.opponent!r} would search to depth {opponent.depth} in every "
                "game (a panel plays untimed, so that runs replay exactly); name a depth, e.g. agent@4"
            )
        if entry.won_side:
            _check_won_side(entry, where, path)
        entries.append(entry)
    return tuple(entries)


def _regret(table, path):
    """The [regret] table, its positions file read and checked (RegretError named as the key's)."""
    settings = _check_table(table, _REGRET, "regret", path)
    try:
        with open(settings["positions"], "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
        found = load_positions(settings["positions"])
    except OSError as error:
        raise ConfigError(f"{path}: 'regret.positions' = {settings['positions']!r}: cannot read: {error.strerror}")
    except RegretError as error:
        raise ConfigError(f"{path}: 'regret.positions': {error}")
    won = sum(1 for position in found.split(False) if position.won)
    if not won:
        raise ConfigError(f"{path}: 'regret.positions' holds no won position outside the held-out ones")
    return RegretSettings(**settings, digest=digest, won=won)


def _as_shipped(config, path):
    """The config with the [fitness] search settings of 'fitness.settings' (play = "as-shipped")."""
    where = config.fitness.settings or SHIPPED_PARAMS
    try:
        params = load_params(where, warn=lambda message: None)
    except ParamsError as error:
        raise ConfigError(f"{path}: 'fitness.settings': {error}")
    return config._replace(fitness=config.fitness._replace(search=params.search()))


def _check_rounds(config, path):
    """ConfigError where a panel entry, or self-play, has fewer pairs of games than [fitness] has rounds."""
    rounds = config.fitness.rounds
    for entry in config.panel + ((config.self_play,) if config.self_play.weight > 0 else ()):
        if entry.games // 2 < rounds:
            raise ConfigError(
                "{}: 'fitness.rounds' = {} needs at least {} games in every panel entry and in "
                "self-play (a pair of games, one each colour, a round); {} has {}".format(
                    path, rounds, 2 * rounds, getattr(entry, "opponent", "self_play"), entry.games
                )
            )


def _check_ga(config, path):
    """ConfigError where the GA's hall of fame or tournament does not fit in the population."""
    population, ga = config.population, config.ga
    if ga.hall_of_fame >= population:
        raise ConfigError(
            f"{path}: 'ga.hall_of_fame' = {ga.hall_of_fame} must be less than the population ({population}): "
            "elites take that many places and selection would have none"
        )
    if ga.tournament_size > population:
        raise ConfigError(
            f"{path}: 'ga.tournament_size' = {ga.tournament_size} is larger than the population ({population})"
        )


def _check_won_side(entry, where, path):
    """A won-side panel entry needs the solved openings of its random_opening plies."""
    try:
        table = load_openings()
    except OpeningsError as error:
        raise ConfigError(f"{path}: {where}.won_side: {error}")
    if entry.random_opening != table.plies:
        raise ConfigError(
            f"{path}: {where}.won_side needs random_opening = {table.plies} (the plies {table.path} solves), "
            f"found {entry.random_opening}"
        )


def _bounds(bounds, path, names):
    """Per-gene (low, high) bounds: the table's, else the default of each feature. A feature's
    bounds hold for both its tapered weights unless ``endgame.<feature>`` names its own."""
    if not isinstance(bounds, dict):
        raise ConfigError(f"{path}: 'bounds' must be a table of feature = [low, high]")
    endgame = bounds.get(ENDGAME.rstrip("."), {})
    if not isinstance(endgame, dict):
        raise ConfigError(f"{path}: 'bounds.endgame' must be a table of feature = [low, high]")
    checked = {}
    for name in names:
        feature = feature_of(name)
        pair = bounds.get(feature, DEFAULT_BOUNDS[feature])
        if name != feature:
            pair = endgame.get(feature, pair)
        if not _pair(pair, MAX_WEIGHT):
            raise ConfigError(
                f"{path}: 'bounds.{name}' must be [low, high] with low < high, both finite and within "
                f"+-{MAX_WEIGHT:g}, found {pair!r}"
            )
        checked[name] = (float(pair[0]), float(pair[1]))
    unknown = sorted(set(bounds) - set(FEATURES) - {ENDGAME.rstrip(".")}) or sorted(
        ENDGAME + name for name in set(endgame) - set(FEATURES)
    )
    if unknown:
        raise ConfigError("{}: 'bounds.{}' is not a feature (known: {})".format(path, unknown[0], ", ".join(FEATURES)))
    if endgame and ENDGAME + FEATURES[0] not in names:
        raise ConfigError(
            f"{path}: 'bounds.endgame' bounds tapered weights, and the config is not tapered (tapered = true)"
        )
    return checked


def _pair(pair, limit):
    """Whether ``pair`` is [low, high], two numbers within +-``limit`` with low < high."""
    return (
        isinstance(pair, (list, tuple))
        and len(pair) == 2
        and all(isinstance(x, (int, float)) and not isinstance(x, bool) and -limit <= x <= limit for x in pair)
        and pair[0] < pair[1]
    )


def _individual(config, table, data, files, path, recorded):
    """``config`` with its ``individual``, ``genes``, ``bounds`` and ``start`` from an [individual] table: a
    course agent whose weights file holds the genome; the file's weights, where it has them, start the run."""
    where = f"{path}: [individual] evolves a program's weights: "
    for conflict, why in (
        ("depth", "'depth' is our searcher's (a program searches as its code says)"),
        ("bounds", "its genes' bounds are [individual.bounds], not [bounds]"),
        ("tapered", "'tapered' weights are our searcher's"),
    ):
        if conflict in data and data[conflict] is not False:
            raise ConfigError(where + why)
    if files:
        raise ConfigError(
            where + "'start.params' are our searcher's params files (the program's own weights file starts the run)"
        )
    if config.executor.scheduler.startswith("tcp://"):
        raise ConfigError(
            where
            + "it is built on this machine, which the workers of 'executor.scheduler' = "
            + f"{config.executor.scheduler!r} cannot see"
        )
    table = dict(table) if isinstance(table, dict) else table
    bounds = table.pop("bounds", None) if isinstance(table, dict) else None
    checked = _check_table(table, _INDIVIDUAL, "individual", path)
    folder, name = os.path.abspath(checked["program"]), checked["weights_file"]
    problem = folder_problem(folder)
    if problem:
        raise ConfigError("{}: 'individual.program' = {!r}: {}".format(path, checked["program"], problem))
    if name_problem(name):
        raise ConfigError(f"{path}: 'individual.weights_file' = {name!r} {name_problem(name)}")
    if not isinstance(bounds, dict) or not bounds:
        raise ConfigError(f"{path}: 'individual.bounds' must name each weight evolved: name = [low, high]")
    for gene, pair in bounds.items():
        if not _pair(pair, PROGRAM_WEIGHT):
            raise ConfigError(
                f"{path}: 'individual.bounds.{gene}' must be [low, high] with low < high, both finite and "
                f"within +-{PROGRAM_WEIGHT:g}, found {pair!r}"
            )
    config = config._replace(
        genes=tuple(bounds), bounds={gene: (float(low), float(high)) for gene, (low, high) in bounds.items()}
    )
    shown = os.path.join(checked["program"], name)
    try:
        current = read_agent_weights(folder, name, shown)
        row = [] if current is None or recorded is not None else start_row(current, config.bounds, shown)
    except ValueError as error:
        raise ConfigError(f"{path}: {error}")
    try:
        digest = fingerprint(folder, name)
    except UntrustedFolderError as error:
        raise ConfigError(f"{path}: 'individual.program': {error}")
    config = config._replace(
        individual=ProgramIndividual(**checked, folder=folder, base=current or {}, fingerprint=digest)
    )
    if recorded is not None:
        return config._replace(start=_start(config, [shown] if recorded else [], path, recorded))
    return config._replace(
        start=config.start._replace(params=(shown,) if row else (), weights=(tuple(row),) if row else ())
    )


def _start(config, files, path, recorded=None):
    """The config's Start with the weights of its params files read in (the genes' order), so a run
    carries them in its checkpoint and never rereads the files. The paths are relative to the
    folder evolve runs in, as the panel's player specs are. ``recorded``: the weights a run read
    when it began, which stand for the files from then on."""
    if not isinstance(files, list) or not all(isinstance(name, str) and name for name in files):
        raise ConfigError(f"{path}: 'start.params' must be a list of params.json paths, found {files!r}")
    if len(files) > config.population:
        raise ConfigError(
            f"{path}: 'start.params' names {len(files)} files, more than the population ({config.population})"
        )
    names = config.genes
    if recorded is not None:
        try:
            rows = [_in_gene_order(row, names) for row in recorded]
        except (ValueError, TypeError):
            rows = None
        if (
            rows is None
            or len(rows) != len(files)
            or not all(
                len(row) == len(names)
                and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in row)
                for row in rows
            )
        ):
            raise ConfigError(f"{path}: the recorded start weights do not match 'start.params' ({len(files)} files)")
        return config.start._replace(params=tuple(files), weights=tuple(tuple(float(x) for x in row) for row in rows))
    weights = []
    for index, name in enumerate(files):
        where = f"start.params[{index}]"
        try:
            params = load_params(name, warn=lambda message: None)
        except ParamsError as error:
            raise ConfigError(f"{path}: {where!r}: {error}")
        row = genome_of(params)
        if len(row) > len(names):
            raise ConfigError(
                f"{path}: {where!r} ({name}) has tapered weights and the config is not tapered: set tapered = true "
                "to start from them"
            )
        row += row[: len(names) - len(row)]  # flat weights start a tapered genome the same at every ply
        for gene, value in zip(names, row):
            low, high = config.bounds[gene]
            if not low <= value <= high:
                raise ConfigError(
                    f"{path}: {where!r} ({name}): weight {gene} = {value:g} is outside 'bounds.{gene}' = "
                    f"[{low:g}, {high:g}]; widen "
                    "the bounds to start from it"
                )
        weights.append(tuple(float(value) for value in row))
    return config.start._replace(params=tuple(files), weights=tuple(weights))


def _in_gene_order(row, names):
    """A recorded start row in the order of the config's genes: a row kept by gene name, or one kept
    as a list before names were (named by UNRECORDED_GENES when it is not of the config's length); a
    gene the row lacks (a feature added since) starts at ABSENT_WEIGHT."""
    if isinstance(row, list) and len(row) != len(names):
        tapered = len(row) == 2 * len(UNRECORDED_GENES)
        row = named(row, UNRECORDED_GENES + (tuple(ENDGAME + gene for gene in UNRECORDED_GENES) if tapered else ()))
    if isinstance(row, dict):
        row = [row.get(name, ABSENT_WEIGHT) for name in names]
    return row


def load_config(path, start_weights=None):
    """The Config of a TOML file; ConfigError for any problem, naming the file."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text (byte {error.start})")
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}")
    except RecursionError:
        raise ConfigError(f"{path}: not usable TOML: nested too deeply")
    return validate(data, os.fspath(path), start_weights)
