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
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from agents.specs import check_spec
from evaluate import write_json, yaml_value
from siete_env.rules import read_yaml_mapping, resolve_rules

DEFAULT_CONFIG = Path(__file__).parent / "configs" / "train" / "default.yaml"


# --------------------------------------------------------------------------- config
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PPOConfig(_Strict):
    """MaskablePPO hyperparameters (the names are SB3's)."""

    learning_rate: float = Field(3e-4, gt=0)
    n_steps: int = Field(256, ge=8, description="rollout steps per environment")
    batch_size: int = Field(512, ge=8)
    n_epochs: int = Field(4, ge=1)
    gamma: float = Field(1.0, gt=0, le=1)
    gae_lambda: float = Field(0.95, ge=0, le=1)
    clip_range: float = Field(0.2, gt=0)
    ent_coef: float = Field(0.01, ge=0)
    learning_rate_final: float | None = Field(
        None,
        gt=0,
        description="if set: the learning rate goes linearly from learning_rate (generation 1) to this (the last)",
    )
    ent_coef_final: float | None = Field(
        None,
        ge=0,
        description="if set: the entropy coefficient goes linearly from ent_coef (generation 1) to this (the last)",
    )
    vf_coef: float = Field(0.5, ge=0)
    max_grad_norm: float = Field(0.5, gt=0)
    net_arch: list[int] = Field(default_factory=lambda: [128, 128])
    activation: Literal["tanh", "relu"] = "tanh"

    @field_validator("net_arch")
    @classmethod
    def _arch(cls, v: list[int]) -> list[int]:
        if not v or any(x < 1 for x in v):
            raise ValueError(f"net_arch is a list of positive layer widths, e.g. [128, 128], got {v}")
        return v

    def at(self, generation: int, generations: int) -> tuple[float, float]:
        """``(learning_rate, ent_coef)`` of a generation (1-based): linear from the
        first generation's values to the ``*_final`` ones at the last."""
        f = (generation - 1) / (generations - 1) if generations > 1 else 0.0
        lr = (
            self.learning_rate
            if self.learning_rate_final is None
            else self.learning_rate + f * (self.learning_rate_final - self.learning_rate)
        )
        ent = (
            self.ent_coef if self.ent_coef_final is None else self.ent_coef + f * (self.ent_coef_final - self.ent_coef)
        )
        return lr, ent


class RoleConfig(_Strict):
    """One learner."""

    steps: int = Field(ge=1, description="learner env steps per generation")
    baseline_share: float = Field(
        0.5, ge=0, le=1, description="share of this learner's hands against the baselines (the rest: snapshots)"
    )
    ppo: PPOConfig = Field(default_factory=PPOConfig)


class OpponentsConfig(_Strict):
    """The training pools."""

    baseline_punters: list[str] = Field(
        default_factory=lambda: ["threshold:5", "threshold:5.5", "bold:5.5"], min_length=1
    )
    baseline_bankers: list[str] = Field(default_factory=lambda: ["banker:5.5", "banker:6", "smart:6"], min_length=1)
    snapshots: int = Field(0, ge=0, description="newest snapshots kept in a pool (0: all of them)")
    weighting: Literal["uniform", "prioritized", "nash"] = Field(
        "prioritized",
        description="how the pool shares its hands: uniformly; prioritized fictitious self-play (the "
        "baselines weighted exp(-result/temperature) by the last generation's evaluation: the opponents "
        "the learner does worst against are met most); or nash (PSRO: the snapshots weighted by a Nash "
        "equilibrium of the restricted game between the two learners' snapshots, from exact values; "
        "heads-up rules the exact evaluator covers; the baselines then share their part uniformly)",
    )
    temperature: float = Field(0.1, gt=0, description="chips per hand; lower: focus harder on the worst opponent")
    exploiter_share: float = Field(
        0.0,
        ge=0,
        le=1,
        description="share of each learner's hands against the exact best response to its own newest "
        "snapshot (computed by siete_env.exact after every generation, saved as gen_XXX/br.npz; heads-up "
        "rules the exact evaluator covers): the learner meets the opponent that exploits it most",
    )

    @field_validator("baseline_punters", "baseline_bankers")
    @classmethod
    def _specs(cls, v: list[str]) -> list[str]:
        for s in v:
            if s.startswith("ppo:"):
                raise ValueError(f"baseline {s!r}: baselines are heuristic specs; learned snapshots join by themselves")
            check_spec(s)
        return v


