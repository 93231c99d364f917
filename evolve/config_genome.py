"""The genome an experiment config evolves: its genes, the bounds they may reach and the weights they
start from. For our searcher, the features' weights: [bounds], and [start]'s params files and the genes
it frees; for a program individual, [individual]: the weights of a course agent's weights file or the
constants of its code. ``settle_genes`` fills a Config's ``genes``, ``bounds``, ``start`` and
``individual``; every error is a ConfigError naming the file and the key.
"""

import math
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from engine.constants import MAX_WEIGHT
from engine.course.agent_constants import default_bounds, find_constants, select
from engine.course.constant_roles import untunable
from engine.errors import InvalidInput, ParamsError
from engine.features import FEATURE_TABLE, FEATURES
from engine.params import ABSENT_WEIGHT, Params, genome_of, load_params, params_from_dict, params_to_dict
from engine.play.executors import is_remote
from engine.sandbox.limits import UntrustedFolderError
from evolve.agents.program_individual import fingerprint, folder_problem, name_problem, read_agent_weights, start_row
from evolve.experiment.config_keys import INDIVIDUAL_KEYS, ConfigError, StrategyName, check_table
from evolve.experiment.schema import Config, ProgramIndividual, RecordedStart, Start, StartRows
from evolve.genome import ENDGAME, UNRECORDED_GENES, feature_of, genes, named
from evolve.params_genes import LAYER_GROUPS, PARTS, WEIGHTS, gene_values, group_of, layer_bounds, part_genes

# How far a weight that [start] free leaves out may move from its start weight (the eighth leg of the
# tuner comparison, experiments/tuners-20261125, held them so: they moved by 0.01 at most).
HELD_WITHIN = 0.05

# Per-feature bounds on the weights: the genome lives inside this box.
DEFAULT_BOUNDS = {feature.name: feature.bounds for feature in FEATURE_TABLE}
# The most a program's weight may be: any number an agent's JSON reader takes, but a finite box to search.
PROGRAM_WEIGHT = 1e9
# CMA-ES keeps a covariance of genes x genes numbers in each checkpoint: past this, tens of megabytes each.
MAX_CMAES_GENES = 400


def settle_genes(
    config: Config,
    data: Mapping[str, Any],
    individual: object,
    files: object,
    free: object,
    path: str,
    recorded: Optional[RecordedStart] = None,
    parts: object = None,
) -> Config:
    """``config`` with its genes, their bounds and its start: from ``individual`` (the [individual] table)
    where the config has one, else our searcher's from ``data``'s [bounds] and the [start] table's params
    ``files``, ``free`` genes and ``parts`` (None: the features' weights). ``recorded``: the start weights
    (and base) a run kept when it began, which stand for the files they were read from."""
    if individual is not None:
        for key, value in (("free", free), ("parts", parts)):
            if value is not None:
                raise ConfigError(
                    f"{path}: 'start.{key}' chooses among our searcher's weights; [individual] tunes a program's"
                )
        return _individual(config, individual, data, files, path, None if recorded is None else recorded.rows)
    chosen = _parts(parts, path)
    if not isinstance(files, list) or not all(isinstance(name, str) and name for name in files):
        raise ConfigError(f"{path}: 'start.params' must be a list of params.json paths, found {files!r}")
    loaded = [] if recorded is not None else _load(files, path)
    base = _base(chosen, files, loaded, recorded, path)
    names: Tuple[str, ...] = tuple(genes(config.tapered)) if WEIGHTS in chosen else ()
    for part in chosen:
        if part != WEIGHTS:
            assert base is not None  # _base refused a part with no file to hold it
            names += tuple(gene for gene in part_genes(part, base, config.tapered) if gene not in names)
    bounds = _bounds(data.get("bounds", {}), path, [name for name in names if group_of(name) is None])
    if base is not None:
        bounds.update(layer_bounds(base, names, _group_bounds(data.get("bounds", {}), path)))
    config = config._replace(genes=names, bounds=bounds)
    start = _start(config, files, loaded, path, None if recorded is None else recorded.rows)
    kept = None if base is None else params_to_dict(base)
    config = config._replace(start=start._replace(parts=chosen, base=kept))
    if config.strategy is StrategyName.CMAES and len(names) > MAX_CMAES_GENES:
        raise ConfigError(
            f"{path}: {len(names)} genes for CMA-ES, which keeps a covariance of genes x genes numbers in every "
            f'checkpoint ({len(names) ** 2:,} here); at most {MAX_CMAES_GENES}: use strategy = "spsa" or "ga", '
            "or evolve fewer parts"
        )
    return config if free is None else _hold(config, free, data.get("bounds", {}), path)


