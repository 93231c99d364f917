"""``littlego check``: any player on the ruler, beside reference players, with the files its moves left.

A player named by a spec (an agent folder in any course language, already built by the caller, or any
other spec) is asked each won position alone through ``engine.ruler.measure``, on a process pool; the
reference players' answers come from the recorded table (``reference_answers``) where it holds them, and
are asked alongside otherwise. A program player (``engine.players.program.ProgramPlayer``) is watched as
it answers: each position's move runs in a fresh copy of its folder, and the files the move left there
(``ProgramPlayer.left_files``) say whether the agent keeps state between moves, which a position given
alone never hands it. ``check_report`` turns the ``CheckResult`` into text, JSON and SGF.
"""

import time
from contextlib import contextmanager
from functools import partial
from typing import Any, Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from engine.common.pools import process_pool
from engine.constants import Colour, Move
from engine.players.base import Player
from engine.players.gtp import GtpPlayer
from engine.players.program import ProgramPlayer, cpu_budget_words
from engine.players.specs import make_player
from engine.position import Position
from engine.ruler.measure import Answer, Kept, RulerJob, measure, tally
from engine.ruler.position_set import SolvedPosition
from engine.ruler.reference_answers import RecordedAnswers, RecordedPlayer, identity, usable
from engine.sandbox.limits import Limits

# How a check tells of its answers: (positions answered, of the total, by so many players one after another).
CheckProgress = Callable[[int, int, int], object]
# Positions a job asks: an agent takes seconds a move, so the pool balances and progress is shown.
AGENT_POSITIONS_PER_JOB = 1
# How each kind of player is given a position, in the report's words.
ASKED_PROGRAM = (
    "each position alone, in a fresh copy of its folder, as the first move of a game the host started at "
    "that position: input.txt held the colour to move, the board before the last move and the board; no "
    "file a move wrote reached another position"
)
ASKED_GTP = (
    "each position alone: a fresh process, its board set up by alternating GTP plays (which leave out a KO's "
    "history), then genmove"
)
ASKED_IN_PROCESS = "each position alone, as a new game started at that position (the same seed each time)"


class Watched(Player):
    """A player as the ruler asks it, with the files each move of a program player left in its copy
    (``left``, one list a move, in the order asked)."""

    def __init__(self, inner: Player) -> None:
        self.inner, self.spec = inner, inner.spec
        self.left: List[List[str]] = []

    def new_game(self, colour: Colour, seed: int) -> None:
        Player.new_game(self, colour, seed)
        self.inner.new_game(colour, seed)

    def move(self, position: Position) -> Move:
        try:
            return self.inner.move(position)
        finally:
            if isinstance(self.inner, ProgramPlayer):
                self.left.append(self.inner.left_files())

    def close(self) -> None:
        self.inner.close()


class WatchedAnswers(NamedTuple):
    """A job's answers, and the files each position's move left (empty but for a program player)."""

    answers: Tuple[Answer, ...]
    left: Tuple[Tuple[str, ...], ...]


def watched_player(spec: str, cpu_limit: Optional[float] = None, limits: Optional[Limits] = None) -> "Watched":
    """The player of ``spec`` (an agent folder played as built in this process or the one it forked from)
    under these limits, watched; ``functools.partial`` of it is a check's picklable ``make``."""
    return Watched(make_player(spec, cpu_limit=cpu_limit, limits=limits))


def watched_answers(call: Tuple[Callable[[RulerJob], Sequence[Answer]], RulerJob]) -> WatchedAnswers:
    """Worker: (the ruler's worker, a job whose make makes a Watched) -> its WatchedAnswers."""
    worker, job = call
    made: List[Watched] = []

    def make() -> Watched:
        player = job.make()
        assert isinstance(player, Watched), "a check's jobs make their players by watched_player"
        made.append(player)
        return player

    found = tuple(worker(job._replace(make=make)))
    return WatchedAnswers(found, tuple(tuple(files) for player in made for files in player.left))


# How the jobs run: (the worker, its calls) -> the results in order (``map``, a pool's ``imap``).
CheckMap = Callable[[Callable[[Any], WatchedAnswers], List[Any]], Iterable[WatchedAnswers]]


class StateFound(NamedTuple):
    """What a program player's moves left in its copies: each file (a path in the folder) and the number of
    positions whose move left it, of ``positions`` asked."""

    files: Dict[str, int]
    positions: int


class PlayerResult(NamedTuple):
    """One player on the positions: its Kept, whether its answers were ``recorded`` (the table's) or asked
    now, how each position was ``asked`` (words), the files its moves left (a program player asked now;
    else None) and a ``note`` (why answers were asked live, say)."""

    spec: str
    kept: Kept
    recorded: bool
    asked: str
    state: Optional[StateFound] = None
    note: str = ""


class CheckResult(NamedTuple):
    """A check: the ``checked`` player and the ``references`` on the same ``positions`` (in the order
    measured), ``where`` they come from in words, ``left_out`` (a reference that could not be had, and why),
    and the wall ``seconds`` the answers asked now took on ``jobs`` processes."""

    checked: PlayerResult
    references: Tuple[PlayerResult, ...]
    positions: Tuple[SolvedPosition, ...]
    where: str
    left_out: Tuple[Tuple[str, str], ...]
    seconds: float
    jobs: int

    @property
    def asked_now(self) -> int:
        """The positions answered now (the checked player's, and any reference asked live)."""
        return sum(len(self.positions) for p in (self.checked,) + self.references if not p.recorded)


def asked_words(player: Player) -> str:
    """How the ruler gives ``player`` each position, in the report's words."""
    if isinstance(player, ProgramPlayer):
        return ASKED_PROGRAM + "; " + cpu_budget_words(player.cpu_limit)
    if isinstance(player, GtpPlayer):
        return ASKED_GTP
    return ASKED_IN_PROCESS


