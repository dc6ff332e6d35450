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

``distill_average`` does the same for any table the batched engine plays, without the exact
evaluator: one network per role fitted to the **uniform mixture of several snapshots** of
that role (``evaluation.select: average``). Its states are the ones the members' own play
reaches: for each member, hands in which it sits at the role's seats (one recorded seat at
a time, the other seats played by the ``opponents``, the same for every member), each
decision's target the member's own action probabilities. Pooled over the members, a state
then counts each member by its own reach of it, the rest of the table being the same for
all: the mixture's realisation-equivalent behaviour policy, ``sum_k x_k(I) pi_k(a|I) /
sum_k x_k(I)`` (``docs/research``: reach-weighted, not a per-state average). The fit
minimises the reach-weighted KL divergence from the targets.

    policies, info = distill_average(rules, 4, {"punter": [...], "banker": [...]}, opponents)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.learned import MLPPolicy
from siete_env.features import fold_suits
from siete_env.game import HIT_UP, STAND

__all__ = ["average_samples", "banker_samples", "distill_average", "distill_banker", "write_actor"]


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
    net = _torch_net(start)
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
    return _policy(net, start.activation), {"samples": float(len(X)), "mae_before": before, "mae_after": mae()}


def _torch_net(start: MLPPolicy):
    """A torch ``Sequential`` with ``start``'s layers and weights (the fit's starting point)."""
    import torch
    from torch import nn

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
    return nn.Sequential(*mods)


