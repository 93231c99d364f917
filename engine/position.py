"""Immutable Little-Go positions and the course judge's rules, on bitboards.

Reading guide: ``Position`` is a namedtuple of eight fields; ``play_point`` is the
judge's placement rule (empty point; legal at once if the new stone's group
breathes; otherwise captures must give it a liberty and the result must not
repeat ``previous`` right after the mover lost stones: the course's KO); ``legal_mask``
is the same rule for every point, fast because a point with an empty neighbour is
always legal and only the few enclosed points need the capture and KO test.
"""

from typing import Any, List, NamedTuple, Optional, Tuple

from engine.bitboard import (
    BIT,
    FULL,
    NEIGHBOURS,
    ZOBRIST_WHITE_TO_MOVE,
    Bitboard,
    count,
    grow,
    ij_list,
    neighbours,
    points_of,
    zobrist,
)
from engine.constants import (
    BLACK,
    BOARD_SIZE,
    EMPTY,
    KOMI,
    MAX_MOVES,
    NUM_POINTS,
    PASS,
    WHITE,
    Colour,
    Move,
    Point,
    colour_word,
    opponent,
)
from engine.coords import move_from_public, move_to_text
from engine.errors import InvalidInput, UserError


class IllegalMove(UserError, ValueError):
    """A move the course judge would reject (the mover would lose the game)."""


LEGAL, OCCUPIED, SUICIDE, KO = "legal", "occupied", "suicide", "KO recapture"

SYMBOLS = {EMPTY: ".", BLACK: "X", WHITE: "O"}  # the board as pictures and the course host draw it
_FROM_SYMBOL = {".": EMPTY, "+": EMPTY, "X": BLACK, "x": BLACK, "O": WHITE, "o": WHITE}


# A board as the course gives it: a 25-digit string, or 5 rows of 5 values (digits or 0/1/2).
BoardInput = Any


def _parse_board(board: BoardInput, what: str) -> Tuple[Bitboard, Bitboard]:
    """(black, white) bitboards from a 25-digit string or a 5x5 nested list."""
    if isinstance(board, str):
        cells = list(board.strip())
    else:
        try:
            rows = list(board)
            if len(rows) != BOARD_SIZE:
                raise ValueError
            cells = []
            for row in rows:
                row = list(row)
                if len(row) != BOARD_SIZE:
                    raise ValueError
                cells.extend(row)
        except (TypeError, ValueError):
            raise InvalidInput(f"{what} board: expected a 25-digit string or {BOARD_SIZE} rows of {BOARD_SIZE} values")
    if len(cells) != NUM_POINTS:
        raise InvalidInput(f"{what} board: expected {NUM_POINTS} points, got {len(cells)}")
    black = white = 0
    for point, cell in enumerate(cells):
        value = str(cell)
        if value == "1":
            black |= BIT[point]
        elif value == "2":
            white |= BIT[point]
        elif value != "0":
            raise InvalidInput(
                f"{what} board: point {point} (row {point // BOARD_SIZE}, column {point % BOARD_SIZE}) is "
                f"{cell!r}, expected 0, 1 or 2"
            )
    return black, white


def _every_group_breathes(stones: Bitboard, empty: Bitboard) -> bool:
    return grow(stones & neighbours(empty), stones) == stones


