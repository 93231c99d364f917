"""``littlego check``: a player (an agent folder in any course language, or any spec) on solved won positions."""

import argparse
import datetime
import json
import os
import random
import sys
import time
from typing import Callable, List, Optional, Sequence, Tuple

from engine.cli.parts.argument_types import file_to_write, positive_int, positive_seconds
from engine.cli.parts.arguments import add_progress, add_sandbox, program_limits, progress_bar
from engine.cli.parts.commands import Subcommands, command
from engine.common.progress import Progress, counter
from engine.constants import COURSE_CPU_LIMIT
from engine.course.build import LANGUAGES, agents_built, recognise
from engine.data import CHECK_ANSWERS, CHECK_POSITIONS
from engine.errors import InvalidInput
from engine.players.gnugo import gnugo_path
from engine.players.specs import KNOWN, KNOWN_NAMES, folder_without_command, make_player
from engine.protocol import write_atomic
from engine.ruler.check import check_map, record_references, run_check
from engine.ruler.check_report import check_json, format_check, misses_sgf
from engine.ruler.position_set import PositionSet, SolvedPosition, load_positions
from engine.ruler.reference_answers import (
    DEFAULT_REFERENCES,
    RecordedAnswers,
    load_answers,
    recorded_info,
    save_answers,
)
from engine.sandbox.files import excerpt

SPLITS = ("held-out", "train", "all")


def register(commands: Subcommands) -> None:
    check = command(commands, "check", _check)
    check.add_argument(
        "spec",
        nargs="?",
        metavar="SPEC",
        help="the player: an agent folder (Python, C++ or Java, built once as the course's build.sh builds it, "
        "each move run in the sandbox) or any player spec: " + KNOWN,
    )
    _add_positions(check)
    _add_references(check)
    _add_outputs(check)
    add_sandbox(check)
    add_progress(check)


def _add_positions(check: argparse.ArgumentParser) -> None:
    """The options that choose the positions asked."""
    check.add_argument(
        "--positions",
        metavar="FILE",
        default=CHECK_POSITIONS,
        help="a positions file (evolve positions) to measure on (default: the shipped set, whose reference answers "
        "are recorded; for another file the references are asked too)",
    )
    check.add_argument(
        "--split",
        choices=SPLITS,
        default="held-out",
        help="the file's won positions measured: held-out (default; no tuner or fitness ever saw them), train "
        "(those the regret fitness uses) or all",
    )
    check.add_argument(
        "--limit",
        type=positive_int,
        metavar="N",
        help="a sample of N of those positions (drawn by --seed), for a quick look",
    )
    check.add_argument("--seed", type=int, default=1, help="the sample's seed (default %(default)s)")


def _add_references(check: argparse.ArgumentParser) -> None:
    """The options that choose the players beside it, and how it is asked."""
    check.add_argument(
        "--references",
        type=_specs,
        default=DEFAULT_REFERENCES,
        metavar="A,B,...",
        help="the players shown beside it on the same positions (default: {}): recorded answers where the table "
        "has them, else asked now".format(",".join(DEFAULT_REFERENCES)),
    )
    check.add_argument("--no-references", action="store_true", help="measure the player alone")
    check.add_argument(
        "--jobs", type=positive_int, default=os.cpu_count() or 1, help="positions asked at once (default: all cores)"
    )
    check.add_argument(
        "--cpu-limit",
        type=positive_seconds,
        default=COURSE_CPU_LIMIT,
        metavar="SECONDS",
        help="CPU a move of an agent may take (default %(default)s, as the course)",
    )


