"""A learner's parts, shared by ``train.py`` (self-play) and ``training.exploit``
(learned best responses): its environments and its MaskablePPO model."""

from __future__ import annotations

from typing import Any

import numpy as np

from training.config import RoleConfig, TrainConfig

__all__ = ["derive_seed", "load_weights", "make_model", "make_venv", "seat_venv"]


def derive_seed(seed: int, *keys: int) -> int:
    """A seed derived from ``(seed, *keys)`` (the run seed, then what it seeds)."""
    return int(np.random.SeedSequence([seed, *keys]).generate_state(1)[0])


def make_model(role_cfg: RoleConfig, venv, seed: int, tb: str | None, cls: Any = None,
               extra: dict[str, Any] | None = None):  # fmt: skip
    """A fresh ``MaskablePPO`` learner of one role on ``venv`` (``tb``: TensorBoard folder);
    ``cls``/``extra``: a subclass to build instead, with its own keyword arguments (the
    vine learner's ``training.vine.VinePPO``)."""
    import torch

    p = role_cfg.ppo
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
    policy: Any = "MlpPolicy"
    policy_kwargs: dict[str, Any] = {"net_arch": list(p.net_arch), "activation_fn": act}
    if cls is not None:  # the caller's class and arguments
        extra = dict(extra or {})
    else:
        cls, extra = _ppo_class(p, venv, policy_kwargs)
        policy = policy_kwargs.pop("policy", policy)
    model = cls(
        policy,
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
        policy_kwargs=policy_kwargs,
        tensorboard_log=tb,
        seed=seed,
        device="cpu",
        verbose=0,
        **extra,
    )
    if tb is None:  # else SB3 makes an empty /tmp/SB3-<time> folder for its logger at every learn()
        from stable_baselines3.common.logger import Logger

        model.set_logger(Logger(None, []))
    return model


def load_weights(model, path) -> Any:
    """``model`` (a fresh ``make_model`` of the run's config) given the weights, optimizer
    state and step counters of a snapshot ``path`` saved by ``model.save``, without
    unpickling anything (SB3's ``load`` would unpickle the zip's ``data``: a snapshot swapped
    in a run folder would run as code). Every ``.pth`` entry is read here with torch's
    ``weights_only=True`` (``agents.learned.read_model_tensors``) and handed to
    ``set_parameters`` as loaded dicts, so no path depends on the SB3/torch versions'
    defaults (SB3 2.3 with torch < 2.6 would unpickle the optimizer's entry); the counters
    are plain JSON numbers of ``data``. The rest of what ``load`` restores is the config's
    (the same run) or reset every generation."""
    from agents.learned import read_model_tensors

    tensors, data = read_model_tensors(path)  # refuses a file without data / policy.pth (weights only)
    tensors.pop("pytorch_variables", None)  # SB3's extra tensors (none for PPO): load does not set them here
    model.set_parameters(tensors, exact_match=True, device="cpu")  # a ValueError unless they are this model's
    for key in ("num_timesteps", "_n_updates", "_episode_num"):
        value = data.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            setattr(model, key, value)
    return model


def _ppo_class(p, venv, policy_kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The MaskablePPO class the ``ppo`` config asks for and its extra arguments; a
    policy class other than SB3's MlpPolicy goes in ``policy_kwargs["policy"]``."""
    from sb3_contrib import MaskablePPO

    cls: Any = MaskablePPO
    extra: dict[str, Any] = {}
    if p.central_critic:  # the actor reads the learner's own features, the critic every seat's
        from training.ppo import CentralCriticPolicy

        policy_kwargs["policy"] = CentralCriticPolicy
        policy_kwargs["actor_features"] = venv.get_attr("learner_size")[0]
    if p.q_critic:  # an action-value central critic, the all-actions policy loss
        from training.ppo import AllActionsPPO, QCriticPolicy

        policy_kwargs["policy"] = QCriticPolicy
        policy_kwargs["actor_features"] = venv.get_attr("learner_size")[0]
        cls, extra = AllActionsPPO, {"kl_coef": p.kl_coef}
    elif p.kl_coef > 0 or p.group_advantages:  # the loss of training.ppo
        from training.ppo import SelfPlayPPO

        n_bets = sum(1 for a in venv.get_attr("action_names")[0] if a.startswith("BET_"))
        cls, extra = SelfPlayPPO, {"kl_coef": p.kl_coef, "group_advantages": p.group_advantages, "n_bets": n_bets}
    return cls, extra


def make_venv(cfg: TrainConfig, role: str, seed: int):
    """A learner's ``n_envs`` environments (``cfg.vec_env``) against the baselines, monitored."""
    first = cfg.opponents.baseline_bankers if role == "punter" else cfg.opponents.baseline_punters
    # at a larger table the punter learner's fellow punters are the punter heuristics
    co = cfg.opponents.baseline_punters if role == "punter" and cfg.num_players > 2 else None
    return seat_venv(role, cfg.rules, cfg.num_players, first, co, cfg.n_envs, cfg.vec_env, seed,
                     critic_view=getattr(cfg, role).ppo.central_critic or getattr(cfg, role).ppo.q_critic)  # fmt: skip


def seat_venv(
    role: str,
    rules: Any,
    num_players: int,
    opponents: Any,
    copunters: Any,
    n_envs: int,
    vec_env: str,
    seed: int,
    critic_view: bool = False,
    position: int = 1,
):
    """``n_envs`` single-seat tables of ``role`` as an SB3 ``VecEnv``, monitored:
    ``vec_env="batched"`` (``siete_env.batched``: stepped together, opponents in batch) or
    ``"dummy"`` (SB3's ``DummyVecEnv`` of ``SeatEnv``, the reference engine).
    ``opponents``/``copunters``/``position``: as ``SeatEnv``'s (specs, or ``{spec: weight}``
    pools; the punter learner's place among the punters)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from siete_env.gym_env import SeatEnv

    if vec_env == "batched":
        from siete_env.batched.vector import SB3VecEnv, SeatVectorEnv

        tables = SeatVectorEnv(num_envs=n_envs, role=role, rules=rules, num_players=num_players,
                               opponents=opponents, copunters=copunters, fold_suits="auto",
                               seed=derive_seed(seed, 0), critic_view=critic_view, position=position)  # fmt: skip
        return VecMonitor(SB3VecEnv(tables))
    if critic_view:
        raise ValueError("critic_view needs the batched engine (vec_env: batched)")
    fns = [
        (lambda i=i: SeatEnv(role=role, rules=rules, num_players=num_players, opponents=opponents,
                             copunters=copunters, fold_suits="auto", seed=derive_seed(seed, i),
                             position=position))
        for i in range(n_envs)
    ]  # fmt: skip
    # VecMonitor: episode rewards and lengths in TensorBoard (rollout/ep_rew_mean)
    return VecMonitor(DummyVecEnv(fns))
