"""Compile the numba kernels ahead (``python -m siete_env.warmup``): the batched engine in
both seats, the AEC environment's table and the exact evaluator's banker passes, each used
once, so that no later first use pauses (``siete_env.firstuse``); with ``--threads`` also
the single-seat views on several threads (``make_vec(..., threads=N)``, where the machine
has several cores). The Makefile's install step runs it without."""

from __future__ import annotations

import time


def compile_ahead(threads: bool = False) -> dict[str, float]:
    """Use every kernel once: the batched engine in both seats (stepped to the end of its
    episodes, through the vector environments and through ``BatchedTables``' own API, as
    the vine learner's sampler steps it) and the exact evaluator on a small game. Seconds
    per part."""
    import gymnasium as gym
    import numpy as np

    import siete_env  # noqa: F401 (registers the ids)

    out = {}
    t = time.perf_counter()
    for role in ("Punter", "Banker"):
        env = gym.make_vec(
            f"SieteYMedia-{role}-v0", num_envs=4, vectorization_mode="vector_entry_point", opponents="random"
        )
        _, info = env.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(40):
            masks = env.unwrapped.action_masks()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            env.step(actions)
        env.close()
    # the engine's own API (start / observe / apply on chosen tables: the vine learner's sampler)
    from siete_env.batched import BatchedTables

    t2 = BatchedTables(8, 2, "spanish")
    g = np.arange(8)
    t2.start(g, np.ones(8, np.int64), t2.shuffled_decks(8, rng))
    while len(g := g[~t2.over()[g]]):
        _, masks = t2.observe(g, fold=True)
        t2.apply(g, np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int64))
    # the AEC environment's one table (siete_env.table): the same kernels, and seat_hand (the
    # int64 row of rules whose amounts pass int16 compiles on its first use: rare rules, and
    # about as long again as everything here)
    e = siete_env.env(num_players=3)
    e.reset(seed=0)
    for _agent in e.agent_iter():
        obs, _r, term, trunc, _i = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    out["batched engine"] = time.perf_counter() - t
    import numba

    if threads and numba.config.NUMBA_NUM_THREADS > 1:  # the views on every core (SeatVectorEnv(threads=N))
        t = time.perf_counter()
        env = gym.make_vec("SieteYMedia-Banker-v0", num_envs=8, vectorization_mode="vector_entry_point", threads=2)
        _, info = env.reset(seed=0)
        for _ in range(4):
            _, _, _, _, info = env.step(np.argmax(info["action_mask"], axis=1))
        env.close()
        out["batched engine's threads"] = time.perf_counter() - t
    t = time.perf_counter()
    from siete_env.solve.exact import nash_conv

    class Uniform:
        def action_probs(self, observations, masks):
            m = np.asarray(masks, np.float64)
            return m / m.sum(axis=1, keepdims=True)

    nash_conv(Uniform(), Uniform(), {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0})
    out["exact evaluator"] = time.perf_counter() - t
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Compile the numba kernels ahead.")
    ap.add_argument(
        "--threads",
        action="store_true",
        help="also the single-seat views on several threads (make_vec(..., threads=N): about 25 s more)",
    )
    args = ap.parse_args(argv)
    t = time.perf_counter()
    parts = compile_ahead(threads=args.threads)
    done = ", ".join(f"{k} {v:.1f} s" for k, v in parts.items())
    print(f"siete_env: numba kernels compiled and cached ({done}; {time.perf_counter() - t:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
