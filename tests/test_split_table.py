"""A policy trained without splits (the exactly measured game, ``max_splits: 0``) seated
at the shipped ``spanish`` preset, which offers splits: it sees the observation it was
trained on (each seat's first hand, ``Layout.narrowed``) and keeps every figure."""

from __future__ import annotations

import numpy as np
import pytest

from agents.learned import MLPPolicy, PPOAgent
from siete_env import raw_env
from siete_env.features import fold_suits, folded_size
from siete_env.game import KEEP, SPLIT
from tests.helpers import play, table

NO_SPLITS = {"preset": "spanish", "max_splits": 0}


def _network(layout, n_actions: int, seed: int) -> MLPPolicy:
    rng = np.random.default_rng(seed)
    sizes = [folded_size(layout), 32, n_actions]
    return MLPPolicy(
        [(rng.normal(0, 1, (b, a)), rng.normal(0, 1, b)) for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
    )


# punter: 10o, then 11c (a split is offered), then 3e; banker 5b, then 2o
DECK = ["10o", "5b", "11c", "3e", "2o"]
SCRIPT = [("player_1", "BET_2"), ("player_1", "HIT_UP")]


def _trace(rules, script_after):
    """The punter's observations along one stacked hand, and the table."""
    e = table(DECK, rules=rules)
    obs = [e.observe("player_1")["observation"].copy()]
    play(e, SCRIPT)
    obs.append(e.observe("player_1")["observation"].copy())
    play(e, script_after)
    obs.append(e.observe("player_0")["observation"].copy())  # the banker's view at its turn
    return e, obs


def test_narrowed_observation_equals_the_no_split_table():
    split_env, split_obs = _trace("spanish", ["KEEP", "HIT_UP", "STAND"])
    plain_env, plain_obs = _trace(NO_SPLITS, ["HIT_UP", "STAND"])
    wide, narrow = split_env.layout, plain_env.layout
    assert wide.H > 1 and narrow.H == 1
    assert wide.narrowed(1).size == narrow.size
    idx = wide.gather_index(wide.narrowed(1))
    # before the split offer and at the banker's turn the two tables show the same things
    # (the split table's observation at the offer itself shows the split phase)
    for i in (0, 2):
        np.testing.assert_array_equal(split_obs[i][idx], plain_obs[i])
    np.testing.assert_array_equal(wide.narrowed(1).high, narrow.high)
    np.testing.assert_array_equal(wide.narrowed(1).low, narrow.low)


def test_a_no_split_policy_keeps_the_figure_and_plays_the_preset():
    e = table(DECK, rules="spanish")
    plain = raw_env(2, NO_SPLITS)
    pol = _network(plain.unwrapped.layout, len(e.action_names), 0)
    agent = PPOAgent(e, pol, greedy=False, seed=0)
    assert agent.view is not None and agent.fold
    play(e, SCRIPT)
    o = e.observe("player_1")
    assert o["action_mask"][SPLIT] and o["action_mask"][KEEP]
    assert agent(o) == KEEP
    p = agent.action_probs(o["observation"][None], o["action_mask"][None])
    assert p[0, KEEP] == 1.0 and p[0].sum() == 1.0
    # elsewhere it acts on the narrowed observation, as the network does
    e2 = table(DECK, rules="spanish")
    o = e2.observe("player_1")
    x = fold_suits(o["observation"][agent.view.index], agent.layout)
    np.testing.assert_allclose(
        agent.action_probs(o["observation"][None], o["action_mask"][None])[0], pol.probs(x, o["action_mask"])
    )


@pytest.mark.parametrize("seed", range(3))
def test_no_split_policies_play_whole_hands_of_the_preset(seed):
    """Both seats played by networks of the no-split layout finish every hand of the
    spanish preset, never splitting."""
    e = raw_env(2, "spanish")
    plain = raw_env(2, NO_SPLITS)
    agents = {a: PPOAgent(e, _network(plain.unwrapped.layout, len(e.action_names), i), greedy=False, seed=seed)
              for i, a in enumerate(e.possible_agents)}  # fmt: skip
    for hand in range(200):
        e.reset(seed=seed * 1000 + hand)
        while e.agents:
            a = e.agent_selection
            o, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            act = agents[a](o)
            assert o["action_mask"][act]
            assert act != SPLIT
            e.step(act)


def test_a_table_policy_of_the_no_split_game_plays_the_game_with_splits():
    """A saved table pair (an equilibrium, a run's final mixture) of the game without
    splits plays the same rules with splits: first hands only, figures kept."""
    from siete_env.solve import cfr

    small = {"preset": "spanish", "bet_levels": [1], "four_swap": "off"}
    sol = cfr.solve({**small, "max_splits": 0}, iterations=2)
    with pytest.raises(ValueError, match="solved for heads-up"):
        sol.agent(raw_env(2, {**small, "max_splits": 0, "seven_half_pays": 1}))
    e = table(DECK, rules=small)
    agent = sol.agent(e, seed=0)
    plain = table(DECK, rules={**small, "max_splits": 0})
    same = sol.agent(plain, seed=0)
    assert agent.view is not None and same.view is None
    o, q = e.observe("player_1"), plain.observe("player_1")
    np.testing.assert_array_equal(
        agent.action_probs(o["observation"][None], o["action_mask"][None]),
        same.action_probs(q["observation"][None], q["action_mask"][None]),
    )
    play(e, [("player_1", "BET_1"), ("player_1", "HIT_UP")])
    o = e.observe("player_1")
    assert o["action_mask"][SPLIT]
    assert agent(o) == KEEP
    e.step(KEEP)
    while e.agents:  # the hand plays to its end
        o, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else agent(o))
