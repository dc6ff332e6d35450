"""The SB3 snippet of docs/batched.md, timed: MaskablePPO on ``SB3VecEnv(SeatVectorEnv(...))``
with the snippet's settings against the same model with sb3-contrib's default hyperparameters,
in one run.

    python benchmarks/batched_sb3.py [--steps 50000] [--repeat 2]

Both learn a punter against ``smart:6`` on 64 batched tables with one torch thread (the
snippet sets it). *snippet*: ``n_steps=32`` (64 x 32 = 2,048 samples per update),
``batch_size=512``, ``n_epochs=4``, ``gamma=1.0``, two 128-unit tanh layers (the deleted pools
learner's ``fast.yaml``: docs/experiments.md#the-pools-learner); it learns ``--steps`` env steps after a warm-up of one update.
*defaults*: ``MaskablePPO("MlpPolicy", venv)``: ``n_steps=2048`` per table (131,072 samples
per update), minibatches of 64, 10 epochs, two 64-unit tanh layers; it learns one update
(the least ``learn()`` does). Prints env steps per second of ``learn()`` (collection and
update together) and their ratio; the two alternate ``--repeat`` times, the best counts.
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=50_000, help="env steps the snippet's model learns per repeat")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()

    import torch
    from sb3_contrib import MaskablePPO

    from siete_env.batched.vector import SB3VecEnv, SeatVectorEnv

    torch.set_num_threads(1)

    def venv():
        return SB3VecEnv(SeatVectorEnv(num_envs=64, opponents="smart:6", seed=0))

    snippet = MaskablePPO(
        "MlpPolicy",
        venv(),
        n_steps=32,
        batch_size=512,
        n_epochs=4,
        gamma=1.0,
        policy_kwargs={"net_arch": [128, 128], "activation_fn": torch.nn.Tanh},
        seed=0,
    )
    defaults = MaskablePPO("MlpPolicy", venv(), seed=0)
    snippet.learn(2_048)  # warm-up: numba kernels loaded, buffers allocated
    best = {"snippet": 0.0, "defaults": 0.0}
    for r in range(args.repeat):
        for name, model, steps in (("snippet", snippet, args.steps), ("defaults", defaults, 1)):
            before = model.num_timesteps
            t0 = time.perf_counter()
            model.learn(steps, reset_num_timesteps=False)
            dt = time.perf_counter() - t0
            rate = (model.num_timesteps - before) / dt
            print(
                f"repeat {r + 1} {name:9s} {model.num_timesteps - before:8,d} env steps in {dt:6.1f} s: {rate:7,.0f}/s"
            )
            best[name] = max(best[name], rate)
    print(
        f"best: snippet {best['snippet']:,.0f} env steps/s, SB3 defaults {best['defaults']:,.0f}; "
        f"ratio {best['snippet'] / best['defaults']:.1f}"
    )


if __name__ == "__main__":
    main()
