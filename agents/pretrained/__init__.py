"""The pretrained agents: the final pair of the default training run, shipped with the
package (agent specs ``pretrained:punter`` and ``pretrained:banker``).

``make train`` ends with the least exploitable mixture of its snapshots (``final.npz``).
Its banker side is one network (the last banker snapshot, weight 1); its punter side mixes
several snapshots, one drawn per hand, played as the behaviour strategy that mixture is
equal to (``siete_env.solve.mixture``). The whole ``final.npz`` holds the banker's table
too (36,575 x 1,489 probabilities: 90 MB); the shipped file keeps what plays the same,
small (about 4 MB): the punter mixture's tables (``bet``, ``draw``) and the banker network's
weights, run with numpy (``agents.learned.MLPPolicy``). No torch, no SB3.

``spanish-headsup.json`` beside it states the pair's exact values (NashConv, best responses,
expected chips against every heuristic of the report) and the command and commit that made
it; ``tests/test_pretrained.py`` recomputes them from the shipped file
(``benchmarks/ship_pretrained.py`` wrote both).
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
        what = f"{path} is not a pretrained pair (an .npz written by benchmarks/ship_pretrained.py)"
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

    def agent(self, env: Any, seed: int | None = None) -> PretrainedAgent:
        return PretrainedAgent(self, env, seed)


class PretrainedAgent:
    """Plays either seat of a heads-up table of the pair's rules (also with splits: each
    seat's first hand, every figure kept): the punter's tables on a punter's turn, the
    banker network (sampling) on the banker's; ``action_probs`` for batches."""

    deterministic = False

    def __init__(self, pair: PretrainedPair, env: Any, seed: int | None = None):
        from siete_env.encoding import SeatFeature
        from siete_env.features import NoSplitView
        from siete_env.solve.evaluator import evaluator
        from siete_env.solve.tables import TabularPunterPolicy

        raw = env.unwrapped
        ev = evaluator(pair.rules)
        same = raw.rules == ev.rules
        with_splits = raw.rules.model_copy(update={"max_splits": 0}) == ev.rules and raw.layout.H > 1
        if raw.num_players != 2 or not (same or with_splits):
            raise ValueError(
                f"this pair was trained for heads-up {pair.rules}; the table has {raw.num_players} players "
                f"and rules {raw.rules.preset} {raw.rules.model_dump(mode='json', exclude_defaults=True)}"
            )
        self.view = NoSplitView(raw.layout) if with_splits else None  # a table with splits: played as without
        self.punter = TabularPunterPolicy(ev, pair.bet, pair.draw)
        self.banker = PPOAgent(env, pair.banker, greedy=False)  # it narrows a table with splits itself
        self._is_banker = raw.layout.seat_feature(0, SeatFeature.IS_BANKER)
        self.rng = np.random.default_rng(seed)
        self.banker.rng = np.random.default_rng(None if seed is None else seed + 1)

    def exact_punter_table(self, ev):
        return self.punter.exact_punter_table(ev) if self.view is None else None

    def exact_banker_table(self, ev):
        """The banker network's exact table from its layers (``PPOAgent``'s fast path)."""
        return self.banker.exact_banker_table(ev) if self.view is None else None

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        from siete_env.game import SPLIT

        observations, masks = np.asarray(observations), np.asarray(masks)
        out = np.zeros(masks.shape)
        bank = observations[:, self._is_banker] == 1.0
        if bank.any():
            out[bank] = self.banker.action_probs(observations[bank], masks[bank])
        rows = ~bank
        if rows.any():
            obs, m = observations[rows], masks[rows]
            if self.view is None:
                out[rows] = self.punter.action_probs(obs, m)
            else:  # each seat's first hand; where a split is offered, the figure is kept
                offered = m[:, SPLIT] > 0
                p = np.zeros(m.shape)
                if (~offered).any():
                    p[~offered] = self.punter.action_probs(self.view(obs[~offered]), m[~offered])
                out[rows] = self.view.keep_figures(p, m)
        return out

    def __call__(self, obs: dict) -> int:
        p = self.action_probs(np.asarray(obs["observation"])[None, :], np.asarray(obs["action_mask"])[None, :])[0]
        return int(self.rng.choice(len(p), p=p / p.sum()))


__all__ = ["FILE", "PretrainedAgent", "PretrainedPair"]
