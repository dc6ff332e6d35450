"""One BLAS thread per process, set before numpy loads (it reads the count then): imported
first by the commands that train or learn best responses (``training.driver``,
``training.evaluate_cli``). Their processes each keep a core busy (the learners, the
responders side by side, the banker tables over both cores); two OpenBLAS threads in each
would fight for the cores, and a numpy policy's small products gain nothing from a second
thread: two responders side by side from ``evaluate.py --exploit`` each ran half the
iterations of the same responders in a training report, their BLAS threads spinning.
A value set outside is kept."""

from __future__ import annotations

import os

VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
ONE = dict.fromkeys(VARS, "1")
"""The environment of a child process with one BLAS thread (``mock.patch.dict(os.environ,
ONE)`` around its start: the sampler's helpers, the responders' pool)."""
UNSET = [v for v in VARS if v not in os.environ]
"""The variables this process found unset (and set to 1): the learners get theirs from the config."""
for _var in UNSET:
    os.environ[_var] = "1"
