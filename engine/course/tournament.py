"""``littlego tournament``: the class round-robin of the earlier edition's second stage.

Every pair of agents plays a mini-match of GAMES (11) games: colours alternate over the first
ten, and the extra game's Black is drawn from the seed. The pair's winner (more games won) gets
one WIN; agents rank by WINs, then by games won, then head to head (the WINs among the agents
still tied). Every game is one job of the match machinery, all on one executor; a journal keeps
each finished game, so a killed tournament continues to the table an uninterrupted one ends with.
Pairs play in the order the agents entered (each agent's pairs with those before it, then the
next agent's), so that agents added to a tournament's journal play only their own pairs: the old
games are the first games of the larger tournament.
"""

import hashlib
import json
import os
import random
import re
import time
from collections import Counter
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, cast

from engine.common.seeds import derive_seed
from engine.constants import BLACK, WHITE, colour_word
from engine.course.build import course_game
from engine.errors import InvalidInput
from engine.play.game import MatchGame
from engine.play.journal import FORMAT, Journal, JournalError, read_journal
from engine.play.match import GameJob, play_all
from engine.play.settings import DEFAULT_GAME_SETTINGS, GameSettings
from engine.players.base import Reason
from engine.protocol import write_atomic
from engine.sandbox.files import excerpt
from engine.sandbox.limits import Limits

MINI_MATCH_GAMES = 11
TIE_BREAK = "WINs, then games won, then head to head (WINs among the agents still tied); still tied: a shared rank"

NAME_CHARACTERS = 40  # of an agent's name in the table (a folder's own name), shown safely
MARK = "~"  # between a name that would show as another's and the fingerprint that tells them apart
FINGERPRINT_DIGITS = 12  # hex digits of the SHA-256 of what a marked name stands for: 48 bits
_MARKED = re.compile(re.escape(MARK) + f"[0-9a-f]{{{FINGERPRINT_DIGITS}}}$")

# A tournament game as a worker takes it: the game, {spec: why it cannot play}, {spec: its agent's name}.
TournamentJob = Tuple[GameJob, Dict[str, str], Dict[str, str]]


class MiniMatch(NamedTuple):
    """One pair's games: who played Black in the extra game, games won by each, the winner (None on a tie),
    and how many of its games differ (by A's colour and the moves): between agents that play a position the
    same way every time, only two (one a colour), repeated, and the extra Black game decides the pair."""

    a: str
    b: str
    extra_black: str
    a_games: int
    b_games: int
    winner: Optional[str]
    distinct_games: Optional[int] = None


class Standing(NamedTuple):
    """An agent's line of the table."""

    rank: int
    agent: str
    wins: int  # WINs: mini-matches won
    games_won: int
    games_lost: int
    faults: int  # games it lost by a fault (a crash, a timeout, an illegal move, a failed build)


class TournamentFault(NamedTuple):
    """A game lost by a fault: the mini-match, the game's number in it, the agent it cost, as which
    colour, how (a Reason's value) and why."""

    a: str
    b: str
    game: int
    agent: str
    colour: str
    reason: str
    detail: str


class TournamentReport(NamedTuple):
    """The tournament: standings, every mini-match, the crosstable (games won by row against column), faults."""

    agents: List[str]
    standings: List[Standing]
    matches: List[MiniMatch]
    crosstable: Dict[str, Dict[str, int]]
    faults: List[TournamentFault]
    games_per_match: int
    seed: int
    tie_break: str
    jobs: int
    resumed_games: int = 0
    seconds: float = 0.0
    notes: Optional[List[str]] = None
    entrants: Optional[Dict[str, str]] = None  # who is who: {an agent's name: its folder's path, or its spec}

    def to_json(self) -> Dict[str, Any]:
        """The report as JSON-ready dicts and lists, its standings, matches and faults included."""
        return dict(
            self._asdict(),
            standings=[dict(standing._asdict()) for standing in self.standings],
            matches=[dict(match._asdict()) for match in self.matches],
            faults=[dict(fault._asdict()) for fault in self.faults],
        )


