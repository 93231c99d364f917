"""What both command-line tools share: the options several commands take, each group added by one
function and read back by another (``add_game_options`` and ``game_settings``). The values an argument
may take are ``engine.cli.parts.argument_types``; the commands they belong to,
``engine.cli.parts.commands``; how a command ends, ``engine.cli.parts.exits``."""

import argparse
import os
import sys
from typing import Any, Callable, Collection, Dict, Iterable, Optional, Sequence, Tuple, Union, cast

from engine.cli.parts.argument_types import integer_range, positive_int, positive_seconds, scheduler, setting_type
from engine.course.build import ensure_built
from engine.native.compiler import DEFAULT_TABLE_BITS, MAX_TABLE_BITS, MIN_TABLE_BITS
from engine.native.store import STORE_ENV, default_store_path
from engine.native.stored_solver import Solving
from engine.params import Params
from engine.play.executors import PLAIN_TCP_CONFIG, TLS_CONFIG
from engine.play.settings import GAME_TABLE, WHERE_GAMES_RUN, GameSettings, OptionKind
from engine.players.base import Player
from engine.players.program import ProgramPlayer
from engine.players.specs import make_player
from engine.sandbox.isolation import refuse_strict, warning
from engine.sandbox.limits import DEFAULT_LIMITS, MODES, Limits, SandboxMode
from engine.search_settings import SEARCH_TABLE

SCHEDULER_HELP = WHERE_GAMES_RUN + " (default: the experiment's [executor], else the local process pool)"


class _DaskSetting(argparse.Action):
    """An option that sets one key of Dask's config for this process (``distributed.Security()`` and the
    executor read them when a cluster is reached), as Dask's own command-line tools take them."""

    def __init__(
        self, option_strings: Sequence[str], dest: str, config_key: str, value: Optional[str] = None, **kwargs: Any
    ) -> None:
        self.config_key, self.value = config_key, value
        super().__init__(option_strings, dest, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Union[str, Sequence[Any], None],
        option_string: Optional[str] = None,
    ) -> None:
        import dask

        chosen = self.value if self.value is not None else cast(str, values)  # one argument: nargs is not set
        if self.value is None and not os.path.isfile(chosen):
            parser.error(f"{option_string}: {chosen} is not a file")
        dask.config.set({self.config_key: os.path.abspath(chosen) if self.value is None else chosen})
        setattr(namespace, self.dest, chosen)


