"""The punter's side of the exact evaluation: a DAG of card states, walked forward (the
reach of every stood hand under a policy) and backward (the values of its draws, its best
response).

The punter's draws are without replacement from every card it has not seen (the banker's
card among them, which is exact because the deck is exchangeable and the banker has not
acted yet). Arrays: ``bet (n_bet, A)`` and ``draw (n_states, L, 2, A)`` action
probabilities (a stake level and whether a raise is open, per card state); ``W
(n_vu, L, 10)`` the reach of the stood hands (V row, stake level, hidden rank); ``G`` the
punter's values of those stood hands against the banker (``siete_env.solve.banker``).
"""

from __future__ import annotations

import numpy as np

from ..cards import N_CARDS, N_RANKS, N_SUITS
from ..game import HIT_DOWN, HIT_UP, STAND, SWAP_FOUR
from .states import BUSTS, FOUR, NEXT_STATE, STANDS_75, HeadsUpStates

P_FIRST_RANK = N_SUITS / N_CARDS  # the chance of each rank as the punter's first card


def forward(st: HeadsUpStates, bet: np.ndarray, draw: np.ndarray, return_reach: bool = False) -> tuple:
    """Reach of every stood (V, h) under the punter's policy (``(n_vu, L, 10)``) and
    the expected chips lost to busts (per hand). With ``return_reach`` also the reach of
    every decision: ``breach (n_bet,)`` and ``reach (n_states, L, 2)``."""
    Wst = np.zeros((st.n_vu, st.L, N_RANKS))
    reach = np.zeros((st.n_states, st.L, 2))
    bust = 0.0
    stakes = st.stake_vec()
    # BET states: (k, h) with swaps
    b0, b1 = st.layers[0]
    breach = np.zeros(b1 - b0)
    key = st.bet_key()
    for h in range(N_RANKS):
        breach[key[(0, h)]] = P_FIRST_RANK
    for k in range(st.kmax + 1):  # swaps only move k up: in order
        for h in range(N_RANKS):
            i = key.get((k, h))
            if i is None or breach[i] == 0:
                continue
            pr = bet[i]
            reach[b0 + i, :, 0] += breach[i] * pr[st.bet_ids]
            if pr[SWAP_FOUR] > 0:
                pool = st.pool(k + 1, (0,) * N_RANKS)
                n = sum(pool)
                for r in range(N_RANKS):
                    if pool[r]:
                        breach[key[(k + 1, r)]] += breach[i] * pr[SWAP_FOUR] * pool[r] / n
    raise_to = st.raise_to()
    after = st.after_hit_flag()
    for a, b in st.layers:
        R = reach[a:b]
        pol = draw[a:b]
        if st.can_raise:  # raises move reach from (s, open) to (s', closed)
            for si in range(st.L):
                for sj in range(si + 1, st.L):
                    R[:, sj, 0] += R[:, si, 1] * pol[:, si, 1, raise_to[sj]]
        Rs = (R[..., None] * pol).sum(2)  # (n, L, A): reach of each action by stake
        c_vu = st.stand_vu[a:b]
        hd = st.Hd[a:b]
        np.add.at(Wst, (c_vu, slice(None), hd), Rs[:, :, STAND])
        for act, kinds, idx in ((HIT_UP, st.up_kind, st.up_idx), (HIT_DOWN, st.dn_kind, st.dn_idx)):
            flow = Rs[:, :, act]  # (n, L)
            for r in range(N_RANKS):
                p = st.p[a:b, r]
                f = flow * p[:, None]
                kd = kinds[a:b, r]
                sel = kd == NEXT_STATE
                if sel.any():
                    tgt = idx[a:b, r][sel]
                    np.add.at(reach, (tgt[:, None], np.arange(st.L)[None, :], after[None, :]), f[sel])
                sel = kd == STANDS_75
                if sel.any():
                    h2 = hd[sel] if act == HIT_UP else np.full(int(sel.sum()), r)
                    np.add.at(Wst, (idx[a:b, r][sel], slice(None), h2), f[sel])
                sel = kd == BUSTS
                if sel.any():
                    bust -= float((f[sel] * stakes[None, :]).sum())
    if return_reach:
        return Wst, bust, breach, reach
    return Wst, bust


