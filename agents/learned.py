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

from siete_env.cards import card_of
from siete_env.features import fold_suits, folded_size
from siete_env.game import HIT_UP, STAND
from siete_env.game import KEEP, SPLIT

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


def _same_layout(a, b) -> bool:
    """Whether two observation layouts put every feature at the same index."""
    return (a.n, a.H, a.W, a.shoe, a.size) == (b.n, b.H, b.W, b.shoe, b.size)


_CHUNK = 4096  # rows per pass of the exact banker table (a few rows x hidden blocks stay in cache)


def _weights_of(w: np.ndarray, b: np.ndarray, a: float, c: float, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """A layer ``h @ w + b`` whose input is given as ``s`` with ``h = a*s + c``, times
    ``scale``: ``(scale*a*w, scale*(b + c*sum(w)))`` (float32)."""
    w64 = np.asarray(w, np.float64)
    return (scale * a * w64).astype(np.float32), (scale * (np.asarray(b, np.float64) + c * w64.sum(0))).astype(np.float32)


def _mlp_banker_table(policy: MLPPolicy, ev, base: np.ndarray, layout, greedy: bool) -> np.ndarray:
    """``PPOAgent.exact_banker_table`` for an ``MLPPolicy`` of the folded observation.

    A banker row at ``(V, m_i)`` is its V row's base plus what the node adds
    (``siete_env.solve.observations.banker_node``): its own cards, the 4s going back, a
    few scalars. ``fold_suits`` and the first layer are linear, so the first layer's
    pre-activation is ``A[V]`` (the base rows, folded, through the layer) plus the node's
    entries through the layer: no row is built. The other layers run on the possible
    ``(V, m_i)`` only, and only for ``z_hit - z_stand``: the masked softmax's
    ``p_hit / (p_stand + p_hit)`` is ``sigmoid(z_hit - z_stand)``.
    Tanh is computed as ``tanh(x) = 2 / (1 + exp(-2x)) - 1`` (numpy's float32 ``exp`` is
    vectorised, its ``tanh`` is not), the ``2 s - 1`` folded into the next layer.
    """
    layers = policy.layers
    w_out, b_out = layers[-1]
    w_d = (w_out[:, HIT_UP].astype(np.float64) - w_out[:, STAND])[:, None]  # the output that matters
    b_d = np.array([float(b_out[HIT_UP]) - float(b_out[STAND])])
    tanh = policy.activation == "Tanh"
    scale = -2.0 if tanh else 1.0  # a tanh layer computes -2 x (then exp, +1, 1/.)
    if len(layers) > 1:
        first = _weights_of(*layers[0], 1.0, 0.0, scale)
        rest = []
        a, c = (2.0, -1.0) if tanh else (1.0, 0.0)  # a hidden layer's output, from what is computed
        for w, b in layers[1:-1]:
            rest.append(_weights_of(w, b, a, c, scale))
        last = _weights_of(w_d, b_d, a, c, 1.0)
    else:  # no hidden layer: the first layer gives the output
        first, rest, last = _weights_of(w_d, b_d, 1.0, 0.0, 1.0), [], None
    w1, b1 = first
    # the first layer of an unfolded row: fold_suits is linear (each entry goes to one folded entry)
    w1_raw = fold_suits(np.eye(layout.size, dtype=np.float32), layout) @ w1
    A = fold_suits(base, layout) @ w1
    A += b1
    nV, width = A.shape
    vk = np.repeat(ev.vu_k, ev.L)
    vU = np.repeat(ev.vu_U, ev.L, axis=0)
    hit = np.zeros((nV, ev.n_M))
    buf1 = np.empty((_CHUNK, width), np.float32)
    bufs = [np.empty((_CHUNK, w.shape[1]), np.float32) for w, _ in rest]
    d = np.empty((_CHUNK, 1), np.float32)
    for m_i in range(ev.n_M):
        node = ev.banker_node(vk, vU, m_i)
        at = np.flatnonzero(node.ok)
        if not len(at):
            continue
        # what the node adds to the first layer: a constant, and per-row terms
        const = np.zeros(width, np.float64)
        cols, per_row = [], []
        entries = [(layout.card_entry(card_of(r, 0), column), n) for r, column, n in node.cards]
        for index, value in entries + list(node.scalars):
            if np.ndim(value) == 0:
                const += float(value) * w1_raw[index].astype(np.float64)
            else:
                cols.append(value)
                per_row.append(w1_raw[index])
        W = np.vstack([const.astype(np.float32)[None, :], *per_row]).astype(np.float32)
        X = np.empty((len(at), len(W)), np.float32)
        X[:, 0] = 1.0
        for j, col in enumerate(cols):
            X[:, j + 1] = col
        for s in range(0, len(at), _CHUNK):
            rows = at[s : s + _CHUNK]
            n = len(rows)
            h = np.matmul(X[s : s + n], W, out=buf1[:n])
            h += A[rows]
            if last is None:
                z = h
            else:
                for i in range(len(rest) + 1):
                    if i:
                        h = np.matmul(h, rest[i - 1][0], out=bufs[i - 1][:n])
                        h += rest[i - 1][1]
                    if tanh:  # h = -2x: s = 1 / (1 + exp(-2x)), tanh(x) = 2s - 1
                        np.exp(h, out=h)
                        h += 1.0
                        np.reciprocal(h, out=h)
                    else:
                        np.maximum(h, 0.0, out=h)
                z = np.matmul(h, last[0], out=d[:n])
                z += last[1]
            z = z[:, 0].astype(np.float64)
            hit[rows, m_i] = (z > 0.0) if greedy else 1.0 / (1.0 + np.exp(-z))
    return hit


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
    observations. A policy trained without splits (``max_splits: 0``) also plays at a table
    with splits (the ``spanish`` preset): it is given each seat's first hand, as it was
    trained (``Layout.narrowed``; a banker facing a punter who split sees that punter's
    first hand only, and the cards of the others only through the cards left), and where a
    split is offered it keeps the card.
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
        self.index: np.ndarray | None = None  # a table with splits, a model trained without them
        narrow = layout.narrowed(1) if layout.H > 1 else None
        if narrow is not None and size in (folded_size(narrow), narrow.size):
            # trained without splits: it sees each seat's first hand, and keeps every figure
            self.index, self.layout = layout.gather_index(narrow), narrow
            layout = narrow
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

    def _input(self, observations: np.ndarray) -> np.ndarray:
        x = observations if self.index is None else observations[..., self.index]
        return fold_suits(x, self.layout) if self.fold else x

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        x = self._input(observations)
        out = np.empty(masks.shape, np.float64)
        for start in range(0, len(x), 8192):
            out[start : start + 8192] = self.policy.probs(x[start : start + 8192], masks[start : start + 8192])
        out = greedy_probs(out) if self.greedy else out
        if self.index is not None:  # trained without splits: a split offered is declined
            offered = np.asarray(masks)[:, SPLIT] > 0
            out[offered] = 0.0
            out[offered, KEEP] = 1.0
        return out

    def exact_banker_table(self, ev) -> np.ndarray | None:
        """The banker's table of the exact evaluator (``ExactEvaluator.banker_table``:
        the probability of hitting at every (V row, banker node)), computed from the
        network's layers without building the tens of millions of banker observations:
        the same table as the generic path's (to float32 rounding). ``None`` (the generic
        path) for anything but a plain ``MLPPolicy`` of the suit-folded observation (a
        folded policy is suit-invariant by construction: no check is needed)."""
        if (
            type(self.policy) is not MLPPolicy
            or self.policy.activation not in ("Tanh", "ReLU")
            or not self.fold
            or type(self).action_probs is not PPOAgent.action_probs
            or not _same_layout(self.layout, ev.layout)
        ):
            return None
        base, mask = ev.banker_base()
        legal = set(np.flatnonzero(np.asarray(mask)[0]).tolist())
        # hit = p_hit / (p_stand + p_hit) = sigmoid(z_hit - z_stand) whatever else is legal;
        # greedy, STAND and HIT_UP must be the only legal actions (else the argmax may be neither)
        if not {STAND, HIT_UP} <= legal or (self.greedy and legal != {STAND, HIT_UP}):
            return None
        with np.errstate(over="ignore"):
            return _mlp_banker_table(self.policy, ev, base, self.layout, self.greedy)

    def __call__(self, obs: dict) -> int:
        o, mask = obs["observation"], obs["action_mask"]
        if self.index is not None and mask[SPLIT]:
            return KEEP  # trained without splits: never act on an output it was not trained for
        x = self._input(o)
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
