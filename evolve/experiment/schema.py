"""The experiment config's records: ``Config``, with a field for each top-level key, and a record for
each of its tables (``GaSettings``, ``PanelEntry``, ``Start``, ...), a field for each of the table's keys
(``config_keys`` declares them, one row each) and for what validation derives. ``config``
validates a TOML file into them; ``Config.to_json`` and ``from_json`` are the form a checkpoint keeps.
"""

import copy
import os
from typing import Any, Dict, Mapping, NamedTuple, Optional, Sequence, Tuple, Type, Union

from engine.constants import COURSE_CPU_LIMIT
from engine.play.settings import GameSettings, ProgressOption
from engine.sandbox.limits import Limits, SandboxMode
from evolve.experiment.config_keys import (
    CMAES_KEYS,
    EXECUTOR_KEYS,
    FITNESS_KEYS,
    GA_KEYS,
    INDIVIDUAL_KEYS,
    SELF_PLAY_KEYS,
    SPSA_KEYS,
    TOP_KEYS,
    PlayMode,
    Schema,
    SearcherChoice,
    StrategyName,
    defaults,
)


class GaSettings(NamedTuple):
    """The [ga] table: the genetic algorithm's operators (``GA_KEYS`` declares each key)."""

    tournament_size: int
    crossover_probability: float
    blend_alpha: float
    mutation_probability: float
    gene_mutation_probability: float
    mutation_sigma: float
    hall_of_fame: int


class SpsaSettings(NamedTuple):
    """The [spsa] table: SPSA's gains and hall of fame (``SPSA_KEYS``; evolve.spsa says what each means)."""

    c: float
    step: float
    hall_of_fame: int


class CmaesSettings(NamedTuple):
    """The [cmaes] table: CMA-ES's step and hall of fame (``CMAES_KEYS`` declares each key)."""

    sigma: float
    hall_of_fame: int


class SelfPlay(NamedTuple):
    """The [self_play] table: the games against the run's own genomes (``SELF_PLAY_KEYS``); weight 0 where the
    config has no such table."""

    against: str
    opponents: int
    games: int
    weight: float
    random_opening: int


class ExecutorSettings(NamedTuple):
    """The [executor] table: where the games run (``EXECUTOR_KEYS``)."""

    scheduler: str


class FitnessSettings(NamedTuple):
    """The [fitness] table: the searcher, the successive halving of the games and how our searcher's
    individuals play (``FITNESS_KEYS``); ``search``: for play = "as-shipped", the search settings of the
    ``settings`` params file as read when the run began (None otherwise)."""

    searcher: SearcherChoice
    rounds: int
    keep: float
    play: PlayMode
    settings: str
    search: Optional[Dict[str, Optional[float]]] = None  # derived by validation


class RegretSettings(NamedTuple):
    """The [regret] table (``REGRET_KEYS``): the positions file, its weight in the fitness, the SHA-256 of the
    file as the run began (a changed file is refused) and how many of its fitness positions are won."""

    positions: str
    weight: float
    digest: str  # derived by validation, as are the fields below
    won: int


class PanelEntry(NamedTuple):
    """One [[panel]] opponent and its games (``PANEL_KEYS``)."""

    opponent: str
    games: int
    weight: float
    random_opening: int
    won_side: bool


class Start(NamedTuple):
    """The [start] table (``START_KEYS``), with the files ``params`` named (for a program individual, its own
    weights file where it holds the genes) and their ``weights``, read once, in the genes' order; ``free``:
    the genes that move where the others are held near their start weights (None: every gene moves); ``parts``:
    what of the first file the genes are (``evolve.params_genes.PARTS``); ``base``: that file as plain data
    where it carries what the genes leave out (a hidden layer, pattern weights, or weights the genes do not
    name), else None."""

    random: float
    params: Tuple[str, ...]  # derived by validation, as are the fields below
    weights: Tuple[Tuple[float, ...], ...]
    free: Optional[Tuple[str, ...]] = None
    parts: Tuple[str, ...] = ("weights",)
    base: Optional[Dict[str, Any]] = None


class ProgramIndividual(NamedTuple):
    """The [individual] table (``INDIVIDUAL_KEYS``), with the agent's ``folder`` (absolute), the ``base`` its
    weights file held when the run began (what it keeps beside the genes), the ``fingerprint`` of its
    code then (``evolve.agents.program_individual.fingerprint``) and, where the genes are constants in its
    code rather than a weights file's, the names or patterns ``constants`` chose them by (empty otherwise)."""

    program: str
    weights_file: str
    sandbox: SandboxMode
    cpu_limit: float
    verdict_games: int
    folder: str  # derived by validation, as are the fields below
    base: Dict[str, object]
    fingerprint: str
    constants: Tuple[str, ...]


# The config's tables of keys, beside the top level's: name -> (schema, record), in the order checked.
CONFIG_TABLES: Dict[str, Tuple[Schema, Type[Any]]] = {
    "ga": (GA_KEYS, GaSettings),
    "cmaes": (CMAES_KEYS, CmaesSettings),
    "spsa": (SPSA_KEYS, SpsaSettings),
    "self_play": (SELF_PLAY_KEYS, SelfPlay),
    "executor": (EXECUTOR_KEYS, ExecutorSettings),
    "fitness": (FITNESS_KEYS, FitnessSettings),
}


# The start weights a run kept when it began (``evolve.checkpoint.load_start_weights``): each row by gene
# name, or, from a run that kept no names, a list in the genes' order.
StartRows = Sequence[Union[Sequence[float], Mapping[str, float]]]


