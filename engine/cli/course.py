"""``littlego grade`` and ``littlego tournament``: the course's verdicts on an agent, as one edition
grades it, and on a class, as the earlier edition's round-robin ranks it; ``littlego sandbox`` and
``littlego move``: how an agent's moves run here, and one move run so (a kept fault's replay.sh)."""

import argparse
import json
import os
import sys
from typing import List, Sequence, Tuple

from engine.cli.parts.argument_types import EDITION_NAMES, edition_key, file_to_write, positive_int
from engine.cli.parts.arguments import add_game_options, game_settings, program_limits, progress_bar, sandbox_limits
from engine.cli.parts.commands import Subcommands, command
from engine.common.progress import counter
from engine.coords import move_to_text
from engine.course.build import LANGUAGES, built_agents, recognise, refuse_remote_builds
from engine.course.editions import LATEST
from engine.course.grade import grade, total_games
from engine.course.report import format_grade, format_tournament, tournament_csv
from engine.course.tournament import MINI_MATCH_GAMES, NAME_CHARACTERS, play_tournament, shown_names
from engine.errors import InvalidInput
from engine.players.base import PlayerFault
from engine.players.host import format_input
from engine.players.program import ProgramPlayer
from engine.players.specs import KNOWN
from engine.protocol import read_input, write_atomic
from engine.sandbox import accounting, gamebox, users, workspace
from engine.sandbox.bwrap import environment
from engine.sandbox.files import excerpt
from engine.sandbox.isolation import isolation, support
from engine.sandbox.limits import DEFAULT_LIMITS

AGENT_CHARACTERS = 200  # of a graded folder's path, shown safely, in its grade's report


def register(commands: Subcommands) -> None:
    grading = command(commands, "grade", _grade)
    grading.add_argument(
        "agent",
        metavar="AGENT",
        help="an agent folder (built and run as the course's build.sh does: the first of {} in "
        "it) or a player spec: {}".format(", ".join(language.source for language in LANGUAGES), KNOWN),
    )
    grading.add_argument(
        "--edition",
        type=edition_key,
        default=LATEST,
        metavar="EDITION",
        help="the edition whose rubric, games and budgets apply: "
        + EDITION_NAMES
        + " (default: the latest, %(default)s)",
    )
    grading.add_argument(
        "--submit", action="store_true", help="play what the edition's Submit button plays instead of the real grading"
    )
    grading.add_argument(
        "--games",
        type=positive_int,
        default=None,
        metavar="N",
        help="N games against each opponent instead of the edition's, for a quick look (the "
        "budgets scale with the games)",
    )
    grading.add_argument(
        "--championship",
        default="champion",
        metavar="SPEC",
        help="the player standing in for the course's championship agent (default %(default)s)",
    )
    grading.add_argument("--json", action="store_true", help="print the report as one JSON object")
    add_game_options(grading, omit=("cpu_limit", "journal"))
    _register_tournament(commands)
    command(commands, "sandbox", _sandbox)
    one_move = command(commands, "move", _move)
    one_move.add_argument("folder", metavar="FOLDER", help="the agent folder (never written: the move runs in a copy)")
    one_move.add_argument("input", metavar="INPUT", help="the input.txt the move answers")
    one_move.add_argument(
        "--command",
        metavar="COMMAND",
        help="the shell command line that plays a move in the folder (default: this Python on my_player3.py)",
    )
    add_game_options(one_move, omit=("seed", "jobs", "scheduler", "journal", "progress"))


def _register_tournament(commands: Subcommands) -> None:
    round_robin = command(commands, "tournament", _tournament)
    round_robin.add_argument(
        "agents",
        metavar="AGENT",
        nargs="+",
        help="agent folders (each built as build.sh does), one folder of agent folders, or player specs",
    )
    round_robin.add_argument(
        "--games",
        type=positive_int,
        default=MINI_MATCH_GAMES,
        help="games a mini-match, odd (default %(default)s, as the course)",
    )
    round_robin.add_argument("--csv", metavar="FILE", help="also write the standings and crosstable as CSV")
    round_robin.add_argument("--json", action="store_true", help="print the report as one JSON object")
    add_game_options(round_robin, "seed of the games and of who plays the extra Black game", omit=("cpu_limit",))


