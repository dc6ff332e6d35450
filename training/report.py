"""Round-robin tables and a training run's report (``report.md``, ``report.json``,
``results.csv``, plots): shared by ``train.py`` (at the end of a run) and ``evaluate.py``
(its tables; ``--run`` re-makes a run's report)."""

from __future__ import annotations

import csv
import io
import re
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agents.specs import AgentSpec, make_agent
from agents.tournament import Estimate, MatchResult, Tournament, play_match, round_robin
from siete_env.rules import resolve_rules

from .config import TrainConfig
from .outputs import write_atomic
from .runs import ROLES, RunState, final_specs, heaviest_member, write_json


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


def csv_text(results: list[MatchResult]) -> str:
    """The results as CSV, one row per seat and pairing."""
    f = io.StringIO(newline="")
    w = csv.writer(f)
    w.writerow(["banker", "punter", "rules", "num_players", "hands", "seed", "seat", "mean", "ci95", "sd"])
    for r in results:
        for s, est in enumerate(r.seats):
            w.writerow([r.banker, r.punters[s - 1] if s else r.banker, r.rules, r.num_players, r.hands, r.seed,
                        s, f"{est.mean:.6f}", f"{est.ci95:.6f}", f"{est.sd:.6f}"])  # fmt: skip
    return f.getvalue()


def write_csv(path: Path, results: list[MatchResult]) -> None:
    """``csv_text``, written atomically."""
    write_atomic(path, csv_text(results))


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


def _interval(mean: float, ci95: float, by: str) -> dict[str, Any]:
    return {"mean": mean, "ci95": ci95, "low": mean - ci95, "high": mean + ci95, "by": by}


def exploitability_vs_baselines(
    tournament: dict[str, Any], exploit: list[dict[str, Any]] | None, lp: str, lb: str, num_players: int
) -> dict[str, Any] | None:
    """Whether each learned policy is less exploitable than every baseline of its role,
    intervals apart, and each seat's learned gain per punter.

    A policy's exploitability is what a best response earns against it: in a punter's seat
    against a banker (the punter's result), in the bank against the punters (the bank's).
    For the learned policies that is the final pair's responders' result (``exploit``). For
    a baseline it is **at least** the best any policy of the round robin earns against it
    (the learned opponent included), or a responder's result where a line-up of
    ``exploit`` has that baseline frozen (``evaluation.exploit_others``, or
    ``benchmarks/baseline_exploit.py``): a lower bound, so "apart" means the learned
    policy's responder stays below it."""
    final = {r["seat"]: r for r in exploit or [] if r.get("name") == "final pair" and "learned" in r}
    if set(final) != {"banker", "punter"}:
        return None
    results = tournament["matches"]
    per_punter = num_players - 1
    out: dict[str, Any] = {}
    # (role, the responder's seat against it, the other role's key in a match)
    for role, br_seat, learned in (("banker", "punter", lb), ("punter", "banker", lp)):
        r = final[br_seat]["learned"]
        mine = _interval(r["mean"], r["ci95"], f"the {br_seat} responder")
        rows = []
        matches = [m for m in results if (m["banker"] if role == "banker" else m["punters"][0]) != learned]
        for base in dict.fromkeys(m["banker"] if role == "banker" else m["punters"][0] for m in matches):
            best = None
            for m in matches:
                me = m["banker"] if role == "banker" else m["punters"][0]
                if me != base:
                    continue
                est = m["punter"] if role == "banker" else m["banker_result"]
                other = m["punters"][0] if role == "banker" else m["banker"]
                if best is None or est["mean"] > best["mean"]:
                    best = _interval(est["mean"], est["ci95"], other)
            for x in exploit or []:
                frozen = x.get("banker") if role == "banker" else x.get("punters")
                if x.get("seat") == br_seat and frozen == base and "learned" in x and x.get("name") != "final pair":
                    g = x["learned"]
                    if best is None or g["mean"] > best["mean"]:
                        best = _interval(g["mean"], g["ci95"], f"a {br_seat} responder ({x['name']})")
            rows.append({"baseline": base, "bound": best, "apart": mine["high"] < best["low"]})
        gain = final[role]["gain"]
        scale = per_punter if role == "banker" else 1
        out[role] = {
            "learned": mine,
            "baselines": rows,
            "met": all(x["apart"] for x in rows),
            "gain_per_punter": _interval(gain["mean"] / scale, gain["ci95"] / scale, "the final pair's responder"),
        }
    return out


