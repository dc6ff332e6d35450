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


class _Deterministic:
    """A deterministic agent: its action probabilities are one-hot."""

    deterministic = True

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        from .vectorized import batch_actions  # the same decisions, in numpy (-1: ask the agent)

        acts = batch_actions(self, observations, masks)
        for i in np.flatnonzero(acts < 0):
            acts[i] = self({"observation": observations[i], "action_mask": masks[i]})
        out = np.zeros(masks.shape, np.float64)
        out[np.arange(len(acts)), acts] = 1.0
        return out


def _keep_out_of_auction(ids: dict[str, int], mask: np.ndarray) -> int:
    """No bid for the bank (a banker keeps it), no side bet."""
    for name in ("NO_BID", "KEEP_BANK", "NO_SIDE_BET"):
        if name in ids and mask[ids[name]]:
            return ids[name]
    return int(np.flatnonzero(mask)[0])


def _banker_move(ids: dict[str, int], mask: np.ndarray, want_hit: bool) -> int:
    """HIT_UP if wanted and legal, else STAND; when the rules force the banker's move
    (``hit_below_6``, ``banker_must_chase``, an empty deck) the one legal move."""
    hit, stand = ids["HIT_UP"], ids["STAND"]
    if want_hit and mask[hit]:
        return hit
    return stand if mask[stand] else hit


class RandomAgent:
    """Uniform over the legal actions (its own seeded generator)."""

    deterministic = False

    def __init__(self, env, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: dict) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        return int(legal[self.rng.integers(len(legal))])

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        m = masks.astype(np.float64)
        return m / m.sum(axis=1, keepdims=True)


class ThresholdPunter(_Deterministic):
    """Stake 1, stand once the total is >= ``threshold``, never swap or split, never raise.
    Hits face-down (turning its hidden card up) when its hidden card is worth less than 4,
    face-up otherwise: the "hide the high cards" advice of seed 000. As a banker it plays
    like ``BankerThreshold(6)``."""

    banker_threshold = 6.0

    def __init__(self, env, threshold: float = 5.5):
        self.view = TableView.of(env)
        self.threshold = threshold
        self.ids = self.view.action_ids
        self._bets = [i for name, i in sorted(self.ids.items(), key=lambda x: x[1]) if name.startswith("BET_")]

    def __call__(self, obs: dict) -> int:
        o, mask = obs["observation"], obs["action_mask"]
        v = self.view
        ph = v.phase(o)
        if ph == Phase.BANKER:
            return _banker_move(self.ids, mask, v.my_total(o) < self.banker_threshold)
        if ph in (Phase.AUCTION, Phase.SIDE_BETS):
            return _keep_out_of_auction(self.ids, mask)
        if ph == Phase.BET:  # the lowest stake (a mandatory swap when that is the only move)
            return next((i for i in self._bets if mask[i]), int(np.flatnonzero(mask)[-1]))
        if ph == Phase.SPLIT:
            return self.ids["KEEP"]
        if v.my_total(o) >= self.threshold or not mask[self.ids["HIT_UP"]]:
            return self.ids["STAND"]
        hidden = v.my_hidden_value(o)
        if hidden is not None and hidden < 4 and mask[self.ids["HIT_DOWN"]]:
            return self.ids["HIT_DOWN"]
        return self.ids["HIT_UP"]


class BankerThreshold(ThresholdPunter):
    """A banker that hits while its total is below ``threshold`` and ignores the punters.
    As a punter it plays like ``ThresholdPunter(threshold)``."""

    def __init__(self, env, threshold: float = 6.0):
        super().__init__(env, threshold)

    def __call__(self, obs: dict) -> int:
        o, mask = obs["observation"], obs["action_mask"]
        if self.view.phase(o) != Phase.BANKER:
            return super().__call__(obs)
        return _banker_move(self.ids, mask, self.hits(o))

    def hits(self, o: np.ndarray) -> bool:
        return self.view.my_total(o) < self.threshold


class SmartBanker(BankerThreshold):
    """A banker that hits while its total is below ``threshold``, or while it would lose as
    it stands to a standing punter hand it can still beat.

    A standing hand's *least possible total* is its face-up total plus ½ if it holds a
    face-down card (the lowest card is a figure). The banker is sure to lose to a hand
    whose least possible total is above its own total (ties go to the banker), and can
    still beat it if that least total is below 7½. With several punters it hits when the
    stakes of the hands it is sure to lose to and can still beat add up to more than half
    the stakes of all standing punter hands (heads-up: whenever the one punter hand is
    such a hand). As a punter it plays like ``ThresholdPunter(threshold)``."""

    def hits(self, o: np.ndarray) -> bool:
        L = self.view.layout
        mine = float(o[L.hand(0, 0) + 8])
        if mine < self.threshold:
            return True
        sure_loss = standing = 0.0
        for r in range(1, L.n):
            for h in range(L.H):
                b = L.hand(r, h)
                if o[b + 3] != 1.0:  # not standing (empty, bust)
                    continue
                stake = float(o[b + 5])
                standing += stake
                least = float(o[b + 8]) + (0.5 if o[b + 7] == 1.0 else 0.0)
                if mine < least < 7.5:
                    sure_loss += stake
        return standing > 0 and sure_loss > standing / 2


class BoldPunter(ThresholdPunter):
    """A table habit: swaps every initial 4, stakes the top level on a strong first card
    (a 7 or a figure, the cards that can make 7½ in one more), 1 otherwise; then plays
    like ``ThresholdPunter(threshold)``."""

    def __call__(self, obs: dict) -> int:
        o, mask = obs["observation"], obs["action_mask"]
        if self.view.phase(o) == Phase.BET:
            ids = self.ids
            if self.view.legal(mask, "SWAP_FOUR"):
                return ids["SWAP_FOUR"]
            value = self.view.my_total(o)
            bets = [i for name, i in ids.items() if name.startswith("BET_") and mask[i]]
            if bets:
                return bets[-1] if value in (0.5, 7.0) else bets[0]
        return super().__call__(obs)
