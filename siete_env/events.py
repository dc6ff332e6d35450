"""The event log the kernels write (``batched.kernels._ev``) read back as ``game.EV_*`` tuples.

A one-table engine sizes its row's event area (``BatchedTables(..., events=EVENT_AREA)``),
empties it before an action (``clear``) and reads what the action did after it (``read``):
the same tuples, in the same order, as the reference engine's ``Game.events``
(``tests/batched_differential.py`` compares them on every preset).
"""

from __future__ import annotations

import numpy as np

from .batched import kernels as K
from .game import (
    EV_DEAL,
    EV_NEW_HAND,
    EV_RETURN,
)

EVENT_AREA = 16384
"""``int16`` entries of a one-table row's event log: far above what one action writes (a
session's last settlement at 12 seats, every hand split, then the next hand's deal)."""


def clear(row: np.ndarray) -> None:
    """Empty the row's event log (before an action)."""
    row[K.EVN] = 0


def raw(row: np.ndarray, cfg: np.ndarray) -> list[int]:
    """The entries logged in ``row`` since ``clear`` (``decode`` reads them)."""
    size = int(row[K.EVN])
    if size < 0:
        raise RuntimeError(
            f"the event log of this table overflowed its {int(cfg[K.K_EVCAP])} entries in one action "
            "(siete_env.events.EVENT_AREA is too small for these rules)"
        )
    o = int(cfg[K.O_EV])
    return row[o : o + size].tolist()


def read(row: np.ndarray, cfg: np.ndarray) -> list[tuple]:
    """The events logged in ``row`` since ``clear``, as ``game.EV_*`` tuples."""
    return decode(raw(row, cfg), int(cfg[K.K_N]))


def decode(vals: list[int], n: int) -> list[tuple]:
    """Logged entries (``raw``) of a table of ``n`` seats as ``game.EV_*`` tuples."""
    out: list[tuple] = []
    size = len(vals)
    i = 0
    while i < size:
        kind, m = vals[i], vals[i + 1]
        f = vals[i + 2 : i + 2 + m]
        i += 2 + m
        if kind == EV_NEW_HAND:
            b, done, left = f[0], f[1], f[2]
            chips = tuple(f[3 : 3 + n])
            j = 3 + n
            seen = tuple(f[j + 1 : j + 1 + f[j]])
            j += 1 + f[j]
            outs = tuple(f[j + 1 : j + 1 + f[j]])
            out.append((EV_NEW_HAND, b, done, chips, left, seen, outs))
        elif kind == EV_DEAL:
            out.append((EV_DEAL, f[0], f[1], f[2], bool(f[3])))
        elif kind == EV_RETURN:
            out.append((EV_RETURN, f[0], f[1], bool(f[2]), bool(f[3]), f[4]))
        else:
            out.append((kind, *f))
    return out
