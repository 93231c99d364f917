"""The numbers a course agent keeps in its own code, found and rewritten without any other edit.

A student's agent holds its evaluation's numbers where its author wrote them: module constants
(``KOMI = 2.5``), a local of the evaluation (``atari_weight = 2``), an attribute (``self.w = 3.5``),
an argument's default (``depth=4``), a dict or list literal of weights wherever it stands (assigned,
returned, passed to a call), a factor of the evaluation's products (``10 * own``), a C++ ``const``,
``constexpr``, ``static``, global, member or ``#define``, a Java ``static final`` or a field's
initialiser, and in both an evaluation's locals and the factors of its products. ``find_constants``
lists each as a ``Constant``: its name, its value and where it lives; ``engine.course.rewrite``
rewrites exactly those literals, and nothing else, with new values.

Names are what a reader would say: Python's are qualified by their scope (``evaluate.atari_weight``,
``Player.weight_c``, ``WEIGHTS.edge`` for a dict's entry, ``TABLE[1][3]`` for a list's,
``weights.return.edge`` for a dict ``weights`` returns, ``main.Agent.weights.edge`` for one passed to
``Agent`` in ``main``, ``search.depth`` for a default), C++'s and Java's are the declared name. A name
found twice is told apart by where it lives (``depth@my_player.cpp:40``). An integer literal stays an
integer (its value rounded); a real one keeps its suffix (``0.5f``) and a decimal point.

The folder is a student's, so untrusted. A name is made of ASCII letters, digits, ``_$`` and the
marks that build it alone (a dict key that is no identifier is quoted, ``WEIGHTS['a b']``; any other
character in a name or a file's name is written ``\\xNN``, ``\\uNNNN``): no name is markup or a control
character wherever it is shown. Sources are read as the sandbox copies a folder: regular files alone,
never through a link or from a FIFO or a device, at most ``SOURCE_BYTES`` each; Python's in the
encoding their PEP 263 coding line or BOM names, as Python reads them. A source that cannot be read
(a link, too large, code that Python itself cannot parse) is skipped with a warning naming it and
why; the others are still read.

Python is read with its own parser (``ast``), walking its statements without recursion; C++ and
Java by patterns over the text with comments and string literals blanked out, so a number in a
comment or a string is never a constant. Every pattern and scan takes time linear in a file's size:
no two quantifiers of a pattern can share the characters they match, and what a declaration needs
to know of the text before it (a ``const`` in its statement, the brace it is in, its line) comes
from one pass over the file.
"""

import ast
import bisect
import fnmatch
import io
import itertools
import logging
import os
import re
import string
import tokenize
from typing import Callable, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Set, Tuple, Type, cast

from engine.course.constant_roles import Role, default_range, name_words, role_of
from engine.errors import InvalidInput
from engine.sandbox.files import (
    FOLDER_DEPTH,
    FOLDER_ENTRIES,
    NOT_COPIED,
    NOT_COPIED_SUFFIXES,
    UntrustedFileError,
    excerpt,
    read_untrusted,
)
from engine.sandbox.limits import DEFAULT_LIMITS, MIB

log = logging.getLogger(__name__)

# The files of an agent's folder read for constants, by language: its own sources, in subfolders too.
PYTHON, CPP, JAVA = (".py",), (".cpp", ".cc", ".h", ".hpp"), (".java",)
SOURCE_BYTES = 2**20  # a source file larger than this is not an agent's (and is not read)
# A name's characters: an identifier's; in a quoted dict key and a file's name also a space and
# ``-+,/.``; besides, only the marks a name is built with (a scope's dot, a quoted key's brackets and
# quotes, ``@FILE:LINE``, an escape's backslash). Any other character is written as its escape (``\x3c``).
_IDENTIFIER = frozenset(string.ascii_letters + string.digits + "_$")
_KEY = _IDENTIFIER | frozenset(" -+,/.")


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
    def role(self) -> Role:
        """What it is for, as its name and value say: an evaluation weight, a setting or a counter."""
        return role_of(self.name, self.value, self.integer)

    @property
    def where(self) -> str:
        """``FILE:LINE``, as a compiler names a place (the file's name shown as ``shown_file`` writes it)."""
        return f"{shown_file(self.file)}:{self.line}"


def _escaped(text: str, kept: FrozenSet[str]) -> str:
    """``text`` with each character not in ``kept`` written as Python writes it in a string's escape
    (``\\x3c``, ``\\u202e``, ``\\U0001f600``): a backslash never kept, so no two texts are written alike."""
    out = []
    for char in text:
        code = ord(char)
        if char in kept:
            out.append(char)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out)


def _identifier(name: str) -> str:
    """A declared name as a constant's name says it: ASCII identifier characters, any other escaped."""
    return _escaped(name, _IDENTIFIER)


def _entry(name: str, key: str) -> str:
    """The name of the entry ``key`` of the dict ``name``: ``name.key`` for an ASCII identifier, else the
    key quoted and escaped (``name['a b']``, ``name['\\x3cimg\\x3e']``)."""
    if key.isascii() and key.isidentifier():
        return f"{name}.{key}"
    return f"{name}['{_escaped(key, _KEY)}']"


def shown_file(name: str) -> str:
    """A source's file name as a constant's place and a message show it: a quoted key's characters, any
    other escaped (a name can hold a newline, an escape sequence, markup)."""
    return _escaped(name, _KEY)


