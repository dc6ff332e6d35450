"""Train a punter policy and a banker policy against each other, then evaluate them.

    python train.py                                   # configs/train/default.yaml
    python train.py --config configs/train/long.yaml  # the longer run, better play
    python train.py --set generations=2 punter.steps=20000 evaluation.hands=50000
    python train.py --resume runs/default-s0          # go on after an interruption

Both policies are sb3-contrib ``MaskablePPO`` (torch, CPU, one thread). Training runs in
**generations**: the punter learns for ``punter.steps`` env steps against a pool of
opponent bankers, then the banker learns for ``banker.steps`` against a pool of punters.
Each pool mixes the fixed table heuristics (``opponents.baseline_*``, a share
``<role>.baseline_share`` of the hands) and every snapshot of the other learner saved
so far (fictitious self-play: past snapshots drawn uniformly, the newest
``opponents.snapshots`` of them). The learner plays one seat of ``SeatEnv`` (the
Gymnasium single-seat view): its opponents act inside ``step``, so a trajectory has one
perspective and the reward is the learner's own chips.

The run folder (``runs/<name>-s<seed>`` unless ``--run-dir``) holds ``config.yaml`` (the
resolved config), ``tb/`` (TensorBoard: PPO losses, episode rewards, per-generation
evaluations), ``gen_XXX/{punter,banker}.zip`` (a checkpoint per generation),
``state.json`` (progress, for ``--resume``), ``punter.zip``/``banker.zip`` (the final
models) and the evaluation report (``report.md``, ``report.json``, ``results.csv``, plots).
A resumed run re-seeds every generation from (seed, generation), so it continues exactly
as the uninterrupted run would have.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

# numpy's BLAS takes its thread count when numpy loads: one per process here (the learner
# processes, and this one's banker tables split over both cores, each take a core: two
# BLAS threads in each would fight for the two). A value set outside is kept; the learners
# get ``threads`` (``_train``).
_BLAS_VARS = [v for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS") if v not in os.environ]
for _var in _BLAS_VARS:
    os.environ[_var] = "1"

import numpy as np  # noqa: E402
import yaml  # noqa: E402

from agents.specs import AgentSpec  # noqa: E402
from siete_env import version_text  # noqa: E402
from training.config import DEFAULT_CONFIG, OpponentsConfig, TrainConfig, load_config  # noqa: E402
from training.learners import derive_seed, learner_model, make_venv, set_rates  # noqa: E402
from training.outputs import check_output_folder  # noqa: E402
from training.runs import (  # noqa: E402
    FINAL_TABLES,
    ROLES,
    FinalMixture,
    RunState,
    heaviest_member,
    hold_as_learner,
    lock_run_dir,
    start_learners,
    stop_learners,
)

__all__ = ["main", "opponent_pool", "save_best_responses", "select_generation", "train"]


# --------------------------------------------------------------------------- training


def opponent_pool(
    baselines: list[str],
    snapshots: list[str],
    o: OpponentsConfig,
    results: dict[str, float] | None = None,
    baseline_share: float = 0.5,
    exploiter: str | None = None,
) -> dict[str, float]:
    """Opponent weights for one learner's generation: ``baseline_share`` over the
    baselines (uniform, or prioritized by the learner's last ``results`` against them:
    ``exp(-result / temperature)``), the rest over the other learner's snapshots (the
    newest ``snapshots`` of them, or all) uniformly; and, given an ``exploiter`` spec,
    ``o.exploiter_share`` of the hands to it (taken from the snapshots' part)."""
    snaps = snapshots[-o.snapshots :] if o.snapshots else list(snapshots)
    weights = np.ones(len(baselines))
    if o.weighting == "prioritized" and results and all(b in results for b in baselines):
        v = np.array([results[b] for b in baselines])
        weights = np.exp(-(v - v.min()) / o.temperature)
    weights = weights / weights.sum() if len(baselines) else weights
    share = baseline_share if snaps else 1.0
    if not baselines:
        share = 0.0
    pool = {b: float(share * w) for b, w in zip(baselines, weights, strict=True)}
    rest = 1 - share
    if exploiter is not None and snaps and o.exploiter_share > 0:
        pool[exploiter] = float(min(o.exploiter_share, rest))
        rest -= pool[exploiter]
    for snap in snaps:
        pool[snap] = pool.get(snap, 0.0) + float(rest / len(snaps))
    return {k: v for k, v in pool.items() if v > 0}


def _learner(
    role: str, cfg_data: dict[str, Any], run_dir: str, snapshot: str | None, conn, counter, parent_pid: int
) -> None:
    """A learner process: owns one role's environments and model; for each request
    ``(generation, pool, seed)`` it learns ``steps`` env steps against ``pool``, saves a
    snapshot and answers ``(relative path, seconds in learn())``. ``counter`` counts its
    env steps for the progress bar. It dies with its parent (``parent_pid``), even a
    parent killed by SIGKILL, and holds a share of the run folder's lock while it lives."""
    import signal
    import traceback

    from siete_env.processes import die_with_parent

    die_with_parent(parent_pid)
    _lock = hold_as_learner(run_dir)  # held until the process ends
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    try:
        import torch

        cfg = TrainConfig(**cfg_data)
        torch.set_num_threads(cfg.threads)
        root = Path(run_dir)
        tb = str(root / "tb")
        i = ROLES.index(role)
        venv = make_venv(cfg, role, derive_seed(cfg.seed, 1, i))
        model = learner_model(cfg, role, venv, derive_seed(cfg.seed, 2, i), tb, root / snapshot if snapshot else None)
    except Exception as e:  # noqa: BLE001  (reported to the main process)
        conn.send(("error", f"{role} learner could not start: {e!r}\n{traceback.format_exc()}", 0.0, 0))
        conn.close()
        return
    from stable_baselines3.common.callbacks import BaseCallback

    class Count(BaseCallback):
        def _on_step(self) -> bool:
            with counter.get_lock():
                counter.value += self.training_env.num_envs
            return True

    steps = getattr(cfg, role).steps
    co = cfg.opponents.baseline_punters if role == "punter" and cfg.num_players > 2 else None
    while True:
        msg = conn.recv()
        if msg is None:
            break
        gen, pool, copool, rnd = msg
        try:
            venv.env_method("set_opponents", pool, co if copool is None else copool)
            seed = derive_seed(cfg.seed, 3, gen, i) if rnd == 0 else derive_seed(cfg.seed, 3, gen, i, rnd)
            venv.seed(seed)
            model.set_random_seed(seed)
            model._last_obs = None  # the generation starts from fresh episodes (exact resume)
            set_rates(model, *getattr(cfg, role).ppo.at(gen, cfg.generations))
            t0, before = time.perf_counter(), model.num_timesteps
            model.learn(-(-steps // cfg.rounds), callback=Count(), tb_log_name=role, reset_num_timesteps=False)
            seconds = time.perf_counter() - t0
            # the generation's snapshot after its last round; before it, the round's weights
            rel = f"gen_{gen:03d}/{role}.zip" if rnd == cfg.rounds - 1 else f"gen_{gen:03d}/rounds/{role}_{rnd + 1}.zip"
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            model.save(root / rel)
            conn.send(("ok", rel, seconds, model.num_timesteps - before))
        except Exception as e:  # noqa: BLE001  (reported to the main process)
            conn.send(("error", f"{role} learner: {e!r}\n{traceback.format_exc()}", 0.0, 0))
            break
    conn.close()


def train(cfg: TrainConfig, run_dir: Path, resume: bool = False) -> RunState:
    """Run (or resume) the training of ``cfg`` in ``run_dir``; returns the final state.
    The run folder is locked meanwhile (``lock_run_dir``)."""
    with lock_run_dir(run_dir):
        return _train(cfg, run_dir, resume)


def _train(cfg: TrainConfig, run_dir: Path, resume: bool) -> RunState:
    import multiprocessing as mp

    from tqdm.auto import tqdm

    run_dir.mkdir(parents=True, exist_ok=True)
    state = RunState.load(run_dir) if resume and (run_dir / "state.json").exists() else RunState()
    # snapshots within a generation that was not finished: made again
    state.iterates = [x for x in state.iterates if x["generation"] <= state.generation]
    started = time.perf_counter() - state.wall_seconds  # a resumed run goes on counting
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.model_dump(), sort_keys=False))
    pop = _population(cfg, run_dir, state)  # before the learners start: a resume rebuilds it first

    def after_generation(gen: int) -> None:  # the measures and the state after each generation
        _generation_report(cfg, run_dir, state, gen, pop)
        state.wall_seconds = time.perf_counter() - started
        if state.nash_conv and state.nash_conv[-1]["generation"] == gen:
            state.nash_conv[-1]["wall_seconds"] = state.wall_seconds
        state.generation = gen
        state.save(run_dir)

    # numpy's BLAS (the networks' forward passes in the learners) gets the learners' thread count
    # too: its own pool of threads, one per core, would fight the other learner for the cores
    blas = dict.fromkeys(_BLAS_VARS, str(cfg.threads))  # those not set outside
    if cfg.learner == "vine":
        from training.vine_run import train_vine

        def after_iterate(gen: int, it: int, rel: dict[str, str]) -> None:
            _exact_iterate(cfg, run_dir, state, gen, it, rel, pop)
            state.iterates[-1]["wall_seconds"] = time.perf_counter() - started

        train_vine(cfg, run_dir, state, started, after_generation, blas, after_iterate)
        return _finish(cfg, run_dir, state, pop, started)
    ctx = mp.get_context("spawn")  # fresh interpreters: no torch state copied across a fork
    procs, conns, counters = start_learners(ctx, _learner, cfg, run_dir, state, blas)
    rollout = cfg.n_envs * np.array([cfg.punter.ppo.n_steps, cfg.banker.ppo.n_steps])
    per_round = -(-np.array([cfg.punter.steps, cfg.banker.steps]) // cfg.rounds)
    per_gen = int(sum(-(-per_round // rollout) * rollout)) * cfg.rounds  # whole rollouts
    bar = tqdm(total=per_gen * cfg.generations, initial=per_gen * state.generation, unit="step",
               dynamic_ncols=True, desc="training")  # fmt: skip
    o = cfg.opponents
    try:
        for gen in range(state.generation + 1, cfg.generations + 1):
            bar.set_postfix_str(f"generation {gen}/{cfg.generations}")
            last = state.last_results
            pools = {}
            order = [list(ROLES)] if cfg.parallel else [[r] for r in ROLES]
            newest: dict[str, str] = {}  # each learner's weights after the generation's last round so far
            for rnd in range(cfg.rounds):
                for group in order:
                    for role in group:
                        # the other learner's snapshots so far: alternating, the banker also meets
                        # the punter just trained; in parallel, both meet the previous generation;
                        # after a round, the other's newest weights join as its newest snapshot
                        other = "banker" if role == "punter" else "punter"
                        baselines = o.baseline_bankers if role == "punter" else o.baseline_punters
                        snaps = [str(AgentSpec.model(run_dir / s, o.sample)) for s in state.snapshots(other)]
                        if other in newest:
                            snaps.append(str(AgentSpec.model(run_dir / newest[other], o.sample)))
                        exploiter = None
                        if o.exploiter_share > 0 and state.snapshots(role):
                            br = _best_responses_file(state.snapshot_spec(run_dir, role))
                            exploiter = (
                                str(AgentSpec.tables(br)) if br.is_file() else None
                            )  # none before the share was set
                        pools[role] = opponent_pool(
                            baselines, snaps, o, last.get(role), getattr(cfg, role).baseline_share, exploiter
                        )
                        copool = None  # the fellow punters at a larger table: the baselines (the learner's default)
                        if role == "punter" and cfg.num_players > 2 and o.copunters == "snapshots":
                            own = [str(AgentSpec.model(run_dir / s, o.sample)) for s in state.snapshots("punter")]
                            copool = opponent_pool(o.baseline_punters, own, o, None, cfg.punter.baseline_share)
                            pools["punter's fellow punters"] = copool
                        conns[role].send((gen, pools[role], copool, rnd))
                    t0 = time.perf_counter()
                    if rnd == 0 and all(r in pools for r in ROLES):  # every pool of the generation is known now
                        state.pools.append(
                            {r: {_short(k, run_dir): round(v, 4) for k, v in p.items()} for r, p in pools.items()}
                        )
                    elif rnd > 0:  # a later round's pools: the other's newest weights in them
                        state.pools[-1].update(
                            {
                                f"{r}, round {rnd + 1}": {_short(k, run_dir): round(v, 4) for k, v in pools[r].items()}
                                for r in group
                            }  # fmt: skip
                        )
                    keep = rnd == cfg.rounds - 1  # the generation's snapshots: in the state from now on
                    for role, rel in _wait(group, conns, counters, bar, state, procs, keep=keep).items():
                        if keep:
                            newest.pop(role, None)
                        else:
                            newest[role] = rel
                    state.learn_wall_seconds += time.perf_counter() - t0
            after_generation(gen)
    finally:
        bar.close()
        stop_learners(conns, procs)
    return _finish(cfg, run_dir, state, pop, started)


def _finish(cfg: TrainConfig, run_dir: Path, state: RunState, pop, started: float) -> RunState:
    """After the last generation: the final pair (the mixture, or a snapshot per role)."""
    state.selected = {}
    state.final = None
    if cfg.evaluation.select == "mixture":
        _final_mixture(cfg, run_dir, state, pop)
        state.wall_seconds = time.perf_counter() - started
    for role in ROLES:
        g = select_generation(cfg, state, role)
        state.selected[role] = g
        src = state.snapshots(role)[g - 1]
        if state.final and state.final.weights.get(role):  # the mixture's heaviest member (maybe within a generation)
            src = heaviest_member(state.final.weights[role])
        shutil.copyfile(run_dir / src, run_dir / f"{role}.zip")
    state.save(run_dir)
    return state


def _population(cfg: TrainConfig, run_dir: Path, state: RunState):
    """The snapshots as a ``siete_env.solve.mixture.Population`` (exact values of every pairing),
    when the config mixes them (``evaluation.select: mixture``); on a resume the
    snapshots already there join first."""
    if cfg.evaluation.select != "mixture":
        return None
    from agents.specs import make_agent
    from siete_env import raw_env
    from siete_env.solve.mixture import Population

    pop = Population(cfg.rules)
    table = raw_env(num_players=2, rules=cfg.rules)
    sample = cfg.opponents.sample
    pairs = []  # in the order the run made them: each generation's iterates (vine.snapshot_every), then its own
    for gen, (p, b) in enumerate(zip(state.punter_snapshots, state.banker_snapshots, strict=True), 1):
        its = sorted((x for x in state.iterates if x["generation"] == gen), key=lambda x: x["iteration"])
        pairs += [(x["punter"], x["banker"]) for x in its] + [(p, b)]
    for p, b in pairs:
        pop.add_pair(
            make_agent(AgentSpec.model(run_dir / p, sample), table),
            make_agent(AgentSpec.model(run_dir / b, sample), table),
            (p, b),
        )
    return pop


def _final_mixture(cfg: TrainConfig, run_dir: Path, state: RunState, pop) -> None:
    """``evaluation.select: mixture``: the least exploitable mixture of the snapshots
    (``siete_env.solve.mixture``) becomes the final pair, saved as ``final.npz``."""
    t0 = time.perf_counter()
    wp, wb = pop.least_exploitable(iterations=cfg.evaluation.mixture_iterations)
    sol = pop.mixture(wp, wb)
    sol.save(run_dir / FINAL_TABLES)
    spec = str(AgentSpec.tables(FINAL_TABLES))
    state.final = FinalMixture(spec, sol.result.nash_conv, sol.result.ev, sol.weights, time.perf_counter() - t0)
    print(
        f"final mixture of the snapshots: NashConv {sol.result.nash_conv:.4f} chips per hand (within "
        f"{sum(pop.gaps.values()):.4f} of the least exploitable mixture of these snapshots)"
    )


def select_generation(cfg: TrainConfig, state: RunState, role: str) -> int:
    """The generation whose snapshot becomes the final ``role`` policy: the last, or
    (``evaluation.select: best_worst``) the one with the best worst-case lower bound
    against the evaluation baselines in the per-generation evaluation (fresh decks at
    every generation; the final report then evaluates the choice on other decks)."""
    n = len(state.snapshots(role))
    curves = state.curves
    e = cfg.evaluation
    opponents = e.bankers if role == "punter" else e.punters
    keys = [f"{role} vs {o}" for o in opponents]
    if e.select == "mixture":  # the final pair is the mixture; {role}.zip: its heaviest member's generation
        w = state.final.weights.get(role, {}) if state.final else {}
        if not w:
            return n
        top = heaviest_member(w)
        snaps = state.snapshots(role)
        if top in snaps:
            return snaps.index(top) + 1
        return next((x["generation"] for x in state.iterates if x[role] == top), n)
    if e.select == "last" or not all(k in curves and len(curves[k]) == n for k in keys):
        return n
    lows = [min(curves[k][i] - curves[k + "_ci"][i] for k in keys) for i in range(n)]
    return max(range(n), key=lambda i: (lows[i], i)) + 1


def _short(spec: str, run_dir: Path) -> str:
    """A pool's spec with its file relative to the run folder (as ``state.json`` keeps it)."""
    return str(AgentSpec.parse(spec).relative_to(run_dir))


def _best_responses_file(snapshot: AgentSpec) -> Path:
    """Where the exact best responses to a generation's pair are saved (its ``br.npz``)."""
    assert snapshot.path is not None
    return snapshot.path.parent / "br.npz"


def _wait(group: list[str], conns, counters, bar, state: RunState, procs, keep: bool = True) -> dict[str, str]:
    """Wait for the learners of ``group``, moving the progress bar as they step; returns
    where each saved its weights (``keep``: a generation's snapshot, added to the state)."""
    pending = set(group)
    saved: dict[str, str] = {}
    base = bar.n - sum(counters[r].value for r in counters)
    while pending:
        for role in list(pending):
            if conns[role].poll(0.2):
                try:
                    status, payload, seconds, steps = conns[role].recv()
                except (EOFError, OSError):
                    code = procs[role].exitcode
                    raise RuntimeError(f"the {role} learner process died (exit code {code})") from None
                if status != "ok":
                    raise RuntimeError(payload)
                pending.discard(role)
                saved[role] = payload
                if keep:
                    state.snapshots(role).append(payload)
                state.learn_seconds[role] += seconds
                state.learn_steps[role] += steps  # whole rollouts: a little over the config's steps
        done = base + sum(counters[r].value for r in counters)
        bar.update(max(0, done - bar.n))
    return saved


def _generation_report(cfg: TrainConfig, run_dir: Path, state: RunState, gen: int, pop=None) -> None:
    """After a generation: the new policies against the evaluation baselines (learning
    curves; also the results that prioritize the next generation's opponents), and their
    exact NashConv where the exact evaluator covers the rules."""
    from agents.tournament import play_matches

    e, o = cfg.evaluation, cfg.opponents
    curves = state.curves
    curves["generation"].append(gen)
    if e.exact:
        _exact_generation(cfg, run_dir, state, gen, pop)
    punter = str(state.snapshot_spec(run_dir, "punter", sample=o.sample))
    banker = str(state.snapshot_spec(run_dir, "banker", sample=o.sample))
    hands = e.generation_hands
    if not hands:
        return
    bankers = list(dict.fromkeys([*e.bankers, *o.baseline_bankers]))
    punters = list(dict.fromkeys([*e.punters, *o.baseline_punters]))
    common = {"rules": cfg.rules, "num_players": cfg.num_players, "hands": hands, "seed": e.seed + gen}
    jobs = [{"banker": b, "punters": punter, **common} for b in bankers]
    jobs += [{"banker": banker, "punters": p, **common} for p in punters]
    jobs += [{"banker": banker, "punters": punter, **common}]
    res = play_matches(jobs, workers=e.workers)
    nb = len(bankers)
    last = {"punter": {}, "banker": {}}
    for b, r in zip(bankers, res[:nb], strict=True):
        last["punter"][b] = r.punter.mean
        _curve(curves, f"punter vs {b}", r.punter)
    for p, r in zip(punters, res[nb:-1], strict=True):
        last["banker"][p] = r.banker_result.mean
        _curve(curves, f"banker vs {p}", r.banker_result)
    _curve(curves, "punter vs learned banker", res[-1].punter)
    state.last_results = last
    _tb_scalars(
        run_dir,
        gen,
        {k: v[-1] for k, v in curves.items() if isinstance(v, list) and k != "generation" and not k.endswith("_ci")},
    )


def _exact_generation(cfg: TrainConfig, run_dir: Path, state: RunState, gen: int, pop=None) -> None:
    """The exact NashConv of the generation's pair (``siete_env.solve``), when the exact
    evaluator covers the rules (heads-up spanish without splits); else the reason once."""
    from siete_env import solve

    if cfg.num_players != 2:
        state.exact_note = "exact evaluation is heads-up only (num_players: 2)"
        return
    try:
        solve.check_rules(cfg.rules)
    except ValueError as err:
        state.exact_note = f"NashConv not computed: {err}"
        return
    pe, row = _exact_pair(cfg, run_dir, state.punter_snapshots[-1], state.banker_snapshots[-1], pop)
    if cfg.opponents.exploiter_share > 0:  # the exploiters of the next generation's pools
        save_best_responses(cfg, _best_responses_file(state.snapshot_spec(run_dir, "punter")), pe)
    state.nash_conv.append({"generation": gen, **row})
    _tb_scalars(run_dir, gen, {"nash_conv": row["nash_conv"]})


def _exact_iterate(cfg: TrainConfig, run_dir: Path, state: RunState, gen: int, it: int, rel: dict[str, str],
                   pop=None) -> None:  # fmt: skip
    """A snapshot within generation ``gen`` (after iteration ``it``; ``vine.snapshot_every``):
    its exact NashConv, recorded in ``state.iterates``; the pair joins the population the
    final mixture is chosen from."""
    _, row = _exact_pair(cfg, run_dir, rel["punter"], rel["banker"], pop)
    state.iterates.append({"generation": gen, "iteration": it, **rel, **row})


def _exact_pair(cfg: TrainConfig, run_dir: Path, punter_rel: str, banker_rel: str, pop=None):
    """One snapshot pair's exact evaluation (``siete_env.solve.evaluate_pair``; the pair
    joins ``pop`` when given): the evaluation and its figures for ``state.json``."""
    from agents.learned import table_workers
    from agents.specs import make_agent
    from siete_env import raw_env, solve

    t0 = time.perf_counter()
    table = raw_env(num_players=2, rules=cfg.rules)
    sample = cfg.opponents.sample
    p_agent = make_agent(AgentSpec.model(run_dir / punter_rel, sample), table)
    b_agent = make_agent(AgentSpec.model(run_dir / banker_rel, sample), table)
    with table_workers(2 if cfg.parallel else 1):  # the banker network's table: both cores (the learners wait)
        pe = solve.evaluate_pair(p_agent, b_agent, cfg.rules)
    nc = pe.result
    if pop is not None:  # the pair also joins the population of snapshots
        pop.add_evaluated(p_agent, b_agent, pe, (punter_rel, banker_rel))
    row = {"ev": nc.ev, "punter_br": nc.punter_br_value, "banker_br": nc.banker_br_value, "nash_conv": nc.nash_conv,
           "exploitability": nc.exploitability, "seconds": time.perf_counter() - t0}  # fmt: skip
    return pe, row


def save_best_responses(cfg: TrainConfig, path: Path, pe) -> None:
    """The exact best responses to one generation's pair (``pe``: its
    ``siete_env.solve.evaluate_pair``), as one table file playing either seat
    (``table:PATH``): as punter the best response to the banker, as banker the best
    response to the punter. Where the punter snapshot never stands (its greedy play does
    not reach a view, so any banker play is a best response there) the banker plays as its
    own snapshot does, not an arbitrary default: a sampling learner does reach those views."""
    from siete_env import solve

    ev = solve.evaluator(cfg.rules)
    unreached = pe.W.reshape(len(pe.hit), -1).sum(1) == 0
    hit = np.where(unreached[:, None], pe.hit, np.asarray(pe.br_hit, np.float64))
    p_bet, p_draw = ev.punter_table(solve.TabularPunterPolicy(ev, pe.br_bet, pe.br_draw))
    solve.BestResponseTables(ev.rules.model_dump(mode="json"), p_bet, p_draw, hit, pe.result, ev).save(path)


def _curve(curves: dict[str, Any], name: str, est) -> None:
    curves.setdefault(name, []).append(est.mean)
    curves.setdefault(name + "_ci", []).append(est.ci95)


def _tb_scalars(run_dir: Path, step: int, values: dict[str, float]) -> None:
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(run_dir / "tb" / "generations"))
    for k, v in values.items():
        w.add_scalar("generation/" + k.replace(" ", "_").replace(":", "_"), v, step)
    w.close()


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
            f"ok: {cfg.name}, learner {cfg.learner}, {cfg.generations} generation(s), {cfg.num_players} players, "
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
