"""The numbers a course agent keeps in its own code, found and rewritten without any other edit.

A student's agent holds its evaluation's numbers where its author wrote them: module constants
(``KOMI = 2.5``), a local of the evaluation (``atari_weight = 2``), an attribute (``self.w = 3.5``),
a dict of weights, a C++ ``const``/``constexpr`` or ``#define``, a Java ``static final`` or a
field's initialiser. ``find_constants`` lists each as a ``Constant``: its name, its value and where
it lives; ``engine.course.rewrite`` rewrites exactly those literals, and nothing else, with new values.

Names are what a reader would say: Python's are qualified by their scope (``evaluate.atari_weight``,
``Player.weight_c``, ``WEIGHTS.edge`` for a dict's entry), C++'s and Java's are the declared name. A
name found twice is told apart by where it lives (``depth@my_player.cpp:40``). An integer literal
stays an integer (its value rounded); a real one keeps its suffix (``0.5f``) and a decimal point.

Python is read with its own parser (``ast``); C++ and Java by patterns over the text with comments
and string literals blanked out, so a number in a comment or a string is never a constant.
"""

import ast
import fnmatch
import os
import re
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from engine.errors import InvalidInput

# The files of an agent's folder read for constants, by language: its own sources, top level only.
PYTHON, CPP, JAVA = (".py",), (".cpp", ".cc", ".h", ".hpp"), (".java",)
SOURCE_BYTES = 2**20  # a source file larger than this is not an agent's (and is not read)


class Constant(NamedTuple):
    """A number in an agent's code: its ``name``, ``value``, whether its literal is an ``integer`` (then
    it stays one), the ``file`` (relative to the folder) and ``line`` it lives on, the characters
    ``start:end`` of its literal in that file's text (a sign included) and the ``suffix`` its language
    writes after a real number (``f``, ``d``; ``""`` for none)."""

    name: str
    value: float
    integer: bool
    file: str
    line: int
    start: int
    end: int
    suffix: str = ""

    @property
    def where(self) -> str:
        """``FILE:LINE``, as a compiler names a place."""
        return f"{self.file}:{self.line}"


def default_bounds(constant: Constant) -> Tuple[float, float]:
    """The range a constant is tuned in unless the experiment says: its value plus or minus its size, at
    least 1 (``8`` -> [0, 16], ``-0.5`` -> [-1.5, 0.5], ``0`` -> [-1, 1])."""
    spread = max(abs(constant.value), 1.0)
    return constant.value - spread, constant.value + spread


# --- Python -------------------------------------------------------------------------------------


