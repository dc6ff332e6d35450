"""A learner's parts, shared by ``train.py`` (self-play) and ``training.exploit``
(learned best responses): its model (``training.vine.VinePPO``, saved as a MaskablePPO zip)
and the single-seat environment that gives the model its spaces."""

from __future__ import annotations

from typing import Any

import numpy as np

from training.config import RoleConfig, TrainConfig

__all__ = ["derive_seed", "learner_model", "load_weights", "make_model", "make_venv", "model_args", "seat_venv"]


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


def set_rates(model, learning_rate: float, magnet: float | None = None) -> None:
    """A generation's rates on a learner's model: the learning rate (the vine loss reads
    ``learning_rate``; ``lr_schedule`` is what SB3 saves) and ``VinePPO``'s ``magnet``
    (unchanged if None)."""
    model.learning_rate = learning_rate
    model.lr_schedule = ConstantSchedule(learning_rate)
    if magnet is not None:
        model.magnet = magnet


# MaskablePPO's rollout and loss settings: VinePPO's constructor asks for them, its loss uses
# none (it learns by train_on); the values every snapshot saved so far holds
SB3_UNUSED = {"n_steps": 256, "batch_size": 512, "n_epochs": 4, "gamma": 1.0, "gae_lambda": 0.95, "clip_range": 0.2,
              "ent_coef": 0.0, "vf_coef": 0.5}  # fmt: skip


def make_model(role_cfg: RoleConfig, venv, seed: int, tb: str | None, extra: dict[str, Any] | None = None):
    """A fresh ``VinePPO`` of one role's network on ``venv`` (``tb``: TensorBoard folder;
    ``extra``: its own keyword arguments, ``kl_coef``, ``magnet``, ``value_scale``). A run's
    learners are built by ``learner_model``, which gives them the config's."""
    import torch

    from training.vine import VinePPO

    p = role_cfg.ppo
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
    policy_kwargs: dict[str, Any] = {"net_arch": list(p.net_arch), "activation_fn": act}
    model = VinePPO(
        "MlpPolicy",
        venv,
        learning_rate=p.learning_rate,
        **SB3_UNUSED,
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


def model_args(cfg: TrainConfig, role: str) -> dict[str, Any]:
    """``VinePPO``'s own arguments for ``role``'s learner under ``cfg`` (its mirror-descent
    step ``kl_coef``, its ``magnet``, the chips' scale): the one rule, for a new run and a
    resumed one alike (``learner_model``)."""
    p = getattr(cfg, role).ppo
    return {"kl_coef": p.kl_coef, "magnet": p.magnet, "value_scale": cfg.vine_value_scale()}


def learner_model(cfg: TrainConfig, role: str, venv, seed: int, tb: str | None, snapshot=None):
    """``role``'s learner of ``cfg`` on ``venv`` (its arguments by ``model_args``), given the
    weights and counters of ``snapshot`` when the run resumes from one (``load_weights``)."""
    model = make_model(getattr(cfg, role), venv, seed, tb, extra=model_args(cfg, role))
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
    """One batched single-seat table of ``role`` under ``cfg``'s rules: what gives a
    learner's model its observation and action spaces (the learner never steps it)."""
    co = "random" if role == "punter" and cfg.num_players > 2 else None
    return seat_venv(role, cfg.rules, cfg.num_players, "random", co, 1, seed)


def seat_venv(role: str, rules: Any, num_players: int, opponents: Any, copunters: Any, n_envs: int, seed: int,
              position: int = 1):  # fmt: skip
    """``n_envs`` single-seat tables of ``role`` stepped together by the batched engine
    (``siete_env.batched``, opponents in batch) as an SB3 ``VecEnv``, monitored.
    ``opponents``/``copunters``/``position``: as ``SeatEnv``'s (specs, or ``{spec: weight}``
    pools; the punter learner's place among the punters)."""
    from stable_baselines3.common.vec_env import VecMonitor

    from siete_env.batched.vector import SB3VecEnv, SeatVectorEnv

    tables = SeatVectorEnv(num_envs=n_envs, role=role, rules=rules, num_players=num_players, opponents=opponents,
                           copunters=copunters, fold_suits="auto", seed=derive_seed(seed, 0), position=position)  # fmt: skip
    return VecMonitor(SB3VecEnv(tables))
