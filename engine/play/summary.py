"""A match's figures: the MatchSummary of its games, and the report as a cutechess-style table.

``summarise`` counts what the games show (wins by colour, the win rate with its Wilson interval,
the Elo difference, stone margins, CPU a move, how games ended, the faults); ``run_match`` adds
how the match was played (time, seed, jobs, the SPRT's state) and, from random openings the solved
table holds, the won openings each player kept (``openings_kept``): in a solved game a match
between two strong players is decided by the wins each gives away, and this counts them. ``format_report`` is the table
``littlego match`` prints.
"""

import math
from collections import Counter
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from engine.constants import BLACK, colour_word
from engine.play.game import MatchGame
from engine.play.openings import load_openings, opening_position
from engine.play.stats import SprtState, elo_with_margin, wilson_interval
from engine.players.base import Reason


class OpeningsKept(NamedTuple):
    """Of the games a player began on the side the opening leaves won, how many it won."""

    kept: int
    had: int


class MatchSummary(NamedTuple):
    """A match's figures, by player name (``a`` and ``b``: the specs, numbered when they are equal)."""

    a: str
    b: str
    games: int
    wins: Dict[str, int]
    wins_by_colour: Dict[str, Dict[str, int]]
    a_win_rate: float
    a_win_rate_95ci: List[float]
    elo: Optional[float]  # None where one-sided results leave it unbounded
    elo_95_margin: Optional[float]
    a_mean_stone_margin: float
    cpu_per_move: Dict[str, Dict[str, float]]
    end: Dict[str, int]  # games by how they ended (every Reason)
    faults: List[str]
    seconds: float = 0.0
    seed: int = 1
    random_opening: int = 0
    every_opening: Optional[bool] = None  # True where every opening of random_opening plies was played
    jobs: int = 1
    a_colour: str = "alternating"
    sprt: Optional[SprtState] = None
    interrupted: Optional[str] = None  # "after N of M games" when Ctrl-C ended it
    # by player, where the solved table settles the openings (random 2-ply ones)
    won_openings_kept: Optional[Dict[str, OpeningsKept]] = None

    def to_json(self) -> Dict[str, object]:
        """The summary as one JSON-ready object (no ``sprt``, ``interrupted`` or ``won_openings_kept`` where
        there are none; each player's OpeningsKept as [kept, had])."""
        document = {name: value for name, value in self._asdict().items() if value is not None}
        if self.sprt is not None:
            document["sprt"] = self.sprt.to_json()
        return document


def summarise(spec_a: str, spec_b: str, results: Sequence[MatchGame]) -> MatchSummary:
    """The MatchSummary of these MatchGames."""
    name_a, name_b = (spec_a, spec_b) if spec_a != spec_b else (spec_a + " #1", spec_b + " #2")
    games = len(results)
    a_wins = sum(1 for r in results if r.a_won)
    by_colour = {name_a: {"black": 0, "white": 0}, name_b: {"black": 0, "white": 0}}
    margins: List[int] = []
    cpu: Dict[str, List[float]] = {name_a: [], name_b: []}
    for r in results:
        assert r.winner is not None  # a game ends by the rules (no draws) or by a fault, which its player loses
        by_colour[name_a if r.a_won else name_b][colour_word(r.winner)] += 1
        a_margin = r.black_stones - r.white_stones
        margins.append(a_margin if r.a_colour == BLACK else -a_margin)
        for colour, seconds in r.cpu:
            cpu[name_a if colour == r.a_colour else name_b].append(seconds)
    low, high = wilson_interval(a_wins, games)
    elo, elo_margin = elo_with_margin(a_wins, games) if games else (math.nan, math.nan)
    ends = Counter(r.reason for r in results)
    return MatchSummary(
        a=name_a,
        b=name_b,
        games=games,
        wins={name_a: a_wins, name_b: games - a_wins},
        wins_by_colour=by_colour,
        a_win_rate=a_wins / games if games else 0.0,
        a_win_rate_95ci=[low, high],
        # JSON has no infinity: an Elo difference that one-sided results leave unbounded is None.
        elo=elo if math.isfinite(elo) else None,
        elo_95_margin=elo_margin if math.isfinite(elo_margin) else None,
        a_mean_stone_margin=sum(margins) / games if games else 0.0,
        cpu_per_move={
            name: {"mean": (sum(s) / len(s)) if s else 0.0, "max": max(s) if s else 0.0} for name, s in cpu.items()
        },
        end={reason.value: ends.get(reason, 0) for reason in Reason},
        faults=[r.detail for r in results if r.reason != Reason.END][:20],
    )