class _Collecting:
    """The ruler's ``run``: the jobs on a map (a pool's ``imap``), each player's answers kept in the order
    asked and the files its moves left counted."""

    def __init__(self, map_function: CheckMap, players: int) -> None:
        self.map_function = map_function
        self.answers: List[List[Answer]] = [[] for _ in range(players)]
        self.left: List[Dict[str, int]] = [{} for _ in range(players)]

    def __call__(
        self, worker: Callable[[RulerJob], Tuple[Answer, ...]], jobs: List[RulerJob]
    ) -> Iterator[Sequence[Answer]]:
        for job, found in zip(jobs, self.map_function(watched_answers, [(worker, job) for job in jobs])):
            self.answers[job.player].extend(found.answers)
            for files in found.left:
                for name in files:
                    self.left[job.player][name] = self.left[job.player].get(name, 0) + 1
            yield found.answers


@contextmanager
def check_map(jobs: int) -> Iterator[CheckMap]:
    """The map a check's jobs run on: ``jobs`` forked processes (they play the agent folders built before
    the fork), or this process alone for one job."""
    if jobs <= 1:
        yield map
        return
    with process_pool(jobs) as pool:
        yield pool.imap


def run_check(
    spec: str,
    positions: Sequence[SolvedPosition],
    references: Sequence[str],
    recorded: Optional[RecordedAnswers],
    map_function: CheckMap = map,
    jobs: int = 1,
    cpu_limit: Optional[float] = None,
    limits: Optional[Limits] = None,
    progress: Optional[CheckProgress] = None,
    where: str = "",
) -> CheckResult:
    """The CheckResult of the player ``spec`` and the ``references`` (specs) on the won ``positions``: each
    reference's answers from ``recorded`` where it holds them for these positions and this player as it is
    now (``reference_answers.usable``), else asked now beside ``spec``'s, on ``map_function`` (a pool's
    ``imap``, ``jobs`` processes); ``progress(done, total, players)`` hears of the positions answered now. A
    reference that cannot be made here (GNU Go not installed) and has no recorded answers is left out, with
    the reason."""
    won = tuple(p for p in positions if p.won)
    live: List[Tuple[str, str]] = [(spec, "")]  # (spec, a note on why it is asked now)
    results: Dict[str, PlayerResult] = {}
    left_out: List[Tuple[str, str]] = []
    for reference in dict.fromkeys(r for r in references if r != spec):
        answers, note = usable(recorded, reference, won)
        if answers is not None:
            results[reference] = PlayerResult(reference, tally(won, answers), True, "", None, note)
            continue
        try:
            make_player(reference).close()
        except ValueError as error:
            left_out.append((reference, str(error)))
            continue
        live.append((reference, note))
    asked = {name: _asked(name, limits, cpu_limit) for name, _ in live}
    collecting = _Collecting(map_function, len(live))
    started = time.time()
    makes = [partial(watched_player, name, cpu_limit, limits) for name, _ in live]
    kept = measure(makes, won, collecting, AGENT_POSITIONS_PER_JOB, _of_total(progress, 0, len(won), len(live)))
    seconds = time.time() - started
    for index, ((name, note), found) in enumerate(zip(live, kept)):
        state = StateFound(collecting.left[index], len(won)) if asked[name].startswith(ASKED_PROGRAM) else None
        results[name] = PlayerResult(name, found, False, asked[name], state, note)
    chosen = tuple(results[r] for r in dict.fromkeys(references) if r in results and r != spec)
    return CheckResult(results[spec], chosen, won, where, tuple(left_out), seconds, jobs)


def record_references(
    specs: Sequence[str],
    won: Sequence[SolvedPosition],
    info: Dict[str, Any],
    map_function: CheckMap = map,
    progress: Optional[CheckProgress] = None,
) -> RecordedAnswers:
    """The RecordedAnswers of the players ``specs`` to every one of the won positions ``won``, one player
    after another on ``map_function`` (``progress(done, total, players)``: the positions answered, all players counted);
    ``info``: the table's provenance (``reference_answers.recorded_info``)."""
    players: Dict[str, RecordedPlayer] = {}
    for index, spec in enumerate(specs):
        started = time.time()
        found = asked_answers(spec, won, map_function, _of_total(progress, index * len(won), len(won), len(specs)))
        answers = dict(zip((p.text for p in won), found))
        players[spec] = RecordedPlayer(spec, identity(spec), time.time() - started, answers)
    return RecordedAnswers(info, players)


def asked_answers(
    spec: str,
    won: Sequence[SolvedPosition],
    map_function: CheckMap = map,
    progress: Optional[Callable[[int], object]] = None,
) -> List[Answer]:
    """The answers of the player ``spec`` to each of the won positions ``won``, asked now by the ruler."""
    collecting = _Collecting(map_function, 1)
    measure([partial(watched_player, spec)], won, collecting, AGENT_POSITIONS_PER_JOB, progress)
    return collecting.answers[0]


def _of_total(
    progress: Optional[CheckProgress], before: int, positions: int, players: int
) -> Optional[Callable[[int], object]]:
    """The ruler's ``progress(done)`` as a CheckProgress: ``before`` more done, of ``positions`` a player."""
    return None if progress is None else lambda done: progress(before + done, positions * players, players)


def _asked(spec: str, limits: Optional[Limits], cpu_limit: Optional[float]) -> str:
    """How ``spec``'s player is given each position (made and closed here, to see its kind and its budget)."""
    player = make_player(spec, limits=limits, cpu_limit=cpu_limit)
    try:
        return asked_words(player)
    finally:
        player.close()
