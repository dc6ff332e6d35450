"""``ExactEvaluator``: the enumeration of one rule set (``states``) and the policies' tables
over it, read from the policies through the observations the environment would show.

**Suit assumption.** Cards are enumerated by *rank*, not by identity: the evaluator
chooses the suits of the cards in an observation itself. This is exact for policies
that depend on the cards only through their ranks, i.e. functions of
``siete_env.features.fold_suits(obs)`` (the baselines, and the learned policies of
``train.py``, which see folded observations). With ``check_suits=True`` (the default)
every policy call is also made on a few rows with the suits of each rank permuted, and a
``ValueError`` is raised if the probabilities differ.

**Information model.** The punter decides on its own cards (which one is face-down),
its stake, the swapped 4s and the number of cards left: the banker's card is unseen and
nothing the banker does comes before the punter's turn, so this is all it can know. The
banker decides on exactly what its observation holds: its own cards; the punter's
face-up cards (which cards), its number of cards, that it holds one face-down card, its
stake and its status (stood; when it busts the banker does not play); the 4s shown going
back into the deck; the cards left. The observation holds **no order** of the punter's
reveals or draws. The banker's best response is a function of that observation. Because
the punter's policy cannot see the banker's cards, the order in which the banker
received its own cards carries no information, so this observation-based best response
is also the best response of a banker with perfect recall.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..cards import N_CARDS, N_RANKS, N_SUITS
from ..game import HIT_UP, STAND
from ..rules import Rules
from . import banker as banker_side
from . import observations
from . import punter as punter_side
from .policy import BankerSummary, Policy
from .states import HeadsUpStates, check_rules


class ExactEvaluator(HeadsUpStates):
    """The enumeration for one rule set (built once; reuse it for many policy pairs), and
    the tables of policies over it: ``punter_table`` (the punter's action probabilities at
    every punter state) and ``banker_table`` (the banker's probability of hitting at every
    ``(V, M)``). Policies are queried in batches of ``batch_rows`` rows; ``summaries``:
    use a banker's ``banker_hit_probabilities`` where it offers one
    (``siete_env.solve.policy``)."""

    def __init__(self, rules: str | dict[str, Any] | Rules | None = "spanish", batch_rows: int = 262_144,
                 check_suits: bool = True, summaries: bool = True):  # fmt: skip
        super().__init__(rules)
        self.batch_rows = batch_rows
        self.check_suits = check_suits
        self.summaries = summaries
        self._punter_obs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    # ------------------------------------------------------------------ observations
    def punter_observations(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """See ``siete_env.solve.observations.punter_observations``. Built once per
        evaluator (seconds of Python for the spanish game; 180 MB with its five stakes and
        the swap) and kept, read-only, for every policy's ``punter_table``."""
        if self._punter_obs is None:
            arrays = observations.punter_observations(self)
            for a in arrays:
                a.flags.writeable = False
            self._punter_obs = arrays
        return self._punter_obs

    def banker_base(self) -> tuple[np.ndarray, np.ndarray]:
        return observations.banker_base(self)

    def banker_rows(self, base: np.ndarray, vk: np.ndarray, vU: np.ndarray, m_i: int) -> tuple[np.ndarray, np.ndarray]:
        return observations.banker_rows(self, base, vk, vU, m_i)

    def banker_node(self, vk: np.ndarray, vU: np.ndarray, m_i: int,
                    vn: np.ndarray | None = None) -> observations.BankerNode:  # fmt: skip
        """See ``siete_env.solve.observations.banker_node``."""
        return observations.banker_node(self, vk, vU, m_i, vn)

    # ------------------------------------------------------------------ policies
    def query(self, policy: Policy, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``policy.action_probs`` on a batch, checked (shape; suit invariance)."""
        p = np.asarray(policy.action_probs(obs, masks), np.float64)
        if p.shape != masks.shape:
            raise ValueError(f"action_probs returned shape {p.shape}, expected {masks.shape}")
        if self.check_suits and len(obs):
            self._check_suit_invariance(policy, obs, masks, p)
        return p

    def _check_suit_invariance(self, policy: Policy, obs: np.ndarray, masks: np.ndarray, p: np.ndarray) -> None:
        rng = np.random.default_rng(len(obs))
        sel = rng.choice(len(obs), size=min(16, len(obs)), replace=False)
        L = self.layout
        x = obs[sel].copy()
        cards = L.cards(x).reshape(len(sel), N_SUITS, N_RANKS, L.W)  # card c = suit * N_RANKS + rank
        for r in range(N_RANKS):
            cards[:, :, r, :] = cards[:, rng.permutation(N_SUITS), r, :]
        x[..., L.CARDS : L.CARDS + N_CARDS * L.W] = cards.reshape(len(sel), -1)
        q = np.asarray(policy.action_probs(x, masks[sel]), np.float64)
        if not np.allclose(p[sel], q, atol=1e-6):
            raise ValueError(
                "the policy is not suit-invariant (its probabilities change when the suits of a "
                "rank are permuted): the exact evaluator enumerates cards by rank and needs a "
                "policy of the suit-folded observation (siete_env.features.fold_suits); "
                "pass check_suits=False to evaluate it anyway (then the result is not exact)"
            )

    def punter_table(self, punter: Policy) -> tuple[np.ndarray, np.ndarray]:
        """The punter's action probabilities: ``bet (n_bet, A)`` and ``draw (n_states, L, 2, A)``."""
        own = getattr(punter, "exact_punter_table", None)
        tables = own(self) if own is not None else None
        if tables is not None:  # a table over our states: no round trip
            return tables
        obs, masks, bet_row, draw_row = self.punter_observations()
        probs = np.empty((len(obs), self.A))
        for s in range(0, len(obs), self.batch_rows):
            probs[s : s + self.batch_rows] = self.query(
                punter, obs[s : s + self.batch_rows], masks[s : s + self.batch_rows]
            )
        probs *= masks
        bet = probs[bet_row]
        draw = np.zeros((self.n_states, self.L, 2, self.A))
        ok = draw_row >= 0
        draw[ok] = probs[draw_row[ok]]
        return bet, draw

    def banker_table(self, banker: Policy | None) -> np.ndarray:
        """``(n_vu * L, n_M)``: the banker's probability of hitting at every (V, M)."""
        nV = self.n_vu * self.L
        if self.forced:  # hit_below_6: every banker plays the same forced moves
            return np.broadcast_to(self.forced_hit.astype(np.float64), (nV, self.n_M)).copy()
        own = getattr(banker, "exact_banker_table", None)
        table = own(self) if own is not None else None
        if table is not None:  # a table over our states: no round trip
            return np.asarray(table, np.float64)
        summarise = getattr(banker, "banker_hit_probabilities", None) if self.summaries else None
        if summarise is not None:
            hit = summarise(BankerSummary(*observations.banker_summary(self)))
            if hit is not None:
                return np.broadcast_to(np.asarray(hit, np.float64), (nV, self.n_M)).copy()
        return self._banker_table_from_observations(banker)

    def _banker_table_from_observations(self, banker: Policy) -> np.ndarray:
        base, mask1 = self.banker_base()
        nV = len(base)
        vk = np.repeat(self.vu_k, self.L)
        vU = np.repeat(self.vu_U, self.L, axis=0)
        hit = np.zeros((nV, self.n_M))
        pending: list[tuple[int, np.ndarray, np.ndarray]] = []
        size = 0

        def flush() -> None:
            nonlocal pending, size
            if not pending:
                return
            rows = np.concatenate([p[1] for p in pending])
            probs = self.query(banker, rows, np.broadcast_to(mask1, (len(rows), self.A)).copy())
            h = probs[:, HIT_UP] / probs[:, [STAND, HIT_UP]].sum(1)
            at = 0
            for m_i, _, ok in pending:
                n = int(ok.sum())
                hit[ok, m_i] = h[at : at + n]
                at += n
            pending, size = [], 0

        for m_i in range(self.n_M):
            rows, ok = self.banker_rows(base, vk, vU, m_i)
            pending.append((m_i, rows, ok))
            size += len(rows)
            if size >= self.batch_rows:
                flush()
        flush()
        return hit

    # ------------------------------------------------------------------ the passes
    def punter_forward(self, bet: np.ndarray, draw: np.ndarray, return_reach: bool = False) -> tuple:
        """See ``siete_env.solve.punter.forward``."""
        return punter_side.forward(self, bet, draw, return_reach)

    def punter_best(self, G: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """See ``siete_env.solve.punter.best_response``."""
        return punter_side.best_response(self, G)

    def draw_values(self, a: int, b: int, val: np.ndarray, G: np.ndarray) -> np.ndarray:
        return punter_side.draw_values(self, a, b, val, G)

    def banker_pass(self, hit: np.ndarray | None, Wst: np.ndarray | None, chunk: int = banker_side.CHUNK,
                    scale_stakes: bool = True) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:  # fmt: skip
        """``G_pol`` (the punter's stood values against the banker policy ``hit``), ``G_br``
        (against the banker's best response to the punter whose stood reach is ``Wst``),
        both ``(n_vu, L, 10)``, and the best response's hits ``(n_vu * L, n_M)``; ``None``
        for what was not asked (``siete_env.solve.banker``)."""
        G_pol = G_br = br_hit = None
        if hit is not None:
            # with a best response asked too, every stake is computed (as the best response is)
            G_pol = banker_side.policy_values(self, hit, chunk, scale_stakes and Wst is None)
        if Wst is not None:
            rows = np.arange(self.n_vu * self.L) if hit is not None else None
            G_br, br_hit = banker_side.best_response_values(self, Wst, rows, chunk)
        return G_pol, G_br, br_hit

    def banker_reach(self, hit: np.ndarray) -> np.ndarray:
        """See ``siete_env.solve.banker.reach``."""
        return banker_side.reach(self, hit)


_CACHE: dict[str, ExactEvaluator] = {}


def evaluator(rules: str | dict[str, Any] | Rules | None = "spanish") -> ExactEvaluator:
    """The (cached) evaluator for these rules."""
    r = check_rules(rules)
    key = r.model_dump_json()
    ev = _CACHE.get(key)
    if ev is None:
        ev = _CACHE[key] = ExactEvaluator(r)
    return ev


def as_evaluator(rules: Any) -> ExactEvaluator:
    """``rules`` itself if it is an evaluator, else the cached evaluator for those rules."""
    return rules if isinstance(rules, ExactEvaluator) else evaluator(rules)


__all__ = ["ExactEvaluator", "as_evaluator", "evaluator"]
