"""The game's named numbers and the limits the course sets, defined once, and the words of its types."""

from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    # For the type checker alone (Python 3.8's typing; the course runs 3.7): PASS is the one string
    # a move can be, so ``move == PASS`` tells a pass from a point.
    from typing import Final, Literal  # novermin

BOARD_SIZE = 5
NUM_POINTS = BOARD_SIZE * BOARD_SIZE
MAX_MOVES = NUM_POINTS - 1  # the judge ends the game after 24 plies
KOMI = BOARD_SIZE / 2  # 2.5, added to White's score
# Bump when the rules change (capture, suicide, KO, passes, scoring): solved results kept on disk
# (engine.native.store) carry it, and a store of other rules is refused.
RULES_VERSION = 1

EMPTY = 0
BLACK = 1
WHITE = 2

# The one pass sentinel, used by the engine and at every edge (the course writes "PASS").
PASS: "Final" = "PASS"

# The types' names for the game's words (``engine``'s vocabulary says what each is).
Colour = int  # BLACK or WHITE (EMPTY where a point's content is meant)
Point = int  # a flat index 0..NUM_POINTS-1
Move = Union[Point, "Literal['PASS']"]  # a point or PASS

# The solved game: with perfect play Black wins by 3 stones, and the centre (2, 2), point 12,
# is Black's only winning first move.
WINNING_FIRST_POINT = (BOARD_SIZE // 2) * BOARD_SIZE + BOARD_SIZE // 2

COURSE_CPU_LIMIT = 10.0  # CPU seconds a move may take before the course forfeits it
MAX_CPU_BUDGET = 9.5  # the most a params file may ask for: some margin below the limit
MAX_DEPTH = 12  # the deepest fixed search depth anything may ask for
MAX_WEIGHT = 1000.0  # the largest evaluation weight: evaluations stay far below a won game

_OPPONENT = {BLACK: WHITE, WHITE: BLACK}
COLOUR_WORDS = {BLACK: "black", WHITE: "white"}  # as people, GTP and SGF tools write them


def opponent(colour: Colour) -> Colour:
    """The other colour."""
    return _OPPONENT[colour]


def colour_word(colour: Colour) -> str:
    """``black`` or ``white``."""
    return COLOUR_WORDS[colour]
