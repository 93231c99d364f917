"""Matches between two players: parallel, reproducible, summed up as tournament players expect
(``engine.play.summary``).

Game ``k`` of a match gives Black to player A when ``k`` is even, to B when odd; the two
games of a pair start from the same random opening and differ only in colours. A match may
instead give A one colour in every game (``a_colour``: how a side's strength as Black is
measured); each game then has an opening of its own. Or it may play every opening of its
length once with each colour (``every_opening``): the exact score over random openings for
players that play a position the same way every time (``shipped:``), with no draw of openings to
add noise. Every game depends only on (specs, seed, game index, colours), so a match replays exactly.
"""

import contextlib
import os
import time
from typing import (
    Any,
    Callable,
    Dict,
    Generator,
    Iterable,
    Iterator,
    List,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    cast,
)

from tqdm import tqdm

from engine import playout
from engine.common.seeds import derive_seed
from engine.constants import BLACK, WHITE, Colour, Move, colour_word
from engine.errors import InvalidInput
from engine.play.executors import J, executor
from engine.play.game import MatchGame, play_game
from engine.play.journal import G, Journal
from engine.play.settings import DEFAULT_GAME_SETTINGS, GameSettings, ProgressOption
from engine.play.sgf import write_sgf_games
from engine.play.stats import SprtState, pair_sprt_state, sprt_state
from engine.play.summary import MatchSummary, openings_kept, summarise
from engine.players.specs import make_player
from engine.sandbox.limits import Limits

Opening = Tuple[Move, ...]  # an opening's moves, from the empty board
Elos = Tuple[float, float]  # an SPRT's hypotheses: (elo0, elo1), A's Elo over B's
# What hears of a match's games: (games done, games, the SPRT's state or None, A's wins so far).
MatchProgress = Callable[[int, int, Optional[SprtState], int], object]


class GameJob(NamedTuple):
    """One game of a match: its index, the specs, the match seed, random opening plies, the CPU
    limit a move, A's colour in every game (``fixed``; None: alternating) and the program players'
    sandbox Limits (None: the defaults)."""

    index: int  # type: ignore[assignment]  # the field shadows tuple.index, as it always has
    spec_a: str
    spec_b: str
    seed: int
    opening_plies: int
    cpu_limit: float
    fixed: Optional[Colour]
    limits: Optional[Limits] = None
    opening: Optional[Opening] = None  # the opening's points, where not drawn at random


