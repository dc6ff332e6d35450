"""The run driver: a training run from start to end, top-down (``train``).

A run plays its generations through the config's learner (``training.seam``), and owns
everything around them, once:

1. the run folder: locked (``lock_run_dir``), its resolved ``config.yaml``, its
   ``state.json`` (``RunState``, saved after every generation: ``--resume`` goes on
   from there, re-seeded from (seed, generation), exactly as the uninterrupted run);
2. each generation's snapshots, and those the learner takes within it, as they come:
   their exact NashConv where the exact evaluator covers the rules (heads-up, and the
   rules ``siete_env.solve`` solves), each pair joining the population of snapshots;
3. after each generation, the snapshots against the evaluation baselines (the learning
   curves; ``evaluation.generation_hands``);
4. after the last, the final pair: the least exploitable mixture of the snapshots
   (``evaluation.select: mixture``), or one generation's snapshots;

then ``train.py`` writes the report (``training.report``).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from training.blas import UNSET as _BLAS_VARS  # first: one BLAS thread before numpy loads (the learners: ``threads``)

# isort: split
import yaml

from agents.specs import AgentSpec
from training.config import TrainConfig
from training.runs import (
    FINAL_TABLES,
    ROLES,
    FinalMixture,
    RunState,
    heaviest_member,
    lock_run_dir,
)
from training.seam import Learner, Snapshots

__all__ = ["make_learner", "select_generation", "train"]


def train(cfg: TrainConfig, run_dir: Path, resume: bool = False) -> RunState:
    """Run (or resume) the training of ``cfg`` in ``run_dir``; returns the final state.
    The run folder is locked meanwhile (``lock_run_dir``)."""
    with lock_run_dir(run_dir):
        return _train(cfg, run_dir, resume)


def _train(cfg: TrainConfig, run_dir: Path, resume: bool) -> RunState:
    run_dir.mkdir(parents=True, exist_ok=True)
    state = RunState.load(run_dir) if resume and (run_dir / "state.json").exists() else RunState()
    # snapshots within a generation that was not finished: made again
    state.iterates = [x for x in state.iterates if x["generation"] <= state.generation]
    started = time.perf_counter() - state.wall_seconds  # a resumed run goes on counting
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.model_dump(), sort_keys=False))
    pop = _population(cfg, run_dir, state)  # before the learners start: a resume rebuilds it first
    # numpy's BLAS (the networks' forward passes in the learners) gets the learners' thread count
    # too: its own pool of threads, one per core, would fight the other learner for the cores
    # with sampler helpers (vine.workers) the processes share the cores: one BLAS thread each
    blas = 1 if cfg.vine.workers > 1 else cfg.threads
    learner = make_learner(cfg, run_dir, state, dict.fromkeys(_BLAS_VARS, str(blas)))
    try:
        learner.start()
        for gen in range(state.generation + 1, cfg.generations + 1):
            for snaps in learner.generation(gen, state):
                _record(state, snaps)
                if snaps.iteration is not None:  # taken within the generation
                    _exact_iterate(cfg, run_dir, state, gen, snaps.iteration, snaps.paths, pop)
                    state.iterates[-1]["wall_seconds"] = time.perf_counter() - started
            _generation_report(cfg, run_dir, state, gen, pop)
            state.wall_seconds = time.perf_counter() - started
            if state.nash_conv and state.nash_conv[-1]["generation"] == gen:
                state.nash_conv[-1]["wall_seconds"] = state.wall_seconds
            state.generation = gen
            state.save(run_dir)
            (run_dir / f"gen_{gen:03d}").mkdir(exist_ok=True)
            state.save(run_dir / f"gen_{gen:03d}")  # the state after this generation: a run can go on from here
    finally:
        learner.stop()
    return _finish(cfg, run_dir, state, pop, started)


def make_learner(cfg: TrainConfig, run_dir: Path, state: RunState, env: dict[str, str] | None = None) -> Learner:
    """The learner (``training.seam.Learner``: the vine learner) for the run in ``run_dir``
    (``state``: where it starts from); ``env``: environment variables its processes start
    with (their BLAS threads)."""
    from training.vine_run import VineLearner

    return VineLearner(cfg, run_dir, state, env)


def _record(state: RunState, snaps: Snapshots) -> None:
    """What a learner's ``Snapshots`` tell the state: the learning's cost, and a
    generation's own snapshots."""
    for r in ROLES:
        state.learn_steps[r] += snaps.steps.get(r, 0)
        state.learn_seconds[r] += snaps.seconds.get(r, 0.0)
    state.learn_wall_seconds += snaps.wall_seconds
    if snaps.iteration is None:
        for r in ROLES:
            state.snapshots(r).append(snaps.paths[r])