def _add_outputs(check: argparse.ArgumentParser) -> None:
    """The options that say what the report writes, and where."""
    check.add_argument("--json", metavar="FILE", help="write the whole report to FILE as JSON")
    check.add_argument("--sgf", metavar="FILE", help="write the positions given away to FILE, an SGF collection")
    check.add_argument(
        "--misses",
        type=_misses,
        default=None,
        metavar="N",
        help="show the first N positions given away (default: all; 0: none)",
    )
    check.add_argument(
        "--serve",
        metavar="ADDRESS",
        help="the address `littlego serve` printed (http://127.0.0.1:8561/?token=...): each position's "
        "address is given whole, to open as it is",
    )
    check.add_argument(
        "--record-references",
        metavar="FILE",
        help="instead of checking a player: ask the --references every won position of --positions and record "
        "their answers in FILE (how engine/data/check-answers.json.gz is made)",
    )


def _specs(text: str) -> Tuple[str, ...]:
    specs = tuple(part.strip() for part in text.split(",") if part.strip())
    if not specs:
        raise argparse.ArgumentTypeError("expected player specs separated by commas")
    return specs


def _misses(text: str) -> Optional[int]:
    if text == "all":
        return None
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a number or all, not {text!r}")
    return int(text)


def _check(args: argparse.Namespace) -> int:
    """score a player on solved won positions, beside the course's opponents, GNU Go and our agent

    Little-Go is solved: in a won position each move keeps the win or gives it away. SPEC (an agent folder
    in Python, C++ or Java, or any player spec) is asked each won position of the shipped set's held-out
    split alone, one call of the agent a position in a fresh copy of its folder, as the course's host asks
    a move, on --jobs processes. It prints the share it kept by ply and by colour beside the reference
    players (their answers recorded with the set), what files its moves left in its folder (the state it
    keeps between moves), and every position it gave away: the board, its move and the winning moves, and
    the address that opens the position on the board of littlego serve. docs/check.md explains it all.
    """
    if args.record_references:
        return _record(args)
    if not args.spec:
        raise InvalidInput("name the player to check (SPEC: an agent folder or a player spec)")
    for option in ("json", "sgf"):
        if getattr(args, option):
            file_to_write(getattr(args, option), "--" + option, f"check.{option}")
    _refuse_missing_agent(args.spec)
    found = load_positions(args.positions)
    positions, where = _chosen(found, args)
    references: Sequence[str] = () if args.no_references else args.references
    limits = program_limits(args, [args.spec] + [r for r in references if _can_make(r)])
    recorded = _recorded(args.positions, found)
    with agents_built([args.spec] + list(references), limits), check_map(args.jobs) as map_function:
        result = run_check(
            args.spec,
            positions,
            references,
            recorded,
            map_function,
            args.jobs,
            args.cpu_limit,
            limits,
            _progress(args, excerpt(args.spec, 60)),
            where,
        )
    print(format_check(result, args.serve, args.misses))
    if args.json:
        write_atomic(args.json, json.dumps(check_json(result, args.serve), indent=2) + "\n")
    if args.sgf:
        write_atomic(args.sgf, misses_sgf(result))
    return 0


def _refuse_missing_agent(spec: str) -> None:
    """InvalidInput for a spec that names no player: a path to no folder, a folder with no agent, a bad spec."""
    folder = folder_without_command(spec)
    if folder is None and spec.partition(":")[0] not in KNOWN_NAMES and (os.sep in spec or spec.startswith(".")):
        raise InvalidInput(f"{spec}: no such agent folder")
    if folder is not None and not os.path.isdir(folder):
        raise InvalidInput(f"{folder}: no such agent folder")
    if folder is not None and recognise(folder) is None:
        raise InvalidInput(
            f"{folder}: holds no agent: the course's build.sh looks for "
            + ", ".join(language.source for language in LANGUAGES)
        )
    make_player(spec).close()  # any other bad spec: its one line


def _can_make(spec: str) -> bool:
    """Whether the player of ``spec`` can be made here: False for GNU Go where it is not installed (the check
    leaves it out, or shows its recorded answers); a bad spec is an error."""
    if spec.partition(":")[0] == "gnugo" and gnugo_path() is None:
        return False
    make_player(spec).close()
    return True


