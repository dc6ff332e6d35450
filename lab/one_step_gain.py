"""Each role's one-step gain against a pair of networks (``training.selection``: what
``evaluation.select: one_step`` ranks candidates by), for run folders or their
``gen_NNN`` folders (``punter.zip`` and ``banker.zip``): the measure checked against the
learned best responses of
docs/experiments.md#choosing-the-final-pair-by-its-one-step-gains-evaluationselect-one_step.

    python lab/one_step_gain.py RUN_OR_GEN_FOLDER ... [--rules spanish] [--players 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--rules", default="spanish")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import torch
    from sb3_contrib import MaskablePPO

    from training.selection import one_step_gains
    from training.vine import actor

    torch.set_num_threads(1)
    for d in args.folders:
        t0 = time.perf_counter()
        p, b = (actor(MaskablePPO.load(d / f"{r}.zip", device="cpu").policy) for r in ("punter", "banker"))
        g = one_step_gains({"preset": args.rules}, args.players, p, b, args.seed)
        print(f"{d}: a punter's one-step gain {g.punter:+.4f}, the bank's {g.banker:+.4f} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
