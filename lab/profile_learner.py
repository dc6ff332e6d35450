"""Where a learner's time goes: one learner of a training config, profiled (cProfile) over
one iteration of its vine learner (``profile_vine``: playing the hands and their branches,
the networks' share of it, the engine's, the gradient steps), against an untrained network
of the other role.

    python lab/profile_learner.py [--config configs/train/default.yaml] [--role banker]

(It also profiled the deleted pools learner's ``learn()``: docs/experiments.md#the-pools-learner.)
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="configs/train/default.yaml")
    ap.add_argument("--role", default="banker", choices=["punter", "banker"])
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()

    from training.config import load_config

    profile_vine(load_config(args.config), args)


def profile_vine(cfg, args) -> None:
    """One iteration of the vine learner (``training.vine``) under the profiler:
    the config's hands against an untrained network of the other role, every decision of
    the role branched, then its gradient steps."""
    import torch

    from training.learners import learner_model, make_venv
    from training.runs import ROLES
    from training.vine import BANKER, PUNTER, VineSampler, actor

    torch.set_num_threads(cfg.threads)  # as the config's learners
    models = []
    for i, r in enumerate(ROLES):
        venv = make_venv(cfg, r, i)
        models.append(learner_model(cfg, r, venv, i, None))  # its loss as train.py's
    me = PUNTER if args.role == "punter" else BANKER
    hands = cfg.vine.punter_hands if me == PUNTER else cfg.vine.banker_hands
    sampler = VineSampler(cfg.rules, cfg.vine.tables, 0)
    layers = [actor(m.policy) for m in models]
    models[me].train_on(sampler.sample(1_000, layers, sampler.record(me)), cfg.vine.steps)  # warm up

    def iteration():
        batch = sampler.sample(hands, layers, sampler.record(me), cfg.vine.merge)
        models[me].train_on(batch, cfg.vine.steps, cfg.vine.epochs)
        return batch

    prof = cProfile.Profile()
    before = sampler.steps
    t0 = time.perf_counter()
    batch = prof.runcall(iteration)
    dt = time.perf_counter() - t0
    st = pstats.Stats(prof)
    total = max(v[3] for v in st.stats.values())

    def cum(name: str) -> float:
        return sum(v[3] for (f, _, fn), v in st.stats.items() if f.endswith("vine.py") and fn == name)

    def own(*names: str) -> float:
        return sum(v[2] for (_, _, fn), v in st.stats.items() if fn in names)

    play, train, nets = cum("sample"), cum("train_on"), cum("_probs")  # _probs: grouping the rows, then the networks
    engine = own("observe_batch", "apply_batch", "start_batch")
    print(f"{args.role} vine learner of {args.config}: one iteration of {hands:,} hands, {batch.decisions:,} branched "
          f"decisions ({len(batch):,} rows), {sampler.steps - before:,} env steps in {dt:.2f} s under the profiler")  # fmt: skip
    for label, x in (("playing (main hands and branches)", play), ("  the two networks (grouping rows, forward)", nets),
                     ("  the batched engine (observe, apply, start)", engine), ("gradient steps (train_on)", train)):  # fmt: skip
        print(f"  {label:48s} {x / total:6.1%}")
    st.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
