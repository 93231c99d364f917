"""``littlego grade``: an agent graded as one edition of the course grades it.

Every game of every stage is one job of the match machinery (``engine.play.match``), all of
them on one executor, so the stages play in parallel; each opponent's games are then a match
summary, its win rate the rubric's points, and the agent's CPU per stage the budget's verdict.
"""

import time
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from engine.common.seeds import derive_seed
from engine.course.build import course_game
from engine.course.editions import OPPONENTS, Column, Edition, Stage, edition, points, stage_budget, stages
from engine.play.game import MatchGame
from engine.play.match import GameJob, play_all
from engine.play.settings import DEFAULT_GAME_SETTINGS, GameSettings
from engine.play.summary import summarise
from engine.players.base import Reason
from engine.sandbox.limits import DEFAULT_LIMITS, Limits

# What grade_jobs plans: each stage's opponents, each with the jobs of its games.
Plan = List[Tuple[Stage, str, List[GameJob]]]

STANDS_IN = {
    "qlearning": "the course's hidden Q-learning agent",
    "championship": "the course's hidden championship agent",
    "alphabeta": "the course's alpha-beta agent (reserved for grading; ours follows the assignment's text)",
}


class OpponentResult(NamedTuple):
    """The agent's games against one opponent of a stage, and the rubric's points for them."""

    opponent: str  # the rubric's name
    spec: str  # the player that played it
    games: int
    wins: int
    wins_as_black: int
    wins_as_white: int
    win_rate: float
    win_rate_95ci: List[float]
    points: float
    max_points: float
    cpu_per_move_mean: float  # the agent's CPU seconds a move
    cpu_per_move_max: float
    cpu_total: float  # the agent's CPU over these games
    timeouts: int  # the agent's games lost to a move over the CPU limit
    faults: List[str]  # each game the agent lost by a fault, with the reason
    points_95ci: Tuple[float, float] = (0.0, 0.0)  # the rubric's points over the win rate's 95% interval


class StageResult(NamedTuple):
    """One stage: its opponents, points, and the agent's CPU against the stage's budget."""

    name: str
    opponents: List[OpponentResult]
    points_earned: float  # the rubric's sum, before the budget's verdict
    points: float  # what the stage gives: 0 when over its budget
    max_points: float
    cpu_total: float
    budget: float  # CPU seconds for the games played (the edition's rate times them)
    budget_assumed: bool  # the edition states no budget here: the other mode's rate
    over_budget: bool
    points_95ci: Tuple[float, float] = (0.0, 0.0)  # the opponents' intervals summed (0 over its budget)


class GradeReport(NamedTuple):
    """A grade: the agent, the edition, each stage, the total out of the most it could be."""

    agent: str
    edition: str
    title: str
    submit: bool
    stages: List[StageResult]
    points: float
    max_points: float
    cpu_per_move_mean: float
    cpu_per_move_max: float
    cpu_limit: float
    seed: int
    jobs: int
    seconds: float = 0.0
    notes: Tuple[str, ...] = ()
    budget_note: str = ""
    stage2_note: Optional[str] = None
    folder: Optional[str] = None  # the agent folder's whole path, where ``agent`` shows it (cut short, maybe)
    points_95ci: Tuple[float, float] = (0.0, 0.0)  # the stages' intervals summed: how far chance moves a grade

    def to_json(self) -> Dict[str, Any]:
        """The report as JSON-ready dicts and lists, the stages' and opponents' records included."""
        stages = [
            dict(stage._asdict(), opponents=[dict(result._asdict()) for result in stage.opponents])
            for stage in self.stages
        ]
        return dict(self._asdict(), stages=stages, notes=list(self.notes))


def total_games(edition_key: str, submit: bool = False, games: Optional[int] = None) -> int:
    """How many games a grade plays."""
    return sum(len(stage.opponents) * (games or stage.games) for stage in stages(edition(edition_key), submit))


def grade_jobs(
    agent: str,
    chosen: Edition,
    submit: bool,
    games: Optional[int],
    opponent_specs: Mapping[str, str],
    seed: int,
    cpu_limit: float,
    limits: Optional[Limits] = None,
) -> Plan:
    """[(stage, opponent, [game jobs])] for every opponent of every stage, each with a seed of its own."""
    plan: Plan = []
    for stage in stages(chosen, submit):
        for name in stage.opponents:
            opponent_seed = derive_seed(seed, OPPONENTS.index(name))
            count = games or stage.games
            work = [
                GameJob(k, agent, opponent_specs[name], opponent_seed, 0, cpu_limit, None, limits) for k in range(count)
            ]
            plan.append((stage, name, work))
    return plan


def points_range(column: Column, low: float, high: float) -> Tuple[float, float]:
    """The least and the most points the rubric's ``column`` gives a win rate from ``low`` to ``high``."""
    found = [points(column, low + (high - low) * step / 1000) for step in range(1001)]
    return min(found), max(found)


