"""The banker's side of the exact evaluation: backward passes over the banker's card
multisets ``M`` (``HeadsUpStates.M``, by decreasing total), vectorised over every stood
punter hand ``(V, h)``.

The banker draws without replacement from the cards it does not see (the punter's hidden
card excluded, per ``h``), the swapped 4s at their known deck places. Each mode of the
pass is one function, over chunks of V rows:

* ``policy_values``: the punter's values of its stood hands against a banker policy
  (its probabilities of hitting ``hit (n_V, n_M)``);
* ``best_response_values``: the same against the banker's best response to a punter
  whose stood reach is ``W``, and that best response: at ``(V, M)`` the banker weighs
  each hidden rank ``h`` by its reach times the probability of the banker's cards given
  ``h`` (``posterior``);
* ``regret_update``: CFR+'s banker update (regret matching+ from the punter's reach) and
  the values against the banker's current strategy;
* ``reach``: the banker's own reach of every ``(V, M)`` under ``hit`` (a forward pass).

Values are the punter's chips (the banker's are the negative), arrays ``(n_vu, L, 10)``.

Two implementations compute each pass: compiled numba kernels (``siete_env.solve.kernels``,
one V row per loop iteration, in parallel; the default) and the numpy passes below,
vectorised over chunks of V rows (where numba is missing, or with the environment variable
``SIETE_SOLVE_BACKEND=numpy``, or ``backend="numpy"``). They agree to rounding (tested).
"""

from __future__ import annotations

import os
import weakref
from typing import Literal, NamedTuple

import numpy as np

from .. import firstuse
from ..cards import N_CARDS, N_RANKS, N_SUITS
from .states import BANKER_75, BANKER_BUST, BUST, FOUR, LIMIT, MAX_DECIDING, NO_SUCH_CARD, VAL, HeadsUpStates

CHUNK = 8192  # V rows per chunk

try:
    from . import kernels
except ImportError:  # pragma: no cover - numba is a dependency; the numpy passes stand in
    kernels = None  # type: ignore[assignment]

Backend = Literal["numba", "numpy"]
BACKENDS: tuple[str, ...] = ("numba", "numpy")


def default_backend() -> Backend:
    """``numba`` where it is installed, unless ``SIETE_SOLVE_BACKEND=numpy``."""
    want = os.environ.get("SIETE_SOLVE_BACKEND", "numba")
    if want not in BACKENDS:
        raise ValueError(f"SIETE_SOLVE_BACKEND must be one of {BACKENDS}, got {want!r}")
    return "numba" if want == "numba" and kernels is not None else "numpy"


def _backend(backend: Backend | None) -> Backend:
    if backend is None:
        return default_backend()
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "numba" and kernels is None:
        raise ValueError("backend 'numba' needs numba installed (pip install numba)")
    return backend


class KernelArgs(NamedTuple):
    """The per-V arrays and the banker tree, as the kernels take them."""

    vk: np.ndarray  # (nV,) swapped 4s
    vU: np.ndarray  # (nV, 10) face-up ranks
    vn: np.ndarray  # (nV,) face-up cards
    stake: np.ndarray  # (nV,)
    tree: tuple  # M, M_tot, M_n, M_child, single, fixed_at, VAL, payout


_KERNEL_ARGS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def kernel_args(st: HeadsUpStates) -> KernelArgs:
    """The kernels' arguments for these states (built once per ``HeadsUpStates``)."""
    a = _KERNEL_ARGS.get(st)
    if a is None:
        vU = np.ascontiguousarray(np.repeat(st.vu_U, st.L, axis=0), np.int64)
        tree = (
            np.ascontiguousarray(st.M, np.int64),
            np.ascontiguousarray(st.M_tot, np.int64),
            np.ascontiguousarray(st.M_n, np.int64),
            np.ascontiguousarray(st.M_child, np.int64),
            np.ascontiguousarray(st.single, np.int64),
            int(st.fixed_at),
            np.ascontiguousarray(VAL, np.int64),
            np.ascontiguousarray(st.payout, np.float64),
        )
        a = KernelArgs(
            np.ascontiguousarray(np.repeat(st.vu_k, st.L), np.int64),
            vU,
            vU.sum(1),
            np.ascontiguousarray(np.tile(st.stake_vec(), st.n_vu), np.float64),
            tree,
        )
        _KERNEL_ARGS[st] = a
    return a


_NONE = np.zeros((1, N_RANKS))


