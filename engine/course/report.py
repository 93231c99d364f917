"""The course's reports as text: a grade (``GradeReport``) as a student reads it, a tournament as a
class reads its table (and its CSV)."""

import csv
import io
from typing import Dict, List, Sequence, Tuple, Union

from engine.course.editions import MIDDLE_RATE, TOP_RATE
from engine.course.grade import GradeReport, OpponentResult, StageResult
from engine.course.tournament import TournamentFault, TournamentReport
from engine.play.match import deciding_match
from engine.sandbox.files import excerpt

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a cell a spreadsheet may run as a formula begins with
PATH_CHARACTERS = 4096  # of a folder's path in the who is who: all of it (PATH_MAX)


def _opponent_line(result: OpponentResult) -> str:
    low, high = result.win_rate_95ci
    return (
        f"  {result.opponent:<13} {result.spec[:18]:<18} {result.games:>5} {result.wins:>5} "
        f"{result.wins_as_black:>8} {result.wins_as_white:>8}   {result.win_rate:>6.1%} "
        f"({low:.1%}-{high:.1%})  {result.points:>6.2f} / {result.max_points:<2g}  "
        f"{result.cpu_per_move_mean:.3f} / {result.cpu_per_move_max:.3f}"
    )


def _budget_line(stage: StageResult) -> str:
    games = sum(r.games for r in stage.opponents)
    verdict = f"OVER: the stage loses all {stage.points_earned:.2f} of its points" if stage.over_budget else "within it"
    return "  CPU {:.2f} s of the stage's budget {:.0f} s ({} games at {:.1f} s a game{}): {}".format(
        stage.cpu_total,
        stage.budget,
        games,
        stage.budget / games if games else 0.0,
        ", assumed: the edition states none here" if stage.budget_assumed else "",
        verdict,
    )


def _total_lines(report: GradeReport) -> List[str]:
    """The grade's total with its range, and how two versions of an agent are compared instead."""
    low, high = report.points_95ci
    return [
        f"Total: {report.points:.2f} / {report.max_points:g} points ({low:.2f}-{high:.2f}, the stages' ranges summed)",
        "  Chance alone moves a grade this far: to compare two versions of an agent, play them against each "
        f"other until a test decides ({deciding_match('cmd:NEW', 'cmd:OLD')}), not two grades.",
    ]


def format_grade(report: GradeReport) -> str:
    """The grade report as text: per opponent, per stage with its budget, the total."""
    mode = "what its Submit button plays" if report.submit else "as graded"
    lines = [f"{report.agent}: {report.title}, {mode}", ""]
    if report.folder and excerpt(report.folder, PATH_CHARACTERS) != report.agent:  # a relative path, or cut short
        lines.insert(1, f"Folder: {excerpt(report.folder, PATH_CHARACTERS)}")
    header = "  {:<13} {:<18} {:>5} {:>5} {:>8} {:>8}   {:<22} {:<12} {}".format(
        "opponent",
        "played by",
        "games",
        "wins",
        "as Black",
        "as White",
        "win rate (95% CI)",
        "points",
        "CPU/move mean / max (s)",
    )
    for stage in report.stages:
        low, high = stage.points_95ci
        lines.append(
            f"{stage.name}: {stage.points:.2f} / {stage.max_points:g} points ({low:.2f}-{high:.2f} at either end of "
            "each opponent's 95% interval)"
        )
        lines.append(header)
        lines.extend(_opponent_line(result) for result in stage.opponents)
        lines.append(_budget_line(stage))
        lines.append("")
    timeouts = sum(r.timeouts for s in report.stages for r in s.opponents)
    lines.append(
        f"CPU a move: mean {report.cpu_per_move_mean:.3f} s, max {report.cpu_per_move_max:.3f} s; "
        f"limit {report.cpu_limit:g} s (a move over it loses its game: {timeouts} lost so)"
    )
    lines.extend(_total_lines(report))
    lines.append("")
    lines.append(
        f"Rubric: >= {TOP_RATE:.0%} full points, >= {MIDDLE_RATE:.0%} a multiple of the win rate, "
        f"below a smaller one; {report.budget_note}"
    )
    if report.stage2_note:
        lines.append(f"Stage 2 of this edition: {report.stage2_note}; not played here")
    for note in report.notes:
        lines.append("Note: " + note)
    faults: Dict[str, List[str]] = {}  # the same fault in many games is one line, with its games
    for stage in report.stages:
        for result in stage.opponents:
            for fault in result.faults:
                faults.setdefault(fault.partition(": ")[2], []).append(result.opponent)
    for fault, against in faults.items():
        lines.append(
            "  {} lost by fault ({}): {}".format(
                _games(len(against)), ", ".join(sorted(set(against), key=against.index)), fault
            )
        )
    lines.append(f"Time: {report.seconds:.1f} s with {report.jobs} jobs, seed {report.seed}")
    return "\n".join(lines)


def _games(count: int) -> str:
    return "1 game" if count == 1 else f"{count} games"


