"""The first use of the batched engine: ``make_vec`` with 64 tables, a reset and 20 steps,
timed from the imports (a cold numba cache compiles the kernels here).

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/first_use.py        # cold: the kernels compile
    python -m siete_env.warmup && python benchmarks/first_use.py      # after compiling ahead
"""

import sys
import time

t = time.perf_counter()
import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import siete_env  # noqa: E402, F401

e = gym.make_vec("SieteYMedia-Punter-v0", num_envs=64, vectorization_mode="vector_entry_point", opponents="smart:6")
e.reset(seed=0)
for _ in range(20):
    masks = e.unwrapped.action_masks()
    e.step(np.array([np.flatnonzero(m)[0] for m in masks]))
print(f"first use: {time.perf_counter() - t:.1f} s", file=sys.stderr)
