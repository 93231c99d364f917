"""Game sandboxes started one game ahead: the next game's sandbox starts while this one plays.

Starting a game's sandbox (bwrap, the move server's interpreter, the namespace trial) costs about
47 ms of CPU, which the game used to wait for at its first move: for an agent of a few ms a move,
most of its game. Here ``take`` hands a game a sandbox that was started when the previous game of
the same kind of player began, and starts the next one, so that the start runs on a free core
while a game plays (on a busy machine it costs what it cost before, and no more). The next one is
made on a thread of its own (``_STARTER``): its workspace, its cgroups and the wait for bwrap's
exec (about 20 ms of the host's wall time a game) overlap the game's moves, which wait on the
move server; a game that finds its spare still starting waits for it.

A spare is as fresh as a sandbox started at its game: a workspace (a tmpfs, a user, cgroups) of its
own, a PID namespace of its own, no move ever run in it, and its folder empty until its game
copies the player's folder in (``ProgramPlayer.new_game``); nothing of another game reaches it.
Spares are kept by what their sandbox depends on (the command, the limits), not by the folder: the
weights files of a tuning run's individuals differ, their sandboxes do not. At most ``KEPT`` wait
at once; the rest are ended. Those left at the end of a process end with it (``close_all``: at
exit, and when a pool's worker is ended).
"""

import atexit
import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List, NamedTuple, Optional, Tuple, Union

from engine.sandbox import gamebox
from engine.sandbox.accounting import sweep_cgroups
from engine.sandbox.isolation import CommandLine, prepare_folder, strict_refusal
from engine.sandbox.limits import Limits, SandboxError
from engine.sandbox.workspace import Workspace, sweep_mounts

KEPT = 4  # spares waiting at once, each a sandbox's server (its interpreter) and a workspace
STDERR = "stderr.txt"  # in a workspace's top folder: what the game's moves write on stderr


class Kind(NamedTuple):
    """What a game's sandbox depends on: spares of one kind serve any player of that kind."""

    command: Union[str, Tuple[str, ...]]
    limits: Limits
    cpu_limit: float
    wall_limit: float


class GameSandbox(NamedTuple):
    """A game's workspace (its folder empty) and, where moves are served, its sandbox, maybe started."""

    workspace: Workspace
    box: Optional[gamebox.GameBox]

    def close(self) -> None:
        if self.box:
            self.box.close()
        self.workspace.close()


_waiting: Dict[Kind, "Future[GameSandbox]"] = {}  # in the order they were started
_made: List[bool] = []  # non-empty once this process (or its parent before a fork) made a sandbox here
_STARTER: List[ThreadPoolExecutor] = []  # the thread that makes spares, once one was asked for


def _forget() -> None:
    """In a forked child: the parent's spares are the parent's (closing them here would end its sandboxes),
    and its starter thread is not in the child."""
    _waiting.clear()
    _STARTER.clear()


def _start_spare(kind: Kind) -> "Future[GameSandbox]":
    """The next game's sandbox of ``kind``, being made on the starter thread."""
    if not _STARTER:
        _STARTER.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandbox-spares"))
    return _STARTER[0].submit(_make, kind, True)


def _ready(spare: "Future[GameSandbox]") -> Optional[GameSandbox]:
    """The sandbox a spare's making gave, once made; None where making it failed (the game makes its own,
    and says what is wrong)."""
    try:
        return spare.result()
    except (OSError, SandboxError):
        return None


os.register_at_fork(after_in_child=_forget)


def stderr_path(workspace: Workspace) -> str:
    """The file a game's moves write their stderr to."""
    return os.path.join(workspace.top, STDERR)


def _make(kind: Kind, early: bool) -> GameSandbox:
    """A new workspace and its sandbox; its server started now where ``early`` (a spare)."""
    _made.append(True)
    workspace = Workspace(kind.limits)
    if not gamebox.available(kind.limits):
        return GameSandbox(workspace, None)
    command: CommandLine = kind.command if isinstance(kind.command, str) else list(kind.command)
    box = gamebox.GameBox(
        workspace.folder,
        command,
        kind.limits,
        kind.cpu_limit,
        kind.wall_limit,
        stderr_path(workspace),
        workspace.scratch,
        workspace.user,
    )
    if early:
        try:
            prepare_folder(workspace.folder, kind.limits, workspace.user)  # its user's before its server starts
            box.launch()
        except (OSError, SandboxError):
            box.close()  # the first move starts it, and says what is wrong
    return GameSandbox(workspace, box)


def take(command: CommandLine, limits: Limits, cpu_limit: float, wall_limit: float) -> GameSandbox:
    """A fresh sandbox for a game of a player run by ``command`` under these limits (its folder empty: the
    caller copies the player's folder in and calls ``prepare_folder``), and the next game's started."""
    kind = Kind(command if isinstance(command, str) else tuple(command), limits, cpu_limit, wall_limit)
    spare = _waiting.pop(kind, None)
    found = _ready(spare) if spare is not None else None
    if found is not None and found.box is not None and not (gamebox.available(limits) and strict_refusal() is None):
        found.box.close()  # not as it was started: the first move starts it (or says why not), or a sandbox a move
        if not gamebox.available(limits):
            found = GameSandbox(found.workspace, None)
    sandbox = found or _make(kind, early=False)
    if sandbox.box is not None:
        _waiting[kind] = _start_spare(kind)
        while len(_waiting) > KEPT:
            _close(_waiting.pop(next(iter(_waiting))))
    return sandbox


def _close(spare: "Future[GameSandbox]") -> None:
    made = _ready(spare)
    if made is not None:
        made.close()


def close_all() -> None:
    """End every spare sandbox of this process; and, where it made any, what the spares of its ended child
    processes left (a pool's workers end killed, before their spares are closed: their mounts and cgroups)."""
    spares: List[Future[GameSandbox]] = list(_waiting.values())
    _waiting.clear()
    for spare in spares:
        try:
            _close(spare)
        except OSError:
            pass
    if _made:
        sweep_mounts()
        sweep_cgroups()


atexit.register(close_all)
