"""A run folder's state: its checkpoint (the whole evolution after a generation) and its lock.

The checkpoint is written and read here only. It is JSON data (``checkpoint.json``), never a pickle,
so that reading a run folder runs none of its author's code, and so that it stays readable when the
classes change: the config as ``Config.to_json`` writes it, each individual as its genes and fitness,
the strategy's state and the random streams' as numbers. The config of an older run's checkpoint is
brought up to date (``_upgrade``) before it becomes a Config. A run from before checkpoints were JSON
left ``checkpoint.pkl``: it is read by an unpickler that admits only the classes such a checkpoint
held (``LEGACY_CLASSES``), refusing any other before any of its code runs, and is then checked as the
JSON is; the run's next checkpoint replaces it.

The lock makes one process at a time the writer of a run folder: a POSIX record lock on
``run.lock``, which the kernel drops when its process dies, so a lock left by a killed run is
simply taken over.
"""

import collections
import datetime
import fcntl
import json
import operator
import os
import random
import socket
import time
from typing import Any, Dict, List, NamedTuple, Optional, Sequence

import numpy
from deap import base, cma, creator, tools

from engine.common.generation_record import GenerationRecord
from engine.common.plain_state import (
    RefusedPickle,
    fields,
    items,
    load_pickle,
    number,
    random_state_from_json,
    random_state_to_json,
    whole_number,
)
from engine.common.runfolder import LOCK, START_WEIGHTS, RunError
from engine.protocol import write_atomic
from evolve import genome
from evolve.experiment.schema import Config, GaSettings, RecordedStart, Start
from evolve.genome import UNRECORDED_GENES, Individual, Strategy
from evolve.spsa import Spsa

CHECKPOINT = "checkpoint.json"
LEGACY_CHECKPOINT = "checkpoint.pkl"  # a run's checkpoint before they were JSON


class Checkpoint(NamedTuple):
    """The whole evolution after a generation: what a resume goes on from as if the run had never stopped.

    The ``config`` the run plays, the ``generation`` just finished, the ``population`` the strategy made for
    the next one, the ``halloffame`` (DEAP's ``HallOfFame``) and ``logbook`` (DEAP's ``Logbook``), the
    ``records`` of every generation so far (kept as their lines of generations.jsonl, which a resume writes
    again), the ``strategy`` (``evolve.genome``; None for a GA, whose state is its population), and the two
    random streams: the evolution's own (``genome.STREAM``, ``random_state``) and numpy's global generator
    (``numpy_state``, which CMA-ES draws from)."""

    config: Config
    generation: int
    population: List[Individual]
    halloffame: Any
    logbook: Any
    records: List[GenerationRecord]
    strategy: Optional[Strategy]
    random_state: Any  # random.Random.getstate()
    numpy_state: Any  # numpy.random.get_state()

    def to_json(self) -> Dict[str, Any]:
        """The checkpoint as JSON data, each field by name."""
        return {
            "config": self.config.to_json(),
            "generation": self.generation,
            "population": [genome.individual_to_json(individual) for individual in self.population],
            "halloffame": {
                "size": self.halloffame.maxsize,
                "individuals": [genome.individual_to_json(individual) for individual in self.halloffame],
            },
            "logbook": {"header": self.logbook.header, "entries": [dict(entry) for entry in self.logbook]},
            "records": [record.to_json() for record in self.records],
            "strategy": genome.strategy_to_json(self.strategy),
            "random_state": random_state_to_json(self.random_state),
            "numpy_state": _numpy_state_to_json(self.numpy_state),
        }

    @classmethod
    def from_json(cls, data: object, path: str) -> "Checkpoint":
        """The checkpoint of ``to_json``'s data, from any run (an older config brought up to date first:
        ``_upgrade``); RunError naming ``path`` and the field where it is not one."""
        if not isinstance(data, dict) or any(key not in data for key in cls._fields):
            raise RunError(f"{path}: not an evolve checkpoint (it lacks the run's state)")
        try:
            config = Config.from_json(_upgrade(data["config"]))
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            raise RunError(f"{path}: not an evolve checkpoint (its config is not one: {type(error).__name__}: {error})")
        records = [
            GenerationRecord.from_json(record, f"{path}: the record of generation {generation}")
            for generation, record in enumerate(_field(path, "records", items, data["records"], "the field"))
        ]
        genes = len(config.genes)

        def individuals(value: object, what: str) -> List[Individual]:
            kept = items(value, what)
            if not kept:
                raise ValueError(f"{what} holds no individual")
            return [genome.individual_from_json(individual, genes) for individual in kept]

        def halloffame(value: object) -> Any:
            kept = fields(value, "the hall of fame", ("size", "individuals"))
            made = tools.HallOfFame(whole_number(kept["size"], "the hall of fame's size"))
            for individual in reversed(individuals(kept["individuals"], "the hall of fame")):
                made.insert(individual)  # worst first: each goes in before those in, ties too, as kept
            return made

        return cls(
            config=config,
            generation=_field(path, "generation", whole_number, data["generation"], "the generation"),
            population=_field(path, "population", individuals, data["population"], "the population"),
            halloffame=_field(path, "halloffame", halloffame, data["halloffame"]),
            logbook=_field(path, "logbook", _logbook, data["logbook"]),
            records=records,
            strategy=_field(path, "strategy", genome.strategy_from_json, config.strategy, data["strategy"], genes),
            random_state=_field(path, "random_state", random_state_from_json, data["random_state"]),
            numpy_state=_field(path, "numpy_state", _numpy_state_from_json, data["numpy_state"]),
        )