def draw_values(st: HeadsUpStates, a: int, b: int, val: np.ndarray, G: np.ndarray) -> np.ndarray:
    """``(b - a, L, 3)``: the punter's values of STAND, HIT_UP and HIT_DOWN at the card
    states ``a:b`` (one layer), given the values ``val (n_states, L, 2)`` of the later
    layers' decisions and the stood values ``G (n_vu, L, 10)``."""
    n, L = b - a, st.L
    stakes = st.stake_vec()
    after = st.after_hit_flag()
    hd = st.Hd[a:b]
    qs = [G[st.stand_vu[a:b], :, hd]]
    for kinds, idx, up in ((st.up_kind, st.up_idx, True), (st.dn_kind, st.dn_idx, False)):
        q = np.zeros((n, L))
        for r in range(N_RANKS):
            kd = kinds[a:b, r]
            v = np.zeros((n, L))
            sel = kd == NEXT_STATE
            if sel.any():
                v[sel] = val[idx[a:b, r][sel][:, None], np.arange(L)[None, :], after[None, :]]
            sel = kd == STANDS_75
            if sel.any():
                h2 = hd[sel] if up else np.full(int(sel.sum()), r)
                v[sel] = G[idx[a:b, r][sel], :, h2]
            v[kd == BUSTS] = -stakes[None, :]
            q += st.p[a:b, r][:, None] * v
        qs.append(q)
    return np.stack(qs, -1)


def swap_outcomes(st: HeadsUpStates, k: int) -> list[tuple[int, float]]:
    """A swap at ``k`` swaps so far: the BET states ``(k + 1, r)`` it leads to (indices in
    the first layer) and their chances."""
    pool = st.pool(k + 1, (0,) * N_RANKS)
    n = sum(pool)
    key = st.bet_key()
    return [(key[(k + 1, r)], pool[r] / n) for r in range(N_RANKS) if pool[r]]


def best_response(st: HeadsUpStates, G: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The punter's best response to a banker whose stood values are ``G (n_vu, L, 10)``
    (punter's chips). Returns its value and actions: ``bet (n_bet,)``, ``draw (n_states, L, 2)``."""
    val = np.zeros((st.n_states, st.L, 2))
    act = np.zeros((st.n_states, st.L, 2), np.int64)
    for a, b in reversed(st.layers):
        n = b - a
        Q = draw_values(st, a, b, val, G)  # (n, L, 3): STAND, HIT_UP, HIT_DOWN
        best = Q.argmax(-1)
        val[a:b, :, 0] = Q.max(-1)
        act[a:b, :, 0] = np.array([STAND, HIT_UP, HIT_DOWN])[best]
        if st.can_raise:
            v0 = val[a:b, :, 0]
            for si in range(st.L - 1):
                j = si + 1 + v0[:, si + 1 :].argmax(1)
                better = v0[np.arange(n), j] > v0[:, si]
                val[a:b, si, 1] = np.where(better, v0[np.arange(n), j], v0[:, si])
                act[a:b, si, 1] = np.where(better, np.array([st.raise_ids[x] for x in range(1, st.L)])[j - 1],
                                           act[a:b, si, 0])  # fmt: skip
    # BET states, swaps from the top k down
    b0, b1 = st.layers[0]
    key = st.bet_key()
    bval = np.zeros(b1 - b0)
    bact = np.zeros(b1 - b0, np.int64)
    for k in range(st.kmax, -1, -1):
        for h in range(N_RANKS):
            i = key.get((k, h))
            if i is None:
                continue
            c = b0 + i
            opts = {st.bet_ids[si]: val[c, si, 0] for si in range(st.L)}
            if h == FOUR and k < st.kmax:
                sw = sum(p * bval[j] for j, p in swap_outcomes(st, k))
                if st.rules.four_swap == "mandatory":
                    opts = {}
                opts[SWAP_FOUR] = sw
            a_best = max(opts, key=opts.__getitem__)
            bval[i], bact[i] = opts[a_best], a_best
    value = sum(P_FIRST_RANK * bval[key[(0, h)]] for h in range(N_RANKS))
    return float(value), bact, act


__all__ = ["best_response", "draw_values", "forward", "swap_outcomes"]
