"""Evaluate agents: head-to-head matches and round-robin tournaments by role.

    python evaluate.py --punters threshold:5.5 bold:5.5 --bankers banker:6 smart:6
    python evaluate.py --punters ppo:runs/default-s0/punter.zip --bankers smart:6 --hands 500000
    python evaluate.py --run runs/default-s0            # re-make a training run's report
    python evaluate.py --rules italian --players 4 --punters threshold:5 --bankers banker:6

Every punter spec plays every banker spec (the banker in seat 0, the punter spec in every
other seat) for ``--hands`` hands on common decks (same ``--seed``); results are mean
chips per hand with 95% confidence intervals. Output: a table in the terminal, and with
``--json``/``--csv``/``--plots`` files; ``--maps`` also draws the agents' strategies.
Agent specs: see ``agents/specs.py`` (``random``, ``threshold:T``, ``banker:B``,
``smart:B``, ``bold:T``, ``ppo:PATH.zip[:sample]``, ``rllib:CHECKPOINT[:sample]``).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

from agents.specs import check_spec, make_agent
from agents.tournament import Estimate, MatchResult, Tournament, play_match, round_robin


# --------------------------------------------------------------------------- tables
def _label(spec: str, names: dict[str, str]) -> str:
    return names.get(spec, spec)


def matrix_rows(t: Tournament, names: dict[str, str] | None = None) -> list[list[str]]:
    """Rows: punters; columns: bankers; cells: the punter's mean chips per hand ± CI."""
    names = names or {}
    rows = [["punter \\ banker", *(_label(b, names) for b in t.bankers)]]
    for p in t.punters:
        rows.append([_label(p, names), *(str(t.results[(p, b)].punter) for b in t.bankers if (p, b) in t.results)])
    return rows


def print_table(rows: list[list[str]], title: str = "") -> None:
    try:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title or None)
        for i, h in enumerate(rows[0]):
            table.add_column(h, justify="left" if i == 0 else "right")
        for r in rows[1:]:
            table.add_row(*r)
        Console(width=max(100, 18 * len(rows[0]))).print(table)
    except ImportError:
        print(title)
        for r in rows:
            print("  ".join(f"{c:>18s}" for c in r))


def markdown_table(rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(rows[0]) + " |", "| " + " | ".join(["---"] + ["---:"] * (len(rows[0]) - 1)) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(out)


def write_csv(path: Path, results: list[MatchResult]) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["banker", "punter", "rules", "num_players", "hands", "seed", "seat", "mean", "ci95", "sd"])
        for r in results:
            for s, est in enumerate(r.seats):
                w.writerow([r.banker, r.punters[s - 1] if s else r.banker, r.rules, r.num_players, r.hands, r.seed,
                            s, f"{est.mean:.6f}", f"{est.ci95:.6f}", f"{est.sd:.6f}"])  # fmt: skip


# --------------------------------------------------------------------------- the criterion of a run
def worst_cases(t: Tournament, learned_punter: str, learned_banker: str) -> dict[str, Any]:
    """Each punter's worst result against the baseline bankers, each banker's worst
    against the baseline punters, and whether the learned policies' worst beats every
    baseline's worst with non-overlapping 95% confidence intervals."""
    base_p = [p for p in t.punters if p != learned_punter]
    base_b = [b for b in t.bankers if b != learned_banker]

    def worst_p(p: str) -> tuple[str, Estimate]:
        b = min(base_b, key=lambda b: t.results[(p, b)].punter.mean)
        return b, t.results[(p, b)].punter

    def worst_b(b: str) -> tuple[str, Estimate]:
        p = min(base_p, key=lambda p: t.results[(p, b)].banker_result.mean)
        return p, t.results[(p, b)].banker_result

    out: dict[str, Any] = {"punters": {}, "bankers": {}}
    for p in t.punters:
        b, est = worst_p(p)
        out["punters"][p] = {"against": b, "mean": est.mean, "ci95": est.ci95}
    for b in t.bankers:
        p, est = worst_b(b)
        out["bankers"][b] = {"against": p, "mean": est.mean, "ci95": est.ci95}
    for role, learned, base in (("punters", learned_punter, base_p), ("bankers", learned_banker, base_b)):
        mine = out[role][learned]
        # the baseline whose interval reaches highest: the learned interval must clear every one
        best_base = max(base, key=lambda s: out[role][s]["mean"] + out[role][s]["ci95"])
        bb = out[role][best_base]
        margin = (mine["mean"] - mine["ci95"]) - (bb["mean"] + bb["ci95"])
        out[f"{role}_criterion"] = {
            "met": margin > 0,
            "learned_worst": mine,
            "best_baseline": best_base,
            "best_baseline_worst": bb,
            "margin_between_intervals": margin,
        }
    return out


