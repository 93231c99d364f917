"""The course's editions as data: who each stage plays, how many games, the CPU budgets, and the
rubric that turns a win rate into points; every figure once (``../shared/seeds/editions.md``).

Reading guide: ``RUBRICS`` holds each opponent's column of points, ``EDITIONS`` each
edition's stages (as graded, and as its Submit button plays them). A budget the edition does
not state is ``None``: it is then held to the rate (CPU seconds a game) of the same stage in the
other mode, and the report says the figure was assumed.
"""

from typing import Dict, NamedTuple, Optional, Tuple

from engine.agent import STARTUP_CPU
from engine.constants import MAX_MOVES
from engine.errors import InvalidInput

TOP_RATE = 0.9  # a win rate at least this earns the column's full points
MIDDLE_RATE = 0.7  # at least this: the middle multiplier times the rate; below: the low one
# A bundle fitted to an edition: every game, at each move's cap, within this share of the budget's rate.
BUDGET_SHARE = 0.9
MOVES_PER_SIDE = MAX_MOVES // 2  # the most moves either side makes in a game


class Column(NamedTuple):
    """One opponent's rubric: points at >= TOP_RATE, the multiplier of the win rate at
    >= MIDDLE_RATE, and the multiplier below it."""

    full: float
    middle: float
    low: float


class Stage(NamedTuple):
    """A stage: its name, the opponents it plays (rubric names), games against each (half as
    Black: the first of each pair), and its CPU budget in seconds for the whole stage (None: not stated)."""

    name: str
    opponents: Tuple[str, ...]
    games: int
    budget: Optional[float]


class Edition(NamedTuple):
    """An edition of the assignment: its key, its title, its rubric ({opponent: Column}), its
    stages as graded and as the Submit button plays them, how binding its budgets are, and what
    its second stage is where grade does not play it (None where it does)."""

    key: str
    title: str
    rubric: Dict[str, Column]
    graded: Tuple[Stage, ...]
    submit: Tuple[Stage, ...]
    budget_note: str
    stage2_note: Optional[str]


OPPONENTS = ("random", "greedy", "aggressive", "alphabeta", "qlearning", "championship")

_LATER = {
    "random": Column(25, 15, 0),
    "greedy": Column(25, 15, 0),
    "aggressive": Column(25, 20, 10),
    "alphabeta": Column(15, 10, 5),
    "qlearning": Column(5, 5, 0),
    "championship": Column(5, 5, 2),
}
# The earlier edition gives stage 1 100 points; its table is not given. Its worked example
# (alpha-beta at 67%: 10 x rate) fits alpha-beta scored like aggressive, which sums to 100.
_EARLIER = {
    "random": Column(25, 15, 0),
    "greedy": Column(25, 15, 0),
    "aggressive": Column(25, 20, 10),
    "alphabeta": Column(25, 20, 10),
}
_SCRIPTED = ("random", "greedy", "aggressive")
_STAGE1 = _SCRIPTED + ("alphabeta",)
_STAGE2 = ("qlearning", "championship")

EDITIONS = (
    Edition(
        "fall2023",
        "Fall 2023 (and Spring 2022)",
        _LATER,
        graded=(Stage("stage 1", _STAGE1, 20, 7200), Stage("stage 2", _STAGE2, 20, 3600)),
        submit=(Stage("stage 1", _SCRIPTED, 20, 5400), Stage("stage 2", _STAGE2, 10, 1800)),
        budget_note="running out of a stage's budget loses all of its points",
        stage2_note=None,
    ),
    Edition(
        "fall2020",
        "Fall 2020",
        _LATER,
        graded=(Stage("stage 1", _STAGE1, 50, 7200), Stage("stage 2", _STAGE2, 50, 3600)),
        submit=(Stage("stage 1", _SCRIPTED, 50, 5400), Stage("stage 2", _STAGE2, 10, None)),
        budget_note="running out of a stage's budget loses all of its points",
        stage2_note=None,
    ),
    Edition(
        "earlier",
        "an earlier edition (stage 1 for 100 points)",
        _EARLIER,
        graded=(Stage("stage 1", _STAGE1, 100, None),),
        submit=(Stage("stage 1", _SCRIPTED, 100, 3600),),
        budget_note="the budget is 'suggested': running out 'may' lose all of the stage's points",
        stage2_note="the class tournament (littlego tournament), for agents with at least 80 points",
    ),
)
ALIASES = {"spring2022": "fall2023", "latest": "fall2023"}
LATEST = EDITIONS[0].key


def edition(key: str) -> Edition:
    """The edition named ``key`` (or an alias); ValueError listing the known ones."""
    wanted = ALIASES.get(key, key)
    for candidate in EDITIONS:
        if candidate.key == wanted:
            return candidate
    raise InvalidInput(
        "unknown edition {!r} (known: {})".format(key, ", ".join([e.key for e in EDITIONS] + sorted(ALIASES)))
    )


def points(column: Column, win_rate: float) -> float:
    """The rubric's points for a win rate against an opponent scored by ``column``."""
    if win_rate >= TOP_RATE:
        return float(column.full)
    return (column.middle if win_rate >= MIDDLE_RATE else column.low) * win_rate


def stages(chosen: Edition, submit: bool = False) -> Tuple[Stage, ...]:
    """The stages grade plays for an edition: as graded, or as its Submit button plays them."""
    return chosen.submit if submit else chosen.graded


def stage_budget(chosen: Edition, stage: Stage, submit: bool = False) -> Tuple[float, bool]:
    """(CPU seconds a game of ``stage`` may average, whether that rate was assumed): the stated
    budget over the stage's games, else the same stage's rate in the other mode."""
    own = stages(chosen, submit)
    other = stages(chosen, not submit)
    number = own.index(stage)
    for candidate, assumed in ((stage, False), (other[number] if number < len(other) else None, True)):
        if candidate is not None and candidate.budget is not None:
            return candidate.budget / (len(candidate.opponents) * candidate.games), assumed
    raise InvalidInput(f"edition {chosen.key}: no budget for {stage.name} in either mode")


def tightest_rate(chosen: Edition) -> float:
    """The fewest CPU seconds a game that any stage of the edition allows, on average."""
    return min(stage_budget(chosen, stage, submit)[0] for submit in (False, True) for stage in stages(chosen, submit))


def fitting_cap(chosen: Edition) -> float:
    """The CPU cap a move that keeps even a game of capped moves within BUDGET_SHARE of the
    edition's tightest rate (each side's every move at the cap, plus its start-up)."""
    return BUDGET_SHARE * tightest_rate(chosen) / MOVES_PER_SIDE - STARTUP_CPU


def fitted_search(chosen: Edition, cpu_budget: float, cpu_cap: float) -> Tuple[float, float]:
    """(cpu_budget, cpu_cap) fitted to the edition: the cap lowered to ``fitting_cap`` where it is
    above it, the budget with it in the same proportion; unchanged where they already fit."""
    cap = fitting_cap(chosen)
    if cpu_cap <= cap:
        return cpu_budget, cpu_cap
    return round(cpu_budget * cap / cpu_cap, 3), round(cap, 3)
