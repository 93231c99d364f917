"""Progress of long work, the one way the tools show it: a bar on a terminal, lines in a log."""

import sys
import time

from tqdm import tqdm

LINE_SECONDS = 10.0  # a log line at least this often when the total is not known


def counter(what, unit, total=None, stream=None, bar=True):
    """A function ``update(done)`` told how many of ``total`` (None: not known beforehand) are
    done: it draws a bar when ``stream`` (stderr) is a terminal and ``bar`` (a command's
    --no-progress says no), else writes a line every tenth of the total, or every LINE_SECONDS
    when there is none; ``update.close()`` ends it."""
    stream = stream or sys.stderr
    if stream.isatty() and bar:
        bar = tqdm(total=total, unit=unit, desc=what, leave=False, file=stream)
        state = [0]

        def update(done):
            bar.update(done - state[0])
            state[0] = done
            if total is not None and done >= total:
                bar.close()

        update.close = bar.close
        return update
    started, marks = time.time(), set()

    def line(done):
        mark = done * 10 // total if total else int((time.time() - started) // LINE_SECONDS)
        if mark > 0 and mark not in marks:
            marks.add(mark)
            stream.write(
                "{}: {:,} {}{} {} ({:.0f} s)\n".format(
                    what,
                    done,
                    "" if total is None else f"of {total:,} ",
                    unit + "s" if (total if total is not None else done) != 1 else unit,  # "1 of 6 games"
                    "done",
                    time.time() - started,
                )
            )
            stream.flush()

    line.close = lambda: None
    return line
