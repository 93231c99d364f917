"""The types: mypy passes (strict on the core, ``engine/*.py``), and every public function is annotated.

mypy's settings live in ``pyproject.toml``; mypy checks only the bodies of annotated functions, so
the second test is what makes "every public function is checked" true outside the core.
"""

import ast
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("engine", "evolve")


@pytest.mark.slow
def test_mypy_passes():
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _python_files():
    for package in PACKAGES:
        for folder, _, files in os.walk(os.path.join(ROOT, package)):
            for name in sorted(files):
                if name.endswith(".py"):
                    yield os.path.join(folder, name)


def _public_functions(tree):
    """(qualified name, node) of each public function: a module's, and a public class's methods."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if item.name == "__init__" or not item.name.startswith("_"):
                        yield f"{node.name}.{item.name}", item


def _missing(function):
    """The parts of ``function``'s signature without an annotation."""
    arguments = function.args
    every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    missing = [a.arg for a in every if a.annotation is None and a.arg not in ("self", "cls")]
    if function.returns is None and function.name != "__init__":
        missing.append("return")
    return missing


def test_every_public_function_is_annotated():
    unannotated = []
    for path in _python_files():
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
        for name, function in _public_functions(tree):
            missing = _missing(function)
            if missing:
                where = os.path.relpath(path, ROOT)
                unannotated.append(f"{where}:{function.lineno} {name}: {', '.join(missing)}")
    assert not unannotated, f"{len(unannotated)} public functions lack annotations:\n" + "\n".join(unannotated)


@pytest.mark.fast
def test_the_package_says_it_is_typed():
    for package in PACKAGES:
        assert os.path.isfile(os.path.join(ROOT, package, "py.typed")), package


@pytest.mark.fast
def test_every_core_module_is_checked_strictly():
    """pyproject.toml's strict list holds each module of the core (engine/*.py): a new one cannot slip out."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        overrides = tomllib.load(handle)["tool"]["mypy"]["overrides"]
    strict = {name for entry in overrides if entry.get("disallow_untyped_defs") for name in entry["module"]}
    core = {"engine." + name[:-3] for name in os.listdir(os.path.join(ROOT, "engine")) if name.endswith(".py")}
    core = {"engine" if name == "engine.__init__" else name for name in core}
    assert not core - strict, f"pyproject.toml's strict list leaves out {', '.join(sorted(core - strict))}"
