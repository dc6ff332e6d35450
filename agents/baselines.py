"""Heuristic table players. They act from an observation and its action mask only.

Every agent is built for one environment (it needs the observation layout and the
action names, both public) and is called as ``agent(observation_dict) -> action``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from siete_env.encoding import Layout
from siete_env.game import Phase


@dataclass(frozen=True)
class TableView:
    """Reads the public parts of an observation that heuristics need."""

    layout: Layout
    action_ids: dict[str, int]

    @classmethod
    def of(cls, env) -> TableView:
        raw = env.unwrapped
        return cls(raw.layout, {name: i for i, name in enumerate(raw.action_names)})

    def phase(self, obs: np.ndarray) -> Phase:
        g = self.layout.GLOBAL
        return Phase(int(np.argmax(obs[g : g + len(Phase)])))

    def current_hand(self, obs: np.ndarray) -> int:
        """The observer's hand slot being played (status "playing"), else 0."""
        L = self.layout
        for h in range(L.H):
            if obs[L.hand(0, h) + 2] == 1.0:
                return h
        return 0

    def my_total(self, obs: np.ndarray) -> float:
        """Total in points of the observer's hand being played (its hidden card included)."""
        return float(obs[self.layout.hand(0, self.current_hand(obs)) + 8])

    def my_hidden_value(self, obs: np.ndarray) -> float | None:
        """Value of the observer's face-down card in the current hand, if any."""
        L = self.layout
        h = self.current_hand(obs)
        cards = obs[: 40 * L.W].reshape(40, L.W)
        hidden = np.flatnonzero(cards[:, L.n * L.H] * cards[:, h])
        if len(hidden) == 0:
            return None
        from siete_env.cards import VALUE2

        return VALUE2[int(hidden[0])] / 2

    def legal(self, mask: np.ndarray, name: str) -> bool:
        i = self.action_ids.get(name)
        return i is not None and bool(mask[i])


def _keep_out_of_auction(ids: dict[str, int], mask: np.ndarray) -> int:
    """No bid for the bank (a banker keeps it), no side bet."""
    for name in ("NO_BID", "KEEP_BANK", "NO_SIDE_BET"):
        if name in ids and mask[ids[name]]:
            return ids[name]
    return int(np.flatnonzero(mask)[0])


class RandomAgent:
    """Uniform over the legal actions (its own seeded generator)."""

    def __init__(self, env, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: dict) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        return int(legal[self.rng.integers(len(legal))])


class ThresholdPunter:
    """Stake 1, stand once the total is >= ``threshold``, never swap or split, never raise.
    Hits face-down (turning its hidden card up) when its hidden card is worth less than 4,
    face-up otherwise: the "hide the high cards" advice of seed 000. As a banker it plays
    like ``BankerThreshold(6)``."""

    def __init__(self, env, threshold: float = 5.5):
        self.view = TableView.of(env)
        self.threshold = threshold
        self.ids = self.view.action_ids
        self._banker = BankerThreshold(env, 6.0)

    def __call__(self, obs: dict) -> int:
        o, mask = obs["observation"], obs["action_mask"]
        v = self.view
        ph = v.phase(o)
        if ph == Phase.BANKER:
            return self._banker(obs)
        if ph == Phase.AUCTION:
            return _keep_out_of_auction(self.ids, mask)
        if ph == Phase.BET:
            return self.ids["BET_1"] if mask[self.ids["BET_1"]] else int(np.flatnonzero(mask)[-1])
        if ph == Phase.SPLIT:
            return self.ids["KEEP"]
        if v.my_total(o) >= self.threshold or not mask[self.ids["HIT_UP"]]:
            return self.ids["STAND"]
        hidden = v.my_hidden_value(o)
        if hidden is not None and hidden < 4 and mask[self.ids["HIT_DOWN"]]:
            return self.ids["HIT_DOWN"]
        return self.ids["HIT_UP"]


class BankerThreshold:
    """A banker that hits while its total is below ``threshold`` and ignores the punters.
    As a punter it plays like ``ThresholdPunter(threshold)``."""

    def __init__(self, env, threshold: float = 6.0):
        self.view = TableView.of(env)
        self.threshold = threshold
        self.ids = self.view.action_ids
        self.env = env

    def __call__(self, obs: dict) -> int:
        o, mask = obs["observation"], obs["action_mask"]
        ph = self.view.phase(o)
        if ph in (Phase.AUCTION, Phase.SIDE_BETS):
            return _keep_out_of_auction(self.ids, mask)
        if ph != Phase.BANKER:
            return ThresholdPunter(self.env, self.threshold)(obs)
        if self.view.my_total(o) < self.threshold and mask[self.ids["HIT_UP"]]:
            return self.ids["HIT_UP"]
        return self.ids["STAND"]
