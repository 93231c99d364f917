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


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _live_processes():
    """{pid: (parent pid, CPU seconds of the process and of its finished children)} from /proc; {} where
    there is no /proc (then only finished children count)."""
    found = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                text = handle.read().decode("ascii", "replace")
        except OSError:  # ended meanwhile
            continue
        fields = text[text.rindex(")") + 2 :].split()  # after "pid (command) "
        # fields[1] is the parent pid; [11:15] utime, stime, cutime, cstime in clock ticks
        found[int(name)] = (int(fields[1]), sum(int(x) for x in fields[11:15]) / _TICK)
    return found


def cpu_of_process_tree():
    """CPU seconds of this process (every thread), of its finished children, and of every descendant still
    running (a compiled solver, a sandboxed program kept between games): what work done here has cost so far."""
    total = cpu_with_children()
    live = _live_processes()
    children = {}
    for pid, (parent, _) in live.items():
        children.setdefault(parent, []).append(pid)
    waiting = list(children.get(os.getpid(), []))
    while waiting:
        pid = waiting.pop()
        total += live[pid][1]
        waiting.extend(children.get(pid, []))
    return total