BY_ENTRANT = "by-entrant"  # the journal's word for the pair order of ``pairs``; journals without it: ROW_ORDER
ROW_ORDER = "row"  # before 2026-11-28: each agent's pairs with those after it, agent by agent


def shown_names(names: Sequence[str], sources: Sequence[str]) -> List[str]:
    """The names a tournament shows for agents of these ``names`` (a folder's own name, or a spec), each standing
    for its entry of ``sources`` (the folder's path, or the spec): each name shown safely, at most
    NAME_CHARACTERS of it (``excerpt``); where two would show alike, each of them marked with a fingerprint of
    its whole name (of its source, where two whole names are one), and so is a name that would show as if
    marked, so that no entrant can choose a name that shows as another's. InvalidInput where one agent is
    given twice (or, by a fingerprint's chance, two would still show alike)."""
    short = [excerpt(name, NAME_CHARACTERS) for name in names]
    alike, same_name = Counter(short), Counter(names)
    shown = [
        text + MARK + _fingerprint(name if same_name[name] == 1 else source)
        if alike[text] > 1 or _MARKED.search(text)
        else text
        for name, source, text in zip(names, sources, short)
    ]
    twice = sorted({excerpt(source, 200) for text, source in zip(shown, sources) if shown.count(text) > 1})
    if twice:
        raise InvalidInput(
            f"a tournament plays each agent once, under a name of its own: {', '.join(twice)} would show as one"
        )
    return shown