EXACT_TIE = 1e-9
"""Chips per hand within which two exact values are one: the same policy's value computed along
two paths (a pair's evaluation, a lone best response) may differ in the last bits."""


def exact_exploitability_vs_baselines(
    cfg: TrainConfig, lp: str, lb: str, fnc: dict[str, float] | None
) -> dict[str, Any] | None:
    """``exploitability_vs_baselines`` where the rules are measured exactly (heads-up,
    ``evaluation.exact``: ``fnc`` is the final pair's exact measure): every policy's
    exploitability is its exact best response's value (no interval), the baselines' as the
    learned policies', so "apart" is "below" (by more than ``EXACT_TIE``). ``None`` without
    an exact measure, or (with a message) if a baseline cannot be measured: the report goes on."""
    if fnc is None:
        return None
    from siete_env import raw_env, solve

    ev, table, e = solve.evaluator(cfg.rules), raw_env(num_players=2, rules=cfg.rules), cfg.evaluation
    exact = "the exact best response"
    out: dict[str, Any] = {"exact": True}
    # (role, its learned policy's exploitability, its baselines, the exact best response's gain in its seat)
    for role, value, bases, gain, learned in (
        ("banker", fnc["punter_br"], e.bankers, fnc["banker_br"] + fnc["ev"], lb),
        ("punter", fnc["banker_br"], e.punters, fnc["punter_br"] - fnc["ev"], lp),
    ):
        rows = []
        for base in dict.fromkeys(b for b in bases if b != learned):
            try:
                v = solve.best_response(make_agent(base, table), role, ev).value
            except Exception as err:  # noqa: BLE001 (after a finished training run, the report must not stop here)
                print(f"the exact verdict against the baselines is left out: {base} ({role}) was not measured: {err}")
                return None
            rows.append({"baseline": base, "bound": _interval(v, 0.0, exact), "apart": value < v - EXACT_TIE})
        out[role] = {
            "learned": _interval(value, 0.0, exact),
            "baselines": rows,
            "met": all(x["apart"] for x in rows),
            "gain_per_punter": _interval(gain, 0.0, exact),
        }
    return out


