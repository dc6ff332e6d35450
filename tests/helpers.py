"""Shared helpers: stacked-deck tables driven by action names."""

from __future__ import annotations

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
