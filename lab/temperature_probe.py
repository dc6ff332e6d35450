"""Exact NashConv of one generation's pair of a training run with the networks' output
logits divided by a temperature: how much of a pair's exploitability is sampling noise.

    python lab/temperature_probe.py RUN_DIR GENERATION [--pairs 1:1 0.5:1 1:0.5 0.5:0.5 0.25:0.25]

Each pair ``TP:TB`` plays the punter at temperature TP and the banker at TB (1: as
trained; lower: sharper). Prints NashConv and each side's best-response gain. The run's
rules must be covered by the exact evaluator (its ``config.yaml`` says them).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    from agents.learned import MLPPolicy, PPOAgent, load_policy
    from siete_env import raw_env, solve

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("generation", type=int)
    ap.add_argument("--pairs", nargs="+", default=["1:1", "0.5:1", "1:0.5", "0.5:0.5", "0.25:0.25"])
    args = ap.parse_args()
    rules = yaml.safe_load((args.run_dir / "config.yaml").read_text())["rules"]
    env, ev = raw_env(2, rules), solve.evaluator(rules)
    gen = args.run_dir / f"gen_{args.generation:03d}"
    pp, bp = load_policy(str(gen / "punter.zip")), load_policy(str(gen / "banker.zip"))

    def at(pol: MLPPolicy, tau: float) -> PPOAgent:
        layers = [(w.T.copy(), b.copy()) for w, b in pol.layers]
        layers[-1] = (layers[-1][0] / tau, layers[-1][1] / tau)
        return PPOAgent(env, MLPPolicy(layers, pol.activation), greedy=False)

    for pair in args.pairs:
        tp, tb = (float(x) for x in pair.split(":"))
        t = time.perf_counter()
        nc = solve.nash_conv(at(pp, tp), at(bp, tb), ev)
        print(f"tau punter {tp:g} banker {tb:g}: NashConv {nc.nash_conv:.4f}; the banker's best response gains "
              f"{nc.banker_br_value + nc.ev:.4f}, the punter's {nc.punter_br_value - nc.ev:.4f} "
              f"({time.perf_counter() - t:.0f} s)", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
