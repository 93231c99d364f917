"""The compiled solver's benchmark (``littlego bench solver``) and the position set it runs on.

The set (``engine/data/solver-positions.json``, a ``BenchSet`` of ``BenchPosition``; not the ruler's
positions files, ``engine.ruler.position_set``) holds a few random positions at each ply, drawn
by ``random_positions_by_ply``, and every legal move's result there as the solver answered before it
was sped up (issue 48): a faster solver must give the same answers. ``bench_solver`` solves
every legal move of each position of the chosen plies in a fresh solver process (a fresh
table), one process at a time, and reports the nodes and CPU seconds per ply;
``compare_results`` sets a run beside an earlier one.
"""

import resource
import time
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from engine.common.seeds import derive_seed
from engine.constants import Move
from engine.data import SOLVER_POSITIONS
from engine.errors import UserError
from engine.native.compiler import compiled_solver
from engine.native.solver import NativeSolver, describe_position, parse_move_results, position_from_text
from engine.playout import random_opening
from engine.position import Position
from engine.protocol import read_document

SET_FORMAT = "littlego-solver-positions 1"
RESULT_FORMAT = "littlego-bench-solver 1"
BENCH_TABLE_BITS = 24  # 512 MiB, the table of the figures issue 48 compares with
# A run's result as JSON saves it: format, date, solver, table_bits, set, and its plies (a row each).
BenchResult = Dict[str, Any]


class BenchError(UserError, ValueError):
    """A position set or a saved benchmark result that cannot be used; the message names the file."""


class BenchPosition(NamedTuple):
    """A position of the set and ``results``, every legal move's result there ({move: it wins}) as
    the solver of the set's ``recorded_with`` answered, or None where it was not recorded."""

    position: Position
    results: Optional[Dict[Move, bool]]


class BenchSet(NamedTuple):
    """The positions at each ply (``by_ply``: {ply: [BenchPosition]}) and where they came from."""

    by_ply: Dict[int, List[BenchPosition]]
    seed: int
    per_ply: int
    recorded_with: str
    path: str


def random_positions_by_ply(seed: int, plies: Iterable[int], per_ply: int) -> Dict[int, List[Position]]:
    """{ply: [Position]}: ``per_ply`` positions at each ply, each the end of uniformly random legal
    placements from the empty board (``random_opening`` from ``derive_seed(seed, ply, index)``);
    at ply 0 the empty board alone."""
    drawn: Dict[int, List[Position]] = {}
    for ply in plies:
        count = 1 if ply == 0 else per_ply
        drawn[ply] = [random_opening(ply, derive_seed(seed, ply, index))[0] for index in range(count)]
    return drawn


def load_position_set(path: str = SOLVER_POSITIONS) -> BenchSet:
    """The BenchSet of a file; BenchError naming the file and what is wrong."""
    data = read_document(path, BenchError, "a solver position set", SET_FORMAT)
    try:
        by_ply: Dict[int, List[BenchPosition]] = {}
        for ply, entries in data["plies"].items():
            by_ply[int(ply)] = [
                BenchPosition(
                    position_from_text(entry["position"]),
                    parse_move_results(entry["results"]) if entry.get("results") is not None else None,
                )
                for entry in entries
            ]
        return BenchSet(by_ply, data["seed"], data["per_ply"], data["recorded_with"], path)
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        if isinstance(error, BenchError):
            raise
        raise BenchError(f"{path}: a damaged solver position set: {error!r}")


def _children_cpu() -> Tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime, usage.ru_stime


def solve_every_move(
    position: Position, table_bits: int = BENCH_TABLE_BITS
) -> Tuple[Dict[Move, bool], int, float, float]:
    """(results, nodes, user seconds, system seconds): every legal move's result at ``position``
    ({move: it wins}), solved by a fresh solver process, and what that process spent."""
    compiled_solver()  # compiled before the clock starts: the compiler is a child process too
    user, system = _children_cpu()
    with NativeSolver(table_bits) as solver:
        results = solver.move_results(position)
        nodes = solver.nodes
    # the process has been waited for: its CPU is in the children's now
    user_after, system_after = _children_cpu()
    return results, nodes, user_after - user, system_after - system


