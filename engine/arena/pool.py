"""The process pool every parallel command plays its games on.

Forked workers (so they share what the parent imported, and ``multiprocessing-logging``
can reach them) that ignore Ctrl-C: the interrupt is the main process's to handle, and
the workers are terminated with the pool, without printing tracebacks of their own.
"""

import multiprocessing
import signal


def _ignore_interrupts():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def worker_pool(workers):
    """A pool of ``workers`` forked processes that leave Ctrl-C to the parent; use it in a ``with``."""
    return multiprocessing.get_context("fork").Pool(workers, initializer=_ignore_interrupts)