def opponent_result(name: str, spec: str, column: Column, games: Sequence[MatchGame]) -> OpponentResult:
    """The OpponentResult of the agent's MatchGames against one opponent."""
    summary = summarise("agent", spec, games)
    agent_name = summary.a
    wins = summary.wins[agent_name]
    cpu = [seconds for g in games for colour, seconds in g.cpu if colour == g.a_colour]
    lost_by_fault = [g for g in games if not g.a_won and g.reason != Reason.END]
    return OpponentResult(
        opponent=name,
        spec=spec,
        games=summary.games,
        wins=wins,
        wins_as_black=summary.wins_by_colour[agent_name]["black"],
        wins_as_white=summary.wins_by_colour[agent_name]["white"],
        win_rate=summary.a_win_rate,
        win_rate_95ci=summary.a_win_rate_95ci,
        points=points(column, summary.a_win_rate),
        max_points=float(column.full),
        cpu_per_move_mean=summary.cpu_per_move[agent_name]["mean"],
        cpu_per_move_max=summary.cpu_per_move[agent_name]["max"],
        cpu_total=sum(cpu),
        timeouts=sum(1 for g in lost_by_fault if g.reason == Reason.TIMEOUT),
        faults=[f"game {g.index}: {g.reason.value} {g.detail}" for g in lost_by_fault],
        points_95ci=points_range(column, *summary.a_win_rate_95ci),
    )


def stage_result(chosen: Edition, submit: bool, stage: Stage, results: List[OpponentResult]) -> StageResult:
    """The StageResult of a stage's OpponentResults, with the budget's verdict."""
    rate, assumed = stage_budget(chosen, stage, submit)
    budget = rate * sum(r.games for r in results)
    cpu = sum(r.cpu_total for r in results)
    earned = sum(r.points for r in results)
    return StageResult(
        name=stage.name,
        opponents=results,
        points_earned=earned,
        points=0.0 if cpu > budget else earned,
        max_points=sum(r.max_points for r in results),
        cpu_total=cpu,
        budget=budget,
        budget_assumed=assumed,
        over_budget=cpu > budget,
        points_95ci=(0.0, 0.0)
        if cpu > budget
        else (sum(r.points_95ci[0] for r in results), sum(r.points_95ci[1] for r in results)),
    )


def grade(
    agent: str,
    edition_key: str,
    submit: bool = False,
    games: Optional[int] = None,
    championship: str = "champion",
    settings: GameSettings = DEFAULT_GAME_SETTINGS,
    broken: Optional[Dict[str, str]] = None,
    notes: Iterable[str] = (),
) -> GradeReport:
    """Grade ``agent`` (a player spec) as the edition does; a GradeReport.

    ``games``: games against each opponent instead of the edition's (budgets scale with them).
    ``settings``: how the games are played (a GameSettings; jobs None: one); its ``progress(done, total)``
    hears of each game. ``broken``: {spec: why it cannot play} (an agent whose build failed loses every
    game with the reason). ``notes``: lines the report adds. Every move of a program runs in a process
    started afresh (never served), so that its CPU is what the course's host counts.
    """
    chosen = edition(edition_key)
    limits = (settings.limits or DEFAULT_LIMITS)._replace(served=False)
    specs = dict(zip(OPPONENTS, OPPONENTS), qlearning="qlearning", championship=championship)
    plan = grade_jobs(agent, chosen, submit, games, specs, settings.seed, settings.cpu_limit, limits)
    work = [(job, broken or {}) for _, _, jobs_of in plan for job in jobs_of]
    started = time.time()
    played = play_all(work, settings.jobs or 1, settings.scheduler, function=course_game, progress=settings.progress)
    results: Dict[Stage, List[OpponentResult]] = {}
    position = 0
    for stage, name, jobs_of in plan:
        column = chosen.rubric[name]
        results.setdefault(stage, []).append(
            opponent_result(name, specs[name], column, played[position : position + len(jobs_of)])
        )
        position += len(jobs_of)
    stage_results = [stage_result(chosen, submit, stage, results[stage]) for stage in stages(chosen, submit)]
    cpu = [seconds for g in played for colour, seconds in g.cpu if colour == g.a_colour]
    used = sorted({name for _, name, _ in plan if name in STANDS_IN})
    return GradeReport(
        agent=agent,
        edition=chosen.key,
        title=chosen.title,
        submit=submit,
        stages=stage_results,
        points=sum(s.points for s in stage_results),
        max_points=sum(s.max_points for s in stage_results),
        cpu_per_move_mean=sum(cpu) / len(cpu) if cpu else 0.0,
        cpu_per_move_max=max(cpu) if cpu else 0.0,
        cpu_limit=settings.cpu_limit,
        seed=settings.seed,
        jobs=settings.jobs or 1,
        seconds=time.time() - started,
        notes=tuple(notes) + tuple(f"{name} ({specs[name]}) stands in for {STANDS_IN[name]}" for name in used),
        budget_note=chosen.budget_note,
        stage2_note=None if submit else chosen.stage2_note,
        points_95ci=(sum(s.points_95ci[0] for s in stage_results), sum(s.points_95ci[1] for s in stage_results)),
    )
