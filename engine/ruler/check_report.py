"""A check's result as a person reads it (``format_check``), as JSON (``check_json``) and as SGF (``misses_sgf``).

The text gives the share kept by ply and by colour, the checked player beside the references; how the
player was given the positions and the files its moves left; then every position it gave away: the board
as ``littlego play`` draws it, its move and the winning moves in the course's ``i,j`` (GTP vertex
beside), and the address that opens the position on the board of ``littlego serve`` (``history``).
"""

from typing import Any, Dict, List, Optional, Sequence, Tuple

from sgfmill import sgf

from engine.bitboard import points_of
from engine.constants import BLACK, PASS, WHITE, Move, colour_word
from engine.coords import move_to_text
from engine.play.sgf import game_sgf
from engine.players.gtp import point_to_vertex
from engine.position import LEGAL, Position
from engine.ruler.check import CheckResult, PlayerResult
from engine.ruler.history import NoHistory, board_address, moves_to
from engine.ruler.measure import Answer, Miss, MoveFault, Tally
from engine.ruler.reference_answers import REFERENCE_WORDS
from engine.sandbox.files import excerpt
from engine.ui.board import board_diagram

NAME_WIDTH = 24  # characters of a player's spec in the table
FILES_SHOWN = 10  # of the files an agent's moves left, named
NO_ADDRESS = "none: no game reaches this board by the moves the board page could be given"


def move_words(move: Move) -> str:
    """A move as the guides write it: the course's ``i,j`` with its GTP vertex, or PASS."""
    return PASS if move == PASS else f"{move_to_text(move)} ({point_to_vertex(move)})"


def answer_words(position: Position, answer: Answer) -> str:
    """What a player answered, in words: its move (and why the rules refuse it, where they do) or its fault."""
    if isinstance(answer, MoveFault):
        return f"no move ({answer})"
    if answer != PASS and position.verdict(answer) != LEGAL:
        return f"{move_words(answer)}, which the rules refuse ({position.verdict(answer)}): it forfeits"
    return move_words(answer)


def address(moves: List[Move], served: Optional[str]) -> str:
    """The board page's address of the position ``moves`` reach: after ``served`` (the address ``littlego
    serve`` printed, with its token) where given, else the part to put after it."""
    return (served.split("#")[0] if served else "") + board_address(moves)


def _moves(position: Position) -> Optional[List[Move]]:
    """The moves that reach ``position`` on the board, None where no game does (a positions file's made-up board)."""
    try:
        return moves_to(position)
    except NoHistory:
        return None


def _count(number: int, word: str) -> str:
    return f"{number:,} {word}{'' if number == 1 else 's'}"


def _share(kept: int, won: int, digits: int = 0) -> str:
    return f"{100 * kept / won:.{digits}f}%" if won else "-"


def _row(name: str, cells: Sequence[str], width: int) -> str:
    return f"{excerpt(name, NAME_WIDTH):<{NAME_WIDTH}}" + "".join(f"{cell:>{width}}" for cell in cells)


def share_table(result: CheckResult) -> str:
    """The share kept by ply, by colour and in all, one row a player, the positions counted first."""
    counts = result.checked.kept
    plies = sorted(counts.by_ply)
    header = [f"{ply}" for ply in plies] + ["Black", "White", "all"]
    width = 7

    def cells(tally: Tally, colour: Tally, kept: int, won: int) -> List[str]:
        return (
            [_share(*tally.get(ply, (0, 0))) for ply in plies]
            + [_share(*colour.get(c, (0, 0))) for c in (BLACK, WHITE)]
            + [_share(kept, won, 1)]
        )

    lines = [
        _row("kept, at ply:", header, width),
        _row("positions", [str(counts.by_ply[ply][1]) for ply in plies], width)
        + "".join(f"{counts.by_colour.get(c, (0, 0))[1]:>{width}}" for c in (BLACK, WHITE))
        + f"{counts.won:>{width}}",
    ]
    for player in (result.checked,) + result.references:
        kept = player.kept
        name = player.spec + (" (recorded)" if player.recorded else "")
        lines.append(_row(name, cells(kept.by_ply, kept.by_colour, kept.kept, kept.won), width))
    return "\n".join(lines)


