"""Where the agent gave a won game away, and whether a deeper search would have kept it, judged by
the compiled solver on a match's records (a SOURCE, ``engine.play.records``).

- ``walk_back`` (``littlego study mistakes``): for each named game, back from ply LAST_PLY over the
  turns of the agent (the player of that name), the latest position the solver says was won: the
  agent's move there lost the win (the agent solves exactly from ply 12 on, so later moves cannot);
- ``depth_picks`` (``littlego study depth``): at named positions, the move an evaluation picks at
  fixed depths 2, 3, ... and whether it keeps the win, until a depth takes over a minute.

Moves are printed as the course writes them (``i,j``, or PASS).
Both ask the store of solved positions at ``store`` (a path; None: none) first and keep what the
solver answers there (``engine.native.stored_solver.StoredSolver``).
"""

import time
from typing import Dict, NamedTuple, Optional, Sequence, Tuple

from engine.constants import BLACK, Move
from engine.coords import move_to_text
from engine.errors import InvalidInput
from engine.native.stored_solver import StoredSolver
from engine.params import Params
from engine.play.records import games
from engine.play.sgf import read_game
from engine.position import Position
from engine.search import Searcher
from engine.study import Say, say_now

LAST_PLY = 12  # the agent's searches end here: it solves exactly from ply 12 on
WALK_TABLE_BITS = 24  # 512 MiB: the walk back ends at ply 2 or 3, minutes a position
DEPTH_TABLE_BITS = 22
FIRST_DEPTH = 2
DEPTH_CPU_LIMIT = 60.0  # CPU seconds of one depth after which the deeper ones are not tried


class Case(NamedTuple):
    """A position of a match's records: the game's record name and the plies played before it."""

    record: str
    ply: int


def case(text: str) -> Case:
    """A Case from ``NAME:PLY`` (``game-0006.sgf:2``); InvalidInput saying the form otherwise."""
    record, _, ply = text.rpartition(":")
    if not record or not ply.isdigit():
        raise InvalidInput(f"expected a record and a ply as NAME:PLY (game-0006.sgf:2), got {text!r}")
    return Case(record, int(ply))


def wanted_records(source: str, names: Sequence[str]) -> Dict[str, bytes]:
    """{name: SGF bytes} of the records ``names`` in ``source``; InvalidInput naming any it lacks."""
    found = {name: data for name, data in games(source) if name in names}
    missing = [name for name in names if name not in found]
    if missing:
        raise InvalidInput("{}: no record {}".format(source, ", ".join(missing)))
    return found


def walk_back(
    source: str,
    names: Sequence[str],
    agent: str = "champion",
    table_bits: int = WALK_TABLE_BITS,
    say: Say = say_now,
    store: Optional[str] = None,
) -> None:
    """For each record of ``names`` in ``source``: each of the agent's positions from ply LAST_PLY back,
    won or lost, until a won one, and then the line naming the ply and move that lost it."""
    records = wanted_records(source, names)
    with StoredSolver(store, table_bits) as solver:
        for name in names:
            replay = read_game(records[name], name)
            black = replay.black == agent
            mine = [p for p in replay.positions[2:-1] if (p.player == BLACK) == black and not p.is_over]
            found: Optional[Position] = None
            for position in reversed(mine):
                if position.moves_played > LAST_PLY:
                    continue
                started = time.time()
                won = solver.wins(position)
                say(
                    "  ply {} {} {:.0f} s".format(
                        position.moves_played, "won" if won else "lost", time.time() - started
                    )
                )
                if won:
                    found = position
                    break
            move = replay.moves[replay.positions.index(found)] if found else None
            say(
                "{} colour {} mistake at ply {} move {}".format(
                    name,
                    "black" if black else "white",
                    found.moves_played if found else None,
                    None if move is None else move_to_text(move),
                )
            )


def depth_picks(
    source: str,
    cases: Sequence[Case],
    params: Params,
    deepest: int,
    table_bits: int = DEPTH_TABLE_BITS,
    say: Say = say_now,
    store: Optional[str] = None,
) -> None:
    """At each Case of ``cases`` in ``source``: the move ``params``' evaluation picks at each fixed depth from
    FIRST_DEPTH to ``deepest``, W when it keeps the win (by the compiled solver) and L when it loses it,
    and the CPU seconds of that depth; a case stops after a depth that took over DEPTH_CPU_LIMIT."""
    records = wanted_records(source, sorted({c.record for c in cases}))
    evaluate = params.evaluator()
    verdict: Dict[Tuple[str, Move], bool] = {}
    with StoredSolver(store, table_bits) as solver:
        for name, ply in cases:
            replay = read_game(records[name], name)
            at_ply = [p for p in replay.positions if p.moves_played == ply]
            if not at_ply:
                raise InvalidInput(f"{source}: {name} has no position at ply {ply}")
            position, searcher = at_ply[0], Searcher(evaluate)
            for depth in range(FIRST_DEPTH, deepest + 1):
                started = time.process_time()
                move = searcher.search(position, depth).move
                if (name, move) not in verdict:
                    verdict[name, move] = not solver.wins(position.play_point(move))
                seconds = time.process_time() - started
                say(f"{name} {ply} d{depth} {move_to_text(move)} {'W' if verdict[name, move] else 'L'} {seconds:.1f}s")
                if time.process_time() - started > DEPTH_CPU_LIMIT:
                    break
