"""A learner's env steps per second under two training configs, in one run: by default the
main run's (``configs/train/default.yaml``: the vine learner) against the recipe ``make
train`` ran before it (``configs/train/exploiters.yaml``: MaskablePPO on the batched engine
against pools of snapshots and exploiters); ``--configs`` takes any two (``pools.yaml``:
SB3's DummyVecEnv of the AEC engine, the default before issue 21).

    python benchmarks/train_speed.py [--steps 40000] [--repeat 2] [--roles punter banker]
                                     [--configs configs/train/default.yaml configs/train/exploiters.yaml]
    python benchmarks/train_speed.py --configs "configs/train/default.yaml@vine.workers=2" \
                                               "configs/train/default.yaml@vine.workers=1"

For a ``learner: pools`` config, MaskablePPO (the config's own hyperparameters,
environments and PPO class, one torch thread) learns ``--steps`` env steps against a pool
built as the config's first generations build it: its heuristics for
``<role>.baseline_share`` of the hands, the rest against a snapshot of the other role (a
MaskablePPO model of the config's shape, untrained, playing as the config's snapshots
play: greedy or sampling). A ``learner: vine`` config runs one iteration of its learner
(``measure_vine``; ``CONFIG@key=value,...`` overrides keys, e.g. ``vine.workers``: the
sampling shared with helper processes). Prints env steps per second of learning, the share of it spent
stepping the environments (the opponents' decisions included), the decisions the loss is
computed over per second, and the ratios of the first config to the second, per role. The
configs alternate ``--repeat`` times (the machine's speed drifts); the median counts.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def measure(config: str, role: str, steps: int) -> tuple[float, float, float]:
    """``(env steps per second in learn(), share of it stepping the environments, decisions
    in the loss per second)``; a ``learner: vine`` config is measured by ``measure_vine``."""
    from agents.specs import AgentSpec
    from training.config import load_config
    from training.learners import derive_seed, make_model, make_venv
    from training.runs import ROLES

    path, _, sets = config.partition("@")  # CONFIG@key=value,key=value: the config with overrides
    cfg = load_config(path, [x for x in sets.split(",") if x])
    if cfg.learner == "vine":  # in a process of its own with the BLAS threads train.py gives a learner
        import multiprocessing as mp
        import os
        from unittest import mock

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
    other = "banker" if role == "punter" else "punter"
    venv = make_venv(cfg, role, derive_seed(cfg.seed, 1, ROLES.index(role)))
    model = make_model(getattr(cfg, role), venv, 0, None)
    snap = Path(tempfile.mkdtemp()) / f"{other}.zip"
    make_model(getattr(cfg, other), make_venv(cfg, other, 1), 1, None).save(snap)
    base = cfg.opponents.baseline_bankers if role == "punter" else cfg.opponents.baseline_punters
    share = getattr(cfg, role).baseline_share
    pool = {b: share / len(base) for b in base}
    pool[str(AgentSpec.model(snap, cfg.opponents.sample))] = 1 - share
    co = cfg.opponents.baseline_punters if role == "punter" and cfg.num_players > 2 else None
    venv.env_method("set_opponents", pool, co)
    env_time = [0.0]
    step_wait = venv.step_wait

    def timed(step_wait=step_wait, env_time=env_time):
        t = time.perf_counter()
        out = step_wait()
        env_time[0] += time.perf_counter() - t
        return out

    venv.step_wait = timed
    model.learn(2_048)  # warm up (kernels compiled, buffers allocated)
    before, env_time[0] = model.num_timesteps, 0.0
    t0 = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    dt = time.perf_counter() - t0
    rate = (model.num_timesteps - before) / dt
    return rate, env_time[0] / dt, rate  # PPO's loss sees each env step once per epoch


def _measure_to(out, cfg, role: str) -> None:
    out.put(measure_vine(cfg, role))


def measure_vine(cfg, role: str) -> tuple[float, float, float]:
    """One iteration of the vine learner (``training.vine``) as ``learner: vine`` runs it:
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
        venv = make_venv(cfg.model_copy(update={"n_envs": 1}), r, derive_seed(cfg.seed, 1, i))
        models.append(learner_model(cfg, r, venv, i, None))  # its class and loss as train.py's
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
    ap.add_argument("--steps", type=int, default=40_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--roles", nargs="+", default=["punter", "banker"], choices=["punter", "banker"])
    ap.add_argument(
        "--configs", nargs=2, default=["configs/train/default.yaml", "configs/train/exploiters.yaml"], metavar="CONFIG"
    )
    args = ap.parse_args()

    import torch

    import siete_env

    torch.set_num_threads(1)
    print(f"AEC engine: {'compiled' if siete_env.COMPILED else 'pure Python'}; {args.steps:,} steps per measure")
    for role in args.roles:
        rates: dict[str, list[float]] = {c: [] for c in args.configs}
        trained: dict[str, list[float]] = {c: [] for c in args.configs}
        for _ in range(args.repeat):
            for config in args.configs:
                rate, env_share, per_loss = measure(config, role, args.steps)
                rates[config].append(rate)
                trained[config].append(per_loss)
                print(f"{role:6s} {config:32s}: {rate:10,.0f} env steps/s in learning, {env_share:5.1%} stepping "
                      f"the envs, {per_loss:9,.0f} decisions/s in the loss", flush=True)  # fmt: skip
        a, b = (statistics.median(rates[c]) for c in args.configs)
        x, y = (statistics.median(trained[c]) for c in args.configs)
        print(f"{role:6s} median env steps/s {a:,.0f} against {b:,.0f}: {a / b:.2f}x; "
              f"decisions in the loss/s {x:,.0f} against {y:,.0f}: {x / y:.2f}x", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