def _policy(net: Any, activation: str) -> MLPPolicy:
    """``net`` (``_torch_net``'s) back as an ``MLPPolicy``."""
    from torch import nn

    lins = [m for m in net if isinstance(m, nn.Linear)]
    return MLPPolicy([(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in lins], activation)


def average_samples(sampler: Any, role: str, members: list[MLPPolicy], opponents: dict[str, MLPPolicy],
                    hands: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The states of ``role`` the uniform mixture of ``members`` reaches, and its play there:
    ``(obs, masks, targets, weights)``, one row per distinct (observation, mask), ``targets``
    the members' action probabilities averaged over the row's visits and ``weights`` its
    visits. ``hands`` hands in all on ``sampler`` (a ``training.vine.VineSampler``), shared
    equally by the members and by the role's seats: in each share one seat is the member's
    and recorded, every other seat plays ``opponents[its role]`` (see the module docstring)."""
    from training.vine import BANKER, PUNTER

    seats_of_role = sampler.record(PUNTER if role == "punter" else BANKER)
    shares = [(m, s) for m in members for s in seats_of_role]
    obs, masks, probs = [], [], []
    for i, (member, seat) in enumerate(shares):
        n = hands // len(shares) + (i < hands % len(shares))
        players = sampler.seats(opponents["punter"], opponents["banker"])
        players[seat] = member
        for o, m, p, _ in sampler.play(n, players, [seat], sampler.rng):
            obs.append(o)
            masks.append(m)
            probs.append(p)
    if not obs:
        raise ValueError(f"no {role} decision in {hands} hands")
    rows, legal, played = np.concatenate(obs), np.concatenate(masks), np.concatenate(probs)
    groups = sampler.distinct(rows, legal)
    if groups is None:  # pragma: no cover  (a collision of the rows' keys: every row kept)
        return rows, legal, played, np.ones(len(rows))
    first, inv = groups
    w = np.bincount(inv, minlength=len(first)).astype(np.float64)
    t = np.stack([np.bincount(inv, weights=played[:, a], minlength=len(first)) for a in range(played.shape[1])], 1)
    return rows[first], legal[first], t / w[:, None], w


def distill_average(
    rules: Any,
    num_players: int,
    members: dict[str, list[MLPPolicy]],
    opponents: dict[str, MLPPolicy],
    hands: int = 600_000,
    epochs: int = 30,
    batch_size: int = 4096,
    learning_rate: float = 1e-3,
    seed: int = 0,
    tables: int = 100_000,
) -> tuple[dict[str, MLPPolicy], dict[str, dict[str, float]]]:
    """One network per role of ``members`` (role -> its snapshots, as ``MLPPolicy``) fitted
    to the uniform mixture of them (the module docstring), starting from the last member's
    weights; ``opponents`` (role -> policy) sit at the other seats. ``hands`` per role.
    Returns the networks and per role the fit's figures: the distinct states, the decisions,
    and the weighted KL divergence from the targets before and after."""
    import torch

    from training.vine import VineSampler

    sampler = VineSampler(rules, tables, seed, num_players)
    out: dict[str, MLPPolicy] = {}
    info: dict[str, dict[str, float]] = {}
    gen = torch.Generator().manual_seed(seed)
    for role, snaps in members.items():
        if not snaps:
            raise ValueError(f"no {role} snapshot to distil")
        X, M, T, w = average_samples(sampler, role, snaps, opponents, hands)
        start = snaps[-1]
        if X.shape[1] != start.input_size:
            raise ValueError(f"the {role} networks read {start.input_size} features, the table's {X.shape[1]}")
        net = _torch_net(start)
        Xt = torch.from_numpy(np.asarray(X, np.float32))
        legal = torch.from_numpy(np.asarray(M) > 0)
        Tt = torch.from_numpy(np.asarray(T, np.float32))
        Wt = torch.from_numpy((w / w.mean()).astype(np.float32))
        ent = -(Tt * torch.log(Tt.clamp_min(1e-12))).sum(1)  # the targets' entropy: KL = cross-entropy - this

        def kl(idx, net=net, Xt=Xt, legal=legal, Tt=Tt, Wt=Wt, ent=ent) -> torch.Tensor:
            logp = torch.log_softmax(net(Xt[idx]).masked_fill(~legal[idx], -1e9), 1)
            return (((-(Tt[idx] * logp).sum(1)) - ent[idx]) * Wt[idx]).sum() / Wt[idx].sum()

        with torch.no_grad():
            before = float(kl(slice(None)))
        opt = torch.optim.Adam(net.parameters(), lr=learning_rate)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
        for _ in range(epochs):
            order = torch.randperm(len(Xt), generator=gen)
            for s in range(0, len(Xt), batch_size):
                loss = kl(order[s : s + batch_size])
                opt.zero_grad()
                loss.backward()
                opt.step()
            sched.step()
        with torch.no_grad():
            after = float(kl(slice(None)))
        out[role] = _policy(net, start.activation)
        info[role] = {"states": float(len(X)), "decisions": float(w.sum()), "kl_before": before, "kl_after": after}
    sampler.close()
    return out, info


def write_actor(model: str | Path, policy: MLPPolicy, out: str | Path) -> None:
    """``model`` (a MaskablePPO ``.zip`` of ``train.py``) saved as ``out`` with ``policy``'s
    weights in its actor (the hidden layers of ``mlp_extractor.policy_net`` and
    ``action_net``); every other entry as it was. Nothing is unpickled: the weights are read
    by ``agents.learned.read_model_tensors``. ``out`` is written whole or not at all."""
    import io
    import zipfile

    import torch

    from agents.learned import read_model_zip
    from training.outputs import write_atomic

    state, _ = read_model_zip(model)
    prefix = "mlp_extractor.policy_net."
    idx = sorted(int(k[len(prefix) :].split(".")[0]) for k in state if k.startswith(prefix) and k.endswith(".weight"))
    keys = [f"{prefix}{i}" for i in idx] + ["action_net"]
    if len(keys) != len(policy.layers):
        raise ValueError(f"{model}'s actor has {len(keys)} layers, the policy {len(policy.layers)}")
    for k, (w, b) in zip(keys, policy.layers, strict=True):  # MLPPolicy keeps (in, out) weights
        if tuple(state[f"{k}.weight"].shape) != w.T.shape:
            raise ValueError(f"{model}'s {k} is {tuple(state[f'{k}.weight'].shape)}, the policy's {w.T.shape}")
        state[f"{k}.weight"] = torch.from_numpy(np.ascontiguousarray(w.T))
        state[f"{k}.bias"] = torch.from_numpy(np.array(b))
    buf = io.BytesIO()
    torch.save(state, buf)
    data = io.BytesIO()
    with zipfile.ZipFile(model) as src, zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info, buf.getvalue() if info.filename == "policy.pth" else src.read(info.filename))
    write_atomic(out, data.getvalue())
