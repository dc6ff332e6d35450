"""Training speed of one learner with SB3's DummyVecEnv of SeatEnv against the batched
VecEnv (train.py's ``vec_env: dummy`` / ``batched``), in one run.

    python benchmarks/train_speed.py [--steps 30000] [--n-envs 8 64] [--config configs/train/default.yaml]

For each role and each setting, MaskablePPO (the config's hyperparameters, one torch
thread) learns ``--steps`` env steps against the config's baseline pool; prints env
steps per second of ``learn()`` and the share of it spent stepping environments.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=30_000)
    ap.add_argument("--n-envs", type=int, nargs="+", default=[8])
    ap.add_argument("--roles", nargs="+", default=["punter", "banker"])
    ap.add_argument("--config", default=None)
    ap.add_argument(
        "--snapshot-share",
        type=float,
        default=0.0,
        help="share of the hands against a learned snapshot of the other role (an untrained MaskablePPO model)",
    )
    ap.add_argument(
        "--rollout", type=int, default=None, help="keep n_envs * n_steps at this size (n_steps = rollout / n_envs)"
    )
    args = ap.parse_args()

    import torch

    import siete_env
    from agents.specs import AgentSpec
    from train import derive_seed, load_config, make_model, make_venv
    from training.runs import ROLES

    torch.set_num_threads(1)
    print(f"AEC engine: {'compiled' if siete_env.COMPILED else 'pure Python'}")
    for role in args.roles:
        for n_envs in args.n_envs:
            for vec in ("dummy", "batched"):
                sets = [f"vec_env={vec}", f"n_envs={n_envs}"]
                if args.rollout:
                    sets += [f"{r}.ppo.n_steps={args.rollout // n_envs}" for r in ROLES]
                cfg = load_config(args.config, sets)
                venv = make_venv(cfg, role, derive_seed(cfg.seed, 1, ROLES.index(role)))
                model = make_model(getattr(cfg, role), venv, 0, None)
                if args.snapshot_share > 0:
                    other = "banker" if role == "punter" else "punter"
                    snap = Path(tempfile.mkdtemp()) / f"{other}.zip"
                    make_model(getattr(cfg, other), make_venv(cfg, other, 1), 1, None).save(snap)
                    base = cfg.opponents.baseline_bankers if role == "punter" else cfg.opponents.baseline_punters
                    pool = {b: (1 - args.snapshot_share) / len(base) for b in base}
                    pool[str(AgentSpec.model(snap))] = args.snapshot_share
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
                t0 = time.perf_counter()
                model.learn(args.steps)
                dt = time.perf_counter() - t0
                print(
                    f"{role:6s} n_envs={n_envs:4d} {vec:8s}: {model.num_timesteps / dt:8,.0f} env steps/s in learn(), "
                    f"{env_time[0] / dt:5.1%} of it stepping the environments",
                    flush=True,
                )


if __name__ == "__main__":
    main()
