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

Never encoded: another seat's face-down card, the order of the deck, or anything
derived from them (a face-down card only counts in the "number of cards" and
"holds a face-down card" entries, which every player at the table sees).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .cards import N_CARDS, VALUE2
from .game import (
    _EMPTY,
    _WAITING,
    Game,
    Phase,
    Status,
)

HALF = tuple(v * 0.5 for v in VALUE2)  # card values in points
HAND_FEATURES = 9
SEAT_FEATURES = 6
GLOBAL_FEATURES = 9
N_PHASES = len(Phase)
HANDS_DONE = N_PHASES  # global feature offsets
CARDS_LEFT = N_PHASES + 1


class Layout:
    """Offsets of the observation blocks for ``n`` seats and ``H`` hand slots."""

    def __init__(self, n: int, hands_per_seat: int, top_stake: int, hands_per_episode: int, shoe: bool = False):
        self.n, self.H = n, hands_per_seat
        self.shoe = shoe
        self.W = n * hands_per_seat + 2 + (1 if shoe else 0)
        self.CARDS = 0
        self.HANDS = N_CARDS * self.W
        self.SEATS = self.HANDS + n * hands_per_seat * HAND_FEATURES
        self.GLOBAL = self.SEATS + n * SEAT_FEATURES
        self.size = self.GLOBAL + GLOBAL_FEATURES
        low = np.zeros(self.size, np.float32)
        high = np.ones(self.size, np.float32)
        for i in range(n * hands_per_seat):
            b = self.HANDS + i * HAND_FEATURES
            high[b + 5] = top_stake
            high[b + 6] = N_CARDS
            high[b + 8] = 40.0
        for r in range(n):
            b = self.SEATS + r * SEAT_FEATURES
            low[b + 2], high[b + 2] = -np.inf, np.inf
            high[b + 4] = np.inf
            high[b + 5] = np.inf
        high[self.GLOBAL + HANDS_DONE] = hands_per_episode
        high[self.GLOBAL + CARDS_LEFT] = N_CARDS
        self.low, self.high = low, high

    def card(self, card: int, rel_seat: int, hand: int) -> int:
        return self.CARDS + card * self.W + rel_seat * self.H + hand

    def own_face_down(self, card: int) -> int:
        return self.CARDS + card * self.W + self.n * self.H

    def returned(self, card: int) -> int:
        return self.CARDS + card * self.W + self.n * self.H + 1

    def seen_in_shoe(self, card: int) -> int:
        """Shoe mode only: the card was shown in an earlier hand of this shoe."""
        assert self.shoe
        return self.CARDS + card * self.W + self.n * self.H + 2

    def hand(self, rel_seat: int, hand: int) -> int:
        """Start of the 9 features of a hand slot."""
        return self.HANDS + (rel_seat * self.H + hand) * HAND_FEATURES

    def seat(self, rel_seat: int) -> int:
        return self.SEATS + rel_seat * SEAT_FEATURES


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
        L = self.layout = Layout(n, H, game.rules.bet_levels[-1], game.rules.hands_per_episode, shoe)
        D = L.size
        self._seen = n * H + 2 if shoe else -1  # column of "seen earlier in this shoe"
        self._wild = game._wild
        self._vis: list[list[int]] = [[] for _ in range(n * H)]  # wild mode: face-up cards per slot
        self._adj = [0] * (n * H)  # wild mode: -1 for a slot whose ace was declared ½
        self._W, self._H, self._G, self._D = L.W, H, L.GLOBAL, D
        self._fd = n * H  # column of "my face-down card"
        self._ret = n * H + 1  # column of "returned to the deck"
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
            t[L.seat(b)] = 1.0
            t[L.GLOBAL + CARDS_LEFT] = N_CARDS
            for k in range(n * H):
                t[self._hand[k] + (_WAITING if k % H == 0 else _EMPTY)] = 1.0
            self._templates.append(t)
        self._cursor = 0

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
        if g.phase == 2 and o != g.seat:
            # Whether a punter may split shows that its hidden card is a figure: only the
            # punter knows it is deciding; the table sees it still drawing.
            row[self._G + 2] = 0.0
            row[self._G + 1] = 1.0
        k0 = o * self._H
        hidden = g.hidden
        W = self._W
        for h in range(g.nhands[o]):
            c = hidden[k0 + h]
            if c >= 0:  # the observer's own face-down card: relative seat 0, hand h
                row[c * W + h] = 1.0
                row[c * W + self._fd] = 1.0
                row[self._hand[h] + 8] = g.total[k0 + h] * 0.5  # the observer knows its true total
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
            f[hb + 8] += HALF[c]
        else:
            self._vis[k].append(c)
            f[hb + 8] = self.game.hand_total(self._vis[k], self._adj[k]) * 0.5

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
        for ev in events[start:]:
            code = ev[0]
            if code == 1:  # EV_DEAL (card, seat, hand, face_up)
                c = ev[1]
                k = ev[2] * H + ev[3]
                hb = hand[k]
                f[hb + 6] += 1.0
                f[G + CARDS_LEFT] -= 1.0
                if ev[4]:
                    self._show(f, c, k, hb)
                else:
                    f[hb + 7] = 1.0
            elif code == 5:  # EV_STATUS (seat, hand, old, new)
                hb = hand[ev[1] * H + ev[2]]
                f[hb + ev[3]] = 0.0
                f[hb + ev[4]] = 1.0
            elif code == 7:  # EV_TURN (old_seat, old_phase, seat, phase, hands_done)
                _, prev, oldph, s, ph, done = ev
                if prev >= 0:
                    f[seat[prev] + 1] = 0.0
                if s >= 0:
                    f[seat[s] + 1] = 1.0
                if oldph >= 0:
                    f[G + oldph] = 0.0
                    if oldph == 5 and ph != 5:  # the auction is over: its bids go
                        for sb in seat:
                            f[sb + 4] = 0.0
                f[G + ph] = 1.0
                f[G + HANDS_DONE] = done
            elif code == 6:  # EV_STAKE (seat, hand, stake)
                f[hand[ev[1] * H + ev[2]] + 5] = ev[3]
            elif code == 2:  # EV_REVEAL (card, seat, hand)
                c = ev[1]
                k = ev[2] * H + ev[3]
                hb = hand[k]
                f[hb + 7] = 0.0
                self._show(f, c, k, hb)
            elif code == 8:  # EV_PAY (from, to, amount)
                f[seat[ev[1]] + 2] -= ev[3]
                f[seat[ev[2]] + 2] += ev[3]
            elif code == 0:  # EV_NEW_HAND (banker, hands_done, chips, cards_left, seen_in_shoe)
                _, b, done, chips, left, seen, out = ev
                self.pub[:] = self._templates[b]
                for s2 in out:  # seats sitting out: their first hand slot is empty
                    f[hand[s2 * H]] = 1.0
                    f[hand[s2 * H] + 1] = 0.0
                f[G + HANDS_DONE] = done
                f[G + CARDS_LEFT] = left
                for s2, ch in enumerate(chips):
                    if ch:
                        f[seat[s2] + 2] = ch
                for c in seen:
                    f[c * W + self._seen] = 1.0
                if wild >= 0:
                    for cards in vis:
                        cards.clear()
                    adj[:] = [0] * len(adj)
            elif code == 10:  # EV_ANNOUNCE (seat)
                f[seat[ev[1]] + 3] = 1.0
            elif code == 12:  # EV_ACE_HALF (seat): the shown ace counts ½
                k = ev[1] * H
                if wild < 0:
                    f[hand[k] + 8] -= 0.5
                else:
                    adj[k] = -1
                    f[hand[k] + 8] = total(vis[k], -1) * 0.5
            elif code == 13:  # EV_SIDE (target, stake)
                f[seat[ev[1]] + 5] += ev[2]
            elif code == 11:  # EV_BID (seat, amount)
                f[seat[ev[1]] + 4] = ev[2]
            elif code == 9:  # EV_RESHUFFLE (shoe_size): the seen discards are back in the shoe
                for c in range(N_CARDS):
                    f[c * W + self._seen] = 0.0
                f[G + CARDS_LEFT] = ev[1]
            elif code == 3:  # EV_MOVE (card, seat, from_hand, to_hand): a face-up card
                _, c, s, h, nh = ev
                v = HALF[c]
                base = c * W
                k, nk = s * H + h, s * H + nh
                f[base + k] = 0.0
                f[base + nk] = 1.0
                a, b = hand[k], hand[nk]
                if wild < 0:
                    f[a + 8] -= v
                    f[b + 8] += v
                else:
                    vis[k].remove(c)
                    vis[nk].append(c)
                    f[a + 8] = total(vis[k], adj[k]) * 0.5
                    f[b + 8] = total(vis[nk], adj[nk]) * 0.5
                f[a + 6] -= 1.0
                f[b + 6] += 1.0
            elif code == 4:  # EV_RETURN (card, seat, was_face_up, back_to_deck): swap or burn
                _, c, s, was_up, back = ev
                hb = hand[s * H]
                f[hb + 6] -= 1.0
                f[c * W + RET] = 1.0
                if was_up:  # it was in everyone's view: take it out of the hand
                    f[c * W + s * H] = 0.0
                    if wild < 0:
                        f[hb + 8] -= HALF[c]
                    else:
                        vis[s * H].remove(c)
                        f[hb + 8] = total(vis[s * H], adj[s * H]) * 0.5
                else:
                    f[hb + 7] = 0.0
                if back:
                    f[G + CARDS_LEFT] += 1.0

    def state(self) -> np.ndarray:
        """The full state for a centralised critic: every card's place (hidden ones
        included, the deck's order excluded), every hand's true total, roles, chips."""
        g = self.game
        n, H = g.n, g.hands_per_seat
        W = self.layout.W
        out = np.zeros(self.layout.size, np.float32)
        for c in g.deck[g.pos :]:
            out[c * W + n * H + 1] = 1.0  # still in the deck
        if self.layout.shoe:
            for c in g.discards:
                out[c * W + n * H + 2] = 1.0  # discarded in this shoe
        hb0 = N_CARDS * W
        for s in range(n):
            for h in range(H):
                hb = hb0 + (s * H + h) * HAND_FEATURES
                k = s * H + h
                for c in g.cards[k]:
                    out[c * W + k] = 1.0
                if g.hidden[k] >= 0:
                    out[g.hidden[k] * W + n * H] = 1.0
                    out[hb + 7] = 1.0
                    for c in g.more_hidden[k] if g.more_hidden else ():
                        out[c * W + n * H] = 1.0
                out[hb + g.status[k]] = 1.0
                out[hb + 5] = g.stake[k]
                out[hb + 6] = len(g.cards[k])
                out[hb + 8] = g.total[k] * 0.5
        sb0 = hb0 + n * H * HAND_FEATURES
        for s in range(n):
            out[sb0 + s * SEAT_FEATURES] = 1.0 if s == g.banker else 0.0
            out[sb0 + s * SEAT_FEATURES + 1] = 1.0 if s == g.acting_seat else 0.0
            out[sb0 + s * SEAT_FEATURES + 2] = g.chips[s]
            out[sb0 + s * SEAT_FEATURES + 3] = 1.0 if g.announced[s] else 0.0
            out[sb0 + s * SEAT_FEATURES + 4] = g.bids[s] if g.phase == 5 else 0.0
            out[sb0 + s * SEAT_FEATURES + 5] = len(g.side_on[s]) * g.rules.side_bet_stake if g.side_on else 0.0
        gb = sb0 + n * SEAT_FEATURES
        out[gb + g.phase] = 1.0
        out[gb + HANDS_DONE] = g.hand_no
        out[gb + CARDS_LEFT] = g.cards_left()
        return out


__all__ = ["Encoder", "Layout", "Status"]
