"""Multi-agent training on Ray RLlib: a banker policy and a punter policy learning against
each other on the AEC environment (the optional extra: ``pip install -e ".[rllib]"``).

    python train_rllib.py                                         # configs/rllib/default.yaml, ray.init() here
    python train_rllib.py --set iterations=5 env_runners.num_env_runners=0
    python train_rllib.py --config configs/rllib/cluster.yaml     # address: auto (a cluster, docs/rllib.md)

RLlib's PPO (new API stack: RLModules, Learners, EnvRunners) on ``siete_env.role_env.RoleEnv``
wrapped in RLlib's ``PettingZooEnv``: agents ``banker`` and ``punter_1..`` (the bank at
seat 0), one RL module per role (``policy_mapping_fn``: ``banker`` -> the banker module,
every punter -> the punter module), both trained, each RLlib's default PPO module with
action masking (``agents.rllib_module``; observations ``{"observations", "action_mask"}``:
illegal actions get no probability). Rewards are each agent's own chips.

The run folder (``runs/rllib-<name>-s<seed>`` unless ``--run-dir``) holds ``config.yaml``,
``progress.jsonl`` (one line per iteration: env steps, throughput, returns and losses per
module, illegal moves so far: 0), ``checkpoints/iter_XXXX`` (RLlib checkpoints, each with
``siete_actors.npz``: the two actors as numpy arrays), ``checkpoint`` (the last one) and
``report.json`` (the final policies against the baselines, played by ``agents.tournament``).
Any checkpoint is an agent spec for ``evaluate.py``: ``rllib:runs/.../checkpoint``
(``:sample`` to sample).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from agents.specs import AgentSpec, check_spec
from siete_env.rules import resolve_rules
from training.config import read_config

DEFAULT_CONFIG = Path(__file__).parent / "configs" / "rllib" / "default.yaml"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RayConfig(_Strict):
    address: str | None = Field(
        None,
        description="null: start Ray on this machine (ray.init()); 'auto': join the cluster this node belongs to "
        "(started with `ray start --head` / `ray start --address=HEAD:6379`); 'ray://HEAD:10001': Ray Client",
    )
    num_cpus: int | None = Field(None, ge=1, description="CPUs Ray may use when it starts here (null: all)")
    ship_code: bool = Field(
        True, description="send siete_env and agents to the workers (runtime_env py_modules): nothing to install there"
    )


class EnvRunnersConfig(_Strict):
    num_env_runners: int = Field(1, ge=0, description="sampling actors (0: sample in the main process)")
    num_envs_per_env_runner: int = Field(8, ge=1, description="tables per runner (batched inference)")
    num_cpus_per_env_runner: int = Field(1, ge=1)
    rollout_fragment_length: int | Literal["auto"] = "auto"


class LearnersConfig(_Strict):
    num_learners: int = Field(0, ge=0, description="learner actors (0: learn in the main process); >1: data-parallel")
    num_gpus_per_learner: float = Field(0, ge=0)


class PPOParams(_Strict):
    lr: float = Field(3e-4, gt=0)
    train_batch_size_per_learner: int = Field(4000, ge=16)
    minibatch_size: int = Field(512, ge=8)
    num_epochs: int = Field(4, ge=1)
    gamma: float = Field(1.0, gt=0, le=1)
    lambda_: float = Field(0.95, ge=0, le=1)
    clip_param: float = Field(0.2, gt=0)
    entropy_coeff: float = Field(0.01, ge=0)
    vf_loss_coeff: float = Field(0.5, ge=0)
    vf_clip_param: float = Field(10.0, gt=0)
    fcnet_hiddens: list[int] = Field(default_factory=lambda: [128, 128])
    fcnet_activation: Literal["tanh", "relu"] = "tanh"


class EvaluationConfig(_Strict):
    hands: int = Field(50_000, ge=0, description="hands per pairing of the final report (0: no report)")
    punters: list[str] = Field(default_factory=lambda: ["random", "threshold:5", "threshold:5.5", "bold:5.5"])
    bankers: list[str] = Field(default_factory=lambda: ["random", "banker:5.5", "banker:6", "smart:6"])
    seed: int = 2026

    @field_validator("punters", "bankers")
    @classmethod
    def _specs(cls, v: list[str]) -> list[str]:
        for s in v:
            check_spec(s)
        return v


class RLlibConfig(_Strict):
    """A multi-agent RLlib run (``configs/rllib/*.yaml``)."""

    name: str = "default"
    rules: str | dict[str, Any] = "spanish"
    num_players: int = Field(2, ge=2, le=12)
    seed: int = Field(0, ge=0)
    iterations: int = Field(20, ge=1, description="algo.train() calls")
    checkpoint_every: int = Field(5, ge=1)
    fold_suits: bool | Literal["auto"] = "auto"
    ray: RayConfig = Field(default_factory=RayConfig)
    env_runners: EnvRunnersConfig = Field(default_factory=EnvRunnersConfig)
    learners: LearnersConfig = Field(default_factory=LearnersConfig)
    ppo: PPOParams = Field(default_factory=PPOParams)
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig)

    @field_validator("rules")
    @classmethod
    def _rules(cls, v: Any) -> Any:
        resolve_rules(v)
        return v


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> RLlibConfig:
    """A validated config from YAML plus ``key=value`` overrides (dotted keys, YAML values),
    read as ``train.py`` reads its configs (``training.config.read_config``)."""
    return read_config(RLlibConfig, path or DEFAULT_CONFIG, overrides, "RLlib config", "iterations=5, ppo.lr=0.0001")


# --------------------------------------------------------------------------- RLlib
def policy_mapping_fn(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """One module per role: ``banker`` -> banker, ``punter_i`` -> punter."""
    return "banker" if agent_id == "banker" else "punter"


def make_env(env_config: dict[str, Any]):
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from siete_env.role_env import RoleEnv

    return PettingZooEnv(RoleEnv(**env_config))


def algorithm_config(cfg: RLlibConfig):
    """The PPO ``AlgorithmConfig`` of a run."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from agents.rllib_module import MaskedPPOTorchRLModule

    register_env("siete_y_media_roles", make_env)
    p = cfg.ppo
    model = {"fcnet_hiddens": list(p.fcnet_hiddens), "fcnet_activation": p.fcnet_activation}
    specs = {
        role: RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model) for role in ("banker", "punter")
    }
    r, lr = cfg.env_runners, cfg.learners
    return (
        PPOConfig()
        .environment(
            "siete_y_media_roles",
            env_config={"num_players": cfg.num_players, "rules": cfg.rules, "fold_suits": cfg.fold_suits},
            # RLlib's env check (check_multiagent_environments, on every env an env runner
            # makes) steps each env once with get_action_space(agent).sample(): an unmasked
            # action, illegal two times in three (a punter's first move: 5 legal of 15), each
            # one ending its hand with PettingZoo's "Illegal move made" warning. The masked
            # modules never make one; tests/test_rllib.py runs RLlib's check with legal
            # actions (and PettingZoo's api_test) instead.
            disable_env_checking=True,
        )
        .multi_agent(
            policies={"banker", "punter"}, policy_mapping_fn=policy_mapping_fn, policies_to_train=["banker", "punter"]
        )  # fmt: skip
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .env_runners(
            num_env_runners=r.num_env_runners,
            num_envs_per_env_runner=r.num_envs_per_env_runner,
            num_cpus_per_env_runner=r.num_cpus_per_env_runner,
            rollout_fragment_length=r.rollout_fragment_length,
        )
        .learners(num_learners=lr.num_learners, num_gpus_per_learner=lr.num_gpus_per_learner)
        .training(
            lr=p.lr,
            train_batch_size_per_learner=p.train_batch_size_per_learner,
            minibatch_size=p.minibatch_size,
            num_epochs=p.num_epochs,
            gamma=p.gamma,
            lambda_=p.lambda_,
            clip_param=p.clip_param,
            entropy_coeff=p.entropy_coeff,
            vf_loss_coeff=p.vf_loss_coeff,
            vf_clip_param=p.vf_clip_param,
        )
        .debugging(seed=cfg.seed, log_level="ERROR")
    )


def init_ray(cfg: RLlibConfig) -> None:
    import ray

    kwargs: dict[str, Any] = {"include_dashboard": False, "ignore_reinit_error": True, "log_to_driver": False}
    if cfg.ray.address is not None:
        kwargs["address"] = cfg.ray.address
    elif cfg.ray.num_cpus is not None:
        kwargs["num_cpus"] = cfg.ray.num_cpus
    if cfg.ray.ship_code:
        import agents
        import siete_env

        kwargs["runtime_env"] = {
            "py_modules": [str(Path(siete_env.__file__).parent), str(Path(agents.__file__).parent)],
            "excludes": ["__pycache__", "*.so"],  # the workers run the Python engine and compile their own kernels
        }
    ray.init(**kwargs)


def illegal_moves(algo) -> int | None:
    """Actions given against the mask so far by the envs of every env runner (the local one
    and the remote ones; ``RoleEnv.illegal_moves``): a masked learner makes none. None if no
    runner holds an env to ask."""

    def count(runner) -> tuple[int, int]:
        envs = getattr(getattr(runner, "env", None), "envs", None) or []
        roles = [getattr(e.unwrapped, "env", None) for e in envs]
        counts = [r.illegal_moves for r in roles if hasattr(r, "illegal_moves")]
        return len(counts), sum(counts)

    found = algo.env_runner_group.foreach_env_runner(count, local_env_runner=True)
    return sum(k for _, k in found) if any(n for n, _ in found) else None


def module_states(algo) -> dict[str, dict[str, Any]]:
    """Each role's module state dict (torch tensors) from the learner."""
    return {role: algo.get_module(role).state_dict() for role in ("banker", "punter")}


def save_checkpoint(algo, cfg: RLlibConfig, path: Path) -> Path:
    """An RLlib checkpoint at ``path`` with the numpy actors beside it (``rllib:PATH``)."""
    from agents.rllib_policy import ACTORS_FILE, save_actors

    algo.save(str(path.resolve()))
    meta = {
        "rules": cfg.rules,
        "num_players": cfg.num_players,
        "fold_suits": cfg.fold_suits,
        "activation": cfg.ppo.fcnet_activation,
        "iteration": algo.iteration,
    }
    save_actors(path / ACTORS_FILE, module_states(algo), meta)
    return path


def _summary(result: dict[str, Any], seconds: float) -> dict[str, Any]:
    runners = result.get("env_runners", {})
    learners = result.get("learners", {})
    steps = int(runners.get("num_env_steps_sampled", 0))
    out = {
        "iteration": int(result.get("training_iteration", 0)),
        "env_steps": steps,
        "env_steps_lifetime": int(runners.get("num_env_steps_sampled_lifetime", 0)),
        "seconds": seconds,
        "env_steps_per_s": steps / seconds if seconds > 0 else 0.0,
        "episodes": int(runners.get("num_episodes", 0)),
        "returns": {k: float(v) for k, v in runners.get("module_episode_returns_mean", {}).items()},
    }
    for role in ("banker", "punter"):
        st = learners.get(role, {})
        out[role] = {k: float(st[k]) for k in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss") if k in st}
        out[role]["steps_trained"] = int(st.get("num_module_steps_trained", 0))
    return out


def train(cfg: RLlibConfig, run_dir: Path, progress=print) -> dict[str, Any]:
    """Train for ``cfg.iterations``, checkpointing; returns the final state."""
    import ray

    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.model_dump(), sort_keys=False))
    (run_dir / "siete_meta.json").write_text(json.dumps({"rules": cfg.rules, "num_players": cfg.num_players}))
    init_ray(cfg)
    try:
        algo = algorithm_config(cfg).build_algo()
        log = (run_dir / "progress.jsonl").open("a")
        last = None
        total_steps, total_seconds = 0, 0.0
        for it in range(1, cfg.iterations + 1):
            t0 = time.perf_counter()
            result = algo.train()
            s = _summary(result, time.perf_counter() - t0)
            s["illegal_moves"] = illegal_moves(algo)  # so far, over all env runners: 0 (masked modules)
            total_steps += s["env_steps"]
            total_seconds += s["seconds"]
            log.write(json.dumps(s) + "\n")
            log.flush()
            progress(
                f"iteration {it}/{cfg.iterations}: {s['env_steps']} env steps in {s['seconds']:.1f} s "
                f"({s['env_steps_per_s']:,.0f}/s), returns "
                + ", ".join(f"{k} {v:+.3f}" for k, v in sorted(s["returns"].items()))
                + (f"; {s['illegal_moves']} ILLEGAL MOVES so far" if s["illegal_moves"] else "")
            )
            if it % cfg.checkpoint_every == 0 or it == cfg.iterations:
                last = save_checkpoint(algo, cfg, run_dir / "checkpoints" / f"iter_{it:04d}")
        log.close()
        final = run_dir / "checkpoint"
        if final.is_symlink() or final.exists():
            final.unlink()
        final.symlink_to(last.relative_to(run_dir))
        illegal = illegal_moves(algo)
        algo.stop()
    finally:
        ray.shutdown()
    state = {
        "checkpoint": str(final),
        "env_steps": total_steps,
        "train_seconds": total_seconds,
        "env_steps_per_s": total_steps / total_seconds if total_seconds else 0.0,
        "illegal_moves": illegal,
    }
    (run_dir / "state.json").write_text(json.dumps(state, indent=2))
    return state


def evaluate_run(cfg: RLlibConfig, run_dir: Path, checkpoint: str, progress=print) -> dict[str, Any]:
    """The final policies against the baselines: the punter module in every punter seat
    against each baseline banker, the banker module against each baseline punter."""
    from agents.tournament import play_match

    spec = str(AgentSpec.rllib(checkpoint))
    e = cfg.evaluation
    out: dict[str, Any] = {"checkpoint": str(checkpoint), "hands": e.hands, "as_punter": {}, "as_banker": {}}
    for b in e.bankers:
        r = play_match(b, spec, rules=cfg.rules, num_players=cfg.num_players, hands=e.hands, seed=e.seed)
        out["as_punter"][b] = {"mean": r.punter.mean, "ci95": r.punter.ci95}
        progress(f"rllib punter vs banker {b}: {r.punter} chips per hand")
    for p in e.punters:
        r = play_match(spec, p, rules=cfg.rules, num_players=cfg.num_players, hands=e.hands, seed=e.seed)
        out["as_banker"][p] = {"mean": r.banker_result.mean, "ci95": r.banker_result.ci95}
        progress(f"rllib banker vs punters {p}: {r.banker_result} chips per hand")
    (run_dir / "report.json").write_text(json.dumps(out, indent=2))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", type=Path, default=None, help=f"YAML config (default {DEFAULT_CONFIG.name})")
    ap.add_argument("--set", nargs="+", default=[], metavar="KEY=VALUE", help="override config keys")
    ap.add_argument("--run-dir", type=Path, default=None)
    args = ap.parse_args(argv)
    try:
        cfg = load_config(args.config, args.set)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        import ray  # noqa: F401
    except ImportError:
        print('error: Ray RLlib is not installed: pip install -e ".[rllib]" (in its own environment)', file=sys.stderr)
        return 2
    run_dir = args.run_dir or Path("runs") / f"rllib-{cfg.name}-s{cfg.seed}"
    state = train(cfg, run_dir)
    print(
        f"trained {state['env_steps']} env steps at {state['env_steps_per_s']:,.0f}/s; checkpoint {state['checkpoint']}"
    )
    if cfg.evaluation.hands:
        evaluate_run(cfg, run_dir, state["checkpoint"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
