"""``SelfPlayPPO``: sb3-contrib's ``MaskablePPO`` with the loss terms self-play toward an
equilibrium wants (``configs/train/*.yaml``, ``<role>.ppo``).

The loss of a minibatch is MaskablePPO's, plus:

* **a mirror-descent step** (``kl_coef``, magnetic mirror descent; Sokota et al.,
  arXiv 2206.05825, as the IIG-RL-Benchmark's deep MMD writes it):
  ``kl_coef * mean(r log r - (r - 1))`` with ``r = pi_theta / pi_rollout``, an estimate of
  ``KL(pi_theta || pi_rollout)`` that keeps each update close to the policy that played
  the rollout. With the entropy bonus (a KL to the uniform magnet) it is MMD's update;
* **advantages normalised per kind of decision** (``group_advantages``): the stake
  decisions (a ``BET_*`` action is legal) and the rest (swap, hit or stand, raise, the
  banker's draws) are each normalised over their own samples. A stake's advantage is the
  value of a whole hand, several times a draw's: normalised together, the draws' signal
  is drowned, or the stakes' dominates.

Everything else (rollouts, masks, the value loss, the clipping, logging) is
MaskablePPO's. A model saved by it loads with ``MaskablePPO.load`` too (the policy is
the same ``MaskableActorCriticPolicy``).

``CentralCriticPolicy`` (``<role>.ppo.central_critic``): a ``MaskableActorCriticPolicy``
for the batched engine's ``critic_view`` observations (the learner's own, then every
other seat's). The **actor reads only the learner's own features** (the first
``actor_features``), so it plays from what its seat sees; the **critic reads them all**
(e.g. the banker's critic sees the punter's hidden card). The critic is a baseline
fitted to the returns of played hands, as any PPO critic; seeing the hidden cards removes
their part of the variance from the actor's advantages (a centralised critic, as in
MAPPO). The saved actor is an ordinary ``MlpPolicy`` actor (``agents.learned.MLPPolicy``
reads it; its first layer has ``actor_features`` inputs).
"""

from __future__ import annotations

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.utils import explained_variance
from torch import nn
from torch.nn import functional as F

from siete_env.game import FIXED_ACTIONS

__all__ = ["AllActionsPPO", "CentralCriticPolicy", "QCriticPolicy", "SelfPlayPPO"]

_FIRST_BET = len(FIXED_ACTIONS)  # build_actions puts the BET_* actions right after the fixed ones


