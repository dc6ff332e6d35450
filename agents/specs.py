"""Agents by spec string, and the batched action-probability interface.

Spec strings (the same everywhere: ``evaluate.py``, ``train.py`` configs, the Gymnasium
views' ``opponents``):

| spec | agent |
| --- | --- |
| ``random`` | uniform over the legal actions |
| ``threshold:T`` | punter: stake 1, stands at >= T, hides the new card when its hidden card is < 4 (as banker: ``banker:6``) |
| ``banker:B`` | banker: hits below B, ignoring the punters (as punter: ``threshold:B``) |
| ``smart:B`` | banker: hits below B, or while it would lose as it stands to a hand it can still beat (``SmartBanker``) |
| ``bold:T`` | punter: swaps every 4, top stake on a 7 or a figure, then ``threshold:T`` |
| ``ppo:PATH`` | a MaskablePPO model saved by ``train.py`` (``.zip``), greedy (its most probable legal action) |
| ``ppo:PATH:sample`` | the same model, sampling its action probabilities |
| ``cfr:PATH`` | a heads-up CFR+ equilibrium saved by ``evaluate.py --solve`` (``.npz``), either seat, sampling |
| ``table:PATH`` | any heads-up table-policy pair saved as such a file (a CFR+ solution, or a training run's ``final.npz`` mixture), either seat, sampling |
| ``rllib:PATH`` | the banker and punter policies of a Ray RLlib checkpoint of ``train_rllib.py`` (numpy actors, no Ray needed), either seat, greedy; ``rllib:PATH:sample`` samples |

Every agent is ``agent(obs_dict) -> action`` (``obs_dict`` = ``{"observation", "action_mask"}``)
and has ``action_probs(observations (N, D), masks (N, A)) -> (N, A)``: the probability of
each action in a batch of observations (use ``policy_probs`` for any agent).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .baselines import BankerThreshold, BoldPunter, RandomAgent, SmartBanker, ThresholdPunter

SPEC_HELP = (
    "agent specs: random, threshold:T, banker:B, smart:B, bold:T (T, B totals such as 5.5), "
    "ppo:PATH.zip, ppo:PATH.zip:sample, cfr:PATH.npz, table:PATH.npz, rllib:CHECKPOINT[:sample]"
)
_THRESHOLDS = {"threshold": ThresholdPunter, "banker": BankerThreshold, "smart": SmartBanker, "bold": BoldPunter}


def _parse_total(kind: str, arg: str, spec: str) -> float:
    try:
        t = float(arg)
    except ValueError:
        raise ValueError(f"bad agent spec {spec!r}: {kind}: needs a total such as 5.5; {SPEC_HELP}") from None
    if not 0.5 <= t <= 7.5 or (2 * t) != int(2 * t):
        raise ValueError(f"bad agent spec {spec!r}: the total must be a multiple of 0.5 in 0.5..7.5; {SPEC_HELP}")
    return t


def check_spec(spec: str) -> str:
    """Validate a spec string without building an environment (files must exist)."""
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec is a string, got {spec!r}; {SPEC_HELP}")
    kind, _, arg = spec.partition(":")
    if kind == "random" and not arg:
        return spec
    if kind in _THRESHOLDS:
        _parse_total(kind, arg, spec)
        return spec
    if kind in ("cfr", "table"):
        if not arg:
            raise ValueError(f"bad agent spec {spec!r}: {kind}: needs a solution file; {SPEC_HELP}")
        if not Path(arg).is_file():
            raise ValueError(f"bad agent spec {spec!r}: no solution file {arg}")
        return spec
    if kind == "ppo":
        path, mode = _ppo_parts(spec)
        if not Path(path).is_file():
            raise ValueError(f"bad agent spec {spec!r}: no model file {path}")
        return spec
    if kind == "rllib":
        path, mode = _ppo_parts(spec, len("rllib:"))
        if not Path(path).exists():
            raise ValueError(f"bad agent spec {spec!r}: no RLlib checkpoint {path}")
        return spec
    raise ValueError(f"unknown agent spec {spec!r}; {SPEC_HELP}")


def _ppo_parts(spec: str, prefix: int = 4) -> tuple[str, str]:
    rest = spec[prefix:]
    mode = "greedy"
    if rest.endswith(":sample"):
        rest, mode = rest[: -len(":sample")], "sample"
    elif rest.endswith(":greedy"):
        rest = rest[: -len(":greedy")]
    if not rest:
        raise ValueError(f"bad agent spec {spec!r}: {spec[: prefix - 1]}: needs a model path; {SPEC_HELP}")
    return rest, mode


def make_agent(spec: Any, env, seed: int | None = None):
    """An agent for ``env`` (a PettingZoo env of this package) from a spec string. A
    callable is returned as it is."""
    if callable(spec) and not isinstance(spec, str):
        return spec
    check_spec(spec)
    kind, _, arg = spec.partition(":")
    if kind == "random":
        return RandomAgent(env, seed)
    if kind in _THRESHOLDS:
        return _THRESHOLDS[kind](env, _parse_total(kind, arg, spec))
    if kind in ("cfr", "table"):
        from siete_env.cfr import load

        return load(arg).agent(env, seed)
    if kind == "rllib":
        from .rllib_policy import RLlibAgent

        path, mode = _ppo_parts(spec, len("rllib:"))
        return RLlibAgent(env, path, greedy=mode == "greedy", seed=seed)
    path, mode = _ppo_parts(spec)
    from .learned import PPOAgent

    return PPOAgent(env, path, greedy=mode == "greedy", seed=seed)


def policy_probs(agent, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``(N, A)`` action probabilities of any agent on a batch of observations."""
    fn = getattr(agent, "action_probs", None)
    if fn is not None:
        return fn(observations, masks)
    out = np.zeros(masks.shape, np.float64)
    for i in range(len(observations)):
        out[i, agent({"observation": observations[i], "action_mask": masks[i]})] = 1.0
    return out
