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
| ``quattro:T`` | quattro e mezzo (points game), either seat: stands on 4½ (the best hand) and on T or more |
| ``ppo:PATH`` | a MaskablePPO model saved by ``train.py`` (``.zip``), greedy (its most probable legal action); read as weights only, its pickles never run (``agents.learned.read_model_zip``) |
| ``ppo:PATH:sample`` | the same model, sampling its action probabilities |
| ``cfr:PATH`` | a heads-up CFR+ equilibrium saved by ``evaluate.py --solve`` (``.npz``), either seat, sampling |
| ``table:PATH`` | any heads-up table-policy pair saved as such a file (a CFR+ solution, or a training run's ``final.npz`` mixture), either seat, sampling |
| ``pretrained:punter``, ``pretrained:banker`` | the final pair of the training run of this table, shipped with the package (``agents/pretrained/``): heads-up ``spanish`` with or without splits, ``spanish``, ``italian`` and Quattro e mezzo at four seats; each plays both roles as the bank passes. No training, torch or SB3 needed (docs/agents.md#pretrained-agents) |
| ``rllib:PATH`` | the banker and punter policies of a Ray RLlib checkpoint of ``train_rllib.py`` (numpy actors, no Ray needed), either seat, greedy; ``rllib:PATH:sample`` samples |

Every agent is ``agent(obs_dict) -> action`` (``obs_dict`` = ``{"observation", "action_mask"}``)
and has ``action_probs(observations (N, D), masks (N, A)) -> (N, A)``: the probability of
each action in a batch of observations (use ``policy_probs``, from ``siete_env.opponents``,
for any agent).
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from siete_env.opponents import policy_probs, register_resolver

from .baselines import BankerThreshold, BoldPunter, QuattroPlayer, RandomAgent, SmartBanker, ThresholdPunter

SPEC_HELP = (
    "agent specs: random, threshold:T, banker:B, smart:B, bold:T, quattro:T (T, B totals such as 5.5), "
    "ppo:PATH.zip, ppo:PATH.zip:sample, cfr:PATH.npz, table:PATH.npz, rllib:CHECKPOINT[:sample], "
    "pretrained:punter, pretrained:banker"
)
_THRESHOLDS = {
    "threshold": ThresholdPunter, "banker": BankerThreshold, "smart": SmartBanker, "bold": BoldPunter,
    "quattro": QuattroPlayer,
}  # fmt: skip
_TABLES = ("cfr", "table")
_LEARNED = ("ppo", "rllib")  # a model path, greedy or ``:sample``
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"
PRETRAINED = ("punter", "banker")  # either plays both roles: the pair of the table (agents.pretrained)


def _parse_total(kind: str, arg: str, spec: str) -> float:
    if not re.fullmatch(r"-?([0-9]+(\.[0-9]*)?|\.[0-9]+)", arg):  # float() would also take " 6", "5_5", "nan"
        raise ValueError(f"bad agent spec {spec!r}: {kind}: needs a total such as 5.5; {SPEC_HELP}")
    t = float(arg)
    if not 0.5 <= t <= 7.5 or (2 * t) != int(2 * t):
        raise ValueError(f"bad agent spec {spec!r}: the total must be a multiple of 0.5 in 0.5..7.5; {SPEC_HELP}")
    return t


@dataclass(frozen=True)
class AgentSpec:
    """A spec string, parsed: its ``kind`` (``random``, ``threshold``, ``banker``,
    ``smart``, ``bold``, ``ppo``, ``cfr``, ``table``, ``rllib``), its argument (a total
    such as ``"5.5"``, or a file or checkpoint path) and, for ``ppo`` and ``rllib``,
    whether it samples. ``str(spec)`` is the spec string again."""

    kind: str
    arg: str = ""
    sample: bool = False

    @classmethod
    def parse(cls, spec: str) -> AgentSpec:
        """The parts of a spec string; a ``ValueError`` naming what is wrong (files are
        not looked at: ``check_spec``)."""
        if not isinstance(spec, str):
            raise ValueError(f"an agent spec is a string, got {spec!r}; {SPEC_HELP}")
        if spec != spec.strip():
            raise ValueError(f"bad agent spec {spec!r}: leading or trailing whitespace; {SPEC_HELP}")
        kind, _, arg = spec.partition(":")
        if kind == "random" and not arg:
            return cls(kind)
        if kind in _THRESHOLDS:
            _parse_total(kind, arg, spec)
            return cls(kind, arg)
        if kind in _TABLES:
            if not arg:
                raise ValueError(f"bad agent spec {spec!r}: {kind}: needs a solution file; {SPEC_HELP}")
            return cls(kind, arg)
        if kind == "pretrained":
            if arg not in PRETRAINED:
                raise ValueError(
                    f"bad agent spec {spec!r}: pretrained agents: {', '.join(f'pretrained:{r}' for r in PRETRAINED)}"
                )
            return cls(kind, arg)
        if kind in _LEARNED:
            sample = arg.endswith(":sample")
            if sample or arg.endswith(":greedy"):
                arg = arg.rpartition(":")[0]
            if not arg:
                what = "a model path" if kind == "ppo" else "a checkpoint path"
                raise ValueError(f"bad agent spec {spec!r}: {kind}: needs {what}; {SPEC_HELP}")
            return cls(kind, arg, sample)
        raise ValueError(f"unknown agent spec {spec!r}; {SPEC_HELP}")

    @classmethod
    def model(cls, path: str | Path, sample: bool = False) -> AgentSpec:
        """A model saved by ``train.py`` (``ppo:PATH``)."""
        return cls("ppo", str(path), sample)

    @classmethod
    def rllib(cls, checkpoint: str | Path, sample: bool = False) -> AgentSpec:
        """A Ray RLlib checkpoint of ``train_rllib.py`` (``rllib:PATH``)."""
        return cls("rllib", str(checkpoint), sample)

    @classmethod
    def tables(cls, path: str | Path) -> AgentSpec:
        """A saved table-policy pair (``table:PATH``)."""
        return cls("table", str(path))

    @property
    def path(self) -> Path | None:
        """The file of a ``ppo``, ``cfr`` or ``table`` spec; the checkpoint (a folder, or
        its ``siete_actors.npz``) of an ``rllib`` spec."""
        if self.kind == "pretrained":
            return PRETRAINED_DIR  # the pair is picked by the table (agents.pretrained.agent_for)
        return Path(self.arg) if self.kind in (*_LEARNED, *_TABLES) else None

    @property
    def learned(self) -> bool:
        """A trained model (``ppo``, ``rllib``): built for one table and rule set."""
        return self.kind in _LEARNED

    @property
    def total(self) -> float | None:
        """The total of a threshold spec."""
        return float(self.arg) if self.kind in _THRESHOLDS else None

    def relative_to(self, folder: str | Path) -> AgentSpec:
        """The same spec with its file path relative to ``folder``."""
        if self.path is None or self.kind == "pretrained":
            return self
        return replace(self, arg=str(self.path.relative_to(folder)))

    def __str__(self) -> str:
        if not self.arg:
            return self.kind
        return f"{self.kind}:{self.arg}" + (":sample" if self.sample else "")


def check_spec(spec: str) -> str:
    """Validate a spec string without building an environment (files must exist)."""
    a = AgentSpec.parse(spec)
    path = a.path
    if a.kind == "pretrained" and path is not None and not any(path.glob("*.npz")):
        raise ValueError(f"bad agent spec {spec!r}: the pretrained files are missing from this install ({path})")
    if a.kind in _TABLES and path is not None:
        if not path.is_file():
            raise ValueError(f"bad agent spec {spec!r}: no solution file {path}")
        if not zipfile.is_zipfile(path):  # an .npz is a zip archive
            raise ValueError(
                f"bad agent spec {spec!r}: {path} is not a solution file (an .npz saved by evaluate.py --solve "
                "or a training run's final.npz / gen_XXX/br.npz)"
            )
    elif a.kind == "ppo" and path is not None:
        if not path.is_file():
            raise ValueError(f"bad agent spec {spec!r}: no model file {path}")
        if not zipfile.is_zipfile(path):
            raise ValueError(f"bad agent spec {spec!r}: {path} is not a model file (a .zip saved by train.py)")
    elif a.kind == "rllib" and path is not None and not path.exists():
        raise ValueError(f"bad agent spec {spec!r}: no RLlib checkpoint {path}")
    return spec


def make_agent(spec: Any, env, seed: int | None = None):
    """An agent for ``env`` (a PettingZoo env of this package) from a spec string (or an
    ``AgentSpec``). A callable is returned as it is. This is also the environment's spec
    resolver (``siete_env.opponents``, entry point ``siete_env.agent_specs``)."""
    if callable(spec) and not isinstance(spec, str):
        return spec
    check_spec(str(spec))
    a = AgentSpec.parse(str(spec))
    if a.kind == "random":
        return RandomAgent(env, seed)
    if a.kind in _THRESHOLDS:
        return _THRESHOLDS[a.kind](env, a.total)
    if a.kind == "pretrained":
        from .pretrained import STAND_INS, agent_for

        try:
            return agent_for(env, seed)
        except ValueError as err:
            bank, punt = STAND_INS[env.unwrapped.rules.scoring]
            raise ValueError(
                f"{spec}: {err}; at other tables use heuristics such as {bank} (banker) and {punt} (punter)"
            ) from None
    if a.kind in _TABLES:
        from siete_env.solve import load_tables

        try:
            return load_tables(a.arg).agent(env, seed)
        except ValueError as e:
            raise ValueError(f"{spec}: {e}") from None
    if a.kind == "rllib":
        from .rllib_policy import RLlibAgent

        return RLlibAgent(env, a.arg, greedy=not a.sample, seed=seed)
    from .learned import PPOAgent

    return PPOAgent(env, a.arg, greedy=not a.sample, seed=seed)


register_resolver(make_agent)  # SeatEnv's opponents from spec strings (also declared as an entry point)

__all__ = ["SPEC_HELP", "AgentSpec", "check_spec", "make_agent", "policy_probs"]