def _grade(args: argparse.Namespace) -> int:
    """grade an agent as the course would: the rubric's points, CPU and budgets

    Play every stage of the chosen edition against the course's opponents (ours stand in for
    the hidden ones: the report says which), in parallel, and print per opponent the games,
    wins as Black and as White, the win rate with its 95% interval and the rubric's points;
    per stage the agent's CPU against the stage's budget (over it, the stage loses all its
    points); CPU per move (a move over 10 s loses its game) and the total out of 100, each stage's
    points and the total with the range chance alone gives them (the win rates' intervals through
    the rubric): to compare two versions of an agent, play them against each other (littlego match
    ... --sprt), not two grades. A folder
    of agent folders is refused, naming them (littlego tournament plays a class); an agent that
    cannot be built or played is graded (every game a fault) and ends with exit status 1.
    """
    folders = [args.agent] if os.path.isdir(args.agent) else []
    if folders:
        refuse_a_class(args.agent)
    refuse_remote_builds(folders, args.scheduler)
    # A bad spec fails here, before any game.
    limits = program_limits(args, [args.championship] + ([] if folders else [args.agent]), folders)
    with built_agents(folders, limits) as built:
        agent, broken, notes = args.agent, {}, []
        for one in built:
            agent = one.spec
            notes.append(
                "{}: {}, {}".format(
                    excerpt(one.folder, 200),
                    one.language or "no agent file",
                    "cannot play: " + one.error if one.error else "built as build.sh does",
                )
            )
            if one.error:
                broken[agent] = one.error
        progress = counter("grade", "game", total_games(args.edition, args.submit, args.games), bar=progress_bar(args))
        try:
            report = grade(
                agent,
                args.edition,
                submit=args.submit,
                games=args.games,
                championship=args.championship,
                settings=game_settings(
                    args, jobs=args.jobs or os.cpu_count() or 1, progress=lambda done, _: progress(done), limits=limits
                ),
                broken=broken,
                notes=notes,
            )
        finally:
            progress.close()
        if folders:
            # A newline in a folder's name forges no line; the JSON keeps its whole path.
            report = report._replace(agent=excerpt(args.agent, AGENT_CHARACTERS), folder=os.path.abspath(args.agent))
    print(json.dumps(report.to_json(), indent=2) if args.json else format_grade(report))
    if broken:  # every game a fault: a grade of 0 that says nothing of the agent's play
        print(f"littlego grade: the agent could not play: {next(iter(broken.values()))}", file=sys.stderr)
        return 1
    return 0


CLASS_NAMES_SHOWN = 5  # agent folders named in the refusal of a class folder


def refuse_a_class(folder: str) -> None:
    """InvalidInput where ``folder`` holds no agent file but folders that do (a class, given to grade by
    mistake: each of its games would be a fault, and its total 0), naming them."""
    if recognise(folder) is not None:
        return
    try:
        inside = sorted(os.listdir(folder))
    except OSError:
        return
    agents = [
        name
        for name in inside
        if os.path.isdir(os.path.join(folder, name))
        and not os.path.islink(os.path.join(folder, name))
        and recognise(os.path.join(folder, name)) is not None
    ]
    if agents:
        shown = ", ".join(excerpt(name, NAME_CHARACTERS) for name in agents[:CLASS_NAMES_SHOWN])
        more = f" and {len(agents) - CLASS_NAMES_SHOWN} more" if len(agents) > CLASS_NAMES_SHOWN else ""
        raise InvalidInput(
            f"{excerpt(folder, 200)} holds no agent file but {len(agents)} agent folders ({shown}{more}): grade one "
            f"of them (littlego grade {os.path.join(excerpt(folder, 200), excerpt(agents[0], NAME_CHARACTERS))}), "
            f"or play the class's round-robin (littlego tournament {excerpt(folder, 200)})"
        )


def tournament_agents(arguments: Sequence[str]) -> Tuple[List[str], List[str]]:
    """(names, agents) of the AGENT arguments, an agent being a folder (absolute) or a player spec: one
    folder holding no agent file but folders stands for its folders; a folder's name is its own, shown
    safely and told apart from any other that would show alike (``shown_names``)."""
    if len(arguments) == 1 and os.path.isdir(arguments[0]) and recognise(arguments[0]) is None:
        inside = sorted(os.path.join(arguments[0], name) for name in os.listdir(arguments[0]))
        arguments = [path for path in inside if os.path.isdir(path)]  # a link among them is refused at its build
    agents = [os.path.abspath(argument) if os.path.isdir(argument) else argument for argument in arguments]
    names = [os.path.basename(agent) if os.path.isdir(agent) else agent for agent in agents]
    return shown_names(names, agents), agents


