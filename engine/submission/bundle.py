"""``littlego bundle OUTDIR``: the files a course submission holds (the agent, its params, its book).

The bundled ``my_player3.py`` carries the source of every module of the playing core
(the ``engine`` folder itself, without its subpackages: the folder decides what ships),
installs them as the ``engine`` package through a small import hook, and runs the same
``engine.agent.main`` as the repository's agent: one code path, no copy of the rules
that could drift. Standard library only, Python 3.7 compatible.
"""

import os
import shutil
import tempfile
from typing import Callable, List, Optional

import engine
from engine.book import load_book
from engine.params import Params, load_params, save_params
from engine.protocol import write_atomic

CORE_DIR = os.path.dirname(os.path.abspath(engine.__file__))
PLAYER, PARAMS, BOOK = "my_player3.py", "params.json", "book.json"


def core_modules() -> List[str]:
    """The playing core's module names (the .py files directly in the engine folder), sorted."""
    return sorted(name[:-3] for name in os.listdir(CORE_DIR) if name.endswith(".py"))


_BOOTSTRAP = '''
import importlib.abc
import importlib.util
import os
import sys


class _BundledEngine(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the engine package from the sources carried in this file."""

    def find_spec(self, name, path=None, target=None):
        if name == "engine" or (name.startswith("engine.") and name[7:] in _SOURCES):
            return importlib.util.spec_from_loader(name, self, is_package=(name == "engine"))
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        short = "__init__" if module.__name__ == "engine" else module.__name__[7:]
        if short == "__init__":
            module.__path__ = []
        module.__file__ = __file__
        exec(compile(_SOURCES[short], "<bundled engine/" + short + ".py>", "exec"), module.__dict__)


sys.meta_path.insert(0, _BundledEngine())

if __name__ == "__main__":
    from engine.agent import main
    _HERE = os.path.dirname(os.path.abspath(__file__))
    sys.exit(main(params_path=os.path.join(_HERE, "params.json"), book_path=os.path.join(_HERE, "book.json")))
'''


def bundle_source() -> str:
    """The text of the self-contained my_player3.py."""
    parts = [
        '"""Little-Go agent (littlego bundle): reads input.txt, writes output.txt.\n\n'
        'Self-contained: the engine\'s modules are carried below as text. Standard library only.\n"""\n',
        "_SOURCES = {}\n",
    ]
    for name in core_modules():
        with open(os.path.join(CORE_DIR, name + ".py")) as handle:
            parts.append(f"_SOURCES[{name!r}] = {handle.read()!r}\n")
    parts.append(_BOOTSTRAP)
    return "".join(parts)


def write_bundle(
    outdir: str,
    params_path: str,
    force: bool = False,
    book_path: Optional[str] = None,
    adjust: Optional[Callable[[Params], Params]] = None,
) -> List[str]:
    """Write my_player3.py, params.json and (given ``book_path``) book.json, each validated,
    into ``outdir``; the paths written. ``adjust``: a function of the Params that returns the
    Params to ship (search settings fitted to a time budget, say).

    All or nothing: the files are staged beside their targets and moved into place
    together. A submission already there is replaced only with ``force``
    (FileExistsError otherwise); a target that is a folder is an IsADirectoryError.
    """
    params = load_params(params_path)
    if adjust is not None:
        params = adjust(params)
    book = None
    if book_path is not None:
        book = load_book(book_path)
    targets = [os.path.join(outdir, name) for name in (PLAYER, PARAMS) + ((BOOK,) if book is not None else ())]
    for target in targets:
        if os.path.isdir(target):
            raise IsADirectoryError(21, "is a folder, where the bundle would write a file", target)
    existing = [target for target in targets if os.path.exists(target)]
    if existing and not force:
        raise FileExistsError(17, "a submission is already there (--force replaces it)", existing[0])
    if os.path.exists(outdir) and not os.path.isdir(outdir):
        raise NotADirectoryError(20, "is a file, not a folder to bundle into", outdir)
    os.makedirs(outdir, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".bundle-", dir=outdir)
    try:
        write_atomic(os.path.join(staging, PLAYER), bundle_source())
        save_params(os.path.join(staging, PARAMS), params)
        if book is not None:
            write_atomic(os.path.join(staging, BOOK), book.to_json())
        for target in targets:
            os.replace(os.path.join(staging, os.path.basename(target)), target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return targets