def _chosen(found: PositionSet, args: argparse.Namespace) -> Tuple[Tuple[SolvedPosition, ...], str]:
    """(the won positions of --split, sampled to --limit, in the file's order; where they come from, in words)."""
    won = tuple(
        p for p in found.positions if p.won and (args.split == "all" or p.is_held_out == (args.split == "held-out"))
    )
    if not won:
        raise InvalidInput(f"{args.positions}: no won position in the {args.split} split")
    where = "the shipped set" if os.path.abspath(args.positions) == os.path.abspath(CHECK_POSITIONS) else args.positions
    words = f"of {excerpt(where, 200)} ({args.split if args.split != 'all' else 'both splits'}"
    if args.limit and args.limit < len(won):
        picked = sorted(random.Random(args.seed).sample(range(len(won)), args.limit))
        words += f", a sample of {args.limit} of {len(won)} by seed {args.seed}"
        won = tuple(won[i] for i in picked)
    return won, words + ")"


def _recorded(path: str, found: PositionSet) -> Optional[RecordedAnswers]:
    """The reference answers recorded for the positions file at ``path``: the shipped table for the shipped set
    (where the installation has it), else None."""
    if os.path.abspath(path) != os.path.abspath(CHECK_POSITIONS) or not os.path.exists(CHECK_ANSWERS):
        return None
    return load_answers(CHECK_ANSWERS, found)


def _progress(args: argparse.Namespace, what: str) -> Callable[[int, int, int], None]:
    """Progress on stderr: a bar on a terminal; else a line once the first jobs of a player are answered and at
    every tenth, with the time that player will take at its pace so far (an agent takes seconds a move; the
    players asked now are asked one after another, each at its own pace)."""
    begun = {0: time.time()}  # when each player's answers began: when the one before it finished
    shown: List[Progress] = []
    marks = set()

    def report(done: int, total: int, players: int) -> None:
        if progress_bar(args):
            if not shown:
                shown.append(counter(what, "position", total))
            shown[0](done)
            return
        each = total // players
        player, asked = (done - 1) // each, (done - 1) % each + 1
        if asked == each:
            begun[player + 1] = time.time()
        mark = done * 10 // total
        if asked != min(args.jobs, each) and (mark in marks or not mark):
            return
        marks.add(mark)
        now = time.time()
        words = [f"{now - begun[0]:.0f} s"]
        if asked < each:
            pace = (now - begun.get(player, begun[0])) / asked
            words.append(f"about {_duration(pace * (each - asked))} left" + (" for this player" if players > 1 else ""))
        if player + 1 < players:
            words.append(f"then {players - player - 1} more player{'s' if players - player > 2 else ''}")
        print(f"check {what}: {done} of {total} positions answered ({'; '.join(words)})", file=sys.stderr, flush=True)

    return report


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def _record(args: argparse.Namespace) -> int:
    """Record the --references' answers to every won position of --positions in --record-references."""
    path = file_to_write(args.record_references, "--record-references", "check-answers.json.gz")
    found = load_positions(args.positions)
    won = tuple(p for p in found.positions if p.won)
    references = tuple(args.references)
    program_limits(args, references)
    command_words = "littlego check --record-references {} --references {}{}".format(
        os.path.basename(path),
        ",".join(references),
        "" if os.path.abspath(args.positions) == os.path.abspath(CHECK_POSITIONS) else f" --positions {args.positions}",
    )
    info = recorded_info(
        args.positions,
        won,
        created=datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        command=command_words,
        jobs=args.jobs,
    )
    with agents_built(references), check_map(args.jobs) as map_function:
        recorded = record_references(references, won, info, map_function, _progress(args, "references"))
    save_answers(path, recorded, won)
    print(f"wrote {path}: the answers of {', '.join(references)} to the {len(won)} won positions of {args.positions}")
    for player in recorded.players.values():
        print(f"  {player.spec}: {player.seconds:.0f} s on {args.jobs} jobs")
    return 0
