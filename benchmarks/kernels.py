"""What each batched kernel costs, in nanoseconds a table: a fresh deck (``shuffle_deck``),
``start``, a decision (``legal``, a random legal action, ``apply``), ``legal`` and ``observe``,
each in a compiled loop over ``--tables`` heads-up ``spanish`` tables (no Python between).

    python benchmarks/kernels.py [--tables 1024] [--repeats 5] [--rules spanish]

Each figure is the best of ``--repeats`` runs of 200 passes. To compare two commits, run it in
a checkout of each, alternating (the machine's speed drifts); it imports ``siete_env`` from the
directory it is run in.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path.cwd()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=1024)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rules", default="spanish")
    args = ap.parse_args()

    from numba import njit

    from siete_env.batched import BatchedTables
    from siete_env.batched import kernels as K

    bt = BatchedTables(args.tables, 2, rules=args.rules)
    st, cfg = bt.state, bt.cfg
    cards = np.asarray(bt.deck_cards, np.int64)
    rng = np.arange(1, args.tables + 1, dtype=np.uint64)
    out = np.zeros((args.tables, bt.obs_size), np.float32)

    @njit
    def shuffles(st, cfg, cards, rng, reps):
        for _ in range(reps):
            for g in range(st.shape[0]):
                K.shuffle_deck(st[g], cfg, cards, rng, g)

    @njit
    def starts(st, cfg, cards, rng, reps):
        for _ in range(reps):
            for g in range(st.shape[0]):
                K.shuffle_deck(st[g], cfg, cards, rng, g)
                K.start(st[g], cfg, 1)

    @njit
    def episodes(st, cfg, cards, rng, reps):
        decisions = 0
        for _ in range(reps):
            for g in range(st.shape[0]):
                r = st[g]
                K.shuffle_deck(r, cfg, cards, rng, g)
                K.start(r, cfg, 1)
                while r[K.PHASE] != K.P_OVER:
                    K.apply(r, cfg, K.random_legal(K.legal(r, cfg), rng, g))
                    decisions += 1
        return decisions

    @njit
    def legals(st, cfg, reps):
        x = 0
        for _ in range(reps):
            for g in range(st.shape[0]):
                x ^= K.legal(st[g], cfg)
        return x

    @njit
    def observes(st, cfg, out, reps):
        for _ in range(reps):
            for g in range(st.shape[0]):
                K.observe(st[g], cfg, 0, False, out[g])

    def timed(f, *a):
        t = time.perf_counter()
        v = f(*a, 200)
        return (time.perf_counter() - t) / 200 / args.tables * 1e9, v

    for f, a in ((shuffles, (st, cfg, cards, rng)), (starts, (st, cfg, cards, rng)), (episodes, (st, cfg, cards, rng))):
        f(*a, 1)  # compile
    best: dict[str, float] = {}
    for _ in range(args.repeats):
        shuffle, _ = timed(shuffles, st, cfg, cards, rng)
        start, _ = timed(starts, st, cfg, cards, rng)
        episode, d = timed(episodes, st, cfg, cards, rng)
        per_episode = d / 200 / args.tables
        starts(st, cfg, cards, rng, 1)  # every table at its first decision
        legals(st, cfg, 1), observes(st, cfg, out, 1)
        figures = {
            "shuffle_deck": shuffle,
            "start": start - shuffle,
            "a decision (legal, random action, apply)": (episode - start) / per_episode,
            "legal": timed(legals, st, cfg)[0],
            "observe": timed(observes, st, cfg, out)[0],
        }
        for k, v in figures.items():
            best[k] = min(best.get(k, v), v)
    print(f"ns a table, best of {args.repeats} ({args.tables} tables, {args.rules}, heads-up):")
    for k, v in best.items():
        print(f"  {k:42s} {v:8.1f}")


if __name__ == "__main__":
    main()
