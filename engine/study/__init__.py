"""Studies of where games are won and lost, each position judged by the compiled solver: which side
each random opening leaves won (``settle``), where the agent gave a won game away and what a deeper
search would have played (``mistakes``; ``examine`` looks at one such game), and the whole study of
a match from random openings, resumable
(``giveaways``). The commands are ``littlego openings`` and ``littlego study``."""

from typing import Callable

Say = Callable[[str], object]  # hears a line of a study's progress (``say_now``, a test's list.append)


def say_now(line: str) -> None:
    """Print a line at once: a study's lines come minutes apart, often into a log."""
    print(line, flush=True)
