"""Shared helpers: stacked-deck tables driven by action names, simulations, samples of the
exact evaluator's V rows."""

from __future__ import annotations

import copy

import numpy as np

from siete_env import raw_env


def table(deck, n=2, banker=0, rules=None, seed=0):
    """A raw env reset with a stacked deck (first card to the first punter in turn order,
    the banker's card last, then the top of the deck for every later card)."""
    e = raw_env(num_players=n, rules=rules or "spanish")
    e.reset(seed=seed, options={"deck": deck, "banker": banker})
    return e


def play(e, script, totals=None):
    """Apply ``script``: a list of action names, or ``(agent, name)`` pairs that also
    check who acts. Returns the rewards summed per agent over the steps taken."""
    totals = totals if totals is not None else dict.fromkeys(e.possible_agents, 0)
    for item in script:
        agent, name = item if isinstance(item, tuple) else (None, item)
        if agent is not None:
            assert e.agent_selection == agent, f"expected {agent} to act, {e.agent_selection} acts"
        e.step(e.action_id(name))
        for a, r in e.rewards.items():
            totals[a] += r
    return totals


def finish_dead_steps(e):
    while e.agents:
        e.step(None)


def legal(e):
    return set(e.legal_action_names())


def simulate_heads_up(punter, banker, rules, n_hands, seed):
    """The punter's chips per hand over ``n_hands`` heads-up hands (banker at seat 0),
    both sides playing by ``action_probs``, sampled with one seeded generator."""
    e = raw_env(2, rules)
    out = np.empty(n_hands)
    rng = np.random.default_rng(seed)
    for i in range(n_hands):
        e.reset(seed=int(rng.integers(1 << 30)) if i == 0 else None, options={"banker": 0})
        total = 0.0
        while e.agents:
            a = e.agent_selection
            obs, reward, term, trunc, _ = e.last()
            if a == "player_1":
                total += reward
            if term or trunc:
                e.step(None)
                continue
            pol = banker if a == "player_0" else punter
            p = pol.action_probs(obs["observation"][None, :], obs["action_mask"][None, :])[0]
            e.step(int(rng.choice(len(p), p=p / p.sum())))
        out[i] = total
    return out


def row_by_row(agent, observations, masks):
    """``(N, A)``: a deterministic agent's own decision ``agent(obs_dict)`` at each row (one
    hot); for a stochastic one, its ``action_probs`` asked one row at a time."""
    out = np.zeros(masks.shape)
    for i in range(len(observations)):
        if agent.deterministic:
            out[i, agent({"observation": observations[i], "action_mask": masks[i]})] = 1.0
        else:
            out[i] = agent.action_probs(observations[i : i + 1], masks[i : i + 1])[0]
    return out


def some_v_rows(ev, n: int, seed: int = 0) -> tuple:
    """A copy of the evaluator ``ev`` whose banker side holds ``n`` of its stood punter
    hands ``(k, U)`` (a fixed sample; every stake of each), and the rows of ``ev``'s
    ``(n_vu * L, n_M)`` tables it holds. The banker passes (the kernels one V row per loop
    iteration, the numpy passes by chunks of rows) and the banker's observations and tables
    compute each V row on its own, so a comparison on the sample checks the same equality
    as on every row, at a fraction of the cost. (The punter side is not subset: use the copy
    for the banker side only.)"""
    keep = np.sort(np.random.default_rng(seed).choice(ev.n_vu, n, replace=False))
    sub = copy.copy(ev)
    sub.vu_keys = [ev.vu_keys[i] for i in keep]
    sub.vu_k, sub.vu_U, sub.n_vu = ev.vu_k[keep], ev.vu_U[keep], n
    return sub, (keep[:, None] * ev.L + np.arange(ev.L)).ravel()