def _field(path: str, name: str, read: Any, *args: Any) -> Any:
    """``read(*args)``: one field of a checkpoint read and checked; RunError naming ``path`` and the field."""
    try:
        return read(*args)
    except (AttributeError, KeyError, IndexError, OverflowError, TypeError, ValueError) as error:
        raise RunError(f"{path}: not an evolve checkpoint (its {name}: {error})")


def _logbook(value: object) -> Any:
    """DEAP's Logbook of the header and entries a checkpoint keeps (each entry an object of numbers)."""
    kept = fields(value, "the logbook", ("header", "entries"))
    logbook = tools.Logbook()
    header = kept["header"]
    if header is not None and not (isinstance(header, list) and all(isinstance(name, str) for name in header)):
        raise ValueError("its header is a list of names or null")
    logbook.header = header
    for entry in items(kept["entries"], "its entries"):
        logbook.record(
            **{name: number(value, f"its entry's {name}") for name, value in fields(entry, "an entry", ()).items()}
        )
    return logbook


def _numpy_state_to_json(state: Any) -> List[Any]:
    """``numpy.random.get_state()`` as JSON data: [its generator's name, its 624 words, and three numbers]."""
    name, keys, position, has_gauss, cached_gaussian = state
    return [name, [int(key) for key in keys], int(position), int(has_gauss), float(cached_gaussian)]


def _numpy_state_from_json(data: object) -> Any:
    """The ``numpy.random.set_state`` argument of ``_numpy_state_to_json``'s data; ValueError where it is not one."""
    kept = items(data, "numpy's random state")
    if len(kept) != 5 or kept[0] != "MT19937":
        raise ValueError("numpy's random state is ['MT19937', [624 words], position, has_gauss, cached_gaussian]")
    words = items(kept[1], "numpy's random words")
    if not all(isinstance(word, int) and not isinstance(word, bool) and 0 <= word < 2**32 for word in words):
        raise ValueError("numpy's random words are integers from 0 to 2**32 - 1")
    state = (
        kept[0],
        numpy.array(words, dtype=numpy.uint32),
        whole_number(kept[2], "numpy's random position"),
        whole_number(kept[3], "numpy's has_gauss"),
        float(number(kept[4], "numpy's cached gaussian")),
    )
    numpy.random.RandomState().set_state(state)  # whatever else the generator refuses
    return state


def save_checkpoint(run_dir: str, checkpoint: Checkpoint) -> None:
    """Write the checkpoint atomically (a kill leaves the previous one whole); an older run's pickled
    checkpoint, which it replaces, goes."""
    write_atomic(os.path.join(run_dir, CHECKPOINT), json.dumps(checkpoint.to_json(), separators=(",", ":")) + "\n")
    try:
        os.remove(os.path.join(run_dir, LEGACY_CHECKPOINT))
    except FileNotFoundError:
        pass


def has_checkpoint(run_dir: str) -> bool:
    """Whether the run in ``run_dir`` has checkpointed a generation (in either format)."""
    return any(os.path.exists(os.path.join(run_dir, name)) for name in (CHECKPOINT, LEGACY_CHECKPOINT))


def load_checkpoint(run_dir: str) -> Checkpoint:
    """The checkpoint a run last wrote; RunError saying what is wrong with the folder or file."""
    if not os.path.isdir(run_dir):
        raise RunError(f"{run_dir}: no such run folder")
    path = os.path.join(run_dir, CHECKPOINT)
    if not os.path.exists(path):
        if os.path.exists(os.path.join(run_dir, LEGACY_CHECKPOINT)):
            return _load_legacy(os.path.join(run_dir, LEGACY_CHECKPOINT))
        raise RunError(f"{run_dir}: no checkpoint (not a run folder, or the run never finished generation 0)")
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as error:
        raise RunError(f"{path}: cannot read: {error.strerror or error}")
    except (ValueError, RecursionError) as error:  # not UTF-8, not JSON, or nested past reading
        raise RunError(f"{path}: not a readable checkpoint (not JSON: {error})")
    return Checkpoint.from_json(data, path)


