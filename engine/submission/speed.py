"""Speed benchmarks, run as ``littlego bench ...``: they report what they measure."""

import os
import random
import shutil
import statistics
import tempfile
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple, TypedDict

from engine.agent import SOLVE_SHARE
from engine.common.progress import LineSink
from engine.common.seeds import derive_seed
from engine.constants import BLACK, MAX_DEPTH, WHITE, Colour, colour_word
from engine.course.editions import EDITIONS, fitted_search
from engine.data import RULES_VECTORS, SHIPPED_BOOK, SHIPPED_PARAMS, load_rules_vectors
from engine.features import Evaluator
from engine.params import Params, load_params
from engine.play.game import play_game
from engine.play.records import recorded_positions
from engine.players.base import Reason
from engine.players.specs import make_player
from engine.playout import random_opening, random_playout
from engine.position import Position
from engine.search import Searcher
from engine.solver import Solver
from engine.submission.bundle import write_bundle

Phases = List[Tuple[str, List[Position]]]  # (the game's phase, its positions)


class DepthRow(TypedDict):
    """``bench search``'s figures at one depth over the phases' positions."""

    depth: int
    median_s: float  # the median seconds a search takes
    max_s: float  # the most seconds a search takes
    nodes: int  # the nodes of all the searches
    nodes_per_s: float


class BudgetRow(TypedDict):
    """The depths iterative deepening completes within one CPU budget on the phases' positions."""

    cpu_budget: float
    median_depth: float
    min_depth: int
    max_depth: int


class GameCpu(TypedDict):
    """The CPU of one whole game of the bundled agent against random."""

    agent_colour: Colour
    cpu_s: float
    moves: int
    max_move_cpu_s: float
    result: Reason


def vector_positions(path: str = RULES_VECTORS) -> List[Position]:
    """Every position the rules vectors ask a player to move in."""
    return [
        Position.from_boards(ply["player"], ply["previous"], ply["current"], ply["n_move"])
        for game in load_rules_vectors(path)
        for ply in game["plies"]
    ]


def median_rate(work: Callable[[], object], items: float, repeats: int) -> Tuple[float, List[float]]:
    """Median over ``repeats`` runs of items per second of ``work()``, and all the rates."""
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        rates.append(items / (time.perf_counter() - start))
    return statistics.median(rates), rates


def bench_rules(
    vectors: str = RULES_VECTORS,
    repeats: int = 5,
    playout_games: int = 2000,
    seed: int = 1,
    report: LineSink = print,
) -> Dict[str, object]:
    """Legal-move generation (positions/s) and random playouts (moves/s), medians of repeats."""
    positions = vector_positions(vectors)
    source = f"the rules vectors ({os.path.basename(vectors)})"

    def generate() -> None:
        for position in positions:
            position.legal_moves()

    legal_rate, legal_rates = median_rate(generate, len(positions), repeats)

    rng = random.Random(seed)
    start = Position.initial()
    plies = []

    def playouts() -> None:
        total = 0
        for _ in range(playout_games):
            total += random_playout(start, rng)[0].moves_played
        plies.append(total)

    playout_rate, playout_rates = median_rate(playouts, 1, repeats)
    moves = plies[0]
    playout_rate *= moves
    playout_rates = [r * p for r, p in zip(playout_rates, plies)]
    result = {
        "positions": len(positions),
        "source": source,
        "repeats": repeats,
        "legal_moves_positions_per_s": round(legal_rate),
        "legal_moves_runs": [round(r) for r in legal_rates],
        "playout_games_per_run": playout_games,
        "playout_moves_per_s": round(statistics.median(playout_rates)),
        "playout_runs": [round(r) for r in playout_rates],
    }
    report(
        "legal-move generation: {:,} positions/s (median of {} runs over {} positions from {})".format(
            result["legal_moves_positions_per_s"], repeats, len(positions), source
        )
    )
    report(
        "random playouts:       {:,} moves/s (median of {} runs of {} games from the empty board)".format(
            result["playout_moves_per_s"], repeats, playout_games
        )
    )
    return result