def _criterion_text(wc: dict[str, Any], role: str, names: dict[str, str]) -> str:
    c = wc[f"{role}_criterion"]
    m, b = c["learned_worst"], c["best_baseline_worst"]
    verdict = "MET" if c["met"] else "NOT MET"
    learned = "learned punter" if role == "punters" else "learned banker"
    return (
        f"**{verdict}** — {learned}'s worst: {m['mean']:+.4f} ± {m['ci95']:.4f} (against "
        f"{_label(m['against'], names)}); best baseline worst: "
        f"{_label(c['best_baseline'], names)} {b['mean']:+.4f} ± {b['ci95']:.4f} (against {_label(b['against'], names)}); "
        f"gap between the intervals: {c['margin_between_intervals']:+.4f}"
    )


# --------------------------------------------------------------------------- a training run's report
def final_specs(run_dir: Path, state: dict[str, Any]) -> tuple[str, str]:
    """The agent specs of a run's final punter and banker: its mixture of snapshots
    (``evaluation.select: mixture``; one table file plays both seats) or its two models."""
    if state.get("final") and (run_dir / "final.npz").is_file():
        spec = f"table:{run_dir / 'final.npz'}"
        return spec, spec
    return f"ppo:{run_dir / 'punter.zip'}", f"ppo:{run_dir / 'banker.zip'}"


def run_report(cfg, run_dir: Path, state: dict[str, Any], train_seconds: float | None = None) -> dict[str, Any]:
    """The final report of a training run: the round robin of the learned policies and
    the baselines, worst cases, training throughput, learning curves, strategy maps."""
    e = cfg.evaluation
    t0 = time.perf_counter()
    lp, lb = final_specs(run_dir, state)
    names = {lp: "learned punter", lb: "learned banker"} if lp != lb else {lp: "learned mixture"}
    punters, bankers = [*e.punters, lp], [*e.bankers, lb]
    n_pairs = len(punters) * len(bankers)
    print(f"evaluating: {n_pairs} pairings x {e.hands:,} hands ({e.workers} workers)")
    bar = _bar(n_pairs)
    t = round_robin(punters, bankers, rules=cfg.rules, num_players=cfg.num_players, hands=e.hands, seed=e.seed,
                    workers=e.workers, progress=lambda r: bar.update(1))  # fmt: skip
    bar.close()
    wc = worst_cases(t, lp, lb)
    final_nc = _final_nash_conv(cfg, lp, lb)
    eval_seconds = time.perf_counter() - t0
    steps = state["learn_steps"]
    secs = state["learn_seconds"]
    throughput = {r: steps[r] / secs[r] if secs[r] else None for r in ("punter", "banker")}
    # both learners run at once (parallel): the combined rate is over the wall time of learning
    total_steps, total_secs = sum(steps.values()), state.get("learn_wall_seconds") or sum(secs.values())
    report: dict[str, Any] = {
        "run": str(run_dir),
        "config": cfg.model_dump(),
        "generations": state["generation"],
        "train_seconds": train_seconds,
        "eval_seconds": eval_seconds,
        "learn_steps": steps,
        "learn_seconds": secs,
        "learn_wall_seconds": state.get("learn_wall_seconds"),
        "learn_steps_per_second": {**throughput, "overall": total_steps / total_secs if total_secs else None},
        "tournament": t.to_dict(),
        "worst_cases": wc,
        "curves": state["curves"],
        "nash_conv": state.get("nash_conv", []),
        "exact_note": state.get("exact_note"),
        "selected": state.get("selected"),
        "final": state.get("final") if lp.startswith("table:") else None,
        "final_nash_conv": final_nc,
    }
    plots = _plots(cfg, run_dir, t, state, names)
    report["plots"] = plots
    write_json(run_dir / "report.json", report)
    write_csv(run_dir / "results.csv", list(t.results.values()))
    rows = matrix_rows(t, names)
    md = _report_markdown(cfg, report, rows, wc, names)
    (run_dir / "report.md").write_text(md)
    print_table(rows, title=f"punter's mean chips per hand ± 95% CI ({e.hands:,} hands per pairing)")
    print("punter criterion: " + _criterion_text(wc, "punters", names).replace("**", ""))
    print("banker criterion: " + _criterion_text(wc, "bankers", names).replace("**", ""))
    tp = report["learn_steps_per_second"]
    print(
        f"training throughput (env steps per second during learn()): punter {tp['punter']:,.0f}, "
        f"banker {tp['banker']:,.0f}, both learners together {tp['overall']:,.0f}"
    )
    print(f"report: {run_dir / 'report.md'}")
    return report


