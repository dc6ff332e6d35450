"""Which technology for the batched engine: one toy heads-up step written three ways.

    python benchmarks/engine_tech.py [--tables 1024 4096] [--seconds 2]

The toy is the core of a punter's turn: each table holds a shuffled deck, a position in
it and a hand total in half points; a step takes an action (hit or stand, from the
caller's random bits), a hit adds the next card's value, a bust or a stand pays +1/-1
against a fixed banker total of 5½ and deals the table a new hand from the next part of
its deck. The same step as

* **numpy**: whole-array operations over the tables (``np.where`` for the branches),
* **numba**: an ``@njit`` loop over the tables (each table takes its own branch),
* **JAX**: a pure ``step(state, action)`` over one table, ``jax.vmap``-ed and ``jit``-ed
  (Pgx's style; on a GPU it runs as is).

Prints steps per second of each (best of three runs of ``--seconds``), in one run, so the
ratios are what count (docs/batched.md).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

VALUE2 = np.array([2, 4, 6, 8, 10, 12, 14, 1, 1, 1] * 4, np.int32)  # card values in half points
BANK = 11  # the toy banker stands on 5½


def decks(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.permuted(np.tile(np.arange(40, dtype=np.int32), (n, 1)), axis=1)


# --------------------------------------------------------------------------- numpy
def numpy_step(deck, pos, total, hit):
    n = len(pos)
    rows = np.arange(n)
    card = deck[rows, pos % 40]
    new_total = np.where(hit, total + VALUE2[card], total)
    pos = np.where(hit, pos + 1, pos)
    bust = new_total > 15
    done = bust | ~hit
    reward = np.where(bust, -1.0, np.where(~hit, np.where(new_total > BANK, 1.0, -1.0), 0.0))
    first = VALUE2[deck[rows, pos % 40]]
    total = np.where(done, first, new_total)
    pos = np.where(done, pos + 1, pos)
    return pos, total, reward, done


# --------------------------------------------------------------------------- numba
def numba_step_fn():
    from numba import njit

    @njit(cache=True)
    def step(deck, pos, total, hit, reward, done):
        for i in range(pos.shape[0]):
            t = total[i]
            p = pos[i]
            r = 0.0
            d = False
            if hit[i]:
                t += VALUE2[deck[i, p % 40]]
                p += 1
                if t > 15:
                    r, d = -1.0, True
            else:
                r, d = (1.0 if t > BANK else -1.0), True
            if d:
                t = VALUE2[deck[i, p % 40]]
                p += 1
            pos[i], total[i], reward[i], done[i] = p, t, r, d

    return step


# --------------------------------------------------------------------------- jax
def jax_step_fn():
    import jax
    import jax.numpy as jnp

    v2 = jnp.asarray(VALUE2)

    def one(deck, pos, total, hit):
        card = deck[pos % 40]
        new_total = jnp.where(hit, total + v2[card], total)
        pos = jnp.where(hit, pos + 1, pos)
        bust = new_total > 15
        done = bust | ~hit
        reward = jnp.where(bust, -1.0, jnp.where(~hit, jnp.where(new_total > BANK, 1.0, -1.0), 0.0))
        total = jnp.where(done, v2[deck[pos % 40]], new_total)
        pos = jnp.where(done, pos + 1, pos)
        return pos, total, reward, done

    return jax.jit(jax.vmap(one))


def measure(fn, seconds: float) -> float:
    fn()  # compile / warm up
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        k = 0
        while time.perf_counter() - t0 < seconds / 3:
            fn()
            k += 1
        best = max(best, k / (time.perf_counter() - t0))
    return best


def run(n: int, seconds: float) -> dict[str, float]:
    deck = decks(n)
    rng = np.random.default_rng(1)
    hits = rng.random((64, n)) < 0.6  # the caller's actions, drawn once
    out: dict[str, float] = {}

    pos = np.zeros(n, np.int64)
    total = VALUE2[deck[:, 0]].astype(np.int64)
    state = {"pos": pos, "total": total, "k": 0}

    def np_once():
        state["pos"], state["total"], _, _ = numpy_step(deck, state["pos"], state["total"], hits[state["k"] & 63])
        state["k"] += 1

    out["numpy"] = measure(np_once, seconds) * n

    step = numba_step_fn()
    pos2, total2 = pos.copy(), total.copy()
    reward, done = np.zeros(n), np.zeros(n, np.bool_)
    k = [0]

    def nb_once():
        step(deck, pos2, total2, hits[k[0] & 63], reward, done)
        k[0] += 1

    out["numba"] = measure(nb_once, seconds) * n

    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return out
    jstep = jax_step_fn()
    jd, jh = jnp.asarray(deck), jnp.asarray(hits)
    js = {"pos": jnp.asarray(pos), "total": jnp.asarray(total), "k": 0}

    def jx_once():
        js["pos"], js["total"], r, d = jstep(jd, js["pos"], js["total"], jh[js["k"] & 63])
        js["k"] += 1
        return r

    def jx_sync():
        jx_once().block_until_ready()

    out["jax (jit + vmap)"] = measure(jx_sync, seconds) * n
    del jax
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, nargs="+", default=[1024, 4096])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    results = {}
    for n in args.tables:
        r = results[n] = run(n, args.seconds)
        print(f"\ntoy heads-up step, {n} tables (steps/s, best of 3)")
        for name, v in r.items():
            print(f"  {name:18s} {v:14,.0f}  x numpy {v / r['numpy']:6.1f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