def bench_solver(
    plies: Sequence[int],
    table_bits: int = BENCH_TABLE_BITS,
    path: str = SOLVER_POSITIONS,
    report: Callable[[str], object] = print,
    progress: Optional[Callable[[int], object]] = None,
) -> BenchResult:
    """Nodes and CPU seconds to solve every legal move of each position of the set at ``plies``,
    and where the results differ from those recorded in the set: a dict to save as JSON."""
    positions = load_position_set(path)
    missing = [ply for ply in plies if ply not in positions.by_ply]
    if missing:
        raise BenchError(
            f"{path}: no positions at ply {', '.join(map(str, missing))} (it has {sorted(positions.by_ply)})"
        )
    rows: List[Dict[str, Any]] = []
    done = 0
    report(f"{'ply':>3} {'positions':>9} {'nodes':>14} {'CPU s':>9} {'user s':>8} {'max CPU s':>10} {'differ':>6}")
    for ply in plies:
        entries: List[Dict[str, Any]] = []
        differ: List[Dict[str, Any]] = []
        for index, (position, recorded) in enumerate(positions.by_ply[ply]):
            results, nodes, user, system = solve_every_move(position, table_bits)
            entries.append({"nodes": nodes, "cpu_s": round(user + system, 3), "user_s": round(user, 3)})
            if recorded is not None and results != recorded:
                differ.append({"index": index, "position": describe_position(position)})
            done += 1
            if progress:
                progress(done)
        row = {
            "ply": ply,
            "positions": len(entries),
            "nodes": sum(entry["nodes"] for entry in entries),
            "cpu_s": round(sum(entry["cpu_s"] for entry in entries), 3),
            "user_s": round(sum(entry["user_s"] for entry in entries), 3),
            "max_cpu_s": max(entry["cpu_s"] for entry in entries),
            "each": entries,
            "differ": differ,
        }
        rows.append(row)
        report(
            f"{ply:>3} {row['positions']:>9} {row['nodes']:>14,} {row['cpu_s']:>9.2f} {row['user_s']:>8.2f} "
            f"{row['max_cpu_s']:>10.2f} {len(differ):>6}"
        )
    return {
        "format": RESULT_FORMAT,
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "solver": compiled_solver(),
        "table_bits": table_bits,
        "set": path,
        "plies": rows,
    }


def load_result(path: str) -> BenchResult:
    """A saved ``bench_solver`` result; BenchError naming the file when it is none."""
    return read_document(path, BenchError, "a saved result of littlego bench solver", RESULT_FORMAT)


def compare_results(result: BenchResult, earlier: BenchResult, report: Callable[[str], object] = print) -> None:
    """Each ply both runs measured, side by side: nodes and CPU seconds before and after, and their ratios."""
    before = {row["ply"]: row for row in earlier["plies"]}
    if earlier.get("table_bits") != result["table_bits"]:
        report(f"note: the earlier run had table bits {earlier.get('table_bits')}, this one {result['table_bits']}")
    report(f"against {earlier.get('date', 'an earlier run')} ({earlier.get('solver', '?')}):")
    report(
        f"{'ply':>3} {'nodes before':>14} {'nodes now':>14} {'ratio':>7} {'CPU s before':>12} {'now':>8} {'ratio':>7}"
    )
    for row in result["plies"]:
        old = before.get(row["ply"])
        if old is None or old["positions"] != row["positions"]:
            report(f"{row['ply']:>3} (not measured on the same positions before)")
            continue
        report(
            f"{row['ply']:>3} {old['nodes']:>14,} {row['nodes']:>14,} {old['nodes'] / max(row['nodes'], 1):>6.1f}x "
            f"{old['cpu_s']:>12.2f} {row['cpu_s']:>8.2f} {old['cpu_s'] / max(row['cpu_s'], 1e-3):>6.1f}x"
        )
