"""What a program player's move costs in the sandbox, in parts (``littlego bench moves``).

Each figure is the median of its samples, as wall time and as CPU (user + system of every
process involved, the host's own included where it does the work):

- ``outside``: the agent's move run directly, ``COMMAND`` in a plain copy (no sandbox, no limits);
- ``interpreter``: for a Python agent, the interpreter's start alone (``python -c pass``);
- ``own_sandbox``: a move in a sandbox of its own (bwrap, the user switch, the namespaces, the
  interpreter's start, the move), as every move ran before the move server;
- ``server_start``: a game's sandbox and its move server started (paid once a game);
- ``served``: a move forked from the move server (the namespaces, the limits, the move, the
  host's reading of its answer);
- ``games_per_second``: whole games against ``greedy`` from two random plies, one worker.
"""

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from engine.constants import BLACK
from engine.play.game import play_game
from engine.players.host import format_input
from engine.players.program import ProgramPlayer
from engine.players.specs import make_player
from engine.position import Position
from engine.sandbox import gamebox
from engine.sandbox.files import copy_folder, remove_tree
from engine.sandbox.isolation import CommandLine, resolve_command
from engine.sandbox.limits import DEFAULT_LIMITS, MIB, Limits

TIMING_OPENING_PLIES = 2

Sample = Tuple[float, float]  # (wall seconds, CPU seconds) of one run


class Cost(NamedTuple):
    """One part of a move's cost: median wall and CPU seconds over ``samples``."""

    wall: float
    cpu: float
    samples: int


class MoveCost(NamedTuple):
    """A program player's move in parts (``Cost`` each; None where it does not apply here)."""

    folder: str
    served: bool  # whether moves are forked from a move server here
    outside: Cost
    interpreter: Optional[Cost]
    own_sandbox: Optional[Cost]
    server_start: Optional[Cost]
    served_move: Optional[Cost]
    games_per_second: float
    games: int

    def to_json(self) -> Dict[str, Any]:
        return {name: (value._asdict() if isinstance(value, Cost) else value) for name, value in self._asdict().items()}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _median(samples: Sequence[Sample]) -> Cost:
    return Cost(statistics.median(w for w, _ in samples), statistics.median(c for _, c in samples), len(samples))


def _timed(action: Callable[[], object]) -> Sample:
    """(wall, CPU of this process and its reaped children) of ``action()``."""
    wall, cpu = time.perf_counter(), _own_cpu() + _children_cpu()
    action()
    return time.perf_counter() - wall, _own_cpu() + _children_cpu() - cpu


def _input_text() -> str:
    position = Position.initial()
    return format_input(position.player, position.previous_string(), position.board_string())


def _outside(folder: str, command: CommandLine, repeats: int) -> Cost:
    """The move run directly in a plain copy, ``repeats`` times."""
    staging = tempfile.mkdtemp(prefix="littlego-cost-")
    copy = os.path.join(staging, "copy")
    try:
        copy_folder(folder, copy, DEFAULT_LIMITS.folder_mb * MIB)
        with open(os.path.join(copy, "input.txt"), "w") as handle:
            handle.write(_input_text())
        argv = resolve_command(command)[0]

        def run() -> None:
            subprocess.run(argv, cwd=copy, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        return _median([_timed(run) for _ in range(repeats)])
    finally:
        remove_tree(staging)


def _timed_move(player: ProgramPlayer, position: Position) -> Sample:
    """(wall, CPU) of a move of ``player``: the CPU it is charged (all its processes) and the host's own."""
    wall, host = time.perf_counter(), _own_cpu()
    _, charged = player.timed_move(position)
    return time.perf_counter() - wall, charged + _own_cpu() - host


def _moves(player: ProgramPlayer, repeats: int) -> Tuple[Sample, List[Sample]]:
    """(the first move of a game, its sandbox's own start included; the later moves) of ``player``, timed."""
    position = Position.initial()
    player.new_game(BLACK, 1)
    try:
        wall, host = time.perf_counter(), _own_cpu()
        _, charged = player.timed_move(position)
        box = player.box
        started = box.accounting.cpu_seconds() if box and box.accounting and box.accounting.counts("cpu") else None
        first = (time.perf_counter() - wall, (started if started is not None else charged) + _own_cpu() - host)
        later = [_timed_move(player, position) for _ in range(repeats)]
    finally:
        player.close()
    return first, later


def measure_move_cost(
    folder: str,
    command: Optional[CommandLine] = None,
    repeats: int = 20,
    games: int = 40,
    limits: Limits = DEFAULT_LIMITS,
) -> MoveCost:
    """The parts of a move of the agent in ``folder`` (run by ``command``, default this Python on
    ``my_player3.py``), each from ``repeats`` samples, and games/s over ``games`` games."""
    command = command or [sys.executable, "my_player3.py"]
    served = gamebox.available(limits)
    outside = _outside(folder, command, repeats)
    interpreter = None
    if gamebox.python_script(resolve_command(command)[0]):
        interpreter = _median([_timed(lambda: subprocess.run([sys.executable, "-c", "pass"])) for _ in range(repeats)])
    server_start: Optional[Cost] = None
    served_move: Optional[Cost] = None
    own_sandbox: Optional[Cost] = None
    if served:
        starts, moves = [], []
        for _ in range(max(3, repeats // 5)):
            first, later = _moves(ProgramPlayer(folder, command, limits=limits), max(1, repeats // 3))
            moves += later
            starts.append(first)
        served_move = _median(moves)
        start = _median(starts)
        server_start = Cost(
            max(0.0, start.wall - served_move.wall), max(0.0, start.cpu - served_move.cpu), start.samples
        )
    saved = gamebox.available
    gamebox.available = lambda limits: False
    try:
        _, alone = _moves(ProgramPlayer(folder, command, limits=limits), repeats)
        own_sandbox = _median(alone)
    finally:
        gamebox.available = saved
    return MoveCost(
        folder,
        served,
        outside,
        interpreter,
        own_sandbox,
        server_start,
        served_move,
        _games_per_second(folder, command, games, limits),
        games,
    )


def _games_per_second(folder: str, command: CommandLine, games: int, limits: Limits) -> float:
    started = time.perf_counter()
    for index in range(games):
        pair = [ProgramPlayer(folder, command, limits=limits), make_player("greedy")]
        black, white = pair if index % 2 == 0 else pair[::-1]
        play_game(black, white, seed=index, opening_plies=TIMING_OPENING_PLIES)
    return games / (time.perf_counter() - started)


def format_cost(cost: MoveCost) -> Dict[str, str]:
    """The report's lines, a part a line: milliseconds of wall time and of CPU."""

    def shown(part: Optional[Cost]) -> str:
        if part is None:
            return "-"
        return f"{part.wall * 1000:7.1f} ms wall, {part.cpu * 1000:7.1f} ms CPU  ({part.samples} samples)"

    return {
        "the move outside the sandbox": shown(cost.outside),
        "  of which the interpreter's start": shown(cost.interpreter),
        "a move in a sandbox of its own": shown(cost.own_sandbox),
        "the game's sandbox and move server started": shown(cost.server_start),
        "a move forked from the move server": shown(cost.served_move),
        f"games a second against greedy ({cost.games} games, one worker)": f"{cost.games_per_second:.2f}",
    }
