"""The experiment config's keys and records: each key one row of its table's schema (``_TOP``, ``_GA``,
...: its type, default, check and range in words), each record (``Config``, ``GaSettings``,
``PanelEntry``, ...) with a field for each row. ``evolve.config`` validates a TOML file into them.
"""

import copy
import os
from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional, Sequence, Tuple, Type, Union

from engine.constants import COURSE_CPU_LIMIT, MAX_MOVES
from engine.params import SEARCH_SETTINGS
from engine.play.executors import SCHEDULER_FORMS, check_scheduler
from engine.play.settings import GameSettings, Progress
from engine.players.searcher import ENGINES
from engine.sandbox.limits import MODES, Limits

_DEPTH = SEARCH_SETTINGS["depth"]  # the fitness games' depth takes the search setting's range


class ConfigKey(NamedTuple):
    """One key of an experiment config's table, declared once: its type, its default and the values it
    may take. Each key is also a field of its table's record, of the key's type and in the table's order
    (the records below; the tests hold each record to its table)."""

    kind: type  # int, float, str or bool (an integer is read as a float where the key is a float)
    default: Any  # None: the key is required
    check: Optional[Callable[[Any], object]] = None  # whether a value of the kind is allowed
    range_words: str = ""  # the values allowed, in words, as an error states them


# A table's keys: name -> its row.
Schema = Dict[str, ConfigKey]