def _run(st: HeadsUpStates, rows: np.ndarray | None, mode: int, hit: np.ndarray | None = None,
         W: np.ndarray | None = None, R_hit: np.ndarray | None = None, R_stand: np.ndarray | None = None,
         pos_disc: float = 1.0, neg_disc: float = 1.0, plus: bool = True) -> np.ndarray:  # fmt: skip
    """A kernel pass over the V ``rows`` (``None``: all); returns ``G (len(rows), 10)``."""
    a = kernel_args(st)
    vk, vU, stake = a.vk, a.vU, a.stake
    if rows is not None:
        vk, vU, stake = vk[rows], vU[rows], stake[rows]
    f64 = np.float64
    firstuse.notice(kernels.banker_pass, "the exact evaluator")
    return kernels.banker_pass(
        vk, vU, stake, *a.tree,
        _NONE if hit is None else np.ascontiguousarray(hit, f64),
        _NONE if W is None else np.ascontiguousarray(W, f64),
        np.ascontiguousarray(st.forced_hit, np.bool_),
        mode,
        _NONE if R_hit is None else R_hit,
        _NONE if R_stand is None else R_stand,
        float(pos_disc), float(neg_disc), bool(plus),
    )  # fmt: skip


class Chunk(NamedTuple):
    """Per-V arrays of one chunk of V rows."""

    n: int
    vk: np.ndarray  # swapped 4s
    vn: np.ndarray  # punter's face-up cards
    A: np.ndarray  # (n, 10) unseen cards by rank before the hidden one is removed
    den0: np.ndarray  # unseen cards, the hidden one removed
    win: np.ndarray  # (n, 10) punter's chips when the banker busts, by hidden rank
    lose75: np.ndarray  # (n, 10) punter's chips against a banker's 7½
    stand: np.ndarray  # (MAX_DECIDING + 1, n, 10) punter's chips when the banker stands on a total
    stake: np.ndarray  # (n,)


def chunk_context(st: HeadsUpStates, rows: np.ndarray | slice) -> Chunk:
    """The per-V arrays of the banker pass for the V rows ``rows`` (of ``n_vu * L``)."""
    vk = np.repeat(st.vu_k, st.L)[rows]
    vU = np.repeat(st.vu_U, st.L, axis=0)[rows]
    stake = np.tile(st.stake_vec(), st.n_vu)[rows]
    vn = vU.sum(1)
    A = N_SUITS - vU
    A[:, FOUR] -= vk
    P = (vU @ VAL)[:, None] + VAL[None, :]  # punter total for each hidden rank
    P = np.minimum(P, BUST)  # (a total over 7½: a hidden rank the punter cannot hold)
    s = stake[:, None]
    win = s * st.payout[P, BUST]
    lose75 = s * st.payout[P, LIMIT]
    stand = np.stack([s * st.payout[P, t] for t in range(MAX_DECIDING + 1)])
    return Chunk(len(vk), vk, vn, A, N_CARDS - 1 - vn - vk, win, lose75, stand, stake)


def stand_values(st: HeadsUpStates, ctx: Chunk, m_i: int) -> np.ndarray:
    """The punter's chips, per (V, h) of a chunk, when the banker stands on node ``m_i``."""
    return ctx.stand[st.M_tot[m_i]]


def continuation(st: HeadsUpStates, ctx: Chunk, node_vals: dict[int, np.ndarray], m_i: int | None) -> np.ndarray:
    """The punter's chips, per (V, h) of a chunk, when the banker draws a card holding
    node ``m_i`` (``None``: its first card), the values of the nodes reached being
    ``node_vals``: draws without replacement from the unseen cards (the punter's
    hidden one excluded), or the swapped 4 when the deck reaches its place."""
    n, vk, vn, A = ctx.n, ctx.vk, ctx.vn, ctx.A
    if m_i is None:
        C, den, fixed = A, ctx.den0, np.zeros(n, bool)
        kids = st.single
    else:
        m = st.M[m_i]
        fd = st.fixed_drawn(vk, vn, int(st.M_n[m_i]))
        C = A - m[None, :]
        C[:, FOUR] += fd
        den = ctx.den0 - (st.M_n[m_i] - fd)
        nxt = 1 + vk + vn + st.M_n[m_i]
        fixed = (nxt >= st.fixed_at) & (nxt < st.fixed_at + vk)
        kids = st.M_child[m_i]
    Cp = np.clip(C, 0, None).astype(np.float64)
    X = np.empty((N_RANKS, n, N_RANKS))
    for r in range(N_RANKS):
        kid = kids[r]
        if kid == BANKER_75:
            X[r] = ctx.lose75
        elif kid == BANKER_BUST:
            X[r] = ctx.win
        elif kid == NO_SUCH_CARD:
            X[r] = 0.0
        else:
            X[r] = node_vals[kid]
    tot = np.einsum("vr,rvh->vh", Cp, X)
    ar = np.arange(N_RANKS)
    tot -= (Cp > 0) * X[ar, :, ar].T  # the hidden rank h is one card fewer: X[h][v, h]
    out = tot / np.maximum(den, 1)[:, None]
    if fixed.any():
        out[fixed] = X[FOUR][fixed]
    return out


