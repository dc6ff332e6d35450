"""Heuristic table players. They act from an observation and its action mask only.

Every agent is built for one environment (it needs the observation layout and the
action names, both public) and is called as ``agent(observation_dict) -> action``.

Each also answers for a whole batch at once: ``action_probs(observations (N, D), masks
(N, A)) -> (N, A)`` is vectorised (numpy over the rows) and gives, row by row, exactly the
decision ``agent(obs_dict)`` makes (``tests/test_baselines.py`` checks it on observations
from real play under every preset and on the exact evaluator's states). The banker
heuristics decide on a few public summaries only (their own total; the punter hand's
visible total, face-down flag, stake and status), so they also offer
``banker_hit_probabilities(summary)`` (``siete_env.solve.policy.BankerSummary``): the exact
evaluator then reads their banker play from those summaries instead of from ~20M
observations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from siete_env.cards import VALUE2
from siete_env.encoding import CardColumn, HandFeature, Layout
from siete_env.game import HIT_DOWN, HIT_UP, KEEP, STAND, SWAP_FOUR, Phase, Status
from siete_env.opponents import UniformRandom

_QUIET = ("NO_BID", "KEEP_BANK", "NO_SIDE_BET")  # staying out of the auction and the side bets
_HALF_VALUE = np.array(VALUE2, np.float64) / 2  # card values in points


@dataclass(frozen=True)
class TableView:
    """Reads the public parts of an observation that heuristics need (one observation,
    or a batch ``(N, D)`` with the ``*s`` methods)."""

    layout: Layout
    action_ids: dict[str, int]
    limit: float  # the rules' limit in points (7½ in the banking game; a hand above it is bust)

    @classmethod
    def of(cls, env) -> TableView:
        raw = env.unwrapped
        return cls(raw.layout, {name: i for i, name in enumerate(raw.action_names)}, raw.rules.limit)

    def phase(self, obs: np.ndarray) -> Phase:
        return Phase(int(self.layout.phases(obs)))

    def current_hand(self, obs: np.ndarray) -> int:
        """The observer's hand slot being played (status "playing"), else 0."""
        L = self.layout
        for h in range(L.H):
            if obs[L.status_feature(0, h, Status.PLAYING)] == 1.0:
                return h
        return 0

    def my_total(self, obs: np.ndarray) -> float:
        """Total in points of the observer's hand being played (its hidden card included)."""
        return float(obs[self.layout.hand_feature(0, self.current_hand(obs), HandFeature.VISIBLE_TOTAL)])

    def my_hidden_value(self, obs: np.ndarray) -> float | None:
        """Value of the observer's face-down card in the current hand, if any."""
        L = self.layout
        cards = L.cards(obs)
        mine = cards[:, L.column(CardColumn.OWN_FACE_DOWN)] * cards[:, L.hand_column(0, self.current_hand(obs))]
        hidden = np.flatnonzero(mine)
        if len(hidden) == 0:
            return None
        return VALUE2[int(hidden[0])] / 2

    def legal(self, mask: np.ndarray, name: str) -> bool:
        i = self.action_ids.get(name)
        return i is not None and bool(mask[i])

    # -- batches
    def current_hands(self, obs: np.ndarray) -> np.ndarray:
        L = self.layout
        playing = obs[:, [L.status_feature(0, h, Status.PLAYING) for h in range(L.H)]] == 1.0
        return np.where(playing.any(1), playing.argmax(1), 0)

    def my_totals(self, obs: np.ndarray, hands: np.ndarray) -> np.ndarray:
        L = self.layout
        cols = np.array([L.hand_feature(0, h, HandFeature.VISIBLE_TOTAL) for h in range(L.H)])
        return obs[np.arange(len(obs)), cols[hands]]

    def my_hidden_values(self, obs: np.ndarray, hands: np.ndarray) -> np.ndarray:
        """The value of the observer's face-down card in hand ``hands[i]`` (NaN: none)."""
        L = self.layout
        cards = L.cards(obs)
        hand_cols = np.array([L.hand_column(0, h) for h in range(L.H)])
        mine = cards[:, :, L.column(CardColumn.OWN_FACE_DOWN)] * cards[np.arange(len(obs)), :, hand_cols[hands]]
        held = mine != 0
        return np.where(held.any(1), _HALF_VALUE[held.argmax(1)], np.nan)


