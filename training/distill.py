"""One banker network distilled from a mixture of banker networks (issue 21's "a single
network distilled from the final mixture with reach weights").

``make train`` ends with the least exploitable mixture of its snapshots (``final.npz``):
its banker side mixes several networks, one drawn per hand, which the exact evaluator
plays as the behaviour strategy they are equal to (``siete_env.solve.mixture``: at every
banker state, the members' hit probabilities weighted by how likely each member is to
be there). That table has tens of millions of entries; one network of the learners' shape
plays the same game in 4 MB (``agents.pretrained``). This fits one: the network is
trained by cross-entropy to the mixture's probability of hitting at banker states drawn
with **reach weights**: the mixture's own reach of the state (its hits along the way,
each card's chance taken as 1/10, one rank in ten), times the stake (an error at stake 5
costs five times one at stake 1), times ``1 + P(V) / mean P`` (the punter mixture's
chance of showing the view ``V``, with a floor: a best-responding punter may steer to
any view, so none is left out). No exact value or best response is used: the targets
are the learned networks' own play. The fit starts from the heaviest member's weights.

    from training.distill import distill_banker
    policy, info = distill_banker(tables, start=load_policy("gen_005/banker.zip"))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.learned import MLPPolicy
from siete_env.features import fold_suits
from siete_env.game import HIT_UP, STAND

__all__ = ["banker_samples", "distill_banker"]


def banker_samples(tables: Any, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` banker states drawn with the reach weights of the module docstring, as the
    suit-folded observations the learners read ``(n, features)`` and the mixture's
    probability of hitting there ``(n,)``. ``tables``: ``PolicyTables`` (e.g. a run's
    ``final.npz`` through ``siete_env.solve.load_tables``)."""
    from siete_env.solve import evaluator

    ev = tables.ev if tables.ev is not None else evaluator(tables.rules)
    hit = np.asarray(tables.hit, np.float64)
    x = ev.banker_reach(hit * 0.1)  # the mixture's own reach, each card's chance ~1/10
    W, _ = ev.punter_forward(tables.bet, tables.draw)
    pv = W.reshape(W.shape[0] * W.shape[1], -1).sum(1)  # (n_V,): the punter mixture shows V
    stake = np.tile(np.asarray(ev.levels, np.float64), ev.n_vu)
    w = x * (stake * (1.0 + pv / max(pv.mean(), 1e-12)))[:, None]
    p = w.ravel() / w.sum()
    rng = np.random.default_rng(seed)
    flat = np.sort(rng.choice(p.size, size=n, p=p))
    rows, nodes = np.divmod(flat, ev.n_M)
    base, _ = ev.banker_base()
    vk = np.repeat(ev.vu_k, ev.L)
    vU = np.repeat(ev.vu_U, ev.L, axis=0)
    obs, target = [], []
    for m_i in np.unique(nodes):
        at = rows[nodes == m_i]
        o, ok = ev.banker_rows(base[at], vk[at], vU[at], int(m_i))
        obs.append(fold_suits(o, ev.layout))
        target.append(hit[at[ok], m_i])
    return np.concatenate(obs).astype(np.float32), np.concatenate(target)


def distill_banker(
    tables: Any,
    start: MLPPolicy,
    samples: int = 1_000_000,
    epochs: int = 20,
    batch_size: int = 4096,
    learning_rate: float = 1e-3,
    seed: int = 0,
) -> tuple[MLPPolicy, dict[str, float]]:
    """A banker ``MLPPolicy`` of ``start``'s shape fitted to the mixture's banker in
    ``tables`` (see the module docstring); returns it and the fit's figures (the mean
    absolute error of the hit probability on the samples, before and after)."""
    import torch
    from torch import nn

    X, y = banker_samples(tables, samples, seed)
    if X.shape[1] != start.input_size:
        raise ValueError(
            f"the start network reads {start.input_size} features, the tables' banker states {X.shape[1]}: "
            "it was trained for other rules"
        )
    act = {"Tanh": nn.Tanh, "ReLU": nn.ReLU}[start.activation]
    mods: list[nn.Module] = []
    for i, (w, b) in enumerate(start.layers):  # MLPPolicy keeps (in, out) weights
        lin = nn.Linear(w.shape[0], w.shape[1])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w.T.copy()))
            lin.bias.copy_(torch.from_numpy(b.copy()))
        mods.append(lin)
        if i < len(start.layers) - 1:
            mods.append(act())
    net = nn.Sequential(*mods)
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y.astype(np.float32))

    def diff(xb: torch.Tensor) -> torch.Tensor:  # z_hit - z_stand: the masked softmax's hit logit
        z = net(xb)
        return z[:, HIT_UP] - z[:, STAND]

    def mae() -> float:
        with torch.no_grad():
            return float(sum((torch.sigmoid(diff(Xt[s : s + 65536])) - yt[s : s + 65536]).abs().sum()
                             for s in range(0, len(Xt), 65536)) / len(Xt))  # fmt: skip

    before = mae()
    opt = torch.optim.Adam(net.parameters(), lr=learning_rate)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    gen = torch.Generator().manual_seed(seed)
    bce = nn.BCEWithLogitsLoss()
    for _ in range(epochs):
        order = torch.randperm(len(Xt), generator=gen)
        for s in range(0, len(Xt), batch_size):
            idx = order[s : s + batch_size]
            loss = bce(diff(Xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
    lins = [m for m in net if isinstance(m, nn.Linear)]
    layers = [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in lins]
    return MLPPolicy(layers, start.activation), {"samples": float(len(X)), "mae_before": before, "mae_after": mae()}
