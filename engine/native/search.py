"""The compiled twin of ``engine.search.Searcher`` (``native/search.c``): the same moves, faster.

``NativeSearcher`` is the Python ``Searcher`` with its two recursive routines, the root and
negamax, run by ``search.c`` in this process through ctypes. The rest is the Python's own code,
inherited: the iterative deepening, the CPU and node limits, and the root's random tie-break
(the C returns the equally best root moves, Python draws one from the same random stream and
the C stores it in its table). The C keeps its transposition table, killers and history from
search to search as the Python searcher keeps its dicts, so a player that keeps one searcher
for a game plays it move for move as with the Python one (tests/test_native_search.py). For the
tools only: the course submission stays pure Python. ``searcher_class()`` gives the compiled
searcher where a C compiler is found, the Python one (with a warning) where not.
"""

import ctypes
import functools
import math
import os
import random
import sys
from typing import Callable, Dict, List, NamedTuple, NoReturn, Optional, Sequence, Set, TextIO, Tuple, Type

from engine.constants import BLACK, KOMI, MAX_MOVES, NUM_POINTS, PASS, WHITE, Move
from engine.features import FEATURES, Evaluator, WeightedEvaluator, feature_values
from engine.native.compiler import FOLDER, NATIVE_PASS, NativeError, NoCompiler, compiled_library, game_defines
from engine.network import FRACTION_BITS, MAX_UNITS, FixedLayer
from engine.patterns import PATTERNS, WINDOW_TABLES, WINDOW_TOPS, pattern_indices
from engine.playout import random_opening
from engine.position import Position
from engine.search import TABLE_LIMIT, TIE, WIN, Searcher, SearchTimeout

SEARCH_SOURCE = os.path.join(FOLDER, "search.c")
# The features in the order search.c computes them: a feature added in Python must be added there.
# Python 3.12 sums floats with Neumaier's compensation; the evaluator's sum() must be copied exactly.
COMPENSATED_SUM = sum([1e100, 1.0, -1e100]) == 1.0
_LIMIT_REACHED, _OUT_OF_MEMORY = 1, 2  # why search.c stopped a search early


class NativePosition(ctypes.Structure):
    """search.c's ``pos_t``: ``engine.position.Position``, field for field."""

    _fields_ = [(name, ctypes.c_uint32) for name in ("own", "opp", "prev_own", "prev_opp")] + [
        (name, ctypes.c_int32) for name in ("player", "moves_played", "is_over", "regular")
    ]


def native_position(position: Position) -> NativePosition:
    """A Position as search.c reads it."""
    return NativePosition(*position)


def _flags() -> List[str]:
    # -ffp-contract=off: no fused multiply-add, whose single rounding Python never does.
    defines: Dict[str, object] = {
        "KOMI": float(KOMI),
        "BLACK": BLACK,
        "WHITE": WHITE,
        "WIN": WIN,
        "TIE": TIE,
        "FEATURE_COUNT": len(FEATURES),
        "PATTERN_COUNT": len(PATTERNS),
        "WINDOW_COUNT": len(WINDOW_TOPS),
        "NETWORK_UNITS": MAX_UNITS,
        "FRACTION_BITS": FRACTION_BITS,
    }
    defines.update(feature_defines())
    given = game_defines()  # those compiler.py passes every source already
    return ["-ffp-contract=off"] + [
        f"-D{name}=({value!r})" for name, value in sorted(defines.items()) if name not in given
    ]


def feature_defines() -> Dict[str, int]:
    """{FEATURE_<NAME>: its index}: the features' order, as search.c gets it from FEATURE_TABLE."""
    return {"FEATURE_" + name.upper(): index for index, name in enumerate(FEATURES)}


def _uncomputed(library: ctypes.CDLL) -> List[str]:
    """The features search.c leaves unwritten (its slot still NaN) on the empty board and a few others."""
    missing: Set[str] = set()
    position = Position.initial()
    for point in (12, 6, 7, 13, 18, 0):
        out = (ctypes.c_double * len(FEATURES))(*([math.nan] * len(FEATURES)))
        library.ls_features(ctypes.byref(native_position(position)), out)
        missing.update(name for name, value in zip(FEATURES, out) if math.isnan(value))
        position = position.play_point(point)
    return sorted(missing, key=FEATURES.index)