class _Deterministic:
    """A deterministic agent: its action probabilities are one-hot, from ``actions``."""

    deterministic = True

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        act = self.actions(observations, masks)
        out = np.zeros(masks.shape, np.float64)
        out[np.arange(len(act)), act] = 1.0
        return out

    def actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError


def _keep_out_of_auction(ids: dict[str, int], mask: np.ndarray) -> int:
    """No bid for the bank (a banker keeps it), no side bet."""
    for name in _QUIET:
        if name in ids and mask[ids[name]]:
            return ids[name]
    return int(np.flatnonzero(mask)[0])


def _banker_move(mask: np.ndarray, want_hit: bool) -> int:
    """HIT_UP if wanted and legal, else STAND; when the rules force the banker's move
    (``hit_below_6``, ``banker_must_chase``, an empty deck) the one legal move."""
    if want_hit and mask[HIT_UP]:
        return HIT_UP
    return STAND if mask[STAND] else HIT_UP


def _first_legal(masks: np.ndarray, cols: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Per row: whether any of the actions ``cols`` is legal, and the first legal one."""
    legal = masks[:, cols] != 0
    return legal.any(1), np.asarray(cols, np.int64)[legal.argmax(1)] if cols else np.zeros(len(masks), np.int64)


class RandomAgent(UniformRandom):
    """Uniform over the legal actions (its own seeded generator): the environment's own
    ``"random"`` (``siete_env.opponents.UniformRandom``), built like the other agents."""

    native_kind = "random"

    def __init__(self, env, seed: int | None = None):
        super().__init__(seed)

    def banker_hit_probabilities(self, summary: Any) -> np.ndarray:
        """Hitting and standing both legal: each half the time."""
        return np.full(np.broadcast(*summary).shape, 0.5)


class ThresholdPunter(_Deterministic):
    """Stake 1, stand once the total is >= ``threshold``, never swap or split, never raise.
    Hits face-down (turning its hidden card up) when its hidden card is worth less than 4,
    face-up otherwise: the "hide the high cards" advice of seed 000. As a banker it plays
    like ``BankerThreshold(6)``."""

    banker_threshold = 6.0
    hide_below = 4.0  # it hits face-down while its hidden card is worth less than this (points)
    # the batched engine's kernels make these decisions from the state (siete_env.batched.vector.NATIVE_KINDS);
    # each class declares its own: a subclass that decides otherwise is asked through action_probs
    native_kind = "threshold"

    def __init__(self, env, threshold: float = 5.5):
        self.view = TableView.of(env)
        self.threshold = threshold
        self.ids = self.view.action_ids
        self._bets = [i for name, i in sorted(self.ids.items(), key=lambda x: x[1]) if name.startswith("BET_")]
        self._quiet = [self.ids[name] for name in _QUIET if name in self.ids]

    # -- one observation
    def __call__(self, obs: dict) -> int:
        o, mask = obs["observation"], obs["action_mask"]
        v = self.view
        ph = v.phase(o)
        if ph == Phase.BANKER:
            return _banker_move(mask, self.hits(o))
        if ph in (Phase.AUCTION, Phase.SIDE_BETS):
            return _keep_out_of_auction(self.ids, mask)
        if ph == Phase.BET:
            return self.bet(o, mask)
        if ph == Phase.SPLIT:
            return KEEP
        # a hit may be face-down only (max_face_down: all, face_down_choice: false, a declared ½ ace)
        if (self.stands(v.my_total(o)) and mask[STAND]) or not (mask[HIT_UP] or mask[HIT_DOWN]):
            return STAND  # (below min_stand it may not stand: it draws)
        if not mask[HIT_UP]:
            return HIT_DOWN
        hidden = v.my_hidden_value(o)
        if hidden is not None and hidden < self.hide_below and mask[HIT_DOWN]:
            return HIT_DOWN
        return HIT_UP

    def stands(self, total: Any) -> Any:
        """Whether a punter total (points; an array for a batch) stands."""
        return total >= self.threshold

    def bet(self, o: np.ndarray, mask: np.ndarray) -> int:
        """The lowest stake (a mandatory swap when that is the only move)."""
        return next((i for i in self._bets if mask[i]), int(np.flatnonzero(mask)[-1]))

    def hits(self, o: np.ndarray) -> bool:
        """As the banker: whether it wants another card."""
        return self.view.my_total(o) < self.banker_threshold

    # -- a batch: the same decisions, vectorised
    def actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``(N,)``: the action ``self(obs_dict)`` takes at each row."""
        v = self.view
        n = len(observations)
        phase = v.layout.phases(observations)
        hands = v.current_hands(observations)
        mine = v.my_totals(observations, hands)
        can_hit, can_down, can_stand = masks[:, HIT_UP] != 0, masks[:, HIT_DOWN] != 0, masks[:, STAND] != 0
        # draw (and any phase not named below)
        hidden = v.my_hidden_values(observations, hands)
        down = (hidden < self.hide_below) & can_down  # (NaN: no face-down card)
        down |= ~can_hit & can_down  # face-down the only hit
        act = np.where((self.stands(mine) & can_stand) | ~(can_hit | can_down), STAND, np.where(down, HIT_DOWN, HIT_UP))
        bank = phase == Phase.BANKER
        if bank.any():
            want = self.hits_batch(observations[bank], mine[bank])
            act[bank] = np.where(want & can_hit[bank], HIT_UP, np.where(can_stand[bank], STAND, HIT_UP))
        bet = phase == Phase.BET
        if bet.any():
            act[bet] = self.bets(observations[bet], masks[bet], mine[bet])
        act[phase == Phase.SPLIT] = KEEP
        quiet = (phase == Phase.AUCTION) | (phase == Phase.SIDE_BETS)
        if quiet.any():
            m = masks[quiet]
            some, first = _first_legal(m, self._quiet)
            act[quiet] = np.where(some, first, (m != 0).argmax(1))
        assert len(act) == n
        return act

    def bets(self, observations: np.ndarray, masks: np.ndarray, mine: np.ndarray) -> np.ndarray:
        some, lowest = _first_legal(masks, self._bets)
        last_legal = masks.shape[1] - 1 - (masks[:, ::-1] != 0).argmax(1)
        return np.where(some, lowest, last_legal)

    def hits_batch(self, observations: np.ndarray, mine: np.ndarray) -> np.ndarray:
        """``hits`` for a batch of banker observations (``mine``: their totals)."""
        return mine < self.banker_threshold

    def banker_hit_probabilities(self, summary: Any) -> np.ndarray:
        """Heads-up, both moves legal: 1 where it hits, 0 where it stands (its own total
        is all it reads)."""
        return (np.broadcast_to(summary.own_total, np.broadcast(*summary).shape) < self.banker_threshold).astype(
            np.float64
        )


class BankerThreshold(ThresholdPunter):
    """A banker that hits while its total is below ``threshold`` and ignores the punters.
    As a punter it plays like ``ThresholdPunter(threshold)``."""

    native_kind = "banker"

    def __init__(self, env, threshold: float = 6.0):
        super().__init__(env, threshold)

    @property
    def banker_threshold(self) -> float:  # type: ignore[override]
        return self.threshold


class SmartBanker(BankerThreshold):
    """A banker that hits while its total is below ``threshold``, or while it would lose as
    it stands to a standing punter hand it can still beat.

    A standing hand's *least possible total* is its face-up total plus ½ if it holds a
    face-down card (the lowest card is a figure). The banker is sure to lose to a hand
    whose least possible total is above its own total (ties go to the banker), and can
    still beat it if that least total is below the rules' limit (7½ in the banking game).
    With several punters it hits when the stakes of the hands it is sure to lose to and can
    still beat add up to more than half the stakes of all standing punter hands (heads-up:
    whenever the one punter hand is such a hand). As a punter it plays like ``ThresholdPunter(threshold)``."""

    native_kind = "smart"
    LEAST_HIDDEN = 0.5  # the least a face-down card can be worth (a figure)

    def hits(self, o: np.ndarray) -> bool:
        L = self.view.layout
        mine = float(o[L.hand_feature(0, 0, HandFeature.VISIBLE_TOTAL)])
        if mine < self.threshold:
            return True
        sure_loss = standing = 0.0
        for r in range(1, L.n):
            for h in range(L.H):
                if o[L.status_feature(r, h, Status.STOOD)] != 1.0:  # not standing (empty, bust)
                    continue
                stake = float(o[L.hand_feature(r, h, HandFeature.STAKE)])
                standing += stake
                least = float(o[L.hand_feature(r, h, HandFeature.VISIBLE_TOTAL)])
                least += self.LEAST_HIDDEN if o[L.hand_feature(r, h, HandFeature.FACE_DOWN)] == 1.0 else 0.0
                if mine < least < self.view.limit:
                    sure_loss += stake
        return standing > 0 and sure_loss > standing / 2

    def hits_batch(self, observations: np.ndarray, mine: np.ndarray) -> np.ndarray:
        L, o = self.view.layout, observations
        own = o[:, L.hand_feature(0, 0, HandFeature.VISIBLE_TOTAL)].astype(np.float64)
        sure_loss = np.zeros(len(o))
        standing = np.zeros(len(o))
        for r in range(1, L.n):
            for h in range(L.H):
                stood = o[:, L.status_feature(r, h, Status.STOOD)] == 1.0
                stake = np.where(stood, o[:, L.hand_feature(r, h, HandFeature.STAKE)].astype(np.float64), 0.0)
                least = o[:, L.hand_feature(r, h, HandFeature.VISIBLE_TOTAL)].astype(np.float64)
                least += np.where(o[:, L.hand_feature(r, h, HandFeature.FACE_DOWN)] == 1.0, self.LEAST_HIDDEN, 0.0)
                standing += stake
                sure_loss += np.where((own < least) & (least < self.view.limit), stake, 0.0)
        return (own < self.threshold) | ((standing > 0) & (sure_loss > standing / 2))

    def banker_hit_probabilities(self, summary: Any) -> np.ndarray:
        s = summary
        least = s.punter_total + np.where(s.punter_face_down, self.LEAST_HIDDEN, 0.0)
        sure_loss = s.punter_stood & (s.punter_stake > 0) & (s.own_total < least) & (least < self.view.limit)
        hit = (s.own_total < self.threshold) | sure_loss
        return np.broadcast_to(hit, np.broadcast(*s).shape).astype(np.float64)


class BoldPunter(ThresholdPunter):
    """A table habit: swaps every initial 4, stakes the top level on a strong first card
    (a 7 or a figure, the cards that can make 7½ in one more), 1 otherwise; then plays
    like ``ThresholdPunter(threshold)``."""

    native_kind = "bold"
    STRONG = (0.5, 7.0)  # the first cards it stakes the top level on (a figure, a 7)

    def bet(self, o: np.ndarray, mask: np.ndarray) -> int:
        if mask[SWAP_FOUR]:
            return SWAP_FOUR
        bets = [i for i in self._bets if mask[i]]
        if bets:
            return bets[-1] if self.view.my_total(o) in self.STRONG else bets[0]
        return super().bet(o, mask)

    def bets(self, observations: np.ndarray, masks: np.ndarray, mine: np.ndarray) -> np.ndarray:
        legal = masks[:, self._bets] != 0
        highest = np.asarray(self._bets)[len(self._bets) - 1 - legal[:, ::-1].argmax(1)]
        strong = np.isin(mine, self.STRONG)
        out = np.where(legal.any(1) & strong, highest, super().bets(observations, masks, mine))
        return np.where(masks[:, SWAP_FOUR] != 0, SWAP_FOUR, out)


class QuattroPlayer(ThresholdPunter):
    """Quattro e mezzo (``scoring: points``): stands on 4½, the best hand, and on ``T`` or
    more (drawing on 5, the weakest hand, and on 5½ .. below ``T``); hides nothing it need
    not (the face-down rule of ``threshold:T``). The banker plays the same way (every tie
    is its own)."""

    native_kind = "quattro"
    BEST = 4.5  # quattro e mezzo's best hand

    def __init__(self, env, threshold: float = 6.0):
        super().__init__(env, threshold)

    def stands(self, total: Any) -> Any:
        return (total >= self.threshold) | (total == self.BEST)

    @property
    def banker_threshold(self) -> float:  # type: ignore[override]
        return self.threshold

    def hits(self, o: np.ndarray) -> bool:
        return not self.stands(self.view.my_total(o))

    def hits_batch(self, observations: np.ndarray, mine: np.ndarray) -> np.ndarray:
        return ~self.stands(mine)