class RecordedStart(NamedTuple):
    """What a run kept of its start when it began: the start weights' ``rows`` and the ``base`` params (plain
    data, None where it carried none), which stand for the [start] files on a resume."""

    rows: StartRows
    base: Optional[Dict[str, Any]] = None


class Config(NamedTuple):
    """A validated experiment config: a field for each top-level key (``TOP_KEYS``), a record for each table
    (``CONFIG_TABLES``), the panel's entries, the names of the genes in genome order and their (low, high) bounds,
    the program individual (None where the genome is our searcher's weights) and the [regret] fitness (None
    where the config has none).

    ``to_json`` and ``from_json`` convert it to and from plain data, the form a checkpoint keeps."""

    # the top-level keys (``TOP_KEYS``)
    name: str
    description: str
    seed: int
    population: int
    generations: int
    strategy: StrategyName
    depth: int
    jobs: int
    black_weight: float
    tapered: bool
    # the tables (``CONFIG_TABLES``)
    ga: GaSettings
    cmaes: CmaesSettings
    spsa: SpsaSettings
    self_play: SelfPlay
    executor: ExecutorSettings
    fitness: FitnessSettings
    # derived by validation
    start: Start
    panel: Tuple[PanelEntry, ...]
    genes: Tuple[str, ...]
    bounds: Dict[str, Tuple[float, float]]
    individual: Optional[ProgramIndividual] = None
    regret: Optional[RegretSettings] = None

    def games(
        self, jobs: Optional[int] = None, scheduler: Optional[str] = None, progress: ProgressOption = True
    ) -> GameSettings:
        """How the run's fitness games are played, as every command that plays games says it (a GameSettings,
        engine.play.settings): ``jobs`` parallel games (None: the config's, else all cores), ``scheduler`` (None: the
        config's [executor], else the local pool), the run's seed, and for a program individual its CPU limit
        and sandbox. Each game's own seed derives from the seed."""
        individual = self.individual
        return GameSettings(
            seed=self.seed,
            jobs=jobs or self.jobs or os.cpu_count() or 1,
            scheduler=scheduler or self.executor.scheduler or None,
            cpu_limit=individual.cpu_limit if individual is not None else COURSE_CPU_LIMIT,
            limits=Limits(mode=individual.sandbox) if individual is not None else None,
            progress=progress,
        )

    def hall_of_fame_size(self) -> int:
        """How many elites the strategy keeps: [ga]'s, [cmaes]'s or [spsa]'s hall_of_fame."""
        size: int = getattr(self, self.strategy).hall_of_fame
        return size

    def to_json(self) -> Dict[str, Any]:
        """The config as plain data (dicts, lists, strings, numbers), as a checkpoint keeps it: readable
        whatever becomes of these classes."""
        data: Dict[str, Any] = {key: row.plain(getattr(self, key)) for key, row in TOP_KEYS.items()}
        data.update((name, _plain_table(getattr(self, name), schema)) for name, (schema, _) in CONFIG_TABLES.items())
        data["start"] = dict(
            self.start._asdict(),
            params=list(self.start.params),
            weights=[list(row) for row in self.start.weights],
            free=None if self.start.free is None else list(self.start.free),
            parts=list(self.start.parts),
            base=copy.deepcopy(self.start.base),
        )
        data["panel"] = [dict(entry._asdict()) for entry in self.panel]
        data["genes"] = list(self.genes)
        data["bounds"] = {gene: list(pair) for gene, pair in self.bounds.items()}
        if self.individual is not None:
            data["individual"] = dict(
                _plain_table(self.individual, INDIVIDUAL_KEYS),
                base=copy.deepcopy(self.individual.base),
                constants=list(self.individual.constants or ()),
            )
        if self.regret is not None:
            data["regret"] = dict(self.regret._asdict())
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Config":
        """The record of plain data as ``to_json`` writes it (a checkpoint's config, which
        ``evolve.checkpoint`` brings up to date first); a key no field names is ignored."""
        start = data["start"]
        individual = data.get("individual")
        return cls(
            **{key: row.typed(data[key]) for key, row in TOP_KEYS.items()},
            **{
                name: _from_table(record, data[name] if name in data else defaults(schema), schema)
                for name, (schema, record) in CONFIG_TABLES.items()
            },
            start=_from_table(Start, start)._replace(
                params=tuple(start["params"]),
                weights=tuple(tuple(float(x) for x in row) for row in start["weights"]),
                free=None if start["free"] is None else tuple(start["free"]),
                parts=tuple(start["parts"]),
                base=copy.deepcopy(start["base"]),
            ),
            panel=tuple(_from_table(PanelEntry, entry) for entry in data["panel"]),
            genes=tuple(data["genes"]),
            bounds={gene: (float(low), float(high)) for gene, (low, high) in data["bounds"].items()},
            individual=None
            if individual is None
            else _from_table(
                ProgramIndividual, dict(individual, constants=tuple(individual.get("constants") or ())), INDIVIDUAL_KEYS
            ),
            regret=None if data.get("regret") is None else _from_table(RegretSettings, data["regret"]),
        )


def _from_table(record: Any, table: Mapping[str, Any], schema: Optional[Schema] = None) -> Any:
    """A record (of a NamedTuple class) of a table of plain data: its fields' values, whatever else the table holds,
    each key of ``schema`` as its row holds it (a closed set's string as its member)."""
    rows = schema or {}
    return record(
        **{field: rows[field].typed(table[field]) if field in rows else table[field] for field in record._fields}
    )


def _plain_table(record: Any, schema: Schema) -> Dict[str, Any]:
    """A table's record as plain data: each key of ``schema`` as its row writes it (a member as its string)."""
    return {
        field: schema[field].plain(value) if field in schema else value for field, value in record._asdict().items()
    }