def posterior(st: HeadsUpStates, ctx: Chunk, w: np.ndarray, m_i: int) -> np.ndarray:
    """The banker's unnormalised posterior of the hidden rank ``h`` at node ``m_i``, per
    V of a chunk: the punter's reach ``w (n, 10)`` times the chance of the banker's
    cards given ``h`` (up to a factor of (V, M) alone)."""
    fd = st.fixed_drawn(ctx.vk, ctx.vn, int(st.M_n[m_i]))
    Cex = ctx.A - st.M[m_i][None, :]
    Cex[:, FOUR] += fd
    return w * np.clip(Cex, 0, None) / np.maximum(ctx.A, 1)


def _chunks(rows: np.ndarray, chunk: int):
    for c0 in range(0, len(rows), chunk):
        yield rows[c0 : c0 + chunk]


# --------------------------------------------------------------------------- the passes
def policy_values(st: HeadsUpStates, hit: np.ndarray, chunk: int = CHUNK, scale_stakes: bool = True,
                  backend: Backend | None = None) -> np.ndarray:  # fmt: skip
    """The punter's values of its stood hands ``(n_vu, L, 10)`` against the banker that
    hits with probability ``hit (n_vu * L, n_M)``.

    Every payoff is proportional to the stake: where the banker plays the same at every
    stake of a V (``scale_stakes``), its values at the other stakes are those of the lowest
    one, scaled, and only the lowest is computed."""
    nV = st.n_vu * st.L
    G = np.zeros((nV, N_RANKS))
    rows = np.arange(nV)
    scaled = np.zeros(st.n_vu, bool)
    if st.L > 1 and scale_stakes:
        h3 = hit.reshape(st.n_vu, st.L, st.n_M)
        scaled = (h3 == h3[:, :1]).all((1, 2))
        rows = np.flatnonzero(~np.repeat(scaled, st.L) | (np.arange(nV) % st.L == 0))
    if _backend(backend) == "numba":
        G[rows] = _run(st, rows, kernels.POLICY, hit=hit[rows])
    else:
        for sl in _chunks(rows, chunk):
            ctx = chunk_context(st, sl)
            vals: dict[int, np.ndarray] = {}
            for m_i in range(st.n_M):
                stand = stand_values(st, ctx, m_i)
                cp = continuation(st, ctx, vals, m_i)
                s = hit[sl, m_i][:, None]
                vals[m_i] = s * cp + (1 - s) * stand
            G[sl] = continuation(st, ctx, vals, None)
    if scaled.any():
        G3 = G.reshape(st.n_vu, st.L, N_RANKS)
        stakes = st.stake_vec()
        G3[scaled, 1:] = G3[scaled, :1] * (stakes[1:] / stakes[0])[None, :, None]
    return G.reshape(st.n_vu, st.L, N_RANKS)