def _parts(parts: object, path: str) -> Tuple[str, ...]:
    """[start] parts checked: a list of PARTS' keys, each once (None: the features' weights alone)."""
    if parts is None:
        return (WEIGHTS,)
    known = ", ".join(repr(name) for name in PARTS)
    if not isinstance(parts, list) or not parts or not all(isinstance(part, str) for part in parts):
        raise ConfigError(f"{path}: 'start.parts' must be a list of the parts that evolve ({known}), found {parts!r}")
    for part in parts:
        if part not in PARTS:
            raise ConfigError(f"{path}: 'start.parts' names {part!r}, not a part of a params file (known: {known})")
    if len(set(parts)) != len(parts) or ("network" in parts and "network.out" in parts):
        raise ConfigError(f"{path}: 'start.parts' names a part twice ('network' holds 'network.out'): {parts!r}")
    return tuple(parts)


def _load(files: Sequence[str], path: str) -> List[Params]:
    """The [start] params files read, each error a ConfigError naming its place in the list."""
    loaded = []
    for index, name in enumerate(files):
        try:
            loaded.append(load_params(name, warn=lambda message: None))
        except ParamsError as error:
            raise ConfigError(f"{path}: 'start.params[{index}]': {error}")
    return loaded


def _base(
    parts: Sequence[str], files: Sequence[str], loaded: Sequence[Params], recorded: Optional[RecordedStart], path: str
) -> Optional[Params]:
    """The Params whose weights the genes leave out play as they are: the first start file where the genes
    are not the features' weights alone or it has a hidden layer or pattern weights (else None: nothing to
    carry); a resumed run's, as it recorded it."""
    if recorded is not None:
        return None if recorded.base is None else params_from_dict(recorded.base, f"{path}: the recorded base")
    first = loaded[0] if loaded else None
    if tuple(parts) == (WEIGHTS,) and (first is None or (first.network is None and first.patterns is None)):
        return None
    if first is None:
        raise ConfigError(
            f"{path}: 'start.parts' = {list(parts)!r} evolves parts of a params file: name it first in 'start.params'"
        )
    for part in parts:
        if part != WEIGHTS:
            try:
                part_genes(part, first, tapered=False)
            except ValueError as error:
                raise ConfigError(f"{path}: 'start.params[0]' ({files[0]}) {error}: 'start.parts' names {part!r}")
    return first


def _group_bounds(bounds: object, path: str) -> Dict[str, Tuple[float, float]]:
    """[bounds]' pairs for layer and pattern groups (``"network.out" = [low, high]``, or as TOML's dotted
    keys make them, a ``network`` table of ``out = [low, high]``); ConfigError naming a bad one."""
    if not isinstance(bounds, dict):
        return {}
    flat = {key: value for key, value in bounds.items() if key in LAYER_GROUPS}
    nested = bounds.get("network", {})
    if isinstance(nested, dict):
        flat.update((f"network.{key}", value) for key, value in nested.items())
    checked = {}
    for group, pair in flat.items():
        if group not in LAYER_GROUPS:
            raise ConfigError(f"{path}: 'bounds.{group}' is not a group of weights (known: {', '.join(LAYER_GROUPS)})")
        if not _pair(pair, MAX_WEIGHT):
            raise ConfigError(
                f"{path}: 'bounds.{group}' must be [low, high] with low < high, both finite and within "
                f"+-{MAX_WEIGHT:g}, found {pair!r}"
            )
        checked[group] = (float(pair[0]), float(pair[1]))
    return checked