def exploitability_markdown(ex: dict[str, Any], names: dict[str, str], unit: str) -> list[str]:
    exact = bool(ex.get("exact"))
    lines = [
        "## Less exploitable than every baseline?",
        "",
        "A policy's exploitability is what a best response earns against it"
        + (
            f", here exactly ({unit} per hand: the punter's best response's result against a banker, the bank's "
            "against a punter); the learned policy is less exploitable where its value lies below the baseline's."
            if exact
            else ". The learned policies': the responders above. A baseline's: **at least** the best any policy of the "
            "round robin earns against it (or a responder against it, where one was measured); the learned policy is "
            f"less exploitable where its responder's interval lies below that bound's ({unit} per hand, 95% CI)."
        ),
        "",
        "| role | policy | what a best response earns against it"
        + ("" if exact else " (at least, for a baseline)")
        + f" | by | {'the learned below it' if exact else 'apart from the learned'} |",
        "| --- | --- | ---: | --- | --- |",
    ]

    def value(x: dict[str, Any]) -> str:
        return f"{x['mean']:+.4f}" if exact else f"{x['mean']:+.4f} ± {x['ci95']:.4f}"

    for role in ("banker", "punter"):
        x = ex[role]
        m = x["learned"]
        lines.append(f"| {role} | **learned {role}** | {value(m)} | {m['by']} | |")
        for b in x["baselines"]:
            bd = b["bound"]
            lines.append(
                f"| {role} | {_label(b['baseline'], names)} | {value(bd)} "
                f"| {_label(bd['by'], names)} | {'yes' if b['apart'] else '**no**'} |"
            )
    lines.append("")
    for role in ("banker", "punter"):
        x = ex[role]
        g = x["gain_per_punter"]
        not_apart = [_label(b["baseline"], names) for b in x["baselines"] if not b["apart"]]
        lines.append(
            f"- Learned {role}: less exploitable than every baseline {role}: **{'MET' if x['met'] else 'NOT MET'}**"
            + (f" (not {'below' if exact else 'apart'}: {', '.join(not_apart)})" if not_apart else "")
            + f"; {'the exact best response' if exact else 'a responder'} in the {role}'s seat gains {value(g)} "
            + f"per punter against the learned {'punters' if role == 'banker' else 'banker'} "
            + ("(≤ 0.05)" if g["mean"] <= 0.05 else "(**over 0.05**)")
        )
    lines.append("")
    return lines


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
def run_report(cfg: TrainConfig, run_dir: Path, state: RunState, train_seconds: float | None = None) -> dict[str, Any]:
    """The final report of a training run: the round robin of the learned policies and
    the baselines, worst cases, training throughput, learning curves, strategy maps."""
    e = cfg.evaluation
    t0 = time.perf_counter()
    lp, lb = final_specs(run_dir, state, cfg.opponents.sample)
    names = {lp: "learned punter", lb: "learned banker"} if lp != lb else {lp: "learned mixture"}
    punters, bankers = [*e.punters, lp], [*e.bankers, lb]
    n_pairs = len(punters) * len(bankers)
    print(f"evaluating: {n_pairs} pairings x {e.hands:,} hands ({e.workers} workers)")
    bar = progress_bar(n_pairs)
    t = round_robin(punters, bankers, rules=cfg.rules, num_players=cfg.num_players, hands=e.hands, seed=e.seed,
                    workers=e.workers, progress=lambda r: bar.update(1))  # fmt: skip
    bar.close()
    wc = worst_cases(t, lp, lb)
    final_nc = _final_nash_conv(cfg, lp, lb)
    exploit = _exploit(cfg, run_dir, lp, lb)
    eval_seconds = time.perf_counter() - t0
    steps = state.learn_steps
    secs = state.learn_seconds
    throughput = {r: steps[r] / secs[r] if secs[r] else None for r in ("punter", "banker")}
    # the combined rate is over the wall time of learning (both learners' turns)
    total_steps, total_secs = sum(steps.values()), state.learn_wall_seconds or sum(secs.values())
    report: dict[str, Any] = {
        "run": str(run_dir),
        "config": cfg.model_dump(),
        "generations": state.generation,
        "train_seconds": train_seconds,
        "eval_seconds": eval_seconds,
        "learn_steps": steps,
        "learn_seconds": secs,
        "learn_wall_seconds": state.learn_wall_seconds,
        "learn_steps_per_second": {**throughput, "overall": total_steps / total_secs if total_secs else None},
        "tournament": t.to_dict(),
        "worst_cases": wc,
        "curves": state.curves,
        "nash_conv": state.nash_conv,
        "iterates": state.iterates or None,
        "exact_note": state.exact_note,
        "selected": state.selected or None,
        "one_step": state.one_step or None,
        "final": asdict(state.final) if state.final and AgentSpec.parse(lp).kind == "table" else None,
        "final_nash_conv": final_nc,
        "exploit": exploit,
        "exploitability": exact_exploitability_vs_baselines(cfg, lp, lb, final_nc)
        or exploitability_vs_baselines(t.to_dict(), exploit, lp, lb, cfg.num_players),
        "reference": _reference(cfg),
        "wall_seconds": state.wall_seconds,
    }
    plots = _plots(cfg, run_dir, t, state, names, final_nc)
    report["plots"] = plots
    write_json(run_dir / "report.json", report)
    write_csv(run_dir / "results.csv", list(t.results.values()))
    rows = matrix_rows(t, names)
    md = _report_markdown(cfg, report, rows, wc, names)
    (run_dir / "report.md").write_text(md)
    print_table(rows, title=f"punter's mean {score_unit(cfg)} per hand ± 95% CI ({e.hands:,} hands per pairing)")
    print("punter criterion: " + _criterion_text(wc, "punters", names).replace("**", ""))
    print("banker criterion: " + _criterion_text(wc, "bankers", names).replace("**", ""))
    tp = report["learn_steps_per_second"]
    print(
        f"training throughput (env steps per second while learning): punter {tp['punter']:,.0f}, "
        f"banker {tp['banker']:,.0f}, both learners together {tp['overall']:,.0f}"
    )
    print(f"report: {run_dir / 'report.md'}")
    return report


def progress_bar(total: int):
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="pairing", dynamic_ncols=True)