class Position(NamedTuple):
    """A Little-Go position from the side to move's point of view.

    ``own``/``opp``: bitboards of the mover's and the other side's stones.
    ``prev_own``/``prev_opp``: the same for the board after the mover's own last move
    (the course's ``previous`` board). ``player``: the colour to move. ``moves_played``:
    plies so far. ``is_over``: the judge's verdict after the move that made this position.
    ``regular``: every group on the board has a liberty, as in any position a real game
    reaches; positions read from arbitrary boards may not be, and then captures are
    searched over the whole board exactly as the judge does.
    """

    own: Bitboard
    opp: Bitboard
    prev_own: Bitboard
    prev_opp: Bitboard
    player: Colour
    moves_played: int
    is_over: bool
    regular: bool

    # -- construction --------------------------------------------------------------------
    @classmethod
    def initial(cls) -> "Position":
        """The empty board, Black to move, no plies played."""
        return cls(0, 0, 0, 0, BLACK, 0, False, True)

    @classmethod
    def from_boards(
        cls, player: Colour, previous: BoardInput, current: BoardInput, moves_played: int = 0
    ) -> "Position":
        """A position from the course's input: colour to move and the two boards.

        Boards are 25-digit strings (row-major, 0 empty, 1 Black, 2 White) or 5x5 nested
        lists. ``moves_played`` is the ply count, which the input file does not carry.
        """
        if player not in (BLACK, WHITE):
            raise InvalidInput(f"player must be {BLACK} (Black) or {WHITE} (White), not {player!r}")
        if not isinstance(moves_played, int) or moves_played < 0:
            raise InvalidInput(f"moves_played must be a non-negative integer, not {moves_played!r}")
        prev_black, prev_white = _parse_board(previous, "previous")
        black, white = _parse_board(current, "current")
        empty = FULL ^ (black | white)
        regular = _every_group_breathes(black, empty) and _every_group_breathes(white, empty)
        if player == BLACK:
            return cls(black, white, prev_black, prev_white, player, moves_played, moves_played >= MAX_MOVES, regular)
        return cls(white, black, prev_white, prev_black, player, moves_played, moves_played >= MAX_MOVES, regular)

    @classmethod
    def from_picture(
        cls, picture: str, player: Colour = BLACK, previous: Optional[str] = None, moves_played: int = 0
    ) -> "Position":
        """A position from a board drawn as 5 lines of ``X``, ``O`` and ``.``.

        ``previous`` is drawn the same way; by default it equals the current board.
        """
        current = _picture_digits(picture)
        return cls.from_boards(player, _picture_digits(previous) if previous else current, current, moves_played)

    # -- the board -------------------------------------------------------------------------
    @property
    def black(self) -> Bitboard:
        """Bitboard of Black's stones."""
        return self.own if self.player == BLACK else self.opp

    @property
    def white(self) -> Bitboard:
        """Bitboard of White's stones."""
        return self.opp if self.player == BLACK else self.own

    @property
    def passed(self) -> bool:
        """Whether the last move was a pass (the board is as the mover left it): a pass now ends the game."""
        return self.own == self.prev_own and self.opp == self.prev_opp

    def colour_at(self, point: Point) -> Colour:
        """EMPTY, BLACK or WHITE at a flat point."""
        bit = BIT[point]
        if self.own & bit:
            return self.player
        if self.opp & bit:
            return opponent(self.player)
        return EMPTY

    def board_string(self) -> str:
        """The current board as the course writes it: 25 digits, row-major."""
        return _digits(self.black, self.white)

    def previous_string(self) -> str:
        """The previous board (after the mover's own last move), 25 digits."""
        if self.player == BLACK:
            return _digits(self.prev_own, self.prev_opp)
        return _digits(self.prev_opp, self.prev_own)

    def zobrist(self) -> int:
        """Zobrist hash of the stones and the side to move."""
        key = zobrist(self.black, 0) ^ zobrist(self.white, 1)
        return key ^ ZOBRIST_WHITE_TO_MOVE if self.player == WHITE else key

    def mover_lost_stones(self) -> bool:
        """Whether the opponent's last move captured some of the mover's stones."""
        return bool(self.prev_own & ~self.own)

    # -- the rules -------------------------------------------------------------------------
    def verdict(self, point: Point) -> str:
        """LEGAL, OCCUPIED, SUICIDE or KO for a placement at a flat point."""
        own, opp = self.own, self.opp
        bit = BIT[point]
        if (own | opp) & bit:
            return OCCUPIED
        empty = FULL ^ own ^ opp ^ bit
        if NEIGHBOURS[point] & empty:
            return LEGAL
        own_after = own | bit
        liberties = neighbours(grow(bit, own_after))
        if liberties & empty:
            return LEGAL
        dead = opp ^ grow(opp & neighbours(empty), opp)
        if not liberties & dead:
            return SUICIDE
        if self.prev_own & ~own and own_after == self.prev_own and opp ^ dead == self.prev_opp:
            return KO
        return LEGAL

    def legal_mask(self) -> Bitboard:
        """Bitboard of the legal placements (empty when the game is over)."""
        if self.is_over:
            return 0
        empty = FULL ^ (self.own | self.opp)
        legal = empty & neighbours(empty)
        enclosed = empty ^ legal
        while enclosed:
            bit = enclosed & -enclosed
            enclosed ^= bit
            if self.verdict(bit.bit_length() - 1) == LEGAL:
                legal |= bit
        return legal

    def legal_moves(self) -> List[Tuple[int, int]]:
        """Legal placements as (i, j) pairs, row-major; PASS, always legal, is not listed."""
        return ij_list(self.legal_mask())

    def legal_points(self) -> List[Point]:
        """Legal placements as flat points, ascending."""
        return points_of(self.legal_mask())

    def all_moves(self) -> List[Move]:
        """Every legal move: the placements as flat points, ascending, then PASS (always legal)."""
        moves: List[Move] = list(points_of(self.legal_mask()))
        moves.append(PASS)
        return moves

    def ko_mask(self) -> Bitboard:
        """Bitboard of the empty points that are illegal only because of the KO rule."""
        empty = FULL ^ (self.own | self.opp)
        enclosed = empty & ~neighbours(empty)
        return sum(BIT[p] for p in points_of(enclosed) if self.verdict(p) == KO)

    def is_legal(self, move: object) -> bool:
        """Whether the judge accepts ``move`` ((i, j) or PASS) here."""
        point = move_from_public(move)
        return not self.is_over and (point == PASS or self.verdict(point) == LEGAL)

    def play(self, move: object) -> "Position":
        """The position after ``move`` ((i, j) or PASS); IllegalMove when the judge rejects it."""
        try:
            point = move_from_public(move)
        except ValueError as error:
            raise IllegalMove(str(error))
        return self.play_point(point)

    def play_point(self, point: Move) -> "Position":
        """The position after a flat point or PASS; IllegalMove when the judge rejects it."""
        own, opp, prev_own, prev_opp, player, moves_played, is_over, regular = self
        if is_over:
            raise IllegalMove("the game is over")
        moves_played += 1
        if point == PASS:
            # Two passes in a row end the game, and so does Black's pass on ply 1: the
            # judge ends it whenever the passer's previous and current boards are equal.
            return Position(
                opp, own, opp, own, opponent(player), moves_played, moves_played >= MAX_MOVES or self.passed, regular
            )
        bit = BIT[point]
        if (own | opp) & bit:
            raise IllegalMove(f"{move_to_text(point)} is occupied")
        own_after = own | bit
        empty = FULL ^ own_after ^ opp
        if regular and not NEIGHBOURS[point] & opp:
            dead = 0  # in a regular position only a neighbouring group can be captured
        else:
            dead = opp ^ grow(opp & neighbours(empty), opp)
        if not NEIGHBOURS[point] & empty:
            liberties = neighbours(grow(bit, own_after))
            if not liberties & empty:
                if not liberties & dead:
                    raise IllegalMove(f"{move_to_text(point)} is suicide")
                if prev_own & ~own and own_after == prev_own and opp ^ dead == prev_opp:
                    raise IllegalMove(f"{move_to_text(point)} is a KO recapture")
        return Position(
            opp ^ dead, own_after, opp, own, opponent(player), moves_played, moves_played >= MAX_MOVES, regular
        )

    # -- scoring ---------------------------------------------------------------------------
    def score(self) -> Tuple[int, float]:
        """(Black's score, White's score): stones on the board, komi added to White."""
        return count(self.black), count(self.white) + KOMI

    def margin(self) -> float:
        """Score margin for the side to move if the game ended now (komi included)."""
        own, opp = count(self.own), count(self.opp)
        return own - opp - KOMI if self.player == BLACK else own + KOMI - opp

    @property
    def winner(self) -> Optional[Colour]:
        """BLACK or WHITE once the game is over, else None (no draw is possible)."""
        if not self.is_over:
            return None
        black, white = self.score()
        return BLACK if black > white else WHITE

    # -- display ---------------------------------------------------------------------------
    def picture(self) -> str:
        """The board as 5 lines of X (Black), O (White) and . (empty)."""
        cells = [SYMBOLS[self.colour_at(p)] for p in range(NUM_POINTS)]
        return "\n".join("".join(cells[r * BOARD_SIZE : (r + 1) * BOARD_SIZE]) for r in range(BOARD_SIZE))

    def __str__(self) -> str:
        return "{}\n{} to move, {} plies played{}".format(
            self.picture(),
            colour_word(self.player).capitalize(),
            self.moves_played,
            ", game over" if self.is_over else "",
        )


def _digits(black: Bitboard, white: Bitboard) -> str:
    return "".join("1" if black >> p & 1 else "2" if white >> p & 1 else "0" for p in range(NUM_POINTS))


def _picture_digits(picture: str) -> str:
    rows = [line.strip().replace(" ", "") for line in picture.strip().splitlines() if line.strip()]
    if len(rows) != BOARD_SIZE or any(len(row) != BOARD_SIZE for row in rows):
        raise InvalidInput(f"a board picture is {BOARD_SIZE} lines of {BOARD_SIZE} symbols:\n{picture}")
    try:
        return "".join(str(_FROM_SYMBOL[c]) for row in rows for c in row)
    except KeyError as error:
        raise InvalidInput(f"unknown symbol {error} in board picture (use X, O, .)")
