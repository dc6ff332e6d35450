"""``learner: pools``: each role's MaskablePPO (sb3-contrib) learns against a pool of opponents.

Training runs in generations: the punter learns for ``punter.steps`` env steps against a
pool of opponent bankers, then the banker for ``banker.steps`` against a pool of punters
(both at once with ``parallel``). Each pool mixes the fixed table heuristics
(``opponents.baseline_*``, a share ``<role>.baseline_share`` of the hands) and every
snapshot of the other learner saved so far (fictitious self-play: the newest
``opponents.snapshots`` of them, uniformly), and optionally the exact best response to the
learner's own newest snapshot (``opponents.exploiter_share``). The learner plays one seat
of ``SeatEnv`` (the Gymnasium single-seat view): its opponents act inside ``step``, so a
trajectory has one perspective and the reward is the learner's own chips. ``rounds``
splits a generation: after each round both meet the other's newest weights.

``PoolsLearner`` is this learner behind the seam of ``training.seam``; ``pools_learner``
is one of its two processes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from agents.specs import AgentSpec
from training.config import OpponentsConfig, TrainConfig
from training.learners import derive_seed, learner_model, make_venv, set_rates
from training.runs import ROLES, RunState, begin_learner_process, best_responses_file, start_learners, stop_learners
from training.seam import Snapshots

__all__ = ["PoolsLearner", "opponent_pool", "pools_learner"]


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


def pools_learner(
    role: str, cfg_data: dict[str, Any], run_dir: str, snapshot: str | None, conn, counter, parent_pid: int
) -> None:
    """A learner process: owns one role's environments and model; for each request
    ``(generation, pool, copool, round)`` it learns its steps against ``pool``, saves its
    weights and answers ``(relative path, seconds in learn(), env steps)``. ``counter``
    counts its env steps for the progress bar. It dies with its parent (``parent_pid``),
    even a parent killed by SIGKILL, and holds a share of the run folder's lock while it lives."""
    import traceback

    from siete_env.processes import quick_exit

    _lock = begin_learner_process(run_dir, parent_pid)  # noqa: F841  (held until the process ends)
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
            rates = getattr(cfg, role).ppo.at(gen, cfg.generations)
            set_rates(model, rates.learning_rate, ent_coef=rates.ent_coef)
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
    if getattr(model, "_logger", None) is not None:  # TensorBoard's files, flushed
        model.logger.close()
    conn.close()
    quick_exit()


