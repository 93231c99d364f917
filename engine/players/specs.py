"""Players from spec strings, as the command line, matches and evolution panels name them.

Every form a spec takes is one row of ``SPEC_FORMS``: the word it starts with, how it is written,
what it plays and the function that makes it. The command lines' help (``KNOWN``), the names a
folder cannot take (``KNOWN_NAMES``) and ``make_player``'s dispatch all derive from that table,
and ``docs/players.md`` explains each form at length. A folder's path alone is an agent folder,
the same as ``cmd:DIR``.
"""

import json
import os
import re
from typing import Callable, Dict, NamedTuple, Optional, Tuple, Type

from engine.book import BookError, load_book
from engine.constants import COURSE_CPU_LIMIT, MAX_MOVES
from engine.data import SHIPPED_BOOK, SHIPPED_PARAMS, SHIPPED_QTABLE
from engine.errors import InvalidInput, ParamsError
from engine.params import Params, default_params, load_params
from engine.players.base import Player
from engine.players.gnugo import MAX_LEVEL, gnugo_player
from engine.players.gtp import GtpPlayer, gtp_player
from engine.players.program import ProgramPlayer
from engine.players.qlearning import QLearningPlayer, QTableError, load_table
from engine.players.scripted import AggressivePlayer, AlphaBetaPlayer, GreedyPlayer, RandomPlayer
from engine.players.searcher import AgentPlayer, SearcherName
from engine.players.shipped import ShippedPlayer
from engine.sandbox.files import read_untrusted
from engine.sandbox.limits import DEFAULT_LIMITS, Limits
from engine.search_settings import SEARCH_SETTINGS

SCRIPTED = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
    "aggressive": AggressivePlayer,
    "alphabeta": AlphaBetaPlayer,
}
COMMAND_KINDS = ("cmd", "program", "gtp")  # the specs that run a command they name
WEIGHTS_BYTES = 2**20  # a weights file of named numbers is far smaller
NOT_A_WEIGHTS_NAME = ("input.txt", "output.txt")  # the host's files in a copy
# How a form builds its player: (the whole spec, what follows its word, make_player's options) -> the player.
Maker = Callable[[str, str, "_Options"], Player]


def is_folder_spec(spec: str) -> bool:
    """Whether ``spec`` (stripped) is an agent folder's path, as grade and tournament take one: a folder that
    no player name claims."""
    return os.path.isdir(spec) and spec.partition(":")[0] not in KNOWN_NAMES


def folder_without_command(spec: str) -> Optional[str]:
    """The agent folder of a spec that names one without saying how to run it (``cmd:DIR``, or DIR alone),
    else None."""
    spec = spec.strip()
    name, _, argument = spec.partition(":")
    if name == "cmd" and "::" not in argument:
        return argument
    return spec if is_folder_spec(spec) else None


def runs_a_command(spec: str) -> bool:
    """Whether ``spec`` runs a program that the spec itself names (``cmd:``, ``gtp:``, an agent folder)."""
    spec = spec.strip()
    return spec.partition(":")[0] in COMMAND_KINDS or is_folder_spec(spec)


def _depth(spec: str, text: str) -> int:
    """The depth after '@' in a spec; ValueError naming the spec when it is outside the depth setting's range."""
    setting = SEARCH_SETTINGS["depth"]
    if not text.isdigit() or not setting.low <= int(text) <= setting.high:
        raise InvalidInput(f"player {spec!r}: the depth after '@' is {setting.range_words()}")
    return int(text)


def _load(spec: str, path: str) -> Params:
    try:
        return load_params(path)
    except ParamsError as error:
        raise InvalidInput(f"player {spec!r}: {error}")


# Agent folders built for this process (``engine.course.build.agents_built``): the folder -> (its built copy,
# the command that plays a move there). A process forked from this one plays them too.
_BUILT: Dict[str, Tuple[str, str]] = {}


