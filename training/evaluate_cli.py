"""Evaluate agents: head-to-head matches and round-robin tournaments by role.

    python evaluate.py --punters threshold:5.5 bold:5.5 --bankers banker:6 smart:6
    python evaluate.py --punters ppo:runs/default-s0/punter.zip --bankers smart:6 --hands 500000
    python evaluate.py --run runs/default-s0            # re-make a training run's report
    python evaluate.py --rules italian --players 4 --punters threshold:5 --bankers banker:6
    python evaluate.py --exploit banker --punters bold:5.5 --bankers banker:6 --budget 300

Every punter spec plays every banker spec (the banker in seat 0, the punter spec in every
other seat) for ``--hands`` hands on common decks (same ``--seed``); results are mean
chips per hand with 95% confidence intervals. Output: a table in the terminal, and with
``--json``/``--csv``/``--plots`` files; ``--maps`` also draws the agents' strategies.
Agent specs: see ``agents/specs.py`` (``random``, ``threshold:T``, ``banker:B``,
``smart:B``, ``bold:T``, ``ppo:PATH.zip[:sample]``, ``rllib:CHECKPOINT[:sample]``).
"""

from __future__ import annotations

import argparse
import copy
import math
import sys
import time
from pathlib import Path
from typing import Any

from training import blas  # noqa: F401  (first: one BLAS thread before numpy loads)

# isort: split
from agents.specs import AgentSpec, check_spec, make_agent
from agents.tournament import round_robin
from siete_env import version_text
from training.config import load_config
from training.outputs import check_distinct, check_output_file, check_output_folder, real_path, save_output
from training.report import (
    csv_text,
    matrix_rows,
    print_table,
    progress_bar,
    record_maps,
    run_report,
    tournament_matrix,
)
from training.runs import RunState, json_text, lock_run_dir

# --------------------------------------------------------------------------- CLI
EPILOG = """\
Agent specs (--punters, --bankers): random (uniform legal moves); threshold:T (punter, stands at T or more);
banker:B (banker, hits below B); smart:B (banker: hits below B, or while it loses to a hand
it can still beat); bold:T (punter: swaps 4s, top stake on a 7 or a figure); quattro:T
(quattro e mezzo); ppo:PATH.zip (a train.py model, greedy; :sample samples); cfr:PATH.npz,
table:PATH.npz (heads-up table policies); rllib:CHECKPOINT; pretrained:punter and
pretrained:banker (the shipped pair, heads-up spanish). Defaults: --punters threshold:5.5
--bankers banker:6. Details: docs/agents.md.
"""


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="evaluate.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
    )
    ap.add_argument("--version", action="version", version=version_text("evaluate.py"))
    ap.add_argument(
        "--punters",
        nargs="+",
        default=["threshold:5.5"],
        metavar="SPEC",
        help="agent specs that play the punter seats, each against every --bankers spec (default threshold:5.5)",
    )
    ap.add_argument(
        "--bankers",
        nargs="+",
        default=["banker:6"],
        metavar="SPEC",
        help="agent specs that play the banker (seat 0) (default banker:6)",
    )
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
        help="heads-up: exact EV, both best responses and NashConv of every pair (siete_env.solve)",
    )
    ap.add_argument(
        "--solve",
        type=Path,
        metavar="OUT.npz",
        help="heads-up: compute a reference equilibrium of the rules (siete_env.solve.cfr), measure its "
        "exact NashConv, save it (play it with the agent spec cfr:OUT.npz)",
    )
    ap.add_argument("--iterations", type=int, default=200, help="iterations for --solve (default 200)")
    ap.add_argument(
        "--method",
        choices=("dcfr", "cfr+"),
        default="dcfr",
        help="with --solve: discounted CFR (default; the faster here) or CFR+ (docs/exact.md)",
    )
    ap.add_argument("--every", type=int, default=25, help="with --solve: measure NashConv every N iterations")
    ap.add_argument("--players", type=int, default=2, help="table size (default 2)")
    ap.add_argument("--hands", type=int, default=200_000, help="hands per pairing (default 200000)")
    ap.add_argument(
        "--seed", type=int, default=0, help="the deals' seed: every pairing plays the same decks (default 0)"
    )
    ap.add_argument(
        "--workers", type=int, default=2,
        help="processes playing the pairings in parallel, or with --exploit the responder's hands (default 2)",
    )  # fmt: skip
    ap.add_argument("--json", type=Path, help="write the results as JSON")
    ap.add_argument("--csv", type=Path, help="write the results as CSV (one row per seat and pairing)")
    ap.add_argument("--plots", type=Path, help="folder for the tournament plot (and --maps)")
    ap.add_argument("--maps", action="store_true", help="draw the agents' strategy maps (needs --plots)")
    ap.add_argument("--run", type=Path, help="re-make the report of a training run folder")
    ap.add_argument(
        "--exploit",
        choices=("banker", "punter"),
        help="learn a best response in this seat against the frozen --punters/--bankers spec (one each) and "
        "report its gain over the frozen policy there, on fresh hands (training.exploit)",
    )
    ap.add_argument("--budget", type=float, default=300.0, help="with --exploit: training seconds (default 300)")
    ap.add_argument(
        "--steps",
        type=int,
        help="with --exploit: training env steps, the branches' copies included (instead of --budget)",
    )
    ap.add_argument("--position", type=int, default=1, help="with --exploit punter: the responder's punter seat")
    ap.add_argument(
        "--warm-start",
        action="store_true",
        help="with --exploit: the responder starts from the frozen network it replaces (a ppo: spec of the same shape)",
    )
    ap.add_argument(
        "--save",
        type=Path,
        help="with --exploit: where the responder is saved (default runs/exploit-<seat>.zip, or "
        "runs/exploit-<seat>-2.zip, ... when that exists: never overwritten)",
    )
    ap.add_argument(
        "--force", "--overwrite", action="store_true", help="with --exploit: overwrite an existing --save file"
    )
    return ap


