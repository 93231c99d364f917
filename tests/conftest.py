"""Shared test helpers: the rules vectors and board pictures."""

import gzip
import json
import os

import pytest

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
VECTORS = os.path.join(DATA, "host-reference.jsonl.gz")


def load_vector_games():
    """The 500 games of the course host's rules vectors."""
    with gzip.open(VECTORS, "rt") as lines:
        return [json.loads(line) for line in lines]


@pytest.fixture(scope="session")
def vector_games():
    return load_vector_games()
