"""The AEC table with agents named by role, for multi-agent trainers (Ray RLlib).

``RoleEnv`` is ``siete_env.env()`` (PettingZoo's standard wrappers: an illegal action
ends the episode with -1 for the offender) with the bank at seat 0 every episode and the seats renamed
``banker``, ``punter_1`` .. ``punter_{n-1}`` (``punter_i`` is the ``i``-th punter in turn
order), so that a trainer maps agents to policies by name (one policy per role). Its
observations are ``{"observations": vector, "action_mask": float32 mask}``, the keys
RLlib's action-masking RL module expects (the mask as ``float32``, which it takes the log
of; ``mask_dtype="int8"`` for PettingZoo's own tools); the vector is the AEC observation,
suit-folded (``siete_env.features``) if ``fold_suits``. Rewards, turn order, dead steps and
terminations are the AEC env's own. ``illegal_moves`` counts the actions this env was
given that its mask forbade (each one ended its episode): a masked learner leaves it at 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .aec import env as aec_env
from .features import fold_suits as _fold
from .features import suits_matter


def role_names(num_players: int) -> list[str]:
    return ["banker"] + [f"punter_{i}" for i in range(1, num_players)]


class RoleEnv(AECEnv):
    metadata = {"render_modes": ["ansi"], "name": "siete_y_media_roles_v0", "is_parallelizable": False}

    def __init__(
        self, num_players: int = 2, rules: Any = "spanish", fold_suits: bool | str = "auto", mask_dtype: str = "float32"
    ):
        super().__init__()
        self.env = aec_env(num_players=num_players, rules=rules)
        raw = self.raw = self.env.unwrapped
        self.rules = raw.rules
        if fold_suits == "auto":
            fold_suits = not suits_matter(self.rules)
        if fold_suits not in (True, False):
            raise ValueError(f"fold_suits must be True, False or 'auto', got {fold_suits!r}")
        self.fold = bool(fold_suits)
        n = self.num_players = raw.num_players
        self.layout = raw.layout
        self.action_names = raw.action_names
        self.possible_agents = role_names(n)
        self._name = dict(zip(self.env.possible_agents, self.possible_agents, strict=True))
        self._seat = dict(zip(self.possible_agents, self.env.possible_agents, strict=True))
        L = self.layout
        low, high = (_fold(L.low, L), _fold(L.high, L)) if self.fold else (L.low, L.high)
        A = len(self.action_names)
        self._mask_dtype = np.dtype(mask_dtype)
        self._obs_space = spaces.Dict(
            {
                "observations": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (A,), dtype=self._mask_dtype),
            }
        )
        self._act_space = spaces.Discrete(A)
        self.illegal_moves = 0  # actions given against the mask, over this env's lifetime

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    def _rename(self, d: dict) -> dict:
        return {self._name[a]: v for a, v in d.items()}

    def _sync(self) -> None:
        e = self.env
        self.agents = [self._name[a] for a in e.agents]
        self.rewards = self._rename(e.rewards)
        self._cumulative_rewards = self._rename(e._cumulative_rewards)
        self.terminations = self._rename(e.terminations)
        self.truncations = self._rename(e.truncations)
        self.infos = self._rename(e.infos)
        if e.agents or e.agent_selection in self._name:
            self.agent_selection = self._name[e.agent_selection]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        options = dict(options or {})
        options["banker"] = 0
        self.env.reset(seed=seed, options=options)
        self._sync()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        o = self.env.observe(self._seat[agent])
        x = _fold(o["observation"], self.layout) if self.fold else o["observation"]
        return {"observations": x, "action_mask": o["action_mask"].astype(self._mask_dtype)}

    def step(self, action: int | None) -> None:
        if action is not None:
            action = int(action)
            raw = self.raw
            a = raw.agent_selection if raw._started else None
            live = a is not None and not (raw.terminations.get(a, True) or raw.truncations.get(a, True))
            if live and action not in raw.game.legal_actions():
                self.illegal_moves += 1  # TerminateIllegalWrapper ends the episode (and warns)
        self.env.step(action)
        self._sync()

    def state(self) -> np.ndarray:
        return self.env.state()

    def render(self) -> str:
        return self.raw.table_text()

    def close(self) -> None:
        self.env.close()


__all__ = ["RoleEnv", "role_names"]
