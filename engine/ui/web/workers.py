"""Processes for the board's Python work, so that nothing a player or a search does can take
the server down: a player that crashes or kills its process, hangs or runs past its time
costs a fresh pool, and the request gets a message instead of an answer, at once for a
process that died.

The processes are spawned (the server has threads: forking it is not safe) and ask the
CPU clock of their own process, so a search's CPU budget is not shared with the server's
other requests. They are a ``concurrent.futures`` pool, which fails a job the moment its
process dies (BrokenProcessPool), where ``multiprocessing.Pool`` would wait out the time.
"""

import multiprocessing
import signal
import threading
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Hashable, List, Optional, Sequence, Tuple, TypeVar

WorkerResult = TypeVar("WorkerResult")


class WorkerTimeout(RuntimeError):
    """A worker's job that did not answer in time; the message says which and how long."""


class WorkerLost(RuntimeError):
    """A worker process that died (killed, or crashed) while it worked; the message says on what."""


class WorkerSuperseded(WorkerTimeout):
    """A job dropped before it began, because a job of another topic (a newer position) was asked for."""


class Workers:
    """A small pool of spawned processes, started on first use, replaced after a timeout or a death."""

    def __init__(self, processes: int = 2):
        self.processes = processes
        self.pool: Optional[ProcessPoolExecutor] = None
        self.lock = threading.Lock()
        self.waiting: List[Tuple[Hashable, Future[object]]] = []  # (topic, job) of the calls given one

    def start(self) -> None:
        """Start the processes now, so that the first request does not wait for them."""
        self._current().submit(int)

    def _current(self) -> ProcessPoolExecutor:
        with self.lock:
            if self.pool is None:
                # The workers leave Ctrl-C to the server, which stops them with the pool.
                self.pool = ProcessPoolExecutor(
                    self.processes,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=signal.signal,
                    initargs=(signal.SIGINT, signal.SIG_IGN),
                )
            return self.pool

    def call(
        self,
        what: str,
        function: Callable[..., WorkerResult],
        args: Sequence[object],
        seconds: float,
        topic: Optional[Hashable] = None,
    ) -> WorkerResult:
        """``function(*args)`` in a worker; its exception if it raises; WorkerTimeout naming
        ``what`` when no answer comes within ``seconds``, WorkerLost when its process dies
        (the pool is then replaced, so the next call gets working processes). ``topic``: what the
        job is about (the board's position); a call of another topic drops the jobs of this one that
        no process has begun (their callers get WorkerSuperseded): the page that asked has moved on,
        and its questions would only delay the new position's."""
        pool = self._current()
        future = pool.submit(function, *args)
        if topic is not None:
            self._supersede(topic, future)
        try:
            return future.result(seconds)
        except CancelledError:
            raise WorkerSuperseded(f"{what} was dropped before it began: a newer position was asked for")
        except FutureTimeout:
            self._replace(pool)
            raise WorkerTimeout(f"{what} gave no answer within {seconds:g} s (stopped)")
        except BrokenProcessPool:
            self._replace(pool)
            raise WorkerLost(f"the process working on {what} was killed or crashed; the next request gets a fresh one")

    def _supersede(self, topic: Hashable, future: "Future[WorkerResult]") -> None:
        with self.lock:
            for earlier, job in self.waiting:
                if earlier != topic:
                    job.cancel()  # False, and nothing done, once a process has begun it
            self.waiting = [(earlier, job) for earlier, job in self.waiting if not job.done()]
            self.waiting.append((topic, future))  # type: ignore[arg-type]  # the list holds any result

    def _replace(self, pool: ProcessPoolExecutor) -> None:
        with self.lock:
            if self.pool is pool:
                self.pool = None
        _stop(pool)

    def close(self) -> None:
        with self.lock:
            pool, self.pool = self.pool, None
        if pool is not None:
            _stop(pool)


def _stop(pool: ProcessPoolExecutor) -> None:
    """End the pool's processes now, a job still running included (``shutdown`` alone waits for it)."""
    manager = getattr(pool, "_executor_manager_thread", None)  # ``shutdown`` forgets it
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14 and later
    if terminate is not None:
        terminate()
    else:
        processes = list((pool._processes or {}).values())  # before 3.14, only the pool's own table has them
        pool.shutdown(wait=False)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(5)
    _join(manager)


def _join(manager: Optional[threading.Thread]) -> None:
    """Wait for the pool's manager thread to end. Left running, it races the interpreter's exit: it closes
    its wake-up pipe while ``concurrent.futures`` writes to it at exit (before Python 3.12, an OSError
    printed as a traceback when Ctrl-C stops ``littlego serve``)."""
    if manager is not None:
        manager.join(10)
