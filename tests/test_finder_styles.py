"""The constants finder on agents written in the styles real course agents use (``tests/fixtures/finder_styles/``):
each of their numbers found where its author wrote it (``engine.course.literals``)."""

import os
import shutil

import pytest

from engine.course.literals import find_constants
from engine.course.rewrite import patched_sources

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "finder_styles")


def copied(tmp_path, name):
    folder = tmp_path / name
    shutil.copytree(os.path.join(FIXTURES, name), str(folder))
    return folder


def places(constants):
    return {c.name: (c.value, c.file, c.line) for c in constants}


@pytest.mark.fast
def test_the_sources_of_subfolders_are_read_as_the_course_copies_the_folder(tmp_path):
    folder = copied(tmp_path, "subfolders")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("SECRET = 42\n")
    os.symlink(str(outside), str(folder / "linked"))  # a folder behind a link is never entered
    for left_out in ("__pycache__", ".git", "runs"):  # nor one a copy leaves out
        (folder / left_out).mkdir()
        (folder / left_out / "old.py").write_text("STALE = 9\n")
    found = find_constants(str(folder))
    assert places(found) == {
        "LIBERTY_WEIGHT": (0.8, "go_agent_api/go_engine/engine.py", 3),
        "EDGE": (3.0, "go_agent_api/helpers.h", 1),
        "KOMI": (2.5, "my_player3.py", 5),
    }
    texts = patched_sources(str(folder), found[:1], [1.5])  # and rewritten where it lives
    assert list(texts) == ["go_agent_api/go_engine/engine.py"] and "LIBERTY_WEIGHT = 1.5\n" in texts[found[0].file]