def _plots(cfg: TrainConfig, run_dir: Path, t: Tournament, state: RunState, names: dict[str, str],
           final_nc: dict[str, float] | None = None) -> list[str]:  # fmt: skip
    """Learning curves, the tournament matrix and strategy maps (PNG files)."""
    out: list[str] = []
    try:
        from agents import plots
    except ImportError:
        return out
    curves = state.curves
    if curves.get("generation"):
        c = dict(curves)
        nc = state.nash_conv
        if nc:
            c["nash_conv"] = [x["nash_conv"] for x in nc]
        plots.plot_learning_curves(c, str(run_dir / "learning_curves.png"))
        out.append("learning_curves.png")
    # every measured pair in time order: the generations' and the snapshots within them (vine.snapshot_every)
    timed = sorted(
        (x for x in state.nash_conv + state.iterates if "wall_seconds" in x), key=lambda x: x["wall_seconds"]
    )
    if timed:
        ref = _reference(cfg)
        final = None
        if final_nc is not None:
            final = {cfg.name: (state.wall_seconds / 60, final_nc["nash_conv"])}
        plots.plot_nash_conv_time(
            {cfg.name: ([x["wall_seconds"] / 60 for x in timed], [x["nash_conv"] for x in timed])},
            str(run_dir / "nash_conv_time.png"),
            reference=(ref or {}).get("history"),
            reference_label=f"reference {(ref or {}).get('method', 'DCFR').upper()} ({(ref or {}).get('command', '')[:48]}…)",
            final=final,
            title=f"{cfg.name} (seed {cfg.seed}): exact NashConv against training time",
        )
        out.append("nash_conv_time.png")
    plots.plot_tournament(tournament_matrix(t, names), str(run_dir / "tournament.png"))
    out.append("tournament.png")
    lp, lb = final_specs(run_dir, state, cfg.opponents.sample)
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


def tournament_matrix(t: Tournament, names: dict[str, str] | None = None) -> dict[str, Any]:
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


def _final_nash_conv(cfg: TrainConfig, punter: str, banker: str) -> dict[str, float] | None:
    """The exact NashConv of the final pair, when ``evaluation.exact`` and the rules are covered."""
    if not cfg.evaluation.exact or cfg.num_players != 2:
        return None
    from siete_env import raw_env, solve

    try:
        solve.check_rules(cfg.rules)
    except ValueError:
        return None
    table = raw_env(num_players=2, rules=cfg.rules)
    nc = solve.nash_conv(make_agent(punter, table), make_agent(banker, table), cfg.rules)
    return {"ev": nc.ev, "punter_br": nc.punter_br_value, "banker_br": nc.banker_br_value, "nash_conv": nc.nash_conv}


def _exploit(cfg: TrainConfig, run_dir: Path, punter: str, banker: str) -> list[dict[str, Any]] | None:
    """Learned best responses in both seats against the final pair and the configured
    other line-ups (``evaluation.exploit_seconds``; ``training.exploit``)."""
    e = cfg.evaluation
    if e.exploit_seconds <= 0:
        return None
    from training.exploit import exploit_lineups

    lineups = [{"name": "final pair", "punter": punter, "banker": banker}, *e.exploit_others]
    print(f"approximate exploitability: {2 * len(lineups)} best responses learned for {e.exploit_seconds:.0f} s each "
          f"({e.workers} workers)")  # fmt: skip
    return exploit_lineups(lineups, cfg.rules, cfg.num_players, e.exploit_seconds, e.exploit_hands, e.seed,
                           run_dir / "exploit", e.workers, e.exploit_warm_start)  # fmt: skip


def exploit_markdown(rows: list[dict[str, Any]], seconds: float) -> list[str]:
    """The report's section on learned best responses (a row per line-up and seat)."""
    lines = [
        "## Approximate exploitability (learned best responses)",
        "",
        f"For each line-up, a best response learned for {seconds:.0f} s (the vine learner's branched steps, `training.exploit`) in "
        "the banker's seat and in a punter's seat against the frozen policies in the other seats; its **gain** over "
        "the frozen policy in that seat, on fresh hands dealt the same decks to both line-ups (paired, 95% CI). A "
        "learned gain is a **lower bound** on that seat's best-response gain (docs/exploit.md).",
        "",
        "| line-up | seat | frozen policy's result | responder's result | **gain** | steps | exact best-response gain |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    sums: dict[str, float] = {}
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['name']} | {r['seat']} | not measured: {r['error']} | | | | |")
            continue
        x = r.get("exact")
        exact = f"{x['best_response_gain']:.4f}" if x else "–"
        warm = " (warm start)" if r.get("started_from") else ""
        f, g, d = r["frozen"], r["learned"], r["gain"]
        lines.append(
            f"| {r['name']} | {r['seat']}{warm} | {f['mean']:+.4f} ± {f['ci95']:.4f} | {g['mean']:+.4f} ± {g['ci95']:.4f} "
            f"| **{d['mean']:+.4f} ± {d['ci95']:.4f}** | {r['train_steps']:,} | {exact} |"
        )
        sums[r["name"]] = sums.get(r["name"], 0.0) + max(d["mean"], 0.0)
    lines += [
        "",
        "Both seats' gains together (negative gains counted as 0), a lower bound on NashConv-like "
        "exploitability: " + "; ".join(f"{k} **{v:.4f}**" for k, v in sums.items()) + ".",
        "",
    ]
    return lines


