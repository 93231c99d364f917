"""The glossary (docs/glossary.md) as a newcomer reads it: one row a word, and every module or name it points to
there in the code."""

import importlib
import os
import re

import pytest

from tests.conftest import ROOT


def _resolves(dotted):
    """Whether ``dotted`` names a module of the project, or a name one defines (a class's method too)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):  # the longest prefix that is a module, then attributes
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


@pytest.mark.fast
def test_the_glossary_names_each_word_once_and_where_it_lives():
    text = open(os.path.join(ROOT, "docs", "glossary.md"), encoding="utf-8").read()
    rows = [line.split("|")[1:-1] for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]
    words = [row[0].strip().lower() for row in rows]
    assert len(rows) >= 20 and len(words) == len(set(words)), sorted(w for w in words if words.count(w) > 1)
    places = [place for row in rows for place in re.findall(r"`([\w.]+)`", row[2])]
    assert len(places) >= len(rows), "each word says where it lives"
    assert not [place for place in places if not _resolves(place)], "the glossary names code that is not there"
