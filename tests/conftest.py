"""Shared test setup."""

from __future__ import annotations

import os

# One BLAS thread per test process, set before numpy loads (it reads these once), as
# training.driver does for a run: `make test` runs one pytest-xdist worker per core, and two
# BLAS threads in each fight for the two cores. The banker network's exact table
# (agents.learned._mlp_banker_table: ~10^4 small float32 matmuls) took 82 s with two threads
# beside a busy core and 23 s with one, to the same bits. A value set outside is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's BLAS (torch and numba keep their own threads)

import pytest  # noqa: E402


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


# The dearest test files first (seconds of one worker on a fresh clone, measured on the 2-core
# machine; test_table.py and test_batched.py compile the int64 row and the threads' kernels,
# about 50 s and 25 s, which the install's warmup leaves to their first use): with
# `--dist loadfile --no-loadscope-reorder` (make test) each worker takes the next file as it
# frees up, so the long ones start at once instead of last, and the short ones fill the gaps.
_DEAR_FIRST = (
    "test_train_cli.py",  # 100 s
    "test_docs_commands.py",  # 54 s
    "test_table.py",  # 52 s
    "test_batched.py",  # 48 s
    "test_cfr.py",  # 42 s
    "test_vine.py",  # 42 s
    "test_exact.py",  # 38 s
    "test_pretrained.py",  # 36 s
    "test_mixture.py",  # 30 s
    "test_hardening.py",  # 19 s
    "test_observation_reference.py",  # 19 s
    "test_exact_fast_banker.py",  # 15 s
)


def pytest_collection_modifyitems(items):
    def rank(item) -> int:
        name = item.path.name
        return _DEAR_FIRST.index(name) if name in _DEAR_FIRST else len(_DEAR_FIRST)

    items.sort(key=rank)  # stable: the order inside a file, and of the other files, is kept
