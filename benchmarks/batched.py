"""The batched engine beside the AEC env, Pgx's ``leduc_holdem`` and PettingZoo's
``leduc_holdem_v4``, in one run (random legal actions everywhere).

    python benchmarks/batched.py [--tables 1024 4096] [--seconds 3] [--repeats 3] [--json out.json]
                                 [--presets all] [--preset-tables 1024]

* **batched, single-seat**: ``gymnasium.make_vec("SieteYMedia-Punter-v0" / "-Banker-v0",
  num_envs=N, vectorization_mode="vector_entry_point")``, the learner's random legal
  actions drawn from ``infos["action_mask"]`` (``random_legal_actions``), the opponent
  played in the kernels; full observations (493 floats heads-up) returned every step.
  A step is one decision of the learner (the opponent's are inside it). Also on every core
  (``threads``: numba's thread count, the tables cut into that many parts), as XLA runs
  Pgx's ``vmap`` on every core. Also for every
  preset (``--presets``), heads-up, at ``--preset-tables`` tables: the same loop with the
  preset's rules.
* **batched, all seats**: ``BatchedTables``: every decision of every seat, each seat's
  observation written (``observe``) before its action, as a multi-agent loop would.
* **Pgx leduc_holdem**: ``jax.jit(jax.vmap(env.step))`` over N games with Pgx's own
  ``auto_reset`` and ``act_randomly``, each step one decision (observation: 34 floats);
  XLA uses every core, so it is also measured held to one thread on one core (the
  batched engine runs on one).
* **AEC env** (``siete_env.env()``, 2 and 6 players) and **PettingZoo leduc_holdem_v4**:
  the agent loop of ``benchmarks/throughput.py``, one game.
* **200,000-hand pairing**: ``agents.tournament.play_match("banker:6", "threshold:5.5")``
  through the batched engine (batched policy inference), and the same pairing through
  the AEC loop (``engine="aec"``, timed on fewer hands and scaled).

Each figure is the best of ``--repeats`` interleaved runs (the machine is shared: compare
the ratios within one run).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def batched_seat(role: str, n_tables: int, seconds: float, rules: str = "spanish", threads: int = 1) -> float:
    import gymnasium

    import siete_env  # noqa: F401
    from siete_env.batched.vector import random_legal_actions

    env_id = "SieteYMedia-Punter-v0" if role == "punter" else "SieteYMedia-Banker-v0"
    envs = gymnasium.make_vec(
        env_id, num_envs=n_tables, vectorization_mode="vector_entry_point", rules=rules, threads=threads
    )
    obs, infos = envs.reset(seed=0)
    rng = np.array([1], np.uint64)
    for _ in range(5):
        obs, *_, infos = envs.step(random_legal_actions(infos["action_mask"], rng))
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, rew, term, trunc, infos = envs.step(random_legal_actions(infos["action_mask"], rng))
        steps += n_tables
    return steps / (time.perf_counter() - t0)


def batched_all_seats(n_tables: int, seconds: float, players: int = 2) -> float:
    from siete_env.batched import BatchedTables
    from siete_env.batched.vector import random_legal_actions

    bt = BatchedTables(n_tables, players)
    rng = np.random.default_rng(0)
    bt.seed(0)
    r = np.array([2], np.uint64)
    bt.start(None, rng.integers(players, size=n_tables), bt.shuffled_decks(n_tables, rng))
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, masks = bt.observe()  # the acting seat's observation at every table
        bt.apply(None, random_legal_actions(masks, r))
        steps += n_tables
        over = np.flatnonzero(bt.over())
        if len(over):
            bt.start(over, rng.integers(players, size=len(over)), bt.shuffled_decks(len(over), rng))
    return steps / (time.perf_counter() - t0)


def pgx_leduc(n_tables: int, seconds: float) -> float:
    import jax
    import pgx
    from pgx.experimental import act_randomly, auto_reset

    env = pgx.make("leduc_holdem")
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    act = jax.jit(act_randomly)
    key = jax.random.PRNGKey(0)
    key, sub = jax.random.split(key)
    state = init(jax.random.split(sub, n_tables))

    def one(state, key):
        k1, k2 = jax.random.split(key)
        a = act(k1, state.legal_action_mask)
        return step(state, a, jax.random.split(k2, n_tables))

    for _ in range(5):
        key, sub = jax.random.split(key)
        state = one(state, sub)
    state.observation.block_until_ready()
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        key, sub = jax.random.split(key)
        state = one(state, sub)
        steps += n_tables
    state.observation.block_until_ready()
    return steps / (time.perf_counter() - t0)


def pgx_leduc_one_core(n_tables: int, seconds: float) -> float | None:
    """Pgx's rate with XLA held to one thread on one core (the batched engine runs on one):
    measured in a child process, since XLA reads its flags when it starts."""
    import os
    import shutil
    import subprocess
    import sys

    env = dict(os.environ, XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    code = f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); from batched import pgx_leduc; "
    code += f"print(pgx_leduc({n_tables}, {seconds}))"
    cmd = [sys.executable, "-c", code]
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", "0", *cmd]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    return float(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else None


def aec_loop(make, steps: int) -> float:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from throughput import play

    return play(make(), steps)[0]


def pairing(hands: int, engine: str) -> float:
    from agents.tournament import play_match

    return play_match("banker:6", "threshold:5.5", hands=hands, seed=0, engine=engine).seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, nargs="+", default=[1024, 4096])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--aec-steps", type=int, default=100_000)
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--presets", nargs="+", default=["all"], help="presets for the per-preset rows ('all', or none: -)")
    ap.add_argument("--preset-tables", type=int, default=1024, help="tables of the per-preset rows")
    args = ap.parse_args()
    from siete_env.rules import PRESETS

    presets = list(PRESETS) if args.presets == ["all"] else [p for p in args.presets if p != "-"]

    import numba
    from pettingzoo.classic import leduc_holdem_v4

    import siete_env

    cores = numba.config.NUMBA_NUM_THREADS
    pairing(2000, "batched")  # compile / load the kernels
    best: dict[str, float] = {}

    def keep(name: str, v: float, higher: bool = True) -> None:
        if name not in best or (v > best[name] if higher else v < best[name]):
            best[name] = v

    for _ in range(args.repeats):  # interleaved, so that machine noise hits all alike
        for n in args.tables:
            keep(f"batched single-seat punter, {n} tables", batched_seat("punter", n, args.seconds))
            keep(f"batched single-seat banker, {n} tables", batched_seat("banker", n, args.seconds))
            if cores > 1:
                for role in ("punter", "banker"):
                    rate = batched_seat(role, n, args.seconds, threads=cores)
                    keep(f"batched single-seat {role}, {n} tables, {cores} threads", rate)
            keep(f"batched all seats, {n} tables", batched_all_seats(n, args.seconds))
            keep(f"Pgx leduc_holdem, {n} games (vmap)", pgx_leduc(n, args.seconds))
            one = pgx_leduc_one_core(n, args.seconds)
            if one is not None:
                keep(f"Pgx leduc_holdem, {n} games (vmap), XLA on one core", one)
        for p in presets:
            for role in ("punter", "banker"):
                rate = batched_seat(role, args.preset_tables, args.seconds, p)
                keep(f"batched single-seat {role}, {args.preset_tables} tables, {p}", rate)
        keep("siete AEC env()", aec_loop(lambda: siete_env.env(num_players=2), args.aec_steps))
        keep("siete AEC env(), 6 players", aec_loop(lambda: siete_env.env(num_players=6), args.aec_steps))
        keep("PettingZoo leduc_holdem_v4 env()", aec_loop(leduc_holdem_v4.env, args.aec_steps))
        keep("pairing 200,000 hands, batched (s)", pairing(200_000, "batched"), higher=False)
        keep("pairing 200,000 hands, AEC loop (s)", pairing(20_000, "aec") * 10, higher=False)

    engine = "compiled with mypyc" if siete_env.COMPILED else "pure Python"
    print(f"\nsteps per second, best of {args.repeats} interleaved runs of {args.seconds:g} s (AEC engine: {engine})")
    leduc = best["PettingZoo leduc_holdem_v4 env()"]
    for name, v in best.items():
        if name.endswith("(s)"):
            print(f"{name:48s} {v:12.2f} s")
        else:
            print(f"{name:48s} {v:12,.0f}  x leduc_holdem_v4 {v / leduc:7.1f}")
    for n in args.tables:
        pgx_rate = best[f"Pgx leduc_holdem, {n} games (vmap)"]
        pgx_one = best.get(f"Pgx leduc_holdem, {n} games (vmap), XLA on one core")
        for role in ("punter", "banker"):
            one = best[f"batched single-seat {role}, {n} tables"]
            line = f"{n} tables, {role}: one core / Pgx vmap {one / pgx_rate:.2f}"
            if pgx_one:
                line += f", / Pgx XLA on one core {one / pgx_one:.2f}"
            every = best.get(f"batched single-seat {role}, {n} tables, {cores} threads")
            if every:
                line += f"; {cores} threads / Pgx vmap (every core) {every / pgx_rate:.2f}"
            print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(best, f, indent=2)


if __name__ == "__main__":
    main()