def _bar(total: int):
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="pairing", dynamic_ncols=True)


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically: an interruption never leaves half a file."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str))
    tmp.replace(path)


def _plots(cfg, run_dir: Path, t: Tournament, state: dict[str, Any], names: dict[str, str]) -> list[str]:
    """Learning curves, the tournament matrix and strategy maps (PNG files)."""
    out: list[str] = []
    try:
        from agents import plots
    except ImportError:
        return out
    curves = state.get("curves", {})
    if curves.get("generation"):
        c = dict(curves)
        nc = state.get("nash_conv") or []
        if nc:
            c["nash_conv"] = [x["nash_conv"] for x in nc]
        plots.plot_learning_curves(c, str(run_dir / "learning_curves.png"))
        out.append("learning_curves.png")
    plots.plot_tournament(_matrix(t, names), str(run_dir / "tournament.png"))
    out.append("tournament.png")
    lp, lb = final_specs(run_dir, state)
    plan = [  # each punter against the learned banker / banker:6, each banker against the learned punter / threshold
        ("learned punter", lb, lp, "punter"),
        ("threshold:5.5", "banker:6", "threshold:5.5", "punter"),
        ("bold:5.5", "banker:6", "bold:5.5", "punter"),
        ("learned banker", lb, lp, "banker"),
        ("banker:6", "banker:6", "threshold:5.5", "banker"),
        ("smart:6", "smart:6", "threshold:5.5", "banker"),
    ]
    maps = record_maps(plan, cfg.rules, cfg.num_players, cfg.evaluation.seed, hands=cfg.evaluation.map_hands)
    plots.plot_strategy_maps(maps, str(run_dir / "strategy_maps.png"), title="learned policies and baselines")
    write_json(run_dir / "strategy_maps.json", maps)
    out.append("strategy_maps.png")
    return out


def _matrix(t: Tournament, names: dict[str, str] | None = None) -> dict[str, Any]:
    """The punter x banker matrix of a tournament, as ``agents.plots.plot_tournament`` takes it."""
    names = names or {}
    return {
        "punters": [_label(p, names) for p in t.punters],
        "bankers": [_label(b, names) for b in t.bankers],
        "mean": [
            [t.results[(p, b)].punter.mean if (p, b) in t.results else None for b in t.bankers] for p in t.punters
        ],
        "ci": [[t.results[(p, b)].punter.ci95 if (p, b) in t.results else None for b in t.bankers] for p in t.punters],
    }


def record_maps(plan: list[tuple[str, str, str, str]], rules: Any, num_players: int, seed: int,
                hands: int = 50_000) -> dict[str, Any]:  # fmt: skip
    """Strategy maps recorded in play: for each ``(label, banker, punter, role)`` the
    decisions of the ``role`` side in a match of ``hands`` hands."""
    from agents.strategy import StrategyRecorder
    from siete_env import raw_env

    table = raw_env(num_players=num_players, rules=rules)
    maps: dict[str, Any] = {}
    for label, banker, punter, role in plan:
        rec = StrategyRecorder(table, seats=(0,) if role == "banker" else tuple(range(1, num_players)))
        play_match(banker, punter, rules=rules, num_players=num_players, hands=hands, seed=seed, recorder=rec)
        maps[label] = rec.maps()
    return maps


