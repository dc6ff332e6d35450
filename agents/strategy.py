"""What a policy does, counted from its decisions: strategy maps.

``StrategyRecorder(env, seats)`` is a recorder for ``play_match`` (called as
``recorder(seat, obs_dict, action)`` at every decision). It counts the decisions of the
given absolute seats into small integer arrays, reading only the observation the seat
acted on (the phase, its own hand's features, its own face-down card, the face-up totals
of the others) and the action mask, never hidden state. Whether a decision is a punter's
or the banker's follows from the phase in the observation, so one recorder may watch
both roles.

``maps()`` turns the counts into frequencies (JSON-serialisable; ``None`` where a cell
has no decision, with the counts next to them):

| map | decisions counted | frequency of | by |
| --- | --- | --- | --- |
| ``stand_hit`` | punter, draw phase, a hit legal | ``STAND`` among stand/hit (raises apart: a raise is followed by its own hit/stand decision) | own total (½..7) × cards in the hand (1..6+) |
| ``face_down`` | punter hits when ``HIT_UP`` and ``HIT_DOWN`` are both legal | ``HIT_DOWN`` | own total × value of its own face-down card (none, ½, 1..7) |
| ``stake`` | punter, bet phase | each ``BET_k``; mean stake; ``SWAP_FOUR`` on an initial 4 when it is legal | value of the hand's first card (½, 1..7) |
| ``raise`` | punter, draw phase, some ``RAISE_k`` legal | any ``RAISE_k`` | own total |
| ``banker`` | banker, banker phase, ``HIT_UP`` and ``STAND`` both legal | ``HIT_UP`` | banker total × the punters' face-up total (the standing punter hand with the highest face-up total, the first in turn order on a tie; 0..7½), also split by whether that hand holds a face-down card |
"""

from __future__ import annotations

from typing import Any

import numpy as np

from siete_env.cards import N_CARDS, VALUE2
from siete_env.encoding import HandFeature
from siete_env.game import Phase, Status