def _bounds(bounds: object, path: str, names: Sequence[str]) -> Dict[str, Tuple[float, float]]:
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
    unknown = sorted(set(bounds) - set(FEATURES) - {ENDGAME.rstrip("."), "network"} - set(LAYER_GROUPS)) or sorted(
        ENDGAME + name for name in set(endgame) - set(FEATURES)
    )
    if unknown:
        raise ConfigError("{}: 'bounds.{}' is not a feature (known: {})".format(path, unknown[0], ", ".join(FEATURES)))
    if endgame and ENDGAME + FEATURES[0] not in names:
        raise ConfigError(
            f"{path}: 'bounds.endgame' bounds tapered weights, and the config is not tapered (tapered = true)"
        )
    return checked


def _hold(config: Config, free: object, bounds: Mapping[str, Any], path: str) -> Config:
    """``config`` where only the genes ``free`` names move: every other gene is bounded to within HELD_WITHIN
    of its start weights (the lowest and highest of them), so that a step of CMA-ES, a share of each range,
    leaves it where it starts. ``bounds``: the config's [bounds] table, which may not bound a held gene."""
    if not isinstance(free, list) or not free or not all(isinstance(name, str) for name in free):
        raise ConfigError(
            f"{path}: 'start.free' must be a list of the genes that move (feature names; "
            f"endgame.<feature> for a tapered endgame weight), found {free!r}"
        )
    unknown = [name for name in free if name not in config.genes]
    if unknown:
        raise ConfigError(
            f"{path}: 'start.free' names {unknown[0]!r}, not a gene of this config (genes: {', '.join(config.genes)})"
        )
    if not config.start.weights:
        raise ConfigError(f"{path}: 'start.free' holds the other weights where they start: name 'start.params'")
    endgame = bounds.get(ENDGAME.rstrip("."), {})
    held = {}
    for index, gene in enumerate(config.genes):
        if gene in free:
            continue
        named = endgame if gene.startswith(ENDGAME) else bounds
        if feature_of(gene) in named:
            raise ConfigError(
                f"{path}: 'bounds.{gene}' bounds a weight 'start.free' holds: free it, or drop its bounds"
            )
        values = [row[index] for row in config.start.weights]
        held[gene] = (max(min(values) - HELD_WITHIN, -MAX_WEIGHT), min(max(values) + HELD_WITHIN, MAX_WEIGHT))
    return config._replace(bounds=dict(config.bounds, **held), start=config.start._replace(free=tuple(free)))


def _pair(pair: object, limit: float) -> bool:
    """Whether ``pair`` is [low, high], two numbers within +-``limit`` with low < high."""
    return (
        isinstance(pair, (list, tuple))
        and len(pair) == 2
        and all(isinstance(x, (int, float)) and not isinstance(x, bool) and -limit <= x <= limit for x in pair)
        and pair[0] < pair[1]
    )


def _individual(
    config: Config, table: object, data: Mapping[str, Any], files: object, path: str, recorded: Optional[StartRows]
) -> Config:
    """``config`` with its ``individual``, ``genes``, ``bounds`` and ``start`` from an [individual] table: a
    course agent whose weights file, or the constants of whose code, hold the genome."""
    _refuse_beside_individual(config, data, files, path)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: individual must be a table")
    table = dict(table)
    bounds, patterns = table.pop("bounds", None), table.pop("constants", None)
    if patterns is not None and "weights_file" in table:
        raise ConfigError(
            f"{path}: 'individual.constants' tunes numbers in the agent's code, 'individual.weights_file' those of "
            "a file it reads: name one"
        )
    checked = check_table(table, INDIVIDUAL_KEYS, "individual", path)
    folder, name = os.path.abspath(checked["program"]), checked["weights_file"]
    problem = folder_problem(folder)
    if problem:
        relative = "" if os.path.isabs(checked["program"]) else f" (a relative path: from the current folder, {folder})"
        raise ConfigError("{}: 'individual.program' = {!r}{}: {}".format(path, checked["program"], relative, problem))
    if name_problem(name):
        raise ConfigError(f"{path}: 'individual.weights_file' = {name!r} {name_problem(name)}")
    if patterns is not None:
        return _constants(config, checked, folder, patterns, bounds, path, recorded)
    return _weights_file(config, checked, folder, bounds, path, recorded)