# The check positions of the compiled features: seeded random games, every other ply to the last.
CHECK_GAMES, CHECK_SEED = 4, 561


def check_positions() -> List[Position]:
    """Positions from CHECK_GAMES seeded random games, every second ply: the board filling up."""
    found: List[Position] = []
    for game in range(CHECK_GAMES):
        for plies in range(0, MAX_MOVES - 1, 2):
            found.append(random_opening(plies, CHECK_SEED + game)[0])
    return found


def differing_feature(
    library: ctypes.CDLL, reference: Optional[Callable[[Position], Sequence[float]]] = None
) -> Optional[Tuple[str, Position, float, float]]:
    """(name, position, its value in C, in Python) of the first feature that the compiled ``library``
    computes otherwise than ``reference`` (engine.features.feature_values) on the check positions; None
    where every one agrees."""
    reference = reference or feature_values
    out = (ctypes.c_double * len(FEATURES))()
    for position in check_positions():
        library.ls_features(ctypes.byref(native_position(position)), out)
        for name, compiled, expected in zip(FEATURES, out, reference(position)):
            if compiled != expected:
                return name, position, compiled, expected
    return None


# search.c's entry points: (result type, argument types), pointers to a search state and to pos_t.
_POINTER, _POSITION = ctypes.c_void_p, ctypes.POINTER(NativePosition)
_SIGNATURES = {
    "ls_feature_count": (ctypes.c_int, []),
    "ls_features": (None, [_POSITION, ctypes.POINTER(ctypes.c_double)]),
    "ls_patterns": (None, [_POSITION, ctypes.POINTER(ctypes.c_int)]),
    "ls_set_windows": (None, [ctypes.POINTER(ctypes.c_int16), ctypes.POINTER(ctypes.c_int)]),
    "ls_legal_mask": (ctypes.c_uint32, [_POSITION]),
    "ls_play": (None, [_POSITION, ctypes.c_int, _POSITION]),
    "ls_new": (
        _POINTER,
        [
            ctypes.POINTER(ctypes.c_double),
            ctypes.POINTER(ctypes.c_double),
            ctypes.POINTER(ctypes.c_double),
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_int64),
            ctypes.POINTER(ctypes.c_int64),
            ctypes.POINTER(ctypes.c_double),
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_uint64,
        ],
    ),
    "ls_free": (None, [_POINTER]),
    "ls_nodes": (ctypes.c_int64, [_POINTER]),
    "ls_set_nodes": (None, [_POINTER, ctypes.c_int64]),
    "ls_table_size": (ctypes.c_uint64, [_POINTER]),
    "ls_root": (
        ctypes.c_int,
        [
            _POINTER,
            _POSITION,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_double,
            ctypes.c_int64,
            ctypes.POINTER(ctypes.c_int),
            ctypes.POINTER(ctypes.c_double),
        ],
    ),
    "ls_store_root": (ctypes.c_int, [_POINTER, ctypes.c_int]),
    "ls_value": (
        ctypes.c_double,
        [
            _POINTER,
            _POSITION,
            ctypes.c_int,
            ctypes.c_double,
            ctypes.c_double,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_double,
            ctypes.c_int64,
            ctypes.POINTER(ctypes.c_int),
        ],
    ),
}


def _declare(library: ctypes.CDLL) -> ctypes.CDLL:
    """``library`` (search.c loaded) with its entry points typed and its pattern windows given, once its
    features and patterns are checked."""
    for name, (result, arguments) in _SIGNATURES.items():
        function = getattr(library, name)
        function.restype, function.argtypes = result, arguments
    tables = [index for table in WINDOW_TABLES for index in table]
    library.ls_set_windows((ctypes.c_int16 * len(tables))(*tables), (ctypes.c_int * len(WINDOW_TOPS))(*WINDOW_TOPS))
    _check_features(library)
    _check_patterns(library)
    return library


def compiled_patterns(library: ctypes.CDLL, position: Position) -> List[int]:
    """The sorted shapes of ``position``'s windows as search.c reads them (engine.patterns.pattern_indices)."""
    out = (ctypes.c_int * len(WINDOW_TOPS))()
    library.ls_patterns(ctypes.byref(native_position(position)), out)
    return list(out)


