"""Train a punter policy and a banker policy against each other, then evaluate them.

    python train.py                                   # configs/train/default.yaml
    python train.py --config configs/train/long.yaml  # the longer run, better play
    python train.py --set generations=2 vine.iterations=8 evaluation.hands=50000
    python train.py --resume runs/default-s0          # go on after an interruption

The run (``training.driver``) plays its generations through the vine learner
(``training.seam``, ``training.vine_run``). After each generation the snapshots are measured
(exactly where the exact evaluator covers the rules); after the last, the final pair is
chosen, and this script writes the report (``training.report``) unless ``--no-eval``.

The run folder (``runs/<name>-s<seed>`` unless ``--run-dir``) holds ``config.yaml`` (the
resolved config), ``tb/`` (TensorBoard), ``gen_XXX/{punter,banker}.zip`` (a snapshot per
generation), ``state.json`` (progress, for ``--resume``), ``punter.zip``/``banker.zip``
and ``final.npz`` (the final pair) and the report (``report.md``, ``report.json``,
``results.csv``, plots). A resumed run re-seeds every generation from (seed, generation),
so it continues exactly as the uninterrupted run would have.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

from training.driver import train  # first: it sets the BLAS threads before numpy loads

# isort: split
from siete_env import version_text  # noqa: E402
from training.config import DEFAULT_CONFIG, TrainConfig, load_config  # noqa: E402
from training.outputs import check_output_folder  # noqa: E402
from training.runs import RunState, lock_run_dir  # noqa: E402

__all__ = ["main"]


# --------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--version", action="version", version=version_text("train.py"))
    ap.add_argument(
        "--config",
        help=f"training config YAML (default: {DEFAULT_CONFIG.relative_to(Path.cwd()) if DEFAULT_CONFIG.is_relative_to(Path.cwd()) else DEFAULT_CONFIG})",
    )
    ap.add_argument(
        "--set",
        nargs="+",
        action="extend",
        default=[],
        metavar="KEY=VALUE",
        help="override config keys (dotted, YAML values); repeatable: --set a=1 b=2 --set c=3",
    )
    ap.add_argument("--run-dir", help="run folder (default: runs/<name>-s<seed>)")
    ap.add_argument("--resume", metavar="RUN_DIR", help="continue an interrupted run from its last checkpoint")
    ap.add_argument("--no-eval", action="store_true", help="skip the final evaluation report")
    ap.add_argument(
        "--check",
        action="store_true",
        help="check the config, the overrides and the run folder, print what the run would be, and exit "
        "(nothing is written)",
    )
    args = ap.parse_args(argv)
    lock = contextlib.ExitStack()
    try:
        if args.resume and (args.config or args.run_dir):
            raise ValueError("--resume takes the run folder's own config.yaml: drop --config and --run-dir")
        if args.resume:
            run_dir = Path(args.resume)
            if not (run_dir / "config.yaml").exists():
                raise ValueError(f"--resume {run_dir}: no config.yaml there (not a run folder)")
            cfg = load_config(run_dir / "config.yaml", args.set)
            if (run_dir / "state.json").exists():  # before any work: a state the run can go on from
                RunState.load(run_dir).check_snapshots(run_dir)
            if not args.check:
                lock.enter_context(lock_run_dir(run_dir))  # held through the report
        else:
            cfg = load_config(args.config, args.set)
            run_dir = Path(args.run_dir) if args.run_dir else Path("runs") / f"{cfg.name}-s{cfg.seed}"
            check_output_folder(run_dir, "--run-dir")
            if not args.check:
                lock.enter_context(lock_run_dir(run_dir))  # held through the report
            if (run_dir / "state.json").exists():
                raise ValueError(
                    f"run folder {run_dir} already holds a run: use --resume {run_dir} or another --run-dir"
                )
    except ValueError as e:
        lock.close()
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.check:
        print(
            f"ok: {cfg.name}, {cfg.generations} generation(s), {cfg.num_players} players, "
            f"rules {cfg.rules}, seed {cfg.seed}; run folder {run_dir}" + (" (resumed)" if args.resume else "")
        )
        return 0
    with lock:
        return _main(args, cfg, run_dir)


def _main(args: argparse.Namespace, cfg: TrainConfig, run_dir: Path) -> int:
    t0 = time.perf_counter()
    print(f"run folder: {run_dir}")
    try:
        state = train(cfg, run_dir, resume=bool(args.resume))
        train_seconds = time.perf_counter() - t0
        if not args.no_eval:
            from training.report import run_report

            run_report(cfg, run_dir, state, train_seconds=train_seconds)
    except KeyboardInterrupt:
        print(f"\ninterrupted; go on with: python train.py --resume {run_dir}", file=sys.stderr)
        return 130
    print(f"done in {time.perf_counter() - t0:.0f} s; run folder: {run_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