def state_words(player: PlayerResult) -> str:
    """What the files a program player's moves left say: that it keeps state between moves, and what being
    given each position alone did to it."""
    state = player.state
    if state is None:
        return ""
    if not state.files:
        return (
            "Its moves left no file in its copy beside input.txt and output.txt: it keeps no state between moves there."
        )
    named = sorted(state.files.items(), key=lambda item: (-item[1], item[0]))
    shown = ", ".join(
        f"{excerpt(name, 80)} (after {count} of {state.positions})" for name, count in named[:FILES_SHOWN]
    )
    more = f" and {len(named) - FILES_SHOWN} more" if len(named) > FILES_SHOWN else ""
    return (
        f"Its moves left files in its copy beside input.txt and output.txt: {shown}{more}. The agent keeps "
        "state between moves there, as the course's host lets it within a game; here every position was its "
        "first move in a fresh copy, so it found none of that state, whatever the ply: a move counter started "
        "again, a time plan began anew. Where its play depends on that state, it played these positions as it "
        "would not in a game."
    )


def _players_words(result: CheckResult) -> List[str]:
    lines = []
    for player in result.references:
        words = [REFERENCE_WORDS.get(player.spec, ""), "its recorded answers" if player.recorded else "asked now"]
        lines.append(f"  {excerpt(player.spec, 200)}: " + "; ".join(w for w in words + [player.note] if w))
    for spec, why in result.left_out:
        lines.append(f"  {spec}: left out: {why}")
    return lines


def miss_lines(number: int, total: int, miss: Miss, served: Optional[str]) -> List[str]:
    """One position given away: where, what was played, what wins, the board and its address."""
    solved, position = miss.solved, miss.solved.position()
    winning = ", ".join(move_words(m) for m in sorted(solved.winning, key=lambda m: (m == PASS, m)))
    lines = [
        f"[{number}/{total}] ply {solved.ply}, {colour_word(solved.colour).capitalize()} to move: it played "
        f"{answer_words(position, miss.answer)}; the winning moves: {winning}"
    ]
    lines += ["  " + line for line in board_diagram(position).split("\n")]
    ko = [move_words(point) for point in points_of(position.ko_mask())]
    if ko:
        lines.append(f"  KO: {', '.join(ko)} cannot be played now")
    moves = _moves(position)
    lines.append(f"  on the board: {address(moves, served) if moves is not None else NO_ADDRESS}")
    return lines


def format_check(result: CheckResult, served: Optional[str] = None, misses: Optional[int] = None) -> str:
    """The check as text: the table, the players, how the checked one was asked and what its moves left, the
    time taken, then the positions it gave away (the first ``misses`` of them; None: all)."""
    checked = result.checked
    kept = checked.kept
    lines = [
        f"{excerpt(checked.spec, 200)} on {kept.won} won positions {result.where}: it kept {kept.kept} "
        f"({_share(kept.kept, kept.won, 1)}) and gave {kept.won - kept.kept} away.",
        "",
        share_table(result),
        "",
    ]
    if result.references or result.left_out:
        lines += ["The references, on the same positions:"] + _players_words(result) + [""]
    lines.append(f"How {excerpt(checked.spec, 200)} was asked: {checked.asked}.")
    state = state_words(checked)
    if state:
        lines.append(state)
    asked = result.asked_now
    if asked and result.seconds > 0:
        lines.append(
            f"Asked now: {_count(asked, 'position')} in {result.seconds:.0f} s on {_count(result.jobs, 'job')} "
            f"({asked / result.seconds:.2f} positions a second)."
        )
    given = kept.misses
    shown = given if misses is None else given[:misses]
    if given:
        lines += ["", f"Given away: {_count(len(given), 'position')}."]
    if shown and not served:
        lines.append(
            "Each opens on the board of `littlego serve`: put its #/board?... after the address the server "
            "printed (http://127.0.0.1:8561/?token=...), or give --serve ADDRESS to have it here."
        )
    for number, miss in enumerate(shown, 1):
        lines += [""] + miss_lines(number, len(given), miss, served)
    if len(shown) < len(given):
        lines += ["", f"({len(given) - len(shown)} more not shown: --misses all, or --json or --sgf for every one)"]
    return "\n".join(lines)


