"""Shared test helpers: the rules vectors and board pictures."""

import pytest

from engine.data import load_rules_vectors


@pytest.fixture(scope="session")
def vector_games():
    return load_rules_vectors()


def wait_for_run_file(runs_dir, name, seconds=120.0):
    """The run folder under ``runs_dir`` once it holds ``name`` (a run started by another process)."""
    import os
    import time
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = os.listdir(str(runs_dir)) if os.path.isdir(str(runs_dir)) else []
        if found and os.path.exists(os.path.join(str(runs_dir), found[0], name)):
            return os.path.join(str(runs_dir), found[0])
        time.sleep(0.05)
    raise AssertionError("no run folder with {} appeared under {}".format(name, runs_dir))
