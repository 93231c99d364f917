"""Compiling the tools' C sources once, into a cache folder keyed by what was compiled.

The C sources hold no number of the game: ``game_defines`` passes them from
``engine.constants`` and ``engine.symmetry`` on the compiler's command line, and the cache
key covers the source and those flags, so a change on either side compiles afresh.
"""

import hashlib
import math
import os
import platform
import shutil
import subprocess
import tempfile
from typing import Dict, Iterable, List, Union

from engine.constants import BLACK, BOARD_SIZE, KOMI, MAX_MOVES, NUM_POINTS, WHITE
from engine.errors import UserError
from engine.symmetry import SYMMETRIES

FOLDER = os.path.dirname(os.path.abspath(__file__))
SOLVER_SOURCE = os.path.join(FOLDER, "solve.c")
# every x86-64 processor since 2008 counts bits in one instruction; without -mpopcnt the compiler calls
# a library function instead (the solver counts stones at every node: 20% of its time)
OPTIMISE = ["-O2"] + (["-mpopcnt"] if platform.machine().lower() in ("x86_64", "amd64") else [])
# log2 of a compiled program's transposition-table buckets (four 8-byte entries each): 22 takes 128 MiB
DEFAULT_TABLE_BITS, MIN_TABLE_BITS, MAX_TABLE_BITS = 22, 16, 28
OPENING_TABLE_BITS = 24  # 512 MiB a process: early plies (an opening of 2 plies takes minutes even so)


class NativeError(UserError, RuntimeError):
    """A compiled program cannot be built or stopped answering; the message says why."""


class NoCompiler(NativeError):
    """No C compiler on this machine: the one NativeError a caller may meet with the Python fallback
    (or a test with a skip); any other is a defect to fix (a failed build, a mismatch with the Python)."""


NATIVE_PASS = NUM_POINTS  # the C sources' number for a pass (their PASS define)


def game_defines() -> Dict[str, Union[int, str]]:
    """{name: value} of the game's numbers as the C sources read them."""
    if KOMI == math.floor(KOMI):
        raise NativeError(f"the C sources assume a komi with a half point (no draws); KOMI is {KOMI}")
    return {
        "BOARD_SIZE": BOARD_SIZE,
        "N": NUM_POINTS,
        "PASS": NATIVE_PASS,
        "MAX_MOVES": MAX_MOVES,
        "BLACK": BLACK,
        "WHITE": WHITE,
        "MIN_TABLE_BITS": MIN_TABLE_BITS,
        "MAX_TABLE_BITS": MAX_TABLE_BITS,
        # The side to move wins a finished game when its stones minus the other's reach this:
        # Black must be more than komi ahead, White may be up to komi behind.
        "BLACK_WINS_FROM": math.floor(KOMI) + 1,
        "WHITE_WINS_FROM": -math.floor(KOMI),
        "SYMMETRY_POINTS": "{" + ",".join("{" + ",".join(map(str, image)) + "}" for image in SYMMETRIES) + "}",
    }


def _flags() -> List[str]:
    return OPTIMISE + [f"-D{name}={value}" for name, value in sorted(game_defines().items())]


def cache_dir() -> str:
    """The folder of what this user's machine keeps between runs: compiled libraries, the store of solved positions."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "littlego")


def _usable(binary: str) -> bool:
    return os.path.isfile(binary) and os.access(binary, os.X_OK) and os.path.getsize(binary) > 0


def compiled_program(source: str) -> str:
    """The path of ``source`` compiled with the game's numbers, compiling it first when this
    source and these numbers were never compiled here (or the cached file is damaged)."""
    return _compiled(source, _flags())


def compiled_library(source: str, extra_flags: Iterable[str] = ()) -> str:
    """The path of ``source`` compiled as a shared library (for ctypes) with the game's numbers
    and ``extra_flags``, cached and rebuilt as ``compiled_program`` is."""
    return _compiled(source, _flags() + ["-shared", "-fPIC"] + list(extra_flags), suffix=".so")


def _compiled(source: str, flags: List[str], suffix: str = "") -> str:
    flags = ["-I" + FOLDER] + flags
    digest = hashlib.sha256()
    for path in [source] + sorted(os.path.join(FOLDER, name) for name in os.listdir(FOLDER) if name.endswith(".h")):
        with open(path, "rb") as handle:  # the headers it may include change it too
            digest.update(handle.read())
    digest.update(" ".join(flags).encode())
    folder = cache_dir()
    name = os.path.splitext(os.path.basename(source))[0]
    binary = os.path.join(folder, f"{name}-{digest.hexdigest()[:16]}{suffix}")
    if _usable(binary):
        return binary
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        raise NoCompiler(f"no C compiler found (set CC, or install gcc): {os.path.basename(source)} is compiled C")
    os.makedirs(folder, exist_ok=True)
    descriptor, staging = tempfile.mkstemp(prefix="." + name + "-", dir=folder)
    os.close(descriptor)
    try:
        done = subprocess.run(
            [compiler] + flags + ["-o", staging, source], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        if done.returncode != 0:
            raise NativeError(f"compiling {source} with {compiler} failed:\n{done.stdout}")
        os.replace(staging, binary)
    finally:
        if os.path.exists(staging):
            os.unlink(staging)
    return binary


def compiled_solver(source: str = SOLVER_SOURCE) -> str:
    """The path of the compiled exact solver (``solve.c``)."""
    return compiled_program(source)