def register_built(folder: str, copy: str, command: str) -> None:
    """Play ``cmd:FOLDER`` (or FOLDER) as the built ``copy`` run by ``command``, until ``forget_built``."""
    _BUILT[os.path.abspath(folder)] = (copy, command)


def is_built(folder: str) -> bool:
    """Whether ``folder`` is played as a build registered by ``register_built``."""
    return os.path.abspath(folder) in _BUILT


def forget_built(folder: str) -> None:
    _BUILT.pop(os.path.abspath(folder), None)


class SpecForm(NamedTuple):
    """One form of player spec: the ``word`` a spec of it starts with (before any ``:`` or ``@``), how it is
    ``written`` (the help's words), what it ``plays``, and ``make(spec, rest, options)``, which builds the
    player from the whole spec, what follows the word, and make_player's options (a _Options)."""

    word: str
    written: str
    plays: str
    make: Maker


class _Options(NamedTuple):
    cpu_limit: Optional[float]
    timed: bool
    searcher: SearcherName
    limits: Optional[Limits]


def _scripted(kind: Type[Player]) -> Maker:
    def make(spec: str, rest: str, options: _Options) -> Player:
        if rest:
            raise InvalidInput(f"player {spec!r} takes no argument (got {rest.lstrip(':@')!r})")
        return kind()

    return make


def _handset(spec: str, rest: str, options: _Options) -> AgentPlayer:
    if rest and not rest.startswith("@"):
        raise InvalidInput(f"player {spec!r}: expected handset[@DEPTH]")
    depth = _depth(spec, rest[1:]) if rest else None
    return AgentPlayer(default_params(), depth, spec=spec, timed=options.timed, searcher=options.searcher)


def _command(spec: str, rest: str, options: _Options) -> ProgramPlayer:
    directory, _, command = rest[1:].partition("::") if rest.startswith(":") else ("", "", "")
    if not directory:
        raise InvalidInput(f"player {spec!r}: expected cmd:DIR[::COMMAND]")
    if not command and os.path.abspath(directory) in _BUILT:
        directory, command = _BUILT[os.path.abspath(directory)]
    return ProgramPlayer(
        directory,
        command or None,
        spec=spec,
        limits=options.limits or DEFAULT_LIMITS,
        cpu_limit=options.cpu_limit or COURSE_CPU_LIMIT,
    )


def _gnugo(spec: str, rest: str, options: _Options) -> GtpPlayer:
    level = rest[1:]
    if rest and not (rest.startswith(":") and level.isdigit() and 0 <= int(level) <= MAX_LEVEL):
        raise InvalidInput(f"player {spec!r}: the GNU Go level is an integer 0..{MAX_LEVEL}")
    return gnugo_player(int(level) if level else None, spec=spec)


def _qlearning(spec: str, rest: str, options: _Options) -> QLearningPlayer:
    if rest and not rest.startswith(":"):
        raise InvalidInput(f"player {spec!r}: expected qlearning[:TABLE]")
    try:
        values, meta = load_table(rest[1:] or SHIPPED_QTABLE)
    except QTableError as error:
        raise InvalidInput(f"player {spec!r}: {error}")
    return QLearningPlayer(values, spec, meta.get("horizon", MAX_MOVES))


def _gtp(spec: str, rest: str, options: _Options) -> GtpPlayer:
    if not rest.startswith(":"):
        raise InvalidInput(f"player {spec!r}: expected gtp:COMMAND")
    return gtp_player(rest[1:], spec)


