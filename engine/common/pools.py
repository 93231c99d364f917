"""The one way the tools make a process pool.

Workers ignore Ctrl-C and die quietly on SIGTERM: an interrupt (or a ``kill`` of the command,
which the command line turns into one) is the main process's to handle, and the workers end
with the pool, without printing tracebacks of their own. Games run in forked workers (they
share what the parent imported, and ``multiprocessing-logging`` reaches them); the compiled
solver's workers are spawned, so that each starts small beside its large table.

What jobs cost is measured in the workers: ``measured_map`` runs each job under ``measured_call``,
which reads ``cpu_of_process_tree`` (the worker, its finished children, its live descendants, such
as the compiled solver it keeps or a program's sandbox, and the sandboxes it killed at their games' end)
before and after, and adds it to a CpuMeter.
"""

import multiprocessing
import multiprocessing.pool
import os
import signal
from typing import Any, Callable, Iterable, Iterator, List, NamedTuple, Optional, Tuple, TypeVar, cast

from engine.sandbox.process import children_of, killed_trees_cpu, tree_cpu

Job = TypeVar("Job")
JobResult = TypeVar("JobResult")


def _start_worker(initializer: Optional[Callable[..., object]], initargs: Tuple[object, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the pool ends its workers so; the parent's stop is its own
    if initializer is not None:
        initializer(*initargs)


def process_pool(
    workers: int,
    start: str = "fork",
    initializer: Optional[Callable[..., object]] = None,
    initargs: Tuple[object, ...] = (),
    tasks_per_worker: Optional[int] = None,
) -> multiprocessing.pool.Pool:
    """A pool of ``workers`` processes started by ``start`` ("fork" or "spawn") that leave Ctrl-C
    to the parent, each first running ``initializer(*initargs)`` if given, and replaced by a fresh one
    after ``tasks_per_worker`` jobs (None: never); use it in a ``with``, or terminate it."""
    return multiprocessing.get_context(start).Pool(
        workers, initializer=_start_worker, initargs=(initializer, initargs), maxtasksperchild=tasks_per_worker
    )


def cpu_with_children() -> float:
    """CPU seconds of this process and of its finished child processes (the compiled solver's included)."""
    times = os.times()
    return times[0] + times[1] + times[2] + times[3]


def cpu_of_process_tree() -> float:
    """CPU seconds of this process (every thread), of its finished children, of every descendant still
    running (a compiled solver, a game's sandbox) and of the descendants it killed (a game's sandbox, ended
    with its game: ``count_killed_tree``): what work done here has cost so far. Where Linux's /proc does not
    list children, the running descendants are left out."""
    total = cpu_with_children() + killed_trees_cpu()
    for pid in children_of(os.getpid()):
        total += tree_cpu(pid)
    return total


class CpuMeter:
    """The CPU seconds workers spent on jobs (theirs and the processes under them), summed by measured_map."""

    def __init__(self) -> None:
        self.seconds = 0.0


class Measured(NamedTuple):
    """A job's outcome (or its failure's text) and the CPU seconds its worker spent on it."""

    outcome: object
    cpu_seconds: float


def measured_call(call: Tuple[Callable[[Job], object], Job]) -> Measured:
    """Worker: ``call`` is (function, job); the function's outcome for the job, with the CPU its process and
    the processes under it spent meanwhile (exact where a worker runs one job at a time)."""
    function, job = call
    before = cpu_of_process_tree()
    outcome = function(job)
    return Measured(outcome, cpu_of_process_tree() - before)


def measured_map(
    map_function: Callable[[Callable[[Any], Measured], List[Any]], Iterable[object]],
    function: Callable[[Job], JobResult],
    jobs: Iterable[Job],
    meter: CpuMeter,
) -> Iterator[JobResult]:
    """The outcomes of ``function`` over ``jobs`` through ``map_function``, their CPU added to ``meter``. A
    result that is no Measured (a map standing in for an executor, in the tests) is kept as the outcome."""
    for result in map_function(measured_call, [(function, job) for job in jobs]):
        if isinstance(result, Measured):
            meter.seconds += result.cpu_seconds
            result = result.outcome
        yield cast(JobResult, result)
