"""The only place where game state becomes numbers: observation layout, action mask, state.

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
    EV_ACE_HALF,
    EV_ANNOUNCE,
    EV_BID,
    EV_DEAL,
    EV_MOVE,
    EV_NEW_HAND,
    EV_PAY,
    EV_RESHUFFLE,
    EV_RETURN,
    EV_REVEAL,
    EV_SIDE,
    EV_STAKE,
    EV_STATUS,
    EV_TURN,
    Game,
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
_STAKE: Final = int(HandFeature.STAKE)
_NCARDS: Final = int(HandFeature.N_CARDS)
_FACE_DOWN: Final = int(HandFeature.FACE_DOWN)
_TOTAL: Final = int(HandFeature.VISIBLE_TOTAL)
_IS_BANKER: Final = int(SeatFeature.IS_BANKER)
_TO_ACT: Final = int(SeatFeature.TO_ACT)
_CHIPS: Final = int(SeatFeature.CHIPS)
_ANNOUNCED: Final = int(SeatFeature.ANNOUNCED)
_BID: Final = int(SeatFeature.BID)
_SIDE_BETS: Final = int(SeatFeature.SIDE_BETS)
_HANDS_DONE: Final = int(GlobalFeature.HANDS_DONE)
_CARDS_LEFT: Final = int(GlobalFeature.CARDS_LEFT)
_DRAWP: Final = int(Phase.DRAW)
_EMPTY: Final = int(HandFeature.STATUS) + int(Status.EMPTY)
_WAITING: Final = int(HandFeature.STATUS) + int(Status.WAITING)
_SPLITP: Final = int(Phase.SPLIT)
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


class Encoder:
    """Seat observations from one public table view plus each seat's private cards.

    Everything every player at the table sees is kept once, with seats in absolute
    order, in ``pub`` (updated from the game's event log, a few scalar writes per event).
    ``observe(o)`` gathers ``pub`` into seat ``o``'s relative order with one precomputed
    index array (which is also the copy it returns) and then adds what only ``o`` knows:
    its own face-down cards. Nothing private ever enters ``pub``, so no other seat can
    see it.
    """

    def __init__(self, game: Game):
        self.game = game
        n, H = game.n, game.hands_per_seat
        shoe = game.rules.reshuffle == "when_exhausted"
        L = self.layout = Layout(n, H, game.rules.bet_levels[-1], game.rules.hands_bound(), shoe)
        D = L.size
        self._seen = L.column(CardColumn.SEEN_IN_SHOE) if shoe else -1
        self._wild = game.wild
        self._vis: list[list[int]] = [[] for _ in range(n * H)]  # wild mode: face-up cards per slot
        self._adj = [0] * (n * H)  # wild mode: -1 for a slot whose ace was declared ½
        self._W, self._H, self._G, self._D = L.W, H, L.GLOBAL, D
        self._fd = L.column(CardColumn.OWN_FACE_DOWN)
        self._ret = L.column(CardColumn.RETURNED)
        self._split_entry, self._draw_entry = L.phase_feature(Phase.SPLIT), L.phase_feature(Phase.DRAW)
        # Public view: the observation layout with absolute seats (relative seat r = seat r),
        # plus one trailing zero that private columns gather from.
        self.pub = np.zeros(D + 1, np.float32)
        self._pv: Any = memoryview(self.pub)  # type: ignore[arg-type]
        self._hand = [L.hand(s, h) for s in range(n) for h in range(H)]
        self._seat = [L.seat(s) for s in range(n)]
        self._gather = []
        for o in range(n):
            idx = np.full(D, D, np.int64)
            for c in range(N_CARDS):
                for r in range(n):
                    for h in range(H):
                        idx[L.card(c, r, h)] = L.card(c, (o + r) % n, h)
                idx[L.returned(c)] = L.returned(c)
                if shoe:
                    idx[L.seen_in_shoe(c)] = L.seen_in_shoe(c)
            for r in range(n):
                for h in range(H):
                    for k in range(HAND_FEATURES):
                        idx[L.hand(r, h) + k] = L.hand((o + r) % n, h) + k
                for k in range(SEAT_FEATURES):
                    idx[L.seat(r) + k] = L.seat((o + r) % n) + k
            for k in range(GLOBAL_FEATURES):
                idx[L.GLOBAL + k] = L.GLOBAL + k
            self._gather.append(idx)
        # Per banker seat: the public view at the start of a hand.
        self._templates = []
        for b in range(n):
            t = np.zeros(D + 1, np.float32)
            t[L.seat_feature(b, SeatFeature.IS_BANKER)] = 1.0
            t[L.global_feature(GlobalFeature.CARDS_LEFT)] = N_CARDS
            for s in range(n):
                for h in range(H):
                    t[L.status_feature(s, h, Status.WAITING if h == 0 else Status.EMPTY)] = 1.0
            self._templates.append(t)
        self._cursor = 0

    def __reduce__(self) -> tuple[object, ...]:
        """``copy.deepcopy`` and ``pickle`` (with its game, mid-hand): a new encoder of the
        game (its index tables rebuilt) and the public view read so far."""
        return (Encoder, (self.game,), (self.pub, self._vis, self._adj, self._cursor))

    def __setstate__(self, state: tuple[Any, Any, Any, Any]) -> None:
        pub, vis, adj, cursor = state
        self.pub = pub
        self._pv = memoryview(pub)
        self._vis, self._adj, self._cursor = vis, adj, cursor

    def reset(self) -> None:
        """Forget everything: the game's event log starts again."""
        self._cursor = 0

    def observe(self, o: int) -> np.ndarray:
        """Seat ``o``'s observation (a fresh array)."""
        g = self.game
        if self._cursor < len(g.events):
            self._catch_up(g.events)
        # Seat 0's relative order is the absolute one: a plain copy (its private columns are
        # zero in the public view, as the gather would make them).
        row = self.pub[: self._D].copy() if o == 0 else self.pub[self._gather[o]]
        if g.phase == _SPLITP and o != g.seat:
            # Whether a punter may split shows that its hidden card is a figure: only the
            # punter knows it is deciding; the table sees it still drawing.
            row[self._split_entry] = 0.0
            row[self._draw_entry] = 1.0
        k0 = o * self._H
        hidden = g.hidden
        W = self._W
        for h in range(g.nhands[o]):
            c = hidden[k0 + h]
            if c >= 0:  # the observer's own face-down card: relative seat 0, hand h
                row[c * W + h] = 1.0  # (relative seat 0: hand column h)
                row[c * W + self._fd] = 1.0
                row[self._hand[h] + _TOTAL] = g.total[k0 + h] * 0.5  # the observer knows its true total
                if g.more_hidden:
                    for c in g.more_hidden[k0 + h]:
                        row[c * W + h] = 1.0
                        row[c * W + self._fd] = 1.0
        return row

    def _show(self, f: Any, c: int, k: int, hb: int) -> None:
        """Card ``c`` is now face-up in hand slot ``k`` (hand features at ``hb``)."""
        base = c * self._W
        f[base + k] = 1.0
        f[base + self._ret] = 0.0
        if self._wild < 0:
            f[hb + _TOTAL] += HALF[c]
        else:
            self._vis[k].append(c)
            f[hb + _TOTAL] = self.game.hand_total(self._vis[k], self._adj[k]) * 0.5

    def _catch_up(self, events: list[tuple]) -> None:
        g = self.game
        start = self._cursor
        if start < g.last_new_hand:
            start = g.last_new_hand
        self._cursor = len(events)
        f = self._pv
        W, H, RET, G = self._W, self._H, self._ret, self._G
        hand, seat = self._hand, self._seat
        wild, vis, total, adj = self._wild, self._vis, g.hand_total, self._adj
        # the feature offsets as locals (the compiled loop reads them as C ints)
        STAKE, NCARDS, FACE_DOWN, TOTAL = _STAKE, _NCARDS, _FACE_DOWN, _TOTAL
        TO_ACT, CHIPS, ANNOUNCED, BID, SIDE = _TO_ACT, _CHIPS, _ANNOUNCED, _BID, _SIDE_BETS
        DONE, LEFT, AUCTION = G + _HANDS_DONE, G + _CARDS_LEFT, _AUCTIONP
        EMPTY, WAITING = _EMPTY, _WAITING
        for ev in events[start:]:
            code = ev[0]
            if code == EV_DEAL:  # (card, seat, hand, face_up)
                c = ev[1]
                k = ev[2] * H + ev[3]
                hb = hand[k]
                f[hb + NCARDS] += 1.0
                f[LEFT] -= 1.0
                if ev[4]:
                    self._show(f, c, k, hb)
                else:
                    f[hb + FACE_DOWN] = 1.0
            elif code == EV_STATUS:  # (seat, hand, old, new): the status one-hot starts at hb
                hb = hand[ev[1] * H + ev[2]]
                f[hb + ev[3]] = 0.0
                f[hb + ev[4]] = 1.0
            elif code == EV_TURN:  # (old_seat, old_phase, seat, phase, hands_done)
                _, prev, oldph, s, ph, done = ev
                if prev >= 0:
                    f[seat[prev] + TO_ACT] = 0.0
                if s >= 0:
                    f[seat[s] + TO_ACT] = 1.0
                if oldph >= 0:
                    f[G + oldph] = 0.0  # (the phase one-hot starts at G)
                    if oldph == AUCTION and ph != AUCTION:  # the auction is over: its bids go
                        for sb in seat:
                            f[sb + BID] = 0.0
                f[G + ph] = 1.0
                f[DONE] = done
            elif code == EV_STAKE:  # (seat, hand, stake)
                f[hand[ev[1] * H + ev[2]] + STAKE] = ev[3]
            elif code == EV_REVEAL:  # (card, seat, hand)
                c = ev[1]
                k = ev[2] * H + ev[3]
                hb = hand[k]
                f[hb + FACE_DOWN] = 0.0
                self._show(f, c, k, hb)
            elif code == EV_PAY:  # (from, to, amount); from -1: points scored
                if ev[1] >= 0:
                    f[seat[ev[1]] + CHIPS] -= ev[3]
                f[seat[ev[2]] + CHIPS] += ev[3]
            elif code == EV_NEW_HAND:  # (banker, hands_done, chips, cards_left, seen_in_shoe, seats_out)
                _, b, done, chips, left, seen, out = ev
                self.pub[:] = self._templates[b]
                for s2 in out:  # seats sitting out: their first hand slot is empty, not waiting
                    f[hand[s2 * H] + EMPTY] = 1.0
                    f[hand[s2 * H] + WAITING] = 0.0
                f[DONE] = done
                f[LEFT] = left
                for s2, ch in enumerate(chips):
                    if ch:
                        f[seat[s2] + CHIPS] = ch
                for c in seen:
                    f[c * W + self._seen] = 1.0
                if wild >= 0:
                    for cards in vis:
                        cards.clear()
                    adj[:] = [0] * len(adj)
            elif code == EV_ANNOUNCE:  # (seat)
                f[seat[ev[1]] + ANNOUNCED] = 1.0
            elif code == EV_ACE_HALF:  # (seat): the shown ace counts ½
                k = ev[1] * H
                if wild < 0:
                    f[hand[k] + TOTAL] -= 0.5
                else:
                    adj[k] = -1
                    f[hand[k] + TOTAL] = total(vis[k], -1) * 0.5
            elif code == EV_SIDE:  # (target, stake)
                f[seat[ev[1]] + SIDE] += ev[2]
            elif code == EV_BID:  # (seat, amount)
                f[seat[ev[1]] + BID] = ev[2]
            elif code == EV_RESHUFFLE:  # (shoe_size): the seen discards are back in the shoe
                for c in range(N_CARDS):
                    f[c * W + self._seen] = 0.0
                f[LEFT] = ev[1]
            elif code == EV_MOVE:  # (card, seat, from_hand, to_hand): a face-up card
                _, c, s, h, nh = ev
                v = HALF[c]
                base = c * W
                k, nk = s * H + h, s * H + nh
                f[base + k] = 0.0
                f[base + nk] = 1.0
                a, b = hand[k], hand[nk]
                if wild < 0:
                    f[a + TOTAL] -= v
                    f[b + TOTAL] += v
                else:
                    vis[k].remove(c)
                    vis[nk].append(c)
                    f[a + TOTAL] = total(vis[k], adj[k]) * 0.5
                    f[b + TOTAL] = total(vis[nk], adj[nk]) * 0.5
                f[a + NCARDS] -= 1.0
                f[b + NCARDS] += 1.0
            elif code == EV_RETURN:  # (card, seat, was_face_up, back_to_deck, hand): swap or burn
                _, c, s, was_up, back, h = ev
                k = s * H + h
                hb = hand[k]
                f[hb + NCARDS] -= 1.0
                f[c * W + RET] = 1.0
                if was_up:  # it was in everyone's view: take it out of the hand
                    f[c * W + k] = 0.0
                    if wild < 0:
                        f[hb + TOTAL] -= HALF[c]
                    else:
                        vis[k].remove(c)
                        f[hb + TOTAL] = total(vis[k], adj[k]) * 0.5
                else:
                    f[hb + FACE_DOWN] = 0.0
                if back:
                    f[LEFT] += 1.0

    def state(self) -> np.ndarray:
        """The full state for a centralised critic (``state_vector``)."""
        return state_vector(self.game, self.layout)


def state_vector(g: Any, L: Layout) -> np.ndarray:
    """The full state for a centralised critic: every card's place (hidden ones included,
    the deck's order excluded), every hand's true total, roles, chips; ``g`` is an engine
    with ``Game``'s attributes (``game.Game`` or ``table.Table``)."""
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


__all__ = ["CardColumn", "Encoder", "state_vector", "GlobalFeature", "HandFeature", "Layout", "SeatFeature", "Status"]