# Totals are indexed in half points (t2 = 2 * total, 0..15).
N_T2 = 16
MAX_CARDS = 6  # cards-in-hand columns 1..6+ (index 0 unused)
TOTALS = [t / 2 for t in range(1, 15)]  # 0.5 .. 7.0: the rows of the punter/banker maps
FIRST_CARDS = [0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
FIRST_T2 = [int(2 * v) for v in FIRST_CARDS]
HIDDEN_LABELS: list[Any] = ["none", *FIRST_CARDS]  # face-down card value columns
FACE_UP_TOTALS = [t / 2 for t in range(N_T2)]  # 0 .. 7.5: a punter's face-up total

# Draw-phase decisions, as counted (columns of the ``draw`` counts).
_STAND, _HIT_UP, _HIT_DOWN, _RAISE, _OTHER = range(5)


def _t2(x: float) -> int:
    t = int(x * 2.0 + 0.5)
    return 0 if t < 0 else (N_T2 - 1 if t >= N_T2 else t)


def _ratio(num: np.ndarray, den: np.ndarray) -> list:
    """``num / den`` as nested lists, ``None`` where ``den`` is 0."""
    out = np.divide(num, den, out=np.zeros(num.shape, np.float64), where=den > 0)
    flat = [None if d == 0 else round(float(v), 6) for v, d in zip(out.ravel(), den.ravel(), strict=True)]
    return np.array(flat, dtype=object).reshape(num.shape).tolist()


def _ints(a: np.ndarray) -> list:
    return a.astype(np.int64).tolist()


class StrategyRecorder:
    """Counts the decisions of ``seats`` (absolute seats; ``play_match`` puts the banker in
    seat 0) for a table built like ``env`` (a ``raw_env`` or ``env`` of this package with the
    same players and rules as the match)."""

    def __init__(self, env, seats):
        raw = env.unwrapped
        L = raw.layout
        self.action_names: tuple[str, ...] = tuple(raw.action_names)
        self.n, self.H = L.n, L.H
        self.seats = frozenset(int(s) for s in seats)
        self._watch = [s in self.seats for s in range(max(self.n, *self.seats, 0) + 1)]
        A = len(self.action_names)
        ids = {name: i for i, name in enumerate(self.action_names)}
        self._ids = ids
        self._g_bet, self._g_draw = L.phase_feature(Phase.BET), L.phase_feature(Phase.DRAW)
        self._g_bank = L.phase_feature(Phase.BANKER)
        self._own = [L.hand(0, h) for h in range(L.H)]  # the observer's hand slots
        self._fd_cols = np.array([L.own_face_down(c) for c in range(N_CARDS)])  # "my face-down card"
        self._in_hand = [[L.card(c, 0, h) for c in range(N_CARDS)] for h in range(L.H)]  # card c in own hand h
        # The punters' hand slots as the banker sees them (relative seats 1..n-1).
        self._others = [L.hand(r, h) for r in range(1, L.n) for h in range(L.H)]
        # hand features, relative to a hand slot's start
        self._playing = HandFeature.STATUS + Status.PLAYING
        self._stood = HandFeature.STATUS + Status.STOOD
        self._total, self._ncards = int(HandFeature.VISIBLE_TOTAL), int(HandFeature.N_CARDS)
        self._face_down = int(HandFeature.FACE_DOWN)
        kind = [_OTHER] * A
        kind[ids["STAND"]] = _STAND
        kind[ids["HIT_UP"]] = _HIT_UP
        if "HIT_DOWN" in ids:
            kind[ids["HIT_DOWN"]] = _HIT_DOWN
        raises = [i for name, i in ids.items() if name.startswith("RAISE_")]
        for i in raises:
            kind[i] = _RAISE
        self._kind = kind
        self._hit_up = ids["HIT_UP"]
        self._hit_down = ids.get("HIT_DOWN", -1)
        self._stand = ids["STAND"]
        self._raise_lo = min(raises) if raises else 0
        self._raise_hi = max(raises) + 1 if raises else 0
        self._swap = ids.get("SWAP_FOUR", -1)
        self.bet_ids = [i for name, i in ids.items() if name.startswith("BET_")]
        self.bet_levels = [int(self.action_names[i][4:]) for i in self.bet_ids]
        # Counts.
        self.draw = np.zeros((N_T2, MAX_CARDS + 1, 5), np.int64)  # t2 x cards x kind (a hit legal)
        self.raise_opp = np.zeros((N_T2, 2), np.int64)  # t2 x (no raise, raise), some raise legal
        self.face = np.zeros((N_T2, len(HIDDEN_LABELS), 2), np.int64)  # t2 x hidden col x (up, down)
        self.bet = np.zeros((N_T2, A), np.int64)  # first-card t2 x action, bet phase
        self.swap_opp = np.zeros((N_T2, 2), np.int64)  # t2 x (no swap, swap), SWAP_FOUR legal
        self.bank = np.zeros((N_T2, N_T2, 2, 2), np.int64)  # own t2 x punter up t2 x hidden x (stand, hit)
        self.decisions = np.zeros(4, np.int64)  # bet, draw, banker, other
        # Hidden-card column of a card: 1 + index in FIRST_CARDS.
        self._hidden_col = [1 + FIRST_T2.index(v) for v in VALUE2]

    @classmethod
    def for_table(cls, seats, num_players: int = 2, rules: Any = "spanish") -> StrategyRecorder:
        """A recorder for a table of ``num_players`` with ``rules`` (as ``play_match`` builds it)."""
        from siete_env import raw_env

        return cls(raw_env(num_players=num_players, rules=rules), seats)

    # -- recording -------------------------------------------------------------------------

    def __call__(self, seat: int, obs: dict, action: int) -> None:
        if seat >= len(self._watch) or not self._watch[seat]:
            return
        o = obs["observation"]
        if o[self._g_draw] == 1.0:
            self._draw(o, obs["action_mask"], action)
        elif o[self._g_bet] == 1.0:
            self._bet(o, obs["action_mask"], action)
        elif o[self._g_bank] == 1.0:
            self._banker(o, obs["action_mask"], action)
        else:
            self.decisions[3] += 1

    def _hand(self, o: np.ndarray) -> int:
        for hb in self._own:
            if o[hb + self._playing] == 1.0:
                return hb
        return self._own[0]

    def _draw(self, o: np.ndarray, mask: np.ndarray, a: int) -> None:
        self.decisions[1] += 1
        hb = self._hand(o)
        t2 = _t2(o[hb + self._total])
        kind = self._kind[a]
        up_ok = mask[self._hit_up] == 1
        down_ok = self._hit_down >= 0 and mask[self._hit_down] == 1
        if up_ok or down_ok:
            nc = int(o[hb + self._ncards])
            self.draw[t2, nc if nc < MAX_CARDS else MAX_CARDS, kind] += 1
        if self._raise_hi and mask[self._raise_lo : self._raise_hi].any():
            self.raise_opp[t2, 1 if kind == _RAISE else 0] += 1
        if up_ok and down_ok and (kind == _HIT_UP or kind == _HIT_DOWN):
            col = 0
            if o[hb + self._face_down] == 1.0:  # holds a face-down card: which one is the observer's own
                h = self._own.index(hb)
                fd = np.flatnonzero(o[self._fd_cols])
                for c in fd:
                    if o[self._in_hand[h][c]] == 1.0:
                        col = self._hidden_col[c]
                        break
            self.face[t2, col, 1 if kind == _HIT_DOWN else 0] += 1

    def _bet(self, o: np.ndarray, mask: np.ndarray, a: int) -> None:
        self.decisions[0] += 1
        hb = self._hand(o)
        t2 = _t2(o[hb + self._total])
        self.bet[t2, a] += 1
        if self._swap >= 0 and mask[self._swap] == 1:
            self.swap_opp[t2, 1 if a == self._swap else 0] += 1

    def _banker(self, o: np.ndarray, mask: np.ndarray, a: int) -> None:
        self.decisions[2] += 1
        if not (mask[self._hit_up] == 1 and mask[self._stand] == 1):
            return
        own = _t2(o[self._own[0] + self._total])
        best, hidden = -1.0, 0
        for hb in self._others:
            if o[hb + self._stood] == 1.0:
                v = o[hb + self._total]
                if v > best:
                    best, hidden = v, 1 if o[hb + self._face_down] == 1.0 else 0
        if best < 0:
            return
        self.bank[own, _t2(best), hidden, 1 if a == self._hit_up else 0] += 1

    # -- results ---------------------------------------------------------------------------

    def merge(self, other: StrategyRecorder) -> StrategyRecorder:
        """Add ``other``'s counts to this recorder's (same action space); returns self."""
        if other.action_names != self.action_names:
            raise ValueError("cannot merge strategy counts of different action spaces")
        for name in ("draw", "raise_opp", "face", "bet", "swap_opp", "bank", "decisions"):
            getattr(self, name)[...] += getattr(other, name)
        return self

    def maps(self) -> dict:
        """Frequencies and counts, JSON-serialisable (see the module docstring)."""
        rows = slice(1, 15)  # totals 0.5 .. 7
        d = self.draw[rows, 1:]  # 14 x 6 x kind
        hits = d[..., _HIT_UP] + d[..., _HIT_DOWN]
        sh_n = d[..., _STAND] + hits
        f = self.face[rows]
        f_n = f.sum(axis=2)
        b = self.bet[FIRST_T2]  # 8 x A
        bets = b[:, self.bet_ids]
        bet_n = bets.sum(axis=1)
        levels = np.array(self.bet_levels, np.float64)
        mean = _ratio(bets @ levels, bet_n)
        ro = self.raise_opp[rows]
        so = self.swap_opp[8]
        bk = self.bank[rows]  # 14 x 16 x 2 x 2
        bk_all = bk.sum(axis=2)
        return {
            "decisions": {
                "bet": int(self.decisions[0]),
                "draw": int(self.decisions[1]),
                "banker": int(self.decisions[2]),
                "other": int(self.decisions[3]),
            },
            "stand_hit": {
                "p_stand": _ratio(d[..., _STAND], sh_n),
                "n": _ints(sh_n),
                "rows": TOTALS,
                "row_label": "own total",
                "cols": [1, 2, 3, 4, 5, "6+"],
                "col_label": "cards in hand",
            },
            "face_down": {
                "p_down": _ratio(f[..., 1], f_n),
                "n": _ints(f_n),
                "rows": TOTALS,
                "row_label": "own total",
                "cols": HIDDEN_LABELS,
                "col_label": "own face-down card",
            },
            "stake": {
                "first_card": FIRST_CARDS,
                "levels": self.bet_levels,
                "mean": mean,
                "dist": _ratio(bets, np.repeat(bet_n[:, None], len(self.bet_ids), axis=1)),
                "n": _ints(bet_n),
                "swap_four": {"p": _ratio(np.array(so[1]), np.array(so.sum())), "n": int(so.sum())},
            },
            "raise": {
                "p_raise": _ratio(ro[:, 1], ro.sum(axis=1)),
                "n": _ints(ro.sum(axis=1)),
                "rows": TOTALS,
                "row_label": "own total",
            },
            "banker": {
                "p_hit": _ratio(bk_all[..., 1], bk_all.sum(axis=2)),
                "n": _ints(bk_all.sum(axis=2)),
                "p_hit_face_down": _ratio(bk[:, :, 1, 1], bk[:, :, 1].sum(axis=2)),
                "n_face_down": _ints(bk[:, :, 1].sum(axis=2)),
                "p_hit_face_up": _ratio(bk[:, :, 0, 1], bk[:, :, 0].sum(axis=2)),
                "n_face_up": _ints(bk[:, :, 0].sum(axis=2)),
                "rows": TOTALS,
                "row_label": "banker total",
                "cols": FACE_UP_TOTALS,
                "col_label": "punter's face-up total",
            },
        }


__all__ = ["StrategyRecorder"]
