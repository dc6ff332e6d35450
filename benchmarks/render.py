"""The ``rgb_array`` frames: milliseconds a frame at 2-12 seats, beside PettingZoo's
``texas_holdem_v4`` (its pygame ``rgb_array`` frame), in the same run; and a frame of
each size written to ``--out`` to look at.

    python benchmarks/render.py [--seats 2 4 8 12] [--frames 200] [--out docs/images]

Each table plays random legal moves; every frame along the way is drawn and timed (the
median and the 90th percentile of the frames of ``--frames`` steps).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


def frames_ms(env, frames: int, seed: int = 0) -> tuple[float, float, np.ndarray]:
    """(median ms, 90th percentile ms, a frame from mid-hand) over ``frames`` random steps."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    times, keep = [], None
    while len(times) < frames:
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            t = time.perf_counter()
            frame = env.render()
            times.append(time.perf_counter() - t)
            if keep is None and len(times) >= min(30, frames // 2) and not (term or trunc):
                keep = frame
            if len(times) >= frames:
                break
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        else:
            env.reset()
    ms = np.array(times) * 1000
    return float(np.median(ms)), float(np.percentile(ms, 90)), keep if keep is not None else frame


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seats", type=int, nargs="+", default=[2, 4, 8, 12])
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--rules", default="spanish")
    ap.add_argument("--out", default=None, help="write one frame a table size here (PNG)")
    args = ap.parse_args(argv)
    from PIL import Image

    from siete_env import env

    print(f"rgb_array frames, {args.rules} rules, {args.frames} frames each (median / p90 ms a frame)")
    for n in args.seats:
        e = env(num_players=n, rules=args.rules, render_mode="rgb_array")
        med, p90, frame = frames_ms(e, args.frames)
        print(f"  siete-env {n:>2} seats  {frame.shape[1]}x{frame.shape[0]}  {med:6.2f} / {p90:6.2f} ms")
        if args.out:
            Path(args.out).mkdir(parents=True, exist_ok=True)
            Image.fromarray(frame).save(Path(args.out) / f"frame-{args.rules}-{n}.png")
    try:
        from pettingzoo.classic import texas_holdem_v4
    except ImportError:  # pragma: no cover - pettingzoo[classic] not installed
        return 0
    e = texas_holdem_v4.env(render_mode="rgb_array")
    med, p90, frame = frames_ms(e, args.frames)
    print(f"  texas_holdem_v4  2 seats  {frame.shape[1]}x{frame.shape[0]}  {med:6.2f} / {p90:6.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
