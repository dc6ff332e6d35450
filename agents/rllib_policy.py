"""Policies trained with Ray RLlib (``train_rllib.py``) played as table agents, without Ray.

``train_rllib.py`` writes, beside every RLlib checkpoint, ``siete_actors.npz``: the actor
network (encoder MLP and policy head) of the banker module and of the punter module, as
numpy arrays, and what they were trained for (rules, table size, suit folding). The
agent spec ``rllib:PATH`` (``PATH``: the checkpoint folder or that file) loads it into
two ``agents.learned.MLPPolicy`` actors: on the banker's turn the banker actor decides,
otherwise the punter actor; masked logits and softmax as RLlib's action-masking module
(illegal actions get no probability). ``rllib:PATH`` plays its most probable action,
``rllib:PATH:sample`` samples. A checkpoint without the file (written by another tool) is
converted on first use when Ray is installed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from siete_env.encoding import SeatFeature
from siete_env.features import fold_suits, folded_size
from siete_env.rules import cut

from .learned import MLPPolicy, greedy_probs

ACTORS_FILE = "siete_actors.npz"
ROLES = ("banker", "punter")
_ACT = {"tanh": "Tanh", "relu": "ReLU"}


def actor_layers(state: dict[str, Any]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor's ``(weight, bias)`` layers from an RLlib PPO module's state dict (the
    actor encoder's linear layers, then the policy head's)."""

    def linear(prefix: str) -> list[tuple[np.ndarray, np.ndarray]]:
        idx = sorted({int(k[len(prefix) :].split(".")[0]) for k in state if k.startswith(prefix)})
        return [(_np(state[f"{prefix}{i}.weight"]), _np(state[f"{prefix}{i}.bias"])) for i in idx]

    enc = "encoder.actor_encoder.net.mlp." if any(k.startswith("encoder.actor_encoder.") for k in state) else (
        "encoder.encoder.net.mlp."
    )  # fmt: skip
    layers = linear(enc) + linear("pi.net.mlp.")
    if not layers:
        raise ValueError("no actor layers found in the module state (expected RLlib's default PPO MLP module)")
    return layers


def _np(x: Any) -> np.ndarray:
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


def save_actors(path: str | Path, states: dict[str, dict[str, Any]], meta: dict[str, Any]) -> Path:
    """Write the actors of ``states`` (role -> module state dict) and ``meta`` to ``path``."""
    arrays: dict[str, np.ndarray] = {}
    for role, state in states.items():
        for i, (w, b) in enumerate(actor_layers(state)):
            arrays[f"{role}/w{i}"] = w.astype(np.float32)
            arrays[f"{role}/b{i}"] = b.astype(np.float32)
    path = Path(path)
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)
    return path


def load_actors(path: str | Path) -> tuple[dict[str, MLPPolicy], dict[str, Any]]:
    """``(role -> MLPPolicy, meta)`` from a checkpoint folder or an actors file."""
    p = Path(path)
    f = p / ACTORS_FILE if p.is_dir() else p
    if not f.is_file():
        if p.is_dir():
            _convert(p)
        else:
            raise ValueError(
                f"no RLlib actors at {path}: give a checkpoint folder of train_rllib.py or its {ACTORS_FILE}"
            )
    try:
        with np.load(f, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            act = _ACT.get(meta.get("activation", "tanh"), "Tanh")
            out = {}
            for role in ROLES:
                k = 0
                layers = []
                while f"{role}/w{k}" in z:
                    layers.append((z[f"{role}/w{k}"], z[f"{role}/b{k}"]))
                    k += 1
                if layers:
                    out[role] = MLPPolicy(layers, act)
    except Exception as e:  # noqa: BLE001  (a broken file: BadZipFile, KeyError, JSON, shapes, ...)
        if isinstance(e, MemoryError):
            raise
        raise ValueError(
            f"{f} is not an RLlib actors file of train_rllib.py ({ACTORS_FILE}): {cut(str(e) or type(e).__name__)}"
        ) from None
    if set(out) != set(ROLES):
        raise ValueError(f"{f} holds actors for {sorted(out)}, not for both roles {list(ROLES)}")
    return out, meta


def _convert(checkpoint: Path) -> None:
    """Write ``siete_actors.npz`` into a checkpoint that has none (needs Ray)."""
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError:
        raise ValueError(
            f"{checkpoint} has no {ACTORS_FILE} (train_rllib.py writes it) and Ray is not installed to read the checkpoint"
        ) from None
    base = checkpoint / "learner_group" / "learner" / "rl_module"
    states = {role: RLModule.from_checkpoint(base / role).state_dict() for role in ROLES}
    meta_file = checkpoint.parent / "siete_meta.json"
    meta = json.loads(meta_file.read_text()) if meta_file.is_file() else {}
    save_actors(checkpoint / ACTORS_FILE, states, meta)


class RLlibAgent:
    """A banker actor and a punter actor trained together by ``train_rllib.py``."""

    def __init__(self, env, path: str, greedy: bool = True, seed: int | None = None):
        self.actors, self.meta = load_actors(path)
        self.path = str(path)
        self.greedy = self.deterministic = greedy
        self.rng = np.random.default_rng(seed)
        raw = env.unwrapped
        L = self.layout = raw.layout
        self._banker_col = L.seat_feature(0, SeatFeature.IS_BANKER)  # the observer is the banker
        n_act = len(raw.action_names)
        for role, pol in self.actors.items():
            if pol.input_size == folded_size(L):
                fold = True
            elif pol.input_size == L.size:
                fold = False
            else:
                raise ValueError(
                    f"RLlib {role} actor at {path} expects observations of size {pol.input_size}, but this table's "
                    f"are {L.size} ({folded_size(L)} folded): it was trained for other rules or another table size"
                )
            if pol.n_actions != n_act:
                raise ValueError(f"RLlib {role} actor at {path} has {pol.n_actions} actions, this table has {n_act}")
        self.fold = fold

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations)
        x = fold_suits(obs, self.layout) if self.fold else obs
        bank = obs[:, self._banker_col] == 1.0
        out = np.zeros(masks.shape, np.float64)
        for role, rows in (("banker", bank), ("punter", ~bank)):
            if rows.any():
                out[rows] = self.actors[role].probs(x[rows], masks[rows])
        return greedy_probs(out) if self.greedy else out

    def __call__(self, obs: dict) -> int:
        p = self.action_probs(np.asarray(obs["observation"])[None, :], np.asarray(obs["action_mask"])[None, :])[0]
        if self.greedy:
            return int(p.argmax())
        return int(self.rng.choice(len(p), p=p / p.sum()))