def _check_patterns(library: ctypes.CDLL) -> None:
    """NativeError where search.c reads a check position's windows otherwise than engine/patterns.py."""
    for position in check_positions():
        compiled, expected = compiled_patterns(library, position), pattern_indices(position.own, position.opp)
        if compiled != expected:
            raise NativeError(
                f"search.c reads the pattern windows otherwise than engine/patterns.py: {compiled} against "
                f"{expected} (board {position.board_string()!r}); mend pattern_indices in "
                "engine/native/search_features.h"
            )


def _check_features(library: ctypes.CDLL) -> None:
    """NativeError naming the feature of engine.features' FEATURE_TABLE that search.c leaves uncomputed, or
    computes otherwise than engine/features.py on the check positions, and where to mend it."""
    missing = _uncomputed(library)
    if library.ls_feature_count() != len(FEATURES) or missing:
        raise NativeError(
            "search.c does not compute the feature{} {} of engine.features' FEATURE_TABLE: add {} "
            "to feature_values in engine/native/search_features.h".format(
                "s" if len(missing) > 1 else "",
                ", ".join(missing),
                ", ".join(f"f[FEATURE_{name.upper()}] = ..." for name in missing),
            )
        )
    differing = differing_feature(library)
    if differing:
        name, position, compiled, expected = differing
        raise NativeError(
            f"search.c computes the feature {name!r} otherwise than engine/features.py: {compiled!r} against "
            f"{expected!r} at ply {position.moves_played} (board {position.board_string()!r}); mend "
            f"f[FEATURE_{name.upper()}] in engine/native/search_features.h"
        )


def compiled_search() -> str:
    """The path of search.c compiled as a shared library (once, cached as every C source of the
    tools); NativeError when it cannot be (no C compiler)."""
    return compiled_library(SEARCH_SOURCE, _flags())


@functools.lru_cache(maxsize=None)
def native_library() -> ctypes.CDLL:
    """The compiled search.c, loaded; NativeError when it cannot be built."""
    path = compiled_search()
    try:
        return _declare(ctypes.CDLL(path))
    except OSError:
        os.unlink(path)  # a damaged cached library: compile it again
        return _declare(ctypes.CDLL(compiled_search()))


def native_available() -> bool:
    """Whether the compiled searcher can be built here: False without a C compiler; a failed build or a
    mismatch with the Python features raises (NativeError), never reads as "unavailable"."""
    try:
        native_library()
    except NoCompiler:
        return False
    return True


@functools.lru_cache(maxsize=None)
def _warn_once(message: str, stream: TextIO) -> None:
    """Write ``message`` on ``stream``, once a process."""
    stream.write(message)


def searcher_class(stream: Optional[TextIO] = None) -> Type[Searcher]:
    """``NativeSearcher`` where it can be built, else ``engine.search.Searcher`` (the same moves,
    slower) with a one-line warning on ``stream`` (stderr), once in a process."""
    try:
        native_library()
    except NoCompiler as error:  # anything else (a failed build, a mismatch) is a defect: it raises
        _warn_once(
            f"littlego: searching in Python, the compiled searcher is unavailable: {str(error).splitlines()[0]}\n",
            stream or sys.stderr,
        )
        return Searcher
    return NativeSearcher


class _LayerArguments(NamedTuple):
    """The hidden layer as ls_new reads it: its units, each unit's FixedLayer sums (bias, own, opp and
    features in turn), the features' denominators and each unit's out weight (None: no layer)."""

    units: int
    sums: Optional["ctypes.Array[ctypes.c_int64]"]
    denominators: Optional["ctypes.Array[ctypes.c_int64]"]
    outs: Optional["ctypes.Array[ctypes.c_double]"]


@functools.lru_cache(maxsize=8)
def _layer_arguments(layer: Optional[FixedLayer]) -> _LayerArguments:
    """The arguments of ``layer`` (the evaluator's), remembered for the next searcher (ls_new copies them)."""
    if layer is None:
        return _LayerArguments(0, None, None, None)
    sums = [w for k, bias in enumerate(layer.bias) for w in (bias, *layer.own[k], *layer.opp[k], *layer.features[k])]
    return _LayerArguments(
        len(layer.bias),
        (ctypes.c_int64 * len(sums))(*sums),
        (ctypes.c_int64 * len(layer.denominators))(*layer.denominators),
        (ctypes.c_double * len(layer.out))(*layer.out),
    )