class SelfPlayPPO(MaskablePPO):
    """MaskablePPO with a mirror-descent KL term and per-decision-kind advantage
    normalisation (see the module docstring). ``n_bets``: how many ``BET_*`` actions
    the table has (0: no grouping)."""

    def __init__(self, *args, kl_coef: float = 0.0, group_advantages: bool = False, n_bets: int = 0, **kwargs):
        self.kl_coef = float(kl_coef)
        self.group_advantages = bool(group_advantages)
        self.n_bets = int(n_bets)
        super().__init__(*args, **kwargs)

    def _groups(self, masks: th.Tensor) -> list[th.Tensor]:
        """Boolean rows of each kind of decision in a minibatch: stakes, the rest."""
        if not (self.group_advantages and self.n_bets):
            return []
        stake = masks[:, _FIRST_BET : _FIRST_BET + self.n_bets].any(dim=1)
        return [stake, ~stake]

    def _normalise(self, advantages: th.Tensor, masks: th.Tensor | None) -> th.Tensor:
        groups = self._groups(masks) if masks is not None else []
        if not groups:
            return (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        out = th.zeros_like(advantages)
        for g in groups:
            n = int(g.sum())
            if n == 0:
                continue
            a = advantages[g]
            out[g] = (a - a.mean()) / (a.std() + 1e-8) if n > 1 else a - a.mean()
        return out

    def train(self) -> None:  # MaskablePPO.train with the two changes above
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)  # type: ignore[operator]
        entropy_losses, pg_losses, value_losses, clip_fractions, kl_losses = [], [], [], [], []
        approx_kl_divs: list[float] = []
        loss = th.zeros(())
        for _epoch in range(self.n_epochs):
            approx_kl_divs = []
            for rollout_data in self.rollout_buffer.get(self.batch_size):
                actions = rollout_data.actions
                if isinstance(self.action_space, spaces.Discrete):
                    actions = rollout_data.actions.long().flatten()
                values, log_prob, entropy = self.policy.evaluate_actions(
                    rollout_data.observations, actions, action_masks=rollout_data.action_masks
                )
                values = values.flatten()
                advantages = rollout_data.advantages
                if self.normalize_advantage:
                    masks = rollout_data.action_masks
                    advantages = self._normalise(advantages, None if masks is None else masks > 0.5)
                log_ratio = log_prob - rollout_data.old_log_prob
                ratio = th.exp(log_ratio)
                policy_loss = -th.min(
                    advantages * ratio, advantages * th.clamp(ratio, 1 - clip_range, 1 + clip_range)
                ).mean()
                pg_losses.append(policy_loss.item())
                clip_fractions.append(th.mean((th.abs(ratio - 1) > clip_range).float()).item())
                value_loss = F.mse_loss(rollout_data.returns, values)
                value_losses.append(value_loss.item())
                entropy_loss = -th.mean(-log_prob) if entropy is None else -th.mean(entropy)
                entropy_losses.append(entropy_loss.item())
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                if self.kl_coef > 0:  # MMD: KL(pi_theta || pi_rollout), estimated on the rollout's actions
                    kl = th.mean(ratio * log_ratio - (ratio - 1))
                    kl_losses.append(kl.item())
                    loss = loss + self.kl_coef * kl
                with th.no_grad():
                    approx_kl_divs.append(th.mean((th.exp(log_ratio) - 1) - log_ratio).item())
                self.policy.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
            self._n_updates += 1
        explained_var = explained_variance(self.rollout_buffer.values.flatten(), self.rollout_buffer.returns.flatten())
        self.logger.record("train/entropy_loss", np.mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", np.mean(pg_losses))
        self.logger.record("train/value_loss", np.mean(value_losses))
        self.logger.record("train/approx_kl", np.mean(approx_kl_divs))
        if kl_losses:
            self.logger.record("train/mmd_kl", np.mean(kl_losses))
        self.logger.record("train/clip_fraction", np.mean(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)


class _Leading(BaseFeaturesExtractor):
    """The first ``n`` features of a flat observation (the actor's: its seat's own view)."""

    def __init__(self, observation_space: spaces.Box, n: int):
        super().__init__(observation_space, n)
        self.n = n

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return observations.flatten(1)[:, : self.n]


class CentralCriticPolicy(MaskableActorCriticPolicy):
    """A masked actor-critic whose actor reads the first ``actor_features`` features of the
    observation and whose critic reads all of them (see the module docstring)."""

    def __init__(self, observation_space: spaces.Box, *args, actor_features: int, **kwargs):
        size = int(np.prod(observation_space.shape))
        if not 0 < actor_features <= size:
            raise ValueError(f"actor_features must be in 1..{size} (the observation's size), got {actor_features}")
        self.actor_features = int(actor_features)
        kwargs["share_features_extractor"] = False
        super().__init__(observation_space, *args, **kwargs)

    def make_features_extractor(self) -> BaseFeaturesExtractor:
        # SB3 makes the actor's extractor first, then the critic's (share_features_extractor=False)
        if not hasattr(self, "_made_actor_extractor"):
            self._made_actor_extractor = True
            return _Leading(self.observation_space, self.actor_features)
        return super().make_features_extractor()

    def _build_mlp_extractor(self) -> None:
        self.features_dim = self.vf_features_extractor.features_dim
        super()._build_mlp_extractor()  # both nets sized for the whole observation ...
        pi = self.mlp_extractor.policy_net
        first = next((i for i, m in enumerate(pi) if isinstance(m, nn.Linear)), None)
        if first is None:
            raise ValueError("CentralCriticPolicy needs at least one actor layer (net_arch)")
        pi[first] = nn.Linear(self.actor_features, pi[first].out_features)  # ... the actor's for its own part

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data["actor_features"] = self.actor_features
        return data


class QCriticPolicy(CentralCriticPolicy):
    """A ``CentralCriticPolicy`` whose critic outputs one value per action: ``Q(s, a)``, the
    return of taking ``a`` where the whole table is ``s`` (the critic sees every seat) and
    playing on as the policy does. The state's value is ``sum_a pi(a|o) Q(s, a)``. Fitted
    to the returns of played hands (``AllActionsPPO``)."""

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        n_actions = int(self.action_space.n)
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, n_actions)
        nn.init.orthogonal_(self.value_net.weight, gain=1.0)
        nn.init.zeros_(self.value_net.bias)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _latents(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        pi_features, vf_features = self.extract_features(obs)
        return self.mlp_extractor.forward_actor(pi_features), self.mlp_extractor.forward_critic(vf_features)

    def q_and_distribution(self, obs: th.Tensor, action_masks=None):
        """``Q(s, .)`` ``(n, A)`` and the (masked) action distribution of the actor."""
        latent_pi, latent_vf = self._latents(obs)
        distribution = self._get_action_dist_from_latent(latent_pi)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return self.value_net(latent_vf), distribution

    def forward(self, obs: th.Tensor, deterministic: bool = False, action_masks=None):
        q, distribution = self.q_and_distribution(obs, action_masks)
        values = (distribution.distribution.probs * q).sum(dim=1, keepdim=True)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob

    def predict_values(self, obs: th.Tensor) -> th.Tensor:
        # the masks are not at hand here (the value of a rollout's last, unfinished step):
        # the actor's unmasked probabilities weigh Q
        q, distribution = self.q_and_distribution(obs)
        return (distribution.distribution.probs * q).sum(dim=1, keepdim=True)


class AllActionsPPO(MaskablePPO):
    """MaskablePPO whose policy loss uses **every legal action's** value, not the sampled
    action's advantage: ``-sum_a pi(a|o) (Q(s, a) - sum_b pi(b|o) Q(s, b))`` with ``Q`` the
    central critic of ``QCriticPolicy`` (fitted to the Monte-Carlo return of the action
    taken: ``gae_lambda`` 1, ``gamma`` 1). The actor sees only its seat, so averaged over
    the hidden state this is the policy gradient of the seat's own information state
    (the mean-actor-critic / "all actions" estimator): no sampling noise from the action
    taken, and a rarely played action is still pushed by its value. The advantages are
    scaled by their standard deviation in the minibatch; ``kl_coef`` adds the
    mirror-descent KL to the rollout policy as ``SelfPlayPPO`` does."""

    def __init__(self, *args, kl_coef: float = 0.0, **kwargs):
        self.kl_coef = float(kl_coef)
        kwargs["gae_lambda"] = 1.0
        super().__init__(*args, **kwargs)

    def train(self) -> None:
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        entropy_losses, pg_losses, value_losses, kl_losses = [], [], [], []
        loss = th.zeros(())
        for _epoch in range(self.n_epochs):
            for rollout_data in self.rollout_buffer.get(self.batch_size):
                actions = rollout_data.actions.long().flatten()
                masks = rollout_data.action_masks
                q, distribution = self.policy.q_and_distribution(rollout_data.observations, masks)
                probs = distribution.distribution.probs
                legal = masks > 0.5
                value_loss = F.mse_loss(q.gather(1, actions[:, None]).flatten(), rollout_data.returns)
                qd = q.detach()
                adv = (qd - (probs.detach() * qd).sum(dim=1, keepdim=True)) * legal
                scale = adv[legal].std() + 1e-8 if legal.sum() > 1 else th.ones(())
                policy_loss = -(probs * adv).sum(dim=1).mean() / scale
                entropy_loss = -th.mean(distribution.entropy())
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                if self.kl_coef > 0:
                    log_ratio = distribution.log_prob(actions) - rollout_data.old_log_prob
                    ratio = th.exp(log_ratio)
                    kl = th.mean(ratio * log_ratio - (ratio - 1))
                    kl_losses.append(kl.item())
                    loss = loss + self.kl_coef * kl
                pg_losses.append(policy_loss.item())
                value_losses.append(value_loss.item())
                entropy_losses.append(entropy_loss.item())
                self.policy.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
            self._n_updates += 1
        self.logger.record("train/entropy_loss", np.mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", np.mean(pg_losses))
        self.logger.record("train/value_loss", np.mean(value_losses))
        if kl_losses:
            self.logger.record("train/mmd_kl", np.mean(kl_losses))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
