"""Shared test setup."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_a_temporary_folder(tmp_path_factory):
    """A model made without a logger makes SB3 create a ``/tmp/SB3-<time>`` folder at every
    ``learn()``; the tests' go to pytest's own temporary folder instead."""
    old = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3"))
    yield
    if old is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = old