def _finish(cfg: TrainConfig, run_dir: Path, state: RunState, pop, started: float) -> RunState:
    """After the last generation: the final pair (the mixture, or a snapshot per role)."""
    state.selected = {}
    state.final = None
    if cfg.evaluation.select == "mixture":
        _final_mixture(cfg, run_dir, state, pop)
        state.wall_seconds = time.perf_counter() - started
    if cfg.evaluation.select == "one_step":
        _one_step(cfg, run_dir, state)
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


def _one_step(cfg: TrainConfig, run_dir: Path, state: RunState) -> None:
    """``evaluation.select: one_step``: each of the last ``select_generations`` generations'
    pair measured by its one-step gains (``training.selection``), kept in the state."""
    import torch
    from sb3_contrib import MaskablePPO

    from training.learners import derive_seed
    from training.selection import chosen, describe, one_step_gains
    from training.vine import actor

    t0 = time.perf_counter()
    torch.set_num_threads(1)
    n = len(state.punter_snapshots)
    state.one_step = []
    for gen in range(max(1, n - cfg.evaluation.select_generations + 1), n + 1):
        p, b = (actor(MaskablePPO.load(run_dir / state.snapshots(r)[gen - 1], device="cpu").policy) for r in ROLES)
        g = one_step_gains(cfg.rules, cfg.num_players, p, b, derive_seed(cfg.seed, 6, gen), tables=cfg.vine.tables)
        state.one_step.append({"generation": gen, "punter": g.punter, "banker": g.banker})
    best = chosen(state.one_step)
    print(
        "one-step gains of the last generations' pairs (a punter's / the bank's, per punter): "
        + describe(state.one_step)
        + f"; the final pair: generation {best['generation']} ({time.perf_counter() - t0:.0f} s)"
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
    if e.select == "one_step" and state.one_step:  # the pair whose larger one-step gain is least
        from training.selection import chosen

        return int(chosen(state.one_step)["generation"])
    if e.select == "last" or not all(k in curves and len(curves[k]) == n for k in keys):
        return n
    lows = [min(curves[k][i] - curves[k + "_ci"][i] for k in keys) for i in range(n)]
    return max(range(n), key=lambda i: (lows[i], i)) + 1


def _generation_report(cfg: TrainConfig, run_dir: Path, state: RunState, gen: int, pop=None) -> None:
    """After a generation: the new policies against the evaluation baselines (learning
    curves), and their exact NashConv where the exact evaluator covers the rules."""
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
    bankers, punters = list(dict.fromkeys(e.bankers)), list(dict.fromkeys(e.punters))
    common = {"rules": cfg.rules, "num_players": cfg.num_players, "hands": hands, "seed": e.seed + gen}
    jobs = [{"banker": b, "punters": punter, **common} for b in bankers]
    jobs += [{"banker": banker, "punters": p, **common} for p in punters]
    jobs += [{"banker": banker, "punters": punter, **common}]
    res = play_matches(jobs, workers=e.workers)
    nb = len(bankers)
    for b, r in zip(bankers, res[:nb], strict=True):
        _curve(curves, f"punter vs {b}", r.punter)
    for p, r in zip(punters, res[nb:-1], strict=True):
        _curve(curves, f"banker vs {p}", r.banker_result)
    _curve(curves, "punter vs learned banker", res[-1].punter)
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
    _, row = _exact_pair(cfg, run_dir, state.punter_snapshots[-1], state.banker_snapshots[-1], pop)
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
    with table_workers(2):  # the banker network's table: both cores (the learners wait)
        pe = solve.evaluate_pair(p_agent, b_agent, cfg.rules)
    nc = pe.result
    if pop is not None:  # the pair also joins the population of snapshots
        pop.add_evaluated(p_agent, b_agent, pe, (punter_rel, banker_rel))
    row = {"ev": nc.ev, "punter_br": nc.punter_br_value, "banker_br": nc.banker_br_value, "nash_conv": nc.nash_conv,
           "exploitability": nc.exploitability, "seconds": time.perf_counter() - t0}  # fmt: skip
    return pe, row


def _curve(curves: dict[str, Any], name: str, est) -> None:
    curves.setdefault(name, []).append(est.mean)
    curves.setdefault(name + "_ci", []).append(est.ci95)


def _tb_scalars(run_dir: Path, step: int, values: dict[str, float]) -> None:
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(run_dir / "tb" / "generations"))
    for k, v in values.items():
        w.add_scalar("generation/" + k.replace(" ", "_").replace(":", "_"), v, step)
    w.close()