class _Renamed(argparse.Action):
    """An option's old name, still accepted for one release: it sets the new one's value and says so."""

    def __init__(self, option_strings: Sequence[str], dest: str, new: str, **kwargs: Any) -> None:
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Union[str, Sequence[Any], None],
        option_string: Optional[str] = None,
    ) -> None:
        print(f"warning: {option_string} is now {self.new} (the old name goes in a later release)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_renamed(parser: argparse.ArgumentParser, old: str, new: str, **options: Any) -> None:
    """Accept ``old``, an option renamed ``new``, with a warning; ``options`` as ``new`` was added with."""
    options = {key: value for key, value in options.items() if key not in ("help", "default", "metavar")}
    parser.add_argument(old, action=_Renamed, new=new, help=argparse.SUPPRESS, **options)


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """How a remote Dask scheduler is reached, beside --scheduler: the TLS files of tls:// (else Dask's
    config gives them) and --plain-tcp, the explicit choice of an unauthenticated tcp:// beyond loopback."""
    for option, key, what in (
        ("--tls-ca-file", TLS_CONFIG["tls_ca_file"], "the certificate of the cluster's authority"),
        ("--tls-cert", TLS_CONFIG["tls_cert"], "this client's certificate"),
        ("--tls-key", TLS_CONFIG["tls_key"], "this client's private key"),
    ):
        parser.add_argument(
            option, action=_DaskSetting, config_key=key, metavar="FILE", help=f"for tls:// schedulers: {what} ({key})"
        )
    parser.add_argument(
        "--plain-tcp",
        action=_DaskSetting,
        config_key=PLAIN_TCP_CONFIG,
        value=True,
        nargs=0,
        help="accept a tcp:// scheduler beyond this machine: no encryption, no authentication, and anyone who "
        "reaches its port runs code on every worker; only where the network is yours alone",
    )


def add_table_bits(
    parser: argparse.ArgumentParser, what: str = "each solver process's", default: int = DEFAULT_TABLE_BITS
) -> None:
    """The --table-bits option of every command that runs the compiled solver."""
    parser.add_argument(
        "--table-bits",
        type=integer_range(MIN_TABLE_BITS, MAX_TABLE_BITS),
        default=default,
        help=f"log2 of {what} table buckets (32 bytes each; default %(default)s: {2**default * 32 // 2**20} MiB)",
    )


def add_search_settings(
    parser: argparse.ArgumentParser, defaults: str, names: Optional[Collection[str]] = None
) -> None:
    """An option for each search setting of SEARCH_TABLE (or of those ``names`` names), for commands that
    write a params file: ``--depth``, ``--cpu-budget``...; ``defaults`` says in words what one left out
    gives. ``chosen_search_settings`` reads them."""
    for setting in SEARCH_TABLE:
        if names is None or setting.name in names:
            floor = f", at least --{setting.at_least.replace('_', '-')}" if setting.at_least else ""
            parser.add_argument(
                "--" + setting.name.replace("_", "-"),
                type=setting_type(setting),
                default=None,
                metavar=setting.unit.upper(),
                help=f"{setting.meaning} ({setting.range_words()}; default: {defaults}{floor})",
            )


def chosen_search_settings(args: argparse.Namespace, settings: Params) -> Dict[str, Any]:
    """{name: value} of every search setting: the option given, else ``settings``' (a Params); a setting
    bounded by another at least the value chosen for that one (each of its type: Params' fields, for ``**``)."""
    chosen: Dict[str, Any] = {}
    for setting in SEARCH_TABLE:
        given, kept = getattr(args, setting.name, None), getattr(settings, setting.name)
        if given is not None:
            chosen[setting.name] = given
        elif setting.at_least:
            chosen[setting.name] = max(kept, chosen[setting.at_least])
        else:
            chosen[setting.name] = kept
    return chosen


def add_sandbox(parser: argparse.ArgumentParser) -> None:
    """--sandbox and the limits (--memory, --processes, --file-size, --folder-size), for every command that
    can run a program player (cmd:, agent folders); ``program_limits`` or ``player_with_sandbox`` reads them."""
    parser.add_argument(
        "--sandbox",
        choices=MODES,
        default=DEFAULT_LIMITS.mode.value,
        help="program players' moves and agents' builds run in a bubblewrap sandbox (their own "
        "folder copy the only writable place, no other player's copy, no home folder, no "
        "network, none of your environment variables, every process ended with the move): "
        "auto (default) where bwrap works, else limits only with a warning; strict refuses "
        "to run without it; off: limits only",
    )
    parser.add_argument(
        "--memory",
        type=positive_int,
        default=DEFAULT_LIMITS.memory_mb,
        metavar="MIB",
        help="memory of a move (default %(default)s MiB): all its processes together, shared "
        "memory and memfd included, where cgroups can be had (`littlego sandbox` says); "
        "elsewhere each process's data memory",
    )
    parser.add_argument(
        "--processes",
        type=positive_int,
        default=DEFAULT_LIMITS.processes,
        metavar="N",
        help="processes and threads a move may run (default %(default)s; without the sandbox "
        "and without a pids cgroup, no limit)",
    )
    parser.add_argument(
        "--file-size",
        type=positive_int,
        default=DEFAULT_LIMITS.file_mb,
        metavar="MIB",
        help="the largest file a program player may write (default %(default)s MiB)",
    )
    parser.add_argument(
        "--folder-size",
        type=positive_int,
        default=DEFAULT_LIMITS.folder_mb,
        metavar="MIB",
        help="the most an agent folder may hold, its files' bytes counted as copied, sparse "
        "files at full size (default %(default)s MiB); a bigger folder cannot play",
    )


def sandbox_limits(args: argparse.Namespace) -> Limits:
    """The Limits the sandbox options ask for; the one-line warning on stderr where program players
    will not be isolated, SandboxError where --sandbox strict cannot be honoured."""
    limits = Limits(SandboxMode(args.sandbox), args.memory, args.processes, args.file_size, args.folder_size)
    refuse_strict(limits)
    line = warning(limits)
    if line:
        print("warning: " + line, file=sys.stderr)
    return limits


def runs_program(spec: str) -> bool:
    """Whether the player ``spec`` runs a program (``cmd:``), as the spec parser reads it; ValueError
    naming what is wrong with a bad spec."""
    player = make_player(spec)
    player.close()
    return isinstance(player, ProgramPlayer)


def program_limits(
    args: argparse.Namespace, specs: Iterable[str] = (), folders: Sequence[str] = ()
) -> Optional[Limits]:
    """The sandbox Limits of a command with ``add_sandbox``'s options that plays ``specs`` and agent
    ``folders`` (after the warning, or SandboxError: ``sandbox_limits``) where any of them runs a
    program; None where none does. Every spec is checked: ValueError names a bad one."""
    programs = [runs_program(spec) for spec in specs]
    return sandbox_limits(args) if folders or any(programs) else None


def player_with_sandbox(args: argparse.Namespace, spec: str, **options: Any) -> Player:
    """``make_player(spec, **options)`` for a command with ``add_sandbox``'s options: a program player
    runs under the limits they ask for, after the warning where it will not be isolated; an agent folder that
    needs a build (C++, Java) is built first, under those limits, as the course builds it."""
    player = make_player(spec, **options)
    if isinstance(player, ProgramPlayer):
        limits = sandbox_limits(args)
        ensure_built(spec, limits)
        player = make_player(spec, limits=limits, **options)
    return player


# How a game setting's option reads, by its row's kind: (the argument type, the metavar).
_OPTION_TYPES: Dict[OptionKind, Tuple[Callable[[str], object], str]] = {
    OptionKind.INT: (int, "N"),
    OptionKind.COUNT: (positive_int, "N"),
    OptionKind.SECONDS: (positive_seconds, "SECONDS"),
    OptionKind.SCHEDULER: (scheduler, "SCHEDULER"),
}


def add_game_options(
    parser: argparse.ArgumentParser,
    seed_help: str = "seed of the games",
    seed_default: Optional[int] = 1,
    omit: Collection[str] = (),
) -> None:
    """How a command plays its games, one option for each row of GAME_TABLE (engine.play.settings) but
    those ``omit`` names: --seed (``seed_help``; default ``seed_default``), --jobs, --scheduler, --cpu-limit,
    --resume, --no-progress and the sandbox's options. ``game_settings`` reads them."""
    for setting in GAME_TABLE:
        if setting.name in omit:
            continue
        if setting.kind is OptionKind.SANDBOX:
            add_sandbox(parser)
        elif setting.kind is OptionKind.OFF:
            parser.add_argument(setting.option, action="store_true", help=setting.meaning)
        elif setting.kind is OptionKind.FILE:
            parser.add_argument(setting.option, metavar="FILE", help=setting.meaning)
        elif setting.name == "seed":
            shown = "" if seed_default is None else f" (default {seed_default})"
            parser.add_argument(setting.option, type=int, default=seed_default, metavar="N", help=seed_help + shown)
        else:
            kind, metavar = _OPTION_TYPES[setting.kind]
            parser.add_argument(
                setting.option, type=kind, default=setting.default, metavar=metavar, help=setting.meaning
            )
            if setting.kind is OptionKind.SCHEDULER:
                add_cluster_options(parser)


def game_settings(args: argparse.Namespace, **chosen: Any) -> GameSettings:
    """The GameSettings of a command with ``add_game_options``' options: each option the command takes as
    given, a row's default where it takes none, and ``chosen`` (the limits its players need, its progress)
    over them. Progress left to the options: a bar unless --no-progress or stderr is no terminal."""
    values: Dict[str, Any] = {}
    for setting in GAME_TABLE:
        dest = setting.option.lstrip("-").replace("-", "_")
        if setting.name in chosen:
            values[setting.name] = chosen[setting.name]
        elif setting.kind is OptionKind.OFF:
            values[setting.name] = progress_bar(args)
        elif setting.kind is not OptionKind.SANDBOX and hasattr(args, dest):
            values[setting.name] = getattr(args, dest)
    return GameSettings(**values)


def add_solving(parser: argparse.ArgumentParser, jobs: str = "solving processes", progress: bool = True) -> None:
    """How a command that solves many positions on a pool solves them: --jobs (``jobs`` says what they do;
    default all cores), the solvers' --table-bits, the store's options and (where ``progress``) --no-progress;
    ``solving`` reads the first three."""
    parser.add_argument("--jobs", type=positive_int, default=os.cpu_count() or 1, help=f"{jobs} (default: all cores)")
    add_table_bits(parser)
    add_store(parser)
    if progress:
        add_progress(parser)


def solving(args: argparse.Namespace) -> Solving:
    """How a command with ``add_solving``'s options (or --jobs, ``add_table_bits``' and ``add_store``'s)
    solves: ``jobs``, ``table_bits`` and ``store`` (``store_path``'s)."""
    return Solving(jobs=args.jobs, table_bits=args.table_bits, store=store_path(args))


def add_store(parser: argparse.ArgumentParser) -> None:
    """--store and --no-store, for every command that solves: the store of solved positions it reads and grows."""
    parser.add_argument(
        "--store",
        metavar="FILE",
        help=f"the store of solved positions to read and grow (default: ${STORE_ENV}, else {default_store_path()})",
    )
    parser.add_argument("--no-store", action="store_true", help="neither read nor grow a store of solved positions")


def store_path(args: argparse.Namespace) -> Optional[str]:
    """The store a command with ``add_store``'s options uses: a path, or None for none."""
    return None if args.no_store else args.store or default_store_path()


def add_progress(parser: argparse.ArgumentParser) -> None:
    """--no-progress, for every command that shows progress: lines on stderr instead of a bar
    (``progress_bar``), as whenever stderr is not a terminal."""
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="progress as lines on stderr, not a bar (as whenever stderr is not a terminal)",
    )


def progress_bar(args: argparse.Namespace) -> bool:
    """Whether a command with ``add_progress``' option draws a bar: stderr a terminal, and no --no-progress."""
    return sys.stderr.isatty() and not getattr(args, "no_progress", False)


def add_json(parser: argparse.ArgumentParser, what: str = "the figures") -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON")


def reporter(args: argparse.Namespace) -> Callable[[str], None]:
    """The report function of a command with --json: lines printed as they come, or nothing
    when the result is printed as JSON."""
    return (lambda line: None) if args.json else print