class PoolsLearner:
    """``learner: pools`` behind the seam (``training.seam.Learner``): two learner processes
    (``pools_learner``), one generation's rounds at a time."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, state: RunState, env: dict[str, str] | None = None):
        self.cfg, self.run_dir, self.env = cfg, run_dir, env
        self._from = state  # where the run starts: its newest snapshots, its generation

    def start(self) -> None:
        import multiprocessing as mp

        from tqdm.auto import tqdm

        cfg = self.cfg
        ctx = mp.get_context("spawn")  # fresh interpreters: no torch state copied across a fork
        self.procs, self.conns, self.counters = start_learners(
            ctx, pools_learner, cfg, self.run_dir, self._from, self.env
        )
        rollout = cfg.n_envs * np.array([cfg.punter.ppo.n_steps, cfg.banker.ppo.n_steps])
        per_round = -(-np.array([cfg.punter.steps, cfg.banker.steps]) // cfg.rounds)
        per_gen = int(sum(-(-per_round // rollout) * rollout)) * cfg.rounds  # whole rollouts
        self.bar = tqdm(total=per_gen * cfg.generations, initial=per_gen * self._from.generation, unit="step",
                        dynamic_ncols=True, desc="training")  # fmt: skip

    def generation(self, gen: int, state: RunState) -> Iterator[Snapshots]:
        cfg, run_dir, o = self.cfg, self.run_dir, self.cfg.opponents
        self.bar.set_postfix_str(f"generation {gen}/{cfg.generations}")
        out = Snapshots(gen, {}, steps=dict.fromkeys(ROLES, 0), seconds=dict.fromkeys(ROLES, 0.0))
        snapshots = {r: list(state.snapshots(r)) for r in ROLES}  # with this generation's, as they come
        last = state.last_results
        pools: dict[str, dict[str, float]] = {}
        record: dict[str, dict[str, float]] = {}
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
                    snaps = [str(AgentSpec.model(run_dir / s, o.sample)) for s in snapshots[other]]
                    if other in newest:
                        snaps.append(str(AgentSpec.model(run_dir / newest[other], o.sample)))
                    exploiter = None
                    if o.exploiter_share > 0 and snapshots[role]:
                        br = best_responses_file(run_dir, snapshots[role][-1])
                        exploiter = str(AgentSpec.tables(br)) if br.is_file() else None  # none before the share was set
                    pools[role] = opponent_pool(
                        baselines, snaps, o, last.get(role), getattr(cfg, role).baseline_share, exploiter
                    )
                    copool = None  # the fellow punters at a larger table: the baselines (the learner's default)
                    if role == "punter" and cfg.num_players > 2 and o.copunters == "snapshots":
                        own = [str(AgentSpec.model(run_dir / s, o.sample)) for s in snapshots["punter"]]
                        copool = opponent_pool(o.baseline_punters, own, o, None, cfg.punter.baseline_share)
                        pools["punter's fellow punters"] = copool
                    self.conns[role].send((gen, pools[role], copool, rnd))
                t0 = time.perf_counter()
                if rnd == 0 and all(r in pools for r in ROLES):  # every pool of the generation is known now
                    record = {r: {self._short(k): round(v, 4) for k, v in p.items()} for r, p in pools.items()}
                elif rnd > 0:  # a later round's pools: the other's newest weights in them
                    record.update(
                        {
                            f"{r}, round {rnd + 1}": {self._short(k): round(v, 4) for k, v in pools[r].items()}
                            for r in group
                        }
                    )
                keep = rnd == cfg.rounds - 1  # the generation's snapshots
                for role, (rel, seconds, steps) in self._wait(group).items():
                    out.seconds[role] += seconds
                    out.steps[role] += steps  # whole rollouts: a little over the config's steps
                    if keep:
                        newest.pop(role, None)
                        snapshots[role].append(rel)
                        out.paths[role] = rel
                    else:
                        newest[role] = rel
                out.wall_seconds += time.perf_counter() - t0
        out.pools = record
        yield out

    def stop(self) -> None:
        if hasattr(self, "bar"):
            self.bar.close()
        if hasattr(self, "conns"):
            stop_learners(self.conns, self.procs)

    def _short(self, spec: str) -> str:
        """A pool's spec with its file relative to the run folder (as ``state.json`` keeps it)."""
        return str(AgentSpec.parse(spec).relative_to(self.run_dir))

    def _wait(self, group: list[str]) -> dict[str, tuple[str, float, int]]:
        """Wait for the learners of ``group``, moving the progress bar as they step; returns
        each one's answer: where it saved its weights, its seconds in learn(), its env steps."""
        conns, counters, bar = self.conns, self.counters, self.bar
        pending = set(group)
        answers: dict[str, tuple[str, float, int]] = {}
        base = bar.n - sum(counters[r].value for r in counters)
        while pending:
            for role in list(pending):
                if conns[role].poll(0.2):
                    try:
                        status, payload, seconds, steps = conns[role].recv()
                    except (EOFError, OSError):
                        code = self.procs[role].exitcode
                        raise RuntimeError(f"the {role} learner process died (exit code {code})") from None
                    if status != "ok":
                        raise RuntimeError(payload)
                    pending.discard(role)
                    answers[role] = (payload, seconds, steps)
            done = base + sum(counters[r].value for r in counters)
            bar.update(max(0, done - bar.n))
        return answers
