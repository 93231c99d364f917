"""Experiment configs (TOML), validated once, on load, into a Config: errors name the key and the file.

``evolve.experiment.config_keys`` declares the keys (one row each: its type, default, check and range in words) and
``evolve.experiment.schema`` the records they fill (``Config``, ``GaSettings``, ``PanelEntry``, ...). Here: the tables
read and the panel, the [regret] positions and the sizes that must fit together checked;
``evolve.config_genome`` settles the genome (its genes, their bounds and the start weights).
"""

import copy
import hashlib
import os
import sys
from typing import Any, Dict, List, Optional, Tuple, Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python < 3.11
    import tomli as tomllib

from engine.data import SHIPPED_PARAMS
from engine.errors import ParamsError
from engine.params import load_params
from engine.play.openings import OpeningsError, load_openings
from engine.players.specs import make_player
from engine.ruler.position_set import PositionsError, load_positions
from evolve.config_genome import DEFAULT_BOUNDS as DEFAULT_BOUNDS  # both as ever offered here too
from evolve.config_genome import HELD_WITHIN as HELD_WITHIN
from evolve.config_genome import settle_genes
from evolve.experiment.config_keys import (
    PANEL_KEYS,
    REGRET_KEYS,
    START_KEYS,
    TOP_KEYS,
    ConfigError,
    PlayMode,
    StrategyName,
    check_table,
)
from evolve.experiment.schema import CONFIG_TABLES, Config, PanelEntry, RecordedStart, RegretSettings, SelfPlay, Start

# Keys renamed (old name -> new; a table's key as table.key), still read for one release with a warning.
RENAMED = {"workers": "jobs", "fitness.engine": "fitness.searcher"}
# Panel players search to a fixed depth; past this a single game takes minutes.
MAX_PANEL_DEPTH = 8


def validate(data: Dict[str, Any], path: str = "config", start_weights: Optional[RecordedStart] = None) -> Config:
    """The Config of decoded TOML, every key checked; ConfigError naming the file and the key.

    ``start_weights``: the weights of ``[start] params`` (and its base) as a run recorded them when it
    began (its START_WEIGHTS file), used instead of reading the files again."""
    data = copy.deepcopy(data)
    for old, new in RENAMED.items():  # still read, for one release, with a warning
        table_name, _, old_key = old.rpartition(".")
        new_key = new.rpartition(".")[2]
        table = data.get(table_name) if table_name else data
        if isinstance(table, dict) and old_key in table:
            if new_key in table:
                raise ConfigError(f"{path}: '{old}' and '{new}' are the same key (its old and new names): keep '{new}'")
            print(f"warning: {path}: '{old}' is now '{new}' (the old name goes in a later release)", file=sys.stderr)
            table[new_key] = table.pop(old_key)
    start = data.pop("start", {})
    params_files = start.pop("params", []) if isinstance(start, dict) else []
    free = start.pop("free", None) if isinstance(start, dict) else None
    parts = start.pop("parts", None) if isinstance(start, dict) else None
    individual = data.pop("individual", None)
    regret = data.pop("regret", None)
    top = dict((k, v) for k, v in data.items() if k not in ("panel", "bounds") and k not in CONFIG_TABLES)
    checked = check_table(top, TOP_KEYS, "", path)
    tables = {
        name: record(**check_table(data.get(name, {}), schema, name, path))
        for name, (schema, record) in CONFIG_TABLES.items()
    }
    if "self_play" not in data:
        tables["self_play"] = tables["self_play"]._replace(weight=0.0)
    start = Start(**check_table(start, START_KEYS, "start", path), params=(), weights=())
    regret = None if regret is None else _regret(regret, path)
    shipped = tables["fitness"].play == PlayMode.AS_SHIPPED
    panel = _panel(data.get("panel"), path, optional=regret is not None, as_shipped=shipped)
    config = Config(**checked, **tables, start=start, panel=panel, genes=(), bounds={}, individual=None, regret=regret)
    config = settle_genes(config, data, individual, params_files, free, path, start_weights, parts)
    if config.individual is not None and config.fitness.play == PlayMode.AS_SHIPPED:
        raise ConfigError(
            f"{path}: [individual] evolves a program's weights: 'fitness.play' = \"as-shipped\" is our searcher's "
            "(a program plays as its code says)"
        )
    if config.fitness.play == PlayMode.AS_SHIPPED:
        config = _as_shipped(config, path)
    _check_rounds(config, path)
    if config.strategy is StrategyName.GA:
        _check_ga(config, path)
    return config


