"""``littlego bundle OUTDIR``: the two files a course submission may hold.

The bundled ``my_player3.py`` carries the source of every module of the playing core
(the ``engine`` folder itself, without its subpackages: the folder decides what ships),
installs them as the ``engine`` package through a small import hook, and runs the same
``engine.agent.main`` as the repository's agent: one code path, no copy of the rules
that could drift. Standard library only, Python 3.7 compatible.
"""

import os

import engine
from engine.params import load_params, save_params
from engine.protocol import write_atomic

CORE_DIR = os.path.dirname(os.path.abspath(engine.__file__))


def core_modules():
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
    sys.exit(main(params_path=os.path.join(os.path.dirname(os.path.abspath(__file__)), "params.json")))
'''


def bundle_source():
    """The text of the self-contained my_player3.py."""
    parts = ['"""Little-Go agent (littlego bundle): reads input.txt, writes output.txt.\n\n'
             'Self-contained: the engine\'s modules are carried below as text. Standard library only.\n"""\n',
             "_SOURCES = {}\n"]
    for name in core_modules():
        with open(os.path.join(CORE_DIR, name + ".py")) as handle:
            parts.append("_SOURCES[{!r}] = {!r}\n".format(name, handle.read()))
    parts.append(_BOOTSTRAP)
    return "".join(parts)


def write_bundle(outdir, params_path):
    """Write my_player3.py and params.json (validated) into ``outdir``; the paths written."""
    params = load_params(params_path)
    if not os.path.isdir(outdir):
        os.makedirs(outdir)
    player = os.path.join(outdir, "my_player3.py")
    write_atomic(player, bundle_source())
    target = os.path.join(outdir, "params.json")
    save_params(target, params)
    return [player, target]
