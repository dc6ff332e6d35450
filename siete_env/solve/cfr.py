"""A reference equilibrium of heads-up Siete y Media by CFR+ or discounted CFR.

Two regret-minimisation schemes run on the game as the exact evaluator enumerates it, for
the rule sets it covers (heads-up ``spanish`` without splits; single stake, bet levels and
raises, four-swap):

* ``method="cfr+"``: CFR+ (Tammelin 2014): regret matching+ (regrets floored at 0),
  alternating updates, the average strategy weighted by ``t``;
* ``method="dcfr"`` (the default of ``solve``): discounted CFR (Brown & Sandholm 2019,
  DCFR with alpha=1.5, beta=0, gamma=2): before each update positive regrets are
  multiplied by ``t^1.5 / (t^1.5 + 1)`` and negative ones by 1/2, and the average strategy
  is weighted by ``t^2``. On this game it reaches a given NashConv in a fraction of
  CFR+'s iterations (docs/exact.md).

The two sides are:

* **punter information sets**: the evaluator's punter states: swapped 4s ``k``, hidden
  rank ``h``, face-up rank counts ``U``, stake level and whether a raise is open (plus
  the BET states ``(k, h)``);
* **banker information sets**: ``(V, M)``: what the banker sees of the stood punter hand
  (``V``: its face-up ranks, swapped 4s and stake) and the banker's own rank multiset ``M``.

**The abstraction** (what is identified, and why it loses nothing): cards are reduced to
their ranks (suits never matter to a payoff; the solution is a policy of the suit-folded
observation) and the order in which cards arrived is forgotten (the environment's
observations do not hold it). Given the opponent's policy each side's problem is Markov in
these states: the future of a punter state does not depend on how it was reached, and all
orderings of the same cards have the same chance probability when dealing without
replacement (the swapped 4s' fixed deck places lie beyond any reachable hand). So the
regret of a state is the same, up to a positive factor fixed across iterations, on every
path that reaches it, and CFR+ on the merged states plays what it would play on the
unmerged game tree. The average strategy is weighted by each side's own reach (the
punter's occupancy, which is its own reach times a chance factor that is the same every
iteration; the banker's own reach summed over the orders of ``M``), which makes it play
as the mixture of the iterates does. The result is measured, not assumed: ``solve``
reports the exact NashConv of the average strategy in the full game.

Usage::

    from siete_env.solve import cfr, load_tables
    sol = cfr.solve({"preset": "spanish", "bet_levels": [1], "four_swap": "off",
                     "max_splits": 0}, iterations=200)
    sol.nash_conv            # exact NashConv of the average strategy, chips per hand
    sol.punter, sol.banker   # table policies (action_probs / __call__) for evaluate / play
    sol.agent(env)           # plays either seat (samples); agent spec "cfr:eq.npz"
    sol.save("eq.npz"); load_tables("eq.npz")

or ``python evaluate.py --solve eq.npz --iterations 200 --rule bet_levels=[1] --rule
four_swap=off --rule max_splits=0``. How long it takes and how close it gets: see
docs/results.md. With ``banker_policy_rule: hit_below_6`` the banker has no decision and
CFR+ solves the punter's side only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..cards import N_RANKS
from ..game import HIT_DOWN, HIT_UP, STAND, SWAP_FOUR
from . import banker as banker_side
from .evaluator import as_evaluator
from .exact import nash_conv
from .observations import punter_masks
from .punter import P_FIRST_RANK, draw_values, swap_outcomes
from .results import NashConv
from .tables import CFRSolution, TabularBankerPolicy, TabularPunterPolicy

__all__ = ["METHODS", "CFRPlus", "solve"]

METHODS = ("cfr+", "dcfr")


def _matching(R: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Regret matching over the last axis: positive regrets normalised; uniform over the
    legal actions where none is positive."""
    pos = np.where(mask, np.maximum(R, 0.0), 0.0)
    s = pos.sum(-1, keepdims=True)
    uni = mask / np.maximum(mask.sum(-1, keepdims=True), 1)
    return np.where(s > 0, pos / np.where(s > 0, s, 1.0), uni)