def openings_kept(
    names: Tuple[str, str], results: Sequence[MatchGame], opening_plies: int
) -> Optional[Dict[str, OpeningsKept]]:
    """{player: OpeningsKept} for the two ``names`` (A's, B's): in how many of the games it began on the
    side its random opening leaves won (by the solved table of openings) each player won, whatever
    ended the game; None where the table does not settle the openings (another number of plies)."""
    if not opening_plies:
        return None
    table = load_openings()
    if opening_plies != table.plies:
        return None
    kept: Counter[str] = Counter()
    had: Counter[str] = Counter()
    for game in results:
        won = table.winner(opening_position(game.moves, opening_plies))
        holder = names[0] if won == game.a_colour else names[1]
        had[holder] += 1
        kept[holder] += game.winner == won
    return {name: OpeningsKept(kept[name], had[name]) for name in names}


def format_report(summary: MatchSummary) -> str:
    """The match as a cutechess-style table."""
    a, b = summary.a, summary.b
    width = max(len(a), len(b), 6)
    lines = [
        "{:<{w}} {:>6} {:>8} {:>8} {:>11} {:>10}".format(
            "player", "wins", "as Black", "as White", "CPU/move", "worst CPU", w=width
        )
    ]
    for name in (a, b):
        colour = summary.wins_by_colour[name]
        cpu = summary.cpu_per_move[name]
        lines.append(
            "{:<{w}} {:>6} {:>8} {:>8} {:>10.3f}s {:>9.3f}s".format(
                name, summary.wins[name], colour["black"], colour["white"], cpu["mean"], cpu["max"], w=width
            )
        )
    low, high = summary.a_win_rate_95ci
    lines.append("")
    lines.append(f"Games: {summary.games}   {a} win rate: {summary.a_win_rate:.1%} (95% CI {low:.1%} to {high:.1%})")
    if summary.every_opening:
        plies = summary.random_opening
        lines.append(f"Openings: every opening of {plies} {'ply' if plies == 1 else 'plies'}, once with each colour")
    elo, margin = summary.elo, summary.elo_95_margin
    if elo is None:
        lines.append("Elo difference: unbounded (one side won every game)")
    elif margin is None:
        lines.append(f"Elo difference: {elo:+.1f} (error margin unbounded: too few games lost)")
    else:
        lines.append(f"Elo difference: {elo:+.1f} +/- {margin:.1f}")
    lines.append(f"Mean stone margin for {a}: {summary.a_mean_stone_margin:+.2f} (stones, no komi)")
    ends = ", ".join(f"{k} {v}" for k, v in summary.end.items() if v)
    lines.append(f"Game ends: {ends}")
    if summary.won_openings_kept:
        kept = ", ".join(f"{name} {k} of {n}" for name, (k, n) in summary.won_openings_kept.items())
        lines.append(f"Won openings kept (each opening settled by the solved table): {kept}")
    for fault in summary.faults:
        lines.append(f"  fault: {fault}")
    test = summary.sprt
    if test:
        verdict = {
            "H1": f"H1 accepted: {a} is at least {test.elo1:+g} Elo stronger",
            "H0": f"H0 accepted: {a} is not {test.elo1:+g} Elo stronger (at most {test.elo0:+g})",
            None: f"inconclusive after {test.games} games",
        }[test.decision]
        model = "colour pairs" if test.model == "pairs" else "games"
        lines.append(
            f"SPRT [{test.elo0:+g}, {test.elo1:+g}] (alpha {test.alpha:g}, beta {test.beta:g}, on {model}): LLR "
            f"{test.llr:.2f} in ({test.lower:.2f}, {test.upper:.2f}): {verdict}"
        )
    lines.append(f"Time: {summary.seconds:.1f} s with {summary.jobs} jobs")
    return "\n".join(lines)
