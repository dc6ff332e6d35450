"""The readable reference encoder: the observations of ``tests.oracle.Game``, kept up to
date from its event log, which ``tests/batched_differential.py`` compares with the kernels'
``observe`` (``siete_env.encoding.Layout`` says what each number means)."""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from siete_env.cards import N_CARDS
from siete_env.encoding import (
    GLOBAL_FEATURES,
    HALF,
    HAND_FEATURES,
    SEAT_FEATURES,
    CardColumn,
    GlobalFeature,
    HandFeature,
    Layout,
    SeatFeature,
    state_vector,
)
from siete_env.game import (
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
    Phase,
    Status,
)

from .game import Game

_AUCTIONP: Final = int(Phase.AUCTION)
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
