"""``littlego grade``: the course's verdict on an agent, as one edition grades it."""

import json
import os

from engine.cli.arguments import SCHEDULER_HELP, command, positive_int, scheduler
from engine.common.progress import counter
from engine.course.build import LANGUAGES, built_agents
from engine.course.editions import EDITIONS, LATEST
from engine.course.grade import grade, total_games
from engine.course.report import format_grade
from engine.players.specs import KNOWN, make_player


def register(commands):
    grading = command(commands, "grade", _grade)
    grading.add_argument("agent", metavar="AGENT",
                         help="an agent folder (built and run as the course's build.sh does: the first of {} in "
                              "it) or a player spec: {}".format(", ".join(l.source for l in LANGUAGES), KNOWN))
    grading.add_argument("--edition", choices=[e.key for e in EDITIONS], default=LATEST,
                         help="the edition whose rubric, games and budgets apply (default: the latest, %(default)s)")
    grading.add_argument("--submit", action="store_true",
                         help="play what the edition's Submit button plays instead of the real grading")
    grading.add_argument("--games", type=positive_int, default=None, metavar="N",
                         help="N games against each opponent instead of the edition's, for a quick look (the "
                              "budgets scale with the games)")
    grading.add_argument("--championship", default="champion", metavar="SPEC",
                         help="the player standing in for the course's championship agent (default %(default)s)")
    grading.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    grading.add_argument("--jobs", type=positive_int, default=None, help="parallel games (default: all cores)")
    grading.add_argument("--scheduler", type=scheduler, default=None, help=SCHEDULER_HELP.replace(
        "the experiment's [executor], else ", ""))
    grading.add_argument("--json", action="store_true", help="print the report as one JSON object")


def _grade(args):
    """grade an agent as the course would: the rubric's points, CPU and budgets

    Play every stage of the chosen edition against the course's opponents (ours stand in for
    the hidden ones: the report says which), in parallel, and print per opponent the games,
    wins as Black and as White, the win rate with its 95% interval and the rubric's points;
    per stage the agent's CPU against the stage's budget (over it, the stage loses all its
    points); CPU per move (a move over 10 s loses its game) and the total out of 100.
    """
    make_player(args.championship).close()           # a bad spec fails here, before any game
    folders = [args.agent] if os.path.isdir(args.agent) else []
    if not folders:
        make_player(args.agent).close()
    with built_agents(folders) as built:
        agent, broken, notes = args.agent, {}, []
        for one in built:
            agent = one.spec
            notes.append("{}: {}, {}".format(one.folder, one.language or "no agent file",
                                             "cannot play: " + one.error if one.error else "built as build.sh does"))
            if one.error:
                broken[agent] = one.error
        progress = counter("grade", "game", total_games(args.edition, args.submit, args.games))
        try:
            report = grade(agent, args.edition, submit=args.submit, games=args.games,
                           championship=args.championship, seed=args.seed, jobs=args.jobs or os.cpu_count() or 1,
                           scheduler=args.scheduler, progress=lambda done, total: progress(done), broken=broken,
                           notes=notes)
        finally:
            progress.close()
        if folders:
            report.agent = args.agent
    print(json.dumps(report.to_json(), indent=2) if args.json else format_grade(report))
    return 0
