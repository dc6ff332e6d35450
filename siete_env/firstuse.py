"""First use of the numba kernels: said on screen, or done ahead.

The batched engine (``siete_env.batched``) and the exact evaluator's banker passes
(``siete_env.solve.kernels``) are numba kernels, compiled on first use after an install or
an upgrade (about 20-30 s on two cores) and cached on disk after (``cache=True``). Without
a word that is a silent pause in ``make_vec``'s first reset or ``evaluate.py``'s first
pairing. ``notice(kernel, what)`` prints one line to stderr when ``kernel``'s on-disk cache
holds nothing for the current source (so it is about to compile); ``python -m
siete_env.firstuse`` compiles everything ahead (the Makefile's install step runs it).
"""

from __future__ import annotations

import sys
import time

_said: set[str] = set()


def cache_is_cold(kernel) -> bool:
    """Whether a numba ``cache=True`` kernel has nothing cached for its current source
    (numba's own index, which it invalidates when the source changes); ``False`` when it
    cannot tell."""
    try:
        return not kernel._cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - numba internals: when they change, say nothing
        return False


def notice(kernel, what: str) -> None:
    """One line on stderr, once per process, when ``kernel`` is about to be compiled."""
    if what in _said:
        return
    _said.add(what)
    if cache_is_cold(kernel):
        print(
            f"siete_env: compiling {what} (numba, first use after an install or an upgrade: about 20-30 s; "
            "cached after; `python -m siete_env.firstuse` does it ahead)",
            file=sys.stderr,
            flush=True,
        )


def compile_ahead() -> dict[str, float]:
    """Use every kernel once: the batched engine in both seats (stepped to the end of its
    episodes) and the exact evaluator on a small game. Seconds per part."""
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
    out["batched engine"] = time.perf_counter() - t
    t = time.perf_counter()
    from siete_env.solve.exact import nash_conv

    class Uniform:
        def action_probs(self, observations, masks):
            m = np.asarray(masks, np.float64)
            return m / m.sum(axis=1, keepdims=True)

    nash_conv(Uniform(), Uniform(), {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0})
    out["exact evaluator"] = time.perf_counter() - t
    return out


def main() -> int:
    t = time.perf_counter()
    parts = compile_ahead()
    done = ", ".join(f"{k} {v:.1f} s" for k, v in parts.items())
    print(f"siete_env: numba kernels compiled and cached ({done}; {time.perf_counter() - t:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
