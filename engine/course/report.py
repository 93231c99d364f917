"""The course's reports as text: a grade (``GradeReport``) as a student reads it."""

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