def _refuse_beside_individual(config: Config, data: Mapping[str, Any], files: object, path: str) -> None:
    """ConfigError where the config holds, beside [individual], what only our searcher's genome takes
    (depth, [bounds], tapered, 'start.params'), or runs its games where the built program is not."""
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
    if is_remote(config.executor.scheduler):
        raise ConfigError(
            where
            + "it is built on this machine, which the workers of 'executor.scheduler' = "
            + f"{config.executor.scheduler!r} cannot see"
        )


def _weights_file(
    config: Config,
    checked: Mapping[str, Any],
    folder: str,
    bounds: object,
    path: str,
    recorded: Optional[StartRows],
) -> Config:
    """``config`` whose genes are the weights of the agent's weights file that [individual.bounds] names, each
    in its range; the file's weights, where it has them, start the run."""
    if not isinstance(bounds, dict) or not bounds:
        raise ConfigError(f"{path}: 'individual.bounds' must name each weight evolved: name = [low, high]")
    _check_bounds(bounds, path)
    config = config._replace(
        genes=tuple(bounds), bounds={gene: (float(low), float(high)) for gene, (low, high) in bounds.items()}
    )
    name = checked["weights_file"]
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
        individual=ProgramIndividual(**checked, folder=folder, base=current or {}, fingerprint=digest, constants=())
    )
    return _started(config, shown, row, path, recorded)


def _started(config: Config, shown: str, row: Sequence[float], path: str, recorded: Optional[StartRows]) -> Config:
    """``config`` whose program individual starts from ``row`` (the weights read from ``shown``; none: at
    random), or from the weights a resumed run ``recorded``."""
    if recorded is not None:
        return config._replace(start=_start(config, [shown] if recorded else [], [], path, recorded))
    return config._replace(
        start=config.start._replace(params=(shown,) if row else (), weights=(tuple(row),) if row else ())
    )


def _check_bounds(bounds: Mapping[str, object], path: str) -> None:
    """ConfigError where an [individual.bounds] entry is not [low, high] with low < high, both finite."""
    for gene, pair in bounds.items():
        if not _pair(pair, PROGRAM_WEIGHT):
            raise ConfigError(
                f"{path}: 'individual.bounds.{gene}' must be [low, high] with low < high, both finite and "
                f"within +-{PROGRAM_WEIGHT:g}, found {pair!r}"
            )


