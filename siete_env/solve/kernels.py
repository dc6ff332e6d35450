"""Compiled (numba) banker passes: the same computation as the numpy passes of
``siete_env.solve.banker``, one stood punter hand ``V`` per loop iteration, in parallel
over ``V``, without the temporaries.

Each ``V`` row is independent: its banker nodes ``M`` are visited by decreasing total
(children first), ``vals[m, h]`` holding the punter's chips at node ``m`` for each hidden
rank ``h``. Nodes the banker cannot hold beside this ``V`` (more cards of a rank than are
unseen) are skipped. ``banker.py`` calls these kernels, or its numpy passes where numba
is missing or ``SIETE_SOLVE_BACKEND=numpy``; the tests check they agree.

Node codes of ``M_child`` and ``single`` are those of ``siete_env.solve.states``
(``BANKER_75``, ``BANKER_BUST``, ``NO_SUCH_CARD``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..cards import N_CARDS, N_RANKS, N_SUITS
from .states import BANKER_75, BANKER_BUST, BUST, FOUR, LIMIT, NO_SUCH_CARD

# what a pass does at each banker node (the ``mode`` argument of ``banker_pass``)
POLICY = 0  # the banker hits with probability hit[v, m]
BEST_RESPONSE = 1  # the banker best-responds to the punter reach W; decisions into R_hit (0/1)
REGRET = 2  # POLICY, and a (discounted) regret update of R_hit / R_stand from W
FORCED = 3  # the banker plays forced_hit[m]; decisions into R_hit (0/1)
INSTANT_REGRET = 4  # POLICY, and the instantaneous regrets into R_hit / R_stand

_UNSEEN = N_CARDS - 1  # cards the banker does not see before the punter's face-up ones


@nb.njit(cache=True, inline="always")
def _draw(C, den, fixed, kids, vals, lose75, win, out):  # pragma: no cover - compiled
    """``out[h]``: the punter's chips, per hidden rank ``h``, when the banker draws: ``C``
    unseen cards by rank (the hidden one not yet taken out), ``den`` unseen cards (it
    taken out), ``fixed``: the next card is a swapped 4; ``kids`` the node after each rank."""
    if fixed:
        kid = kids[FOUR]
        for h in range(N_RANKS):
            if kid == BANKER_75:
                out[h] = lose75[h]
            elif kid == BANKER_BUST:
                out[h] = win[h]
            elif kid == NO_SUCH_CARD:
                out[h] = 0.0
            else:
                out[h] = vals[kid, h]
        return
    for h in range(N_RANKS):
        out[h] = 0.0
    for r in range(N_RANKS):
        c = C[r]
        kid = kids[r]
        if c <= 0 or kid == NO_SUCH_CARD:
            continue
        if kid == BANKER_75:
            row = lose75
        elif kid == BANKER_BUST:
            row = win
        else:
            row = vals[kid]
        for h in range(N_RANKS):
            out[h] += c * row[h]
        out[r] -= row[r]  # hidden rank r: one card of that rank fewer
    inv = 1.0 / (den if den > 1 else 1)
    for h in range(N_RANKS):
        out[h] *= inv


@nb.njit(cache=True, parallel=True)
def banker_pass(vk, vU, stake, M, M_tot, M_n, M_child, single, fixed_at, val, pay,
                hit, W, forced_hit, mode, R_hit, R_stand, pos_disc, neg_disc, plus):  # fmt: skip  # pragma: no cover
    """One backward pass over the banker's multisets for every ``V`` row; returns the
    punter's chips ``G (nV, 10)`` of its stood hands (per hidden rank).

    ``vk (nV,)`` swapped 4s, ``vU (nV, 10)`` face-up ranks, ``stake (nV,)``; the tree
    ``M, M_tot, M_n, M_child, single``; ``fixed_at`` the deck place of the first swapped 4;
    ``val`` rank values (half points); ``pay`` the payout table ``[punter, banker]`` total
    (``BUST`` for over 7½) per chip staked. ``mode``: see the constants above; ``W (nV, 10)``
    the punter's stood reach (BEST_RESPONSE, REGRET, INSTANT_REGRET); REGRET multiplies
    positive regrets by ``pos_disc``, negative ones by ``neg_disc`` and (``plus``) floors
    them at 0 (CFR+: 1, 1, True)."""
    nV = vk.shape[0]
    nM = M.shape[0]
    G = np.zeros((nV, N_RANKS))
    for v in nb.prange(nV):
        vals = np.zeros((nM, N_RANKS))
        A = np.empty(N_RANKS)
        C = np.empty(N_RANKS)
        P = np.empty(N_RANKS, np.int64)
        win = np.empty(N_RANKS)
        lose75 = np.empty(N_RANKS)
        cp = np.empty(N_RANKS)
        sv = np.empty(N_RANKS)
        k = vk[v]
        vn = 0
        base = 0
        for r in range(N_RANKS):
            vn += vU[v, r]
            base += vU[v, r] * val[r]
            A[r] = N_SUITS - vU[v, r]
        A[FOUR] -= k
        den0 = _UNSEEN - vn - k
        st = stake[v]
        for h in range(N_RANKS):
            P[h] = min(base + val[h], BUST)
            win[h] = st * pay[P[h], BUST]
            lose75[h] = st * pay[P[h], LIMIT]
        for m in range(nM):
            fd = min(max(1 + k + vn + M_n[m] - fixed_at, 0), k)  # swapped 4s drawn
            possible = True
            for r in range(N_RANKS):
                C[r] = A[r] - M[m, r]
            C[FOUR] += fd
            for r in range(N_RANKS):
                if C[r] < 0:
                    possible = False
            if not possible:
                continue
            nxt = 1 + k + vn + M_n[m]
            fixed = nxt >= fixed_at and nxt < fixed_at + k
            _draw(C, den0 - (M_n[m] - fd), fixed, M_child[m], vals, lose75, win, cp)
            mt = M_tot[m]
            for h in range(N_RANKS):
                sv[h] = st * pay[P[h], mt]
            if mode == BEST_RESPONSE or mode == FORCED:
                if mode == FORCED:
                    do_hit = forced_hit[m]
                else:
                    eh = 0.0
                    es = 0.0
                    for h in range(N_RANKS):
                        p = W[v, h] * (C[h] if C[h] > 0 else 0.0) / (A[h] if A[h] > 1 else 1.0)
                        eh += p * cp[h]
                        es += p * sv[h]
                    do_hit = eh < es
                R_hit[v, m] = 1.0 if do_hit else 0.0
                for h in range(N_RANKS):
                    vals[m, h] = cp[h] if do_hit else sv[h]
                continue
            s = hit[v, m]
            for h in range(N_RANKS):
                vals[m, h] = s * cp[h] + (1.0 - s) * sv[h]
            if mode == POLICY:
                continue
            uh = 0.0  # the banker's chips (the punter's, negated), weighted by its posterior
            us = 0.0
            for h in range(N_RANKS):
                p = W[v, h] * (C[h] if C[h] > 0 else 0.0) / (A[h] if A[h] > 1 else 1.0)
                uh -= p * cp[h]
                us -= p * sv[h]
            u = s * uh + (1.0 - s) * us
            if mode == INSTANT_REGRET:
                R_hit[v, m] = uh - u
                R_stand[v, m] = us - u
                continue
            rh = R_hit[v, m]
            rs = R_stand[v, m]
            rh = rh * (pos_disc if rh > 0 else neg_disc) + uh - u
            rs = rs * (pos_disc if rs > 0 else neg_disc) + us - u
            if plus:
                rh = max(rh, 0.0)
                rs = max(rs, 0.0)
            R_hit[v, m] = rh
            R_stand[v, m] = rs
        _draw(A, den0, False, single, vals, lose75, win, cp)
        for h in range(N_RANKS):
            G[v, h] = cp[h]
    return G


@nb.njit(cache=True, parallel=True)
def banker_reach(vk, vn, hit, M_n, M_child, single, fixed_at, out):  # pragma: no cover - compiled
    """``out (nV, n_M)``: the banker's own reach of every ``(V, M)`` under ``hit``
    (products of its hit probabilities along the way, summed over the orders of ``M``)."""
    nV = vk.shape[0]
    nM = hit.shape[1]
    for v in nb.prange(nV):
        x = out[v]
        for i in range(nM):
            x[i] = 0.0
        for r in range(N_RANKS):
            if single[r] >= 0:
                x[single[r]] = 1.0
        k = vk[v]
        for i in range(nM - 1, -1, -1):  # increasing total: parents first
            xi = x[i] * hit[v, i]
            if xi == 0.0:
                continue
            nxt = 1 + k + vn[v] + M_n[i]
            free = not (nxt >= fixed_at and nxt < fixed_at + k)  # else a swapped 4 comes
            for r in range(N_RANKS):
                c = M_child[i, r]
                if c >= 0 and (r == FOUR or free):
                    x[c] += xi


__all__ = ["BEST_RESPONSE", "FORCED", "INSTANT_REGRET", "POLICY", "REGRET", "banker_pass", "banker_reach"]
