"""The game's named numbers, defined once."""

BOARD_SIZE = 5
NUM_POINTS = BOARD_SIZE * BOARD_SIZE
MAX_MOVES = NUM_POINTS - 1      # the judge ends the game after 24 plies
KOMI = BOARD_SIZE / 2           # 2.5, added to White's score

EMPTY = 0
BLACK = 1
WHITE = 2

# The one pass sentinel, used by the engine and at every edge (the course writes "PASS").
PASS = "PASS"

_OPPONENT = {BLACK: WHITE, WHITE: BLACK}


def opponent(colour):
    """The other colour."""
    return _OPPONENT[colour]