class EvaluationConfig(_Strict):
    """The final evaluation (a round robin by role) and the per-generation one."""

    hands: int = Field(200_000, ge=100, description="hands per pairing in the final report")
    punters: list[str] = Field(default_factory=lambda: ["random", "threshold:5", "threshold:5.5", "bold:5.5"])
    bankers: list[str] = Field(default_factory=lambda: ["random", "banker:5.5", "banker:6", "smart:6"])
    generation_hands: int = Field(20_000, ge=0, description="hands per pairing after each generation (0: none)")
    workers: int = Field(2, ge=1)
    map_hands: int = Field(50_000, ge=100, description="hands recorded for each strategy map of the report")
    seed: int = Field(2026, ge=0)
    exact: bool = Field(True, description="exact EV / best responses / NashConv when the rules are covered")
    select: Literal["last", "best_worst", "mixture"] = Field(
        "best_worst",
        description="which snapshot becomes the final policy of each role: the last one, or the one whose "
        "worst result against the evaluation baselines (lower 95% bound, per-generation evaluation) is best; "
        "or (mixture) a mixture of all the snapshots, weighted to be least exploitable in the full game "
        "(siete_env.mixture; heads-up rules the exact evaluator covers), saved as final.npz",
    )
    mixture_iterations: int = Field(60, ge=0, description="Hedge steps of the least-exploitable mixture, per role")

    @field_validator("punters", "bankers")
    @classmethod
    def _specs(cls, v: list[str]) -> list[str]:
        if not v:
            raise ValueError("at least one baseline is needed")
        for s in v:
            check_spec(s)
        return v


class TrainConfig(_Strict):
    """A training run (``configs/train/*.yaml``)."""

    name: str = "default"
    rules: str | dict[str, Any] = "spanish"
    num_players: int = Field(2, ge=2, le=12)
    seed: int = Field(0, ge=0)
    generations: int = Field(ge=1)
    n_envs: int = Field(8, ge=1)
    vec_env: Literal["dummy", "batched"] = Field(
        "dummy",
        description="the learners' environments: dummy (SB3's DummyVecEnv of SeatEnv, the AEC engine) or batched "
        "(siete_env.batched: the n_envs tables stepped together by the batched engine, opponents in batch; "
        "the spanish rules it plays, one hand per episode)",
    )
    threads: int = Field(1, ge=1, description="torch threads per learner (1 is fastest on a small machine)")
    parallel: bool = Field(
        True,
        description="train both learners at once, in two processes (each generation against the other's "
        "snapshots up to the previous generation); false: alternate, the banker after the punter",
    )
    punter: RoleConfig
    banker: RoleConfig
    opponents: OpponentsConfig = Field(default_factory=OpponentsConfig)
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig)

    @field_validator("rules")
    @classmethod
    def _rules(cls, v: Any) -> Any:
        resolve_rules(v)  # a clear ValueError for an unknown preset or option
        return v

    @model_validator(mode="after")
    def _batched_rules(self) -> TrainConfig:
        if self.vec_env == "batched":
            from siete_env.batched import check_rules

            try:
                check_rules(self.rules, self.num_players)
            except ValueError as err:
                raise ValueError(f"vec_env: batched needs rules the batched engine plays: {err}") from None
        return self

    @model_validator(mode="after")
    def _exact_needed(self) -> TrainConfig:
        wants = []
        if self.opponents.weighting == "nash":
            wants.append("opponents.weighting: nash")
        if self.opponents.exploiter_share > 0:
            wants.append("opponents.exploiter_share")
        for role in ("punter", "banker"):
            total = getattr(self, role).baseline_share + self.opponents.exploiter_share
            if total > 1:
                raise ValueError(
                    f"{role}.baseline_share + opponents.exploiter_share is {total:g}: at most 1 (the rest of the "
                    "hands go to the snapshots)"
                )
        if self.evaluation.select == "mixture":
            wants.append("evaluation.select: mixture")
        if not wants:
            return self
        from siete_env import exact

        need = " and ".join(wants) + (" need" if len(wants) > 1 else " needs")

        if self.num_players != 2:
            raise ValueError(f"{need} heads-up play (num_players: 2), got {self.num_players}")
        if self.opponents.weighting == "nash" and not self.parallel:
            raise ValueError("opponents.weighting: nash needs parallel: true (both learners meet the same snapshots)")
        if not self.evaluation.exact:
            raise ValueError(f"{need} evaluation.exact: true")
        try:
            exact.check_rules(self.rules)
        except ValueError as err:
            raise ValueError(f"{need} rules the exact evaluator covers: {err}") from None
        return self


