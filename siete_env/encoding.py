"""The only place where game state becomes numbers: observation layout, action mask, state.

Observation of seat ``o`` (a flat ``float32`` vector; ``n`` seats, ``H`` hand slots per
seat, ``C = 40`` cards, ``W = n*H + 2``). Seats are numbered **relative to the
observer**: relative seat ``r`` is absolute seat ``(o + r) % n``, so ``r = 0`` is always
the observer itself and ``r = 1`` the next seat in turn order.

| block | size | index | meaning |
| --- | --- | --- | --- |
| cards | ``C*W`` | ``c*W + r*H + h`` | 1 if the observer sees card ``c`` in hand ``h`` of relative seat ``r`` (face-up cards, and the observer's own face-down cards) |
| | | ``c*W + n*H`` | 1 if ``c`` is the observer's own face-down card |
| | | ``c*W + n*H + 1`` | 1 if ``c`` was shown going back into the deck (a swapped 4) and not seen since |
| hands | ``n*H*9`` | ``HANDS + (r*H + h)*9 + k`` | ``k=0..4``: status one-hot (empty, waiting, playing, stood, bust); ``5``: stake; ``6``: number of cards; ``7``: 1 if it holds a face-down card; ``8``: total of the cards the observer can see in it (all of them for its own hands), in points |
| seats | ``n*3`` | ``SEATS + r*3 + k`` | ``0``: is the banker; ``1``: is the seat to act; ``2``: net chips this episode |
| global | 7 | ``GLOBAL + k`` | ``0..4``: phase one-hot (bet, draw, split, banker, over); ``5``: hands finished this episode; ``6``: cards left in the deck |

Never encoded: another seat's face-down card, the order of the deck, or anything
derived from them (a face-down card only counts in the "number of cards" and
"holds a face-down card" entries, which every player at the table sees).
"""

from __future__ import annotations

import numpy as np

from .cards import N_CARDS, VALUE2
from .game import (
    EV_DEAL,
    EV_MOVE,
    EV_NEW_HAND,
    EV_PAY,
    EV_RETURN,
    EV_REVEAL,
    EV_STAKE,
    EV_STATUS,
    EV_TURN,
    Game,
    Phase,
    Status,
)

HAND_FEATURES = 9
SEAT_FEATURES = 3
GLOBAL_FEATURES = 7
N_PHASES = len(Phase)


class Layout:
    """Offsets of the observation blocks for ``n`` seats and ``H`` hand slots."""

    def __init__(self, n: int, hands_per_seat: int, top_stake: int, hands_per_episode: int):
        self.n, self.H = n, hands_per_seat
        self.W = n * hands_per_seat + 2
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
        high[self.GLOBAL + 5] = hands_per_episode
        high[self.GLOBAL + 6] = N_CARDS
        self.low, self.high = low, high

    def card(self, card: int, rel_seat: int, hand: int) -> int:
        return self.CARDS + card * self.W + rel_seat * self.H + hand

    def own_face_down(self, card: int) -> int:
        return self.CARDS + card * self.W + self.n * self.H

    def returned(self, card: int) -> int:
        return self.CARDS + card * self.W + self.n * self.H + 1

    def hand(self, rel_seat: int, hand: int) -> int:
        """Start of the 9 features of a hand slot."""
        return self.HANDS + (rel_seat * self.H + hand) * HAND_FEATURES

    def seat(self, rel_seat: int) -> int:
        return self.SEATS + rel_seat * SEAT_FEATURES