def best_response_values(st: HeadsUpStates, W: np.ndarray, rows: np.ndarray | None = None,
                         chunk: int = CHUNK, backend: Backend | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The banker's best response to the punter whose stood reach is ``W (n_vu, L, 10)``:
    the punter's values against it ``(n_vu, L, 10)`` and its hits ``(n_vu * L, n_M)``
    (bool; hit where hitting is strictly better). Computed at the V ``rows`` (default:
    those the punter reaches; elsewhere any play is a best response: it stands)."""
    nV = st.n_vu * st.L
    G = np.zeros((nV, N_RANKS))
    br_hit = np.zeros((nV, st.n_M), bool)
    Wf = W.reshape(nV, N_RANKS)
    if rows is None:
        rows = np.flatnonzero(Wf.sum(1) > 0)
    if _backend(backend) == "numba":
        decided = np.zeros((len(rows), st.n_M))
        mode = kernels.FORCED if st.forced else kernels.BEST_RESPONSE
        G[rows] = _run(st, rows, mode, W=Wf[rows], R_hit=decided)
        br_hit[rows] = decided > 0.5
        return G.reshape(st.n_vu, st.L, N_RANKS), br_hit
    for sl in _chunks(rows, chunk):
        ctx = chunk_context(st, sl)
        vals: dict[int, np.ndarray] = {}
        w = Wf[sl]
        for m_i in range(st.n_M):
            stand = stand_values(st, ctx, m_i)
            cb = continuation(st, ctx, vals, m_i)
            if st.forced:
                h_hit = np.full(ctx.n, bool(st.forced_hit[m_i]))
            else:
                post = posterior(st, ctx, w, m_i)
                h_hit = (post * cb).sum(1) < (post * stand).sum(1)
            br_hit[sl, m_i] = h_hit
            vals[m_i] = np.where(h_hit[:, None], cb, stand)
        G[sl] = continuation(st, ctx, vals, None)
    return G.reshape(st.n_vu, st.L, N_RANKS), br_hit


def regret_update(st: HeadsUpStates, hit: np.ndarray, W: np.ndarray, R_hit: np.ndarray, R_stand: np.ndarray,
                  chunk: int = CHUNK, pos_disc: float = 1.0, neg_disc: float = 1.0, plus: bool = True,
                  backend: Backend | None = None) -> np.ndarray:  # fmt: skip
    """The banker's regret step: with the banker hitting with probability ``hit``, its
    counterfactual values of hitting and standing at every ``(V, M)`` (weighted by the
    punter's stood reach ``W``) update the regrets ``R_hit``, ``R_stand`` in place: the old
    regrets times ``pos_disc`` where positive and ``neg_disc`` where negative, plus the new
    ones, floored at 0 with ``plus`` (CFR+: the defaults; DCFR: discounts below 1, no floor).
    Returns the punter's values against ``hit`` ``(n_vu, L, 10)``."""
    nV = st.n_vu * st.L
    Wf = W.reshape(nV, N_RANKS)
    if _backend(backend) == "numba":
        for R in (R_hit, R_stand):
            if R.dtype != np.float64 or not R.flags.c_contiguous:
                raise ValueError("the regrets are updated in place: C-contiguous float64 arrays")
        G = _run(st, None, kernels.REGRET, hit=hit, W=Wf, R_hit=R_hit, R_stand=R_stand,
                 pos_disc=pos_disc, neg_disc=neg_disc, plus=plus)  # fmt: skip
        return G.reshape(st.n_vu, st.L, N_RANKS)
    G = np.zeros((nV, N_RANKS))
    for c0 in range(0, nV, chunk):
        sl = slice(c0, min(c0 + chunk, nV))
        ctx = chunk_context(st, sl)
        vals: dict[int, np.ndarray] = {}
        w = Wf[sl]
        for m_i in range(st.n_M):
            stand = stand_values(st, ctx, m_i)
            cp = continuation(st, ctx, vals, m_i)
            s = hit[sl, m_i]
            vals[m_i] = s[:, None] * cp + (1 - s[:, None]) * stand
            post = posterior(st, ctx, w, m_i)
            u_hit = -(post * cp).sum(1)  # the banker's chips
            u_st = -(post * stand).sum(1)
            u = s * u_hit + (1 - s) * u_st
            for R, r in ((R_hit, u_hit - u), (R_stand, u_st - u)):
                old = R[sl, m_i]
                R[sl, m_i] = np.where(old > 0, old * pos_disc, old * neg_disc) + r
                if plus:
                    np.maximum(R[sl, m_i], 0.0, out=R[sl, m_i])
        G[sl] = continuation(st, ctx, vals, None)
    return G.reshape(st.n_vu, st.L, N_RANKS)


def reach(st: HeadsUpStates, hit: np.ndarray, backend: Backend | None = None) -> np.ndarray:
    """``(n_vu * L, n_M)``: the banker's own reach of every (V, M) under its hitting
    probabilities ``hit`` (the product of its hit probabilities along the way, summed
    over the orders of M; the chance of the cards is not in it)."""
    if _backend(backend) == "numba":
        a = kernel_args(st)
        out = np.zeros(hit.shape, np.float64)
        _, _, M_n, M_child, single, fixed_at, _, _ = a.tree
        kernels.banker_reach(a.vk, a.vn, np.ascontiguousarray(hit, np.float64), M_n, M_child, single, fixed_at, out)
        return out
    x = np.zeros_like(hit, dtype=np.float64)
    x[:, st.single] = 1.0
    vk = np.repeat(st.vu_k, st.L)
    vn = np.repeat(st.vu_U.sum(1), st.L)
    for i in range(st.n_M - 1, -1, -1):  # increasing total: parents first
        xi = x[:, i] * hit[:, i]
        nxt = 1 + vk + vn + st.M_n[i]  # the deck place of the next card
        free = ~((nxt >= st.fixed_at) & (nxt < st.fixed_at + vk))  # else a swapped 4 comes
        for r in range(N_RANKS):
            c = st.M_child[i, r]
            if c >= 0:
                x[:, c] += xi if r == FOUR else xi * free
    return x


__all__ = [
    "BACKENDS",
    "Backend",
    "Chunk",
    "KernelArgs",
    "default_backend",
    "kernel_args",
    "best_response_values",
    "chunk_context",
    "continuation",
    "policy_values",
    "posterior",
    "reach",
    "regret_update",
    "stand_values",
]
