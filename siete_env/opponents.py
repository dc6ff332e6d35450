"""Agents from spec strings for the single-seat views, without depending on ``agents``.

``SeatEnv`` takes its opponents as callables or as spec strings (``"smart:6"``). The
strings are resolved here, by a **spec resolver**: a callable ``(spec, env, seed) ->
agent`` that raises ``ValueError`` for a spec it does not know. Resolvers are found
two ways:

* registered at run time with ``register_resolver``;
* declared by an installed package under the entry-point group ``siete_env.agent_specs``
  (this project's ``pyproject.toml`` declares ``agents.specs:make_agent``), loaded the
  first time a string needs resolving.

The first resolver found resolves every spec. With none installed the built-in
``"random"`` (uniform over the legal actions; the registered Gymnasium ids' default
opponent) still works, and any other spec is refused with an error naming the fix.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

import numpy as np

ENTRY_POINT_GROUP = "siete_env.agent_specs"
Resolver = Callable[..., Any]
_registered: list[Resolver] = []
_discovered: list[Resolver] | None = None
_broken: list[str] = []  # entry points that could not be loaded, and why


class UniformRandom:
    """Uniform over the legal actions, with its own seeded generator (``rng``)."""

    deterministic = False
    native_kind = "random"  # the batched engine draws its moves inside the kernels

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: dict) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        return int(legal[self.rng.integers(len(legal))])

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        m = masks.astype(np.float64)
        return m / m.sum(axis=1, keepdims=True)


def policy_probs(agent: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``(N, A)`` action probabilities of any agent on a batch of observations (its
    ``action_probs``; otherwise its one-hot decisions, row by row)."""
    fn = getattr(agent, "action_probs", None)
    if fn is not None:
        return fn(observations, masks)
    out = np.zeros(masks.shape, np.float64)
    for i in range(len(observations)):
        out[i, agent({"observation": observations[i], "action_mask": masks[i]})] = 1.0
    return out


def register_resolver(resolver: Resolver) -> None:
    """Resolve spec strings with ``resolver(spec, env, seed=None) -> agent`` (before any
    found through entry points)."""
    if resolver not in _registered:
        _registered.append(resolver)


def resolvers() -> list[Resolver]:
    """The resolvers in order: registered ones, then those of the entry points."""
    global _discovered
    if _discovered is None:
        _discovered = []
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            try:
                _discovered.append(ep.load())
            except ImportError as e:  # declared, but its package is not importable here
                _broken.append(f"{ep.value} ({e})")
    return [*_registered, *_discovered]


def resolve(spec: Any, env: Any, seed: int | None = None) -> Any:
    """An agent for ``env`` from a spec string (a callable is returned as it is)."""
    if callable(spec) and not isinstance(spec, str):
        return spec
    found = resolvers()
    if found:
        return found[0](spec, env, seed=seed)
    if spec == "random":
        return UniformRandom(seed)
    broken = f"; could not load {', '.join(_broken)}" if _broken else ""
    raise ValueError(
        f"cannot resolve the agent spec {spec!r}: no agent spec resolver is installed (only 'random' is "
        f"built in{broken}). Install the project (pip install -e .), whose agents package declares one under "
        f"the entry-point group {ENTRY_POINT_GROUP!r}, or call siete_env.opponents.register_resolver, or pass "
        "callables instead of spec strings"
    )


__all__ = ["ENTRY_POINT_GROUP", "UniformRandom", "policy_probs", "register_resolver", "resolve", "resolvers"]