SPEC_FORMS = tuple(
    SpecForm(word=word, written=word, plays=f"the course's {word} opponent (scripted)", make=_scripted(kind))
    for word, kind in SCRIPTED.items()
) + (
    SpecForm(
        word="agent",
        written="agent[:PARAMS][@DEPTH]",
        plays="our agent with a params file (default: the shipped params.json) at its settings, or with @DEPTH a plain "
        "search to that depth (no exact solving)",
        make=lambda spec, rest, options: _agent(spec, "agent", rest, options),
    ),
    SpecForm(
        word="native",
        written="native[:PARAMS]@DEPTH",
        plays="agent:PARAMS searching to DEPTH on the compiled twin of the searcher (the same moves, tens of times "
        "faster)",
        make=lambda spec, rest, options: _agent(spec, "native", rest, options),
    ),
    SpecForm(
        word="champion",
        written="champion[:PARAMS]",
        plays="the shipped agent at its depth and CPU budget, with the shipped opening book; with PARAMS, another "
        "params file with the same book",
        make=lambda spec, rest, options: _champion(spec, "champion", rest, options),
    ),
    SpecForm(
        word="shipped",
        written="shipped[:PARAMS]",
        plays="champion[:PARAMS] with its CPU budget counted in nodes: a move depends on the position alone",
        make=lambda spec, rest, options: _champion(spec, "shipped", rest, options),
    ),
    SpecForm(
        word="handset",
        written="handset[@DEPTH]",
        plays="our search with the built-in hand-set weights: a reference that does not change when params.json does",
        make=_handset,
    ),
    SpecForm(
        word="qlearning",
        written="qlearning[:TABLE]",
        plays="the tabular Q-learner's table (default: the shipped one), greedy on its values",
        make=_qlearning,
    ),
    SpecForm(
        word="cmd",
        written="cmd:DIR[::COMMAND]",
        plays="a course agent run once per move in a private copy of DIR, in the sandbox (default command: python3 "
        "my_player3.py, or a C++ or Java agent's, built first)",
        make=_command,
    ),
    SpecForm(
        word="program",
        written="program:DIR:WEIGHTS[:NAME]",
        plays="the agent in DIR with the JSON weights file WEIGHTS written into each game's copy as NAME",
        make=lambda spec, rest, options: _weighted_program(spec, rest[1:], options.cpu_limit, options.limits),
    ),
    SpecForm(
        word="gtp",
        written="gtp:COMMAND",
        plays="any engine speaking GTP, such as gtp:littlego gtp --player handset@4",
        make=_gtp,
    ),
    SpecForm(
        word="gnugo", written="gnugo[:LEVEL]", plays=f"GNU Go (a GTP engine) at a level, 0 to {MAX_LEVEL}", make=_gnugo
    ),
)
_FORMS = {form.word: form for form in SPEC_FORMS}
# Every form as the help lists it, then a folder's path alone.
KNOWN = ", ".join(form.written for form in SPEC_FORMS) + ", DIR (an agent folder: cmd:DIR)"
# The words before a spec's ':' or '@': a folder of one of these names is that player, not a folder.
KNOWN_NAMES = frozenset(_FORMS)


def make_player(
    spec: str,
    cpu_limit: Optional[float] = None,
    timed: bool = True,
    searcher: SearcherName = SearcherName.PYTHON,
    limits: Optional[Limits] = None,
) -> Player:
    """A player from its spec string (a form of ``SPEC_FORMS``, or an agent folder's path); ValueError naming
    what is wrong with the spec.

    ``cpu_limit`` (seconds a move) is enforced on program players (``cmd:``), which run under
    ``limits`` (a sandbox.Limits; default: DEFAULT_LIMITS). Untimed, our
    agents (``agent``, ``champion``, ``handset``) search to their fixed depth whatever the
    machine's speed, so that games replay exactly (evolution's panels need that), with the
    searcher ``searcher`` names ("python" or "native": the same moves).
    """
    spec = spec.strip()
    form: Optional[SpecForm]
    if is_folder_spec(spec):  # an agent folder, as grade and tournament take it
        spec_for, rest, form = spec, ":" + spec, _FORMS["cmd"]
    else:
        leading = re.match(r"[a-z]*", spec)
        assert leading is not None  # the pattern matches any text, if only by the empty string
        word = leading.group(0)
        form, rest, spec_for = _FORMS.get(word), spec[len(word) :], spec
        if form is None or (rest and rest[0] not in ":@"):
            raise InvalidInput(f"unknown player {spec!r} (known: {KNOWN})")
    return form.make(spec_for, rest, _Options(cpu_limit, timed, searcher, limits))


