"""The registries: PettingZoo's ``SieteYMedia-v0`` (api, seed and render tests through
``pettingzoo.make`` for every preset) and Gymnasium's ids; the ``rgb_array`` frames."""

from __future__ import annotations

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import siete_env
from siete_env import PRESETS, raw_env
from siete_env.render import frame_shape

ID = "SieteYMedia-v0"


def make(**kwargs):
    return pettingzoo.make("aec", ID, **kwargs)


def test_pettingzoo_registry():
    assert siete_env.PETTINGZOO_ID == ID
    spec = pettingzoo.spec("aec", ID)
    assert spec.entry_point == "siete_env.aec:env" and spec.kwargs == {"num_players": 2, "rules": "spanish"}
    assert pettingzoo.spec("aec", "SieteYMedia") is spec  # unversioned: the latest version
    e = make(num_players=4, rules="italian")
    assert e.unwrapped.num_players == 4 and e.unwrapped.rules.preset == "italian"
    assert isinstance(e, pettingzoo.AECEnv) and e.unwrapped is not e  # the wrapped env()
    e.reset(seed=0)
    assert len(e.agents) == 4
    with pytest.raises(ValueError, match="unknown rules preset"):
        make(rules="klondike")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_pettingzoo_tests_through_the_registry(preset):
    for n in (2, 4):
        api_test(make(num_players=n, rules=preset), num_cycles=60)
        seed_test(lambda n=n: make(num_players=n, rules=preset), num_cycles=60)
        render_test(lambda render_mode=None, n=n: make(num_players=n, rules=preset, render_mode=render_mode))


def test_gymnasium_ids_after_import():
    for env_id, role in (("SieteYMedia-Punter-v0", "punter"), ("SieteYMedia-Banker-v0", "banker")):
        e = gymnasium.make(env_id, rules="spanish", num_players=3, opponents="smart:6", render_mode="rgb_array")
        assert e.unwrapped.role == role
        obs, _ = e.reset(seed=0)
        assert e.observation_space.contains(obs)
        frame = e.render()
        assert frame.shape == frame_shape(3, e.unwrapped.table.game.hands_per_seat) and frame.dtype == np.uint8


def test_gymnasium_frames_through_a_render_wrapper():
    """What RecordVideo records: ``rgb_array`` frames of one shape over whole episodes."""
    from gymnasium.wrappers import RenderCollection

    e = RenderCollection(gymnasium.make("SieteYMedia-Punter-v0", opponents="banker:6", render_mode="rgb_array"))
    rng = np.random.default_rng(0)
    for episode in range(3):
        e.reset(seed=episode)
        done = False
        while not done:
            mask = e.unwrapped.action_masks()
            _, _, term, trunc, _ = e.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
        frames = e.render()
        assert len(frames) >= 2 and len({f.shape for f in frames}) == 1 and frames[0].dtype == np.uint8


def _frame(deck, script, n=2, rules="spanish"):
    e = raw_env(num_players=n, rules=rules, render_mode="rgb_array")
    e.reset(seed=0, options={"deck": deck, "banker": 0})
    for name in script:
        e.step(e.action_id(name))
    return e.render(), e


def test_rgb_frame_shape_and_hidden_cards_as_backs():
    """The frame has the table's fixed shape; a face-down card is drawn as a back: two tables
    that differ only in a hidden card give the same pixels until it is shown."""
    a, e = _frame(["5o", "7c", "1b"], ["BET_2", "HIT_UP"])
    assert a.shape == frame_shape(2, e.game.hands_per_seat) and a.dtype == np.uint8
    # the punter's hidden card (5o vs 6e), the banker's hidden card (7c vs 12b)
    b, _ = _frame(["6e", "7c", "1b"], ["BET_2", "HIT_UP"])
    c, _ = _frame(["5o", "12b", "1b"], ["BET_2", "HIT_UP"])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    # a face-up card is drawn: another face-up card changes the frame
    d, _ = _frame(["5o", "7c", "2b"], ["BET_2", "HIT_UP"])
    assert (a != d).any()
    # once shown (the punter stands, the banker's card is turned up) they differ
    e1, _ = _frame(["5o", "7c", "1b"], ["BET_2", "HIT_UP", "STAND"])
    e2, _ = _frame(["5o", "12b", "1b"], ["BET_2", "HIT_UP", "STAND"])
    assert (e1 != e2).any()
    # with several punters: another punter's hidden card never changes the frame either
    f1, _ = _frame(["5o", "1c", "7c"], ["BET_1", "STAND"], n=3)
    f2, _ = _frame(["5o", "6c", "7c"], ["BET_1", "STAND"], n=3)
    np.testing.assert_array_equal(f1, f2)


def test_rgb_frame_every_preset_keeps_its_shape():
    rng = np.random.default_rng(0)
    for preset in PRESETS:
        e = raw_env(num_players=3, rules=preset, render_mode="rgb_array")
        e.reset(seed=1)
        shape = e.render().shape
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            assert e.render().shape == shape