class CFRPlus:
    """CFR+ (``method="cfr+"``) or DCFR (``"dcfr"``; ``alpha``, ``beta``, ``gamma``) on the
    exact evaluator's states (see the module docstring)."""

    def __init__(self, rules: Any = None, chunk: int = banker_side.CHUNK, method: str = "cfr+",
                 alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0):  # fmt: skip
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}: one of {METHODS}")
        self.method, self.alpha, self.beta, self.gamma = method, alpha, beta, gamma
        self.ev = ev = as_evaluator(rules if rules is not None else {"preset": "spanish", "max_splits": 0})
        self.chunk = chunk
        A, L = ev.A, ev.L
        b0, b1 = ev.layers[0]
        self.n_bet = b1 - b0
        self.bet_key = ev.bet_key()
        self.bet_mask, self.draw_mask = punter_masks(ev)  # the legal actions, from the engine
        nV = ev.n_vu * L
        self.R_bet = np.zeros((self.n_bet, A))
        self.R_draw = np.zeros((ev.n_states, L, 2, A))
        self.R_hit = np.zeros((nV, ev.n_M))
        self.R_stand = np.zeros((nV, ev.n_M))
        self.bet = _matching(self.R_bet, self.bet_mask)
        self.draw = _matching(self.R_draw, self.draw_mask)
        self.hit = np.full((nV, ev.n_M), 0.5)
        if ev.forced:  # hit_below_6: the banker has no decision
            self.hit = ev.banker_table(None)
        self.S_bet = np.zeros_like(self.R_bet)
        self.S_draw = np.zeros_like(self.R_draw)
        self.S_hit = np.zeros((nV, ev.n_M))
        self.S_reach = np.zeros((nV, ev.n_M))
        self.t = 0
        self._G_forced: np.ndarray | None = None
        # the swap transition: (k, h) -> probabilities over the BET states with k + 1
        self._swap_to: dict[int, list[tuple[int, float]]] = {
            i: swap_outcomes(ev, k) for (k, _h), i in self.bet_key.items() if self.bet_mask[i, SWAP_FOUR]
        }

    # ------------------------------------------------------------------ punter
    def punter_values(self, G: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """Action values of every punter decision against the banker whose stood values
        are ``G (n_vu, L, 10)``, the punter playing its current strategy afterwards:
        ``Q_bet (n_bet, A)``, ``Q_draw (n_states, L, 2, A)`` and the punter's value."""
        ev = self.ev
        L, A = ev.L, ev.A
        val = np.zeros((ev.n_states, L, 2))
        Q = np.zeros((ev.n_states, L, 2, A))
        for a, b in reversed(ev.layers):
            Q3 = draw_values(ev, a, b, val, G)  # (n, L, 3)
            Q[a:b, :, :, STAND] = Q3[:, :, None, 0]
            Q[a:b, :, :, HIT_UP] = Q3[:, :, None, 1]
            Q[a:b, :, :, HIT_DOWN] = Q3[:, :, None, 2]
            val[a:b, :, 0] = (self.draw[a:b, :, 0] * Q[a:b, :, 0]).sum(-1)
            if ev.can_raise:
                for si in range(L - 1):
                    for j in range(si + 1, L):
                        Q[a:b, si, 1, ev.raise_ids[j]] = val[a:b, j, 0]
                val[a:b, :, 1] = (self.draw[a:b, :, 1] * Q[a:b, :, 1]).sum(-1)
        b0 = ev.layers[0][0]
        Q_bet = np.zeros((self.n_bet, A))
        bval = np.zeros(self.n_bet)
        for k in range(ev.kmax, -1, -1):  # a swap moves k up: from the top down
            for h in range(N_RANKS):
                i = self.bet_key.get((k, h))
                if i is None:
                    continue
                Q_bet[i, ev.bet_ids] = val[b0 + i, :, 0]
                if i in self._swap_to:
                    Q_bet[i, SWAP_FOUR] = sum(p * bval[j] for j, p in self._swap_to[i])
                bval[i] = (self.bet[i] * Q_bet[i]).sum()
        value = sum(P_FIRST_RANK * bval[self.bet_key[(0, h)]] for h in range(N_RANKS))
        return Q_bet, Q, float(value)

    def discounts(self) -> tuple[float, float, bool]:
        """This iteration's ``(positive, negative, floor)``: the factors the old regrets are
        multiplied by where positive / negative, and whether they are floored at 0."""
        if self.method == "dcfr":
            ta, tb = float(self.t) ** self.alpha, float(self.t) ** self.beta
            return ta / (ta + 1), tb / (tb + 1), False
        return 1.0, 1.0, True

    def weight(self) -> float:
        """The weight of this iteration's strategies in the average (``t``, DCFR ``t^gamma``)."""
        return float(self.t) ** (self.gamma if self.method == "dcfr" else 1.0)

    def _update_punter(self, G: np.ndarray) -> None:
        Q_bet, Q_draw, _ = self.punter_values(G)
        v_bet = (self.bet * Q_bet).sum(-1, keepdims=True)
        v_draw = (self.draw * Q_draw).sum(-1, keepdims=True)
        pos, neg, floor = self.discounts()

        def update(R: np.ndarray, r: np.ndarray, mask: np.ndarray) -> np.ndarray:
            R = np.where(R > 0, R * pos, R * neg) + r
            return np.where(mask, np.maximum(R, 0.0) if floor else R, 0.0)

        self.R_bet = update(self.R_bet, Q_bet - v_bet, self.bet_mask)
        self.R_draw = update(self.R_draw, Q_draw - v_draw, self.draw_mask)
        self.bet = _matching(self.R_bet, self.bet_mask)
        self.draw = _matching(self.R_draw, self.draw_mask)

    def _accumulate_punter(self, w: float) -> np.ndarray:
        """Add the current punter strategy to the average; returns its stood reach ``Wst``."""
        Wst, _, breach, reach = self.ev.punter_forward(self.bet, self.draw, return_reach=True)
        self.S_bet += w * breach[:, None] * self.bet
        self.S_draw += w * reach[..., None] * self.draw
        return Wst

    # ------------------------------------------------------------------ banker
    def banker_pass(self, Wst: np.ndarray | None, update: bool) -> np.ndarray:
        """One backward pass over the banker's multisets with its current strategy: the
        punter's stood values ``G (n_vu, L, 10)`` against it, and (``update``) the banker's
        regret update from the punter reach ``Wst`` (``siete_env.solve.banker.regret_update``)
        and its new strategy (regret matching)."""
        ev = self.ev
        if not update:
            return banker_side.policy_values(ev, self.hit, self.chunk, scale_stakes=False)
        assert Wst is not None
        pos, neg, floor = self.discounts()
        G = banker_side.regret_update(ev, self.hit, Wst, self.R_hit, self.R_stand, self.chunk, pos, neg, floor)
        if not ev.forced:
            a, b = np.maximum(self.R_hit, 0.0), np.maximum(self.R_stand, 0.0)
            tot = a + b
            self.hit = np.where(tot > 0, a / np.where(tot > 0, tot, 1.0), 0.5)
        return G

    def banker_reach(self) -> np.ndarray:
        """The banker's own reach of every (V, M) (its hit probabilities along the way,
        summed over the orders of M)."""
        return self.ev.banker_reach(self.hit)

    def _accumulate_banker(self, w: float) -> None:
        x = self.banker_reach()
        self.S_hit += w * x * self.hit
        self.S_reach += w * x

    # ------------------------------------------------------------------ driver
    def iterate(self) -> None:
        """One iteration: the punter's update against the current banker, then the
        banker's against the updated punter (alternating); each strategy joins the average
        with weight ``weight()`` (the banker's before its update: the one the punter just met)."""
        self.t += 1
        w = self.weight()
        if self._G_forced is None or not self.ev.forced:
            G = self.banker_pass(None, update=False)
            if self.ev.forced:  # the banker never changes: its values neither
                self._G_forced = G
        self._update_punter(self._G_forced if self.ev.forced else G)
        Wst = self._accumulate_punter(w)
        self._accumulate_banker(w)  # the banker strategy this punter was updated against
        if not self.ev.forced:
            self.banker_pass(Wst, update=True)

    def average(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The average strategy (where a state was never reached: the current one)."""

        def norm(S: np.ndarray, cur: np.ndarray) -> np.ndarray:
            s = S.sum(-1, keepdims=True)
            return np.where(s > 0, S / np.where(s > 0, s, 1.0), cur)

        hit = np.where(self.S_reach > 0, self.S_hit / np.where(self.S_reach > 0, self.S_reach, 1.0), self.hit)
        return norm(self.S_bet, self.bet), norm(self.S_draw, self.draw), hit

    def measure(self, average: bool = True) -> NashConv:
        bet, draw, hit = self.average() if average else (self.bet, self.draw, self.hit)
        return nash_conv(TabularPunterPolicy(self.ev, bet, draw), TabularBankerPolicy(self.ev, hit), self.ev)


def solve(rules: Any = None, iterations: int = 200, every: int = 0,
          progress: Callable[[int, float, float], None] | None = None, method: str = "dcfr") -> CFRSolution:  # fmt: skip
    """Run ``method`` (``"dcfr"`` or ``"cfr+"``) for ``iterations`` and measure the average
    strategy's exact NashConv (also every ``every`` iterations, into
    ``CFRSolution.history``, reported to ``progress``)."""
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations}")
    cfr = CFRPlus(rules, method=method)
    history: list[tuple[int, float, float]] = []
    t0 = time.perf_counter()
    for it in range(1, iterations + 1):
        cfr.iterate()
        if (every and it % every == 0) or it == iterations:
            nc = cfr.measure()
            history.append((it, time.perf_counter() - t0, nc.nash_conv))
            if progress is not None:
                progress(it, time.perf_counter() - t0, nc.nash_conv)
    bet, draw, hit = cfr.average()
    rules_json = cfr.ev.rules.model_dump(mode="json")
    return CFRSolution(rules_json, bet, draw, hit, nc, cfr.ev, iterations=iterations, history=history)