def _fingerprint(text: str) -> str:
    """The first FINGERPRINT_DIGITS hex digits of the SHA-256 of ``text`` (a file name's undecodable bytes too)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:FINGERPRINT_DIGITS]


def pairs(count: int, order: str = BY_ENTRANT) -> List[Tuple[int, int]]:
    """Every pair (i, j), i < j, of ``count`` agents, in the order they play: each agent's pairs with the
    agents before it, agent by agent, so that adding agents adds pairs after the others (``ROW_ORDER``:
    the order of journals before that)."""
    if order == ROW_ORDER:
        return [(i, j) for i in range(count) for j in range(i + 1, count)]
    return [(i, j) for j in range(count) for i in range(j)]


def extra_black_is_a(seed: int, pair_number: int) -> bool:
    """Whether the first agent of pair ``pair_number`` plays Black in the extra game (drawn from the seed)."""
    return random.Random(derive_seed(seed, pair_number)).random() < 0.5


def tournament_jobs(
    specs: Sequence[str],
    names: Dict[str, str],
    broken: Dict[str, str],
    games: int,
    seed: int,
    cpu_limit: float,
    limits: Optional[Limits] = None,
    order: str = BY_ENTRANT,
) -> List[TournamentJob]:
    """The course_game jobs of every game, pair after pair; game g of the whole tournament has index g."""
    work: List[TournamentJob] = []
    for number, (i, j) in enumerate(pairs(len(specs), order)):
        for k in range(games):
            if k < games - 1:
                colour = BLACK if k % 2 == 0 else WHITE
            else:
                colour = BLACK if extra_black_is_a(seed, number) else WHITE
            index = number * games + k
            work.append((GameJob(index, specs[i], specs[j], seed, 0, cpu_limit, colour, limits), broken, names))
    return work


def tournament_game(job: TournamentJob) -> MatchGame:
    """Worker: one game of the tournament, its players named by agent (the same names on every resume)."""
    game, broken, names = job
    record = course_game((game, broken))
    return record._replace(black=names[record.black], white=names[record.white])


def journal_header(
    agents: Sequence[str], games: int, seed: int, cpu_limit: float, order: str = BY_ENTRANT
) -> Dict[str, object]:
    """What makes a tournament the one it is, as its journal records it (a journal of ROW_ORDER has no
    ``pairs``)."""
    header: Dict[str, object] = {"tournament": list(agents), "games": games, "seed": seed, "cpu_limit": cpu_limit}
    return header if order == ROW_ORDER else dict(header, pairs=order)


def _entrants(
    path: str, agents: List[str], specs: List[str], games: int, seed: int, cpu_limit: float
) -> Tuple[List[str], List[str], str, List[str]]:
    """(agents, specs, pair order, the agents new to the journal at ``path``): the journal's agents first, in
    its order, then the others as given, where it holds a tournament of the same games, seed and CPU limit
    that these agents extend (its header rewritten for them, its games kept); as given otherwise (Journal
    then says what differs). A journal from before the pair order was by entrant takes no new agent."""
    try:
        header, _ = read_journal(path, MatchGame)
    except (OSError, JournalError):
        return agents, specs, BY_ENTRANT, []
    old = header.get("tournament")
    order = header.get("pairs", ROW_ORDER)
    if not isinstance(order, str):  # not a journal of ours: Journal says what differs
        return agents, specs, BY_ENTRANT, []
    if (
        not isinstance(old, list)
        or not set(old) <= set(agents)
        or journal_header(old, games, seed, cpu_limit, order) != header
    ):
        return agents, specs, order if isinstance(old, list) and set(old) == set(agents) else BY_ENTRANT, []
    by_name = dict(zip(agents, specs))
    new = [agent for agent in agents if agent not in old]
    agents = old + new
    if new:
        if order == ROW_ORDER:
            raise InvalidInput(
                f"{path} holds a tournament begun before new entrants could join one ({', '.join(new)} are new): "
                "play them in a tournament of their own, or start a new journal"
            )
        _rewrite_header(path, journal_header(agents, games, seed, cpu_limit, order))
    return agents, [by_name[agent] for agent in agents], order, new


def _rewrite_header(path: str, header: Dict[str, object]) -> None:
    """The journal at ``path`` with its first line ``header`` (the format added), every game line kept: all or
    nothing."""
    with open(path, "rb") as handle:
        lines = handle.read().split(b"\n", 1)
    first = json.dumps(dict(header, format=FORMAT), sort_keys=True).encode("utf-8")
    write_atomic(path, first + b"\n" + (lines[1] if len(lines) > 1 else b""))


def play_tournament(
    agents: Sequence[str],
    specs: Sequence[str],
    broken: Optional[Dict[str, str]] = None,
    games: int = MINI_MATCH_GAMES,
    settings: GameSettings = DEFAULT_GAME_SETTINGS,
    notes: Optional[List[str]] = None,
    sources: Optional[Sequence[str]] = None,
) -> TournamentReport:
    """Play the round-robin of ``agents`` (names; ``specs`` the players, in the same order); a TournamentReport.

    ``sources``: what each agent is, in the same order (its folder, or its spec; default ``specs``), the report's
    who is who. ``broken``: {spec: why it cannot play}. ``settings``: how the games are played (a GameSettings); its
    ``journal`` keeps every game, and a tournament it holds (stopped or killed) continues after its games;
    its ``progress(done, total)`` hears of each game.
    """
    seed, cpu_limit, journal_path, jobs = settings.seed, settings.cpu_limit, settings.journal, settings.jobs or 1
    if len(agents) < 2 or len(set(agents)) != len(agents):
        raise InvalidInput(f"a tournament needs at least two agents of distinct names, got {agents}")
    if games % 2 == 0:
        raise InvalidInput(f"a mini-match plays an odd number of games (the extra one decides), got {games}")
    entrants = dict(zip(agents, sources if sources is not None else specs))
    order, new = BY_ENTRANT, cast(List[str], [])
    if journal_path is not None and os.path.exists(journal_path):
        agents, specs, order, new = _entrants(journal_path, list(agents), list(specs), games, seed, cpu_limit)
    names = dict(zip(specs, agents))
    work = tournament_jobs(specs, names, broken or {}, games, seed, cpu_limit, settings.limits, order)
    journal: Optional[Journal[MatchGame]] = None
    if journal_path is not None:
        journal = Journal.open(journal_path, journal_header(agents, games, seed, cpu_limit, order), MatchGame)
    resumed = len(journal.games) if journal else 0
    if new:
        notes = list(notes or []) + [
            f"{', '.join(new)} joined the tournament of its journal: {resumed} games were kept and only the new "
            "pairs (and any unfinished one) were played"
        ]
    started = time.time()
    played = play_all(work, jobs, settings.scheduler, journal, function=tournament_game, progress=settings.progress)
    report = tournament_report(agents, played, games, seed, order)
    return report._replace(
        jobs=jobs, resumed_games=resumed, seconds=time.time() - started, notes=notes, entrants=entrants
    )


def tournament_report(
    agents: Sequence[str], played: Sequence[MatchGame], games: int, seed: int, order: str = BY_ENTRANT
) -> TournamentReport:
    """The TournamentReport of the games played, in game order (pairs in ``order``)."""
    matches: List[MiniMatch] = []
    crosstable = {a: {b: 0 for b in agents if b != a} for a in agents}
    faults: List[TournamentFault] = []
    fault_count = dict.fromkeys(agents, 0)
    for number, (i, j) in enumerate(pairs(len(agents), order)):
        a, b = agents[i], agents[j]
        mine = played[number * games : (number + 1) * games]
        a_games = sum(1 for g in mine if g.a_won)
        crosstable[a][b], crosstable[b][a] = a_games, len(mine) - a_games
        winner = a if a_games * 2 > games else b if (len(mine) - a_games) * 2 > games else None
        distinct = len({(g.a_colour, tuple(g.moves)) for g in mine})
        matches.append(
            MiniMatch(a, b, a if extra_black_is_a(seed, number) else b, a_games, len(mine) - a_games, winner, distinct)
        )
        for g in mine:
            if g.reason != Reason.END:
                colour = WHITE if g.winner == BLACK else BLACK
                loser = g.black if colour == BLACK else g.white
                fault_count[loser] += 1
                detail = g.detail.split(" ", 1)[1] if " " in g.detail else g.detail  # without the colour
                faults.append(
                    TournamentFault(
                        a, b, g.index - number * games + 1, loser, colour_word(colour), g.reason.value, detail
                    )
                )
    standings = rank(agents, matches, crosstable, fault_count)
    return TournamentReport(
        agents=list(agents),
        standings=standings,
        matches=matches,
        crosstable=crosstable,
        faults=faults,
        games_per_match=games,
        seed=seed,
        tie_break=TIE_BREAK,
        jobs=1,
    )


def rank(
    agents: Sequence[str],
    matches: Sequence[MiniMatch],
    crosstable: Dict[str, Dict[str, int]],
    fault_count: Dict[str, int],
) -> List[Standing]:
    """The standings: by WINs, then games won, then WINs among the agents tied on both."""
    wins = {a: sum(1 for m in matches if m.winner == a) for a in agents}
    won = {a: sum(crosstable[a].values()) for a in agents}
    lost = {a: sum(crosstable[b][a] for b in agents if b != a) for a in agents}

    def head_to_head(agent: str) -> int:
        tied = [b for b in agents if (wins[b], won[b]) == (wins[agent], won[agent])]
        return sum(1 for m in matches if m.winner == agent and m.a in tied and m.b in tied)

    key = {a: (wins[a], won[a], head_to_head(a)) for a in agents}
    order = sorted(agents, key=lambda a: (tuple(-x for x in key[a]), a))
    standings: List[Standing] = []
    for position, agent in enumerate(order):
        shared = standings and key[standings[-1].agent] == key[agent]
        standings.append(
            Standing(
                standings[-1].rank if shared else position + 1,
                agent,
                wins[agent],
                won[agent],
                lost[agent],
                fault_count[agent],
            )
        )
    return standings