class Encoder:
    """Keeps every seat's observation up to date from the game's events.

    ``buf[o]`` is seat ``o``'s observation; ``process(events)`` applies a batch of
    events in O(events x seats) scalar writes, so that observing costs one copy.
    """

    def __init__(self, game: Game):
        self.game = game
        n, H = game.n, game.hands_per_seat
        L = self.layout = Layout(n, H, game.rules.bet_levels[-1], game.rules.hands_per_episode)
        self.buf = np.zeros((n, L.size), np.float32)
        self.flat = self.buf.reshape(-1)
        D = L.size
        rng = range(n)
        # Flat indices, per observer o: o*D + offset for absolute seat s.
        self._cell = [[[o * D + (((s - o) % n) * H + h) for h in range(H)] for s in rng] for o in rng]
        self._hand = [[[o * D + L.hand((s - o) % n, h) for h in range(H)] for s in rng] for o in rng]
        self._seat = [[o * D + L.seat((s - o) % n) for s in rng] for o in rng]
        self._glob = [o * D + L.GLOBAL for o in rng]
        self._row = [o * D for o in rng]
        self._W = L.W
        self._fd_col = n * H
        self._acting = -1

    def rebuild(self) -> None:
        """Reset every observation for a new hand (cards arrive as later events)."""
        g, n, f = self.game, self.game.n, self.flat
        f[:] = 0.0
        for o in range(n):
            for s in range(n):
                sb = self._seat[o][s]
                f[sb] = 1.0 if s == g.banker else 0.0
                f[sb + 2] = g.chips[s]
                for h in range(g.hands_per_seat):
                    f[self._hand[o][s][h] + g.status[s][h]] = 1.0
            f[self._glob[o] + 5] = g.hand_no
            f[self._glob[o] + 6] = len(g.deck)  # the deals that follow count down
        self._acting = -1

    def process(self, events: list[tuple]) -> None:
        f = self.flat
        n = self.game.n
        W = self._W
        rng = range(n)
        for ev in events:
            code = ev[0]
            if code == EV_DEAL:
                _, c, s, h, up = ev
                v = VALUE2[c] * 0.5
                base = c * W
                for o in rng:
                    hb = self._hand[o][s][h]
                    f[hb + 6] += 1.0
                    if up or o == s:
                        f[self._cell[o][s][h] + base] = 1.0
                        f[hb + 8] += v
                        f[self._row[o] + base + W - 1] = 0.0
                    if not up:
                        f[hb + 7] = 1.0
                    f[self._glob[o] + 6] -= 1.0
                if not up:
                    f[self._row[s] + base + self._fd_col] = 1.0
            elif code == EV_STATUS:
                _, s, h, st = ev
                for o in rng:
                    hb = self._hand[o][s][h]
                    f[hb : hb + 5] = 0.0
                    f[hb + st] = 1.0
            elif code == EV_TURN:
                _, s, ph = ev
                prev = self._acting
                for o in rng:
                    if prev >= 0:
                        f[self._seat[o][prev] + 1] = 0.0
                    if s >= 0:
                        f[self._seat[o][s] + 1] = 1.0
                    gb = self._glob[o]
                    f[gb : gb + N_PHASES] = 0.0
                    f[gb + ph] = 1.0
                    if ph == 4:
                        f[gb + 5] = self.game.hand_no
                self._acting = s
            elif code == EV_STAKE:
                _, s, h, k = ev
                for o in rng:
                    f[self._hand[o][s][h] + 5] = k
            elif code == EV_REVEAL:
                _, c, s, h = ev
                v = VALUE2[c] * 0.5
                base = c * W
                for o in rng:
                    f[self._hand[o][s][h] + 7] = 0.0
                    if o != s:
                        f[self._cell[o][s][h] + base] = 1.0
                        f[self._hand[o][s][h] + 8] += v
                        f[self._row[o] + base + W - 1] = 0.0
                f[self._row[s] + base + self._fd_col] = 0.0
            elif code == EV_PAY:
                chips = self.game.chips
                _, a, b, _amt = ev
                for o in rng:
                    f[self._seat[o][a] + 2] = chips[a]
                    f[self._seat[o][b] + 2] = chips[b]
            elif code == EV_MOVE:
                _, c, s, h, nh = ev
                v = VALUE2[c] * 0.5
                base = c * W
                for o in rng:
                    f[self._cell[o][s][h] + base] = 0.0
                    f[self._cell[o][s][nh] + base] = 1.0
                    a, b = self._hand[o][s][h], self._hand[o][s][nh]
                    f[a + 8] -= v
                    f[b + 8] += v
                    f[a + 6] -= 1.0
                    f[b + 6] += 1.0
            elif code == EV_RETURN:
                _, c, s = ev
                base = c * W
                for o in rng:
                    hb = self._hand[o][s][0]
                    f[hb + 6] -= 1.0
                    f[hb + 7] = 0.0
                    f[self._row[o] + base + W - 1] = 1.0
                    f[self._glob[o] + 6] += 1.0
                f[self._cell[s][s][0] + base] = 0.0
                f[self._row[s] + base + self._fd_col] = 0.0
                f[self._hand[s][s][0] + 8] -= VALUE2[c] * 0.5
            elif code == EV_NEW_HAND:
                self.rebuild()

    def state(self) -> np.ndarray:
        """The full state for a centralised critic: every card's place (hidden ones
        included, the deck's order excluded), every hand's true total, roles, chips."""
        g = self.game
        n, H = g.n, g.hands_per_seat
        W = n * H + 2
        out = np.zeros(N_CARDS * W + n * H * HAND_FEATURES + n * SEAT_FEATURES + GLOBAL_FEATURES, np.float32)
        for c in g.deck[g.pos :]:
            out[c * W + n * H + 1] = 1.0  # still in the deck
        hb0 = N_CARDS * W
        for s in range(n):
            for h in range(H):
                hb = hb0 + (s * H + h) * HAND_FEATURES
                for c in g.cards[s][h]:
                    out[c * W + s * H + h] = 1.0
                if g.hidden[s][h] >= 0:
                    out[g.hidden[s][h] * W + n * H] = 1.0
                    out[hb + 7] = 1.0
                out[hb + g.status[s][h]] = 1.0
                out[hb + 5] = g.stake[s][h]
                out[hb + 6] = len(g.cards[s][h])
                out[hb + 8] = g.total[s][h] * 0.5
        sb0 = hb0 + n * H * HAND_FEATURES
        for s in range(n):
            out[sb0 + s * SEAT_FEATURES] = 1.0 if s == g.banker else 0.0
            out[sb0 + s * SEAT_FEATURES + 1] = 1.0 if s == g.acting_seat else 0.0
            out[sb0 + s * SEAT_FEATURES + 2] = g.chips[s]
        gb = sb0 + n * SEAT_FEATURES
        out[gb + g.phase] = 1.0
        out[gb + 5] = g.hand_no
        out[gb + 6] = g.cards_left()
        return out


__all__ = ["Encoder", "Layout", "Status"]
