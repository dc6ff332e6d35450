"""Derived observation features (pure functions of an observation, never of hidden state).

``fold_suits`` sums the 40 per-card rows of the cards block into 10 per-rank rows. Under
rules in which suits play no part (no wild card, no reale, no suit-ranked bank passing)
nothing a player could use is lost, and a policy of the folded observation is the same
for every suit assignment: the heads-up exact evaluator (``siete_env.solve``) enumerates
cards by rank, so such a policy is evaluated exactly. The learned policies of
``train.py`` see folded observations.
"""

from __future__ import annotations

import numpy as np

from .cards import N_CARDS, N_RANKS, N_SUITS
from .encoding import Layout


def folded_size(layout: Layout) -> int:
    """Length of a folded observation."""
    return layout.size - (N_CARDS - N_RANKS) * layout.W


def fold_suits(obs: np.ndarray, layout: Layout) -> np.ndarray:
    """Fold one observation (``(D,)``) or a batch (``(N, D)``): card ``c = suit*10 + r``
    becomes rank row ``r``; every other entry is kept as it is."""
    W, cards = layout.W, layout.HANDS  # the cards block comes first, the hands block after it
    assert layout.CARDS == 0
    if obs.ndim == 1:
        folded = obs[:cards].reshape(N_SUITS, N_RANKS * W).sum(axis=0)
        return np.concatenate((folded, obs[cards:])).astype(np.float32, copy=False)
    n = obs.shape[0]
    folded = obs[:, :cards].reshape(n, N_SUITS, N_RANKS * W).sum(axis=1)
    return np.concatenate((folded, obs[:, cards:]), axis=1).astype(np.float32, copy=False)


def suits_matter(rules) -> bool:
    """Whether these rules ever look at a card's suit."""
    return rules.wild_card is not None or rules.reale_pays is not None or rules.bank_passes == "reale"
