"""The constants of a course agent's code rewritten (``engine.course.agent_constants`` finds them).

``patched_sources`` replaces exactly the literals of the chosen constants, and nothing else, with new
values, each written as ``literal_text`` says (an integer stays one; a real number keeps its suffix and a
decimal point); ``literal_diff`` shows what changed, line for line.
"""

import difflib
import re
from typing import Dict, List, Sequence, Tuple

from engine.course.agent_constants import Constant, read_source


def literal_text(constant: Constant, value: float) -> str:
    """How ``value`` is written in place of ``constant``'s literal: an integer rounded, a real number with
    six significant digits, a decimal point or exponent, and the literal's suffix."""
    if constant.integer:
        return str(int(round(value))) + constant.suffix
    text = format(float(value), ".6g")
    if not any(mark in text for mark in ".eEn"):
        text += ".0"
    return text + constant.suffix


def _after_sign(text: str, start: int) -> bool:
    """Whether the literal at ``start`` follows a ``+`` or ``-`` (spaces between): a factor's sign stays
    outside it (``x - 2 * y``), so a negative value written there needs parentheses."""
    before = len(text[:start].rstrip())
    return before > 0 and text[before - 1] in "+-"


def patched_sources(folder: str, constants: Sequence[Constant], values: Sequence[float]) -> Dict[str, str]:
    """{file: text} of the sources of ``folder`` holding ``constants``, each literal replaced by its value of
    ``values`` (written as ``literal_text`` does) and every other character as it was. Each text is read once
    and written in one pass, however many of its literals change."""
    by_file: Dict[str, List[Tuple[Constant, float]]] = {}
    for constant, value in zip(constants, values):
        by_file.setdefault(constant.file, []).append((constant, value))
    texts = {}
    for name, changes in by_file.items():
        text = read_source(folder, name)
        pieces, done, line_start, searched = [], 0, 0, 0
        for constant, value in sorted(changes, key=lambda change: change[0].start):
            new = literal_text(constant, value)
            line_start = text.rfind("\n", searched, constant.start) + 1 or line_start  # each stretch searched once
            searched = constant.start
            if value < 0 and (_DEFINE.match(text, line_start, constant.start) or _after_sign(text, constant.start)):
                new = f"({new})"  # a #define's body, or after a sign: so that x-NAME or x-2*y never reads x--1
            pieces += [text[done : constant.start], new]
            done = constant.end
        texts[name] = "".join(pieces) + text[done:]
    return texts


_DEFINE = re.compile(r"[ \t]*#[ \t]*define\b")  # a line that is a #define, up to the literal


def literal_diff(name: str, before: str, after: str, context: int = 3) -> str:
    """A unified diff of ``before`` and ``after``, a source whose literals alone were rewritten (so line for
    line the same length), with exactly the changed lines and ``context`` lines around them: difflib's
    matcher would take a blank line between two changed ones for a change too."""
    old, new = before.splitlines(True), after.splitlines(True)
    if len(old) != len(new):  # not a literal rewrite: difflib's own diff
        return "".join(difflib.unified_diff(old, new, "a/" + name, "b/" + name))
    changed = [index for index, (a, b) in enumerate(zip(old, new)) if a != b]
    if not changed:
        return ""
    hunks = [[changed[0], changed[0]]]  # [first, last] changed line of each hunk
    for index in changed[1:]:
        if index - hunks[-1][1] > 2 * context:
            hunks.append([index, index])
        else:
            hunks[-1][1] = index
    out = [f"--- a/{name}\n", f"+++ b/{name}\n"]
    for first, last in hunks:
        low, high = max(0, first - context), min(len(old), last + context + 1)
        out.append(f"@@ -{low + 1},{high - low} +{low + 1},{high - low} @@\n")
        for index in range(low, high):
            if old[index] == new[index]:
                out.append(" " + old[index])
            else:
                out.extend(("-" + old[index], "+" + new[index]))
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)