def _format_errors(e: ValidationError) -> str:
    lines = []
    for err in e.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        got = "" if not err["loc"] else f" (got {err.get('input')!r})"  # top level: the message says it
        lines.append(f"  {loc}: {msg}{got}")
    return "\n".join(lines)


def _set(d: dict[str, Any], dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    for k in keys[:-1]:
        nxt = d.setdefault(k, {})
        if not isinstance(nxt, dict):
            raise ValueError(f"--set {dotted}: {k} is not a section")
        d = nxt
    d[keys[-1]] = value


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> TrainConfig:
    """A validated config from a YAML file plus ``key=value`` overrides (dotted keys,
    YAML values). Any problem raises ``ValueError`` naming the key and what is allowed."""
    path = Path(path) if path else DEFAULT_CONFIG
    data = read_yaml_mapping(path, what="config", holds="settings")
    for item in overrides or []:
        key, eq, raw = item.partition("=")
        if not eq or not key:
            raise ValueError(f"override {item!r} must look like key=value (e.g. generations=3, punter.steps=20000)")
        _set(data, key.strip(), yaml_value(raw))
    try:
        return TrainConfig(**data)
    except ValidationError as e:
        raise ValueError(f"invalid training config {str(path)!r}:\n{_format_errors(e)}") from None
    except ValueError as e:
        raise ValueError(f"invalid training config {str(path)!r}: {e}") from None


# --------------------------------------------------------------------------- training
ROLES = ("punter", "banker")


def opponent_pool(
    baselines: list[str],
    snapshots: list[str],
    o: OpponentsConfig,
    results: dict[str, float] | None = None,
    baseline_share: float = 0.5,
    snapshot_weights: np.ndarray | None = None,
    exploiter: str | None = None,
) -> dict[str, float]:
    """Opponent weights for one learner's generation: ``baseline_share`` over the
    baselines (uniform, or prioritized by the learner's last ``results`` against them:
    ``exp(-result / temperature)``), the rest over the other learner's snapshots (the
    newest ``snapshots`` of them, or all): uniformly, or in proportion to
    ``snapshot_weights`` (one per snapshot; ``weighting: nash``); and, given an
    ``exploiter`` spec, ``o.exploiter_share`` of the hands to it (taken from the snapshots'
    part)."""
    snaps = snapshots[-o.snapshots :] if o.snapshots else list(snapshots)
    sw = np.ones(len(snaps))
    if snapshot_weights is not None:
        if len(snapshot_weights) != len(snapshots):
            raise ValueError(f"{len(snapshot_weights)} snapshot weights for {len(snapshots)} snapshots")
        sw = np.asarray(snapshot_weights, np.float64)[len(snapshots) - len(snaps) :]
        sw = sw / sw.sum() * len(sw) if sw.sum() > 0 else np.ones(len(snaps))
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
    for snap, w in zip(snaps, sw, strict=True):
        pool[snap] = pool.get(snap, 0.0) + float(rest * w / len(snaps))
    return {k: v for k, v in pool.items() if v > 0}


def _derive(seed: int, *keys: int) -> int:
    return int(np.random.SeedSequence([seed, *keys]).generate_state(1)[0])


def _make_model(role_cfg: RoleConfig, venv, seed: int, tb: str):
    import torch
    from sb3_contrib import MaskablePPO

    p = role_cfg.ppo
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
    return MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=p.learning_rate,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        policy_kwargs={"net_arch": list(p.net_arch), "activation_fn": act},
        tensorboard_log=tb,
        seed=seed,
        device="cpu",
        verbose=0,
    )


