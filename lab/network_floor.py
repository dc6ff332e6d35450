"""How close one network of the learners' shape can come to an equilibrium banker: the
banker of a reference equilibrium (``evaluate.py --solve``) distilled into a network
(``training.distill``, as the pretrained pair's banker is made), then the pair (the
reference's punter, that network) measured exactly.

    python evaluate.py --solve runs/eq.npz --rule preset=spanish --rule max_splits=0 --iterations 200
    python lab/network_floor.py runs/eq.npz runs/default-s0/gen_006/banker.zip

The second argument gives the network's shape and starting weights (any banker snapshot of
the rules). Prints the fit's error and the pair's exact values: the punter's best-response
gain against the distilled banker is what that one network leaves to an exploiter (the
reference's own banker leaves about NashConv / 2). The figures of docs/results.md ("What one
network can do") come from this script.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("solution", type=Path, help="a reference equilibrium (evaluate.py --solve OUT.npz)")
    ap.add_argument("start", type=Path, help="a banker network (e.g. a run's gen_006/banker.zip)")
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--epochs", type=int, default=20)
    a = ap.parse_args(argv)

    from agents.learned import load_policy
    from agents.pretrained import PretrainedPair
    from agents.specs import make_agent
    from siete_env import raw_env, solve
    from training.distill import distill_banker
    from training.ship import exact_values

    t = time.perf_counter()
    rules = solve.load_tables(a.solution).rules
    ev = solve.evaluator(rules)
    eq = make_agent(f"cfr:{a.solution}", raw_env(num_players=2, rules=rules))
    bet, draw = ev.punter_table(eq)
    tables = SimpleNamespace(rules=ev.rules.model_dump(mode="json"), ev=ev, bet=bet, draw=draw, hit=ev.banker_table(eq))
    banker, info = distill_banker(tables, load_policy(str(a.start)), samples=a.samples, epochs=a.epochs)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "pair.npz"
        PretrainedPair(tables.rules, bet, draw, banker).save(path)
        values = exact_values(path)
    gain = values["punter_br_value"] - values["ev"]
    print(json.dumps({"fit": info, "exact": values, "punter_gain_against_the_network": gain}, indent=1))
    print(
        f"one network as the banker: a best-responding punter gains {gain:.4f} chips per hand "
        f"(mean error of the hit probability {info['mae_after']:.4f}; {time.perf_counter() - t:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
