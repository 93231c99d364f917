"""The architecture as the folders show it: imports flow core <- tools <- evolve, never back.

Read from the source with ``ast``: the playing core (the modules directly in ``engine/``,
what a course submission holds) imports only the standard library and itself; the tools
(the subpackages of ``engine/``) import the core and libraries, never ``evolve``; nothing
imports a project module inside a function (the way a cycle hides); there is no cycle
between modules nor between the tools' subpackages; and the tree stays readable (no folder
above 12 modules, no module above 350 lines, C and web sources included, no function above 60).
"""

import ast
import os
import sys

import pytest

from tests.conftest import ROOT


def project_modules():
    """{module name: path} for every module of engine/ and evolve/."""
    modules = {}
    for package in ("engine", "evolve"):
        for folder, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    parts = os.path.relpath(path, ROOT)[:-3].split(os.sep)
                    if parts[-1] == "__init__":
                        parts.pop()
                    modules[".".join(parts)] = path
    return modules


def imports(path):
    """(imported module, line, at the top level?) for each import in a file."""
    tree = ast.parse(open(path).read(), path)
    top = set(id(node) for node in tree.body)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno}: relative import"
            # "from engine import position" imports the module engine.position.
            names = [node.module + "." + alias.name for alias in node.names]
        else:
            continue
        for name in names:
            found.append((name, node.lineno, id(node) in top))
    return found


def layer(module):
    if module.startswith("evolve"):
        return "evolve"
    return "tools" if module.count(".") >= 2 or module in TOOL_PACKAGES else "core"


def tool_package(module):
    """The subpackage of ``engine`` a tools module belongs to (``engine.play`` for ``engine.play.match``)."""
    return ".".join(module.split(".")[:2])


def resolve(name, modules):
    """The project module an imported name refers to (longest match), or None."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


TOOL_PACKAGES = {
    "engine." + name
    for name in os.listdir(os.path.join(ROOT, "engine"))
    if os.path.isfile(os.path.join(ROOT, "engine", name, "__init__.py"))
}
MODULES = project_modules()
ALLOWED = {"core": {"core"}, "tools": {"core", "tools"}, "evolve": {"core", "tools", "evolve"}}


def test_the_layers_are_where_the_issue_puts_them():
    assert {layer(m) for m in MODULES} == {"core", "tools", "evolve"}
    core = sorted(m for m in MODULES if layer(m) == "core")
    for expected in (
        "engine.position",
        "engine.features",
        "engine.search",
        "engine.params",
        "engine.protocol",
        "engine.agent",
        "engine.symmetry",
    ):
        assert expected in core
    for tool in (
        "players.specs",
        "play.game",
        "play.match",
        "play.stats",
        "ui.judge",
        "submission.bench",
        "submission.bundle",
        "cli.littlego",
        "players.gnugo",
        "players.program",
        "players.gtp",
        "ui.gtp",
        "play.sgf",
        "ui.terminal",
        "native.solver",
        "native.book",
        "training.qlearning",
    ):
        assert "engine." + tool in MODULES


def test_the_tools_subpackages_form_no_cycle():
    graph = {}
    for module, path in MODULES.items():
        if layer(module) == "tools":
            targets = {resolve(name, MODULES) for name, _, _ in imports(path)}
            graph.setdefault(tool_package(module), set()).update(
                tool_package(t)
                for t in targets
                if t and layer(t) == "tools" and tool_package(t) != tool_package(module)
            )
    done = set()

    def visit(package, path):
        assert package not in path, "the tools' subpackages import in a cycle: " + " -> ".join(path + [package])
        if package not in done:
            for target in sorted(graph.get(package, ())):
                visit(target, path + [package])
            done.add(package)

    for package in sorted(graph):
        visit(package, [])


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_flow_one_way(module):
    for name, line, _ in imports(MODULES[module]):
        target = resolve(name, MODULES)
        if target is not None:
            assert layer(target) in ALLOWED[layer(module)], (
                f"{module}:{line} imports {name} ({layer(module)} may not import {layer(target)})"
            )


@pytest.mark.skipif(not hasattr(sys, "stdlib_module_names"), reason="needs Python 3.10+ to tell the standard library")
@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer(m) == "core"))
def test_the_core_needs_only_the_standard_library(module):
    for name, line, _ in imports(MODULES[module]):
        if resolve(name, MODULES) is None:
            assert name.split(".")[0] in sys.stdlib_module_names, f"{module}:{line} imports {name}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_project_import_hides_inside_a_function(module):
    for name, line, at_top in imports(MODULES[module]):
        if resolve(name, MODULES) is not None:
            assert at_top, f"{module}:{line}: {name} imported inside a function"


def test_no_import_cycle():
    graph = {m: {resolve(n, MODULES) for n, _, _ in imports(p)} - {None, m} for m, p in MODULES.items()}
    # A package's __init__ importing its own submodules is the package, not a cycle.
    for module in graph:
        graph[module] = {t for t in graph[module] if not t.startswith(module + ".")}
    done, path = set(), []

    def visit(module):
        if module in path:
            raise AssertionError("import cycle: " + " -> ".join(path[path.index(module) :] + [module]))
        if module in done:
            return
        path.append(module)
        for target in sorted(graph[module]):
            visit(target)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)


def test_the_agent_entry_point_imports_only_the_core():
    for name, line, _ in imports(os.path.join(ROOT, "my_player3.py")):
        target = resolve(name, MODULES)
        assert target is None or layer(target) == "core", f"my_player3.py:{line} imports {name}"