def _number(node: ast.AST) -> Optional[Tuple[float, bool]]:
    """(value, is an integer) where ``node`` is a number literal, signed or not (never a bool)."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return sign * node.value, isinstance(node.value, int)
    return None


class _PythonFinder(ast.NodeVisitor):
    """The numbers a Python module assigns by name, qualified by the class and function they are in."""

    def __init__(self, text: str, file: str):
        self.file = file
        self.scope: List[str] = []
        self.selves: List[Optional[str]] = []  # a method's first argument, by which it sets attributes
        self.classes: List[str] = []
        self.found: List[Constant] = []
        self.starts = [0]  # the character each line starts at
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.lines = text.splitlines(keepends=True)

    def _offset(self, line: int, column: int) -> int:
        """The character offset of (line, UTF-8 byte column), as ``ast`` gives places."""
        text = self.lines[line - 1] if line - 1 < len(self.lines) else ""
        return self.starts[line - 1] + len(text.encode("utf-8", "surrogateescape")[:column].decode("utf-8", "replace"))

    def _add(self, name: str, node) -> None:
        number = _number(node)
        if number is None:
            return
        start = self._offset(node.lineno, node.col_offset)
        end = self._offset(node.end_lineno, node.end_col_offset)
        self.found.append(Constant(name, float(number[0]), number[1], self.file, node.lineno, start, end))

    def _assigned(self, name: str, value) -> None:
        """A number, or each number of a dict literal with string keys (``NAME.key``), assigned to ``name``."""
        if isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    self._assigned(f"{name}.{key.value}", item)
        else:
            self._add(name, value)

    def _target(self, target, value) -> None:
        prefix = ".".join(self.scope)
        if isinstance(target, ast.Name):
            self._assigned(f"{prefix}.{target.id}" if prefix else target.id, value)
        elif (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and self.selves
            and target.value.id == self.selves[-1]
            and self.classes
        ):
            self._assigned(f"{self.classes[-1]}.{target.attr}", value)
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            for one, other in zip(target.elts, value.elts):
                self._target(one, other)

    def visit_Assign(self, node):
        if len(node.targets) == 1:
            self._target(node.targets[0], node.value)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self._target(node.target, node.value)

    def visit_ClassDef(self, node):
        self.scope.append(node.name)
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()
        self.scope.pop()

    def visit_FunctionDef(self, node):
        arguments = node.args.posonlyargs + node.args.args
        in_class = bool(self.scope) and bool(self.classes) and self.scope[-1] == self.classes[-1]
        self.selves.append(arguments[0].arg if in_class and arguments else None)
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()
        self.selves.pop()

    visit_AsyncFunctionDef = visit_FunctionDef


def _python_constants(text: str, file: str) -> List[Constant]:
    try:
        tree = ast.parse(text, filename=file)
    except SyntaxError as error:
        raise InvalidInput(f"{file}:{error.lineno}: not Python this tool can read: {error.msg}")
    finder = _PythonFinder(text, file)
    finder.visit(tree)
    return finder.found


# --- C++ and Java: patterns over the text with comments and strings blanked out -------------------

_NUMBER = r"[-+]?\s*(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?[fFdDlLuU]*(?![\w.'])"
_NAME = r"[A-Za-z_$][\w$]*"


def _blanked(text: str) -> str:
    """``text`` with each comment and string or character literal replaced by spaces (lines kept), so that
    patterns see code alone at the same offsets."""
    out = list(text)
    index, size = 0, len(text)
    while index < size:
        two = text[index : index + 2]
        if two == "//":
            end = text.find("\n", index)
            end = size if end < 0 else end
        elif two == "/*":
            end = text.find("*/", index + 2)
            end = size if end < 0 else end + 2
        elif text[index] in "\"'":
            quote, end = text[index], index + 1
            while end < size and text[end] != quote and text[end] != "\n":
                end += 2 if text[end] == "\\" else 1
            end = min(end + 1, size)
        else:
            index += 1
            continue
        for position in range(index, end):
            if out[position] != "\n":
                out[position] = " "
        index = end
    return "".join(out)


def _literal(text: str, start: int, end: int, real_type: bool) -> Tuple[float, bool, str]:
    """(value, integer, suffix) of the C-like number ``text[start:end]``, a real one where its declared
    type is (``real_type``) or its literal says so."""
    stripped = text[start:end].replace(" ", "").replace("\t", "")
    body = stripped.rstrip("fFdDlLuU")
    suffix = stripped[len(body) :]
    real = real_type or any(mark in body for mark in ".eE") or suffix in ("f", "F", "d", "D")
    if real and not any(mark in body for mark in ".eE") and suffix.lower().strip("l") in ("", "u"):
        suffix = ""  # an integer literal in a real declaration: written as a real, without 'L' or 'u'
    return float(body), not real, suffix


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


_DEFINE = re.compile(rf"^[ \t]*#[ \t]*define[ \t]+({_NAME})[ \t]+[( \t]*({_NUMBER})[) \t]*$", re.M)
_CPP_CONST = re.compile(rf"\b(?:const|constexpr)\b([^;{{}}()=]*?)\b({_NAME})\s*(?:=|\{{)\s*({_NUMBER})\s*(?=[;,}}])")
_MORE = re.compile(rf"\s*,\s*({_NAME})\s*(?:=|\{{)\s*({_NUMBER})\s*(?=[;,}}])")
_JAVA_FIELD = re.compile(
    rf"((?:\b(?:public|private|protected|static|final|transient|volatile)\s+)*)"
    rf"\b(int|long|short|byte|float|double)\s+({_NAME})\s*=\s*({_NUMBER})\s*(?=[;,])"
)


def _declared(text: str, file: str, name: str, span: Tuple[int, int], real_type: bool) -> Constant:
    value, integer, suffix = _literal(text, span[0], span[1], real_type)
    return Constant(name, value, integer, file, _line_of(text, span[0]), span[0], span[1], suffix)


def _cpp_constants(text: str, file: str) -> List[Constant]:
    code = _blanked(text)
    found = []
    for match in _DEFINE.finditer(code):
        found.append(_declared(text, file, match.group(1), match.span(2), False))
    for match in _CPP_CONST.finditer(code):
        real = bool(re.search(r"\b(?:double|float)\b", match.group(1)))
        found.append(_declared(text, file, match.group(2), match.span(3), real))
        position = match.end(3)
        more = _MORE.match(code, position)
        while more:
            found.append(_declared(text, file, more.group(1), more.span(2), real))
            more = _MORE.match(code, more.end(2))
    return sorted(found, key=lambda constant: constant.start)


def _in_class_body(code: str, offset: int) -> bool:
    """Whether the innermost brace open at ``offset`` of Java ``code`` is a class, interface or enum body:
    a declaration there is a field, not a method's local."""
    stack, last = [], 0
    for index in range(offset):
        char = code[index]
        if char == "{":
            stack.append(bool(re.search(r"\b(?:class|interface|enum|record)\b", code[last:index])))
        elif char == "}" and stack:
            stack.pop()
        if char in ";{}":
            last = index + 1
    return bool(stack) and stack[-1]


