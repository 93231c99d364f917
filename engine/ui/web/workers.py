"""Processes for the board's Python work, so that nothing a player or a search does can take
the server down: a player that crashes its process, hangs or runs past its time costs a
fresh pool, and the request gets a message instead of an answer.

The processes are spawned (the server has threads: forking it is not safe) and ask the
CPU clock of their own process, so a search's CPU budget is not shared with the server's
other requests.
"""

import multiprocessing
import threading

from engine.common.pools import process_pool


class WorkerTimeout(RuntimeError):
    """A worker's job that did not answer in time; the message says which and how long."""


class Workers(object):
    """A small pool of spawned processes, started on first use and restarted after a timeout."""

    def __init__(self, processes=2):
        self.processes = processes
        self.pool = None
        self.lock = threading.Lock()

    def start(self):
        """Start the processes now, so that the first request does not wait for them."""
        self._current()

    def _current(self):
        with self.lock:
            if self.pool is None:
                self.pool = process_pool(self.processes, start="spawn")
            return self.pool

    def call(self, what, function, args, seconds):
        """``function(*args)`` in a worker; its exception if it raises; WorkerTimeout naming
        ``what`` when no answer comes within ``seconds`` (the pool is then replaced)."""
        pool = self._current()
        pending = pool.apply_async(function, args)
        try:
            return pending.get(seconds)
        except multiprocessing.TimeoutError:
            self._replace(pool)
            raise WorkerTimeout("{} gave no answer within {:g} s (stopped)".format(what, seconds))

    def _replace(self, pool):
        with self.lock:
            if self.pool is pool:
                self.pool = None
        pool.terminate()

    def close(self):
        with self.lock:
            pool, self.pool = self.pool, None
        if pool is not None:
            pool.terminate()
            pool.join()
