"""The settings an untrusted program runs under: the isolation mode and its limits, one record."""

import enum
from typing import NamedTuple

from engine.errors import UserError

MIB = 2**20


class SandboxMode(str, enum.Enum):
    """How program players are isolated: ``--sandbox`` and a config's ``[individual] sandbox``. Its string
    is what the command line, the config and the records hold."""

    AUTO = "auto"  # isolated where bwrap works, else limits only (warned)
    STRICT = "strict"  # isolated, or refused
    OFF = "off"  # limits only

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


MODES = tuple(mode.value for mode in SandboxMode)


class SandboxError(UserError, ValueError):
    """A sandbox that cannot be had where ``strict`` asks for one; the message says why (a setting
    this machine cannot honour, reported as the user's mistake)."""


class UntrustedFolderError(UserError, ValueError):
    """An agent folder that is not copied: it holds something other than regular files and folders,
    or more than the folder limit; the message names the entry and why."""


class HostError(UserError, OSError):
    """The host itself failed where a player plays (its disk full): no player is charged with it; the
    message says what failed and where."""


class Limits(NamedTuple):
    """How a program player's moves (and an agent's build) run: the isolation mode and the limits.

    Where this machine gives littlego cgroups (``accounting.hierarchies``), ``memory_mb`` and
    ``processes`` bound all of a move's processes together, shared memory and memfd included,
    and CPU is counted over every one of them; elsewhere the rlimits bound each process alone.
    """

    mode: SandboxMode = SandboxMode.AUTO
    memory_mb: int = 1024  # memory of a move: all its processes (cgroup), else each one's data (RLIMIT_DATA)
    processes: int = 128  # tasks (processes and threads) of a move (cgroup pids, RLIMIT_NPROC in the sandbox)
    file_mb: int = 64  # the largest file it may write (RLIMIT_FSIZE); also the private /tmp's size
    folder_mb: int = 100  # the bytes of an agent folder's files, counted as they are copied
    # Moves forked from a game's move server (gamebox) where it can be had; False: a process started afresh
    # for every move, the interpreter's start and the script's compiling included, as the course's host counts.
    served: bool = True

    @property
    def workspace_mb(self) -> int:
        """The quota of a copy's workspace (``workspace.py``): the copy, and one more file as large as allowed."""
        return self.folder_mb + self.file_mb


DEFAULT_LIMITS = Limits()
