"""What an exact evaluation returns (chips per hand, the punter's unless said)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np


class NashConv(NamedTuple):
    """Chips per hand. ``ev`` and ``punter_br_value`` are the punter's; ``banker_br_value``
    is the banker's own gain with its best response (``-ev`` if the banker is already best)."""

    ev: float
    punter_br_value: float
    banker_br_value: float
    nash_conv: float  # (punter_br_value - ev) + (banker_br_value + ev), >= 0
    exploitability: float  # nash_conv / 2

    @classmethod
    def of(cls, ev: float, punter_br_value: float, banker_br_value: float) -> NashConv:
        nc = (punter_br_value - ev) + (banker_br_value + ev)
        return cls(ev, punter_br_value, banker_br_value, nc, nc / 2)


@dataclass
class BestResponse:
    """The exact best response of one side (``side``: ``"punter"`` or ``"banker"``)
    against a fixed opponent. ``value`` is the best responder's own expected chips per
    hand (the opponent's is ``-value``). ``policy`` plays the best response (an object
    with ``action_probs`` and ``__call__(obs_dict)``; deterministic)."""

    side: str
    value: float
    policy: Any


class PairEvaluation(NamedTuple):
    """Everything one exact pass over a policy pair computes (``evaluate_pair``)."""

    result: NashConv
    W: np.ndarray  # the punter's stood reach (n_vu, L, 10)
    bust: float  # the punter's expected chips lost to busts
    G: np.ndarray  # the punter's stood values against the banker (n_vu, L, 10)
    hit: np.ndarray  # the banker's hitting probabilities (n_vu * L, n_M)
    br_hit: np.ndarray  # the banker's best response to the punter (where the punter stands)
    br_bet: np.ndarray  # the punter's best response to the banker: actions at the BET states
    br_draw: np.ndarray  # ... and at the draw states
    bet: np.ndarray | None = None  # the punter's action probabilities at the BET states
    draw: np.ndarray | None = None  # ... and at the draw states


__all__ = ["BestResponse", "NashConv", "PairEvaluation"]
