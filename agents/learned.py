"""Learned policies: a MaskablePPO model saved by ``train.py``, played as a table agent.

The network is run with numpy, not torch: a saved model is loaded once (torch is needed
for that), its actor's weights are copied into an ``MLPPolicy``, and every decision is
then a few small matrix products, far cheaper than a torch call on one observation (the
figures: docs/results.md). The layers run in float32, as torch runs them (6x faster than
float64 on the exact evaluator's tens of millions of banker rows); the softmax in float64.
The numbers are the same as the torch policy's (a test compares them). This is what lets past snapshots play inside the training environments and
lets ``evaluate.py`` play hundreds of thousands of hands in seconds.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from siete_env.features import fold_suits, folded_size

_ACTIVATIONS = {
    "Tanh": lambda x: np.tanh(x, out=x),
    "ReLU": lambda x: np.maximum(x, 0.0, out=x),
}


class MLPPolicy:
    """The actor of an SB3 ``MlpPolicy`` in numpy: hidden layers, then action logits;
    illegal actions are masked out before the softmax, as sb3-contrib does."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str = "Tanh"):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"unsupported activation {activation!r}; supported: {list(_ACTIVATIONS)}")
        self.layers = [(np.ascontiguousarray(w.T, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.activation = activation
        self._act = _ACTIVATIONS[activation]
        self.input_size = self.layers[0][0].shape[0]
        self.n_actions = self.layers[-1][0].shape[1]

    @classmethod
    def from_model(cls, model: Any) -> MLPPolicy:
        """Copy the actor of a (Maskable)PPO model with a flat ``Box`` observation."""
        import torch.nn as nn

        policy = model.policy
        pi = policy.mlp_extractor.policy_net
        linears = [m for m in pi if isinstance(m, nn.Linear)] + [policy.action_net]
        acts = {type(m).__name__ for m in pi if not isinstance(m, nn.Linear)}
        if len(acts) > 1:
            raise ValueError(f"mixed activations {acts} are not supported")
        activation = acts.pop() if acts else "Tanh"
        layers = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in linears]
        return cls(layers, activation)

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The action logits (float64), computed in float32 as torch does."""
        h = np.asarray(x, np.float32)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w
            h += b
            if i < last:
                h = self._act(h)
        return h.astype(np.float64)

    def probs(self, x: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Action probabilities, 0 on illegal actions; ``x`` is ``(D,)`` or ``(N, D)``."""
        z = self.logits(x)
        legal = np.asarray(masks) > 0
        z = np.where(legal, z, -np.inf)
        z -= z.max(axis=-1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=-1, keepdims=True)


_CACHE_SIZE = 1 << 20
_LOADED: dict[tuple[str, float], MLPPolicy] = {}


def greedy_probs(probs: np.ndarray) -> np.ndarray:
    """``(N, A)``: each row's most probable action with probability 1 (a greedy policy's
    action probabilities)."""
    out = np.zeros_like(probs)
    out[np.arange(len(probs)), probs.argmax(axis=1)] = 1.0
    return out


def load_policy(path: str) -> MLPPolicy:
    """The actor of a MaskablePPO ``.zip`` as an ``MLPPolicy`` (cached per file version)."""
    key = (os.path.abspath(path), os.path.getmtime(path))
    pol = _LOADED.get(key)
    if pol is None:
        from sb3_contrib import MaskablePPO

        pol = _LOADED[key] = MLPPolicy.from_model(MaskablePPO.load(path, device="cpu"))
    return pol


class PPOAgent:
    """Acts with a policy trained by ``train.py`` (a MaskablePPO ``.zip``, or an
    ``MLPPolicy``).

    ``greedy``: the most probable legal action (SB3's ``deterministic=True``); otherwise
    actions are sampled from the masked probabilities with the agent's own seeded
    generator (``rng``). A policy trained on suit-folded observations
    (``siete_env.features``) is recognised by its input size and is given folded
    observations.
    """

    def __init__(self, env, path: str | MLPPolicy, greedy: bool = True, seed: int | None = None):
        self.policy = path if isinstance(path, MLPPolicy) else load_policy(path)
        self.path = path if isinstance(path, str) else "<MLPPolicy>"
        self.greedy = greedy
        self.deterministic = greedy
        self.rng = np.random.default_rng(seed)
        raw = env.unwrapped
        layout = self.layout = raw.layout
        size, n_act = self.policy.input_size, len(raw.action_names)
        if size == folded_size(layout):
            self.fold = True
        elif size == layout.size:
            self.fold = False
        else:
            raise ValueError(
                f"model {self.path} expects observations of size {size}, but this table's are {layout.size} "
                f"({folded_size(layout)} folded): it was trained for other rules or another table size"
            )
        self._cache: dict[bytes, Any] = {}
        if self.policy.n_actions != n_act:
            raise ValueError(
                f"model {self.path} has {self.policy.n_actions} actions, this table has {n_act}: "
                "it was trained for other rules or another table size"
            )

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        x = fold_suits(observations, self.layout) if self.fold else observations
        out = np.empty(masks.shape, np.float64)
        for start in range(0, len(x), 8192):
            out[start : start + 8192] = self.policy.probs(x[start : start + 8192], masks[start : start + 8192])
        return greedy_probs(out) if self.greedy else out

    def __call__(self, obs: dict) -> int:
        o, mask = obs["observation"], obs["action_mask"]
        x = fold_suits(o, self.layout) if self.fold else o
        # Situations repeat (a first card, a common total): decisions are cached per
        # (observation, mask), which roughly halves the cost of a long evaluation.
        key = x.tobytes() + np.asarray(mask).tobytes()
        hit = self._cache.get(key)
        if hit is None:
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.clear()
            if self.greedy:
                z = self.policy.logits(x)
                hit = int(np.argmax(np.where(np.asarray(mask) > 0, z, -np.inf)))
            else:
                hit = np.cumsum(self.policy.probs(x, mask))
            self._cache[key] = hit
        if self.greedy:
            return hit
        return int(min(np.searchsorted(hit, self.rng.random() * hit[-1], side="right"), len(hit) - 1))