def _final_nash_conv(cfg, punter: str, banker: str) -> dict[str, float] | None:
    """The exact NashConv of the final pair, when ``evaluation.exact`` and the rules are covered."""
    if not cfg.evaluation.exact or cfg.num_players != 2:
        return None
    from siete_env import exact, raw_env

    try:
        exact.check_rules(cfg.rules)
    except ValueError:
        return None
    table = raw_env(num_players=2, rules=cfg.rules)
    nc = exact.nash_conv(make_agent(punter, table), make_agent(banker, table), cfg.rules)
    return {"ev": nc.ev, "punter_br": nc.punter_br_value, "banker_br": nc.banker_br_value, "nash_conv": nc.nash_conv}


def _selected_text(cfg, report: dict[str, Any]) -> str:
    sel = report.get("selected") or {}
    fin = report.get("final")
    if fin:

        def members(role: str) -> str:
            w = sorted(fin["weights"][role].items(), key=lambda kv: -kv[1])
            return ", ".join(f"{k.split('/')[0]} {v:.2f}" for k, v in w if v >= 0.005)

        return (
            "- Final policies: **the least exploitable mixture of the snapshots** (`final.npz`, agent spec "
            "`table:final.npz`; siete_env.mixture: each hand plays one member, drawn by weight, realised as the "
            "equivalent table policy). Weights — punter: "
            + members("punter")
            + "; banker: "
            + members("banker")
            + f". `punter.zip` / `banker.zip` hold the heaviest members (generations {sel.get('punter')} / "
            f"{sel.get('banker')})."
        )
    if not sel:
        return ""
    how = (
        "the snapshot with the best worst-case lower bound against the evaluation baselines in the "
        f"per-generation evaluation ({cfg.evaluation.generation_hands:,} hands per pairing, other decks than below)"
        if cfg.evaluation.select == "best_worst"
        else "the last snapshot"
    )
    return f"- Final policies: punter from generation {sel.get('punter')}, banker from generation {sel.get('banker')} ({how})."


MILESTONES = (0.05, 0.01)  # NashConv targets, chips per hand (the first milestone, then the long run's)


def milestones(nash_conv: float) -> str:
    """How far a NashConv is from the targets, in words."""
    parts = [
        f"≤ {m}: met" if nash_conv <= m else f"≤ {m}: not met, {nash_conv - m:.4f} above ({nash_conv / m:.1f}x)"
        for m in MILESTONES
    ]
    return "Targets (NashConv, chips per hand): " + "; ".join(parts) + "."


def limits(fnc: dict[str, float]) -> str:
    """Where the final pair's NashConv comes from: each side's exploitability (what a best
    response to it gains over the pair's value)."""
    banker_side = fnc["punter_br"] - fnc["ev"]  # the punter's gain against the final banker
    punter_side = fnc["banker_br"] + fnc["ev"]  # the banker's gain against the final punter
    weaker = "banker" if banker_side >= punter_side else "punter"
    return (
        f"Where it comes from: a best-responding punter gains {banker_side:.4f} against the final banker, a "
        f"best-responding banker {punter_side:.4f} against the final punter; the {weaker} is the more exploitable side."
    )


