"""The reference players' recorded answers: what ``littlego check`` prints beside a player at once.

Asking GNU Go and the shipped agent every won position of the shipped set takes minutes (``docs/check.md``
has the figures), so their answers are recorded once, position by position, in ``CHECK_ANSWERS`` beside the
positions file they answer (``CHECK_POSITIONS``), by ``littlego check --record-references``. A player's
answer to a position asked alone depends on the position alone (the ruler seeds each one's game the same),
so a recorded answer stands for the player's as long as the player is the same: the table keeps what each
depends on (``identity``: the digests of the shipped params and book, GNU Go's version) and ``usable``
answers from it only while that still holds; else the player is asked again. ``tests/test_check.py`` asks
the players again on a sample and compares, so that the table cannot drift from what they answer.

The file (gzipped JSON)::

    {"format": "littlego-check-answers 1",
     "info": {"created": <when the recording began>, "command": ..., "jobs": ...},
     "positions": {"file": "check-positions.json.gz", "won": 2119, "sha256": <digest of the won texts>},
     "players": [{"spec": "gnugo", "identity": {"gnugo": "GNU Go 3.8"}, "seconds": 512.3,
                  "answers": [12, 25, {"fault": "timeout", "detail": "..."}, ...]}, ...]}
                  # one a won position, in the file's order; 25: PASS
"""

import gzip
import hashlib
import json
import os
import subprocess
from functools import lru_cache
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from engine.data import SHIPPED_BOOK, SHIPPED_PARAMS
from engine.errors import UserError
from engine.players.gnugo import gnugo_path
from engine.players.shipped import NODES_PER_SECOND
from engine.protocol import write_atomic
from engine.ruler.measure import Answer, MoveFault
from engine.ruler.position_set import PositionSet, SolvedPosition, move_key, move_of_key

ANSWERS_FORMAT = "littlego-check-answers 1"
DEFAULT_REFERENCES = ("alphabeta", "gnugo", "shipped")  # the course's opponent, GNU Go, the shipped agent
REFERENCE_WORDS = {
    "alphabeta": "the course's alpha-beta opponent",
    "gnugo": "GNU Go at its default level (10)",
    "shipped": "the shipped agent (my_player3.py's play, its CPU budget counted in nodes)",
    "champion": "the shipped agent, timed",
}


class AnswersError(UserError, ValueError):
    """A recorded-answers file that cannot be used; the message names the file and what is wrong."""


class RecordedPlayer(NamedTuple):
    """One player's recorded answers: its ``spec``, what they depend on (``identity``), the wall seconds
    they took, and ``answers``: a won position's text -> the player's answer."""

    spec: str
    identity: Dict[str, str]
    seconds: float
    answers: Dict[str, Answer]


class RecordedAnswers(NamedTuple):
    """A recorded-answers file: its provenance (``info``, with the positions file's) and its players by spec."""

    info: Dict[str, Any]
    players: Dict[str, RecordedPlayer]


def positions_digest(won: Sequence[SolvedPosition]) -> str:
    """The digest of won positions' texts, in their order: which positions a table's answers answer."""
    return hashlib.sha256("\n".join(p.text for p in won).encode("utf-8")).hexdigest()


