"""The pretrained agents, shipped with the package (agent specs ``pretrained:punter`` and
``pretrained:banker``): for each table people sit at, the final pair of the training run of
that table. No torch, no SB3: every network runs with numpy (``agents.learned.MLPPolicy``),
and each file is read with ``allow_pickle=False``.

Each pair is a file here and a JSON beside it stating the table (``rules``, ``num_players``),
the command and commit that made it and what the run's report measured. ``pair_for(env)``
picks the pair of a table: the one trained for exactly its rules and size, else (heads-up
``spanish`` with splits and nothing better) the no-split pair, which plays each seat's first
hand. Two kinds:

- ``PretrainedPair`` (``spanish-headsup``, ``make train``): the least exploitable mixture of
  its snapshots (``final.npz``). The whole ``final.npz`` holds the banker's table too (36,575
  x 1,489 probabilities: 90 MB); the shipped file keeps what plays the same, small (about
  4 MB): the punter mixture's tables (``bet``, ``draw``) and one banker network, the banker
  snapshot itself where the mixture keeps one, else a network distilled from the banker
  mixture (``training.distill``; the JSON says which). Its JSON states the pair's exact
  values (NashConv, best responses, expected chips against every heuristic of the report);
  ``tests/test_pretrained.py`` recomputes them from the shipped file.
- ``NetworkPair`` (the tables the exact evaluator cannot reach: heads-up with splits, four
  seats under ``spanish``, ``italian`` and Quattro e mezzo): the run's final punter and
  banker networks (``evaluation.select: last``), sampled as the run's report played them;
  the JSON quotes that report's round robin worst cases and learned best responses.

``python -m training.ship`` writes both kinds and their JSON.
"""

from __future__ import annotations

import ast
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.learned import MLPPolicy, PPOAgent

HERE = Path(__file__).resolve().parent
FILE = HERE / "spanish-headsup.npz"
_SHARED: dict[tuple[str, int], Any] = {}
STAND_INS = {
    "stakes": ("smart:6", "bold:5.5"),
    "points": ("quattro:5", "quattro:5"),
}  # by scoring, the (banker, punter) heuristics that sit in where no pretrained pair does


def _layers(z: Any, prefix: str) -> list[tuple[np.ndarray, np.ndarray]]:
    n = sum(1 for k in z.files if k.startswith(f"{prefix}_w"))
    if not n:
        raise ValueError(f"no {prefix} network")
    return [(z[f"{prefix}_w{i}"].T, z[f"{prefix}_b{i}"]) for i in range(n)]


def _save_layers(policy: MLPPolicy, prefix: str) -> dict[str, np.ndarray]:
    out = {f"{prefix}_w{i}": w for i, (w, _) in enumerate(policy.layers)}
    out.update({f"{prefix}_b{i}": b for i, (_, b) in enumerate(policy.layers)})
    return out


def _shared(cls: Any, path: str | Path) -> Any:
    """``cls.load(path)`` once per file version: one copy of the arrays (read-only) shared
    by every agent built from it (the web table's tables, a tournament's matches)."""
    p = Path(path).resolve()
    try:
        key = (str(p), p.stat().st_mtime_ns)
    except OSError as e:
        raise ValueError(f"{path} is not a pretrained pair: {e.strerror}") from None
    pair = _SHARED.get(key)
    if pair is None:
        pair = cls.load(p)
        for a in pair.arrays():
            a.flags.writeable = False
        _SHARED[key] = pair
    return pair


