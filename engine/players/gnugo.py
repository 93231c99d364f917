"""GNU Go as a player: one case of a GTP engine (``gtp:`` players), seeded per game.

Its answers are judged by our rules like anyone's (see ``engine.players.gtp``).
"""

import os
import shutil
from typing import List, Optional

from engine.errors import InvalidInput
from engine.players.gtp import GtpPlayer

GNUGO = "/usr/games/gnugo"
MAX_LEVEL = 10


def gnugo_path() -> Optional[str]:
    """The GNU Go binary, or None when it is not installed."""
    if os.path.exists(GNUGO):
        return GNUGO
    return shutil.which("gnugo")


def gnugo_player(level: Optional[int] = None, spec: Optional[str] = None) -> GtpPlayer:
    """GNU Go at a level (0..MAX_LEVEL; its default, 10, when None), a fresh process per game."""
    binary = gnugo_path()
    if not binary:
        raise InvalidInput("GNU Go is not installed (apt-get install gnugo)")

    def argv(seed: int) -> List[str]:
        command = [binary, "--mode", "gtp", "--seed", str(seed % 2**31 or 1)]
        return command + (["--level", str(level)] if level is not None else [])

    return GtpPlayer(argv, spec or ("gnugo" if level is None else f"gnugo:{level}"))