def _java_constants(text: str, file: str) -> List[Constant]:
    code = _blanked(text)
    found = []
    for match in _JAVA_FIELD.finditer(code):
        modifiers = match.group(1).split()
        if ("static" in modifiers and "final" in modifiers) or _in_class_body(code, match.start()):
            found.append(_declared(text, file, match.group(3), match.span(4), match.group(2) in ("float", "double")))
    return found


# --- The folder ---------------------------------------------------------------------------------

_READERS = ((PYTHON, _python_constants), (CPP, _cpp_constants), (JAVA, _java_constants))


def _reader(name: str):
    for extensions, reader in _READERS:
        if name.endswith(extensions):
            return reader
    return None


def source_files(folder: str) -> List[str]:
    """The names of the agent sources at the top of ``folder`` that constants are looked for in."""
    return sorted(
        name
        for name in os.listdir(folder)
        if _reader(name) and not name.startswith(".") and os.path.isfile(os.path.join(folder, name))
    )


def read_source(folder: str, name: str) -> str:
    """The text of the source ``name`` in ``folder`` (UTF-8, undecodable bytes kept as they are)."""
    path = os.path.join(folder, name)
    if os.path.getsize(path) > SOURCE_BYTES:
        raise InvalidInput(f"{name} is larger than {SOURCE_BYTES // 2**20} MiB: not an agent's source")
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", "surrogateescape")


def find_constants(folder: str) -> List[Constant]:
    """Every constant of the agent in ``folder``, file by file and in the order written; a name found more
    than once is told apart by its place (``name@FILE:LINE``)."""
    found = []
    for name in source_files(folder):
        found.extend(_reader(name)(read_source(folder, name), name))
    counts: Dict[str, int] = {}
    for constant in found:
        counts[constant.name] = counts.get(constant.name, 0) + 1
    return [c._replace(name=f"{c.name}@{c.where}") if counts[c.name] > 1 else c for c in found]


def select(constants: Sequence[Constant], patterns: Sequence[str]) -> List[Constant]:
    """The ``constants`` whose names match any of ``patterns`` (a name, or a shell pattern such as
    ``evaluate.*``), in the order found; InvalidInput naming a pattern that matches none."""
    names = [constant.name for constant in constants]
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(name, pattern) for name in names):
            raise InvalidInput(
                "{!r} names no constant of the agent (it has {})".format(pattern, ", ".join(names) or "none")
            )
    return [c for c in constants if any(fnmatch.fnmatchcase(c.name, pattern) for pattern in patterns)]