def _file_digest(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@lru_cache(maxsize=None)
def gnugo_version() -> str:
    """The first line of ``gnugo --version`` ("GNU Go 3.8"), "" where GNU Go is not installed."""
    binary = gnugo_path()
    if not binary:
        return ""
    try:
        found = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return found.stdout.strip().split("\n")[0]


def identity(spec: str) -> Dict[str, str]:
    """What the answers of the player ``spec`` depend on beside its code: the shipped params and book for
    ``shipped`` and ``champion`` (and for ``shipped``, the nodes it counts a CPU second), the version of GNU
    Go for ``gnugo``; {} for the others."""
    if spec in ("shipped", "champion"):
        found = {"params.json": _file_digest(SHIPPED_PARAMS), "book.json": _file_digest(SHIPPED_BOOK)}
        if spec == "shipped":
            found["nodes_per_second"] = str(NODES_PER_SECOND)
        return found
    if spec.partition(":")[0] == "gnugo":
        return {"gnugo": gnugo_version()}
    return {}


def _answer_data(answer: Answer) -> Any:
    if isinstance(answer, MoveFault):
        return {"fault": answer.reason, "detail": answer.detail}
    return int(move_key(answer))


def _answer_of(data: Any, where: str) -> Answer:
    if isinstance(data, dict) and isinstance(data.get("fault"), str) and isinstance(data.get("detail"), str):
        return MoveFault(data["fault"], data["detail"])
    if isinstance(data, int) and not isinstance(data, bool) and 0 <= data <= 25:
        return move_of_key(str(data))
    raise AnswersError(f"{where}: expected a move's number (0-24, 25 for PASS) or a fault, not {data!r}")


def save_answers(path: str, recorded: RecordedAnswers, won: Sequence[SolvedPosition]) -> None:
    """Write ``recorded`` atomically, each player's answers in the order of ``won`` (those it answers)."""
    data = {
        "format": ANSWERS_FORMAT,
        "info": {key: value for key, value in recorded.info.items() if key != "positions"},
        "positions": recorded.info["positions"],
        "players": [
            {
                "spec": player.spec,
                "identity": player.identity,
                "seconds": round(player.seconds, 1),
                "answers": [_answer_data(player.answers[p.text]) for p in won],
            }
            for player in recorded.players.values()
        ],
    }
    write_atomic(path, gzip.compress(json.dumps(data, separators=(",", ":")).encode("utf-8"), mtime=0))


def load_answers(path: str, positions: PositionSet) -> RecordedAnswers:
    """The RecordedAnswers of the file at ``path``, which answers ``positions`` (the file named in it);
    AnswersError naming the file for anything wrong, a table of other positions included."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, EOFError, ValueError) as problem:
        raise AnswersError(f"{path}: cannot be read as recorded answers (gzipped JSON): {problem}")
    if not isinstance(data, dict) or data.get("format") != ANSWERS_FORMAT:
        raise AnswersError(f'{path}: not a recorded-answers file: expected "format": {ANSWERS_FORMAT!r}')
    won = tuple(p for p in positions.positions if p.won)
    about = data.get("positions")
    if not isinstance(about, dict) or about.get("sha256") != positions_digest(won):
        raise AnswersError(f"{path}: records the answers to other positions than those given")
    players: Dict[str, RecordedPlayer] = {}
    for index, entry in enumerate(data.get("players") or []):
        where = f"{path}: players[{index}]"
        try:
            spec, found, seconds, answers = entry["spec"], entry["identity"], entry["seconds"], entry["answers"]
        except (TypeError, KeyError) as error:
            raise AnswersError(f"{where}: expected spec, identity, seconds and answers: {error}")
        if not isinstance(answers, list) or len(answers) != len(won) or not isinstance(found, dict):
            raise AnswersError(f"{where}: expected an identity and one answer a won position ({len(won)})")
        players[str(spec)] = RecordedPlayer(
            str(spec),
            {str(k): str(v) for k, v in found.items()},
            float(seconds),
            {p.text: _answer_of(a, f"{where}: answers[{i}]") for i, (p, a) in enumerate(zip(won, answers))},
        )
    info = dict(data.get("info") or {})
    info["positions"] = about
    return RecordedAnswers(info, players)


def recorded_info(positions_path: str, won: Sequence[SolvedPosition], **more: Any) -> Dict[str, Any]:
    """The ``info`` of a table of answers to ``won``, the positions of the file at ``positions_path``."""
    return dict(
        more, positions={"file": os.path.basename(positions_path), "won": len(won), "sha256": positions_digest(won)}
    )


def usable(
    recorded: Optional[RecordedAnswers], spec: str, won: Sequence[SolvedPosition]
) -> Tuple[Optional[List[Answer]], str]:
    """(the recorded answers of ``spec`` to each of ``won``, or None where the player must be asked now; a
    note on them): None where ``recorded`` has none for this player or for one of these positions, or where
    what they depend on (``identity``) has changed since; a recorded GNU Go where none is installed is used."""
    player = recorded.players.get(spec) if recorded else None
    if player is None or any(p.text not in player.answers for p in won):
        return None, ""
    now = identity(spec)
    if spec.partition(":")[0] == "gnugo" and not now["gnugo"]:
        return [player.answers[p.text] for p in won], "GNU Go is not installed here: its recorded answers"
    if now != player.identity:
        changed = ", ".join(sorted(name for name in now if now[name] != player.identity.get(name)))
        return None, f"{changed} changed since its answers were recorded: asked now"
    return [player.answers[p.text] for p in won], ""
