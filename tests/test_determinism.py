"""Seeding: the same seed gives the same game; the global RNGs are never touched."""

from __future__ import annotations

import random

import numpy as np

from siete_env import env, raw_env


def _trajectory(e, seed, policy_seed=0, hands=3):
    out = []
    rng = np.random.default_rng(policy_seed)
    for i in range(hands):
        e.reset(seed=seed if i == 0 else None)
        for agent in e.agent_iter():
            obs, r, term, trunc, info = e.last()
            out.append((agent, obs["observation"].tobytes(), r, term, repr(info)))
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(len(legal))]))
    return out


def test_same_seed_same_game_and_different_seeds_differ():
    assert _trajectory(raw_env(num_players=3), 42) == _trajectory(raw_env(num_players=3), 42)
    assert _trajectory(raw_env(num_players=3), 42) != _trajectory(raw_env(num_players=3), 43)


def test_reseeding_does_not_reset_rule_options():
    e = raw_env(num_players=2, rules={"four_swap": "off", "hands_per_episode": 2})
    first = _trajectory(e, 7)
    assert e.rules.four_swap == "off" and e.rules.hands_per_episode == 2
    assert _trajectory(e, 7) == first


def test_global_random_generators_are_never_touched():
    random.seed(123)
    np.random.seed(123)
    py_state, np_state = random.getstate(), np.random.get_state()
    for n in (2, 5):
        _trajectory(env(num_players=n), seed=None, hands=20)
        _trajectory(raw_env(num_players=n, rules={"hands_per_episode": 3}), seed=1, hands=5)
    assert random.getstate() == py_state
    after = np.random.get_state()
    assert after[0] == np_state[0] and np.array_equal(after[1], np_state[1]) and after[2:] == np_state[2:]