class NativeSearcher(Searcher):
    """``engine.search.Searcher`` with the search compiled, for an evaluator from ``make_evaluator``.

    The Python ``table``, ``killers`` and ``history`` stay empty: the C holds them. ``nodes``
    reads the C's count. ``table_limit``: the table is cleared when a search starts with more
    entries (the Python searcher's limit unless a test asks for another). A custom ``terminal``
    or ``settle`` is not supported.
    """

    def __init__(
        self,
        evaluate: Evaluator,
        rng: Optional[random.Random] = None,
        shape_depth: Optional[int] = None,
        table_limit: int = TABLE_LIMIT,
    ):
        if not isinstance(evaluate, WeightedEvaluator) or len(evaluate.by_ply[0]) != len(FEATURES):
            raise ValueError("the compiled searcher needs an evaluator from engine.features.make_evaluator")
        table = evaluate.by_ply
        library = native_library()
        # make_evaluator's split, at every ply: the captures term apart, a 0.0 in its place in the static sum
        captures = FEATURES.index("captures")
        static = [w for vector in table for w in vector[:captures] + (0.0,) + vector[captures + 1 :]]
        captures_weights = [vector[captures] for vector in table]
        shapes = evaluate.patterns
        layer = _layer_arguments(evaluate.layer)
        handle = library.ls_new(
            (ctypes.c_double * len(static))(*static),
            (ctypes.c_double * len(captures_weights))(*captures_weights),
            None if shapes is None else (ctypes.c_double * len(shapes))(*shapes),
            *layer,
            COMPENSATED_SUM,
            -1 if shape_depth is None else shape_depth,
            table_limit,
        )
        if not handle:
            raise MemoryError("the compiled searcher could not allocate its transposition table")
        self._library, self._handle = library, handle
        Searcher.__init__(self, evaluate, rng=rng, shape_depth=shape_depth)

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._library.ls_free(handle)

    @property
    def nodes(self) -> int:
        return int(self._library.ls_nodes(self._handle))

    @nodes.setter
    def nodes(self, count: int) -> None:
        self._library.ls_set_nodes(self._handle, count)

    def table_size(self) -> int:
        """Entries in the C's transposition table (what ``len(table)`` is for the Python searcher)."""
        return int(self._library.ls_table_size(self._handle))

    def _limits(self) -> Tuple[float, int]:
        return (-1.0 if self.deadline is None else self.deadline, -1 if self.node_stop is None else self.node_stop)

    def _stopped(self, reason: int) -> NoReturn:
        if reason == _LIMIT_REACHED:
            raise SearchTimeout()
        raise MemoryError("the compiled searcher's transposition table ran out of memory")

    def _root(self, position: Position, depth: int) -> Tuple[Move, float, Optional[float]]:
        if self.close is not None:
            raise ValueError("the compiled searcher cannot tell the runner-up: search without close")
        best = (ctypes.c_int * (NUM_POINTS + 1))()
        value = ctypes.c_double()
        found = self._library.ls_root(
            self._handle,
            native_position(position),
            depth,
            self.rng is not None,
            *self._limits(),
            best,
            ctypes.byref(value),
        )
        if found < 0:
            self._stopped(-found)
        best_moves: List[Move] = [PASS if move == NATIVE_PASS else move for move in best[:found]]
        move = best_moves[0] if self.rng is None else self.rng.choice(best_moves)
        if self._library.ls_store_root(self._handle, NATIVE_PASS if move == PASS else move):
            self._stopped(_OUT_OF_MEMORY)
        return move, value.value, None

    def _negamax(self, position: Position, depth: int, alpha: float, beta: float, ply: int, captured: int) -> float:
        stopped = ctypes.c_int()
        value = self._library.ls_value(
            self._handle,
            native_position(position),
            depth,
            alpha,
            beta,
            ply,
            captured,
            *self._limits(),
            ctypes.byref(stopped),
        )
        if stopped.value:
            self._stopped(stopped.value)
        return float(value)
