"""A flat observation for tools that expect a ``Box`` (SuperSuit's observation wrappers,
frame stacking, normalisation): ``FlatObservation(env)``.

The env's observation is a ``Dict`` (``observation``, a float32 vector, and ``action_mask``);
SuperSuit's observation wrappers refuse a ``Dict``. ``FlatObservation`` is an AEC wrapper
whose observation space is the ``observation`` Box alone, with the action mask moved to the
info (``infos[agent]["action_mask"]``, ``last()``'s info), where masked learners read it::

    from siete_env import env
    from siete_env.flat import FlatObservation

    e = FlatObservation(env(num_players=2))
    e.reset(seed=0)
    obs, reward, term, trunc, info = e.last()   # obs: float32 (193,), info["action_mask"]: int8
    import supersuit as ss
    e = ss.normalize_obs_v0(e, env_min=0, env_max=1)  # SuperSuit's Box wrappers now apply

The mask is the env's own (``observe(agent)["action_mask"]``); nothing else changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper


class FlatObservation(BaseWrapper):
    """The ``observation`` Box as the observation; the action mask in the info."""

    def observation_space(self, agent: str) -> spaces.Box:
        return self.env.observation_space(agent)["observation"]

    def observe(self, agent: str) -> np.ndarray | None:
        obs = self.env.observe(agent)
        return None if obs is None else obs["observation"]

    def _mask(self, agent: str) -> np.ndarray:
        return self.env.observe(agent)["action_mask"]

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        return {a: {**info, "action_mask": self._mask(a)} for a, info in self.env.infos.items()}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, term, trunc, info = self.env.last(observe)
        agent = self.env.agent_selection
        info = {**info, "action_mask": self._mask(agent)}
        return (None if obs is None else obs["observation"]), reward, term, trunc, info


__all__ = ["FlatObservation"]
