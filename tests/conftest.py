"""Shared test helpers: the rules vectors and board pictures."""

import pytest

from engine.arena.data import load_rules_vectors


@pytest.fixture(scope="session")
def vector_games():
    return load_rules_vectors()
