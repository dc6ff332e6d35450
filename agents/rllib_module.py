"""The RL module ``train_rllib.py`` trains (needs Ray RLlib and torch; the numpy actors of
``agents.rllib_policy`` play its checkpoints without them).

``MaskedPPOTorchRLModule`` is RLlib's default PPO torch module (``DefaultPPOTorchRLModule``:
an actor MLP and a critic MLP, a policy head and a value head; its state dict is the one
``agents.rllib_policy.actor_layers`` reads) on observations ``{"observations": vector,
"action_mask": float mask}`` (``siete_env.role_env.RoleEnv``): the networks see the
vector, and every forward pass (inference, exploration, training) adds ``log(mask)``,
clipped to the float minimum, to the logits, so an illegal action is never sampled and
never trained on. It is what RLlib's action-masking example module does
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm``), without its deprecated base
class (``PPOTorchRLModule``) and without changing the batches it is given.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

OBS_KEYS = ("observations", "action_mask")


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module with the logits of illegal actions masked out."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any):
        if not (isinstance(observation_space, gym.spaces.Dict) and set(observation_space.spaces) == set(OBS_KEYS)):
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space with keys {OBS_KEYS}, got {observation_space}"
            )
        # The networks are built for the vector; the module's space (which RLlib's connectors
        # read) is the env's, mask included.
        self._space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self._space_with_mask

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[dict[str, Any], torch.Tensor]:
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict) or "action_mask" not in obs:
            raise ValueError(f"MaskedPPOTorchRLModule expects observations {{{', '.join(OBS_KEYS)}}} in the batch")
        return {**batch, Columns.OBS: obs["observations"]}, obs["action_mask"]

    @staticmethod
    def _masked(out: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
        out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask), min=FLOAT_MIN)
        return out

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:  # inference and exploration
        inner, mask = self._split(batch)
        return self._masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        inner, mask = self._split(batch)
        return self._masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            batch, _ = self._split(batch)
        return super().compute_values(batch, embeddings)


__all__ = ["MaskedPPOTorchRLModule"]
