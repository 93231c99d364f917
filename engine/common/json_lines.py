"""Files of JSON lines that a kill may cut short: ``append_line`` writes one object a line (after a
newline where the last line was cut: ``end_cut_line``, for a writer that keeps its file open),
``read_lines`` gives back the objects of the whole lines; ``ResultsFolder``, the one resumable record of
the benchmarks' legs (a folder's problem and its files of results)."""

import json
import os
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, TypeVar

from engine.errors import InvalidInput


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


Result = TypeVar("Result")  # a kind of result a folder keeps


class ResultsFolder:
    """A folder of finished work that a command resumes (the benchmarks' ``--out``): ``problem.json`` says
    what the work is, written by the first command and checked by each later one; each kind of result
    is a file of JSON lines (``legs.jsonl``...), a line a result, appended as it is done and read back."""

    def __init__(self, folder: str, problem: Mapping[str, Any]):
        """Open ``folder`` (made where missing) for ``problem`` (JSON-ready); InvalidInput where it holds
        another problem's results."""
        os.makedirs(folder, exist_ok=True)
        self.folder = folder
        path = os.path.join(folder, "problem.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                if json.load(handle) != json.loads(json.dumps(problem)):
                    raise InvalidInput(f"{folder} holds the legs of another problem ({path}): give another --out")
        else:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(problem, handle)

    def path(self, name: str) -> str:
        """The path of the folder's file ``name``."""
        return os.path.join(self.folder, name)

    def read(self, name: str, parse: Callable[[Dict[str, Any]], Optional[Result]]) -> List[Result]:
        """The results of ``name``'s lines, in order, each as ``parse`` reads it; a line it rejects
        (KeyError, TypeError or ValueError, or None) is skipped: its work is done again."""
        results = []
        for data in read_lines(self.path(name)):
            try:
                result = parse(data)
            except (KeyError, TypeError, ValueError):
                continue
            if result is not None:
                results.append(result)
        return results

    def append(self, name: str, data: Mapping[str, Any]) -> None:
        """Keep one result: ``data`` as the next line of ``name``."""
        append_line(self.path(name), data)