@dataclass
class PretrainedPair:
    """A heads-up pair: the punter as tables over the exact evaluator's states, the banker
    as a network."""

    rules: dict[str, Any]
    bet: np.ndarray
    draw: np.ndarray
    banker: MLPPolicy

    def save(self, path: str | Path) -> None:
        layers = _save_layers(self.banker, "banker")
        np.savez_compressed(
            path,
            rules=np.array(repr(self.rules)),
            bet=self.bet.astype(np.float32),
            draw=self.draw.astype(np.float32),
            activation=np.array(self.banker.activation),
            **layers,
        )

    @classmethod
    def load(cls, path: str | Path = FILE) -> PretrainedPair:
        what = f"{path} is not a pretrained pair (an .npz written by python -m training.ship)"
        try:
            with np.load(path, allow_pickle=False) as z:
                if any(k not in z.files for k in ("rules", "bet", "draw", "activation")):
                    raise ValueError("keys missing")
                layers = _layers(z, "banker")
                return cls(
                    ast.literal_eval(str(z["rules"])),
                    z["bet"].astype(np.float64),
                    z["draw"].astype(np.float64),
                    MLPPolicy(layers, str(z["activation"])),
                )
        except (OSError, ValueError, KeyError, SyntaxError, zipfile.BadZipFile) as e:
            raise ValueError(f"{what}: {e}") from None

    @classmethod
    def shared(cls, path: str | Path = FILE) -> PretrainedPair:
        """``load(path)`` once per file version, shared (read-only)."""
        return _shared(cls, path)

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (self.bet, self.draw)

    def agent(self, env: Any, seed: int | None = None):
        """An agent for either seat of a heads-up table of these rules (also with splits:
        each seat's first hand, every figure kept): ``siete_env.solve``'s table agent on
        the punter's tables, the banker network (sampled) on the banker's turn."""
        from siete_env import raw_env
        from siete_env.solve.evaluator import evaluator
        from siete_env.solve.tables import PolicyTables, TablePairAgent

        tables = PolicyTables(self.rules, self.bet, self.draw, None, None, evaluator(self.rules))  # type: ignore[arg-type]
        # the network reads the observations of the rules it was trained for (the table
        # agent narrows a table with splits to them)
        banker = PPOAgent(raw_env(num_players=2, rules=self.rules), self.banker, greedy=False)
        return TablePairAgent(tables, env, seed, banker=banker)


@dataclass
class NetworkPair:
    """A pair of networks for one table (``rules``, ``num_players``): the punter network
    plays every punter seat, the banker network the bank, both sampled."""

    rules: dict[str, Any]
    num_players: int
    punter: MLPPolicy
    banker: MLPPolicy

    def save(self, path: str | Path) -> None:
        np.savez_compressed(
            path,
            rules=np.array(repr(self.rules)),
            num_players=np.array(self.num_players),
            activation=np.array([self.punter.activation, self.banker.activation]),
            **_save_layers(self.punter, "punter"),
            **_save_layers(self.banker, "banker"),
        )

    @classmethod
    def load(cls, path: str | Path) -> NetworkPair:
        what = f"{path} is not a pretrained network pair (an .npz written by python -m training.ship)"
        try:
            with np.load(path, allow_pickle=False) as z:
                if any(k not in z.files for k in ("rules", "num_players", "activation")):
                    raise ValueError("keys missing")
                act = [str(a) for a in z["activation"]]
                return cls(
                    ast.literal_eval(str(z["rules"])),
                    int(z["num_players"]),
                    MLPPolicy(_layers(z, "punter"), act[0]),
                    MLPPolicy(_layers(z, "banker"), act[1]),
                )
        except (OSError, ValueError, KeyError, IndexError, SyntaxError, zipfile.BadZipFile) as e:
            raise ValueError(f"{what}: {e}") from None

    @classmethod
    def shared(cls, path: str | Path) -> NetworkPair:
        """``load(path)`` once per file version, shared (read-only)."""
        return _shared(cls, path)

    def arrays(self) -> tuple[np.ndarray, ...]:
        return tuple(a for p in (self.punter, self.banker) for layer in p.layers for a in layer)

    def agent(self, env: Any, seed: int | None = None) -> NetworkPairAgent:
        """An agent for any seat of this table: the banker network on the bank's turn, the
        punter network otherwise (each plays both roles as the bank passes)."""
        return NetworkPairAgent(env, self, seed)


