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
from .game import KEEP, SPLIT


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


class NoSplitView:
    """How a policy trained without splits (``max_splits: 0``: one hand slot per seat)
    sees a table that has them (the ``spanish`` preset): each seat's first hand
    (``Layout.narrowed``); and where a split is offered it keeps the card, never acting on
    an output it was not trained for. A banker facing a punter who split sees that
    punter's first hand only (the other hands' cards count in the cards left)."""

    def __init__(self, layout: Layout):
        self.layout = layout.narrowed(1)
        self.index = layout.gather_index(self.layout)

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """The observation (``(D,)`` or ``(N, D)``) as the no-split table lays it out."""
        return obs[..., self.index]

    @staticmethod
    def keep_figures(probs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``probs`` (``(N, A)``, changed in place) with every row that offers a split set
        to keeping the card."""
        offered = np.asarray(masks)[:, SPLIT] > 0
        probs[offered] = 0.0
        probs[offered, KEEP] = 1.0
        return probs

    @staticmethod
    def offered(mask: np.ndarray) -> bool:
        """Whether one mask offers a split (then the move is ``KEEP``)."""
        return bool(mask[SPLIT])
