"""The pretrained agents: the final pair of the default training run, shipped with the
package (agent specs ``pretrained:punter`` and ``pretrained:banker``).

``make train`` ends with the least exploitable mixture of its snapshots (``final.npz``):
each side mixes several snapshots, one drawn per hand, played as the behaviour strategy
that mixture is equal to (``siete_env.solve.mixture``). The whole ``final.npz`` holds the
banker's table too (36,575 x 1,489 probabilities: 90 MB); the shipped file keeps what
plays the same, small (about 4 MB): the punter mixture's tables (``bet``, ``draw``) and one
banker network, run with numpy (``agents.learned.MLPPolicy``): the banker snapshot itself
where the mixture keeps one, else a network distilled from the banker mixture
(``training.distill``; the JSON says which, and the exact values are the shipped pair's).
No torch, no SB3.

``spanish-headsup.json`` beside it states the pair's exact values (NashConv, best responses,
expected chips against every heuristic of the report) and the command and commit that made
it; ``tests/test_pretrained.py`` recomputes them from the shipped file
(``python -m training.ship`` wrote both).
"""

from __future__ import annotations

import ast
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.learned import MLPPolicy, PPOAgent

FILE = Path(__file__).resolve().parent / "spanish-headsup.npz"
_SHARED: dict[tuple[str, int], PretrainedPair] = {}


@dataclass
class PretrainedPair:
    """A heads-up pair: the punter as tables over the exact evaluator's states, the banker
    as a network."""

    rules: dict[str, Any]
    bet: np.ndarray
    draw: np.ndarray
    banker: MLPPolicy

    def save(self, path: str | Path) -> None:
        layers = {f"banker_w{i}": w for i, (w, _) in enumerate(self.banker.layers)}
        layers.update({f"banker_b{i}": b for i, (_, b) in enumerate(self.banker.layers)})
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
                n = sum(1 for k in z.files if k.startswith("banker_w"))
                if not n or any(k not in z.files for k in ("rules", "bet", "draw", "activation")):
                    raise ValueError("keys missing")
                layers = [(z[f"banker_w{i}"].T, z[f"banker_b{i}"]) for i in range(n)]
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
        """``load(path)`` once per file version: one copy of the arrays (read-only) shared by
        every agent built from it (the web table's tables, a tournament's matches)."""
        p = Path(path).resolve()
        try:
            key = (str(p), p.stat().st_mtime_ns)
        except OSError as e:
            raise ValueError(f"{path} is not a pretrained pair: {e.strerror}") from None
        pair = _SHARED.get(key)
        if pair is None:
            pair = cls.load(p)
            for a in (pair.bet, pair.draw):
                a.flags.writeable = False
            _SHARED[key] = pair
        return pair

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


__all__ = ["FILE", "PretrainedPair"]
