"""How much the final mixture gains from snapshots taken within generations
(``vine.snapshot_every``): the least exploitable mixture (``siete_env.solve.mixture``, as
``train.py`` chooses it) of a run's generation snapshots plus a chosen subset of the
snapshots it took within its last generations, each subset measured exactly.

    python train.py --set vine.snapshot_every=4 vine.snapshot_generations=3 threads=1 --run-dir runs/snaps-s0
    python benchmarks/snapshot_mixtures.py runs/snaps-s0 --subset 1:12 --subset 1:8 --subset 1:4 --subset 3:4

``--subset G:K`` adds, to the generation snapshots, the snapshots within the last ``G``
generations taken every ``K`` iterations (``K`` a multiple of the run's own
``vine.snapshot_every``); ``0:0`` is the generation snapshots alone (the run's own mixture
without any within). Every pair is evaluated once (about 15 s each with ``--workers 2``;
the banker's table is 220 MB in memory per snapshot). Prints one line per subset: the
mixture's exact NashConv and both best-response gains. The figures of
docs/results.md ("Snapshots within the last generation") come from this script.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path, help="a run folder whose state.json lists snapshots within generations")
    ap.add_argument("--subset", action="append", default=[], metavar="G:K", help="last G generations, every K")
    ap.add_argument("--mixture-iterations", type=int, default=30, help="best responses per side (make train's 30)")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)

    import numpy as np
    import yaml

    from agents.learned import table_workers
    from agents.specs import AgentSpec, make_agent
    from siete_env import raw_env, solve
    from siete_env.solve.mixture import Population
    from training.config import TrainConfig
    from training.runs import RunState

    cfg = TrainConfig(**yaml.safe_load((a.run / "config.yaml").read_text()))
    state = RunState.load(a.run)
    ev = solve.evaluator(cfg.rules)
    table = raw_env(num_players=2, rules=cfg.rules)
    sample = cfg.opponents.sample
    n = state.generation
    pairs: dict[tuple[int, int], tuple] = {}  # (generation, iteration) -> (punter agent, banker agent, evaluation)

    def evaluated(key: tuple[int, int], p: str, b: str):
        if key not in pairs:
            t = time.perf_counter()
            pa = make_agent(AgentSpec.model(a.run / p, sample), table)
            ba = make_agent(AgentSpec.model(a.run / b, sample), table)
            with table_workers(a.workers):
                pe = solve.evaluate_pair(pa, ba, ev)
            pe = pe._replace(br_hit=None, hit=np.asarray(pe.hit, np.float32))  # what the mixture keeps: a quarter
            pairs[key] = (pa, ba, pe)
            print(f"  pair {key}: NashConv {pe.result.nash_conv:.4f} ({time.perf_counter() - t:.0f} s)", flush=True)
        return pairs[key]

    its = cfg.vine.iterations
    gens = [
        ((g, its), p, b) for g, (p, b) in enumerate(zip(state.punter_snapshots, state.banker_snapshots, strict=True), 1)
    ]
    for spec in a.subset or ["0:0"]:
        last, every = (int(x) for x in spec.split(":"))
        within = [
            ((x["generation"], x["iteration"]), x["punter"], x["banker"])
            for x in state.iterates
            if last and x["generation"] > n - last and x["iteration"] % every == 0
        ]
        members = sorted(gens + within, key=lambda m: m[0])  # in the order the run made them
        pop = Population(ev)
        for key, p, b in members:
            pa, ba, pe = evaluated(key, p, b)
            pop.add_evaluated(pa, ba, pe, (p, b))
        t = time.perf_counter()
        wp, wb = pop.least_exploitable(iterations=a.mixture_iterations)
        r = pop.mixture(wp, wb).result
        print(
            f"generations + within the last {last} every {every} ({len(members)} pairs): NashConv {r.nash_conv:.4f} "
            f"(a best-responding punter gains {r.punter_br_value - r.ev:.4f}, a banker {r.ev + r.banker_br_value:.4f}; "
            f"within {sum(pop.gaps.values()):.4f} of the least exploitable mixture of these pairs; "
            f"{time.perf_counter() - t:.0f} s)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