def _tally_json(tally: Tally) -> Dict[str, List[int]]:
    return {str(key): [kept, won] for key, (kept, won) in tally.items()}


def _player_json(player: PlayerResult) -> Dict[str, Any]:
    kept = player.kept
    found: Dict[str, Any] = {
        "spec": player.spec,
        "answers": "recorded" if player.recorded else "asked",
        "kept": kept.kept,
        "won": kept.won,
        "share": round(kept.share, 4),
        "by_ply": _tally_json(kept.by_ply),
        "by_colour": {colour_word(c): list(v) for c, v in kept.by_colour.items()},
    }
    if player.asked:
        found["asked"] = player.asked
    if player.note:
        found["note"] = player.note
    if player.state is not None:
        found["state_files"] = dict(sorted(player.state.files.items()))
    return found


def miss_json(miss: Miss, served: Optional[str] = None) -> Dict[str, Any]:
    """A position given away as data: its text, ply and colour, the answer (a move in ``i,j`` or PASS, or a
    fault), the winning moves, the moves that reach it and its address on the board."""
    solved, position = miss.solved, miss.solved.position()
    moves = _moves(position)
    answer = miss.answer
    return {
        "position": solved.text,
        "ply": solved.ply,
        "colour": colour_word(solved.colour),
        "played": None if isinstance(answer, MoveFault) else move_to_text(answer),
        "fault": str(answer) if isinstance(answer, MoveFault) else None,
        "winning": sorted(move_to_text(m) for m in solved.winning),
        "moves": None if moves is None else [point_to_vertex(m) for m in moves],
        "address": None if moves is None else address(moves, served),
    }


def check_json(result: CheckResult, served: Optional[str] = None) -> Dict[str, Any]:
    """The whole check as JSON data: the positions, each player's shares, the checked player's misses."""
    return {
        "player": result.checked.spec,
        "positions": {"where": result.where, "won": len(result.positions)},
        "checked": _player_json(result.checked),
        "references": [_player_json(player) for player in result.references],
        "left_out": [{"spec": spec, "why": why} for spec, why in result.left_out],
        "seconds": round(result.seconds, 2),
        "jobs": result.jobs,
        "misses": [miss_json(miss, served) for miss in result.checked.kept.misses],
    }


def miss_comment(spec: str, miss: Miss) -> str:
    """The SGF comment of a position given away: who played what there, and what wins."""
    solved = miss.solved
    winning = ", ".join(move_words(m) for m in sorted(solved.winning, key=lambda m: (m == PASS, m)))
    return (
        f"{spec} at ply {solved.ply}, {colour_word(solved.colour)} to move, played "
        f"{answer_words(solved.position(), miss.answer)}: the win is given away. The winning moves: {winning}. "
        f"(littlego check; position {solved.text})"
    )


def misses_sgf(result: CheckResult) -> bytes:
    """An SGF collection of the positions the checked player gave away: each a game of set-up stones (AB,
    AW) with the side to move (PL), its comment (C and GC) naming the move played and the winning moves."""
    spec = result.checked.spec
    games: List[bytes] = []
    for miss in result.checked.kept.misses:
        comment = miss_comment(spec, miss)
        names: Tuple[str, str] = (spec, "") if miss.solved.colour == BLACK else ("", spec)
        game = sgf.Sgf_game.from_bytes(game_sgf([], names[0], names[1], None, comment, miss.solved.position()))
        game.get_root().set("C", comment)
        games.append(game.serialise())
    return b"".join(games)
