"""A learner's env steps per second under two training configs, in one run: by default the
main run's (``configs/train/default.yaml``: the batched engine, snapshots sampling) against
the one ``make train`` ran before (``configs/train/pools.yaml``: SB3's DummyVecEnv of the
AEC engine, heuristic pools).

    python benchmarks/train_speed.py [--steps 40000] [--repeat 2] [--roles punter banker]
                                     [--configs configs/train/default.yaml configs/train/pools.yaml]

For each role and config, MaskablePPO (the config's own hyperparameters, environments and
PPO class, one torch thread) learns ``--steps`` env steps against a pool built as the
config's first generations build it: its heuristics for ``<role>.baseline_share`` of the
hands, the rest against a snapshot of the other role (a MaskablePPO model of the config's
shape, untrained, playing as the config's snapshots play: greedy or sampling). Prints env
steps per second of ``learn()``, the share of it spent stepping the environments (the
opponents' decisions included), and the ratio of the first config to the second, per role.
The configs alternate ``--repeat`` times (the machine's speed drifts); the median counts.
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


def measure(config: str, role: str, steps: int) -> tuple[float, float]:
    """``(env steps per second in learn(), share of it stepping the environments)``."""
    from agents.specs import AgentSpec
    from train import derive_seed, load_config, make_model, make_venv
    from training.runs import ROLES

    cfg = load_config(config)
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
    return (model.num_timesteps - before) / dt, env_time[0] / dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=40_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--roles", nargs="+", default=["punter", "banker"], choices=["punter", "banker"])
    ap.add_argument(
        "--configs", nargs=2, default=["configs/train/default.yaml", "configs/train/pools.yaml"], metavar="CONFIG"
    )
    args = ap.parse_args()

    import torch

    import siete_env

    torch.set_num_threads(1)
    print(f"AEC engine: {'compiled' if siete_env.COMPILED else 'pure Python'}; {args.steps:,} steps per measure")
    for role in args.roles:
        rates: dict[str, list[float]] = {c: [] for c in args.configs}
        for _ in range(args.repeat):
            for config in args.configs:
                rate, env_share = measure(config, role, args.steps)
                rates[config].append(rate)
                print(f"{role:6s} {config:32s}: {rate:8,.0f} env steps/s in learn(), {env_share:5.1%} stepping the envs",
                      flush=True)  # fmt: skip
        a, b = (statistics.median(rates[c]) for c in args.configs)
        print(f"{role:6s} median {a:,.0f} against {b:,.0f}: {a / b:.2f}x", flush=True)


if __name__ == "__main__":
    main()