def _made_by_creator(name: str, base_class: Any, attributes: Any) -> Any:
    """What a pickle that names ``deap.creator.meta_create`` gets: the class of that name genome made, never
    one the pickle describes."""
    if name not in ("Individual", "WinThenMargin"):
        raise RefusedPickle(f"it makes a DEAP class {name!r}, which no checkpoint holds")
    return getattr(creator, name)


def _numpy_names() -> Dict[Any, Any]:
    """numpy's functions that rebuild its arrays and numbers, by each name its pickles give them (numpy 1's
    ``numpy.core``, numpy 2's ``numpy._core``)."""
    try:
        from numpy._core import multiarray, numeric
    except ImportError:  # numpy 1
        from numpy.core import multiarray, numeric  # type: ignore[no-redef]
    made = {}
    for module in ("numpy._core", "numpy.core"):
        made[(module + ".multiarray", "_reconstruct")] = multiarray._reconstruct
        made[(module + ".multiarray", "scalar")] = multiarray.scalar
        made[(module + ".numeric", "_frombuffer")] = numeric._frombuffer  # type: ignore[attr-defined]
    return made


# What an evolve checkpoint of before JSON names (DEAP 1.3 and 1.4, numpy 1 and 2): all a pickled one may.
LEGACY_CLASSES: Dict[Any, Any] = {
    ("builtins", "list"): list,
    ("collections", "defaultdict"): collections.defaultdict,
    ("_operator", "eq"): operator.eq,
    ("random", "Random"): random.Random,
    ("numpy", "dtype"): numpy.dtype,
    ("numpy", "ndarray"): numpy.ndarray,
    **_numpy_names(),
    ("deap.base", "Fitness"): base.Fitness,
    ("deap.creator", "meta_create"): _made_by_creator,
    ("deap.creator", "Individual"): creator.Individual,
    ("deap.creator", "WinThenMargin"): creator.WinThenMargin,
    ("deap.tools.support", "HallOfFame"): tools.HallOfFame,
    ("deap.tools.support", "Logbook"): tools.Logbook,
    ("deap.cma", "Strategy"): cma.Strategy,
    ("evolve.genome", "GeneticStrategy"): genome.GeneticStrategy,
    ("evolve.spsa", "Spsa"): Spsa,
    ("evolve.experiment.schema", "GaSettings"): GaSettings,
    ("evolve.experiment.schema", "Start"): Start,
}


def _load_legacy(path: str) -> Checkpoint:
    """The checkpoint of an older run's ``checkpoint.pkl``: unpickled admitting LEGACY_CLASSES alone, then
    made JSON data and read as a JSON checkpoint is; RunError naming ``path`` where it is not one."""
    try:
        with open(path, "rb") as handle:
            state = load_pickle(handle, LEGACY_CLASSES)
    except OSError as error:
        raise RunError(f"{path}: cannot read: {error.strerror or error}")
    except RefusedPickle as error:
        raise RunError(f"{path}: not an evolve checkpoint: {error} (refused before any of it ran)")
    except Exception as error:  # unpickling can raise almost anything on a damaged file
        raise RunError(f"{path}: not a readable checkpoint ({type(error).__name__}: {error})")
    if not isinstance(state, dict) or any(key not in state for key in Checkpoint._fields):
        raise RunError(f"{path}: not an evolve checkpoint (it lacks the run's state)")
    try:
        data = _plain(
            dict(
                state,
                population=[genome.individual_to_json(individual) for individual in state["population"]],
                halloffame={
                    "size": state["halloffame"].maxsize,
                    "individuals": [genome.individual_to_json(individual) for individual in state["halloffame"]],
                },
                logbook={"header": state["logbook"].header, "entries": [dict(entry) for entry in state["logbook"]]},
                strategy=_legacy_strategy(state["strategy"]),
                random_state=random_state_to_json(state["random_state"]),
                numpy_state=_numpy_state_to_json(state["numpy_state"]),
            )
        )
    except (AttributeError, KeyError, IndexError, OverflowError, RecursionError, TypeError, ValueError) as error:
        raise RunError(f"{path}: not an evolve checkpoint ({type(error).__name__}: {error})")
    return Checkpoint.from_json(data, path)


