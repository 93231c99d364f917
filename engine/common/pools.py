"""The one way the tools make a process pool.

Workers ignore Ctrl-C and die quietly on SIGTERM: an interrupt (or a ``kill`` of the command,
which the command line turns into one) is the main process's to handle, and the workers end
with the pool, without printing tracebacks of their own. Games run in forked workers (they
share what the parent imported, and ``multiprocessing-logging`` reaches them); the compiled
solver's workers are spawned, so that each starts small beside its large table.
"""

import multiprocessing
import os
import signal


def _start_worker(initializer, initargs):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the pool ends its workers so; the parent's stop is its own
    if initializer is not None:
        initializer(*initargs)


def process_pool(workers, start="fork", initializer=None, initargs=()):
    """A pool of ``workers`` processes started by ``start`` ("fork" or "spawn") that leave Ctrl-C
    to the parent, each first running ``initializer(*initargs)`` if given; use it in a ``with``,
    or terminate it."""
    return multiprocessing.get_context(start).Pool(workers, initializer=_start_worker, initargs=(initializer, initargs))


def cpu_with_children():
    """CPU seconds of this process and of its finished child processes (the compiled solver's included)."""
    times = os.times()
    return times[0] + times[1] + times[2] + times[3]
