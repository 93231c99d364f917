"""The architecture as the folders show it: imports flow core <- tools <- evolve, never back, and
nothing reaches into experiments/.

Read from the source with ``ast``: the playing core (what ``littlego bundle`` inlines in a course
submission's my_player3.py: ``engine.submission.bundle.core_modules``) imports only the standard library
and itself; the tools
(the subpackages of ``engine/``) import the core and libraries, never ``evolve``; nothing
imports a project module inside a function (the way a cycle hides); there is no cycle between
modules (type-only imports included) nor between the tools' subpackages, nor between evolve's packages
and modules. experiments/ holds one-off work apart from
the product: no module of the package or of the tests imports one of its scripts (by name, or
through ``sys.path`` or a loader), and it stays under MAX_EXPERIMENT_FILES files and
MAX_EXPERIMENT_BYTES bytes. Every test file but the guide's end-to-end copy has one or more
tests marked ``@pytest.mark.fast``, so that the fast subset touches each. The size aims for folders,
modules and functions are in docs/development.md: aims, which no test checks; its map of the tree
(the Layout table) is checked: it names every module.
"""

import ast
import os
import re
import subprocess
import sys

import pytest

from engine.submission.bundle import core_modules
from tests.conftest import ROOT

# The playing core: the modules a submission's my_player3.py carries, by the bundle's own list.
CORE = {"engine" if name == "__init__" else "engine." + name for name in core_modules()}


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


def _type_checking_block(node):
    """Whether ``node`` is ``if TYPE_CHECKING:`` (imports for the type checker alone)."""
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def imports(path, types=True):
    """(imported module, line, at the top level?) for each import in a file; an import in a top-level
    ``if TYPE_CHECKING:`` block is at the top level, and left out where ``types`` is false (it never
    runs, so it makes no cycle)."""
    tree = ast.parse(open(path).read(), path)
    top = set(id(node) for node in tree.body)
    for block in filter(_type_checking_block, tree.body):
        inside = set(id(node) for node in block.body)
        top |= inside if types else set()
        if not types:
            tree.body = [node for node in tree.body if node is not block]
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
    return "core" if module in CORE else "tools"


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


@pytest.mark.fast
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
        "submission.speed",
        "submission.bundle",
        "cli.littlego",
        "players.gnugo",
        "players.program",
        "players.gtp",
        "ui.gtp_server",
        "play.sgf",
        "ui.terminal",
        "native.solver",
        "native.book_build",
        "training.trainer",
    ):
        assert "engine." + tool in MODULES


@pytest.mark.parametrize("floor", ["tools", "evolve"])
def test_the_packages_of_each_floor_form_no_cycle(floor):
    """engine's subpackages (``engine.play``...), and evolve's subpackages and modules (``evolve.agents``,
    ``evolve.fitness``...): no two import each other by any path, type-only imports included."""
    graph = {}
    for module, path in MODULES.items():
        if layer(module) == floor and module != "evolve":
            targets = {resolve(name, MODULES) for name, _, _ in imports(path)}
            graph.setdefault(tool_package(module), set()).update(
                tool_package(t)
                for t in targets
                if t and t != "evolve" and layer(t) == floor and tool_package(t) != tool_package(module)
            )
    done = set()

    def visit(package, path):
        assert package not in path, f"{floor}: packages that import in a cycle: " + " -> ".join(path + [package])
        if package not in done:
            for target in sorted(graph.get(package, ())):
                visit(target, path + [package])
            done.add(package)

    for package in sorted(graph):
        visit(package, [])


@pytest.mark.fast
@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_flow_one_way(module):
    for name, line, _ in imports(MODULES[module]):
        target = resolve(name, MODULES)
        if target is not None:
            assert layer(target) in ALLOWED[layer(module)], (
                f"{module}:{line} imports {name} ({layer(module)} may not import {layer(target)})"
            )


@pytest.mark.fast
@pytest.mark.skipif(not hasattr(sys, "stdlib_module_names"), reason="needs Python 3.10+ to tell the standard library")
@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer(m) == "core"))
def test_the_core_needs_only_the_standard_library(module):
    for name, line, _ in imports(MODULES[module]):
        if resolve(name, MODULES) is None:
            assert name.split(".")[0] in sys.stdlib_module_names, f"{module}:{line} imports {name}"