def _champion(spec: str, name: str, rest: str, options: _Options) -> Player:
    """The player of ``champion[:PARAMS]`` or ``shipped[:PARAMS]``: the shipped book (where the installation
    has one) with the shipped params or PARAMS; InvalidInput naming what is wrong."""
    if rest and not rest.startswith(":"):
        raise InvalidInput(f"player {spec!r}: expected {name}[:PARAMS]")
    argument = rest[1:]
    try:  # an installation without the book plays without it
        book = load_book(SHIPPED_BOOK) if os.path.exists(SHIPPED_BOOK) else None
    except BookError as error:
        raise InvalidInput(f"player {spec!r}: {error}")
    params = _load(spec, argument or SHIPPED_PARAMS)
    if name == "shipped":
        return ShippedPlayer(params, book, spec=spec)
    return AgentPlayer(params, spec=spec, timed=options.timed, book=book)


def _agent(spec: str, base: str, rest: str, options: _Options) -> AgentPlayer:
    """The player of ``agent[:PARAMS][@DEPTH]`` or ``native[:PARAMS]@DEPTH``; InvalidInput naming what is wrong."""
    depth = None
    if "@" in rest:
        rest, _, depth_text = rest.rpartition("@")
        depth = _depth(spec, depth_text)
    params = _load(spec, rest[1:] or SHIPPED_PARAMS)
    if base == "native":
        if depth is None:
            raise InvalidInput(f"player {spec!r}: the compiled searcher plays at a fixed depth: native[:PARAMS]@DEPTH")
        return AgentPlayer(params, depth, spec=spec, timed=False, searcher=SearcherName.NATIVE)
    return AgentPlayer(params, depth, spec=spec, timed=options.timed, searcher=options.searcher)


def _weighted_program(spec: str, argument: str, cpu_limit: Optional[float], limits: Optional[Limits]) -> ProgramPlayer:
    """The ProgramPlayer of ``program:DIR:WEIGHTS[:NAME]``; InvalidInput naming what is wrong."""
    parts = argument.split(":")
    if len(parts) not in (2, 3) or not all(parts):
        raise InvalidInput(f"player {spec!r}: expected program:DIR:WEIGHTS[:NAME]")
    directory, weights = parts[:2]
    file_name = parts[2] if len(parts) == 3 else os.path.basename(weights)
    if os.sep in file_name or file_name in NOT_A_WEIGHTS_NAME or file_name.startswith("."):
        raise InvalidInput(f"player {spec!r}: {file_name!r} cannot name the agent's weights file in its folder")
    try:
        data, more = read_untrusted(weights, WEIGHTS_BYTES)
        found = json.loads(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InvalidInput(f"player {spec!r}: the weights file {weights!r} cannot be read: {error}")
    if more or not isinstance(found, dict):
        raise InvalidInput(f"player {spec!r}: {weights!r} is not a JSON object of at most 1 MiB")
    if not os.path.isfile(os.path.join(directory, file_name)):  # a name the agent never reads: its own weights
        raise InvalidInput(
            f"player {spec!r}: {directory} holds no {file_name!r}, so the agent would not read the weights written "
            f"there; name the file the agent reads: program:DIR:WEIGHTS:NAME (weights.json, say)"
        )
    return ProgramPlayer(
        directory,
        spec=spec,
        limits=limits or DEFAULT_LIMITS,
        files={file_name: data.decode("utf-8")},
        cpu_limit=cpu_limit or COURSE_CPU_LIMIT,
    )
