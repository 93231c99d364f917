"""Progress of long work, the one way the tools show it: a bar on a terminal, lines in a log."""

import sys
import time
from typing import Callable, Optional, Protocol, Set, TextIO, cast

from tqdm import tqdm

from engine.sandbox.files import excerpt

LineSink = Callable[[str], object]  # hears each line of news (print, a log, a test's list.append)
LINE_SECONDS = 10.0  # a log line at least this often when the total is not known
WHAT_CHARACTERS = 200  # of what is counted, shown


def duration_words(seconds: float) -> str:
    """A length of time as a reader takes it in: "42 s", "3 min 20 s", "2 h 05 min", "3 days 4 h"."""
    whole = int(round(max(seconds, 0.0)))
    if whole < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{whole} s"
    minutes, second = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {second:02d} s"
    hours, minute = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minute:02d} min"
    return f"{hours // 24} days {hours % 24} h"


class Progress(Protocol):
    """What ``counter`` returns: called with how many are done so far; ``close()`` ends it."""

    close: Callable[[], None]

    def __call__(self, done: int) -> None: ...


def counter(
    what: str, unit: str, total: Optional[int] = None, stream: Optional[TextIO] = None, bar: bool = True
) -> Progress:
    """A function ``update(done)`` told how many of ``total`` (None: not known beforehand) are
    done: it draws a bar when ``stream`` (stderr) is a terminal and ``bar`` (a command's
    --no-progress says no), else writes a line every tenth of the total, or every LINE_SECONDS
    when there is none; ``update.close()`` ends it. ``what`` may name a file or a player: it is shown as
    an ``excerpt`` (a line, everything unprintable escaped)."""
    out, what = stream or sys.stderr, excerpt(what, WHAT_CHARACTERS)
    if out.isatty() and bar:
        meter = tqdm(total=total, unit=unit, desc=what, leave=False, file=out)
        state = [0]

        def update(done: int) -> None:
            meter.update(done - state[0])
            state[0] = done
            if total is not None and done >= total:
                meter.close()

        drawn = cast(Progress, update)  # a function given its close below
        drawn.close = meter.close
        return drawn
    started = time.time()
    marks: Set[int] = set()

    def line(done: int) -> None:
        mark = done * 10 // total if total else int((time.time() - started) // LINE_SECONDS)
        if mark > 0 and mark not in marks:
            marks.add(mark)
            out.write(
                "{}: {:,} {}{} {} ({:.0f} s)\n".format(
                    what,
                    done,
                    "" if total is None else f"of {total:,} ",
                    unit + "s" if (total if total is not None else done) != 1 else unit,  # "1 of 6 games"
                    "done",
                    time.time() - started,
                )
            )
            out.flush()

    written = cast(Progress, line)  # a function given its close below
    written.close = lambda: None
    return written