STRATEGIES = ("ga", "cmaes", "spsa")
_TOP: Schema = {
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
        kind=int, default=None, check=lambda v: 1 <= v <= 100000, range_words="1 to 100000 (after generation 0)"
    ),
    "strategy": ConfigKey(
        kind=str, default="cmaes", check=lambda v: v in STRATEGIES, range_words="'ga', 'cmaes' or 'spsa'"
    ),
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
_GA: Schema = {
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
_SPSA: Schema = {
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
_CMAES: Schema = {
    "sigma": ConfigKey(
        kind=float, default=0.05, check=lambda v: 0 < v <= 1, range_words="in (0, 1]: a share of the bounds' range"
    ),
    "hall_of_fame": ConfigKey(kind=int, default=2, check=lambda v: v >= 1, range_words="at least 1"),
}
_PANEL: Schema = {
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
_SELF_PLAY: Schema = {
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


def _scheduler(value: str) -> bool:
    try:
        return value == "" or bool(check_scheduler(value))
    except ValueError:
        return False


PLAYS = ("depth", "as-shipped")
AS_SHIPPED = (
    "(the book, the evaluation search with the depth, CPU budget, cap and close_stones of 'fitness.settings' "
    "counted in nodes, exact play from its solve_from: engine.players.shipped)"
)
FITNESS_SEARCHERS = ("auto",) + ENGINES  # auto: native where it can be built, python (warned) where not
_FITNESS: Schema = {
    "searcher": ConfigKey(
        kind=str,
        default="auto",
        check=lambda v: v in FITNESS_SEARCHERS,
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
    # How our searcher's individuals play: a plain search to `depth`, or as the agent ships (PLAYS).
    "play": ConfigKey(
        kind=str,
        default="depth",
        check=lambda v: v in PLAYS,
        range_words="'depth' (a plain search to 'depth') or 'as-shipped' " + AS_SHIPPED,
    ),
    "settings": ConfigKey(
        kind=str, default="", check=lambda v: "\0" not in v, range_words="a params file ('': the shipped params.json)"
    ),
}
# The exact regret fitness: the share of a positions file's won positions where the individual keeps the win.
_REGRET: Schema = {
    "positions": ConfigKey(
        kind=str,
        default=None,
        check=lambda v: v.strip() and "\0" not in v,
        range_words="a positions file from 'evolve positions'",
    ),
    "weight": ConfigKey(
        kind=float,
        default=1.0,
        check=lambda v: 0 < v <= 1e6,
        range_words="positive, at most 1e6 (its share of the fitness)",
    ),
}
_START: Schema = {
    "random": ConfigKey(
        kind=float,
        default=0.0,
        check=lambda v: 0 <= v <= 1,
        range_words="in [0, 1]: the share of the population beyond the start weights drawn at random from the bounds",
    ),
}
_EXECUTOR: Schema = {
    "scheduler": ConfigKey(
        kind=str, default="", check=_scheduler, range_words="'' (the local process pool), " + SCHEDULER_FORMS
    ),
}
# A course agent whose own weights file holds the genome (evolve.agents.program_individual); [individual.bounds]
# name the genes.
_INDIVIDUAL: Schema = {
    "program": ConfigKey(
        kind=str,
        default=None,
        check=lambda v: v.strip() and "\0" not in v,
        range_words="an agent folder, relative to where evolve runs",
    ),
    "weights_file": ConfigKey(kind=str, default="weights.json"),
    "sandbox": ConfigKey(
        kind=str,
        default="auto",
        check=lambda v: v in MODES,
        range_words="'auto', 'strict' or 'off', as littlego grade's --sandbox",
    ),
    "cpu_limit": ConfigKey(
        kind=float,
        default=COURSE_CPU_LIMIT,
        check=lambda v: 0 < v <= COURSE_CPU_LIMIT,
        range_words=f"CPU seconds a move, above 0 and at most the course's {COURSE_CPU_LIMIT:g}",
    ),
}


class GaSettings(NamedTuple):
    """The [ga] table: the genetic algorithm's operators (``_GA`` declares each key)."""

    tournament_size: int
    crossover_probability: float
    blend_alpha: float
    mutation_probability: float
    gene_mutation_probability: float
    mutation_sigma: float
    hall_of_fame: int


class SpsaSettings(NamedTuple):
    """The [spsa] table: SPSA's gains and hall of fame (``_SPSA``; evolve.spsa says what each means)."""

    c: float
    step: float
    hall_of_fame: int


class CmaesSettings(NamedTuple):
    """The [cmaes] table: CMA-ES's step and hall of fame (``_CMAES`` declares each key)."""

    sigma: float
    hall_of_fame: int


class SelfPlay(NamedTuple):
    """The [self_play] table: the games against the run's own genomes (``_SELF_PLAY``); weight 0 where the
    config has no such table."""

    against: str
    opponents: int
    games: int
    weight: float
    random_opening: int


class ExecutorSettings(NamedTuple):
    """The [executor] table: where the games run (``_EXECUTOR``)."""

    scheduler: str


class FitnessSettings(NamedTuple):
    """The [fitness] table: the searcher, the successive halving of the games and how our searcher's
    individuals play (``_FITNESS``); ``search``: for play = "as-shipped", the search settings of the
    ``settings`` params file as read when the run began (None otherwise)."""

    searcher: str
    rounds: int
    keep: float
    play: str
    settings: str
    search: Optional[Dict[str, Optional[float]]] = None  # derived by validation


class RegretSettings(NamedTuple):
    """The [regret] table (``_REGRET``): the positions file, its weight in the fitness, the SHA-256 of the
    file as the run began (a changed file is refused) and how many of its fitness positions are won."""

    positions: str
    weight: float
    digest: str  # derived by validation, as are the fields below
    won: int


class PanelEntry(NamedTuple):
    """One [[panel]] opponent and its games (``_PANEL``)."""

    opponent: str
    games: int
    weight: float
    random_opening: int
    won_side: bool


class Start(NamedTuple):
    """The [start] table (``_START``), with the files ``params`` named (for a program individual, its own
    weights file where it holds the genes) and their ``weights``, read once, in the genes' order; ``free``:
    the genes that move where the others are held near their start weights (None: every gene moves)."""

    random: float
    params: Tuple[str, ...]  # derived by validation, as are the fields below
    weights: Tuple[Tuple[float, ...], ...]
    free: Optional[Tuple[str, ...]] = None


class ProgramIndividual(NamedTuple):
    """The [individual] table (``_INDIVIDUAL``), with the agent's ``folder`` (absolute), the ``base`` its
    weights file held when the run began (what it keeps beside the genes), the ``fingerprint`` of its
    code then (``evolve.agents.program_individual.fingerprint``) and, where the genes are constants in its
    code rather than a weights file's, the names or patterns ``constants`` chose them by (empty otherwise)."""

    program: str
    weights_file: str
    sandbox: str
    cpu_limit: float
    folder: str  # derived by validation, as are the fields below
    base: Dict[str, object]
    fingerprint: str
    constants: Tuple[str, ...]


# The config's tables of keys, beside the top level's: name -> (schema, record), in the order checked.
_TABLES: Dict[str, Tuple[Schema, Type[Any]]] = {
    "ga": (_GA, GaSettings),
    "cmaes": (_CMAES, CmaesSettings),
    "spsa": (_SPSA, SpsaSettings),
    "self_play": (_SELF_PLAY, SelfPlay),
    "executor": (_EXECUTOR, ExecutorSettings),
    "fitness": (_FITNESS, FitnessSettings),
}


# The start weights a run kept when it began (``evolve.checkpoint.load_start_weights``): each row by gene
# name, or, from a run that kept no names, a list in the genes' order.
StartRows = Sequence[Union[Sequence[float], Mapping[str, float]]]


class Config(NamedTuple):
    """A validated experiment config: a field for each top-level key (``_TOP``), a record for each table
    (``_TABLES``), the panel's entries, the names of the genes in genome order and their (low, high) bounds,
    the program individual (None where the genome is our searcher's weights) and the [regret] fitness (None
    where the config has none).

    ``to_json`` and ``from_json`` convert it to and from plain data, the form a checkpoint keeps."""

    # the top-level keys (``_TOP``)
    name: str
    description: str
    seed: int
    population: int
    generations: int
    strategy: str
    depth: int
    jobs: int
    black_weight: float
    tapered: bool
    # the tables (``_TABLES``)
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
        self, jobs: Optional[int] = None, scheduler: Optional[str] = None, progress: Progress = True
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
        return getattr(self, self.strategy).hall_of_fame

    def to_json(self) -> Dict[str, Any]:
        """The config as plain data (dicts, lists, strings, numbers), as a checkpoint keeps it: readable
        whatever becomes of these classes."""
        data: Dict[str, Any] = {key: getattr(self, key) for key in _TOP}
        data.update((name, dict(getattr(self, name)._asdict())) for name in _TABLES)
        data["start"] = dict(
            self.start._asdict(),
            params=list(self.start.params),
            weights=[list(row) for row in self.start.weights],
            free=None if self.start.free is None else list(self.start.free),
        )
        data["panel"] = [dict(entry._asdict()) for entry in self.panel]
        data["genes"] = list(self.genes)
        data["bounds"] = {gene: list(pair) for gene, pair in self.bounds.items()}
        if self.individual is not None:
            data["individual"] = dict(
                self.individual._asdict(),
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
            **{key: data[key] for key in _TOP},
            **{
                name: _from_table(record, data[name] if name in data else _defaults(schema))
                for name, (schema, record) in _TABLES.items()
            },
            start=_from_table(Start, start)._replace(
                params=tuple(start["params"]),
                weights=tuple(tuple(float(x) for x in row) for row in start["weights"]),
                free=None if start["free"] is None else tuple(start["free"]),
            ),
            panel=tuple(_from_table(PanelEntry, entry) for entry in data["panel"]),
            genes=tuple(data["genes"]),
            bounds={gene: (float(low), float(high)) for gene, (low, high) in data["bounds"].items()},
            individual=None
            if individual is None
            else _from_table(ProgramIndividual, dict(individual, constants=tuple(individual.get("constants") or ()))),
            regret=None if data.get("regret") is None else _from_table(RegretSettings, data["regret"]),
        )


def _defaults(schema: Schema) -> Dict[str, Any]:
    """A table of ``schema``'s defaults: what a config written before the table existed had."""
    return {key: row.default for key, row in schema.items()}


def _from_table(record: Any, table: Mapping[str, Any]) -> Any:
    """A record (of a NamedTuple class) of a table of plain data: its fields' values, whatever else the table holds."""
    return record(**{field: table[field] for field in record._fields})
