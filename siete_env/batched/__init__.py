"""The batched engine: N tables stepped at once by numba kernels (see ``docs/batched.md``).

``BatchedTables`` (``engine``) is the engine; ``SeatVectorEnv`` (``vector``) the Gymnasium
``VectorEnv`` of the single-seat views (the ids' ``vector_entry_point``) and
``SB3VecEnv`` its stable-baselines3 adapter; ``agents.batched_play`` plays matches through
it. numba compiles the kernels at first use and caches them on disk.
"""

from .engine import BatchedTables, check_rules, supported

__all__ = ["BatchedTables", "check_rules", "supported"]
