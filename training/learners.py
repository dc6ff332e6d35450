"""A learner's parts, shared by ``train.py`` (self-play) and ``training.exploit``
(learned best responses): its environments and its MaskablePPO model."""

from __future__ import annotations

from typing import Any

import numpy as np

from training.config import RoleConfig, TrainConfig

__all__ = ["derive_seed", "learner_model", "load_weights", "make_model", "make_venv", "model_class", "seat_venv"]


def derive_seed(seed: int, *keys: int) -> int:
    """A seed derived from ``(seed, *keys)`` (the run seed, then what it seeds)."""
    return int(np.random.SeedSequence([seed, *keys]).generate_state(1)[0])


class ConstantSchedule:
    """SB3's learning-rate schedule for a rate that is constant within a learn() call (the
    run sets it per generation): ``set_rates`` puts it on the model with public attributes
    only. A class, not a lambda, so a saved model's data stays plain."""

    def __init__(self, value: float):
        self.value = float(value)

    def __call__(self, progress_remaining: float) -> float:
        return self.value


def set_rates(model, learning_rate: float, ent_coef: float | None = None, magnet: float | None = None) -> None:
    """A generation's rates on a learner's model: the learning rate (MaskablePPO's own
    ``train`` reads it through ``lr_schedule``, the vine loss reads ``learning_rate``), and
    MaskablePPO's entropy bonus ``ent_coef`` or ``VinePPO``'s ``magnet`` (unchanged if None)."""
    model.learning_rate = learning_rate
    model.lr_schedule = ConstantSchedule(learning_rate)
    if ent_coef is not None:
        model.ent_coef = ent_coef
    if magnet is not None:
        model.magnet = magnet


def make_model(role_cfg: RoleConfig, venv, seed: int, tb: str | None, cls: Any = None,
               extra: dict[str, Any] | None = None):  # fmt: skip
    """A fresh ``MaskablePPO`` of one role's network on ``venv`` (``tb``: TensorBoard folder);
    ``cls``/``extra``: a subclass to build instead, with its own keyword arguments. A run's
    learners are built by ``learner_model``, which chooses the class."""
    import torch

    p = role_cfg.ppo
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
    policy_kwargs: dict[str, Any] = {"net_arch": list(p.net_arch), "activation_fn": act}
    if cls is None:
        from sb3_contrib import MaskablePPO

        cls = MaskablePPO
    model = cls(
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
        policy_kwargs=policy_kwargs,
        tensorboard_log=tb,
        seed=seed,
        device="cpu",
        verbose=0,
        **(extra or {}),
    )
    if tb is None:  # else SB3 makes an empty /tmp/SB3-<time> folder for its logger at every learn()
        from stable_baselines3.common.logger import Logger

        model.set_logger(Logger(None, []))
    return model


def model_class(cfg: TrainConfig, role: str) -> tuple[Any, dict[str, Any]]:
    """The model class of ``role``'s learner under ``cfg`` and its extra arguments: the one
    rule, for a new run and a resumed one alike (``learner_model``). ``learner: vine``:
    ``training.vine.VinePPO`` (its mirror-descent step ``kl_coef``, its ``magnet``, the chips' scale);
    ``learner: pools``: sb3-contrib's ``MaskablePPO``."""
    if cfg.learner == "vine":
        from training.vine import VinePPO

        p = getattr(cfg, role).ppo
        return VinePPO, {"kl_coef": p.kl_coef, "magnet": p.magnet, "value_scale": cfg.vine_value_scale()}
    from sb3_contrib import MaskablePPO

    return MaskablePPO, {}


def learner_model(cfg: TrainConfig, role: str, venv, seed: int, tb: str | None, snapshot=None):
    """``role``'s learner of ``cfg`` on ``venv`` (its class by ``model_class``), given the
    weights and counters of ``snapshot`` when the run resumes from one (``load_weights``)."""
    cls, extra = model_class(cfg, role)
    model = make_model(getattr(cfg, role), venv, seed, tb, cls=cls, extra=extra)
    if snapshot is not None:  # the snapshot's weights without unpickling it
        load_weights(model, snapshot)
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


def make_venv(cfg: TrainConfig, role: str, seed: int):
    """A learner's ``n_envs`` environments (``cfg.vec_env``) against the baselines, monitored."""
    first = cfg.opponents.baseline_bankers if role == "punter" else cfg.opponents.baseline_punters
    # at a larger table the punter learner's fellow punters are the punter heuristics
    co = cfg.opponents.baseline_punters if role == "punter" and cfg.num_players > 2 else None
    return seat_venv(role, cfg.rules, cfg.num_players, first, co, cfg.n_envs, cfg.vec_env, seed)


def seat_venv(
    role: str,
    rules: Any,
    num_players: int,
    opponents: Any,
    copunters: Any,
    n_envs: int,
    vec_env: str,
    seed: int,
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
                               seed=derive_seed(seed, 0), position=position)  # fmt: skip
        return VecMonitor(SB3VecEnv(tables))
    fns = [
        (lambda i=i: SeatEnv(role=role, rules=rules, num_players=num_players, opponents=opponents,
                             copunters=copunters, fold_suits="auto", seed=derive_seed(seed, i),
                             position=position))
        for i in range(n_envs)
    ]  # fmt: skip
    # VecMonitor: episode rewards and lengths in TensorBoard (rollout/ep_rew_mean)
    return VecMonitor(DummyVecEnv(fns))
