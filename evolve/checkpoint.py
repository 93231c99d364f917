"""A run folder's state: its checkpoint (the whole evolution after a generation) and its lock.

The checkpoint is written and read here only. It keeps the config as plain data (``Config.to_json``),
never as a pickle of the record's classes, so that it stays readable when they change; the config of
an older run's checkpoint is brought up to date (``_upgrade``) before it becomes a Config.

The lock makes one process at a time the writer of a run folder: a POSIX record lock on
``run.lock``, which the kernel drops when its process dies, so a lock left by a killed run is
simply taken over.
"""

import datetime
import fcntl
import json
import os
import pickle
import socket
import time
from typing import Any, Dict, List, NamedTuple, Optional, Sequence

from engine.common.generation_record import GenerationRecord
from engine.common.runfolder import LOCK, START_WEIGHTS, RunError
from engine.protocol import write_atomic
from evolve.experiment.schema import Config, Start, StartRows
from evolve.genome import UNRECORDED_GENES, Individual, Strategy

CHECKPOINT = "checkpoint.pkl"


class Checkpoint(NamedTuple):
    """The whole evolution after a generation: what a resume goes on from as if the run had never stopped.

    The ``config`` the run plays (kept as plain data, ``Config.to_json``), the ``generation`` just finished,
    the ``population`` the strategy made for the next one, the ``halloffame`` (DEAP's ``HallOfFame``) and
    ``logbook`` (DEAP's ``Logbook``), the ``records`` of every generation so far (kept as their lines of
    generations.jsonl, which a resume writes again), the ``strategy`` (``evolve.genome``; None in a GA run's
    checkpoint from before the GA was one), and the two random streams: the evolution's own
    (``genome.STREAM``, ``random_state``) and numpy's global generator (``numpy_state``, which CMA-ES draws
    from)."""

    config: Config
    generation: int
    population: List[Individual]
    halloffame: Any
    logbook: Any
    records: List[GenerationRecord]
    strategy: Optional[Strategy]
    random_state: Any  # random.Random.getstate()
    numpy_state: Any  # numpy.random.get_state()

    def to_pickled(self) -> Dict[str, Any]:
        """The dict a checkpoint file pickles: each field by name, the config and the records as plain data."""
        return dict(
            self._asdict(),
            config=self.config.to_json(),
            records=[record.to_json() for record in self.records],
        )

    @classmethod
    def from_pickled(cls, state: object, path: str) -> "Checkpoint":
        """The checkpoint of an unpickled file's dict, from any run (an older config brought up to date
        first: ``_upgrade``); RunError naming ``path`` where it is not one."""
        if not isinstance(state, dict) or any(key not in state for key in cls._fields):
            raise RunError(f"{path}: not an evolve checkpoint (it lacks the run's state)")
        try:
            config = Config.from_json(_upgrade(state["config"]))
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            raise RunError(f"{path}: not an evolve checkpoint (its config is not one: {type(error).__name__}: {error})")
        records = [
            GenerationRecord.from_json(record, f"{path}: the record of generation {number}")
            for number, record in enumerate(state["records"])
        ]
        kept = {key: state[key] for key in cls._fields}  # a key no field names is ignored, as it always was
        return cls(**dict(kept, config=config, records=records))


def save_checkpoint(run_dir: str, checkpoint: Checkpoint) -> None:
    """Write the checkpoint atomically: a kill leaves the previous one whole."""
    write_atomic(
        os.path.join(run_dir, CHECKPOINT), pickle.dumps(checkpoint.to_pickled(), protocol=pickle.HIGHEST_PROTOCOL)
    )


def load_checkpoint(run_dir: str) -> Checkpoint:
    """The checkpoint a run last wrote; RunError saying what is wrong with the folder or file."""
    if not os.path.isdir(run_dir):
        raise RunError(f"{run_dir}: no such run folder")
    path = os.path.join(run_dir, CHECKPOINT)
    if not os.path.exists(path):
        raise RunError(f"{run_dir}: no checkpoint (not a run folder, or the run never finished generation 0)")
    try:
        with open(path, "rb") as handle:
            state = pickle.load(handle)
    except OSError as error:
        raise RunError(f"{path}: cannot read: {error.strerror or error}")
    except Exception as error:  # unpickling can raise almost anything on a damaged file
        raise RunError(f"{path}: not a readable checkpoint ({type(error).__name__}: {error})")
    return Checkpoint.from_pickled(state, path)


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
    for entry in config["panel"]:
        entry.setdefault("won_side", False)  # and from before won-side games
    return config


def save_start_weights(run_dir: str, start: Start, genes: Sequence[str]) -> None:
    """Keep the weights ``[start] params`` named as they were read (``start``: the config's Start), and
    the names of their genes, so that a resume before the first checkpoint starts from them and not
    from the files as they are by then."""
    write_atomic(
        os.path.join(run_dir, START_WEIGHTS),
        json.dumps(
            {"params": list(start.params), "genes": list(genes), "weights": [list(row) for row in start.weights]},
            indent=1,
        )
        + "\n",
    )


def load_start_weights(run_dir: str) -> Optional[StartRows]:
    """The start weights a run kept when it began (None: it names no params files): each row by
    gene name, or, from a run that kept no names, the list it kept."""
    path = os.path.join(run_dir, START_WEIGHTS)
    if not os.path.exists(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        rows, genes = data["weights"], data.get("genes")
        if genes is None:
            return rows
        if not all(isinstance(row, list) and len(row) == len(genes) for row in rows):
            raise ValueError(f"rows of other lengths than its {len(genes)} genes")
        return [dict(zip(genes, row)) for row in rows]
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