@pytest.mark.fast
@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_project_import_hides_inside_a_function(module):
    for name, line, at_top in imports(MODULES[module]):
        if resolve(name, MODULES) is not None:
            assert at_top, f"{module}:{line}: {name} imported inside a function"


@pytest.mark.fast
@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_private_name_of_another(module):
    """What another module needs is public where it is defined: ``from engine.x import _name`` would reach
    into x's insides, and x could not change them alone."""
    tree = ast.parse(open(MODULES[module]).read(), MODULES[module])
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and resolve(node.module, MODULES):
            private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
            assert not private, f"{module}:{node.lineno} imports {', '.join(private)} from {node.module}"


def test_no_import_cycle():
    # Type-only imports count: a cycle that only the type checker walks is still two modules that need
    # each other.
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


@pytest.mark.fast
def test_the_core_is_what_the_bundle_carries_and_all_the_agent_needs():
    """The modules a submission's my_player3.py carries are the core, and the agent's every import, however
    deep, is among them: the bundle runs on a machine with nothing else installed."""
    from engine.submission.bundle import bundle_source

    carried = set(re.findall(r"^_SOURCES\['(\w+)'\] = ", bundle_source(), re.M))
    assert {"engine" if name == "__init__" else "engine." + name for name in carried} == CORE
    needed, todo = set(), ["engine.agent"]
    while todo:
        module = todo.pop()
        if module not in needed:
            needed.add(module)
            todo += [t for t in (resolve(n, MODULES) for n, _, _ in imports(MODULES[module], types=False)) if t]
    assert needed <= CORE, f"the agent imports {', '.join(sorted(needed - CORE))}, which no bundle carries"


@pytest.mark.fast
def test_the_agent_entry_point_imports_only_the_core():
    for name, line, _ in imports(os.path.join(ROOT, "my_player3.py")):
        target = resolve(name, MODULES)
        assert target is None or layer(target) == "core", f"my_player3.py:{line} imports {name}"


# -- experiments/: one-off work, apart from the product ------------------------------------------------

EXPERIMENTS = os.path.join(ROOT, "experiments")
MAX_EXPERIMENT_FILES = 300
MAX_EXPERIMENT_BYTES = 3_450_000  # 3 MB until 2026-11-29, 3.25 MB until the network benchmark of 2026-12-06
# Calls that put a folder on the import path or load a module from a file.
PATH_CALLS = {"insert", "append", "extend", "import_module", "spec_from_file_location", "run_path", "load_source"}