def search_positions(per_phase: int = 4, seed: int = 7) -> Phases:
    """A fixed set of positions: opening (ply 2-3), middle game (ply 10-11), end game (ply 18-19)."""
    phases = []
    for name, plies in (("opening", 2), ("middle", 10), ("end", 18)):
        found: List[Position] = []
        attempt = 0
        while len(found) < per_phase:
            position, _ = random_opening(plies + attempt % 2, derive_seed(seed, attempt))
            attempt += 1
            if not position.is_over:
                found.append(position)
        phases.append((name, found))
    return phases


def bench_search(
    depths: Sequence[int] = (1, 2, 3, 4, 5),
    params_path: Optional[str] = None,
    game_seeds: Sequence[int] = (1,),
    report: LineSink = print,
    budgets: Sequence[float] = (0.5, 2.5),
) -> Dict[str, object]:
    """Nodes/s and seconds per move at each depth, the depth reached within CPU budgets, and the
    CPU of whole games of the shipped agent."""
    params_path = params_path or SHIPPED_PARAMS
    params = load_params(params_path)
    evaluate = params.evaluator()
    phases = search_positions()
    return {
        "positions": {name: len(p) for name, p in phases},
        "depths": _search_depths(evaluate, phases, depths, report),
        "depth_within_budget": _depth_within_budgets(evaluate, phases, budgets, report),
        "games": _bundled_games(params_path, game_seeds, report),
        "params": params_path,
    }


def _search_depths(evaluate: Evaluator, phases: Phases, depths: Sequence[int], report: LineSink) -> List[DepthRow]:
    """A row for each depth: the median and the most seconds a search of the ``phases``' positions takes, its
    nodes and nodes/s."""
    rows: List[DepthRow] = []
    report("{:>5} {:>10} {:>10} {:>10} {:>12}".format("depth", "median s", "max s", "nodes", "nodes/s"))
    for depth in depths:
        seconds: List[float] = []
        nodes = 0
        for _, positions in phases:
            for position in positions:
                result = Searcher(evaluate).search(position, depth)
                seconds.append(result.seconds)
                nodes += result.nodes
        row: DepthRow = {
            "depth": depth,
            "median_s": statistics.median(seconds),
            "max_s": max(seconds),
            "nodes": nodes,
            "nodes_per_s": nodes / max(sum(seconds), 1e-9),
        }
        rows.append(row)
        report("{depth:>5} {median_s:>10.4f} {max_s:>10.4f} {nodes:>10} {nodes_per_s:>12,.0f}".format(**row))
    return rows


def _depth_within_budgets(
    evaluate: Evaluator, phases: Phases, budgets: Sequence[float], report: LineSink
) -> List[BudgetRow]:
    """For each CPU budget, the depths that iterative deepening completes within it on the ``phases``' positions."""
    reached: List[BudgetRow] = []
    for budget in budgets:
        found = [_depth_within(evaluate, position, budget) for _, positions in phases for position in positions]
        reached.append(
            {
                "cpu_budget": budget,
                "median_depth": statistics.median(found),
                "min_depth": min(found),
                "max_depth": max(found),
            }
        )
        report(
            f"depth completed within {budget:g} s of CPU: median {statistics.median(found):g}, from "
            f"{min(found)} to {max(found)}"
        )
    return reached


def _depth_within(evaluate: Evaluator, position: Position, budget: float) -> int:
    """The depth iterative deepening completes on ``position`` within ``budget`` CPU seconds."""
    result = Searcher(evaluate).iterative(position, MAX_DEPTH, cpu_budget=budget, cpu_cap=budget)
    assert result is not None, "depth 1 has no deadline: it always completes"
    return result.depth


