"""Readable strings of observation vectors (no pyspiel here).

``describe(obs, layout, folded, deck)`` writes one observation vector of the encoder (raw or
suit-folded, ``siete_env.features``) as text. It reads nothing but the vector, so the text
can never say more than the observation does, and it writes every non-zero entry, so two
different observations never give the same text (the OpenSpiel game's observation and
information-state strings are built from it).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..cards import N_CARDS, N_RANKS, RANK, card_label
from ..encoding import CardColumn, GlobalFeature, HandFeature, Layout, SeatFeature
from ..game import Phase, Status

_STATUS = [s.name.lower() for s in Status]
_PHASE = [p.name.lower() for p in Phase]


def _num(x: float) -> str:
    """``5.5 -> "5½"``, ``3.0 -> "3"``, ``-2.0 -> "-2"``."""
    if x == int(x):
        return str(int(x))
    whole = math.floor(x)
    return f"{whole}½" if x - whole == 0.5 else repr(float(x))


def rank_label(r: int, deck: str) -> str:
    """The label of rank index ``r`` (0..9) without a suit: ``"7"``, ``"12"``, ``"Q"``."""
    label = card_label(r, deck)  # card r is rank index r of the first suit
    return label[:-1] if deck != "spanish" else str(RANK[r])


@functools.lru_cache(maxsize=16)
def _names(deck: str, folded: bool) -> tuple[str, ...]:
    if folded:
        return tuple(rank_label(r, deck) for r in range(N_RANKS))
    return tuple(card_label(c, deck) for c in range(N_CARDS))


class _Plan:
    """The indices ``describe`` reads in one layout (raw or folded), from ``Layout``'s named
    features: computed once per table shape."""

    def __init__(self, L: Layout, folded: bool):
        rows = N_RANKS if folded else N_CARDS
        self.end = end = L.card_entry(rows, 0)  # the end of the cards block (rank rows when folded)
        shift = end - L.HANDS  # the folded layout shifts every block after the cards
        self.W = L.W

        def col(column: int) -> int:
            return L.card_entry(0, column)

        self.face_down = col(L.column(CardColumn.OWN_FACE_DOWN))
        self.returned = col(L.column(CardColumn.RETURNED))
        self.seen_in_shoe = col(L.column(CardColumn.SEEN_IN_SHOE)) if L.shoe else -1
        self.seats = [tuple(L.seat_feature(r, f) + shift for f in _SEAT_VALUES) for r in range(L.n)]
        self.hands = [
            [
                (
                    [L.status_feature(r, h, st) + shift for st in Status],
                    tuple(L.hand_feature(r, h, f) + shift for f in _HAND_VALUES),
                    col(L.hand_column(r, h)),
                )
                for h in range(L.H)
            ]
            for r in range(L.n)
        ]
        self.phases = [L.phase_feature(p) + shift for p in Phase]
        self.hands_done = L.global_feature(GlobalFeature.HANDS_DONE) + shift
        self.cards_left = L.global_feature(GlobalFeature.CARDS_LEFT) + shift


_SEAT_VALUES = (
    SeatFeature.IS_BANKER,
    SeatFeature.TO_ACT,
    SeatFeature.CHIPS,
    SeatFeature.ANNOUNCED,
    SeatFeature.BID,
    SeatFeature.SIDE_BETS,
)
_HAND_VALUES = (HandFeature.STAKE, HandFeature.N_CARDS, HandFeature.FACE_DOWN, HandFeature.VISIBLE_TOTAL)
_PLANS: dict[tuple[int, int, bool, bool], _Plan] = {}


def _plan(layout: Layout, folded: bool) -> _Plan:
    key = (layout.n, layout.H, layout.shoe, folded)  # what the offsets depend on
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = _Plan(layout, folded)
    return plan


def describe(obs: np.ndarray, layout: Layout, folded: bool, deck: str = "spanish") -> str:
    """The observation as text: every seat (relative to the observer, ``me`` first) with its
    hands, then the cards shown leaving the hands, the phase and the counters."""
    P = _plan(layout, folded)
    v = obs.tolist()
    end, W = P.end, P.W
    names = _names(deck, folded)

    def listed(column: list[float], mark: list[float] | None = None) -> list[str]:
        out = []
        for i, x in enumerate(column):
            if x:
                k = int(round(x))
                hidden = 0 if mark is None else min(int(round(mark[i])), k)
                out += [names[i] + "*"] * hidden + [names[i]] * (k - hidden)
        return out

    fd = v[P.face_down : end : W]
    parts = []
    for r, (seat, hands_r) in enumerate(zip(P.seats, P.hands, strict=True)):
        is_banker, to_act, chips, announced, bid, side_bets = (v[i] for i in seat)
        who = "me" if r == 0 else f"+{r}"
        head = f"{who} {'banker' if is_banker else 'punter'}" + (" acting" if to_act else "") + f" chips {_num(chips)}"
        if announced:
            head += " announced"
        if bid:
            head += f" bid {_num(bid)}"
        if side_bets:
            head += f" backed {_num(side_bets)}"
        if r == 0 and any(fd):
            head += " face-down [" + " ".join(listed(fd)) + "]"
        hands = []
        for h, (status_at, values_at, column_at) in enumerate(hands_r):
            statuses = [v[i] for i in status_at]
            stake, n_cards, face_down, total = (v[i] for i in values_at)
            column = v[column_at:end:W]
            status = _STATUS[statuses.index(max(statuses))] if any(statuses) else "?"
            if status == "empty" and not (stake or n_cards or face_down or total) and not any(column):
                continue
            seen = listed(column, fd if r == 0 else None)  # * marks my face-down cards
            down = int(round(n_cards)) - len(seen) if face_down or r else 0
            shown = " ".join(seen + ["#"] * max(down, 0))
            text = f"h{h} {status} [{shown}] {int(round(n_cards))} cards total {_num(total)}"
            if face_down:
                text += " face-down"
            if stake:
                text += f" stake {_num(stake)}"
            hands.append(text)
        parts.append(head + (": " + "; ".join(hands) if hands else ""))
    back = listed(v[P.returned : end : W])
    if back:
        parts.append("shown back/out: " + " ".join(back))
    if P.seen_in_shoe >= 0:
        seen_shoe = listed(v[P.seen_in_shoe : end : W])
        if seen_shoe:
            parts.append("seen in shoe: " + " ".join(seen_shoe))
    phases = [v[i] for i in P.phases]
    phase = _PHASE[phases.index(max(phases))] if any(phases) else "-"
    parts.append(f"phase {phase} hands done {_num(v[P.hands_done])} cards left {_num(v[P.cards_left])}")
    return " | ".join(parts)
