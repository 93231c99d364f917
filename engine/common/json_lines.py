"""Files of JSON lines that a kill may cut short: ``append_line`` writes one object a line (after a
newline where the last line was cut: ``end_cut_line``, for a writer that keeps its file open),
``read_lines`` gives back the objects of the whole lines."""

import json
import os
from typing import Any, Dict, Iterator, Mapping


def end_cut_line(path: str) -> None:
    """End the last line of ``path`` with a newline where a kill cut it short (nothing where the file is
    empty, missing or whole), so that a line appended next stays readable."""
    if not os.path.exists(path):
        return
    with open(path, "a+b") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell():
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                handle.write(b"\n")


def append_line(path: str, data: Mapping[str, Any]) -> None:
    """Append ``data`` as a JSON line to ``path``, after a newline where a kill cut the last line short
    (so that the new line stays readable)."""
    end_cut_line(path)
    with open(path, "ab") as handle:
        handle.write((json.dumps(data) + "\n").encode("utf-8"))


def read_lines(path: str) -> Iterator[Dict[str, Any]]:
    """Each JSON object of the lines of ``path`` (none where it does not exist), less the lines a kill cut
    short."""
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict):
                yield data