def _reference(cfg: TrainConfig) -> dict[str, Any] | None:
    """The reference equilibrium of the run's rules (``siete_env.solve.reference``), if any."""
    if cfg.num_players != 2:
        return None
    from siete_env.solve.reference import reference

    ref = reference(cfg.rules)
    return asdict(ref) if ref is not None else None


def member_label(path: str) -> str:
    """A snapshot's short name: ``gen_006`` for ``gen_006/punter.zip``, ``gen_006 it 8`` for
    a snapshot within the generation (``gen_006/punter_it008.zip``: ``vine.snapshot_every``)."""
    folder, _, name = path.partition("/")
    it = re.search(r"_it(\d+)\.zip$", name)
    return f"{folder} it {int(it.group(1))}" if it else folder


def _selected_text(cfg: TrainConfig, report: dict[str, Any]) -> str:
    sel = report.get("selected") or {}
    fin = report.get("final")
    if fin:

        def members(role: str) -> str:
            w = sorted(fin["weights"][role].items(), key=lambda kv: -kv[1])
            return ", ".join(f"{member_label(k)} {v:.2f}" for k, v in w if v >= 0.005)

        return (
            "- Final policies: **the least exploitable mixture of the snapshots** (`final.npz`, agent spec "
            "`table:final.npz`; siete_env.solve.mixture: each hand plays one member, drawn by weight, realised as the "
            "equivalent table policy). Weights — punter: "
            + members("punter")
            + "; banker: "
            + members("banker")
            + ". `punter.zip` / `banker.zip` hold the heaviest members ("
            + " / ".join(member_label(heaviest_member(fin["weights"][r])) for r in ROLES)
            + ")."
        )
    if not sel:
        return ""
    how = (
        "the snapshot with the best worst-case lower bound against the evaluation baselines in the "
        f"per-generation evaluation ({cfg.evaluation.generation_hands:,} hands per pairing, other decks than below)"
        if cfg.evaluation.select == "best_worst"
        else "the last snapshot"
    )
    one_step = report.get("one_step") or []
    if cfg.evaluation.select == "one_step" and one_step:
        from training.selection import describe

        how = (
            "of the last generations' pairs, the one whose larger one-step gain is least (training.selection; "
            "a punter's / the bank's, chips a hand per punter: " + describe(one_step) + ")"
        )
    return f"- Final policies: punter from generation {sel.get('punter')}, banker from generation {sel.get('banker')} ({how})."


MILESTONES = (
    0.10,
    0.03,
    0.01,
)  # NashConv targets, chips per hand: make train's and long.yaml's (the stakes game), the one-stake game's


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


def score_unit(cfg: TrainConfig) -> str:
    """What a hand pays in these rules: ``chips`` (the banking game) or ``points``."""
    return "points" if resolve_rules(cfg.rules).scoring == "points" else "chips"


def _banker_sentence(cfg: TrainConfig) -> str:
    if score_unit(cfg) == "points":
        return (
            "A points game (all against all): each seat's result is its own points per hand; nobody loses "
            "points, so the banker's result is not the negative of the punters'."
        )
    if cfg.num_players == 2:
        return "The banker's result in each pairing is the negative of the punter's (heads-up; zero-sum)."
    return f"The banker's result in each pairing is −{cfg.num_players - 1}× the pooled punter mean (zero-sum)."