def _panel(panel: object, path: str, optional: bool = False, as_shipped: bool = False) -> Tuple[PanelEntry, ...]:
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
        entry = PanelEntry(**check_table(table, PANEL_KEYS, where, path))
        try:
            opponent = make_player(entry.opponent, timed=False)
            opponent.close()
        except ValueError as error:
            raise ConfigError(f"{path}: {where}.opponent: {error}")
        shipped = as_shipped and entry.opponent.partition(":")[0] == "champion"
        depth = getattr(opponent, "depth", 0)  # our searcher's players search to a depth; others, as they do
        if depth > MAX_PANEL_DEPTH and not shipped:
            raise ConfigError(
                f"{path}: {where}.opponent: {entry.opponent!r} would search to depth {depth} in every "
                "game (a panel plays untimed, so that runs replay exactly); name a depth, e.g. agent@4"
            )
        if entry.won_side:
            _check_won_side(entry, where, path)
        entries.append(entry)
    return tuple(entries)


def _regret(table: object, path: str) -> RegretSettings:
    """The [regret] table, its positions file read and checked (PositionsError named as the key's)."""
    settings = check_table(table, REGRET_KEYS, "regret", path)
    try:
        with open(settings["positions"], "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
        found = load_positions(settings["positions"])
    except OSError as error:
        raise ConfigError(f"{path}: 'regret.positions' = {settings['positions']!r}: cannot read: {error.strerror}")
    except PositionsError as error:
        raise ConfigError(f"{path}: 'regret.positions': {error}")
    won = sum(1 for position in found.split(False) if position.won)
    if not won:
        raise ConfigError(f"{path}: 'regret.positions' holds no won position outside the held-out ones")
    return RegretSettings(**settings, digest=digest, won=won)


def _as_shipped(config: Config, path: str) -> Config:
    """The config with the [fitness] search settings of 'fitness.settings' (play = "as-shipped")."""
    where = config.fitness.settings or SHIPPED_PARAMS
    try:
        params = load_params(where, warn=lambda message: None)
    except ParamsError as error:
        raise ConfigError(f"{path}: 'fitness.settings': {error}")
    return config._replace(fitness=config.fitness._replace(search=params.search()))


def repeated_games(config: Config) -> List[str]:
    """Warnings, in words, for the panel entries whose games repeat one pair: played as shipped, both players
    play a position the same way every time, so against ``shipped`` or ``champion`` from the empty board
    (random_opening = 0) every game with one colour is the same game."""
    if config.fitness.play != PlayMode.AS_SHIPPED:
        return []
    repeated: List[Tuple[str, Union[PanelEntry, SelfPlay]]] = [
        (f"panel entry {entry.opponent!r}", entry)
        for entry in config.panel
        if entry.opponent.partition(":")[0] in ("shipped", "champion")
    ]
    if config.self_play.weight > 0:
        repeated.append(("[self_play]", config.self_play))  # the run's own genomes: as shipped too
    return [
        f"{what}: its {entry.games} games start from the empty board (random_opening = 0) and both players play "
        "as shipped, the same way every time: they are one game with each colour, repeated; set random_opening "
        "(2, say)"
        for what, entry in repeated
        if entry.random_opening == 0 and entry.games > 2
    ]


def _check_rounds(config: Config, path: str) -> None:
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


def _check_ga(config: Config, path: str) -> None:
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


def _check_won_side(entry: PanelEntry, where: str, path: str) -> None:
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


def load_config(path: Union[str, "os.PathLike[str]"], start_weights: Optional[RecordedStart] = None) -> Config:
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
