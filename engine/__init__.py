"""Little-Go engine: the playing core, what a course submission holds, and the tools around it.

The modules directly in this folder are the core, and ``littlego bundle`` inlines them
all: ``constants`` (the game's numbers and limits), ``coords`` (points and the course's
``i,j``), ``bitboard`` (sets of points as integers), ``position`` (the rules), ``symmetry``
(the 8 symmetries of the board and its one canonical form), ``features`` (the evaluation
terms and ``make_evaluator``), ``patterns`` (the pattern weights' shapes: every 2x2 window of the
board), ``network`` (the evaluation's hidden layer), ``params`` (weights and search settings, ``params.json``),
``search_settings`` (each search setting's range, default and meaning, and the file's number checks),
``search`` (alpha-beta that takes its evaluator, within depth, node or CPU limits),
``solver`` (exact play to the end of the game), ``book`` (the opening book), ``playout``
(random moves), ``protocol`` (the agent's side of ``input.txt``/``output.txt``), ``agent``
(one move as the course asks), ``errors`` (the errors a user causes, told from bugs). The core uses
only the standard library and parses under
Python 3.7, because the course server runs 3.7.5.

The subpackages are the tools, which import the core and are never imported by it:
``players`` (everything that can be asked for a move), ``play`` (games, matches and their
statistics), ``native`` (compiled C: the exact solver and the book it proves), ``ui`` (the
terminal, the GTP engine, the course's judge), ``submission`` (bundle and bench),
``training`` (the Q-learner's trainer), ``sandbox`` (the bubblewrap sandbox every untrusted
agent runs in), ``course`` (agents built as the course builds them, grades, the class
tournament, the constants of their code), ``study`` (where games are won and lost, by the
solver), ``ruler`` (the share of solved won positions any player keeps, and the positions
files it reads), ``common`` (process pools, seeds, run folders), ``cli`` (the ``littlego`` command)
and ``data`` (the shipped files).

Vocabulary (read this first):

- A *point* is a flat index 0..24, row-major: ``point = BOARD_SIZE * i + j`` where
  ``i`` is the row from the top and ``j`` the column from the left. ``(i, j)`` and the
  course's ``"i,j"`` text exist only at the edges (``engine.coords``).
- A *move* is a point or ``PASS``.
- A *colour* is ``BLACK`` (1) or ``WHITE`` (2), the course's encoding; ``EMPTY`` is 0.
- A *board* is two 25-bit integers (bitboards), one per colour.
- A ``Position`` is immutable: the stones of the side to move (``own``) and of the
  other side (``opp``), the board the mover saw after its own last move
  (``previous``, which decides the KO rule), the ply count, and whether the move
  that made it ended the game. ``position.play_point(move)`` returns a new Position
  (``play`` takes the course's ``(i, j)``, at the edges).
- Scores, features and search values are always from the side to move.
"""

from engine.constants import BLACK, BOARD_SIZE, EMPTY, KOMI, MAX_MOVES, NUM_POINTS, PASS, WHITE, opponent
from engine.position import IllegalMove, Position

__all__ = [
    "BLACK",
    "WHITE",
    "EMPTY",
    "BOARD_SIZE",
    "NUM_POINTS",
    "KOMI",
    "MAX_MOVES",
    "PASS",
    "opponent",
    "Position",
    "IllegalMove",
]