class NetworkPairAgent:
    """Plays a ``NetworkPair``: each observation goes to the network of the role it shows
    (the observer's banker flag), and actions are sampled with the agent's own generator."""

    deterministic = False

    def __init__(self, env: Any, pair: NetworkPair, seed: int | None = None):
        from siete_env.encoding import SeatFeature
        from siete_env.solve.observations import ME

        raw = env.unwrapped
        if raw.num_players != pair.num_players or not _same_rules(raw.rules, pair.rules):
            raise ValueError(f"this pair was trained for {_table_name(pair.rules, pair.num_players)}")
        self.rng = np.random.default_rng(seed)
        self.punter = PPOAgent(env, pair.punter, greedy=False)
        self.banker = PPOAgent(env, pair.banker, greedy=False)
        self._me_banker = raw.layout.seat_feature(ME, SeatFeature.IS_BANKER)

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.zeros(np.shape(masks))
        bank = np.asarray(observations)[:, self._me_banker] == 1.0
        for rows, net in ((bank, self.banker), (~bank, self.punter)):
            if rows.any():
                out[rows] = net.action_probs(observations[rows], masks[rows])
        return out

    def __call__(self, obs: dict) -> int:
        p = self.action_probs(np.asarray(obs["observation"])[None, :], np.asarray(obs["action_mask"])[None, :])[0]
        return int(self.rng.choice(len(p), p=p / p.sum()))


def _same_rules(rules: Any, stated: dict[str, Any]) -> bool:
    from siete_env.rules import resolve_rules

    return resolve_rules(stated) == rules


def _table_name(rules: dict[str, Any], players: int) -> str:
    seats = "heads-up" if players == 2 else f"{players} players"
    splits = (
        "" if rules.get("scoring") == "points" else (" with splits" if rules.get("max_splits") else " without splits")
    )
    return f"{seats} {rules['preset']}{splits}"


@dataclass(frozen=True)
class Shipped:
    """A pretrained pair as its JSON states it."""

    name: str
    file: Path
    rules: dict[str, Any]
    num_players: int
    meta: dict[str, Any]

    @property
    def table(self) -> str:
        return _table_name(self.rules, self.num_players)

    def load(self) -> PretrainedPair | NetworkPair:
        return (NetworkPair if self.meta.get("kind") == "networks" else PretrainedPair).shared(self.file)


def shipped() -> list[Shipped]:
    """Every pretrained pair of this install (its JSON beside its file), by name."""
    out = []
    for js in sorted(HERE.glob("*.json")):
        meta = json.loads(js.read_text())
        out.append(Shipped(js.stem, HERE / meta["file"], meta["rules"], int(meta.get("num_players", 2)), meta))
    return out


def tables_text() -> str:
    """Where the pretrained agents sit, for messages."""
    return ", ".join(s.table for s in shipped())


def agent_for(env: Any, seed: int | None = None):
    """A pretrained agent for any seat of ``env``'s table: the pair trained for exactly its
    rules and size, else one that plays it (the heads-up no-split pair at a heads-up
    ``spanish`` table with splits); a ``ValueError`` naming where they sit otherwise."""
    raw = env.unwrapped
    pairs = shipped()
    sized = [s for s in pairs if s.num_players == raw.num_players]  # no pair plays another table size
    exact = [s for s in sized if _same_rules(raw.rules, s.rules)]
    for s in exact + [s for s in sized if s not in exact and s.meta.get("kind") != "networks"]:
        pair = s.load()
        try:
            return pair.agent(env, seed)
        except ValueError:  # not its table
            continue
    raise ValueError(
        f"no pretrained agents for this table ({raw.num_players} players, rules {raw.rules.preset}): "
        f"they sit at {tables_text()}"
    )


__all__ = [
    "FILE",
    "STAND_INS",
    "NetworkPair",
    "NetworkPairAgent",
    "PretrainedPair",
    "agent_for",
    "shipped",
    "tables_text",
]