def game_job(job: Tuple[Any, ...]) -> MatchGame:
    """Worker: play one game of a match (a GameJob, or a tuple of its fields); a MatchGame (pure in its arguments)."""
    job = GameJob(*job)
    a_colour = job.fixed or (BLACK if job.index % 2 == 0 else WHITE)
    black_spec, white_spec = (job.spec_a, job.spec_b) if a_colour == BLACK else (job.spec_b, job.spec_a)
    black, white = (make_player(spec, job.cpu_limit, limits=job.limits) for spec in (black_spec, white_spec))
    record = play_game(
        black,
        white,
        seed=derive_seed(job.seed, job.index),
        opening_plies=job.opening_plies,
        opening_seed=derive_seed(job.seed, job.index if job.fixed else job.index // 2),
        cpu_limit=job.cpu_limit,
        opening=job.opening,
    )
    return MatchGame(*record, index=job.index, a_colour=a_colour)


def deciding_match(spec_a: str, spec_b: str) -> str:
    """The ``littlego match`` command whose sequential test decides whether ``spec_a`` is better than ``spec_b``."""
    return f"littlego match {spec_a} {spec_b} --random-opening 2 --sprt 0,20 --games 2000"


def match_sprt(results: Sequence[MatchGame], elo0: float, elo1: float) -> SprtState:
    """The SPRT's state after these games: on the scores of colour pairs where the games come in pairs
    of one opening (games 2k and 2k + 1, A Black in one and White in the other; a game whose pair is not
    complete waits for it), else on won and lost games."""
    pairs = list(zip(results[0::2], results[1::2]))
    if pairs and all(first.a_colour != second.a_colour for first, second in pairs):
        counts = [0, 0, 0]
        for first, second in pairs:
            counts[first.a_won + second.a_won] += 1
        return pair_sprt_state(counts, elo0, elo1)
    wins = sum(1 for r in results if r.a_won)
    return sprt_state(wins, len(results) - wins, elo0, elo1)


def run_match(
    spec_a: str,
    spec_b: str,
    games: int,
    settings: GameSettings = DEFAULT_GAME_SETTINGS,
    opening_plies: int = 0,
    sgf_dir: Optional[str] = None,
    sprt: Optional[Elos] = None,
    a_colour: Optional[Colour] = None,
    every_opening: bool = False,
) -> Tuple[MatchSummary, List[MatchGame]]:
    """Play the match; (MatchSummary, the MatchGames in game order).

    ``a_colour``: BLACK or WHITE gives A that colour in every game (default: alternating).

    ``every_opening``: instead of ``games`` games from random openings, every opening of ``opening_plies``
    plies (``engine.playout.opening_sequences``), each once with each colour (``every_opening_games``).

    ``sprt=(elo0, elo1)``: stop as soon as a sequential probability ratio test (alpha = beta
    = 0.05) accepts either hypothesis about A's Elo over B, checked after each pair of games
    (the same opening with colours swapped); ``games`` is then the most it plays.

    ``settings``: how the games are played (a GameSettings: seed, jobs, scheduler, cpu_limit, journal,
    progress, limits). Its ``progress``: True draws a bar; a function hears ``(games done, games, the
    SPRT's state or None, A's wins so far)`` after each game.

    A KeyboardInterrupt (Ctrl-C) after some games ends the match there: the summary covers
    the games finished, and says ``interrupted``; before the first game ends, it propagates.

    The settings' ``journal``: a file that keeps every finished game; when it already holds games of
    this match (stopped or killed), the match continues after them, to the same result as a match
    never stopped (JournalError when it holds another match).
    """
    _refuse_unplayable(spec_a, spec_b, sprt, a_colour)
    openings, games = _openings(games, opening_plies, a_colour, sprt) if every_opening else ([None] * games, games)
    jobs = settings.jobs or os.cpu_count() or 1
    journal = _journal(settings, spec_a, spec_b, games, opening_plies, a_colour, sprt, every_opening)
    work = [
        GameJob(k, spec_a, spec_b, settings.seed, opening_plies, settings.cpu_limit, a_colour, settings.limits, opening)
        for k, opening in enumerate(openings)
    ]
    with _progress(settings.progress, spec_a, spec_b, games) as progress:
        started = time.time()
        stream = stream_games(work, jobs, settings.scheduler, journal)
        results, test, interrupted = _collect(stream, games, sprt, progress)
    results.sort(key=lambda r: r.index)
    summary = summarise(spec_a, spec_b, results)._replace(
        seconds=time.time() - started,
        seed=settings.seed,
        random_opening=opening_plies,
        every_opening=True if every_opening else None,
        jobs=jobs,
        a_colour=colour_word(a_colour) if a_colour else "alternating",
        sprt=(test or match_sprt(results, *sprt)) if sprt else None,
        interrupted=f"after {len(results)} of {games} games" if interrupted else None,
    )
    summary = summary._replace(won_openings_kept=openings_kept((summary.a, summary.b), results, opening_plies))
    if sgf_dir:
        write_sgf_games(sgf_dir, results)
    return summary, results


def _refuse_unplayable(spec_a: str, spec_b: str, sprt: Optional[Elos], a_colour: Optional[Colour]) -> None:
    """Refuse a match that cannot be played, before any worker starts: a bad spec, or an SPRT on fixed colours."""
    for spec in (spec_a, spec_b):
        make_player(spec).close()  # a bad spec fails here, before any worker starts
    if sprt and a_colour:
        raise InvalidInput("the SPRT compares colour-swapped pairs: it needs alternating colours")


@contextlib.contextmanager
def _progress(wanted: ProgressOption, spec_a: str, spec_b: str, games: int) -> Iterator[Optional[MatchProgress]]:
    """What hears of a match's games (``GameSettings.progress``): for True, a function drawing a bar with
    A's score, the bar closed when the match ends; the caller's function; None for False."""
    if wanted is not True:
        yield wanted or None  # a function of the caller's (False: nothing)
        return
    bar = tqdm(total=games, unit="game", desc=f"{spec_a} vs {spec_b}", leave=False)

    def progress(done: int, total: int, test: Optional[SprtState], a_wins: int) -> None:
        bar.set_postfix_str(f"{spec_a} {a_wins}-{done - a_wins}", refresh=False)
        bar.update(1)

    try:
        yield progress
    finally:
        bar.close()


def _journal(
    settings: GameSettings,
    spec_a: str,
    spec_b: str,
    games: int,
    opening_plies: int,
    a_colour: Optional[Colour],
    sprt: Optional[Elos],
    every_opening: bool,
) -> Optional[Journal[MatchGame]]:
    """The journal ``settings`` name for this match, with the games it already holds (None where they name
    none), JournalError where it holds another match: it records what makes a match the match it is
    (``every_opening`` only where set: the journals of matches before it still continue)."""
    if settings.journal is None:
        return None
    match: Dict[str, object] = {
        "a": spec_a,
        "b": spec_b,
        "games": games,
        "seed": settings.seed,
        "random_opening": opening_plies,
        "cpu_limit": settings.cpu_limit,
        "a_colour": a_colour,
        "sprt": list(sprt) if sprt else None,
    }
    if every_opening:
        match["every_opening"] = True
    return Journal.open(settings.journal, match, MatchGame)


def every_opening_games(opening_plies: int) -> int:
    """How many games a match over every opening of ``opening_plies`` plies plays: each opening once with each
    colour (50 for one ply, 1,200 for two); InvalidInput where plies are none or past SEQUENCES_MOST_PLIES."""
    return 2 * len(_every_opening(opening_plies))


def _every_opening(opening_plies: int) -> List[Opening]:
    """The openings of ``opening_plies`` plies (``engine.playout.opening_sequences``); InvalidInput where there
    are none to play every one of."""
    if not 1 <= opening_plies <= playout.SEQUENCES_MOST_PLIES:
        raise InvalidInput(
            f"every opening needs random-opening plies from 1 to {playout.SEQUENCES_MOST_PLIES} "
            f"(--random-opening K; got {opening_plies}): with none the only opening is the empty board, and "
            "past three they grow into the hundreds of thousands"
        )
    return playout.opening_sequences(opening_plies)


def _openings(
    games: int, opening_plies: int, a_colour: Optional[Colour], sprt: Optional[Elos]
) -> Tuple[List[Opening], int]:
    """(each game's opening, the games) of a match over every opening of ``opening_plies`` plies, played once
    with each colour: InvalidInput where a match cannot play so (``games``, the most asked for, gives way)."""
    openings = _every_opening(opening_plies)
    if a_colour:
        raise InvalidInput("every opening is played once with each colour: leave the colours alternating")
    if sprt:
        raise InvalidInput("every opening gives the exact score over random openings: it takes no SPRT")
    openings = [moves for moves in openings for _ in range(2)]
    return openings, len(openings)


def stream_games(
    work: Sequence[J],
    jobs: int = 1,
    scheduler: Optional[str] = None,
    journal: Optional[Journal[G]] = None,
    function: Optional[Callable[[J], G]] = None,
) -> Generator[G, None, None]:
    """The games of ``work`` (the jobs of ``function``, by default game_job tuples), in order:
    those the journal already holds, then the rest played on the executor (in this process where
    ``jobs`` is 1 and there is no scheduler), each kept in the journal as it comes. Every caller
    that plays many games plays them through here."""
    played = list(journal.games) if journal is not None else []
    yield from played
    rest = work[len(played) :]
    if not rest:
        return
    # game_job is looked up when called (tests replace it); its jobs are GameJobs and its games MatchGames.
    function = function or cast(Callable[[J], G], game_job)
    if jobs == 1 and scheduler is None:
        yield from _kept(map(function, rest), journal)
    else:
        with executor(scheduler, jobs) as games_executor:  # results come in game order
            yield from _kept(games_executor.map(function, rest), journal)


def play_all(
    work: Sequence[J],
    jobs: int = 1,
    scheduler: Optional[str] = None,
    journal: Optional[Journal[G]] = None,
    function: Optional[Callable[[J], G]] = None,
    progress: Optional[ProgressOption] = None,
) -> List[G]:
    """Every game of ``work`` as ``stream_games`` plays them, in a list; ``progress(done, total)``
    after each (where it is a function)."""
    played = []
    stream = stream_games(work, jobs, scheduler, journal, function)
    try:
        for game in stream:
            played.append(game)
            if callable(progress):
                progress(len(played), len(work))
    finally:
        stream.close()
    return played


def _kept(new_games: Iterable[G], journal: Optional[Journal[G]]) -> Iterator[G]:
    """The new games, each kept in the journal (if any) as it comes."""
    for game in new_games:
        if journal is not None:
            journal.append(game)
        yield game


def _collect(
    stream: Generator[MatchGame, None, None], games: int, sprt: Optional[Elos], progress: Optional[MatchProgress]
) -> Tuple[List[MatchGame], Optional[SprtState], bool]:
    """(the games of ``stream`` until it ends or the SPRT decides, the SPRT's last state (None without
    one), whether a Ctrl-C ended them); a Ctrl-C before the first game ends propagates. The stream is
    closed: an SPRT's decision leaves games unplayed, and the workers end."""
    results, test, a_wins = [], None, 0
    try:
        for result in stream:
            results.append(result)
            a_wins += result.a_won
            if sprt and len(results) % 2 == 0:
                test = match_sprt(results, *sprt)
            if progress:
                progress(len(results), games, test, a_wins)
            if test and test.decision:
                break
    except KeyboardInterrupt:
        if not results:
            raise
        return results, None, True  # Ctrl-C: the games finished so far are the match
    finally:
        stream.close()
    return results, test, False
