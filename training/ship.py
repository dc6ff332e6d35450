"""Ship a training run's final pair as the pretrained agents (``pretrained:punter``,
``pretrained:banker``): the punter mixture's tables of its ``final.npz`` and one banker
network (the banker snapshot of weight 1, or one distilled from the banker mixture:
``training.distill``) into ``agents/pretrained/``, and beside it the exact values a test
re-measures (``tests/test_pretrained.py``).

    python -m training.ship runs/default-s0 [--command "make train"]
    python -m training.ship --refresh      # re-measure the shipped file's values only
    python -m training.ship runs/table4-s0 --name spanish-4 \
        --command "python train.py --config configs/train/table4.yaml"

A run that ends with its last snapshots (``evaluation.select: last``: the tables the exact
evaluator cannot reach) ships as a ``NetworkPair``: its final punter and banker networks,
read without unpickling, and beside them what the run's own report measured (the worst cases
of its round robin, the learned best responses' gains).

The values are exact (``siete_env.solve``, heads-up, the rules the file was solved for):
the pair's NashConv and both best-response values, and the pair's expected chips per hand
against every heuristic of the run's report (as punter against the heuristic bankers, as
banker against the heuristic punters).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

import numpy as np

from agents.specs import PRETRAINED_DIR as TARGET  # agents/pretrained/

__all__ = [
    "BANKERS", "PUNTERS", "STATED_DIGITS", "build_network_pair", "build_pair", "exact_values", "main", "report_figures",
    "ship_networks", "stated",
]  # fmt: skip

PUNTERS = ("random", "threshold:5", "threshold:5.5", "bold:5.5")
BANKERS = ("random", "banker:5.5", "banker:6", "smart:6")


STATED_DIGITS = 6  # what holds on every machine: the banker network's float32 probabilities
# and the compiled kernels round differently by processor (measured: ~1e-8 apart), so the
# file states 6 decimals and tests/test_pretrained.py allows that rounding and no more


def stated(x: float) -> float:
    """``x`` as the shipped file states it: rounded to ``STATED_DIGITS`` decimals."""
    return round(float(x), STATED_DIGITS)


def exact_values(path: Path) -> dict:
    """The exact values of the pretrained pair in ``path`` (to ``STATED_DIGITS`` decimals):
    one population holding the pair and the heuristics of each side, so every table is
    computed once (the banker network's over tens of millions of states is the dear one)."""
    from agents.pretrained import PretrainedPair
    from agents.specs import make_agent
    from siete_env import raw_env
    from siete_env.solve.mixture import Population
    from siete_env.solve.results import NashConv

    pair = PretrainedPair.load(path)
    env = raw_env(num_players=2, rules=pair.rules)
    agent = pair.agent(env, seed=0)
    pop = Population(pair.rules)
    pop.add_punter(agent, "pretrained")
    pop.add_banker(agent, "pretrained")
    for spec in PUNTERS:
        pop.add_punter(make_agent(spec, env, seed=0), spec)
    for spec in BANKERS:
        pop.add_banker(make_agent(spec, env, seed=0), spec)
    M = pop.matrix  # the punter's chips per hand, punters x bankers
    first_p = np.eye(len(pop.punters))[0]
    first_b = np.eye(len(pop.bankers))[0]
    nc = NashConv.of(float(M[0, 0]), pop.banker_worst(first_b)[0], -pop.punter_worst(first_p)[0])
    return {
        "nash_conv": stated(nc.nash_conv),
        "ev": stated(nc.ev),
        "punter_br_value": stated(nc.punter_br_value),
        "banker_br_value": stated(nc.banker_br_value),
        "as_punter_vs": {b: stated(M[0, 1 + j]) for j, b in enumerate(BANKERS)},
        "as_banker_vs": {p: stated(-M[1 + i, 0]) for i, p in enumerate(PUNTERS)},
    }


def build_pair(run: Path, samples: int = 1_000_000, epochs: int = 20):
    """The shipped form of a run's final pair: the punter mixture's tables from
    ``final.npz`` and one banker network (numpy weights): the banker snapshot of weight 1,
    or, where the final banker mixes several, one network distilled from their mixture
    (``training.distill``, from the heaviest member's weights). Returns the pair and what
    its banker is."""
    from agents.learned import load_policy
    from agents.pretrained import PretrainedPair
    from siete_env.solve import load_tables

    tables = load_tables(run / "final.npz")
    state = json.loads((run / "state.json").read_text())
    weights = state["final"]["weights"]["banker"]
    heavy = {k: w for k, w in weights.items() if w > 1e-9}
    first = max(heavy, key=heavy.get)
    if len(heavy) == 1:
        return PretrainedPair(
            tables.rules, tables.bet, tables.draw, load_policy(str(run / first))
        ), f"{first}, weight 1"
    from training.distill import distill_banker

    banker, info = distill_banker(tables, load_policy(str(run / first)), samples=samples, epochs=epochs)
    mix = ", ".join(f"{k} {w:.3f}" for k, w in heavy.items())
    what = (
        f"one network distilled from the mixture of {mix} (training.distill: {int(info['samples']):,} banker "
        f"states, {epochs} epochs, from {first}; mean error of the hit probability {info['mae_after']:.4f})"
    )
    return PretrainedPair(tables.rules, tables.bet, tables.draw, banker), what


def build_network_pair(run: Path):
    """A run's final networks (``punter.zip``, ``banker.zip``) as a ``NetworkPair`` for
    the run's table."""
    import yaml

    from agents.learned import load_policy
    from agents.pretrained import NetworkPair
    from siete_env.rules import resolve_rules

    cfg = yaml.safe_load((run / "config.yaml").read_text())
    rules = resolve_rules(cfg["rules"]).model_dump(mode="json")
    return NetworkPair(
        rules, int(cfg["num_players"]), load_policy(str(run / "punter.zip")), load_policy(str(run / "banker.zip"))
    )


def report_figures(run: Path) -> dict:
    """What the run's report measured, as the shipped JSON quotes it: each learned seat's
    worst result against the baselines and the learned best responses' gains."""

    def short(x: dict) -> dict:
        return {"mean": round(x["mean"], 4), "ci95": round(x["ci95"], 4)}

    rep = json.loads((run / "report.json").read_text())
    worst = rep["worst_cases"]
    out: dict = {}
    for side, key in (("punter", "punters"), ("banker", "bankers")):
        crit = worst[f"{key}_criterion"]
        out[f"{side}_worst"] = {"against": crit["learned_worst"]["against"], **short(crit["learned_worst"])}
        out[f"best_baseline_{side}"] = {
            "agent": crit["best_baseline"],
            "against": crit["best_baseline_worst"]["against"],
            **short(crit["best_baseline_worst"]),
        }
    out["learned_best_response_gain"] = {
        e["seat"]: short(e["gain"]) for e in rep.get("exploit") or [] if e["name"] == "final pair" and e.get("gain")
    }
    out["train_seconds"] = round(rep["train_seconds"])
    return out


def ship_networks(run: Path, name: str, command: str, commit: str) -> Path:
    """Write ``agents/pretrained/<name>.npz`` and ``<name>.json`` from a run that ends with
    its last snapshots."""
    pair = build_network_pair(run)
    dst = TARGET / f"{name}.npz"
    pair.save(dst)
    cfg = json.loads((run / "report.json").read_text())["config"]
    meta = {
        "file": dst.name,
        "kind": "networks",
        "what": f"the final punter and banker networks of the {cfg['name']} training run (its last generation), sampled",
        "command": command,
        "run": str(run),
        "commit": commit,
        "seed": cfg["seed"],
        "num_players": pair.num_players,
        "rules": pair.rules,
        "report": report_figures(run),
    }
    (TARGET / f"{name}.json").write_text(json.dumps(meta, indent=2) + "\n")
    return dst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", nargs="?", help="a run folder with final.npz (evaluation.select: mixture)")
    ap.add_argument("--refresh", action="store_true", help="re-measure the shipped file's exact values, nothing else")
    ap.add_argument("--command", default="make train", help="the command that made the run (recorded)")
    ap.add_argument("--commit", default=None, help="the commit the run was made on (default: HEAD)")
    ap.add_argument("--name", default="spanish-headsup")
    args = ap.parse_args(argv)
    if args.refresh:
        path = TARGET / f"{args.name}.json"
        meta = json.loads(path.read_text())
        meta["exact"] = exact_values(TARGET / meta["file"])
        path.write_text(json.dumps(meta, indent=2) + "\n")
        print(json.dumps(meta["exact"], indent=2))
        return 0
    if not args.run:
        ap.error("give a run folder (or --refresh)")
    commit = (
        args.commit
        or subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    src = Path(args.run) / "final.npz"
    if not src.is_file():
        if not (Path(args.run) / "punter.zip").is_file() or not (Path(args.run) / "report.json").is_file():
            ap.error(
                f"{args.run} has neither final.npz (a final mixture) nor punter.zip and report.json (a finished run)"
            )
        dst = ship_networks(Path(args.run), args.name, args.command, commit)
        print(f"wrote {dst} ({dst.stat().st_size / 1e6:.2f} MB) and {args.name}.json")
        return 0
    t = time.perf_counter()
    pair, banker = build_pair(Path(args.run))
    dst = TARGET / f"{args.name}.npz"
    pair.save(dst)
    values = exact_values(dst)
    state = json.loads((Path(args.run) / "state.json").read_text())
    meta = {
        "file": dst.name,
        "what": "the final pair of the default training run: the least exploitable mixture of its snapshots "
        f"(punter: their mixture's tables; banker: {banker})",
        "command": args.command,
        "run": str(args.run),
        "commit": commit,
        "rules": pair.rules,
        "run_nash_conv": state["final"]["nash_conv"],
        "mixture_weights": state["final"]["weights"],
        "exact": values,
        "measured_seconds": round(time.perf_counter() - t, 1),
    }
    (TARGET / f"{args.name}.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps(meta["exact"], indent=2))
    print(f"wrote {dst} ({dst.stat().st_size / 1e6:.1f} MB) and {args.name}.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