def _venv(cfg: TrainConfig, role: str, seed: int):
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from siete_env.gym_env import SeatEnv

    first = cfg.opponents.baseline_bankers if role == "punter" else cfg.opponents.baseline_punters
    # at a larger table the punter learner's fellow punters are the punter heuristics
    co = cfg.opponents.baseline_punters if role == "punter" and cfg.num_players > 2 else None
    if cfg.vec_env == "batched":
        from siete_env.batched.vector import SB3VecEnv, SeatVectorEnv

        tables = SeatVectorEnv(num_envs=cfg.n_envs, role=role, rules=cfg.rules, num_players=cfg.num_players,
                               opponents=first, copunters=co, fold_suits="auto", seed=_derive(seed, 0))  # fmt: skip
        return VecMonitor(SB3VecEnv(tables))
    fns = [
        (lambda i=i: SeatEnv(role=role, rules=cfg.rules, num_players=cfg.num_players, opponents=first,
                             copunters=co, fold_suits="auto", seed=_derive(seed, i)))
        for i in range(cfg.n_envs)
    ]  # fmt: skip
    # VecMonitor: episode rewards and lengths in TensorBoard (rollout/ep_rew_mean)
    return VecMonitor(DummyVecEnv(fns))


def _learner(role: str, cfg_data: dict[str, Any], run_dir: str, snapshot: str | None, conn, counter) -> None:
    """A learner process: owns one role's environments and model; for each request
    ``(generation, pool, seed)`` it learns ``steps`` env steps against ``pool``, saves a
    snapshot and answers ``(relative path, seconds in learn())``. ``counter`` counts its
    env steps for the progress bar."""
    import signal
    import traceback

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    try:
        import torch
        from sb3_contrib import MaskablePPO

        cfg = TrainConfig(**cfg_data)
        torch.set_num_threads(cfg.threads)
        root = Path(run_dir)
        tb = str(root / "tb")
        i = ROLES.index(role)
        venv = _venv(cfg, role, _derive(cfg.seed, 1, i))
        if snapshot:
            model = MaskablePPO.load(root / snapshot, env=venv, device="cpu", tensorboard_log=tb)
        else:
            model = _make_model(getattr(cfg, role), venv, _derive(cfg.seed, 2, i), tb)
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
        gen, pool = msg
        try:
            venv.env_method("set_opponents", pool, co)
            seed = _derive(cfg.seed, 3, gen, i)
            venv.seed(seed)
            model.set_random_seed(seed)
            model._last_obs = None  # the generation starts from fresh episodes (exact resume)
            model.learning_rate, model.ent_coef = getattr(cfg, role).ppo.at(gen, cfg.generations)
            model._setup_lr_schedule()
            t0, before = time.perf_counter(), model.num_timesteps
            model.learn(steps, callback=Count(), tb_log_name=role, reset_num_timesteps=False)
            seconds = time.perf_counter() - t0
            rel = f"gen_{gen:03d}/{role}.zip"
            (root / rel).parent.mkdir(exist_ok=True)
            model.save(root / rel)
            conn.send(("ok", rel, seconds, model.num_timesteps - before))
        except Exception as e:  # noqa: BLE001  (reported to the main process)
            conn.send(("error", f"{role} learner: {e!r}\n{traceback.format_exc()}", 0.0, 0))
            break
    conn.close()


def new_state() -> dict[str, Any]:
    return {
        "generation": 0,
        "punter_snapshots": [],
        "banker_snapshots": [],
        "learn_seconds": {"punter": 0.0, "banker": 0.0},
        "learn_steps": {"punter": 0, "banker": 0},
        "learn_wall_seconds": 0.0,
        "pools": [],
        "curves": {"generation": []},
        "nash_conv": [],
    }


