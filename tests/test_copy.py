"""``copy.deepcopy`` and ``pickle`` of an env mid-hand (a search copies the env): the copy
goes on exactly as the original does (same observations, rewards, infos for the same
actions) and shares no state with it."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest

import siete_env
from siete_env import quattro


def _copies(e):
    return {"deepcopy": copy.deepcopy(e), "pickle": pickle.loads(pickle.dumps(e))}


def _aec_trace(e, rng, steps):
    """Play ``steps`` random legal moves (or to the end); what each step showed."""
    out = []
    for _ in range(steps):
        if not e.agents:
            break
        obs, rew, term, trunc, info = e.last()
        action = None
        if not (term or trunc):
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)
        out.append((e.agent_selection if e.agents else None, action, rew, term, obs["observation"].tobytes()))
    return out


AEC = {
    "raw_env": lambda: siete_env.raw_env(num_players=3),
    "env": lambda: siete_env.env(num_players=3),
    "italian": lambda: siete_env.env(num_players=3, rules="italian"),
    "quattro": lambda: quattro.env(num_players=4),
    "quattro_game": lambda: quattro.raw_env(num_players=3, episode="game"),
}


@pytest.mark.parametrize("name", sorted(AEC))
def test_aec_copy_continues_like_the_original_and_shares_nothing(name):
    for seed in range(4):
        e = AEC[name]()
        e.reset(seed=seed)
        _aec_trace(e, np.random.default_rng(seed), 3)  # mid-hand
        # the copy's moves (and a reset) leave the original as it was
        before = (
            e.agent_selection,
            list(e.unwrapped.game.events),
            e.unwrapped.observe(e.agent_selection)["observation"].tobytes(),
        )
        c = copy.deepcopy(e)
        _aec_trace(c, np.random.default_rng(1), 10)
        c.reset(seed=99)
        after = (
            e.agent_selection,
            list(e.unwrapped.game.events),
            e.unwrapped.observe(e.agent_selection)["observation"].tobytes(),
        )
        assert before == after
        copies = _copies(e)
        reference = _aec_trace(e, np.random.default_rng(9), 40)  # to the end, and a new hand
        for how, c in copies.items():
            assert c.unwrapped.game is not e.unwrapped.game
            assert _aec_trace(c, np.random.default_rng(9), 40) == reference, (name, how)


@pytest.mark.parametrize("env_id", ["SieteYMedia-Punter-v0", "SieteYMedia-Banker-v0"])
def test_gymnasium_view_copies_mid_hand(env_id):
    e = gym.make(env_id).unwrapped
    obs, info = e.reset(seed=3)
    rng = np.random.default_rng(0)

    def run(env, rng, steps):
        out = []
        for _ in range(steps):
            mask = env.action_masks()
            a = int(rng.choice(np.flatnonzero(mask)))
            o, r, term, trunc, _ = env.step(a)
            out.append((a, o.tobytes(), r, term, trunc))
            if term or trunc:
                env.reset()
        return out

    run(e, rng, 1)
    copies = _copies(e)
    reference = run(e, np.random.default_rng(5), 12)
    for c in copies.values():
        assert c.table.game is not e.table.game
        assert run(c, np.random.default_rng(5), 12) == reference


@pytest.mark.filterwarnings("ignore:Agent's (minimum|maximum) observation space value:UserWarning")
def test_flat_observation_wrapper_passes_the_api_test_with_the_mask_in_the_info():
    import warnings

    from pettingzoo.test import api_test

    from siete_env.flat import FlatObservation

    e = FlatObservation(siete_env.env(num_players=3))
    e.reset(seed=0)
    obs, _, _, _, info = e.last()
    assert e.observation_space("player_0").contains(obs)
    assert (info["action_mask"] == e.unwrapped.observe(e.agent_selection)["action_mask"]).all()
    assert (e.infos[e.agent_selection]["action_mask"] == info["action_mask"]).all()
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="ignoring unknown reset option")  # api_test's options=...
        api_test(FlatObservation(siete_env.env(num_players=2)), num_cycles=30)