def _report_markdown(cfg, report: dict[str, Any], rows, wc, names) -> str:
    tp = report["learn_steps_per_second"]
    e = cfg.evaluation
    lines = [
        f"# Training report — {cfg.name} (seed {cfg.seed})",
        "",
        f"Rules `{cfg.rules}`, {cfg.num_players} players; {report['generations']} generations; "
        f"punter {report['learn_steps']['punter']:,} and banker {report['learn_steps']['banker']:,} learner env steps.",
        "",
        f"- Training time: {report['train_seconds'] or 0:.0f} s; evaluation time: {report['eval_seconds']:.0f} s.",
        f"- **Training throughput** (env steps per second during `learn()`): punter {tp['punter']:,.0f}, "
        f"banker {tp['banker']:,.0f} (each in its own process); both learners together {tp['overall']:,.0f} "
        f"({report['learn_steps']['punter'] + report['learn_steps']['banker']:,} steps in "
        f"{report.get('learn_wall_seconds') or 0:.0f} s of learning).",
        _selected_text(cfg, report),
        "",
        f"## Round robin: the punter's mean chips per hand ± 95% CI ({e.hands:,} hands per pairing, common decks)",
        "",
        markdown_table(rows),
        "",
        "The banker's result in each pairing is the negative of the punter's (heads-up; zero-sum)."
        if cfg.num_players == 2
        else f"The banker's result in each pairing is −{cfg.num_players - 1}× the pooled punter mean (zero-sum).",
        "",
        "## Worst cases",
        "",
        "| agent | role | worst mean | 95% CI | against |",
        "| --- | --- | ---: | ---: | --- |",
    ]
    for role, key in (("punter", "punters"), ("banker", "bankers")):
        for spec, w in wc[key].items():
            lines.append(
                f"| {_label(spec, names)} | {role} | {w['mean']:+.4f} | ± {w['ci95']:.4f} | {_label(w['against'], names)} |"
            )
    lines += [
        "",
        "Worst results are over the **baseline** opponents (the learned opponent excluded).",
        "",
        "- Punter: " + _criterion_text(wc, "punters", names),
        "- Banker: " + _criterion_text(wc, "bankers", names),
        "",
    ]
    nc = report.get("nash_conv") or []
    if report.get("exact_note"):
        lines += ["## Exploitability", "", report["exact_note"] + " The heads-up game without splits is measured "
                  "exactly: configs/train/selfplay.yaml (one stake, self-play) and configs/train/exact.yaml (stakes, "
                  "swaps); see the README, 'How far training is from equilibrium'.", ""]  # fmt: skip
    fnc = report.get("final_nash_conv")
    if fnc:
        lines += [
            "## Exploitability of the final pair (exact)",
            "",
            f"EV (punter) {fnc['ev']:+.4f}; the punter's best response to the final banker {fnc['punter_br']:+.4f}; "
            f"the banker's best response to the final punter {fnc['banker_br']:+.4f}; "
            f"**NashConv {fnc['nash_conv']:.4f}** chips per hand (exploitability {fnc['nash_conv'] / 2:.4f}).",
            "",
            milestones(fnc["nash_conv"]) + " " + limits(fnc),
            "",
        ]
    if nc:
        lines += ["## Exploitability by generation (exact; each generation's newest pair)", "", "| generation | EV (punter) | punter BR | banker BR | NashConv |",
                  "| ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
        for x in nc:
            lines.append(
                f"| {x['generation']} | {x['ev']:+.4f} | {x['punter_br']:+.4f} | {x['banker_br']:+.4f} | {x['nash_conv']:.4f} |"
            )
        lines.append("")
    if report.get("plots"):
        lines += ["## Plots", ""] + [f"![{p}]({p})" for p in report["plots"]] + [""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- CLI
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--punters", nargs="+", default=["threshold:5.5"], metavar="SPEC")
    ap.add_argument("--bankers", nargs="+", default=["banker:6"], metavar="SPEC")
    ap.add_argument("--rules", default="spanish", help="preset name or rules YAML (default spanish)")
    ap.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="a rule option on the preset, e.g. --rule max_splits=0 (repeatable)",
    )
    ap.add_argument(
        "--exact",
        action="store_true",
        help="heads-up: exact EV, both best responses and NashConv of every pair (siete_env.exact)",
    )
    ap.add_argument(
        "--solve",
        type=Path,
        metavar="OUT.npz",
        help="heads-up: compute a CFR+ reference equilibrium of the rules (siete_env.cfr), measure its "
        "exact NashConv, save it (play it with the agent spec cfr:OUT.npz)",
    )
    ap.add_argument("--iterations", type=int, default=200, help="CFR+ iterations for --solve (default 200)")
    ap.add_argument("--every", type=int, default=25, help="with --solve: measure NashConv every N iterations")
    ap.add_argument("--players", type=int, default=2, help="table size (default 2)")
    ap.add_argument("--hands", type=int, default=200_000, help="hands per pairing (default 200000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write the results as JSON")
    ap.add_argument("--csv", type=Path, help="write the results as CSV (one row per seat and pairing)")
    ap.add_argument("--plots", type=Path, help="folder for the tournament plot (and --maps)")
    ap.add_argument("--maps", action="store_true", help="draw the agents' strategy maps (needs --plots)")
    ap.add_argument("--run", type=Path, help="re-make the report of a training run folder")
    args = ap.parse_args(argv)
    try:
        if args.run:
            return _rerun(args.run)
        from siete_env.rules import resolve_rules

        args.rules = _rules_arg(args.rules, args.rule)
        resolve_rules(args.rules)
        for s in [*args.punters, *args.bankers]:
            check_spec(s)
        if args.hands < 1:
            raise ValueError("--hands must be at least 1")
        if not 2 <= args.players <= 12:
            raise ValueError(f"--players must be 2..12, got {args.players}")
        if args.seed < 0:
            raise ValueError(f"--seed must be a non-negative integer, got {args.seed}")
        if args.maps and not args.plots:
            raise ValueError("--maps draws into the --plots folder: give --plots DIR too")
        if (args.exact or args.solve) and args.players != 2:
            raise ValueError("--exact and --solve are heads-up only: use --players 2")
        if args.solve:
            return _solve(args)
        from siete_env import raw_env

        table = raw_env(num_players=args.players, rules=args.rules)
        for s in [*args.punters, *args.bankers]:
            if s.startswith(("ppo:", "rllib:")):
                make_agent(s, table)  # a model for another table or rules is refused here, by name
        if args.exact:
            return _exact(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    n_pairs = len(args.punters) * len(args.bankers)
    bar = _bar(n_pairs)
    t = round_robin(args.punters, args.bankers, rules=args.rules, num_players=args.players, hands=args.hands,
                    seed=args.seed, workers=args.workers, progress=lambda r: bar.update(1))  # fmt: skip
    bar.close()
    rows = matrix_rows(t)
    print_table(
        rows,
        title=f"punter's mean chips per hand ± 95% CI ({args.hands:,} hands per pairing, {args.rules}, {args.players} players)",
    )
    banker_rows = [["banker", "worst mean", "against"]]
    for b in t.bankers:
        w = t.banker_worst(b)
        banker_rows.append([b, str(w.banker_result), ", ".join(sorted(set(w.punters)))])
    punter_rows = [["punter", "worst mean", "against"]]
    for p in t.punters:
        w = t.punter_worst(p)
        punter_rows.append([p, str(w.punter), w.banker])
    print_table(punter_rows, title="each punter's worst result")
    print_table(banker_rows, title="each banker's worst result")
    if args.json:
        args.json.write_text(json.dumps(t.to_dict(), indent=2))
    if args.csv:
        write_csv(args.csv, list(t.results.values()))
    if args.plots:
        from agents import plots

        args.plots.mkdir(parents=True, exist_ok=True)
        plots.plot_tournament(_matrix(t), str(args.plots / "tournament.png"))
        if args.maps:
            plan = [(f"{p} (punter)", args.bankers[0], p, "punter") for p in args.punters]
            plan += [(f"{b} (banker)", b, args.punters[0], "banker") for b in args.bankers]
            maps = record_maps(plan, args.rules, args.players, args.seed)
            plots.plot_strategy_maps(maps, str(args.plots / "strategy_maps.png"))
        print(f"plots in {args.plots}")
    return 0


def yaml_value(raw: str) -> Any:
    """A command-line value read as YAML, except YAML 1.1's on/off/yes/no, which stay
    words (``four_swap=off`` is the option ``off``; pydantic reads them as booleans where
    a boolean is wanted)."""
    import yaml

    if raw.strip().lower() in ("on", "off", "yes", "no", "y", "n"):
        return raw.strip()
    try:
        return yaml.safe_load(raw)
    except yaml.YAMLError:
        return raw


def _rules_arg(rules: str, options: list[str]) -> str | dict[str, Any]:
    """``--rules`` plus ``--rule option=value`` overrides (YAML values) as a rules dict."""
    if not options:
        return rules

    from siete_env.rules import _is_path, load_rules_file

    spec: dict[str, Any] = load_rules_file(rules) if _is_path(rules) else {"preset": rules}
    for item in options:
        key, eq, raw = item.partition("=")
        if not eq or not key:
            raise ValueError(f"--rule {item!r} must look like option=value (e.g. max_splits=0)")
        spec[key.strip()] = yaml_value(raw)
    return spec


def exact_rows(punters: list[str], bankers: list[str], rules: Any) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """Exact EV, both best-response values and NashConv of every (punter, banker) pair
    (heads-up; rules the exact evaluator covers, see ``siete_env.exact.check_rules``)."""
    from agents.specs import make_agent
    from siete_env import exact, raw_env

    exact.check_rules(rules)
    table = raw_env(num_players=2, rules=rules)
    rows = [["punter", "banker", "EV (punter)", "punter BR", "banker BR", "NashConv", "exploitability", "seconds"]]
    out = []
    for p in punters:
        for b in bankers:
            t0 = time.perf_counter()
            nc = exact.nash_conv(make_agent(p, table, seed=0), make_agent(b, table, seed=0), rules)
            secs = time.perf_counter() - t0
            rows.append([p, b, f"{nc.ev:+.6f}", f"{nc.punter_br_value:+.6f}", f"{nc.banker_br_value:+.6f}",
                         f"{nc.nash_conv:.6f}", f"{nc.exploitability:.6f}", f"{secs:.1f}"])  # fmt: skip
            out.append({"punter": p, "banker": b, **nc._asdict(), "seconds": secs})
    return rows, out


def _exact(args) -> int:
    rows, out = exact_rows(args.punters, args.bankers, args.rules)
    print_table(rows, title=f"exact heads-up values, chips per hand ({args.rules})")
    print("EV: the punter's expected chips per hand; punter BR: the punter's best response to the banker; "
          "banker BR: the banker's own gain with its best response to the punter; NashConv = both gains.")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


def _solve(args) -> int:
    from siete_env import cfr, exact

    exact.check_rules(args.rules)
    if args.iterations < 1 or args.every < 0:
        raise ValueError("--iterations must be >= 1 and --every >= 0")
    print(f"CFR+ on heads-up {args.rules}: {args.iterations} iterations")
    print(f"{'iteration':>9}  {'seconds':>8}  {'NashConv':>10}")
    sol = cfr.solve(args.rules, args.iterations, args.every,
                    progress=lambda it, secs, nc: print(f"{it:>9}  {secs:>8.1f}  {nc:>10.6f}", flush=True))  # fmt: skip
    args.solve.parent.mkdir(parents=True, exist_ok=True)
    sol.save(args.solve)
    r = sol.result
    print(f"average strategy after {sol.iterations} iterations: NashConv {r.nash_conv:.6f} chips per hand "
          f"(exploitability {r.exploitability:.6f}); value for the punter {r.ev:+.6f}, between "
          f"{-r.banker_br_value:+.6f} (banker's best response) and {r.punter_br_value:+.6f} (punter's)")  # fmt: skip
    print(f"saved {args.solve}; play it with the agent spec cfr:{args.solve}")
    if args.json:
        write_json(args.json, {"rules": sol.rules, "iterations": sol.iterations, **r._asdict(),
                               "history": [dict(zip(("iteration", "seconds", "nash_conv"), h, strict=True)) for h in sol.history]})  # fmt: skip
    return 0


def _rerun(run_dir: Path) -> int:
    from train import load_config

    missing = [f for f in ("state.json", "config.yaml", "punter.zip", "banker.zip") if not (run_dir / f).exists()]
    if missing:
        print(f"error: {run_dir} is not a finished training run (missing {', '.join(missing)}); "
              f"an interrupted run goes on with: python train.py --resume {run_dir}", file=sys.stderr)  # fmt: skip
        return 2
    cfg = load_config(run_dir / "config.yaml")
    state = json.loads((run_dir / "state.json").read_text())
    run_report(cfg, run_dir, state)
    return 0


if __name__ == "__main__":
    sys.exit(main())