def _report_markdown(cfg: TrainConfig, report: dict[str, Any], rows, wc, names) -> str:
    tp = report["learn_steps_per_second"]
    e = cfg.evaluation
    unit = score_unit(cfg)
    lines = [
        f"# Training report — {cfg.name} (seed {cfg.seed})",
        "",
        f"Rules `{cfg.rules}`, {cfg.num_players} players; {report['generations']} generations; "
        f"punter {report['learn_steps']['punter']:,} and banker {report['learn_steps']['banker']:,} learner env steps.",
        "",
        "- Training time: "
        + (
            f"{report['train_seconds']:.0f} s"
            if report["train_seconds"] is not None
            else f"{report['wall_seconds'] or 0:.0f} s (as the run recorded it; this report re-made by `evaluate.py --run`)"
        )
        + f"; evaluation time: {report['eval_seconds']:.0f} s.",
        "- **Training throughput** (env steps per second while learning: the vine learner's iterations, "
        f"branches included): punter {tp['punter']:,.0f}, "
        f"banker {tp['banker']:,.0f} (each in its own process); both learners together {tp['overall']:,.0f} "
        f"({report['learn_steps']['punter'] + report['learn_steps']['banker']:,} steps in "
        f"{report.get('learn_wall_seconds') or 0:.0f} s of learning).",
        _selected_text(cfg, report),
        "",
        f"## Round robin: the punter's mean {unit} per hand ± 95% CI ({e.hands:,} hands per pairing, common decks)",
        "",
        markdown_table(rows),
        "",
        _banker_sentence(cfg),
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
    if not wc["bankers_criterion"]["met"]:
        c = wc["bankers_criterion"]
        better = c["learned_worst"]["mean"] > c["best_baseline_worst"]["mean"]
        lines += [
            "Note: the learned banker's worst result is "
            + ("better than the best baseline banker's, but the 95% intervals overlap." if better
               else f"**not better** than the best baseline banker's ({_label(c['best_baseline'], names)}).")
            + (
                " An equilibrium banker need not beat every heuristic's worst case; its exploitability is measured "
                "below: exactly where the rules are covered, by learned best responses where the config asks for them."
                if unit == "chips"
                else ""
            ),
            "",
        ]  # fmt: skip
    nc = report.get("nash_conv") or []
    if report.get("exploit"):
        lines += exploit_markdown(report["exploit"], e.exploit_seconds)
    if report.get("exploitability"):
        lines += exploitability_markdown(report["exploitability"], names, unit)
    if report.get("exact_note"):
        lines += ["## Exploitability", "", report["exact_note"] + " The heads-up game without splits is measured "
                  "exactly: configs/train/default.yaml (make train: stakes, swaps) and configs/train/smoke.yaml (one "
                  "stake); see docs/results.md, 'How far training is from equilibrium'.", ""]  # fmt: skip
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
        ref = report.get("reference")
        if ref:
            lines += [
                f"Reference equilibrium ({ref['method'].upper()}, NashConv {ref['nash_conv']}; `{ref['command']}`, "
                f"measured on {ref['measured_on']}): game value for the punter **{ref['value']:+.4f}** (between "
                f"{ref['value_low']:+.4f} and {ref['value_high']:+.4f}). The final pair's value {fnc['ev']:+.4f} is "
                f"**{abs(fnc['ev'] - ref['value']):.4f}** from it.",
                "",
            ]
    its = report.get("iterates") or []
    if nc:
        lines += [
            "## Exploitability by generation (exact; each generation's newest pair)",
            "",
            "Punter BR: the punter's value when it best-responds to the generation's banker; banker BR: the banker's "
            "own value when it best-responds to the generation's punter; each gain is over what that side gets in the "
            "pair. Minutes: training time when the generation's measure was done."
            + (
                " Rows `g, iteration i`: snapshots taken within generation g (`vine.snapshot_every`), measured the "
                "same way; they join the snapshots the final mixture is chosen from."
                if its
                else ""
            ),
            "",
            "| generation | minutes | EV (punter) | punter BR | its gain | banker BR | banker's gain | NashConv |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        rows = sorted([(x["generation"], x["iteration"], f"{x['generation']}, iteration {x['iteration']}", x) for x in its]
                      + [(x["generation"], float("inf"), str(x["generation"]), x) for x in nc], key=lambda r: r[:2])  # fmt: skip
        for _, _, label, x in rows:
            minutes = f"{x['wall_seconds'] / 60:.1f}" if "wall_seconds" in x else "–"
            lines.append(
                f"| {label} | {minutes} | {x['ev']:+.4f} | {x['punter_br']:+.4f} | {x['punter_br'] - x['ev']:.4f} "
                f"| {x['banker_br']:+.4f} | {x['banker_br'] + x['ev']:.4f} | {x['nash_conv']:.4f} |"
            )
        lines.append("")
    if report.get("plots"):
        lines += ["## Plots", ""] + [f"![{p}]({p})" for p in report["plots"]] + [""]
    return "\n".join(lines)
