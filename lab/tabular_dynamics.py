"""The learning dynamics of the vine learner without its noise: tabular policies on the
exact game (heads-up ``spanish`` without splits: stakes 1-5, raises, the four-swap), each
iteration given the **exact** value of every legal action at every information state
(the punter's) or its conditional advantage (the banker's), and measured by exact NashConv.

    python lab/tabular_dynamics.py [--method mmd|rm] [--beta 0.3] [--alpha 0.02]
        [--alpha-final A] [--iters 60] [--every 5] [--magnet uniform|moving|average]
        [--alternate] [--plus] [--expl SHARE] ...

``--method mmd``: magnetic mirror descent, the closed form of the vine learner's loss
(``training.vine``: step size ``1/beta``, a pull ``alpha`` toward the magnet, values
divided by the top stake); ``--method rm``: regret matching (``--plus``: RM+), the
tabular counterpart of CFR with the same conditional values. Every ``--every`` iterations
it prints the NashConv of the last iterate and of the reach-weighted average. The figures
in docs/results.md ("The vine learner") come from this script; it takes about a second per
iteration on this machine (numba, two cores).
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from numba import njit, prange

from siete_env.cards import N_RANKS
from siete_env.solve import banker as B
from siete_env.solve import cfr as C
from siete_env.solve import punter as P_
from siete_env.solve.banker import FOUR as FOUR_I
from siete_env.solve.exact import nash_conv
from siete_env.solve.tables import TabularBankerPolicy, TabularPunterPolicy

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--beta", type=float, default=0.3)
ap.add_argument("--alpha", type=float, default=0.02)
ap.add_argument("--alpha-final", type=float, default=None)
ap.add_argument("--iters", type=int, default=60)
ap.add_argument("--every", type=int, default=5)
ap.add_argument("--magnet", choices=["uniform", "moving", "average"], default="uniform")
ap.add_argument("--magnet-rate", type=float, default=0.05)
ap.add_argument("--avg-gamma", type=float, default=1.0, help="average weight t^gamma")
ap.add_argument("--avg-start", type=int, default=1)
ap.add_argument("--alternate", action="store_true")
ap.add_argument("--method", choices=["mmd", "rm"], default="mmd")
ap.add_argument("--cf", action="store_true", help="banker advantages counterfactual (not conditional)")
ap.add_argument("--plus", action="store_true")
ap.add_argument("--rm-weight", type=float, default=0.0, help="regret increments weighted by t^g")
ap.add_argument("--stake-norm", action="store_true", help="draw and banker advantages divided by the stake (not 5)")
ap.add_argument("--expl", type=float, default=0.0, help="share of each side's values against the exact BR")
ap.add_argument("--own", action="store_true", help="increments weighted by on-policy sample frequency (own reach too)")
args = ap.parse_args()
S = 5.0
cf = C.CFRPlus({"preset": "spanish", "max_splits": 0})
ev = cf.ev
nV = ev.n_vu * ev.L


@njit(parallel=True, cache=True)
def _ps(Wf, A, vk, vn, M, M_n, fixed_at, out):
    for v in prange(Wf.shape[0]):
        for m in range(M.shape[0]):
            fd = 1 + vk[v] + vn[v] + M_n[m] - fixed_at
            if fd < 0:
                fd = 0
            if fd > vk[v]:
                fd = vk[v]
            s = 0.0
            for h in range(10):
                c = A[v, h] - M[m, h]
                if h == FOUR_I:
                    c += fd
                if c > 0:
                    s += Wf[v, h] * c / max(A[v, h], 1)
            out[v, m] = s


ctx = B.chunk_context(ev, slice(0, nV))
_A, _vk, _vn = ctx.A.astype(np.int64), ctx.vk.astype(np.int64), ctx.vn.astype(np.int64)
_M, _Mn = ev.M.astype(np.int64), np.asarray(ev.M_n, np.int64)


def post_sums(W):
    out = np.zeros((nV, ev.n_M))
    _ps(np.ascontiguousarray(W.reshape(nV, N_RANKS)), _A, _vk, _vn, _M, _Mn, int(ev.fixed_at), out)
    return out


def sm(z, mask):
    z = np.where(mask, z, -np.inf)
    z = z - z.max(-1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(-1, keepdims=True)


def lg(p):
    return np.log(np.maximum(p, 1e-300))


bet, draw = sm(np.zeros_like(cf.R_bet), cf.bet_mask), sm(np.zeros_like(cf.R_draw), cf.draw_mask)
hit = np.full((nV, ev.n_M), 0.5)
mag = [bet.copy(), draw.copy(), hit.copy()]
Sb = np.zeros_like(bet)
Sd = np.zeros_like(draw)
Sh = np.zeros_like(hit)
Sr = np.zeros_like(hit)


def values(bet, draw, hit):
    cf.bet, cf.draw, cf.hit = bet, draw, hit
    Wst, _ = ev.punter_forward(bet, draw)
    if args.expl > 0:
        G0 = B.policy_values(ev, hit, scale_stakes=False)
        _, bact, dact = P_.best_response(ev, G0)
        b_, d_ = ev.punter_table(TabularPunterPolicy(ev, bact, dact))
        Wbr, _ = ev.punter_forward(b_, d_)
        Gbr, _ = B.best_response_values(ev, Wst)
        Wmix = (1 - args.expl) * Wst + args.expl * Wbr
        Rh = np.zeros((nV, ev.n_M))
        Rs = np.zeros((nV, ev.n_M))
        B.regret_update(ev, hit, Wmix, Rh, Rs, pos_disc=0.0, neg_disc=0.0, plus=False)
        ps = post_sums(Wmix)
        A = np.where(ps > 1e-14, (Rh - Rs) / np.maximum(ps, 1e-300), 0.0)
        return (1 - args.expl) * G0 + args.expl * Gbr, A
    Rh = np.zeros((nV, ev.n_M))
    Rs = np.zeros((nV, ev.n_M))
    G = B.regret_update(ev, hit, Wst, Rh, Rs, pos_disc=0.0, neg_disc=0.0, plus=False)
    ps = post_sums(Wst)
    if args.cf:
        return G, Rh - Rs
    A = np.where(ps > 1e-14, (Rh - Rs) / np.maximum(ps, 1e-300), 0.0)
    return G, A


def step_p(p, Q, mask, m, alpha):
    z = (args.beta * lg(p) + alpha * lg(m) + Q / S) / (args.beta + alpha)
    return sm(np.where(mask, z, 0), mask)


def step_b(h, A, m, alpha):
    d = lg(h) - lg(1 - h)
    dm = lg(m) - lg(1 - m)
    d = (args.beta * d + alpha * dm + A / S) / (args.beta + alpha)
    return 1 / (1 + np.exp(-np.clip(d, -40, 40)))


RB = np.zeros_like(bet)
RD = np.zeros_like(draw)
RHh = np.zeros_like(hit)
RHs = np.zeros_like(hit)


def rm(R, mask):
    pos = np.where(mask, np.maximum(R, 0), 0)
    ssum = pos.sum(-1, keepdims=True)
    uni = mask / np.maximum(mask.sum(-1, keepdims=True), 1)
    return np.where(ssum > 0, pos / np.where(ssum > 0, ssum, 1), uni)


t0 = time.time()
for it in range(1, args.iters + 1):
    f = min(1.0, (it - 1) / max(1, args.iters - 1))
    alpha = args.alpha if args.alpha_final is None else args.alpha * (args.alpha_final / args.alpha) ** f
    G, A = values(bet, draw, hit)
    Q_bet, Q_draw, _ = cf.punter_values(G)
    if args.stake_norm and args.method == "mmd":
        sv = ev.stake_vec()
        Q_draw = Q_draw * (S / sv)[None, :, None, None]
        A = A * (S / np.tile(sv, ev.n_vu))[:, None]
    if args.method == "rm":
        wr = float(it) ** args.rm_weight
        wb_, wd_, wh_ = 1.0, 1.0, 1.0
        if args.own:
            _, _, breach_, reach_ = ev.punter_forward(bet, draw, return_reach=True)
            wb_, wd_ = breach_[:, None], reach_[..., None]
            wh_ = ev.banker_reach(hit)
        RB += wr * wb_ * (Q_bet - (bet * Q_bet).sum(-1, keepdims=True)) * cf.bet_mask
        RD += wr * wd_ * (Q_draw - (draw * Q_draw).sum(-1, keepdims=True)) * cf.draw_mask
        if args.plus:
            RB = np.maximum(RB, 0)
            RD = np.maximum(RD, 0)
        nbet, ndraw = rm(RB, cf.bet_mask), rm(RD, cf.draw_mask)
        if args.alternate:
            G, A = values(nbet, ndraw, hit)
        RHh += wr * wh_ * (1 - hit) * A
        RHs += -wr * wh_ * hit * A
        if args.plus:
            RHh = np.maximum(RHh, 0)
            RHs = np.maximum(RHs, 0)
        a_, b_ = np.maximum(RHh, 0), np.maximum(RHs, 0)
        nhit = np.where(a_ + b_ > 0, a_ / np.maximum(a_ + b_, 1e-300), 0.5)
    else:
        nbet, ndraw = step_p(bet, Q_bet, cf.bet_mask, mag[0], alpha), step_p(draw, Q_draw, cf.draw_mask, mag[1], alpha)
        if args.alternate:
            G, A = values(nbet, ndraw, hit)
        nhit = step_b(hit, A, mag[2], alpha)
    # average (sequence form) of the iterate just played
    if it >= args.avg_start:
        w = float(it) ** args.avg_gamma
        _, _, breach, reach = ev.punter_forward(bet, draw, return_reach=True)
        Sb += w * breach[:, None] * bet
        Sd += w * reach[..., None] * draw
        x = ev.banker_reach(hit)
        Sh += w * x * hit
        Sr += w * x
    bet, draw, hit = nbet, ndraw, nhit
    if args.magnet == "moving":
        r = args.magnet_rate
        mag = [
            sm(np.where(cf.bet_mask, (1 - r) * lg(mag[0]) + r * lg(bet), 0), cf.bet_mask),
            sm(np.where(cf.draw_mask, (1 - r) * lg(mag[1]) + r * lg(draw), 0), cf.draw_mask),
            1 / (1 + np.exp(-((1 - r) * (lg(mag[2]) - lg(1 - mag[2])) + r * (lg(hit) - lg(1 - hit))))),
        ]
    if it % args.every == 0:
        nc = nash_conv(TabularPunterPolicy(ev, bet, draw), TabularBankerPolicy(ev, hit), ev)

        def nrm(Sx, cur):
            s = Sx.sum(-1, keepdims=True)
            return np.where(s > 0, Sx / np.where(s > 0, s, 1), cur)

        ah = np.where(Sr > 0, Sh / np.where(Sr > 0, Sr, 1), hit)
        na = nash_conv(TabularPunterPolicy(ev, nrm(Sb, bet), nrm(Sd, draw)), TabularBankerPolicy(ev, ah), ev)
        print(
            f"it {it} {time.time() - t0:.0f}s a={alpha:.4f} last {nc.nash_conv:.4f} (p {nc.punter_br_value - nc.ev:.3f} b {nc.banker_br_value + nc.ev:.3f})  avg {na.nash_conv:.4f}",
            flush=True,
        )