def experiment_files():
    """{path: bytes} of experiments/: the files git tracks there in a git checkout, else those on disk."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--", "experiments"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        paths = [os.path.join(ROOT, name) for name in listed.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):  # no git, or not a git checkout
        paths = [os.path.join(folder, name) for folder, _, names in os.walk(EXPERIMENTS) for name in names]
    return {path: os.lstat(path).st_size for path in paths if os.path.lexists(path)}


@pytest.mark.fast
@pytest.mark.skipif(not os.path.isdir(EXPERIMENTS), reason="no experiments/ here (an installed copy)")
def test_experiments_stay_under_300_files_and_3_45_mb():
    files = experiment_files()
    largest = sorted(files, key=files.get, reverse=True)[:3]
    where = ", ".join(f"{os.path.relpath(path, ROOT)} {files[path]:,}" for path in largest)
    assert len(files) < MAX_EXPERIMENT_FILES, f"experiments/ holds {len(files)} files (largest: {where})"
    assert sum(files.values()) < MAX_EXPERIMENT_BYTES, f"experiments/ holds {sum(files.values()):,} bytes ({where})"


def experiment_modules():
    """The names a script of experiments/ is imported by (its file name without .py), and ``experiments``."""
    names = {"experiments"}
    for _, _, files in os.walk(EXPERIMENTS):
        names.update(name[:-3] for name in files if name.endswith(".py"))
    return names


def reaches_into_experiments(source, path, names):
    """Each way the Python ``source`` imports a module of experiments/: an import of one of ``names``,
    or a call that puts a folder on the import path or loads a file (``sys.path.insert``,
    ``importlib.import_module``, ``runpy.run_path``...) in a file that names experiments/ in a string."""
    tree = ast.parse(source, path)
    found = []
    names_folder = any(
        isinstance(node, ast.Constant) and isinstance(node.value, str) and "experiments" in node.value
        for node in ast.walk(tree)
    )
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules = [node.module]
        else:
            modules = []
        found += [f"{path}:{node.lineno}: imports {m}" for m in modules if m.split(".")[0] in names]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in PATH_CALLS:
            on_sys_path = _is_sys_path(node.func.value)
            if names_folder and (on_sys_path or node.func.attr not in ("insert", "append", "extend")):
                call = ("sys.path." if on_sys_path else "") + node.func.attr
                found.append(f"{path}:{node.lineno}: {call}(...) in a file that names experiments/")
    return found


def _is_sys_path(node):
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "path"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


@pytest.mark.fast
def test_the_check_for_reaching_into_experiments_finds_the_ways_it_was_done():
    names = {"experiments", "giveaways", "records"}
    old_test = (
        'import sys\nTOOLS = os.path.join(ROOT, "experiments", "tools")\nsys.path.insert(0, TOOLS)\n'
        'module = importlib.import_module("giveaways")\n'
    )
    assert len(reaches_into_experiments(old_test, "old.py", names)) == 2
    assert reaches_into_experiments("from records import games\n", "tool.py", names) == ["tool.py:1: imports records"]
    assert reaches_into_experiments("import experiments.tools.records\n", "x.py", names)
    clean = 'import sys\nsys.path[0] = os.getcwd()\nwords.append("experiments")\nfrom engine.play import records\n'
    assert reaches_into_experiments(clean, "clean.py", names) == []


@pytest.mark.skipif(not os.path.isdir(EXPERIMENTS), reason="no experiments/ here (an installed copy)")
def test_no_module_of_the_package_or_the_tests_imports_from_experiments():
    names = experiment_modules()
    sources = list(MODULES.values()) + [os.path.join(ROOT, "my_player3.py")]
    for folder, _, files in os.walk(os.path.join(ROOT, "tests")):
        sources += [os.path.join(folder, name) for name in files if name.endswith(".py")]
    found = []
    for path in sources:
        with open(path) as handle:
            found += reaches_into_experiments(handle.read(), os.path.relpath(path, ROOT), names)
    assert not found, "\n".join(found)


# The fast subset (python3 -m pytest -m fast) holds one or more tests from every test file but these.
NOT_IN_THE_FAST_SUBSET = {"test_add_a_feature.py"}  # the guide's end-to-end copy
FAST_MARK = ast.dump(ast.parse("pytest.mark.fast", mode="eval").body)


def marked_fast(path):
    """The names of the test functions of a test file marked ``@pytest.mark.fast``."""
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    return [
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.name.startswith("test")
        and any(ast.dump(decorator) == FAST_MARK for decorator in node.decorator_list)
    ]


def test_every_test_file_has_a_test_in_the_fast_subset():
    folder = os.path.join(ROOT, "tests")
    names = sorted(name for name in os.listdir(folder) if name.startswith("test_") and name.endswith(".py"))
    assert NOT_IN_THE_FAST_SUBSET <= set(names), "a file left out of the fast subset is gone: update the set"
    missing = [
        name for name in names if name not in NOT_IN_THE_FAST_SUBSET and not marked_fast(os.path.join(folder, name))
    ]
    assert not missing, "no test marked @pytest.mark.fast in " + ", ".join(missing)


def _package_members(folder):
    """The modules and subpackages directly in the package ``folder``, by name."""
    return sorted(
        name[:-3] if name.endswith(".py") else name
        for name in os.listdir(folder)
        if (name.endswith(".py") and name not in ("__init__.py", "__main__.py"))
        or os.path.isfile(os.path.join(folder, name, "__init__.py"))
    )


PACKAGES = sorted(
    os.path.relpath(root, ROOT)
    for top in ("engine", "evolve")
    for root, _, files in os.walk(os.path.join(ROOT, top))
    if "__init__.py" in files and "__pycache__" not in root
)


@pytest.mark.fast
@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_docstring_names_every_module_in_it(package):
    folder = os.path.join(ROOT, package)
    with open(os.path.join(folder, "__init__.py")) as handle:
        words = set(re.findall(r"``([\w.]+)``", ast.get_docstring(ast.parse(handle.read())) or ""))
    missing = [name for name in _package_members(folder) if name not in words]
    assert not missing, f"{package}/__init__.py's map leaves out {', '.join(missing)} (name each as ``name``)"


@pytest.mark.fast
def test_a_module_name_means_one_thing():
    """Two modules share a name only where they hold the same thing: a command group (a ``cli``
    module, named by its command) beside what it runs, or the compiled twin (``engine.native``) of a
    core module. Anything else with one name for two things is renamed."""
    by_name = {}
    for module in MODULES:
        parts = module.split(".")
        if parts[-1] != parts[0] and module not in TOOL_PACKAGES:
            by_name.setdefault(parts[-1], []).append(module)
    shared = []
    for name, modules in sorted(by_name.items()):
        apart = [m for m in modules if ".cli." not in m]
        if len(apart) == 2 and {m.rpartition(".")[0] for m in apart} == {"engine", "engine.native"}:
            continue  # a core module and its compiled twin
        if len(apart) > 1:
            shared.append(f"{name}: {', '.join(modules)}")
    assert not shared, "one name for different modules:\n" + "\n".join(shared)


def layout_rows():
    """The rows of docs/development.md's Layout table: {its first cell's path: the whole row}."""
    text = open(os.path.join(ROOT, "docs", "development.md"), encoding="utf-8").read()
    layout = text[text.index("## Layout") :]
    return {m.group(1): m.group(0) for m in re.finditer(r"^\| `([^`]+)`[^|\n]*\|.*\|$", layout, re.M)}


@pytest.mark.fast
def test_the_layout_table_names_every_module_and_counts_the_core():
    """docs/development.md's map of the tree cannot go stale: each module of engine/ and evolve/ is named
    (as `name.py` or `name`) in the row of its folder, or of the nearest folder above it that has a row,
    and the core's count is the number of modules the bundle inlines."""
    rows = layout_rows()
    missing = []
    for root in ("engine", "evolve"):
        for folder, folders, files in os.walk(os.path.join(ROOT, root)):
            folders[:] = [name for name in folders if not name.startswith(("_", ".")) and name != "static"]
            relative = os.path.relpath(folder, ROOT).replace(os.sep, "/")
            key = "engine/*.py" if relative == "engine" else relative + "/"
            while key and key not in rows:
                key = key.rstrip("/").rpartition("/")[0] + "/" if "/" in key.rstrip("/") else ""
            for name in sorted(files):
                if name.endswith(".py") and name != "__init__.py":
                    if f"`{name}`" not in rows.get(key, "") and f"`{name[:-3]}`" not in rows.get(key, ""):
                        missing.append(f"{relative}/{name} (row {key or 'none'})")
    assert not missing, "docs/development.md's Layout leaves out " + ", ".join(missing)
    core = [name for name in os.listdir(os.path.join(ROOT, "engine")) if name.endswith(".py") and name != "__init__.py"]
    text = open(os.path.join(ROOT, "docs", "development.md"), encoding="utf-8").read()
    assert f"itself holds {len(core)} modules" in text, "docs/development.md's count of the core's modules"


# A command module's interface (each has its register), each tool's entry point, and each module's logger.
SHARED_NAMES = {"register", "main", "build_parser", "log"}


def public_definitions():
    """{public name: the modules of engine/ and evolve/ that define it at their top level}."""
    found = {}
    for module, path in MODULES.items():
        for node in ast.parse(open(path, encoding="utf-8").read()).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [target.id for target in targets if isinstance(target, ast.Name)]
            else:
                continue
            for name in names:
                if not name.startswith("_"):
                    found.setdefault(name, set()).add(module)
    return found


@pytest.mark.fast
def test_no_public_name_is_defined_in_two_modules():
    twice = {name: modules for name, modules in public_definitions().items() if len(modules) > 1}
    found = {name: sorted(modules) for name, modules in twice.items() if name not in SHARED_NAMES}
    assert not found, f"each public name is defined once (name it for what it is): {found}"
