"""Versioned data files of positions (positions files, labels files): gzipped JSON objects with a
``"format"`` and a non-empty ``"positions"`` list, read by ``read_positions_document``."""

import gzip
import json
from typing import Any, Dict, List, Tuple, Type


def read_positions_document(
    path: str, expected: str, what: str, error: Type[Exception]
) -> Tuple[Dict[str, Any], List[Any]]:
    """(the document, its non-empty "positions" list) of a gzipped JSON file whose "format" is ``expected``
    (a ``what`` file: labels, positions); ``error`` (an exception class) naming the file otherwise."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as problem:
        raise error(f"{path}: cannot read as a gzipped {what} file: {getattr(problem, 'strerror', None) or problem}")
    except (ValueError, EOFError, RecursionError) as problem:
        raise error(f"{path}: not a {what} file (gzipped JSON): {problem}")
    if not isinstance(data, dict) or data.get("format") != expected:
        raise error(f'{path}: not a {what} file: expected "format": {expected!r}')
    entries = data.get("positions")
    if not isinstance(entries, list) or not entries:
        raise error(f"{path}: 'positions' must be a non-empty list")
    return data, entries
