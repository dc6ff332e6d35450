"""OpenSpiel's sampling algorithms on heads-up Siete y Media, scored by the exact evaluator.

    python benchmarks/openspiel_algorithms.py                      # 9 minutes per algorithm
    python benchmarks/openspiel_algorithms.py --budget 60 --checkpoints 20,60 --episodes 5000   # a quick look

Needs the ``openspiel`` extra (``pip install -e .[openspiel]``). Three parts:

1. **Cross-check.** Fixed baseline pairs are played through OpenSpiel's API
   (``python_siete_y_media``: chance nodes card by card, the policies as OpenSpiel policies via
   ``siete_env.openspiel.policy.to_openspiel``); the mean return must lie in the 95% interval
   around the exact expected value (``solve.expected_value``). ``threshold:5.5`` against
   ``banker:6`` in the single-stake game, and ``bold:5.5`` (it swaps every 4 and bets 5 on a
   7 or a figure) against ``banker:6`` with stakes 1-5, raises and the four-swap, which
   exercises the chance nodes where a swapped 4 comes back.
2. **Algorithms at equal wall-clock.** On the single-stake game (``bet_levels: [1]``,
   ``four_swap: off``, ``max_splits: 0``; ``recall=observation``: the information state is the
   observation and the legal actions, the abstraction CFR+ uses), OpenSpiel's C++
   outcome-sampling and external-sampling MCCFR (``pyspiel.OutcomeSamplingMCCFRSolver``,
   ``pyspiel.ExternalSamplingMCCFRSolver``) and this project's CFR+ (``siete_env.solve.cfr``) each
   run for ``--budget`` seconds; at each checkpoint the clock stops and the average policy's
   **exact NashConv** in the full game is measured (``solve.nash_conv`` of the policies turned
   into ``action_probs`` policies by ``siete_env.openspiel.policy.from_openspiel``).
3. **PPO self-play**: the deleted pools learner's ``selfplay.yaml`` (8 generations, ~9 min; at
   b2100ec, docs/experiments.md#the-pools-learner): the figures measured then are printed and
   labelled as such, or a finished run's on this game are read from its ``state.json`` with
   ``--ppo-run RUN_DIR`` (``--ppo-minutes``: its wall-clock).

Prints the tables; ``--json PATH`` writes them.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import siete_env.openspiel  # noqa: F401  (registers python_siete_y_media)
from agents.specs import make_agent
from siete_env import raw_env
from siete_env.openspiel.policy import from_openspiel, sample_returns, to_openspiel
from siete_env.openspiel.solvers import solvers

SINGLE = {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0}
SINGLE_PARAM = "bet_levels:[1] four_swap:off max_splits:0"
STAKES_SWAP = {"preset": "spanish", "max_splits": 0}
STAKES_SWAP_PARAM = "max_splits:0"
# the pools learner's selfplay.yaml (deleted after b2100ec), seed 0, as measured then (8 generations, 9.2 min with
# the 25-pairing report): the NashConv of each generation's pair and of the final pair (the
# least exploitable mixture of the 8 snapshots).
PPO_MEASURED = {
    "minutes": 9.2,
    "per_generation": [0.209, 0.156, 0.078, 0.080, 0.033, 0.029, 0.023, 0.023],
    "final": 0.0172,
}


def cross_check(episodes: int, seed: int) -> list[dict[str, Any]]:
    solve, _ = solvers()
    rows = []
    for label, rules, param, punter_spec in (
        ("single stake", SINGLE, SINGLE_PARAM, "threshold:5.5"),
        ("stakes 1-5, raises, four-swap", STAKES_SWAP, STAKES_SWAP_PARAM, "bold:5.5"),
    ):
        game = pyspiel.load_game("python_siete_y_media", {"rules": param})
        env = raw_env(num_players=2, rules=rules)
        punter, banker = make_agent(punter_spec, env), make_agent("banker:6", env)
        value = solve.expected_value(punter, banker, rules)
        t0 = time.perf_counter()
        r = sample_returns(game, to_openspiel({0: banker, 1: punter}, game), episodes, seed=seed)[:, 1]
        half = 1.96 * r.std(ddof=1) / np.sqrt(len(r))
        rows.append(
            {
                "rules": label,
                "pair": f"{punter_spec} vs banker:6",
                "exact_ev": value,
                "sampled_mean": float(r.mean()),
                "ci95": float(half),
                "inside": bool(abs(r.mean() - value) <= half),
                "episodes": episodes,
                "seconds": round(time.perf_counter() - t0, 1),
            }
        )
    return rows


def _measure(solve, game, policy) -> dict[str, float]:
    punter, banker = from_openspiel(policy, game, 1), from_openspiel(policy, game, 0)
    nc = solve.nash_conv(punter, banker, SINGLE)
    return {
        "nash_conv": nc.nash_conv,
        "ev": nc.ev,
        "punter_states": len(punter.probs),
        "banker_states": len(banker.probs),
        "unmatched": int((~punter.used).sum() + (~banker.used).sum()),
    }


def run_mccfr(kind: str, budget: float, checkpoints: list[float], seed: int) -> dict[str, Any]:
    solve, _ = solvers()
    game = pyspiel.load_game("python_siete_y_media", {"rules": SINGLE_PARAM, "recall": "observation"})
    solver = (
        pyspiel.OutcomeSamplingMCCFRSolver(game, seed=seed)
        if kind == "outcome"
        else pyspiel.ExternalSamplingMCCFRSolver(game, seed=seed)
    )
    points = []
    spent, cpu, iterations = 0.0, 0.0, 0
    for cp in checkpoints:
        t0, c0 = time.perf_counter(), time.process_time()
        while spent + (time.perf_counter() - t0) < cp:
            for _ in range(20):
                solver.run_iteration()
            iterations += 20
        spent += time.perf_counter() - t0
        cpu += time.process_time() - c0
        m0 = time.perf_counter()
        point = {
            "seconds": round(spent, 1),
            "cpu_seconds": round(cpu, 1),
            "iterations": iterations,
            **_measure(solve, game, solver.average_policy()),
        }
        point["measure_seconds"] = round(time.perf_counter() - m0, 1)
        points.append(point)
        print(f"  {kind}-sampling MCCFR {point}", flush=True)
    return {"algorithm": f"OpenSpiel {kind}-sampling MCCFR (C++)", "points": points}


def run_cfr_plus(budget: float, checkpoints: list[float]) -> dict[str, Any]:
    _, cfr = solvers()
    t_build, c_build = time.perf_counter(), time.process_time()
    solver = cfr.CFRPlus(SINGLE)
    spent = time.perf_counter() - t_build  # the enumeration is part of the algorithm's time
    cpu = time.process_time() - c_build
    points = []
    for cp in checkpoints:
        t0, c0 = time.perf_counter(), time.process_time()
        while spent + (time.perf_counter() - t0) < cp:
            solver.iterate()
        spent += time.perf_counter() - t0
        cpu += time.process_time() - c0
        nc = solver.measure()
        point = {
            "seconds": round(spent, 1),
            "cpu_seconds": round(cpu, 1),
            "iterations": solver.t,
            "nash_conv": nc.nash_conv,
            "ev": nc.ev,
        }
        points.append(point)
        print(f"  CFR+ {point}", flush=True)
    return {"algorithm": "CFR+ (siete_env.solve.cfr, exact enumeration)", "points": points}


def ppo_figures(run: str | None, minutes: float | None) -> dict[str, Any]:
    if run:
        state = json.loads((Path(run) / "state.json").read_text())
        return {
            "algorithm": "self-play (train.py)",
            "source": f"{run}/state.json",
            "minutes": minutes if minutes is not None else "?",
            "per_generation": [round(g["nash_conv"], 4) for g in state["nash_conv"]],
            "final": round(state["final"]["nash_conv"], 4) if "final" in state else state["nash_conv"][-1]["nash_conv"],
        }
    return {
        "algorithm": "PPO self-play (the pools learner's selfplay.yaml, deleted after b2100ec)",
        "source": "docs/experiments.md#the-pools-learner (measured earlier, not re-run here)",
        **PPO_MEASURED,
    }


def _fmt(x: float) -> str:
    return f"{x:.4f}" if abs(x) < 10 else f"{x:.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=540.0, help="seconds per algorithm (default 540 = 9 min)")
    ap.add_argument("--checkpoints", default="60,180,540", help="seconds at which NashConv is measured")
    ap.add_argument("--episodes", type=int, default=100_000, help="episodes per cross-check pair")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: check, outcome, external, cfr")
    ap.add_argument(
        "--ppo-run", default=None, help="a finished run folder on this game to read the self-play figures from"
    )
    ap.add_argument("--ppo-minutes", type=float, default=None, help="that run's wall-clock, minutes")
    ap.add_argument("--json", default=None, help="write the results here")
    args = ap.parse_args(argv)
    checkpoints = sorted({float(x) for x in args.checkpoints.split(",")} | {args.budget})
    checkpoints = [c for c in checkpoints if c <= args.budget]
    skip = set(filter(None, args.skip.split(",")))
    out: dict[str, Any] = {"budget_seconds": args.budget, "checkpoints": checkpoints, "rules": SINGLE}

    if "check" not in skip:
        print(f"Cross-check: returns sampled through OpenSpiel ({args.episodes} episodes) vs the exact EV", flush=True)
        out["cross_check"] = cc = cross_check(args.episodes, args.seed)
        print("| rules | pair | exact EV | sampled mean ± 95% | inside |")
        print("| --- | --- | ---: | ---: | --- |")
        for r in cc:
            print(
                f"| {r['rules']} | {r['pair']} | {r['exact_ev']:+.4f} | {r['sampled_mean']:+.4f} ± {r['ci95']:.4f} "
                f"| {'yes' if r['inside'] else 'NO'} |"
            )
    runs = []
    for kind in ("outcome", "external"):
        if kind not in skip:
            print(f"{kind}-sampling MCCFR for {args.budget:.0f} s", flush=True)
            runs.append(run_mccfr(kind, args.budget, checkpoints, args.seed))
    if "cfr" not in skip:
        print(f"CFR+ for {args.budget:.0f} s", flush=True)
        runs.append(run_cfr_plus(args.budget, checkpoints))
    out["runs"] = runs
    out["ppo"] = ppo = ppo_figures(args.ppo_run, args.ppo_minutes)
    print(f"\nExact NashConv (chips per hand) at equal wall-clock, single-stake heads-up game, {SINGLE}")
    head = " | ".join(f"{c:.0f} s" for c in checkpoints)
    print(f"| algorithm | {head} | iterations at {checkpoints[-1]:.0f} s | CPU seconds at {checkpoints[-1]:.0f} s |")
    print("| --- |" + " ---: |" * (len(checkpoints) + 2))
    for run in runs:
        cells = " | ".join(_fmt(p["nash_conv"]) for p in run["points"])
        last = run["points"][-1]
        print(f"| {run['algorithm']} | {cells} | {last['iterations']} | {last['cpu_seconds']} |")
    print(
        f"| {ppo['algorithm']}: {ppo['minutes']} min, final pair {ppo['final']} "
        f"(per generation {', '.join(map(str, ppo['per_generation']))}; {ppo['source']}) |"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
        print(f"written {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
