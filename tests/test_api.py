"""PettingZoo's own API and seed tests, rendering, spaces, errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import siete_env
from siete_env import IllegalActionError, env, raw_env


@pytest.mark.parametrize("n", range(2, 9))
def test_pettingzoo_api(n):
    api_test(env(num_players=n), num_cycles=300)
    api_test(raw_env(num_players=n, rules={"hands_per_episode": 3}), num_cycles=300)


@pytest.mark.parametrize("n", range(2, 9))
def test_pettingzoo_seed(n):
    seed_test(lambda: env(num_players=n), num_cycles=300)


def test_twelve_players_accepted():
    e = env(num_players=12)
    e.reset(seed=0)
    assert len(e.agents) == 12


def test_action_table_names():
    e = raw_env()
    assert e.action_names[:6] == ("STAND", "HIT_UP", "HIT_DOWN", "SWAP_FOUR", "SPLIT", "KEEP")
    assert e.action_names[6:] == tuple(f"BET_{k}" for k in range(1, 6)) + tuple(f"RAISE_{k}" for k in range(2, 6))
    assert e.action_id("HIT_DOWN") == 2
    with pytest.raises(ValueError, match="unknown action name 'FOLD'"):
        e.action_id("FOLD")


def test_spaces_are_shared_and_observations_fit():
    e = raw_env(num_players=4)
    e.reset(seed=3)
    a, b = e.possible_agents[:2]
    assert e.observation_space(a) is e.observation_space(b)
    assert e.action_space(a) is e.action_space(b)
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        assert e.observation_space(agent).contains(obs)
        assert obs["action_mask"].dtype == np.int8
        if term or trunc:
            e.step(None)
            continue
        assert tuple(e.action_names[i] for i in np.flatnonzero(obs["action_mask"])) == info["legal_actions"]
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert e.state().shape == e.state_space.shape


def test_render_ansi_and_human(capsys):
    e = env(num_players=3, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert "banker" in text and "punter" in text and "betting" in text and "hand 1 ·" in text
    h = env(num_players=2, render_mode="human")
    h.reset(seed=1)
    h.render()
    assert "banker" in capsys.readouterr().out


def test_illegal_action_on_raw_env_names_the_problem():
    e = raw_env()
    e.reset(seed=0, options={"banker": 0, "deck": ["5o", "4c"]})
    with pytest.raises(
        IllegalActionError, match=r"player_1: illegal action 0 \(STAND\).*phase BET.*legal actions now: \['BET_1'"
    ):
        e.step(0)
    with pytest.raises(IllegalActionError, match="illegal action 99"):
        e.step(99)
    # nothing was applied
    assert e.agent_selection == "player_1" and e.game.phase == 0


def test_illegal_action_through_wrappers_ends_the_game():
    e = env()
    e.reset(seed=0, options={"banker": 0, "deck": ["5o", "4c"]})
    e.step(0)  # STAND while betting: PettingZoo's TerminateIllegalWrapper
    assert all(e.terminations.values())
    assert e.rewards["player_1"] == -1


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"num_players": 1}, "num_players must be 2..12"),
        ({"num_players": 13}, "num_players must be 2..12"),
        ({"num_players": "2"}, "num_players must be an integer"),
        ({"rules": "klondike"}, "unknown rules preset 'klondike'; allowed presets: spanish"),
        ({"rules": {"fourswap": "off"}}, "unknown rule option.*'fourswap'.*allowed options: .*four_swap"),
        ({"rules": {"four_swap": "sometimes"}}, "four_swap.*'off', 'optional' or 'mandatory'"),
        ({"rules": {"bet_levels": [3, 1]}}, "bet_levels must be distinct positive integers in increasing order"),
        ({"rules": {"bet_levels": []}}, "bet_levels"),
        ({"rules": {"hands_per_episode": 0}}, "hands_per_episode"),
        ({"rules": 5}, "rules must be a preset name"),
        ({"render_mode": "svg"}, "render_mode must be None, 'ansi', 'human' or 'rgb_array'"),
    ],
)
def test_bad_construction_is_refused_clearly(kwargs, message):
    with pytest.raises(ValueError, match=message):
        raw_env(**kwargs)


@pytest.mark.parametrize(
    "options,message",
    [
        ({"deck": ["5o", "13o"]}, "unknown card id '13o'"),
        ({"deck": ["5o", "5o"]}, "card '5o' is listed twice"),
        ({"deck": "5o 4c"}, "a deck is a list of card ids"),
        ({"banker": 2}, "reset option 'banker' must be a seat 0..1"),
    ],
)
def test_bad_reset_options_are_refused_and_nothing_changes(options, message):
    e = raw_env()
    e.reset(seed=5)
    before = (e.agent_selection, e.game.deck[:], e.game.banker)
    with pytest.raises(ValueError, match=message):
        e.reset(options=options)
    assert (e.agent_selection, e.game.deck[:], e.game.banker) == before


def test_unknown_reset_option_warns():
    e = raw_env()
    with pytest.warns(
        UserWarning, match=r"ignoring unknown reset option\(s\) \['dealer'\]; known options: \['deck', 'banker'\]"
    ):
        e.reset(seed=0, options={"dealer": 0})


def test_banker_drawn_by_lot_and_set_by_option():
    seen = set()
    e = raw_env(num_players=4)
    for seed in range(40):
        e.reset(seed=seed)
        seen.add(e.game.banker)
    assert seen == {0, 1, 2, 3}
    e.reset(seed=1, options={"banker": 2})
    assert e.game.banker == 2 and e.infos["player_2"]["role"] == "banker"


def test_rewards_in_units_of_the_minimum_stake_and_package_metadata():
    assert siete_env.__version__
    assert raw_env.metadata["name"] == "siete_y_media_v0"


def test_action_space_contains_agrees_with_gymnasium_discrete():
    from gymnasium.spaces import Discrete

    ours, ref = raw_env().action_space("player_0"), Discrete(15)
    assert isinstance(ours, Discrete) and ours.n == ref.n
    for x in [
        0,
        14,
        15,
        -1,
        3,
        True,
        np.int64(3),
        np.int8(-1),
        np.int64(15),
        2.0,
        "3",
        None,
        np.array(3),
        np.array([3]),
    ]:
        assert ours.contains(x) == ref.contains(x), x