def _constants(
    config: Config,
    checked: Mapping[str, Any],
    folder: str,
    patterns: object,
    bounds: object,
    path: str,
    recorded: Optional[StartRows],
) -> Config:
    """``config`` whose genes are the constants of the agent's code that ``patterns`` (names or shell
    patterns, as ``evolve constants`` lists them) choose, in the order written: each in its
    [individual.bounds] range where given, else ``default_bounds``; their values start the run."""
    if not isinstance(patterns, list) or not patterns or not all(isinstance(p, str) and p.strip() for p in patterns):
        raise ConfigError(
            f"{path}: 'individual.constants' must be a list of constant names or patterns, such as "
            f'["evaluate.*", "KOMI"] (see: evolve constants {checked["program"]}), found {patterns!r}'
        )
    bounds = {} if bounds is None else bounds
    if not isinstance(bounds, dict):
        raise ConfigError(f"{path}: 'individual.bounds' must be a table: name = [low, high]")
    _check_bounds(bounds, path)
    try:
        chosen = select(find_constants(folder), patterns)
    except (InvalidInput, OSError) as error:
        raise ConfigError(f"{path}: 'individual.constants': {error}")
    names = [constant.name for constant in chosen]
    unknown = [gene for gene in bounds if gene not in names]
    if unknown:
        raise ConfigError(
            f"{path}: 'individual.bounds.{unknown[0]}' names no constant that 'individual.constants' chooses "
            f"({', '.join(names)})"
        )
    for constant in chosen:
        problem = None if constant.name in bounds else untunable(constant.name, constant.value)
        if problem is not None:
            raise ConfigError(f"{path}: 'individual.constants' chooses {constant.name} = {constant.value:g}: {problem}")
    ranges = {
        c.name: (float(bounds[c.name][0]), float(bounds[c.name][1])) if c.name in bounds else default_bounds(c)
        for c in chosen
    }
    config = config._replace(genes=tuple(names), bounds=ranges)
    shown = f"{checked['program']}'s code"
    try:
        row = [] if recorded is not None else start_row({c.name: c.value for c in chosen}, ranges, shown)
        digest = fingerprint(folder, checked["weights_file"])
    except ValueError as error:
        raise ConfigError(f"{path}: {error}")
    except UntrustedFolderError as error:
        raise ConfigError(f"{path}: 'individual.program': {error}")
    individual = ProgramIndividual(**checked, folder=folder, base={}, fingerprint=digest, constants=tuple(patterns))
    return _started(config._replace(individual=individual), shown, row, path, recorded)


def _start(
    config: Config, files: Sequence[str], loaded: Sequence[Params], path: str, recorded: Optional[StartRows] = None
) -> Start:
    """The config's Start with the values its params files (``loaded``, read from ``files``) give the genes,
    so a run carries them in its checkpoint and never rereads the files. The paths are relative to the
    folder evolve runs in, as the panel's player specs are. ``recorded``: the weights a run read
    when it began, which stand for the files from then on."""
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
    features = [name for name in names if group_of(name) is None]
    weights = []
    for index, (name, params) in enumerate(zip(files, loaded)):
        where = f"start.params[{index}]"
        row = genome_of(params)
        if len(row) > len(features) and features:
            raise ConfigError(
                f"{path}: {where!r} ({name}) has tapered weights and the config is not tapered: set tapered = true "
                "to start from them"
            )
        row += row[: len(features) - len(row)]  # flat weights start a tapered genome the same at every ply
        values = dict(zip(features, row))
        try:
            values.update(zip(names[len(features) :], gene_values(params, names[len(features) :])))
        except ParamsError as error:
            raise ConfigError(f"{path}: {where!r} ({name}): {error}, a gene of 'start.params[0]'")
        for gene in names:
            low, high = config.bounds[gene]
            if not low <= values[gene] <= high:
                raise ConfigError(
                    f"{path}: {where!r} ({name}): weight {gene} = {values[gene]:g} is outside "
                    f"'bounds.{group_of(gene) or gene}' = [{low:g}, {high:g}]; widen the bounds to start from it"
                )
        weights.append(tuple(float(values[gene]) for gene in names))
    return config.start._replace(params=tuple(files), weights=tuple(weights))


def _in_gene_order(row: object, names: Sequence[str]) -> Any:
    """A recorded start row in the order of the config's genes: a row kept by gene name, or one kept
    as a list before names were (named by UNRECORDED_GENES when it is not of the config's length); a
    gene the row lacks (a feature added since) starts at ABSENT_WEIGHT."""
    if isinstance(row, list) and len(row) != len(names):
        tapered = len(row) == 2 * len(UNRECORDED_GENES)
        row = named(row, UNRECORDED_GENES + (tuple(ENDGAME + gene for gene in UNRECORDED_GENES) if tapered else ()))
    if isinstance(row, dict):
        row = [row.get(name, ABSENT_WEIGHT) for name in names]
    return row