def _legacy_strategy(strategy: object) -> Optional[Dict[str, Any]]:
    """A pickled strategy's state as JSON data (an SPSA from before it was: its fields as they were)."""
    if isinstance(strategy, Spsa):
        return dict(vars(strategy), rng=random_state_to_json(strategy.rng.getstate()))
    if strategy is None or isinstance(strategy, (genome.GeneticStrategy, cma.Strategy)):
        return genome.strategy_to_json(strategy)
    raise ValueError(f"its strategy is a {type(strategy).__name__}")


def _plain(value: Any) -> Any:
    """Unpickled data as JSON would read it back: tuples as lists, numpy's numbers as Python's."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, numpy.generic):
        return value.item()
    return value


def _upgrade(config: Dict[str, Any]) -> Dict[str, Any]:
    """A checkpoint's config (plain data) with what older runs lack, as those runs played it; the config."""
    if "workers" in config:  # checkpoints from before 'workers' was renamed 'jobs'
        config["jobs"] = config.pop("workers")
    config.setdefault("executor", {"scheduler": ""})  # checkpoints from before executors existed
    config.setdefault("fitness", {"searcher": "python"})  # and from before the compiled searcher
    if "engine" in config["fitness"]:  # and from before [fitness] engine was renamed searcher
        config["fitness"]["searcher"] = config["fitness"].pop("engine")
    config["fitness"].setdefault("rounds", 1)
    config["fitness"].setdefault("keep", 0.5)
    config["fitness"].setdefault("play", "depth")  # and from before fitness as shipped
    config["fitness"].setdefault("settings", "")
    config["fitness"].setdefault("search", None)
    config.setdefault("black_weight", 1.0)  # and from before colour weighting
    config.setdefault("tapered", False)  # and from before tapered weights
    config.setdefault("genes", list(UNRECORDED_GENES))  # and from before the genes' names were kept
    config.setdefault("start", {"random": 0.0, "params": [], "weights": []})  # and from before [start]
    config["start"].setdefault("free", None)  # and from before [start] free
    config["start"].setdefault("parts", ["weights"])  # and from before [start] parts
    config["start"].setdefault("base", None)
    for entry in config["panel"]:
        entry.setdefault("won_side", False)  # and from before won-side games
    return config


def save_start_weights(run_dir: str, start: Start, genes: Sequence[str]) -> None:
    """Keep the weights ``[start] params`` named as they were read (``start``: the config's Start), the
    names of their genes and the base params the genes leave out, so that a resume before the first
    checkpoint starts from them and not from the files as they are by then."""
    kept = {"params": list(start.params), "genes": list(genes), "weights": [list(row) for row in start.weights]}
    if start.base is not None:
        kept["base"] = start.base
    write_atomic(os.path.join(run_dir, START_WEIGHTS), json.dumps(kept, indent=1) + "\n")


def load_start_weights(run_dir: str) -> Optional[RecordedStart]:
    """The start a run kept when it began (None: it names no params files): each row of weights by gene
    name (from a run that kept no names, the list it kept) and the base params, where it kept one."""
    path = os.path.join(run_dir, START_WEIGHTS)
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        rows, genes, base = data["weights"], data.get("genes"), data.get("base")
        if genes is None:
            return RecordedStart(rows)
        if not all(isinstance(row, list) and len(row) == len(genes) for row in rows):
            raise ValueError(f"rows of other lengths than its {len(genes)} genes")
        if base is not None and not isinstance(base, dict):
            raise ValueError("its base is not a params object")
        return RecordedStart([dict(zip(genes, row)) for row in rows], base)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise RunError(f"{path}: cannot read the start weights the run kept: {error}")


class RunLock:
    """The exclusive right to write a run folder, held until ``release`` or the process ends."""

    def __init__(self, run_dir: str) -> None:
        self.path = os.path.join(run_dir, LOCK)
        self.fd: Optional[int] = None

    def acquire(self) -> "RunLock":
        """Take the lock; RunError naming the holder when another live process has it."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            # A record lock (not flock): pool workers forked later do not inherit it.
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = ""
            for _ in range(20):  # the holder may be writing its name this very moment
                holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
                if holder:
                    break
                time.sleep(0.05)
            os.close(fd)
            holder = holder or "another process"
            raise RunError(
                "{}: the run is in use by {}; wait for it to finish or stop it first".format(
                    os.path.dirname(self.path) or ".", holder
                )
            )
        os.ftruncate(fd, 0)
        since = datetime.datetime.now().replace(microsecond=0).isoformat()
        os.write(
            fd,
            f"process {os.getpid()} on {socket.gethostname()} since {since}\n".encode(),
        )
        self.fd = fd
        return self

    def release(self) -> None:
        """Give the lock up (a lock not held: nothing to do)."""
        if self.fd is not None:
            os.close(self.fd)  # closing drops the record lock
            self.fd = None