def default_bounds(constant: Constant) -> Tuple[float, float]:
    """The range a constant is tuned in unless the experiment says: its value plus or minus its size, at
    least 1 (``8`` -> [0, 16], ``-0.5`` -> [-1.5, 0.5], ``0`` -> [-1, 1]), within the course's limits for
    a depth or a time limit (``engine.course.constant_roles.default_range``)."""
    return default_range(constant.name, constant.value)


# --- Python -------------------------------------------------------------------------------------

_LINE_BREAK = re.compile(r"\r\n?|\n")  # where Python's tokenizer ends a line (never at \f or U+2028)
# The nodes that hold statements: a statement, an ``except`` clause, a ``case`` (Python 3.10 on).
_BLOCKS: Tuple[Type[ast.AST], ...] = (ast.stmt, ast.excepthandler) + tuple(
    getattr(ast, name) for name in ("match_case",) if hasattr(ast, name)
)


def _number(node: ast.AST) -> Optional[Tuple[float, bool]]:
    """(value, is an integer) where ``node`` is a number literal, signed or not (never a bool)."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return sign * node.value, isinstance(node.value, int)
    return None


class _Places:
    """The character offset of each place ``ast`` gives in a Python text: (line, UTF-8 byte column)."""

    def __init__(self, code: str):
        self.code = code
        self.starts = [0] + [match.end() for match in _LINE_BREAK.finditer(code)]  # the offset each line starts at
        self.widths: Dict[int, Optional[List[int]]] = {}  # a non-ASCII line's bytes before each of its characters

    def offset(self, line: int, column: int) -> int:
        start = self.starts[line - 1]
        if line not in self.widths:  # each line measured once: a long line of many constants stays linear
            end = self.starts[line] if line < len(self.starts) else len(self.code)
            text = self.code[start:end]
            sizes = (len(char.encode("utf-8")) for char in text)
            self.widths[line] = None if text.isascii() else list(itertools.accumulate(sizes, initial=0))
        widths = self.widths[line]
        return start + (column if widths is None else bisect.bisect_left(widths, column))


class _Scope(NamedTuple):
    """Where a statement is: the names of the classes and functions around it (outermost first), the classes
    among them, whether it is directly in a class body, and its method's first argument (by which the
    method sets attributes; None outside a method)."""

    names: Tuple[str, ...] = ()
    classes: Tuple[str, ...] = ()
    in_class: bool = False
    self_name: Optional[str] = None

    def inside(self, node: ast.AST) -> "_Scope":
        """The scope of the statements of ``node`` (a class or a function adds itself; a block does not)."""
        if isinstance(node, ast.ClassDef):
            return _Scope(self.names + (node.name,), self.classes + (node.name,), True, self.self_name)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args.posonlyargs + node.args.args
            first = arguments[0].arg if self.in_class and arguments else None
            return _Scope(self.names + (node.name,), self.classes, False, first)
        return self


_COLLECTIONS = (ast.Dict, ast.List, ast.Tuple)  # the literals whose numbers are found wherever they stand


# A function whose name holds one of these words is an evaluation: the numbers its products hold are factors.
_EVALUATIONS = frozenset(("eval", "evaluate", "evaluation", "heuristic", "utility"))  # not a game's score


def _factor(node: ast.AST) -> bool:
    """Whether ``node`` is a number that weighs a product, not a sign (``-1 * x``) or a zero."""
    number = _number(node)
    return number is not None and number[0] not in (0, 1, -1)


def _prefix(scope: _Scope) -> str:
    """The qualified name of a scope (``Player.evaluate``; ``""`` for the module)."""
    return ".".join(_identifier(name) for name in scope.names)


class _PythonFinder:
    """The numbers a Python module assigns by name, qualified by the class and function they are in."""

    def __init__(self, code: str, file: str):
        self.file = file
        self.places = _Places(code)
        self.found: List[Constant] = []
        self.factors: Dict[str, int] = {}  # the factors numbered so far in each evaluation function

    def module(self, tree: ast.Module) -> List[Constant]:
        """Each constant of ``tree`` in the order written: its statements walked with a stack, never a
        recursion, and the expressions of each statement (its own, not its blocks') walked once for the
        literals passed to a call."""
        pending: List[Tuple[ast.AST, _Scope]] = [(statement, _Scope()) for statement in reversed(tree.body)]
        while pending:
            node, scope = pending.pop()
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                self._target(scope, node.targets[0], node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._target(scope, node.target, node.value)
            elif isinstance(node, ast.Return) and node.value is not None and scope.names:
                self._assigned(f"{_prefix(scope)}.return", node.value)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._defaults(_prefix(scope.inside(node)), node.args)
            inner = scope.inside(node)
            blocks = []
            for _, value in ast.iter_fields(node):
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, _BLOCKS):
                        blocks.append(item)
                    elif isinstance(item, ast.AST):
                        self._passed(scope, item)
            pending.extend((item, inner) for item in reversed(blocks))
        return sorted(self.found, key=lambda constant: constant.start)

    def _defaults(self, prefix: str, arguments: ast.arguments) -> None:
        """The default of each argument of a function (``search.depth`` from ``def search(depth=4)``)."""
        positional = arguments.posonlyargs + arguments.args
        pairs: List[Tuple[ast.arg, Optional[ast.expr]]] = list(
            zip(positional[len(positional) - len(arguments.defaults) :], arguments.defaults)
        )
        pairs += list(zip(arguments.kwonlyargs, arguments.kw_defaults))  # None: a keyword without a default
        for argument, default in pairs:
            if default is not None:
                self._assigned(f"{prefix}.{_identifier(argument.arg)}", default)

    def _passed(self, scope: _Scope, expression: ast.AST) -> None:
        """Each number of a dict, list or tuple literal passed to a call within ``expression`` (``ast.walk``:
        a queue, not a recursion), named by the call and its argument (``main.Agent.weights.liberty``,
        ``main.Agent.arg0[2]``; a bare number passed, ``range(5)``, is none); and in an evaluation (a
        function named ``evaluate``, ``heuristic``, ``utility``...), each number a product holds, numbered
        in the order written (``evaluate.factor2`` from ``10 * (own - opp) + 0.3 * edges``)."""
        prefix = _prefix(scope)
        evaluation = bool(scope.names) and not scope.in_class and bool(name_words(scope.names[-1]) & _EVALUATIONS)
        factors: List[ast.expr] = []
        for node in ast.walk(expression):
            if evaluation and isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
                factors += [side for side in (node.left, node.right) if _factor(side)]
            if not isinstance(node, ast.Call):
                continue
            function = node.func
            called = function.id if isinstance(function, ast.Name) else getattr(function, "attr", "call")
            called = f"{prefix}.{_identifier(called)}" if prefix else _identifier(called)
            passed = [(f"arg{index}", value) for index, value in enumerate(node.args)]
            passed += [(keyword.arg, keyword.value) for keyword in node.keywords if keyword.arg is not None]
            for argument, value in passed:
                if isinstance(value, _COLLECTIONS):
                    self._assigned(f"{called}.{_identifier(argument)}", value)
        for factor in sorted(factors, key=lambda node: (node.lineno, node.col_offset)):  # ast.walk: breadth first
            self.factors[prefix] = self.factors.get(prefix, 0) + 1
            self._add(f"{prefix}.factor{self.factors[prefix]}", factor)

    def _add(self, name: str, node: ast.AST) -> None:
        number = _number(node)
        if number is None or not isinstance(node, ast.expr):
            return
        start = self.places.offset(node.lineno, node.col_offset)
        end = self.places.offset(cast(int, node.end_lineno), cast(int, node.end_col_offset))  # Python 3.8 on
        self.found.append(Constant(name, float(number[0]), number[1], self.file, node.lineno, start, end))

    def _assigned(self, name: str, value: ast.AST) -> None:
        """A number, each number of a dict literal with string keys (``NAME.key``) or of a list or tuple
        literal (``NAME[2]``, ``NAME[1][3]`` for a table), assigned to ``name`` (a literal nests as deep as
        the parser lets brackets nest: a few hundred)."""
        if isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    self._assigned(_entry(name, key.value), item)
        elif isinstance(value, (ast.List, ast.Tuple)):
            for index, item in enumerate(value.elts):
                self._assigned(f"{name}[{index}]", item)
        else:
            self._add(name, value)

    def _target(self, scope: _Scope, target: ast.AST, value: ast.AST) -> None:
        prefix = _prefix(scope)
        if isinstance(target, ast.Name):
            self._assigned(f"{prefix}.{_identifier(target.id)}" if prefix else _identifier(target.id), value)
        elif (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and scope.self_name is not None
            and target.value.id == scope.self_name
            and scope.classes
        ):
            self._assigned(f"{_identifier(scope.classes[-1])}.{_identifier(target.attr)}", value)
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            for one, other in zip(target.elts, value.elts):
                self._target(scope, one, other)


def _python_constants(text: str, file: str) -> List[Constant]:
    """The constants of the Python source ``text`` (its bytes decoded as UTF-8, as read_source reads them),
    read as Python reads the file: in the encoding its PEP 263 coding line or BOM says. InvalidInput naming
    the file and why where Python itself cannot read it (its syntax, its encoding, code nested past
    what its parser holds)."""
    data = text.encode("utf-8", "surrogateescape")
    shown, encoding = shown_file(file), "utf-8"
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
        code = data.decode(encoding)
        tree = ast.parse(code, filename=file)
    except SyntaxError as error:  # an unknown or contradicted coding line, too
        where = f"line {error.lineno}: " if error.lineno else ""
        raise InvalidInput(f"{shown} is not Python that Python reads ({where}{excerpt(error.msg, 200)})")
    except UnicodeDecodeError as error:
        line, byte = data.count(b"\n", 0, error.start) + 1, data[error.start]
        raise InvalidInput(f"{shown} is not {encoding}, which Python reads it as (line {line}: byte 0x{byte:02x})")
    except (RecursionError, MemoryError):  # the parser's own limits: code nested or chained past them
        raise InvalidInput(f"{shown} nests or chains its code deeper than Python's parser reaches")
    except ValueError as error:  # a null byte, where Python says so with a ValueError (3.11 and before)
        raise InvalidInput(f"{shown} is not Python that Python reads ({excerpt(str(error), 200)})")
    found = _PythonFinder(code, file).module(tree)
    return found if code == text else _placed_in_text(found, code, encoding, text, shown)


def _placed_in_text(found: List[Constant], code: str, encoding: str, text: str, shown: str) -> List[Constant]:
    """``found``, with their places in ``code`` (the file decoded as its coding says), placed in ``text``
    (its bytes decoded as UTF-8, surrogates for the bytes that are not), which the rewrite changes and
    writes back byte for byte. A literal's characters are ASCII, so each piece of ``code`` between two
    places encodes to the bytes between them, and those bytes decode to the same characters alone as
    within the whole. InvalidInput where a literal is not found where it was placed (a coding that does
    not keep ASCII as ASCII)."""
    codec = "utf-8" if encoding == "utf-8-sig" else encoding  # the BOM: text's first character
    position, done, placed = (1 if encoding == "utf-8-sig" else 0), 0, {}
    for offset in sorted({place for constant in found for place in (constant.start, constant.end)}):
        position += len(code[done:offset].encode(codec).decode("utf-8", "surrogateescape"))
        placed[offset], done = position, offset
    moved = [c._replace(start=placed[c.start], end=placed[c.end]) for c in found]
    for before, after in zip(found, moved):
        if text[after.start : after.end] != code[before.start : before.end]:
            raise InvalidInput(f"{shown}: its coding, {encoding}, does not keep a number's characters as ASCII")
    return moved


# --- C++ and Java: patterns over the text with comments and strings blanked out -------------------

# No two quantifiers side by side here match the same characters (a number's spaces follow its sign
# alone): each attempt of a pattern is linear in what it reads, never quadratic or worse.
_NUMBER = r"(?:[-+]\s*)?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?[fFdDlLuU]*(?![\w.'])"
_NAME = r"[A-Za-z_$][\w$]*"
_OPENING = re.compile(r"//|/\*|[\"']")  # a comment's or a quoted literal's start
_QUOTED = {quote: re.compile(rf"[^{quote}\\\n]*(?:\\[\s\S][^{quote}\\\n]*)*") for quote in "\"'"}  # its body
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blanked(text: str) -> str:
    """``text`` with each comment and string or character literal replaced by spaces (lines kept), so that
    patterns see code alone at the same offsets."""
    pieces, index, size = [], 0, len(text)
    while True:
        opening = _OPENING.search(text, index)
        if opening is None:
            break
        start, token = opening.start(), opening.group()
        if token == "//":
            end = text.find("\n", start)
            end = size if end < 0 else end
        elif token == "/*":
            end = text.find("*/", start + 2)
            end = size if end < 0 else end + 2
        else:  # to its closing quote, or the end of its line (a backslash escapes the next character)
            body = _QUOTED[token].match(text, start + 1)
            assert body is not None  # the pattern matches an empty body too
            end = min(body.end() + 1, size)
        pieces += [text[index:start], _NOT_NEWLINE.sub(" ", text[start:end])]
        index = end
    pieces.append(text[index:])
    return "".join(pieces)


def _literal(text: str, start: int, end: int, real_type: bool) -> Tuple[float, bool, str]:
    """(value, integer, suffix) of the C-like number ``text[start:end]``, a real one where its declared
    type is (``real_type``) or its literal says so."""
    stripped = re.sub(r"\s", "", text[start:end])  # a sign may stand apart from its digits, even a line
    body = stripped.rstrip("fFdDlLuU")
    suffix = stripped[len(body) :]
    real = real_type or any(mark in body for mark in ".eE") or suffix in ("f", "F", "d", "D")
    if real and not any(mark in body for mark in ".eE") and suffix.lower().strip("l") in ("", "u"):
        suffix = ""  # an integer literal in a real declaration: written as a real, without 'L' or 'u'
    return float(body), not real, suffix


class _Lines:
    """The line of each offset of a text: its line breaks found once, each line then a binary search."""

    def __init__(self, text: str):
        self.breaks = [match.start() for match in re.finditer("\n", text)]

    def of(self, offset: int) -> int:
        return bisect.bisect_left(self.breaks, offset) + 1


_DEFINE = re.compile(rf"^[ \t]*#[ \t]*define[ \t]+({_NAME})[ \t][( \t]*({_NUMBER})[) \t]*$", re.M)
# A declarator with its number (``NAME = 2``, ``NAME{2}``), and one more after a comma (``, OTHER = 3``).
_DECLARATOR = re.compile(rf"\b({_NAME})\s*(?:=|\{{)\s*({_NUMBER})\s*(?=[;,}}])")
_MORE = re.compile(rf"\s*,\s*({_NAME})\s*(?:=|\{{)\s*({_NUMBER})\s*(?=[;,}}])")
_CONST = re.compile(r"\b(?:const|constexpr)\b")
_STATIC = re.compile(r"\bstatic\b")
# A brace that opens a scope of declarations (a global's, a member's), not a function's body or an enum's.
_CPP_SCOPE_KEYWORD = re.compile(r"\b(?:namespace|class|struct|union|extern)\b")
_REAL_TYPE = re.compile(r"\b(?:double|float)\b")
_STATEMENT_MARK = re.compile(r"[;{}()=]")  # a C++ const's type and name lie between two of these
_JAVA_DECLARATION = re.compile(rf"\b(int|long|short|byte|float|double)\s+({_NAME})\s*=\s*({_NUMBER})\s*(?=[;,])")
_JAVA_MODIFIERS = ("public", "private", "protected", "static", "final", "transient", "volatile")
_JAVA_BODY_KEYWORD = re.compile(r"\b(?:class|interface|enum|record)\b")


# A number without a sign, not inside a name or another number (``x2``, ``0x10``, ``1.5.2``).
_UNSIGNED = re.compile(r"(?<![\w.$])(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?[fFdDlLuU]*(?![\w.'])")
_SPACE = " \t\r\n\f\v"


def _factors(text: str, code: str, file: str, lines: _Lines, bodies: "_Bodies", taken: Set[int]) -> List[Constant]:
    """Each number a product holds in a C++ or Java evaluation (``10 * (own - opp)``, ``edges * 0.3``; a
    function named ``evaluate``, ``heuristic``...), numbered by function in the order written
    (``evaluate.factor2``), as Python's are: not a 0 or a 1, nor a number found already (``taken``: where
    the declarators' numbers start). A sign before it stays outside it (``-2 * x``: the factor 2)."""
    found: List[Constant] = []
    numbered: Dict[str, int] = {}
    for match in _UNSIGNED.finditer(code):
        start, end = match.span()
        before, after = start, end
        while before > 0 and code[before - 1] in _SPACE:  # each run of spaces walked for one number at most
            before -= 1
        while after < len(code) and code[after] in _SPACE:
            after += 1
        times_before = code[before - 1 : before] == "*" and code[before - 2 : before - 1] not in ("*", "/")
        times_after = code[after : after + 1] == "*" and code[after + 1 : after + 2] not in ("=", "/")
        if not (times_before or times_after) or start in taken:
            continue
        evaluation = bodies.evaluation_at(start)
        value, integer, suffix = _literal(text, start, end, False)
        if evaluation is None or value in (0, 1):
            continue
        name = _identifier(evaluation)
        numbered[name] = numbered.get(name, 0) + 1
        factor = Constant(f"{name}.factor{numbered[name]}", value, integer, file, lines.of(start), start, end, suffix)
        found.append(factor)
    return found


# A table's head: its name, any dimensions, and its initialiser's opening brace (``POS[5][5] = {``, ``w{``,
# Java's ``W = new double[]{``); what the braces hold decides whether it is a table of numbers.
_TABLE = re.compile(rf"\b({_NAME})\s*(?:\[[^\[\]{{}};]*\]\s*)*(?:=\s*(?:new\s+{_NAME}\s*(?:\[\s*\]\s*)+)?)?\{{")
# A braced list or array passed to a call (``set_weights({0.8, 0.3})``, Java's ``f(1, new double[]{...})``):
# the ``(`` or ``,`` before it, then its opening brace.
_PASSED = re.compile(rf"[(,]\s*(?:new\s+{_NAME}\s*(?:\[\s*\]\s*)+)?\{{$")
_BRACKETS = re.compile(r"[()\[\]{},]")
_CALLEE = re.compile(rf"({_NAME})\s*$")
_NOT_CALLS = frozenset(("if", "while", "for", "switch", "return", "catch", "sizeof"))
_RETURNED_NEW = re.compile(r"\breturn\s+new\s*$")  # Java's ``return new double[]{``: the head before ``double``
_TABLE_PART = re.compile(rf"\{{|\}}|,|{_NUMBER}|\s+")


def _table(text: str, code: str, file: str, name: str, opening: int, real: bool, lines: _Lines) -> List[Constant]:
    """The numbers of the brace-initialised table ``name`` whose ``{`` is at ``opening`` (``{{1, 2}, {3, 4}}``:
    ``name[0][0]`` to ``name[1][1]``, in the order written); none where the braces hold anything but numbers."""
    found: List[Constant] = []
    index: List[int] = []
    at = opening
    while True:
        part = _TABLE_PART.match(code, at)
        if part is None or part.end() == at:
            return []
        token, at = part.group(), part.end()
        if token == "{":
            index.append(0)
        elif token == "}":
            index.pop()
            if not index:
                return found
        elif token == ",":
            index[-1] += 1
        elif not token.isspace():
            where = "".join(f"[{k}]" for k in index)
            found.append(_declared(text, file, "", part.span(), real, lines)._replace(name=name + where))


def _tables(
    text: str,
    code: str,
    file: str,
    lines: _Lines,
    bodies: "_Bodies",
    kept: Callable[[int, int], Optional[str]],
    taken: Set[int],
) -> List[Constant]:
    """The brace-initialised tables of numbers of a C++ or Java file whose declarations ``kept`` keeps: it is
    told where the statement begins and where the name stands, and gives the name's prefix (``""`` for a
    global, a member or a constant; an evaluation's name for its local) or None (another function's local);
    and those a function returns (``return {0.8, 0.3};``, Java's ``return new double[]{...};``), named by
    the function as Python's are (``weights.return[0]``), ``bodies`` telling which function it is."""
    marks = [match.start() for match in _STATEMENT_MARK.finditer(code)]
    found: List[Constant] = []
    for match in _TABLE.finditer(code):
        name_at = match.start(1)
        mark = bisect.bisect_left(marks, name_at) - 1
        begins = marks[mark] + 1 if mark >= 0 else 0
        head = code[begins:name_at]
        if match.group(1) == "return" or _RETURNED_NEW.search(head):
            function = bodies.function_at(name_at)
            if function is None:
                continue
            real = match.group(1) != "return" and bool(_REAL_TYPE.match(match.group(1)))
            name = f"{_identifier(function)}.return"
        elif not head.strip():  # no type before it: a use, a class's or a namespace's head
            continue
        else:
            prefix = kept(begins, name_at)
            if prefix is None:
                continue
            real = bool(_REAL_TYPE.search(code, begins, name_at))
            name = f"{_identifier(prefix)}.{_identifier(match.group(1))}" if prefix else _identifier(match.group(1))
        found += [
            one
            for one in _table(text, code, file, name, match.end() - 1, real, lines)
            if one.start not in taken  # ``w{0.8}``: a declarator's number already
        ]
    return found


def _passed(text: str, code: str, file: str, lines: _Lines, bodies: "_Bodies", taken: Set[int]) -> List[Constant]:
    """The numbers of each braced list or array a C++ or Java function passes to a call, named as Python's
    are: ``main.set_weights.arg1[0]`` (the function, the callee, the argument's place, the element's). One
    pass over the brackets and commas: each open bracket a frame (a call's ``(`` with its callee and its
    commas so far), so that every character is read a bounded number of times."""
    frames: List[Tuple[str, Optional[str]]] = []  # each open bracket, with its callee where it is a call's ``(``
    commas: List[int] = []  # the commas read so far at each open bracket's depth
    found: List[Constant] = []
    for mark in _BRACKETS.finditer(code):
        char, at = mark.group(), mark.start()
        if char == "(":
            callee = _CALLEE.search(code, max(0, at - 200), at)
            frames.append(("(", callee.group(1) if callee and callee.group(1) not in _NOT_CALLS else None))
            commas.append(0)
        elif char in "[{":
            bracket, called = frames[-1] if frames else ("", None)
            if char == "{" and bracket == "(" and called is not None:
                function = bodies.function_at(at) if _PASSED.search(code, max(0, at - 200), at + 1) else None
                if function is not None:
                    real = bool(_REAL_TYPE.search(code, max(0, at - 200), at))
                    name = f"{_identifier(function)}.{_identifier(called)}.arg{commas[-1]}"
                    found += [one for one in _table(text, code, file, name, at, real, lines) if one.start not in taken]
            frames.append((char, None))
            commas.append(0)
        elif char == ",":
            if commas:
                commas[-1] += 1
        elif frames:
            frames.pop()
            commas.pop()
    return found


def _declared(text: str, file: str, name: str, span: Tuple[int, int], real_type: bool, lines: _Lines) -> Constant:
    value, integer, suffix = _literal(text, span[0], span[1], real_type)
    return Constant(_identifier(name), value, integer, file, lines.of(span[0]), span[0], span[1], suffix)


def _cpp_constants(text: str, file: str) -> List[Constant]:
    """``#define NAME number``, each ``const``/``constexpr`` or ``static`` declarator with a number, and each
    declarator of a global or a member (``int depth = 4;`` outside a function, in a namespace, class or
    struct; never in an argument list). A declarator is found first, then its statement looked at (since
    the last of ``;{}()=``): every character is read a bounded number of times, where a pattern from each
    ``const`` on to its declarator would read again all that lies between them."""
    code, lines = _blanked(text), _Lines(text)
    found = [_declared(text, file, m.group(1), m.span(2), False, lines) for m in _DEFINE.finditer(code)]
    marks = [match.start() for match in _STATEMENT_MARK.finditer(code)]
    scopes = _Bodies(code, _CPP_SCOPE_KEYWORD, top_level=True)
    for match in _DECLARATOR.finditer(code):
        name_at = match.start(1)
        mark = bisect.bisect_left(marks, name_at) - 1
        begins = marks[mark] + 1 if mark >= 0 else 0
        declared = _CONST.search(code, begins, name_at) or _STATIC.search(code, begins, name_at)
        evaluation = None
        if declared is None:
            typed = code[begins:name_at].strip() and (mark < 0 or code[marks[mark]] in ";{}")
            evaluation = None if not typed or scopes.class_body_at(name_at) else scopes.evaluation_at(name_at)
            if not typed or (evaluation is None and not scopes.class_body_at(name_at)):
                continue
        real = bool(_REAL_TYPE.search(code, begins, name_at))
        one = _declared(text, file, match.group(1), match.span(2), real, lines)
        found.append(one._replace(name=f"{_identifier(evaluation)}.{one.name}") if evaluation else one)
        more = _MORE.match(code, match.end(2))
        while more:
            one = _declared(text, file, more.group(1), more.span(2), real, lines)
            found.append(one._replace(name=f"{_identifier(evaluation)}.{one.name}") if evaluation else one)
            more = _MORE.match(code, more.end(2))
    tables = _Bodies(code, _CPP_SCOPE_KEYWORD, top_level=True)

    def kept(begins: int, name_at: int) -> Optional[str]:
        if _CONST.search(code, begins, name_at) or _STATIC.search(code, begins, name_at):
            return ""
        if tables.class_body_at(name_at):
            return ""
        return tables.evaluation_at(name_at)

    returns = _Bodies(code, _CPP_SCOPE_KEYWORD, top_level=True)
    found += _tables(text, code, file, lines, returns, kept, {c.start for c in found})
    found += _passed(text, code, file, lines, _Bodies(code, _CPP_SCOPE_KEYWORD, True), {c.start for c in found})
    found += _factors(text, code, file, lines, _Bodies(code, _CPP_SCOPE_KEYWORD, True), {c.start for c in found})
    return sorted(found, key=lambda constant: constant.start)


def _java_modifiers(code: str, at: int) -> List[str]:
    """The modifier words (``static``, ``final``...) written just before ``at``, each after a space: read
    back from there, so each declaration reads only the words that are its own."""
    words: List[str] = []
    while True:
        before = at
        while before > 0 and code[before - 1].isspace():
            before -= 1
        if before == at:
            return words
        word = next((w for w in _JAVA_MODIFIERS if before >= len(w) and code.startswith(w, before - len(w))), None)
        if word is None or (before > len(word) and re.match(r"\w", code[before - len(word) - 1])):
            return words
        words.append(word)
        at = before - len(word)


class _Bodies:
    """Whether the innermost brace open at an offset of ``code`` is a body of declarations (a brace whose head
    holds one of ``keywords``: a Java class, interface or enum, a C++ namespace, class or struct; where no
    brace is open, ``top_level``): a declaration there is a field or a global, not a function's local; and
    else the function it is in. One pass over the code's ``;{}``, asked at offsets in increasing order."""

    def __init__(self, code: str, keywords: "re.Pattern[str]", top_level: bool = False):
        self.code, self.keywords, self.top_level = code, keywords, top_level
        self.marks = re.finditer(r"[;{}]", code)
        self.next = next(self.marks, None)
        self.stack: List[Tuple[bool, str]] = []  # each open brace: a body of declarations, or its function's name
        self.last = 0  # where the current statement or block head began

    def class_body_at(self, offset: int) -> bool:
        while self.next is not None and self.next.start() < offset:
            index, char = self.next.start(), self.next.group()
            if char == "{":
                body = bool(self.keywords.search(self.code, self.last, index))
                if body or not self.stack or self.stack[-1][0]:  # a function's own braces: its name in the head
                    called = _CALLED.search(self.code, self.last, index)
                    self.stack.append((body, "" if body or called is None else called.group(1)))
                else:  # a block within a function: the function's
                    self.stack.append((False, self.stack[-1][1]))
            elif char == "}" and self.stack:
                self.stack.pop()
            self.last = index + 1
            self.next = next(self.marks, None)
        return self.stack[-1][0] if self.stack else self.top_level

    def function_at(self, offset: int) -> Optional[str]:
        """The name of the function ``offset`` lies in, if any."""
        if self.class_body_at(offset) or not self.stack:
            return None
        return self.stack[-1][1] or None

    def evaluation_at(self, offset: int) -> Optional[str]:
        """The name of the evaluation function (``evaluate``, ``heuristic``...) ``offset`` lies in, if any."""
        function = self.function_at(offset)
        return function if function is not None and name_words(function) & _EVALUATIONS else None


_CALLED = re.compile(rf"({_NAME})\s*\(")  # a function's name in the head of its body


def _java_constants(text: str, file: str) -> List[Constant]:
    code, lines = _blanked(text), _Lines(text)
    bodies = _Bodies(code, _JAVA_BODY_KEYWORD)
    found = []
    for match in _JAVA_DECLARATION.finditer(code):
        modifiers = _java_modifiers(code, match.start())
        real = match.group(1) in ("float", "double")
        if ("static" in modifiers and "final" in modifiers) or bodies.class_body_at(match.start()):
            found.append(_declared(text, file, match.group(2), match.span(3), real, lines))
            continue
        evaluation = bodies.evaluation_at(match.start())
        before = match.start()
        while before > 0 and code[before - 1].isspace():  # each declaration's own spaces: linear in all
            before -= 1
        if evaluation is not None and code[before - 1 : before] != "(":  # a local, not a loop's index
            local = _declared(text, file, match.group(2), match.span(3), real, lines)
            found.append(local._replace(name=f"{_identifier(evaluation)}.{local.name}"))
    tables = _Bodies(code, _JAVA_BODY_KEYWORD)

    def kept(begins: int, name_at: int) -> Optional[str]:
        words = set(re.findall(r"\w+", code[begins:name_at]))
        if {"static", "final"} <= words or tables.class_body_at(name_at):
            return ""
        return tables.evaluation_at(name_at)

    found += _tables(text, code, file, lines, _Bodies(code, _JAVA_BODY_KEYWORD), kept, {c.start for c in found})
    found += _passed(text, code, file, lines, _Bodies(code, _JAVA_BODY_KEYWORD), {c.start for c in found})
    found += _factors(text, code, file, lines, _Bodies(code, _JAVA_BODY_KEYWORD), {c.start for c in found})
    return sorted(found, key=lambda constant: constant.start)


# --- The folder ---------------------------------------------------------------------------------

_READERS = ((PYTHON, _python_constants), (CPP, _cpp_constants), (JAVA, _java_constants))
ALL_SOURCES_BYTES = DEFAULT_LIMITS.folder_mb * MIB  # all of a folder's sources read: as much as its copy holds


def _reader(name: str) -> Optional[Callable[[str, str], List[Constant]]]:
    for extensions, reader in _READERS:
        if name.endswith(extensions):
            return reader
    return None


def source_files(folder: str) -> List[str]:
    """The names of the agent sources in ``folder`` and its subfolders that constants are looked for in
    (``go_engine/engine.py``, a ``/`` between folders), as the course copies a folder: a folder never
    entered through a link, nor one a copy leaves out (``.git``, ``__pycache__``) or a hidden one; each
    source whatever it is (``read_source`` reads regular files alone). Walked with a stack, never a
    recursion; InvalidInput past the ``FOLDER_ENTRIES`` entries or ``FOLDER_DEPTH`` levels of a copy."""
    names, count = [], 0
    pending: List[Tuple[str, int]] = [("", 0)]
    while pending:
        inner, depth = pending.pop()
        if depth > FOLDER_DEPTH:
            raise InvalidInput(f"{excerpt(folder, 200)} is more than the {FOLDER_DEPTH} folders deep a copy holds")
        with os.scandir(os.path.join(folder, inner) if inner else folder) as entries:
            for entry in entries:
                count += 1
                if count > FOLDER_ENTRIES:
                    raise InvalidInput(
                        f"{excerpt(folder, 200)} holds more than the {FOLDER_ENTRIES:,} entries of an agent's folder"
                    )
                if entry.name.startswith(".") or entry.name in NOT_COPIED or entry.name.endswith(NOT_COPIED_SUFFIXES):
                    continue
                name = f"{inner}/{entry.name}" if inner else entry.name
                if entry.is_dir(follow_symlinks=False):
                    pending.append((name, depth + 1))
                elif _reader(entry.name):
                    names.append(name)
    return sorted(names)


def read_source(folder: str, name: str) -> str:
    """The text of the source ``name`` in ``folder`` (UTF-8, undecodable bytes kept as they are), read as the
    sandbox copies a file: a regular file alone, never through a link and never waiting on a FIFO, at most
    ``SOURCE_BYTES``; InvalidInput naming it and why not."""
    shown = shown_file(name)
    try:
        data, more = read_untrusted(os.path.join(folder, name), SOURCE_BYTES)
    except UntrustedFileError as error:
        raise InvalidInput(f"{shown} is {error.kind}: sources are read from regular files alone, as a folder is copied")
    except OSError as error:
        raise InvalidInput(f"{shown} cannot be read: {error.strerror or error}")
    if more:
        raise InvalidInput(f"{shown} is larger than {SOURCE_BYTES // MIB} MiB: not an agent's source")
    return data.decode("utf-8", "surrogateescape")


def find_constants(folder: str) -> List[Constant]:
    """Every constant of the agent in ``folder``, file by file and in the order written; a name found more
    than once is told apart by its place (``name@FILE:LINE``). A source that cannot be read is skipped,
    with a warning that names it and why (``log``, once a process); InvalidInput where the folder's
    sources together pass ``ALL_SOURCES_BYTES``."""
    found: List[Constant] = []
    read = 0
    for name in source_files(folder):
        try:
            text = read_source(folder, name)
            read += len(text.encode("utf-8", "surrogateescape"))
            reader = _reader(name)
            if reader is not None and read <= ALL_SOURCES_BYTES:  # source_files lists only what a reader reads
                found.extend(reader(text, name))
        except InvalidInput as error:  # this source alone: the others are still read
            _warn_once(f"warning: {error}; no constant is looked for in it")
        if read > ALL_SOURCES_BYTES:
            raise InvalidInput(
                f"{excerpt(folder, 200)}: its sources pass {ALL_SOURCES_BYTES // MIB} MiB, all an agent's folder holds"
            )
    counts: Dict[str, int] = {}
    for constant in found:
        counts[constant.name] = counts.get(constant.name, 0) + 1
    return [c._replace(name=f"{c.name}@{c.where}") if counts[c.name] > 1 else c for c in found]


_WARNED: Set[str] = set()  # a run reads its agent's folder again and again: each warning is said once


def _warn_once(line: str) -> None:
    if line not in _WARNED:
        _WARNED.add(line)
        log.warning(line)


def select(constants: Sequence[Constant], patterns: Sequence[str]) -> List[Constant]:
    """The ``constants`` that ``patterns`` choose, in the order found: a name chooses its constant, whatever
    its role; a shell pattern (``evaluate.*``) the evaluation weights it matches alone, so that a depth, a
    time limit, a rule or a counter is tuned only where named one by one. A name and its twins
    (``W@my_player3.py:1``, ``W@my_player3.py:8``) are matched alike, by the name or by each twin's own.
    InvalidInput naming a pattern that chooses none (and the settings and counters it passed over, if
    any), or twins of which the patterns take some and not the others (unless each taken is named by its
    own name). A name is its own pattern, brackets and all (``WEIGHTS['a b']``)."""

    def named(constant: Constant, pattern: str) -> bool:
        return pattern in (constant.name, _twinless(constant.name))

    def matches(constant: Constant, pattern: str) -> bool:
        return named(constant, pattern) or any(
            fnmatch.fnmatchcase(name, pattern) for name in (constant.name, _twinless(constant.name))
        )

    def chosen(constant: Constant, pattern: str) -> bool:
        return named(constant, pattern) or (matches(constant, pattern) and constant.role is Role.WEIGHT)

    names = [constant.name for constant in constants]
    for pattern in patterns:
        if any(chosen(constant, pattern) for constant in constants):
            continue
        passed = [f"{c.name} ({c.role.value})" for c in constants if matches(c, pattern)]
        if passed:
            raise InvalidInput(
                "{!r} matches no evaluation weight, only {}: a pattern chooses weights alone; name a setting or "
                "a counter one by one to tune it".format(pattern, ", ".join(passed))
            )
        raise InvalidInput(
            "{!r} names no constant of the agent (it has {})".format(pattern, ", ".join(names) or "none")
        )
    taken = [c for c in constants if any(chosen(c, pattern) for pattern in patterns)]
    taken_names = {c.name for c in taken}  # each name is one constant's: its twins' places tell them apart
    twins: Dict[str, List[str]] = {}
    for constant in constants:
        twins.setdefault(_twinless(constant.name), []).append(constant.name)
    for name, group in twins.items():
        some = [one for one in group if one in taken_names]
        left = [one for one in group if one not in taken_names]
        if some and left and not all(one in patterns for one in some):
            raise InvalidInput(
                "the constants chosen take {} and not {}, twins of the one name {}: choose them all, or name each "
                "one by its own name".format(", ".join(some), ", ".join(left), name)
            )
    return taken


def _twinless(name: str) -> str:
    """A constant's name without the place that tells it from its twins (``W@my_player3.py:8`` -> ``W``): a
    name's own characters never include ``@`` (``shown_file`` and a dict key escape it)."""
    return name.split("@", 1)[0]
