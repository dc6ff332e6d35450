"""Readable strings of observation vectors (no pyspiel here).

``describe(obs, layout, folded, deck)`` writes one observation vector of the encoder (raw or
suit-folded, ``siete_env.features``) as text. It reads nothing but the vector, so the text
can never say more than the observation does, and it writes every non-zero entry, so two
different observations never give the same text (the OpenSpiel game's observation and
information-state strings are built from it).
"""

from __future__ import annotations

import numpy as np

from ..cards import N_CARDS, RANK, card_label
from ..encoding import CARDS_LEFT, HAND_FEATURES, HANDS_DONE, N_PHASES, SEAT_FEATURES, Layout
from ..game import Phase, Status

N_RANKS = 10
_STATUS = [s.name.lower() for s in Status]
_PHASE = [p.name.lower() for p in Phase]


def _num(x: float) -> str:
    """``5.5 -> "5½"``, ``3.0 -> "3"``, ``-2.0 -> "-2"``."""
    whole = int(np.floor(x))
    return f"{whole}½" if x - whole == 0.5 else (str(int(x)) if x == int(x) else repr(float(x)))


def rank_label(r: int, deck: str) -> str:
    """The label of rank index ``r`` (0..9) without a suit: ``"7"``, ``"12"``, ``"Q"``."""
    label = card_label(r, deck)  # card r is rank index r of the first suit
    return label[:-1] if deck != "spanish" else str(RANK[r])


def describe(obs: np.ndarray, layout: Layout, folded: bool, deck: str = "spanish") -> str:
    """The observation as text: every seat (relative to the observer, ``me`` first) with its
    hands, then the cards shown leaving the hands, the phase and the counters."""
    L = layout
    W, n, H = L.W, L.n, L.H
    rows = N_RANKS if folded else N_CARDS
    cards = np.asarray(obs[: rows * W]).reshape(rows, W)
    names = [rank_label(r, deck) for r in range(N_RANKS)] if folded else [card_label(c, deck) for c in range(N_CARDS)]
    hand_base = rows * W  # the folded layout shifts every block after the cards
    shift = hand_base - L.HANDS
    fd = cards[:, n * H]

    def listed(column: np.ndarray, mark: np.ndarray | None = None) -> list[str]:
        out = []
        for i in np.flatnonzero(column):
            k = int(round(column[i]))
            hidden = 0 if mark is None else int(round(mark[i]))
            out += [names[i] + "*"] * min(hidden, k) + [names[i]] * (k - min(hidden, k))
        return out

    parts = []
    for r in range(n):
        sb = L.seat(r) + shift
        seat = obs[sb : sb + SEAT_FEATURES]
        who = "me" if r == 0 else f"+{r}"
        role = "banker" if seat[0] else "punter"
        head = f"{who} {role}" + (" acting" if seat[1] else "") + f" chips {_num(seat[2])}"
        if seat[3]:
            head += " announced"
        if seat[4]:
            head += f" bid {_num(seat[4])}"
        if seat[5]:
            head += f" backed {_num(seat[5])}"
        if r == 0 and fd.any():
            head += " face-down [" + " ".join(listed(fd)) + "]"
        hands = []
        for h in range(H):
            hb = L.hand(r, h) + shift
            f = obs[hb : hb + HAND_FEATURES]
            status = _STATUS[int(np.argmax(f[:5]))] if f[:5].any() else "?"
            if status == "empty" and not f[5:].any() and not cards[:, r * H + h].any():
                continue
            seen = listed(cards[:, r * H + h], fd if r == 0 else None)  # * marks my face-down cards
            down = int(round(f[6])) - len(seen) if f[7] or r else 0
            shown = " ".join(seen + ["#"] * max(down, 0))
            text = f"h{h} {status} [{shown}] {int(round(f[6]))} cards total {_num(f[8])}"
            if f[7]:
                text += " face-down"
            if f[5]:
                text += f" stake {_num(f[5])}"
            hands.append(text)
        parts.append(head + (": " + "; ".join(hands) if hands else ""))
    back = listed(cards[:, n * H + 1])
    if back:
        parts.append("shown back/out: " + " ".join(back))
    if L.shoe:
        seen_shoe = listed(cards[:, n * H + 2])
        if seen_shoe:
            parts.append("seen in shoe: " + " ".join(seen_shoe))
    g = L.GLOBAL + shift
    glob = obs[g : g + N_PHASES + 2]
    phase = _PHASE[int(np.argmax(glob[:N_PHASES]))] if glob[:N_PHASES].any() else "-"
    parts.append(f"phase {phase} hands done {_num(glob[HANDS_DONE])} cards left {_num(glob[CARDS_LEFT])}")
    return " | ".join(parts)