def train(cfg: TrainConfig, run_dir: Path, resume: bool = False) -> dict[str, Any]:
    """Run (or resume) the training of ``cfg`` in ``run_dir``; returns the final state."""
    import multiprocessing as mp

    from tqdm.auto import tqdm

    run_dir.mkdir(parents=True, exist_ok=True)
    state_path = run_dir / "state.json"
    state = json.loads(state_path.read_text()) if resume and state_path.exists() else new_state()
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.model_dump(), sort_keys=False))
    pop = _population(cfg, run_dir, state)  # before the learners start: a resume rebuilds it first
    ctx = mp.get_context("spawn")  # fresh interpreters: no torch state copied across a fork
    procs, conns, counters = {}, {}, {}
    for role in ROLES:
        parent, child = ctx.Pipe()
        counters[role] = ctx.Value("q", 0)
        snaps = state[f"{role}_snapshots"]
        procs[role] = ctx.Process(
            target=_learner,
            args=(role, cfg.model_dump(), str(run_dir), snaps[-1] if snaps else None, child, counters[role]),
            daemon=True,
        )
        procs[role].start()
        child.close()  # only the learner holds its end: its death then reads as EOF here
        conns[role] = parent
    rollout = cfg.n_envs * np.array([cfg.punter.ppo.n_steps, cfg.banker.ppo.n_steps])
    per_gen = int(sum(-(-np.array([cfg.punter.steps, cfg.banker.steps]) // rollout) * rollout))  # whole rollouts
    bar = tqdm(total=per_gen * cfg.generations, initial=per_gen * state["generation"], unit="step",
               dynamic_ncols=True, desc="training")  # fmt: skip
    o = cfg.opponents
    try:
        for gen in range(state["generation"] + 1, cfg.generations + 1):
            bar.set_postfix_str(f"generation {gen}/{cfg.generations}")
            last = state.get("last_results", {})
            pools = {}
            meta = pop.restricted_nash() if (pop is not None and o.weighting == "nash" and pop.punters) else None
            order = [list(ROLES)] if cfg.parallel else [[r] for r in ROLES]
            for group in order:
                for role in group:
                    # the other learner's snapshots so far: alternating, the banker also meets
                    # the punter just trained; in parallel, both meet the previous generation
                    other = "banker" if role == "punter" else "punter"
                    baselines = o.baseline_bankers if role == "punter" else o.baseline_punters
                    snaps = [f"ppo:{run_dir / s}" for s in state[f"{other}_snapshots"]]
                    sw = None if meta is None else meta[0 if other == "punter" else 1]
                    exploiter = None
                    if o.exploiter_share > 0 and state[f"{role}_snapshots"]:
                        br = run_dir / Path(state[f"{role}_snapshots"][-1]).parent / "br.npz"
                        exploiter = f"table:{br}" if br.is_file() else None  # none before the share was set
                    pools[role] = opponent_pool(
                        baselines, snaps, o, last.get(role), getattr(cfg, role).baseline_share, sw, exploiter
                    )
                    conns[role].send((gen, pools[role]))
                t0 = time.perf_counter()
                if len(pools) == len(ROLES):  # every pool of the generation is known now
                    state["pools"].append(
                        {r: {_short(k, run_dir): round(v, 4) for k, v in p.items()} for r, p in pools.items()}
                    )
                _wait(group, conns, counters, bar, state, procs)
                state["learn_wall_seconds"] = state.get("learn_wall_seconds", 0.0) + time.perf_counter() - t0
            _generation_report(cfg, run_dir, state, gen, pop)
            state["generation"] = gen
            write_json(state_path, state)
    finally:
        bar.close()
        for role, c in conns.items():
            try:
                c.send(None)
            except (BrokenPipeError, OSError):
                pass
            procs[role].join(timeout=30)
            if procs[role].is_alive():
                procs[role].terminate()
    state["selected"] = {}
    state.pop("final", None)
    if cfg.evaluation.select == "mixture":
        _final_mixture(cfg, run_dir, state, pop)
    for role in ROLES:
        g = select_generation(cfg, state, role)
        state["selected"][role] = g
        shutil.copyfile(run_dir / state[f"{role}_snapshots"][g - 1], run_dir / f"{role}.zip")
    write_json(state_path, state)
    return state


def _population(cfg: TrainConfig, run_dir: Path, state: dict[str, Any]):
    """The snapshots as a ``siete_env.mixture.Population`` (exact values of every pairing),
    when the config mixes them (``weighting: nash`` or ``select: mixture``); on a resume the
    snapshots already there join first."""
    if cfg.opponents.weighting != "nash" and cfg.evaluation.select != "mixture":
        return None
    from agents.specs import make_agent
    from siete_env import raw_env
    from siete_env.mixture import Population

    pop = Population(cfg.rules)
    table = raw_env(num_players=2, rules=cfg.rules)
    for p, b in zip(state["punter_snapshots"], state["banker_snapshots"], strict=True):
        pop.add_pair(make_agent(f"ppo:{run_dir / p}", table), make_agent(f"ppo:{run_dir / b}", table), (p, b))
    return pop


def _final_mixture(cfg: TrainConfig, run_dir: Path, state: dict[str, Any], pop) -> None:
    """``evaluation.select: mixture``: the least exploitable mixture of the snapshots
    (``siete_env.mixture``) becomes the final pair, saved as ``final.npz``."""
    t0 = time.perf_counter()
    wp, wb = pop.least_exploitable(iterations=cfg.evaluation.mixture_iterations)
    sol = pop.mixture(wp, wb)
    sol.save(run_dir / "final.npz")
    state["final"] = {"spec": "table:final.npz", "nash_conv": sol.result.nash_conv, "ev": sol.result.ev,
                      "weights": sol.weights, "seconds": time.perf_counter() - t0}  # fmt: skip
    print(f"final mixture of the snapshots: NashConv {sol.result.nash_conv:.4f} chips per hand")


def select_generation(cfg: TrainConfig, state: dict[str, Any], role: str) -> int:
    """The generation whose snapshot becomes the final ``role`` policy: the last, or
    (``evaluation.select: best_worst``) the one with the best worst-case lower bound
    against the evaluation baselines in the per-generation evaluation (fresh decks at
    every generation; the final report then evaluates the choice on other decks)."""
    n = len(state[f"{role}_snapshots"])
    curves = state["curves"]
    e = cfg.evaluation
    opponents = e.bankers if role == "punter" else e.punters
    keys = [f"{role} vs {o}" for o in opponents]
    if e.select == "mixture":  # the final pair is the mixture; {role}.zip: its heaviest member
        w = list(state.get("final", {}).get("weights", {}).get(role, {}).values())
        return int(np.argmax(w)) + 1 if len(w) == n else n
    if e.select == "last" or not all(k in curves and len(curves[k]) == n for k in keys):
        return n
    lows = [min(curves[k][i] - curves[k + "_ci"][i] for k in keys) for i in range(n)]
    return max(range(n), key=lambda i: (lows[i], i)) + 1


def _short(spec: str, run_dir: Path) -> str:
    return spec.replace(f"ppo:{run_dir}/", "ppo:").replace(f"table:{run_dir}/", "table:")


def _wait(group: list[str], conns, counters, bar, state: dict[str, Any], procs) -> None:
    """Wait for the learners of ``group``, moving the progress bar as they step."""
    pending = set(group)
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
                state[f"{role}_snapshots"].append(payload)
                state["learn_seconds"][role] += seconds
                state["learn_steps"][role] += steps  # whole rollouts: a little over the config's steps
        done = base + sum(counters[r].value for r in counters)
        bar.update(max(0, done - bar.n))


def _generation_report(cfg: TrainConfig, run_dir: Path, state: dict[str, Any], gen: int, pop=None) -> None:
    """After a generation: the new policies against the evaluation baselines (learning
    curves; also the results that prioritize the next generation's opponents), and their
    exact NashConv where the exact evaluator covers the rules."""
    from agents.tournament import play_matches

    e, o = cfg.evaluation, cfg.opponents
    curves = state["curves"]
    curves["generation"].append(gen)
    punter = f"ppo:{run_dir / state['punter_snapshots'][-1]}"
    banker = f"ppo:{run_dir / state['banker_snapshots'][-1]}"
    if e.exact:
        _exact_generation(cfg, run_dir, state, gen, punter, banker, pop)
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
    state["last_results"] = last
    _tb_scalars(
        run_dir,
        gen,
        {k: v[-1] for k, v in curves.items() if isinstance(v, list) and k != "generation" and not k.endswith("_ci")},
    )


def _exact_generation(
    cfg: TrainConfig, run_dir: Path, state: dict[str, Any], gen: int, punter: str, banker: str, pop=None
) -> None:
    """The exact NashConv of the generation's pair (``siete_env.exact``), when the exact
    evaluator covers the rules (heads-up spanish without splits); else the reason once."""
    from agents.specs import make_agent
    from siete_env import exact, raw_env

    if cfg.num_players != 2:
        state["exact_note"] = "exact evaluation is heads-up only (num_players: 2)"
        return
    try:
        exact.check_rules(cfg.rules)
    except ValueError as err:
        state["exact_note"] = f"NashConv not computed: {err}"
        return
    t0 = time.perf_counter()
    table = raw_env(num_players=2, rules=cfg.rules)
    p_agent, b_agent = make_agent(punter, table), make_agent(banker, table)
    pe = exact.evaluate_pair(p_agent, b_agent, cfg.rules)
    nc = pe.result
    if pop is not None:  # the pair also joins the population of snapshots
        pop.add_evaluated(p_agent, b_agent, pe, tuple(str(Path(x[4:]).relative_to(run_dir)) for x in (punter, banker)))
    if cfg.opponents.exploiter_share > 0:  # the exploiters of the next generation's pools
        _save_best_responses(cfg, Path(punter[4:]).parent / "br.npz", pe)
    state["nash_conv"].append(
        {"generation": gen, "ev": nc.ev, "punter_br": nc.punter_br_value, "banker_br": nc.banker_br_value,
         "nash_conv": nc.nash_conv, "exploitability": nc.exploitability, "seconds": time.perf_counter() - t0}
    )  # fmt: skip
    _tb_scalars(run_dir, gen, {"nash_conv": nc.nash_conv})


def _save_best_responses(cfg: TrainConfig, path: Path, pe) -> None:
    """The exact best responses to one generation's pair (``pe``: its
    ``siete_env.exact.evaluate_pair``), as one table file playing either seat
    (``table:PATH``): as punter the best response to the banker, as banker the best
    response to the punter. Where the punter snapshot never stands (its greedy play does
    not reach a view, so any banker play is a best response there) the banker plays as its
    own snapshot does, not an arbitrary default: a sampling learner does reach those views."""
    from siete_env import exact
    from siete_env.cfr import Solution

    ev = exact.evaluator(cfg.rules)
    unreached = pe.W.reshape(len(pe.hit), -1).sum(1) == 0
    hit = np.where(unreached[:, None], pe.hit, np.asarray(pe.br_hit, np.float64))
    p_bet, p_draw = ev.punter_table(exact.TabularPunterPolicy(ev, pe.br_bet, pe.br_draw))
    Solution(ev.rules.model_dump(mode="json"), 0, p_bet, p_draw, hit, pe.result, ev=ev,
             source="best responses").save(path)  # fmt: skip


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
    args = ap.parse_args(argv)
    try:
        if args.resume and (args.config or args.run_dir):
            raise ValueError("--resume takes the run folder's own config.yaml: drop --config and --run-dir")
        if args.resume:
            run_dir = Path(args.resume)
            if not (run_dir / "config.yaml").exists():
                raise ValueError(f"--resume {run_dir}: no config.yaml there (not a run folder)")
            cfg = load_config(run_dir / "config.yaml", args.set)
        else:
            cfg = load_config(args.config, args.set)
            run_dir = Path(args.run_dir) if args.run_dir else Path("runs") / f"{cfg.name}-s{cfg.seed}"
            if (run_dir / "state.json").exists():
                raise ValueError(
                    f"run folder {run_dir} already holds a run: use --resume {run_dir} or another --run-dir"
                )
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    print(f"run folder: {run_dir}")
    try:
        state = train(cfg, run_dir, resume=bool(args.resume))
        train_seconds = time.perf_counter() - t0
        if not args.no_eval:
            from evaluate import run_report

            run_report(cfg, run_dir, state, train_seconds=train_seconds)
    except KeyboardInterrupt:
        print(f"\ninterrupted; go on with: python train.py --resume {run_dir}", file=sys.stderr)
        return 130
    print(f"done in {time.perf_counter() - t0:.0f} s; run folder: {run_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
