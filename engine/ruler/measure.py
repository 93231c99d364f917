"""The exact ruler: the share of solved won positions in which a player keeps the win.

Little-Go is solved, so in a won position each move either keeps the win or gives it away, exactly. A
player (any ``engine.players.base.Player``: our searcher, the course's opponents, GNU Go, an agent
folder in the sandbox) is asked each won position alone, as the course's host asks for a move: a game
started with the side to move (``new_game``), one ``move``, ``close``. A fault (a crash, a timeout, an
illegal or unreadable answer) gives the win away and is kept as the answer. The share kept has no noise:
one call a position, the same figure on every machine and with any number of workers for a player
whose moves depend on the position alone.

``ruler_jobs`` cuts the positions into jobs of ``POSITIONS_PER_JOB`` for several players at once (``make``: a
picklable function that makes the player in the worker); ``answers`` is the worker; ``tally`` turns a
player's answers into a ``Kept`` (by ply, by colour, and each position given away); ``measure`` does
all three through any map (a pool's, or the built-in one).
"""

from typing import Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from engine.constants import Colour, Move
from engine.players.base import Player, PlayerFault
from engine.ruler.position_set import SolvedPosition

POSITIONS_PER_JOB = 25  # won positions a job asks one player
SEED = 1  # the seed of each position's game: a random player's choices repeat


class MoveFault(NamedTuple):
    """A player's failure to answer (``engine.players.base.PlayerFault``): it gives the win away."""

    reason: str  # a Reason's value: timeout, crash, bad-output, illegal
    detail: str

    def __str__(self) -> str:
        return f"{self.reason}: {self.detail}"


Answer = Union[Move, MoveFault]  # the move a player chose (a point or PASS), or the fault that stood for it
MakePlayer = Callable[[], Player]  # picklable: it makes the player in the worker
Tally = Dict[int, Tuple[int, int]]  # a ply or a colour -> (kept, won)


class RulerJob(NamedTuple):
    """Some won positions for one player: ``player`` its index among those measured together."""

    player: int
    make: MakePlayer
    positions: Tuple[SolvedPosition, ...]
    seed: int = SEED


# How jobs run: (the worker, the jobs) -> the worker's results in the jobs' order (``map``, a pool's ``imap``).
RunJobs = Callable[[Callable[[RulerJob], Tuple[Answer, ...]], List[RulerJob]], Iterable[Sequence[Answer]]]


class Miss(NamedTuple):
    """A won position given away: the position and the player's answer (a move that loses, or a fault)."""

    solved: SolvedPosition
    answer: Answer


class Kept(NamedTuple):
    """How a player plays a set of won positions: ``kept`` of ``won`` keep the win; by ply and by colour,
    and every position given away, in the set's order."""

    kept: int
    won: int
    by_ply: Tally
    by_colour: Tally
    misses: Tuple[Miss, ...]

    @property
    def share(self) -> float:
        """The share of the won positions kept (0 where there are none)."""
        return self.kept / self.won if self.won else 0.0


def answers(job: RulerJob) -> Tuple[Answer, ...]:
    """Worker: the player's answer in each position of ``job``, each asked as a game of its own."""
    player = job.make()
    found: List[Answer] = []
    for solved in job.positions:
        position = solved.position()
        try:
            player.new_game(position.player, job.seed)
            found.append(player.move(position))
        except PlayerFault as fault:
            found.append(MoveFault(str(fault.reason), fault.detail))
        finally:
            player.close()
    return tuple(found)


def keeps(solved: SolvedPosition, answer: Answer) -> bool:
    """Whether ``answer`` keeps the win of the won position ``solved`` (a fault never does)."""
    return not isinstance(answer, MoveFault) and solved.moves.get(answer, False)


def ruler_jobs(
    makes: Sequence[MakePlayer], positions: Sequence[SolvedPosition], per_job: int = POSITIONS_PER_JOB
) -> List[RulerJob]:
    """The jobs that ask each of the players ``makes`` makes every won position of ``positions``."""
    won = tuple(p for p in positions if p.won)
    return [
        RulerJob(index, make, won[start : start + per_job])
        for index, make in enumerate(makes)
        for start in range(0, len(won), per_job)
    ]


def _add(tally: Tally, key: int, good: bool) -> None:
    done, of = tally.get(key, (0, 0))
    tally[key] = (done + good, of + 1)


def tally(positions: Sequence[SolvedPosition], found: Sequence[Answer]) -> Kept:
    """The Kept of the answers ``found`` to the won ``positions`` (in their order)."""
    if len(positions) != len(found):
        raise ValueError(f"tally: {len(found)} answers to {len(positions)} positions")
    by_ply: Tally = {}
    by_colour: Dict[Colour, Tuple[int, int]] = {}
    misses = []
    for solved, answer in zip(positions, found):
        good = keeps(solved, answer)
        _add(by_ply, solved.ply, good)
        _add(by_colour, solved.colour, good)
        if not good:
            misses.append(Miss(solved, answer))
    kept = len(positions) - len(misses)
    return Kept(kept, len(positions), dict(sorted(by_ply.items())), dict(sorted(by_colour.items())), tuple(misses))


def gathered(jobs: Sequence[RulerJob], results: Iterable[Sequence[Answer]], players: int) -> List[Kept]:
    """Each player's Kept, from the ``results`` of ``jobs`` (in their order)."""
    positions: List[List[SolvedPosition]] = [[] for _ in range(players)]
    found: List[List[Answer]] = [[] for _ in range(players)]
    for job, result in zip(jobs, results):
        positions[job.player].extend(job.positions)
        found[job.player].extend(result)
    return [tally(p, f) for p, f in zip(positions, found)]


def measure(
    makes: Sequence[MakePlayer],
    positions: Sequence[SolvedPosition],
    run: Optional[RunJobs] = None,
    per_job: int = POSITIONS_PER_JOB,
    progress: Optional[Callable[[int], object]] = None,
) -> List[Kept]:
    """The Kept of each player ``makes`` makes on the won ``positions``, the jobs run by ``run`` (default:
    here, one after another); ``progress(done)`` hears of the positions answered so far."""
    jobs = ruler_jobs(makes, positions, per_job)
    results: List[Tuple[Answer, ...]] = []
    done = 0
    for job, result in zip(jobs, (run or map)(answers, jobs)):
        results.append(tuple(result))
        done += len(job.positions)
        if progress:
            progress(done)
    return gathered(jobs, results, len(makes))
