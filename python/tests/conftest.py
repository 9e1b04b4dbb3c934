"""Shared fixtures of the Python tests."""
import pytest
from cases import CORPUS, ROOT, corpus, cute, parse_call, split_args  # noqa: F401


@pytest.fixture(scope="session")
def pycute():
    import pycute as pc

    return pc
