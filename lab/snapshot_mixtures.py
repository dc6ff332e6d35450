"""What the final mixture gains from more members: the least exploitable mixture
(``siete_env.solve.mixture``, as ``train.py`` chooses it) of a run's generation snapshots
plus a chosen subset of the snapshots it took within its last generations
(``vine.snapshot_every``), other runs' generation snapshots (``--pool``), and exact best
responses added by the double oracle (``--oracle-rounds``), each mixture measured exactly.

    python train.py --set vine.snapshot_every=4 vine.snapshot_generations=3 threads=1 --run-dir runs/snaps-s0
    python lab/snapshot_mixtures.py runs/snaps-s0 --subset 1:12 --subset 1:8 --subset 1:4 --subset 3:4
    python lab/snapshot_mixtures.py runs/long-s0 --pool runs/long-s1 --from-generation 11
    python lab/snapshot_mixtures.py runs/long-s0 --oracle-rounds 2

``--subset G:K`` adds, to the generation snapshots, the snapshots within the last ``G``
generations taken every ``K`` iterations (``K`` a multiple of the run's own
``vine.snapshot_every``); ``0:0`` is the generation snapshots alone (the run's own mixture
without any within). ``--pool RUN`` adds RUN's generation snapshots to every subset (the
rules must be the same); ``--from-generation G`` leaves out every run's generations before G.
``--oracle-rounds N``: after each subset's mixture, N rounds of the double oracle
(``Population.oracles``: each side's exact best response to the other side's strategy
that holds its members down, added as a member) with the mixture measured after each — a
diagnostic of what better members could give, not a policy training makes.
Every pair is evaluated once (about 15 s each with ``--workers 2``; its banker table is
kept in a temporary file, 220 MB each). Prints one line per mixture: its exact NashConv
and both best-response gains. Figures of docs/results.md ("Snapshots within the last
generation", "Beyond the mixture") come from this script.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path, help="a run folder (its state.json lists the snapshots)")
    ap.add_argument("--subset", action="append", default=[], metavar="G:K", help="last G generations, every K")
    ap.add_argument("--pool", action="append", default=[], type=Path, metavar="RUN",
                    help="another run whose generation snapshots join every subset")  # fmt: skip
    ap.add_argument("--from-generation", type=int, default=1, metavar="G", help="leave out the generations before G")
    ap.add_argument("--oracle-rounds", type=int, default=0, metavar="N", help="double-oracle rounds after each mixture")
    ap.add_argument("--mixture-iterations", type=int, default=30, help="best responses per side (make train's 30)")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)

    import numpy as np

    from agents.learned import table_workers
    from agents.specs import AgentSpec, make_agent
    from siete_env import raw_env, solve
    from siete_env.solve.mixture import Population
    from training.config import load_config
    from training.runs import RunState

    configs = {run: load_config(run / "config.yaml") for run in [a.run, *a.pool]}
    cfg = configs[a.run]
    for other in a.pool:
        if configs[other].rules != cfg.rules:
            ap.error(f"{other} was trained on other rules than {a.run}")
    ev = solve.evaluator(cfg.rules)
    table = raw_env(num_players=2, rules=cfg.rules)
    sample = cfg.opponents.sample
    pairs: dict[tuple, tuple] = {}  # (run, generation, iteration) -> (punter agent, banker agent, evaluation)
    banker_tables = tempfile.TemporaryDirectory(prefix="siete-mixtures-")  # not in RAM: 220 MB a pair

    def evaluated(key: tuple, p: str, b: str):
        run = key[0]
        if key not in pairs:
            t = time.perf_counter()
            pa = make_agent(AgentSpec.model(run / p, sample), table)
            ba = make_agent(AgentSpec.model(run / b, sample), table)
            with table_workers(a.workers):
                pe = solve.evaluate_pair(pa, ba, ev)
            path = Path(banker_tables.name) / f"{len(pairs)}.npy"
            np.save(path, np.asarray(pe.hit, np.float32))
            pe = pe._replace(br_hit=None, hit=np.load(path, mmap_mode="r"))  # what the mixture keeps
            pairs[key] = (pa, ba, pe)
            print(f"  pair {key[0].name} {key[1:]}: NashConv {pe.result.nash_conv:.4f} "
                  f"({time.perf_counter() - t:.0f} s)", flush=True)  # fmt: skip
        return pairs[key]

    def generations(run: Path) -> list[tuple]:
        st = RunState.load(run)
        its = configs[run].vine.iterations
        snaps = enumerate(zip(st.punter_snapshots, st.banker_snapshots, strict=True), 1)
        return [((run, g, its), p, b) for g, (p, b) in snaps if g >= a.from_generation]

    def report(pop: Population, label: str, t: float) -> None:
        wp, wb = pop.least_exploitable(iterations=a.mixture_iterations)
        r = pop.mixture(wp, wb).result
        print(
            f"{label}: NashConv {r.nash_conv:.4f} (a best-responding punter gains {r.punter_br_value - r.ev:.4f}, "
            f"a banker {r.ev + r.banker_br_value:.4f}; within {sum(pop.gaps.values()):.4f} of the least "
            f"exploitable mixture of these members; {time.perf_counter() - t:.0f} s)",
            flush=True,
        )

    state = RunState.load(a.run)
    n = state.generation
    gens = generations(a.run) + [m for other in a.pool for m in generations(other)]
    for spec in a.subset or ["0:0"]:
        last, every = (int(x) for x in spec.split(":"))
        within = [
            ((a.run, x["generation"], x["iteration"]), x["punter"], x["banker"])
            for x in state.iterates
            if last and x["generation"] > n - last and x["iteration"] % every == 0
        ]
        members = sorted(gens + within, key=lambda m: (str(m[0][0]), m[0][1:]))  # each run in the order it made them
        pop = Population(ev)
        for key, p, b in members:
            pa, ba, pe = evaluated(key, p, b)
            pop.add_evaluated(pa, ba, pe, (f"{key[0].name}/{p}", f"{key[0].name}/{b}"))
        label = f"generations + within the last {last} every {every}" + (
            f" + {len(a.pool)} pooled run(s)" if a.pool else ""
        )
        t = time.perf_counter()
        report(pop, f"{label} ({len(members)} pairs)", t)
        for r in range(1, a.oracle_rounds + 1):
            t = time.perf_counter()
            pop.add_pair(*pop.oracles(), (f"oracle {r}", f"oracle {r}"))
            report(pop, f"  + the double oracle's round {r} (exact best responses as members)", t)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
