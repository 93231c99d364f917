"""Compiling the C programs of the tools once per source, into a cache folder keyed by the source's hash."""

import hashlib
import os
import shutil
import subprocess
import tempfile

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "solve.c")


class NativeError(RuntimeError):
    """A compiled program cannot be built or stopped answering; the message says why."""


def _cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "littlego")


def compiled_solver(source=SOURCE):
    """The path of the compiled solver, compiling it first if this source was never compiled here."""
    with open(source, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()[:16]
    folder = _cache_dir()
    binary = os.path.join(folder, "solve-" + digest)
    if os.path.exists(binary):
        return binary
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        raise NativeError("no C compiler found (set CC, or install gcc): the exact opening solver is compiled C")
    os.makedirs(folder, exist_ok=True)
    handle, staging = tempfile.mkstemp(prefix=".solve-", dir=folder)
    os.close(handle)
    try:
        done = subprocess.run([compiler, "-O2", "-o", staging, source], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
        if done.returncode != 0:
            raise NativeError("compiling {} with {} failed:\n{}".format(source, compiler, done.stdout))
        os.replace(staging, binary)
    finally:
        if os.path.exists(staging):
            os.unlink(staging)
    return binary
