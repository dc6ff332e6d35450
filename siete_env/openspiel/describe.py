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

from ..cards import N_CARDS, RANK, card_label
from ..encoding import CARDS_LEFT, HAND_FEATURES, HANDS_DONE, N_PHASES, SEAT_FEATURES, Layout
from ..game import Phase, Status

N_RANKS = 10
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


def describe(obs: np.ndarray, layout: Layout, folded: bool, deck: str = "spanish") -> str:
    """The observation as text: every seat (relative to the observer, ``me`` first) with its
    hands, then the cards shown leaving the hands, the phase and the counters."""
    L = layout
    W, n, H = L.W, L.n, L.H
    rows = N_RANKS if folded else N_CARDS
    v = obs.tolist()
    end = rows * W
    names = _names(deck, folded)
    shift = end - L.HANDS  # the folded layout shifts every block after the cards
    fd = v[n * H : end : W]

    def listed(column: list[float], mark: list[float] | None = None) -> list[str]:
        out = []
        for i, x in enumerate(column):
            if x:
                k = int(round(x))
                hidden = 0 if mark is None else min(int(round(mark[i])), k)
                out += [names[i] + "*"] * hidden + [names[i]] * (k - hidden)
        return out

    parts = []
    for r in range(n):
        sb = L.seat(r) + shift
        seat = v[sb : sb + SEAT_FEATURES]
        who = "me" if r == 0 else f"+{r}"
        role = "banker" if seat[0] else "punter"
        head = f"{who} {role}" + (" acting" if seat[1] else "") + f" chips {_num(seat[2])}"
        if seat[3]:
            head += " announced"
        if seat[4]:
            head += f" bid {_num(seat[4])}"
        if seat[5]:
            head += f" backed {_num(seat[5])}"
        if r == 0 and any(fd):
            head += " face-down [" + " ".join(listed(fd)) + "]"
        hands = []
        for h in range(H):
            hb = L.hand(r, h) + shift
            f = v[hb : hb + HAND_FEATURES]
            column = v[r * H + h : end : W]
            status = _STATUS[f.index(max(f[:5]))] if any(f[:5]) else "?"
            if status == "empty" and not any(f[5:]) and not any(column):
                continue
            seen = listed(column, fd if r == 0 else None)  # * marks my face-down cards
            down = int(round(f[6])) - len(seen) if f[7] or r else 0
            shown = " ".join(seen + ["#"] * max(down, 0))
            text = f"h{h} {status} [{shown}] {int(round(f[6]))} cards total {_num(f[8])}"
            if f[7]:
                text += " face-down"
            if f[5]:
                text += f" stake {_num(f[5])}"
            hands.append(text)
        parts.append(head + (": " + "; ".join(hands) if hands else ""))
    back = listed(v[n * H + 1 : end : W])
    if back:
        parts.append("shown back/out: " + " ".join(back))
    if L.shoe:
        seen_shoe = listed(v[n * H + 2 : end : W])
        if seen_shoe:
            parts.append("seen in shoe: " + " ".join(seen_shoe))
    g = L.GLOBAL + shift
    glob = v[g : g + N_PHASES + 2]
    phase = _PHASE[glob.index(max(glob[:N_PHASES]))] if any(glob[:N_PHASES]) else "-"
    parts.append(f"phase {phase} hands done {_num(glob[HANDS_DONE])} cards left {_num(glob[CARDS_LEFT])}")
    return " | ".join(parts)
