"""A MaskablePPO policy (saved by ``train.py``) as a table player."""

from __future__ import annotations

import numpy as np

from siete_env.features import fold_suits, folded_size


class PPOAgent:
    """Acts with a saved ``sb3_contrib.MaskablePPO`` model.

    ``greedy``: the most probable legal action (SB3's ``deterministic=True``); otherwise
    actions are sampled from the model's masked probabilities with the agent's own seeded
    generator. Models trained on suit-folded observations (``siete_env.features``) are
    recognised by their input size and get folded observations. Probabilities are cached
    per (observation, mask), so replaying a policy over many hands costs one network call
    per distinct situation.
    """

    def __init__(self, env, path: str, greedy: bool = True, seed: int | None = None, device: str = "cpu"):
        import torch
        from sb3_contrib import MaskablePPO

        self.model = MaskablePPO.load(path, device=device)
        self.path = path
        self.greedy = greedy
        self.deterministic = greedy
        self.rng = np.random.default_rng(seed)
        layout = env.unwrapped.layout
        self.layout = layout
        size = int(np.prod(self.model.observation_space.shape))
        n_act = len(env.unwrapped.action_names)
        if size == folded_size(layout):
            self.fold = True
        elif size == layout.size:
            self.fold = False
        else:
            raise ValueError(
                f"model {path} expects observations of size {size}, but this table's are {layout.size} "
                f"({folded_size(layout)} folded): it was trained for other rules or another table size"
            )
        if self.model.action_space.n != n_act:
            raise ValueError(
                f"model {path} has {self.model.action_space.n} actions, this table has {n_act}: "
                "it was trained for other rules or another table size"
            )
        self._torch = torch
        self._cache: dict[bytes, np.ndarray] = {}

    def _probs(self, x: np.ndarray, masks: np.ndarray) -> np.ndarray:
        torch = self._torch
        with torch.no_grad():
            obs = torch.as_tensor(x, dtype=torch.float32)
            dist = self.model.policy.get_distribution(obs, action_masks=masks.astype(bool))
            p = dist.distribution.probs.numpy().astype(np.float64)
        p *= masks
        return p / p.sum(axis=1, keepdims=True)

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        x = fold_suits(observations, self.layout) if self.fold else observations
        out = np.empty(masks.shape, np.float64)
        for start in range(0, len(x), 4096):
            out[start : start + 4096] = self._probs(x[start : start + 4096], masks[start : start + 4096])
        if self.greedy:
            g = np.zeros_like(out)
            g[np.arange(len(out)), out.argmax(axis=1)] = 1.0
            return g
        return out

    def __call__(self, obs: dict) -> int:
        o, mask = obs["observation"], obs["action_mask"]
        x = fold_suits(o, self.layout) if self.fold else o
        key = x.tobytes() + mask.tobytes()
        p = self._cache.get(key)
        if p is None:
            p = self._cache[key] = self._probs(x[None, :], np.asarray(mask)[None, :])[0]
        if self.greedy:
            return int(p.argmax())
        return int(self.rng.choice(len(p), p=p))
