"""The course's reports as text: a grade (``GradeReport``) as a student reads it, a tournament as a
class reads its table (and its CSV)."""

import csv
import io

from engine.course.editions import MIDDLE_RATE, TOP_RATE


def _opponent_line(result):
    low, high = result.win_rate_95ci
    return "  {:<13} {:<18} {:>5} {:>5} {:>8} {:>8}   {:>6.1%} ({:.1%}-{:.1%})  {:>6.2f} / {:<2g}  {:.3f} / {:.3f}".format(
        result.opponent, result.spec[:18], result.games, result.wins, result.wins_as_black, result.wins_as_white,
        result.win_rate, low, high, result.points, result.max_points, result.cpu_per_move_mean,
        result.cpu_per_move_max)


def _budget_line(stage):
    games = sum(r.games for r in stage.opponents)
    verdict = ("OVER: the stage loses all {:.2f} of its points".format(stage.points_earned) if stage.over_budget
               else "within it")
    return "  CPU {:.2f} s of the stage's budget {:.0f} s ({} games at {:.1f} s a game{}): {}".format(
        stage.cpu_total, stage.budget, games, stage.budget / games if games else 0.0,
        ", assumed: the edition states none here" if stage.budget_assumed else "", verdict)


def format_grade(report):
    """The grade report as text: per opponent, per stage with its budget, the total."""
    mode = "what its Submit button plays" if report.submit else "as graded"
    lines = ["{}: {}, {}".format(report.agent, report.title, mode), ""]
    header = "  {:<13} {:<18} {:>5} {:>5} {:>8} {:>8}   {:<22} {:<12} {}".format(
        "opponent", "played by", "games", "wins", "as Black", "as White", "win rate (95% CI)", "points",
        "CPU/move mean / max (s)")
    for stage in report.stages:
        lines.append("{}: {:.2f} / {:g} points".format(stage.name, stage.points, stage.max_points))
        lines.append(header)
        lines.extend(_opponent_line(result) for result in stage.opponents)
        lines.append(_budget_line(stage))
        lines.append("")
    timeouts = sum(r.timeouts for s in report.stages for r in s.opponents)
    lines.append("CPU a move: mean {:.3f} s, max {:.3f} s; limit {:g} s (a move over it loses its game: {} lost so)"
                 .format(report.cpu_per_move_mean, report.cpu_per_move_max, report.cpu_limit, timeouts))
    lines.append("Total: {:.2f} / {:g} points".format(report.points, report.max_points))
    lines.append("")
    lines.append("Rubric: >= {:.0%} full points, >= {:.0%} a multiple of the win rate, below a smaller one; {}"
                 .format(TOP_RATE, MIDDLE_RATE, report.budget_note))
    if report.stage2_note:
        lines.append("Stage 2 of this edition: {}; not played here".format(report.stage2_note))
    for note in report.notes:
        lines.append("Note: " + note)
    faults = {}                     # the same fault in many games is one line, with its games
    for stage in report.stages:
        for result in stage.opponents:
            for fault in result.faults:
                faults.setdefault(fault.partition(": ")[2], []).append(result.opponent)
    for fault, against in faults.items():
        lines.append("  {} lost by fault ({}): {}".format(
            _games(len(against)), ", ".join(sorted(set(against), key=against.index)), fault))
    lines.append("Time: {:.1f} s with {} jobs, seed {}".format(report.seconds, report.jobs, report.seed))
    return "\n".join(lines)


def _games(count):
    return "1 game" if count == 1 else "{} games".format(count)


def format_tournament(report):
    """The tournament as text: the standings with the crosstable beside them, the mini-matches, the faults."""
    agents = [s.agent for s in report.standings]
    width = max(len(a) for a in agents + ["agent"])
    short = {a: str(n + 1) for n, a in enumerate(agents)}
    lines = ["Round-robin of {} agents, {} games a pair (the extra Black game drawn from seed {}); ranked by {}".format(
        len(agents), report.games_per_match, report.seed, report.tie_break), ""]
    lines.append("{:>4}  {:<{w}} {:>5} {:>6} {:>6} {:>7}   {}".format(
        "rank", "agent", "WINs", "won", "lost", "faults", " ".join("{:>5}".format(short[a]) for a in agents),
        w=width))
    for n, standing in enumerate(report.standings):
        cells = ["{:>5}".format("-" if b == standing.agent else report.crosstable[standing.agent][b]) for b in agents]
        lines.append("{:>4}  {:<{w}} {:>5} {:>6} {:>6} {:>7}   {}".format(
            standing.rank, "{}".format(standing.agent), standing.wins, standing.games_won, standing.games_lost,
            standing.faults, " ".join(cells), w=width))
    lines.append("(the crosstable's columns follow the ranking: games won by the row's agent against the column's)")
    lines.append("")
    for match in report.matches:
        lines.append("  {} {}-{} {}: {} (extra Black game: {})".format(
            match.a, match.a_games, match.b_games, match.b, "WIN to " + match.winner if match.winner else "tied",
            match.extra_black))
    faults = {}                     # the same fault of an agent in many games is one line
    for fault in report.faults:
        faults.setdefault((fault.agent, fault.reason, fault.detail), []).append(fault)
    if faults:
        lines.append("")
    for (agent, reason, detail), games in faults.items():
        lines.append("  {} lost {} by fault ({}): {} ({}{})".format(
            agent, _games(len(games)), reason, detail,
            "; ".join("{} vs {} game {} as {}".format(f.a, f.b, f.game, f.colour) for f in games[:2]),
            "; ..." if len(games) > 2 else ""))
    for note in report.notes or ():
        lines.append("Note: " + note)
    lines.append("Time: {:.1f} s with {} jobs{}".format(report.seconds, report.jobs, ", {} games from the journal".format(
        report.resumed_games) if report.resumed_games else ""))
    return "\n".join(lines)


def tournament_csv(report):
    """The standings with the crosstable as CSV text: one row an agent, a column for each opponent."""
    agents = [s.agent for s in report.standings]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["rank", "agent", "WINs", "games won", "games lost", "faults"] + ["vs " + a for a in agents])
    for s in report.standings:
        writer.writerow([s.rank, s.agent, s.wins, s.games_won, s.games_lost, s.faults] +
                        ["" if b == s.agent else report.crosstable[s.agent][b] for b in agents])
    return buffer.getvalue()
