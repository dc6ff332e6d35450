"""A learner's env steps per second under two training configs, in one run: by default the
main run's (``configs/train/default.yaml``) against the full game's (``configs/train/full.yaml``:
splits on); ``--configs`` takes any two, ``CONFIG@key=value,...`` overriding keys (e.g.
``vine.workers``: the sampling shared with helper processes).

    python benchmarks/train_speed.py [--repeat 2] [--roles punter banker]
                                     [--configs configs/train/default.yaml configs/train/full.yaml]
    python benchmarks/train_speed.py --configs "configs/train/default.yaml@vine.workers=2" \
                                               "configs/train/default.yaml@vine.workers=1"

Each measure runs one iteration of the config's vine learner (``measure_vine``). Prints env
steps per second of learning, the share of it spent playing the hands (the engine and both
networks), the decisions the loss is computed over per second, and the ratios of the first
config to the second, per role. The configs alternate ``--repeat`` times (the machine's speed
drifts); the median counts. (Until the pools learner was deleted it also measured MaskablePPO's
``learn()``: docs/experiments.md#the-pools-learner.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def measure(config: str, role: str) -> tuple[float, float, float]:
    """``(env steps per second, share of it playing the hands, decisions in the loss per
    second)`` of one iteration (``measure_vine``), in a process of its own with the BLAS
    threads train.py gives a learner."""
    import multiprocessing as mp
    import os
    from unittest import mock

    from training.config import load_config

    path, _, sets = config.partition("@")  # CONFIG@key=value,key=value: the config with overrides
    cfg = load_config(path, [x for x in sets.split(",") if x])
    blas = str(1 if cfg.vine.workers > 1 else cfg.threads)
    env = dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), blas)
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=_measure_to, args=(out, cfg, role))  # not a daemon: it starts helpers
    with mock.patch.dict(os.environ, env):
        proc.start()
    result = out.get()
    proc.join()
    return result


def _measure_to(out, cfg, role: str) -> None:
    out.put(measure_vine(cfg, role))


def measure_vine(cfg, role: str) -> tuple[float, float, float]:
    """One iteration of the vine learner (``training.vine``) as train.py runs it:
    the config's hands against an untrained network of the other role, every decision of
    the role branched, then its ``vine.epochs`` passes of ``vine.steps`` gradient steps (on
    the merged rows with ``vine.merge``). Env steps count every batched
    table's every action (the main hands and the branches' copies); the share is the time
    spent playing them (the engine and both networks); the third figure the decisions the
    loss is computed over (each with every legal action's value)."""
    from training.learners import derive_seed, learner_model, make_venv
    from training.runs import ROLES
    from training.vine import BANKER, PUNTER, VineSampler, actor

    models = []
    for i, r in enumerate(ROLES):
        venv = make_venv(cfg, r, derive_seed(cfg.seed, 1, i))
        models.append(learner_model(cfg, r, venv, i, None))  # its loss as train.py's
    me = PUNTER if role == "punter" else BANKER
    hands = cfg.vine.punter_hands if role == "punter" else cfg.vine.banker_hands
    import torch

    torch.set_num_threads(cfg.threads)  # as the learner process sets them
    sampler = VineSampler(cfg.rules, cfg.vine.tables, 0, cfg.num_players)
    if cfg.vine.workers > 1:
        sampler.start_workers(cfg.vine.workers)
    seats = sampler.seats(*(actor(m.policy) for m in models))
    mine = sampler.record(me)
    models[me].train_on(sampler.sample(1_000, seats, mine), cfg.vine.steps)  # warm up (kernels, buffers)
    before = sampler.steps
    t0 = time.perf_counter()
    batch = sampler.sample(hands, seats, mine, cfg.vine.merge)
    t1 = time.perf_counter()
    models[me].train_on(batch, cfg.vine.steps, cfg.vine.epochs)
    dt = time.perf_counter() - t0
    sampler.close()
    torch.set_num_threads(1)
    return (sampler.steps - before) / dt, (t1 - t0) / dt, batch.decisions / dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--roles", nargs="+", default=["punter", "banker"], choices=["punter", "banker"])
    ap.add_argument(
        "--configs", nargs=2, default=["configs/train/default.yaml", "configs/train/full.yaml"], metavar="CONFIG"
    )
    args = ap.parse_args()

    import torch

    import siete_env

    torch.set_num_threads(1)
    print(f"AEC engine: {'compiled' if siete_env.COMPILED else 'pure Python'}; one iteration per measure")
    for role in args.roles:
        rates: dict[str, list[float]] = {c: [] for c in args.configs}
        trained: dict[str, list[float]] = {c: [] for c in args.configs}
        for _ in range(args.repeat):
            for config in args.configs:
                rate, env_share, per_loss = measure(config, role)
                rates[config].append(rate)
                trained[config].append(per_loss)
                print(f"{role:6s} {config:32s}: {rate:10,.0f} env steps/s in learning, {env_share:5.1%} playing "
                      f"the hands, {per_loss:9,.0f} decisions/s in the loss", flush=True)  # fmt: skip
        a, b = (statistics.median(rates[c]) for c in args.configs)
        x, y = (statistics.median(trained[c]) for c in args.configs)
        print(f"{role:6s} median env steps/s {a:,.0f} against {b:,.0f}: {a / b:.2f}x; "
              f"decisions in the loss/s {x:,.0f} against {y:,.0f}: {x / y:.2f}x", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