# The tasks (at most one of their flags; none: a tournament) and the flags each one reads.
TASKS = {"run": "--run", "solve": "--solve", "exploit": "--exploit", "exact": "--exact"}
_COMMON = {"rules", "rule", "json"}
USES = {
    "tournament": _COMMON | {"punters", "bankers", "players", "hands", "seed", "workers", "csv", "plots", "maps"},
    "exact": _COMMON | {"punters", "bankers", "players"},
    "solve": _COMMON | {"players", "iterations", "method", "every"},
    "exploit": _COMMON
    | {
        "punters",
        "bankers",
        "players",
        "hands",
        "seed",
        "budget",
        "steps",
        "position",
        "warm_start",
        "save",
        "force",
        "workers",
    },  # fmt: skip
    "run": set(),
}


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def check_task_flags(ap: argparse.ArgumentParser, argv: list[str] | None) -> str:
    """The task the command line asks for; a ``ValueError`` for two tasks at once or a
    flag the task does not read (it would be silently ignored)."""
    quiet = copy.deepcopy(ap)
    for action in quiet._actions:
        action.default = argparse.SUPPRESS
    given = set(vars(quiet.parse_args(argv)))
    tasks = [t for t in TASKS if t in given]
    if len(tasks) > 1:
        raise ValueError(
            f"{' and '.join(TASKS[t] for t in tasks)} are different tasks: give one of {', '.join(TASKS.values())} "
            "(or none of them: a tournament)"
        )
    task = tasks[0] if tasks else "tournament"
    for dest in sorted(given - USES[task] - set(TASKS)):
        users = [
            TASKS.get(t, "a tournament (none of " + ", ".join(TASKS.values()) + ")") for t in USES if dest in USES[t]
        ]
        if task == "tournament":
            raise ValueError(f"{_flag(dest)} goes with {' or '.join(users)}")
        raise ValueError(f"{_flag(dest)} does not go with {TASKS[task]} (it goes with {' or '.join(users)})")
    return task


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        task = check_task_flags(ap, argv)
        if task == "run":
            return _rerun(args.run)
        from siete_env.rules import resolve_rules

        args.rules_label = args.rules + "".join(f" --rule {o}" for o in args.rule)  # said in titles
        args.rules = rules_arg(args.rules, args.rule)
        resolve_rules(args.rules)
        for s in [*args.punters, *args.bankers]:
            check_spec(s)
        if args.hands < 1:
            raise ValueError("--hands must be at least 1")
        if not 2 <= args.players <= 12:
            raise ValueError(f"--players must be 2..12, got {args.players}")
        if args.seed < 0:
            raise ValueError(f"--seed must be a non-negative integer, got {args.seed}")
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        for flag in ("json", "csv"):  # before the work, not after it
            check_output_file(getattr(args, flag), f"--{flag}")
        check_output_file(args.solve, "--solve", make_folder=True, suffix=".npz")
        check_output_folder(args.plots, "--plots")
        check_distinct(
            {"--json": args.json, "--csv": args.csv, "--solve": args.solve},  # --save: _exploit checks it
            input_files(args),
        )
        if args.maps and not args.plots:
            raise ValueError("--maps draws into the --plots folder: give --plots DIR too")
        if (args.exact or args.solve) and args.players != 2:
            raise ValueError("--exact and --solve are heads-up only: use --players 2")
        if args.solve:
            return _solve(args)
        if args.exploit:
            return _exploit(args)
        from siete_env import raw_env

        table = raw_env(num_players=args.players, rules=args.rules)
        for s in [*args.punters, *args.bankers]:
            if AgentSpec.parse(s).path is not None:
                make_agent(s, table)  # a model or table file for another table or rules is refused here, by name
        if args.exact:
            return _exact(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    n_pairs = len(args.punters) * len(args.bankers)
    bar = progress_bar(n_pairs)
    t = round_robin(args.punters, args.bankers, rules=args.rules, num_players=args.players, hands=args.hands,
                    seed=args.seed, workers=args.workers, progress=lambda r: bar.update(1))  # fmt: skip
    bar.close()
    rows = matrix_rows(t)
    print_table(
        rows,
        title=f"punter's mean chips per hand ± 95% CI ({args.hands:,} hands per pairing, {args.rules_label}, {args.players} players)",
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
    saved = save_results(args.json, "--json", json_text(t.to_dict()))
    saved &= save_results(args.csv, "--csv", csv_text(list(t.results.values())))
    if args.plots:
        from agents import plots

        try:
            args.plots.mkdir(parents=True, exist_ok=True)
            plots.plot_tournament(tournament_matrix(t), str(args.plots / "tournament.png"))
            if args.maps:
                plan = [(f"{p} (punter)", args.bankers[0], p, "punter") for p in args.punters]
                plan += [(f"{b} (banker)", b, args.punters[0], "banker") for b in args.bankers]
                maps = record_maps(plan, args.rules, args.players, args.seed)
                plots.plot_strategy_maps(maps, str(args.plots / "strategy_maps.png"))
        except OSError as e:  # the table above and the --json/--csv files hold the results
            print(f"error: --plots {args.plots}: could not write the plots ({e.strerror or e})", file=sys.stderr)
            return 1
        print(f"plots in {args.plots}")
    return 0 if saved else 1


def fresh_path(path: Path) -> Path:
    """``path``, or ``stem-2.zip``, ``stem-3.zip``, ... beside it: the first that does not exist."""
    i = 2
    out = path
    while out.exists():
        out = path.with_name(f"{path.stem}-{i}{path.suffix}")
        i += 1
    return out


def save_results(path: Path | None, flag: str, data: str | bytes | Any) -> bool:
    """Write an output after the work (``training.outputs.save_output``): whether it went
    where asked (if not, the error says where the results are instead)."""
    return path is None or save_output(path, flag, data) == path


def input_files(args: argparse.Namespace) -> dict[str, Path | None]:
    """The files the command reads (agent specs' files, a rules file): no output may be one."""
    from siete_env.rules import is_rules_file

    out: dict[str, Path | None] = {}
    for spec in [*args.punters, *args.bankers]:
        path = AgentSpec.parse(spec).path
        if path is not None and path.is_file():
            out[spec] = path
    if isinstance(args.rules, str) and is_rules_file(args.rules):
        out[f"--rules {args.rules}"] = Path(args.rules)
    return out


def rules_arg(rules: str, options: list[str]) -> str | dict[str, Any]:
    """``--rules`` plus ``--rule option=value`` overrides as a rules dict
    (``siete_env.rules.rules_with_options``)."""
    from siete_env.rules import rules_with_options

    return rules_with_options(rules, options)


def exact_rows(
    punters: list[str], bankers: list[str], rules: Any, progress: bool = False
) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """Exact EV, both best-response values and NashConv of every (punter, banker) pair
    (heads-up; rules the exact evaluator covers, see ``siete_env.solve.check_rules``);
    ``progress``: a bar on standard error, a pair at a time (each takes seconds)."""
    from agents.specs import make_agent
    from siete_env import raw_env, solve

    solve.check_rules(rules)
    table = raw_env(num_players=2, rules=rules)
    rows = [["punter", "banker", "EV (punter)", "punter BR", "banker BR", "NashConv", "exploitability", "seconds"]]
    out = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(punters) * len(bankers), unit="pair", desc="exact values", dynamic_ncols=True)
    for p in punters:
        for b in bankers:
            if bar is not None:
                bar.set_postfix_str(f"{p} vs {b}")
            t0 = time.perf_counter()
            nc = solve.nash_conv(make_agent(p, table, seed=0), make_agent(b, table, seed=0), rules)
            secs = time.perf_counter() - t0
            rows.append([p, b, f"{nc.ev:+.6f}", f"{nc.punter_br_value:+.6f}", f"{nc.banker_br_value:+.6f}",
                         f"{nc.nash_conv:.6f}", f"{nc.exploitability:.6f}", f"{secs:.1f}"])  # fmt: skip
            out.append({"punter": p, "banker": b, **nc._asdict(), "seconds": secs})
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    return rows, out


def _exact(args) -> int:
    rows, out = exact_rows(args.punters, args.bankers, args.rules, progress=True)
    print_table(rows, title=f"exact heads-up values, chips per hand ({args.rules_label})")
    print("EV: the punter's expected chips per hand; punter BR: the punter's value with a best response to the "
          "banker; banker BR: the banker's value (chips per hand it wins) with a best response to the punter; "
          "NashConv: the two best responses' gains over EV, summed; exploitability: NashConv / 2.")  # fmt: skip
    return 0 if save_results(args.json, "--json", json_text(out)) else 1


def _solve(args) -> int:
    from siete_env.solve import cfr, check_rules

    check_rules(args.rules)
    if args.iterations < 1 or args.every < 0:
        raise ValueError("--iterations must be >= 1 and --every >= 0")
    print(f"{args.method.upper()} on heads-up {args.rules_label}: {args.iterations} iterations")
    print(f"{'iteration':>9}  {'seconds':>8}  {'NashConv':>10}")
    sol = cfr.solve(args.rules, args.iterations, args.every,
                    progress=lambda it, secs, nc: print(f"{it:>9}  {secs:>8.1f}  {nc:>10.6f}", flush=True),
                    method=args.method)  # fmt: skip
    args.solve.parent.mkdir(parents=True, exist_ok=True)
    where = save_output(args.solve, "--solve", sol.save)
    r = sol.result
    print(f"average strategy after {sol.iterations} iterations: NashConv {r.nash_conv:.6f} chips per hand "
          f"(exploitability {r.exploitability:.6f}); value for the punter {r.ev:+.6f}, between "
          f"{-r.banker_br_value:+.6f} (banker's best response) and {r.punter_br_value:+.6f} (punter's)")  # fmt: skip
    if where is not None:
        print(f"saved {where}; play it with the agent spec cfr:{where}")
    saved = save_results(args.json, "--json", json_text(
        {"rules": sol.rules, "method": args.method, "iterations": sol.iterations, **r._asdict(),
         "history": [dict(zip(("iteration", "seconds", "nash_conv"), h, strict=True)) for h in sol.history]}))  # fmt: skip
    return 0 if saved and where == args.solve else 1


def _exploit(args) -> int:
    from training.exploit import check_request, learned_best_response

    if len(args.punters) != 1 or len(args.bankers) != 1:
        raise ValueError(
            f"--exploit plays against one frozen line-up: give one --punters spec and one --bankers spec "
            f"(got {len(args.punters)} and {len(args.bankers)})"
        )
    if args.steps is not None and args.steps < 1:
        raise ValueError(f"--steps must be at least 1, got {args.steps}")
    if not args.budget > 0 or not math.isfinite(args.budget):
        raise ValueError(f"--budget must be a positive number of seconds, got {args.budget}")
    if args.hands < 2:
        raise ValueError("--exploit needs at least 2 --hands (an interval)")
    save = args.save or fresh_path(Path("runs") / f"exploit-{args.exploit}.zip")
    if save.suffix != ".zip":
        raise ValueError(f"--save {save}: a model file ends in .zip")
    check_output_file(save, "--save", make_folder=True)
    if args.json and real_path(args.json) == real_path(save):
        raise ValueError("--json and --save name the same file")
    for spec in (args.punters[0], args.bankers[0]):
        path = AgentSpec.parse(spec).path
        if path is not None and real_path(path) == real_path(save):
            raise ValueError(f"--save {save}: that is the frozen policy's file ({spec}); save the responder elsewhere")
    if args.save is not None and save.exists() and not args.force:
        raise ValueError(f"--save {save}: the file exists; pass --force to overwrite it, or name another file")
    check_request(args.exploit, args.punters[0], args.bankers[0], args.rules, args.players, args.position)
    r = learned_best_response(
        args.exploit, args.punters[0], args.bankers[0], rules=args.rules, num_players=args.players,
        seconds=None if args.steps is not None else args.budget, steps=args.steps, hands=args.hands,
        seed=args.seed, save=save, position=args.position, warm_start=args.warm_start, workers=args.workers,
    )  # fmt: skip
    who = f"{args.exploit} (seat {r.position})"
    rows = [["line-up in the " + who, "mean chips per hand ± 95% CI"],
            [f"frozen: {args.bankers[0] if args.exploit == 'banker' else args.punters[0]}",
             f"{r.frozen['mean']:+.4f} ± {r.frozen['ci95']:.4f}"],
            [f"learned best response ({r.train_steps:,} steps, {r.train_seconds:.0f} s)",
             f"{r.learned['mean']:+.4f} ± {r.learned['ci95']:.4f}"],
            ["gain (paired, same decks)", f"{r.gain['mean']:+.4f} ± {r.gain['ci95']:.4f}"]]  # fmt: skip
    print_table(
        rows, title=f"learned best response, {r.hands:,} fresh hands ({args.rules_label}, {args.players} players)"
    )
    if r.exact:
        x = r.exact
        print(f"exact: the frozen policy's value {x['frozen_value']:+.6f}; the best response's "
              f"{x['best_response_value']:+.6f} (gain {x['best_response_gain']:.6f}); the learned responder's "
              f"{x['responder_value']:+.6f} (gain {x['responder_gain']:.6f}, {100 * x['share']:.1f}% of the exact gain)")  # fmt: skip
    if r.started_from:
        print(f"the responder started from the frozen network {r.started_from} (--warm-start)")
    where = r.responder.removeprefix("ppo:")
    print(f"the learned gain is a lower bound on the {args.exploit}'s best-response gain; responder saved: {where}")
    saved = save_results(args.json, "--json", json_text(r.to_dict()))
    return 0 if saved and Path(where) == save else 1


def _rerun(run_dir: Path) -> int:
    missing = [f for f in ("state.json", "config.yaml", "punter.zip", "banker.zip") if not (run_dir / f).exists()]
    if missing:
        print(f"error: {run_dir} is not a finished training run (missing {', '.join(missing)}); "
              f"an interrupted run goes on with: python train.py --resume {run_dir}", file=sys.stderr)  # fmt: skip
        return 2
    try:
        cfg = load_config(run_dir / "config.yaml")
        with lock_run_dir(run_dir):  # not while a training process writes there
            run_report(cfg, run_dir, RunState.load(run_dir))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
