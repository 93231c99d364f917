"""``littlego bundle OUTDIR``: the two files a course submission may hold.

The bundled ``my_player3.py`` carries the source of every engine module the agent
imports, installs them as the ``engine`` package through a small import hook, and
runs the same ``engine.agent.main`` as the repository's agent: one code path, no copy
of the rules that could drift. Standard library only, Python 3.7 compatible.
"""

import os

from engine.params import load_params, save_params

ENGINE_DIR = os.path.dirname(os.path.abspath(__file__))
# The modules the agent imports, and only those (no benchmarks, players or host).
AGENT_MODULES = ("__init__", "constants", "coords", "bitboard", "position", "protocol",
                 "features", "params", "search", "agent")

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
    for name in AGENT_MODULES:
        with open(os.path.join(ENGINE_DIR, name + ".py")) as handle:
            parts.append("_SOURCES[{!r}] = {!r}\n".format(name, handle.read()))
    parts.append(_BOOTSTRAP)
    return "".join(parts)


def write_bundle(outdir, params_path):
    """Write my_player3.py and params.json (validated) into ``outdir``; the paths written."""
    params = load_params(params_path)
    if not os.path.isdir(outdir):
        os.makedirs(outdir)
    player = os.path.join(outdir, "my_player3.py")
    staging = player + ".tmp"
    with open(staging, "w") as handle:
        handle.write(bundle_source())
    os.replace(staging, player)
    target = os.path.join(outdir, "params.json")
    save_params(target, params)
    return [player, target]
