"""Package data: the files the tools read, found beside this module wherever the package is installed.

``params.json`` and ``book.json`` here are links to the repository's top-level files (the
ones the shipped agent reads), copied into the package when it is built.
"""

import gzip
import json
import os
from typing import Any, Dict, List

from engine.errors import UserError

_HERE = os.path.dirname(os.path.abspath(__file__))

SHIPPED_PARAMS = os.path.join(_HERE, "params.json")
SHIPPED_BOOK = os.path.join(_HERE, "book.json")  # a link to the top-level book.json, like params.json
RULES_VECTORS = os.path.join(_HERE, "host-reference.jsonl.gz")
SHIPPED_QTABLE = os.path.join(_HERE, "qtable.json.gz")
SOLVED_OPENINGS = os.path.join(_HERE, "openings.json")  # who wins each 2-ply opening (engine.play.openings)
# Every position of the first plies with every move solved (engine.native.store): beneath every store.
SOLVED_PREFILL = os.path.join(_HERE, "solved-prefill.sqlite")
# The won positions ``littlego check`` measures by default (engine.ruler.position_set), merged from the regret
# benchmark's files (docs/check.md says how), and the reference players' answers to them
# (engine.ruler.reference_answers).
CHECK_POSITIONS = os.path.join(_HERE, "check-positions.json.gz")
CHECK_ANSWERS = os.path.join(_HERE, "check-answers.json.gz")
SOLVER_POSITIONS = os.path.join(
    _HERE, "solver-positions.json"
)  # the compiled solver's benchmark (engine.native.solver_bench)


class DataError(UserError, ValueError):
    """A data file that cannot be read; the message names it."""


def load_rules_vectors(path: str = RULES_VECTORS) -> List[Dict[str, Any]]:
    """The games of a rules-vectors file (.jsonl.gz): the course host's verdict on every ply."""
    try:
        with gzip.open(path, "rt") as lines:
            return [json.loads(line) for line in lines if line.strip()]
    except (OSError, EOFError, ValueError) as error:
        raise DataError(f"{path}: cannot read the rules vectors: {error}")