def format_tournament(report: TournamentReport) -> str:
    """The tournament as text: the standings with the crosstable beside them, the mini-matches, the faults."""
    agents = [s.agent for s in report.standings]
    lines = [
        (
            f"Round-robin of {len(agents)} agents, {report.games_per_match} games a pair (the extra Black "
            f"game drawn from seed {report.seed}); ranked by {report.tie_break}"
        ),
        "",
    ]
    lines.extend(_standings(report, agents))
    lines.append("(the crosstable: games won by the row's agent against the column's)")
    lines.append("")
    repeated = 0
    for match in report.matches:
        games = match.a_games + match.b_games
        alike = match.distinct_games is not None and match.distinct_games < games
        repeated += alike
        lines.append(
            "  {} {}-{} {}: {} (extra Black game: {}){}".format(
                match.a,
                match.a_games,
                match.b_games,
                match.b,
                "WIN to " + match.winner if match.winner else "tied",
                match.extra_black,
                f"; only {match.distinct_games} distinct of its {games} games" if alike else "",
            )
        )
    if repeated:
        lines.append(
            f"Note: {repeated} of the {len(report.matches)} mini-matches repeat games: agents that play a position "
            "the same way every time play one game a colour again and again, so the extra Black game decides "
            "the pair (random openings, as littlego match --random-opening plays them, would tell them apart)"
        )
    faults = _tournament_faults(report.faults)
    if faults:
        lines.append("")
    lines.extend(faults)
    for note in report.notes or ():
        lines.append("Note: " + note)
    lines.extend(_who_is_who(report, agents))
    lines.append(
        "Time: {:.1f} s with {} jobs{}".format(
            report.seconds,
            report.jobs,
            f", {report.resumed_games} games from the journal" if report.resumed_games else "",
        )
    )
    return "\n".join(lines)


def _standings(report: TournamentReport, agents: List[str]) -> List[str]:
    """The lines of the standings table, a row an agent in rank order, with its row of the crosstable beside it."""
    width = max(len(a) for a in agents + ["agent"])
    column = {a: max(len(a), 5) for a in agents}  # each crosstable column named by its agent, as wide as the name
    lines = [
        "{:>4}  {:<{w}} {:>5} {:>6} {:>6} {:>7}   {}".format(
            "rank", "agent", "WINs", "won", "lost", "faults", " ".join(f"{a:>{column[a]}}" for a in agents), w=width
        )
    ]
    for standing in report.standings:
        cells = [
            "{:>{c}}".format("-" if b == standing.agent else report.crosstable[standing.agent][b], c=column[b])
            for b in agents
        ]
        lines.append(
            "{:>4}  {:<{w}} {:>5} {:>6} {:>6} {:>7}   {}".format(
                standing.rank,
                f"{standing.agent}",
                standing.wins,
                standing.games_won,
                standing.games_lost,
                standing.faults,
                " ".join(cells),
                w=width,
            )
        )
    return lines


def _who_is_who(report: TournamentReport, agents: List[str]) -> List[str]:
    """The lines that say what each name of the table stands for (its folder, or its spec), in rank order."""
    if not report.entrants:
        return []
    width = max(len(a) for a in agents)
    return ["Who is who:"] + [
        f"  {agent:<{width}}  {excerpt(report.entrants.get(agent, '?'), PATH_CHARACTERS)}" for agent in agents
    ]


def _tournament_faults(faults: Sequence[TournamentFault]) -> List[str]:
    """A line for each agent's fault (its reason and detail): the same fault in many games is one line."""
    games_of: Dict[Tuple[str, str, str], List[TournamentFault]] = {}
    for fault in faults:
        games_of.setdefault((fault.agent, fault.reason, fault.detail), []).append(fault)
    return [
        "  {} lost {} by fault ({}): {} ({}{})".format(
            agent,
            _games(len(games)),
            reason,
            detail,
            "; ".join(f"{f.a} vs {f.b} game {f.game} as {f.colour}" for f in games[:2]),
            "; ..." if len(games) > 2 else "",
        )
        for (agent, reason, detail), games in games_of.items()
    ]


def tournament_csv(report: TournamentReport) -> str:
    """The standings with the crosstable as CSV text: one row an agent, a column for each opponent, and what
    the agent is (its folder, or its spec); no cell a spreadsheet would take for a formula."""
    agents = [s.agent for s in report.standings]
    entrants = report.entrants or {}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["rank", "agent", "WINs", "games won", "games lost", "faults"] + ["vs " + a for a in agents]
    writer.writerow([spreadsheet_cell(cell) for cell in header + ["folder or spec"]])
    for s in report.standings:
        row: List[Union[str, int]] = [s.rank, s.agent, s.wins, s.games_won, s.games_lost, s.faults]
        row += ["" if b == s.agent else report.crosstable[s.agent][b] for b in agents]
        writer.writerow([spreadsheet_cell(cell) for cell in row + [entrants.get(s.agent, "")]])
    return buffer.getvalue()


def spreadsheet_cell(cell: Union[str, int, float]) -> Union[str, int, float]:
    """A CSV cell as no spreadsheet runs it: text that begins as a formula does (=, +, -, @, a tab or a
    carriage return, OWASP's list) after a quote, which shows as text; numbers as they are."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell
