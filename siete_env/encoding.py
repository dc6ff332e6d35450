"""The observation's layout: what each number a seat observes means (the batched kernels
write it, ``siete_env.batched.kernels.observe``), and the full state of a centralised critic.

Observation of seat ``o`` (a flat ``float32`` vector; ``n`` seats, ``H`` hand slots per
seat, ``C = 40`` cards, ``W = n*H + 2``). Seats are numbered **relative to the
observer**: relative seat ``r`` is absolute seat ``(o + r) % n``, so ``r = 0`` is always
the observer itself and ``r = 1`` the next seat in turn order.

| block | size | index | meaning |
| --- | --- | --- | --- |
| cards | ``C*W`` | ``c*W + r*H + h`` | 1 if the observer sees card ``c`` in hand ``h`` of relative seat ``r`` (face-up cards, and the observer's own face-down cards) |
| | | ``c*W + n*H`` | 1 if ``c`` is the observer's own face-down card |
| | | ``c*W + n*H + 1`` | 1 if ``c`` was shown going back into the deck (a swapped 4) and has not been seen face-up since |
| hands | ``n*H*9`` | ``HANDS + (r*H + h)*9 + k`` | ``k=0..4``: status one-hot (empty, waiting, playing, stood, bust); ``5``: stake; ``6``: number of cards; ``7``: 1 if it holds a face-down card; ``8``: total of the cards the observer can see in it (all of them for its own hands), in points |
| seats | ``n*6`` | ``SEATS + r*6 + k`` | ``0``: is the banker; ``1``: is the seat to act; ``2``: net chips this episode; ``3``: announced 7½ (canto) or shot (fusilar) this hand; ``4``: its bid for the bank in the current auction; ``5``: side bets placed on its hand this hand |
| global | 9 | ``GLOBAL + k`` | ``0..6``: phase one-hot (bet, draw, split, banker, over, auction, side bets; only the deciding punter sees "split", the others see "draw"); ``7``: hands finished this episode; ``8``: cards left in the deck (the shoe) |

Every ``k`` above has a name: ``HandFeature``, ``SeatFeature``, ``GlobalFeature`` and the
card columns ``CardColumn``; ``Layout`` turns them into indices (``hand_feature``,
``seat_feature``, ``global_feature``, ``phase_feature``, ``card_entry``) and reads
batches (``phases``, ``cards``). Nothing outside this module computes an offset itself.

Never encoded: another seat's face-down card, the order of the deck, or anything
derived from them (a face-down card only counts in the "number of cards" and
"holds a face-down card" entries, which every player at the table sees).
"""

from __future__ import annotations

import enum
from typing import Any, Final

import numpy as np

from .cards import N_CARDS, VALUE2
from .game import (
    Phase,
    Status,
)

HALF = tuple(v * 0.5 for v in VALUE2)  # card values in points


class HandFeature(enum.IntEnum):
    """The features of one hand slot, from ``Layout.hand(r, h)``."""

    STATUS = 0  # the start of the status one-hot: STATUS + Status.x
    STAKE = len(Status)
    N_CARDS = len(Status) + 1  # cards in the hand
    FACE_DOWN = len(Status) + 2  # 1 if it holds a face-down card
    VISIBLE_TOTAL = len(Status) + 3  # total of the cards the observer sees in it (points)


class SeatFeature(enum.IntEnum):
    """The features of one seat, from ``Layout.seat(r)``."""

    IS_BANKER = 0
    TO_ACT = 1
    CHIPS = 2  # net chips this episode
    ANNOUNCED = 3  # announced 7½ (canto) or shot (fusilar) this hand
    BID = 4  # its bid for the bank in the current auction
    SIDE_BETS = 5  # side bets placed on its hand this hand


class GlobalFeature(enum.IntEnum):
    """The global features, from ``Layout.GLOBAL``."""

    PHASE = 0  # the start of the phase one-hot: PHASE + Phase.x
    HANDS_DONE = len(Phase)  # hands finished this episode
    CARDS_LEFT = len(Phase) + 1  # cards left in the deck (the shoe)


class CardColumn(enum.IntEnum):
    """The columns of a card's row after the ``n*H`` hand columns (``Layout.column``)."""

    OWN_FACE_DOWN = 0  # the observer's own face-down card
    RETURNED = 1  # shown going back into the deck (a swapped 4), not seen face-up since
    SEEN_IN_SHOE = 2  # shoe mode only: shown in an earlier hand of this shoe


HAND_FEATURES: Final = len(Status) + 4
SEAT_FEATURES: Final = len(SeatFeature)
GLOBAL_FEATURES: Final = len(Phase) + 2
assert HAND_FEATURES == HandFeature.VISIBLE_TOTAL + 1 and GLOBAL_FEATURES == GlobalFeature.CARDS_LEFT + 1

# The features as plain ints for the encoder's hot paths (bound to locals there).
_AUCTIONP: Final = int(Phase.AUCTION)


class Layout:
    """Offsets of the observation blocks for ``n`` seats and ``H`` hand slots."""

    def __init__(self, n: int, hands_per_seat: int, top_stake: int, hands_per_episode: int, shoe: bool = False):
        self._args = (n, hands_per_seat, top_stake, hands_per_episode, shoe)
        self.n, self.H = n, hands_per_seat
        self.shoe = shoe
        self.W = n * hands_per_seat + int(CardColumn.SEEN_IN_SHOE) + (1 if shoe else 0)
        self.CARDS = 0
        self.HANDS = N_CARDS * self.W
        self.SEATS = self.HANDS + n * hands_per_seat * HAND_FEATURES
        self.GLOBAL = self.SEATS + n * SEAT_FEATURES
        self.size = self.GLOBAL + GLOBAL_FEATURES
        low = np.zeros(self.size, np.float32)
        high = np.ones(self.size, np.float32)
        for r in range(n):
            for h in range(hands_per_seat):
                high[self.hand_feature(r, h, HandFeature.STAKE)] = top_stake
                high[self.hand_feature(r, h, HandFeature.N_CARDS)] = N_CARDS
                high[self.hand_feature(r, h, HandFeature.VISIBLE_TOTAL)] = 40.0
            chips = self.seat_feature(r, SeatFeature.CHIPS)
            low[chips], high[chips] = -np.inf, np.inf
            high[self.seat_feature(r, SeatFeature.BID)] = np.inf
            high[self.seat_feature(r, SeatFeature.SIDE_BETS)] = np.inf
        high[self.global_feature(GlobalFeature.HANDS_DONE)] = hands_per_episode
        high[self.global_feature(GlobalFeature.CARDS_LEFT)] = N_CARDS
        self.low, self.high = low, high

    # -- the cards block: row ``card`` (``W`` columns), flattened
    def __reduce__(self) -> tuple[object, ...]:
        """``pickle``: the layout made again from its arguments."""
        return (Layout, self._args)

    def __deepcopy__(self, memo: dict[int, object]) -> Layout:
        return self  # never changed once made: copies of an env share it

    def column(self, col: CardColumn) -> int:
        """The column of ``col`` in a card's row."""
        return self.n * self.H + int(col)

    def hand_column(self, rel_seat: int, hand: int) -> int:
        """The column of a hand slot in a card's row (1: the card is in that hand)."""
        return rel_seat * self.H + hand

    def card_entry(self, card: Any, column: Any) -> Any:
        """The index of ``(card, column)`` (ints or integer arrays)."""
        return self.CARDS + card * self.W + column

    def card(self, card: int, rel_seat: int, hand: int) -> int:
        return self.card_entry(card, self.hand_column(rel_seat, hand))

    def own_face_down(self, card: int) -> int:
        return self.card_entry(card, self.column(CardColumn.OWN_FACE_DOWN))

    def returned(self, card: int) -> int:
        return self.card_entry(card, self.column(CardColumn.RETURNED))

    def seen_in_shoe(self, card: int) -> int:
        """Shoe mode only: the card was shown in an earlier hand of this shoe."""
        assert self.shoe
        return self.card_entry(card, self.column(CardColumn.SEEN_IN_SHOE))

    # -- hands, seats, global
    def hand(self, rel_seat: int, hand: int) -> int:
        """Start of the features of a hand slot (``HandFeature``)."""
        return self.HANDS + (rel_seat * self.H + hand) * HAND_FEATURES

    def hand_feature(self, rel_seat: int, hand: int, feature: HandFeature) -> int:
        return self.hand(rel_seat, hand) + int(feature)

    def status_feature(self, rel_seat: int, hand: int, status: Status) -> int:
        """The entry of ``status`` in a hand slot's status one-hot."""
        return self.hand(rel_seat, hand) + int(HandFeature.STATUS) + int(status)

    def seat(self, rel_seat: int) -> int:
        """Start of the features of a seat (``SeatFeature``)."""
        return self.SEATS + rel_seat * SEAT_FEATURES

    def seat_feature(self, rel_seat: int, feature: SeatFeature) -> int:
        return self.seat(rel_seat) + int(feature)

    def global_feature(self, feature: GlobalFeature) -> int:
        return self.GLOBAL + int(feature)

    def phase_feature(self, phase: Phase) -> int:
        """The entry of ``phase`` in the phase one-hot."""
        return self.GLOBAL + int(GlobalFeature.PHASE) + int(phase)

    def narrowed(self, hands_per_seat: int) -> Layout:
        """The layout of the same table with ``hands_per_seat`` hand slots per seat (fewer
        splits): what a policy trained under such rules observes."""
        if not 1 <= hands_per_seat <= self.H:
            raise ValueError(f"hands_per_seat must be 1..{self.H}, got {hands_per_seat}")
        narrow = Layout(self.n, hands_per_seat, 1, 1, self.shoe)
        narrow.low, narrow.high = self.low[self.gather_index(narrow)], self.high[self.gather_index(narrow)]
        return narrow

    def gather_index(self, target: Layout) -> np.ndarray:
        """``(target.size,)``: where each entry of ``target`` (the layout of the same seats
        with fewer hand slots, ``narrowed``) is in this layout: ``obs[..., index]`` is the
        observation as ``target`` lays it out, each seat's first hand slots kept, the
        others (hands made by splits) left out."""
        if target.n != self.n or target.H > self.H or target.shoe != self.shoe:
            raise ValueError("the target layout must have the same seats and shoe and at most as many hand slots")
        idx = np.empty(target.size, np.int64)
        slots = [(r, h) for r in range(self.n) for h in range(target.H)]
        extra = range(self.n * self.H, self.W)  # the card columns after the hand slots (CardColumn)
        for c in range(N_CARDS):
            for r, h in slots:
                idx[target.card(c, r, h)] = self.card(c, r, h)
            for j, col in enumerate(extra):
                idx[target.card_entry(c, target.n * target.H + j)] = self.card_entry(c, col)
        for r, h in slots:
            idx[target.hand(r, h) : target.hand(r, h) + HAND_FEATURES] = np.arange(
                self.hand(r, h), self.hand(r, h) + HAND_FEATURES
            )
        idx[target.SEATS :] = np.arange(self.SEATS, self.size)
        return idx

    # -- readers of observations ``(D,)`` or batches ``(N, D)``
    def phases(self, obs: np.ndarray) -> Any:
        """The phase (an int, or ``(N,)`` ints) each observation shows."""
        start = self.phase_feature(Phase.BET)
        return np.argmax(obs[..., start : start + len(Phase)], axis=-1)

    def cards(self, obs: np.ndarray) -> np.ndarray:
        """The cards block as ``(..., N_CARDS, W)`` (a view)."""
        return obs[..., self.CARDS : self.CARDS + N_CARDS * self.W].reshape(*obs.shape[:-1], N_CARDS, self.W)


def state_vector(g: Any, L: Layout) -> np.ndarray:
    """The full state for a centralised critic: every card's place (hidden ones included,
    the deck's order excluded), every hand's true total, roles, chips; ``g`` is an engine
    with ``Game``'s attributes (``tests.oracle.Game`` or ``table.Table``)."""
    n, H = g.n, g.hands_per_seat
    out = np.zeros(L.size, np.float32)
    for c in g.deck[g.pos :]:
        out[L.returned(c)] = 1.0  # still in the deck
    if L.shoe:
        for c in g.discards:
            out[L.seen_in_shoe(c)] = 1.0  # discarded in this shoe
    for s in range(n):
        for h in range(H):
            k = s * H + h
            for c in g.cards[k]:
                out[L.card(c, s, h)] = 1.0
            if g.hidden[k] >= 0:
                out[L.own_face_down(g.hidden[k])] = 1.0
                out[L.hand_feature(s, h, HandFeature.FACE_DOWN)] = 1.0
                for c in g.more_hidden[k] if g.more_hidden else ():
                    out[L.own_face_down(c)] = 1.0
            out[L.status_feature(s, h, Status(g.status[k]))] = 1.0
            out[L.hand_feature(s, h, HandFeature.STAKE)] = g.stake[k]
            out[L.hand_feature(s, h, HandFeature.N_CARDS)] = len(g.cards[k])
            out[L.hand_feature(s, h, HandFeature.VISIBLE_TOTAL)] = g.total[k] * 0.5
    for s in range(n):
        out[L.seat_feature(s, SeatFeature.IS_BANKER)] = 1.0 if s == g.banker else 0.0
        out[L.seat_feature(s, SeatFeature.TO_ACT)] = 1.0 if s == g.acting_seat else 0.0
        out[L.seat_feature(s, SeatFeature.CHIPS)] = g.chips[s]
        out[L.seat_feature(s, SeatFeature.ANNOUNCED)] = 1.0 if g.announced[s] else 0.0
        out[L.seat_feature(s, SeatFeature.BID)] = g.bids[s] if g.phase == _AUCTIONP else 0.0
        side = len(g.side_on[s]) * g.rules.side_bet_stake if g.side_on else 0.0
        out[L.seat_feature(s, SeatFeature.SIDE_BETS)] = side
    out[L.phase_feature(Phase(g.phase))] = 1.0
    out[L.global_feature(GlobalFeature.HANDS_DONE)] = g.hand_no
    out[L.global_feature(GlobalFeature.CARDS_LEFT)] = g.cards_left()
    return out


__all__ = ["CardColumn", "state_vector", "GlobalFeature", "HandFeature", "Layout", "SeatFeature", "Status"]
