"""The types: mypy passes, strict on every module of both packages, and every public function is annotated.

mypy's settings live in ``pyproject.toml``; a test there keeps them strict everywhere, so no module (a new
one included) can slip out of the strict check.
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


# the flags --strict turns on (mypy 1.x-2.x): an override that turns one off makes a module less than strict
STRICT_FLAGS = (
    "warn_unused_configs",
    "disallow_any_generics",
    "disallow_subclassing_any",
    "disallow_untyped_calls",
    "disallow_untyped_defs",
    "disallow_incomplete_defs",
    "check_untyped_defs",
    "disallow_untyped_decorators",
    "warn_redundant_casts",
    "warn_unused_ignores",
    "warn_return_any",
    "no_implicit_reexport",
    "strict_equality",
    "extra_checks",
)


def _mypy_settings():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        return tomllib.load(handle)["tool"]["mypy"]


@pytest.mark.fast
def test_every_module_is_checked_strictly():
    """pyproject.toml asks for --strict on both packages, and neither the top nor any override turns a part of it
    off: a module, a new one included, cannot slip out of the strict check."""
    settings = _mypy_settings()
    assert settings.get("strict") is True, "pyproject.toml's [tool.mypy] must say strict = true"
    assert set(settings["files"]) == set(PACKAGES)
    for where, table in [("[tool.mypy]", settings)] + [
        (f"the override of {entry.get('module')}", entry) for entry in settings.get("overrides", [])
    ]:
        relaxed = [flag for flag in STRICT_FLAGS if table.get(flag) is False] + (
            ["strict"] if table is not settings and table.get("strict") is False else []
        )
        assert not relaxed, f"{where} turns off {', '.join(relaxed)}"