def _bundled_games(params_path: str, game_seeds: Sequence[int], report: LineSink) -> List[GameCpu]:
    """The CPU of whole games against random, as Black and as White, of the agent a course submission holds."""
    games: List[GameCpu] = []
    # The whole game is timed on the bundle a course submission holds (the shipped book with
    # it, read on every move before exact solving), run as the course runs it.
    submission = tempfile.mkdtemp(prefix="littlego-bench-")
    write_bundle(submission, params_path, book_path=SHIPPED_BOOK)
    for seed in game_seeds:
        for colour_of_agent in (BLACK, WHITE):
            agent, opponent = make_player("cmd:" + submission), make_player("random")
            black, white = (agent, opponent) if colour_of_agent == BLACK else (opponent, agent)
            record = play_game(black, white, seed=seed)
            cpu = sum(s for colour, s in record.cpu if colour == colour_of_agent)
            moves = sum(1 for colour, _ in record.cpu if colour == colour_of_agent)
            games.append(
                {
                    "agent_colour": colour_of_agent,
                    "cpu_s": cpu,
                    "moves": moves,
                    "max_move_cpu_s": max(s for c, s in record.cpu if c == colour_of_agent),
                    "result": record.reason,
                }
            )
            report(
                f"whole game as {colour_word(colour_of_agent)}: {moves} moves, {cpu:.2f} s CPU "
                f"(max {games[-1]['max_move_cpu_s']:.2f} s a move), bundled agent, one process per move"
            )
    shutil.rmtree(submission, ignore_errors=True)
    return games


def _random_positions(ply: int, count: int, rng: random.Random) -> List[Position]:
    found: List[Position] = []
    for _ in range(count):
        position = Position.initial()
        while position.moves_played < ply:
            position = position.play_point(rng.choice(position.legal_points()))
        found.append(position)
    return found


def solving_shares(params: Params) -> Dict[str, float]:
    """{edition key: the CPU seconds the agent gives its exact solver a move in that edition}: its share
    of the CPU cap that ``bundle --edition`` fits to the edition's budget."""
    return {
        chosen.key: SOLVE_SHARE * fitted_search(chosen, params.cpu_budget, params.cpu_cap)[1] for chosen in EDITIONS
    }


def bench_solve(
    plies: Sequence[int] = (12, 10),
    positions: int = 6,
    seed: int = 11,
    report: LineSink = print,
    records: Sequence[str] = (),
) -> Dict[str, object]:
    """Nodes and CPU seconds the exact solver needs to find a winning move (what the agent runs),
    on ``positions`` positions at each ply: random moves from ``random.Random(seed)``, or positions of
    the games in ``records``; and at each ply, for every edition, how many finish within the solving
    share of the agent's CPU cap as ``bundle --edition`` fits it (``solving_shares``)."""
    rng = random.Random(seed)
    shares = solving_shares(load_params(SHIPPED_PARAMS))
    results = []
    for ply in plies:
        nodes, seconds = [], []
        if records:
            chosen = recorded_positions(records, (ply, ply), seed, positions)[ply]
        else:
            chosen = _random_positions(ply, positions, rng)
        for position in chosen:
            solver = Solver()
            start = time.process_time()
            solver.winning_move(position)
            seconds.append(time.process_time() - start)
            nodes.append(solver.nodes)
        if not seconds:
            report(f"ply {ply:>2}: no positions")
            continue
        within = {key: sum(1 for s in seconds if s <= share) for key, share in shares.items()}
        results.append(
            {
                "ply": ply,
                "positions": len(seconds),
                "nodes": sum(nodes),
                "median_seconds": statistics.median(seconds),
                "max_seconds": max(seconds),
                "within_solving_share": within,
            }
        )
        report(
            f"ply {ply:>2}: {sum(nodes):,} nodes for {len(seconds)} positions; CPU median "
            f"{statistics.median(seconds):.2f} s, max {max(seconds):.2f} s; within the solving share: "
            + ", ".join(f"{key} ({shares[key]:.2f} s) {within[key]}/{len(seconds)}" for key in shares)
        )
    return {"seed": seed, "source": "records" if records else "random play", "plies": results}