def _tournament(args: argparse.Namespace) -> int:
    """play the class round-robin: mini-matches of 11 games, one WIN to each pair's winner

    Every agent plays every other one a mini-match of --games games (colours alternate; who
    has the extra Black game is drawn from the seed); the pair's winner gets one WIN. Agents
    rank by WINs, then games won, then head to head. Prints the table with its crosstable,
    every mini-match and every fault with the agent it cost. An agent that cannot be built
    loses its games with the reason. With --resume FILE, a killed tournament continues.
    """
    if args.csv:
        file_to_write(args.csv, "--csv", "table.csv")
    if args.resume:
        file_to_write(args.resume, "--resume", "tournament.jsonl")
    names, agents = tournament_agents(args.agents)
    folders = [a for a in agents if os.path.isdir(a)]
    refuse_remote_builds(folders, args.scheduler)
    # A bad spec fails here, before any game.
    limits = program_limits(args, [a for a in agents if a not in folders], folders)
    with built_agents(folders, limits) as built:
        by_folder = {b.folder: b for b in built}
        specs = [by_folder[a].spec if a in by_folder else a for a in agents]
        broken = {b.spec: b.error for b in built if b.error}
        notes = [
            f"{name}: {by_folder[a].error}" for name, a in zip(names, agents) if a in by_folder and by_folder[a].error
        ]
        total = len(agents) * (len(agents) - 1) // 2 * args.games
        progress = counter("tournament", "game", total, bar=progress_bar(args))
        try:
            report = play_tournament(
                names,
                specs,
                broken,
                games=args.games,
                settings=game_settings(
                    args, jobs=args.jobs or os.cpu_count() or 1, progress=lambda done, _: progress(done), limits=limits
                ),
                notes=notes,
                sources=agents,
            )
        except KeyboardInterrupt:
            print(
                "\ninterrupted: {}".format(
                    "the same command continues the tournament from " + args.resume
                    if args.resume
                    else "--resume FILE keeps the games, so that it can continue"
                ),
                file=sys.stderr,
            )
            return 130
        finally:
            progress.close()
    if args.csv:
        write_atomic(args.csv, tournament_csv(report))
    print(json.dumps(report.to_json(), indent=2) if args.json else format_tournament(report))
    return 0


MOVE_STDERR_SHOWN = 2000  # characters of the end of the agent's stderr that littlego move shows


def _move(args: argparse.Namespace) -> int:
    """play one move of an agent folder on an input.txt, in the sandbox, as a game's move runs

    Copy FOLDER into a workspace of its own, write INPUT there as input.txt, run the agent once
    under the sandbox options and --cpu-limit, and print its move (i,j or PASS) on stdout and the
    end of its stderr on stderr; a fault (a crash, a timeout, a bad output.txt) is said, with exit
    status 1. A kept faulting move's replay.sh runs this on the folder as submitted, with
    --sandbox strict (add --sandbox off to run it outside the sandbox, with the limits alone).
    """
    game = read_input(args.input)
    player = ProgramPlayer(
        args.folder, args.command, cpu_limit=args.cpu_limit, spec=excerpt(args.folder, 200), limits=sandbox_limits(args)
    )
    try:
        player.new_game(game.player, 0)
        move, cpu = player.answer(format_input(game.player, game.previous, game.current))
    except PlayerFault as fault:
        print(f"littlego move: {fault}", file=sys.stderr)
        return 1
    else:
        said = player.stderr_tail(MOVE_STDERR_SHOWN)
        if said:
            print(f"its stderr: {said}", file=sys.stderr)
        print(move_to_text(move))
        print(f"{cpu:.3f} s of CPU", file=sys.stderr)
        return 0
    finally:
        player.close()


def _sandbox(args: argparse.Namespace) -> int:
    """say how untrusted agents run on this machine: isolation, what the limits count, the environment

    Whether bubblewrap isolates a move here (and why not), which cgroups count a move's CPU,
    memory and tasks over all of its processes (else the rlimits bound each process alone),
    and the whole environment an agent gets. The options of every command that runs agents
    (--sandbox, --memory, --processes, --file-size, --folder-size) apply these.
    """
    isolated, why = isolation()
    print("isolation: {}".format("bubblewrap" if isolated else f"none ({why})"))
    print(f"limits: {accounting.describe_accounting()}")
    root = workspace.quota_root()
    print(
        "disk: {}".format(
            f"each copy a tmpfs of its own under {root} (--folder-size plus --file-size MiB, "
            f"{workspace.WORKSPACE_ENTRIES:,} files and folders), its /tmp and /dev/shm inside"
            if root
            else "no quota (littlego may not mount here): copies on the host's disk, each file bounded"
        )
    )
    print(
        "moves: {}".format(
            "forked from one sandbox's move server a game (a new sandbox each game)"
            if gamebox.available(DEFAULT_LIMITS)
            else "a sandbox and a process each"
        )
    )
    if isolated and os.geteuid() == 0:
        found = support()
        print(
            f"users: each living sandbox a uid of its own ({users.FIRST_UID}-{users.FIRST_UID + users.USERS - 1}); "
            + (
                "a move of a sandbox of its own has a user namespace of its own"
                if found.nested
                else "no user namespace for them here: a game's moves share their user's keyrings"
            )
        )
    print("environment: {}".format(" ".join(f"{k}={v}" for k, v in sorted(environment("FOLDER").items()))))
    return 0
