"""The single-seat Gymnasium views (``siete_env.gym_env.SeatEnv``): registration and
``check_env``, the learner's reward bookkeeping on stacked decks (exact chips worked out
by hand), skipped episodes, determinism and errors."""

from __future__ import annotations

import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import siete_env  # noqa: F401  (registers the ids)
from siete_env.gym_env import SeatEnv

IDS = {"punter": "SieteYMedia-Punter-v0", "banker": "SieteYMedia-Banker-v0"}


def _ids(env) -> dict[str, int]:
    return {name: i for i, name in enumerate(env.unwrapped.action_names)}


def _run(env, names):
    """Step the learner through ``names``; returns the list of (reward, terminated)."""
    A = _ids(env)
    out = []
    for name in names:
        _, r, term, trunc, info = env.step(A[name])
        assert trunc is False
        out.append((r, term))
    return out, info


# --------------------------------------------------------------------------- registration
@pytest.mark.parametrize("role", ["punter", "banker"])
@pytest.mark.parametrize("preset", ["spanish", "italian", "french"])
@pytest.mark.parametrize("fold", [False, True])
def test_registered_ids_pass_check_env(role, preset, fold):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium's advice on infinite Box bounds, render fps
        env = gymnasium.make(IDS[role], rules=preset, fold_suits=fold, opponents="random")
        raw = env.unwrapped
        assert isinstance(raw, SeatEnv) and raw.role == role
        check_env(raw)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    m = raw.action_masks()
    assert m.dtype == np.bool_ and m.shape == (env.action_space.n,)
    np.testing.assert_array_equal(m, info["action_mask"].astype(bool))
    assert m.any()
    # each step keeps mask and info in agreement, and the learner only decides legally
    rng = np.random.default_rng(0)
    for _ in range(60):
        a = int(rng.choice(np.flatnonzero(raw.action_masks())))
        obs, r, term, trunc, info = env.step(a)
        assert env.observation_space.contains(obs)
        np.testing.assert_array_equal(raw.action_masks(), info["action_mask"].astype(bool))
        if term:
            assert not raw.action_masks().any()
            obs, info = env.reset()
    env.close()


def test_registered_defaults_and_roles():
    p = gymnasium.make(IDS["punter"]).unwrapped
    b = gymnasium.make(IDS["banker"]).unwrapped
    assert (p.role, p.num_players, p.banker_seat) == ("punter", 2, 1)
    assert (b.role, b.num_players, b.banker_seat) == ("banker", 2, 0)
    _, info = p.reset(seed=0)
    assert info["role"] == "punter"
    _, info = b.reset(seed=0)
    assert info["role"] == "banker"


# --------------------------------------------------------------------------- reward bookkeeping
def test_punter_wins_when_the_banker_busts():
    # Heads-up, learner seat 0 is the punter, banker:6 at seat 1. Deal: learner 5o
    # (hidden), banker 4c. Learner bets 2, hits 2e -> 7, stands. Banker:6 hits below 6:
    # 4 + 7e = 11 busts, so it pays the standing punter its stake: +2, all of it at the
    # STAND step (the banker plays inside that step), nothing before.
    env = SeatEnv(role="punter", opponents="banker:6", seed=0)
    _, info = env.reset(seed=1, options={"deck": ["5o", "4c", "2e", "7e"]})
    assert info["hand"] == ["5o*"] and info["reward_before_first_decision"] == 0
    steps, info = _run(env, ["BET_2", "HIT_UP", "STAND"])
    assert steps == [(0.0, False), (0.0, False), (2.0, True)]
    assert info["chips"] == 2.0
    assert list(env.table.game.chips) == [2, -2]  # the banker's -2 never reaches the learner


def test_punter_bust_pays_at_once_and_ends_the_episode():
    # Learner 6o, banker 4c; bet 4, hit 5e: 6 + 5 = 11 busts -> -4 at that step, episode over.
    env = SeatEnv(role="punter", opponents="banker:6", seed=0)
    env.reset(seed=2, options={"deck": ["6o", "4c", "5e"]})
    steps, info = _run(env, ["BET_4", "HIT_UP"])
    assert steps == [(0.0, False), (-4.0, True)]
    assert info["chips"] == -4.0 and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_punter_seven_and_a_half_is_paid_twice_the_stake():
    # Learner 7o, banker 4c; bet 3, hit 10e (sota, 1/2): 7½ ends the punter's turn by
    # itself. Banker:6 hits 4 + 2b = 6 and stands: the punter's 7½ is paid 2 x 3 = +6.
    env = SeatEnv(role="punter", opponents="banker:6", seed=0)
    env.reset(seed=3, options={"deck": ["7o", "4c", "10e", "2b"]})
    steps, info = _run(env, ["BET_3", "HIT_UP"])
    assert steps == [(0.0, False), (6.0, True)]
    assert info["chips"] == 6.0


def test_punter_learner_position_two_gets_the_second_card():
    # 3 players, the learner is the 2nd punter to play: banker at seat 1, turn order
    # seat 2 (threshold:5.5), then the learner. Deal: seat 2 gets 5o, the learner 6c, the
    # banker 4e. Seat 2 (5, hidden 5 >= 4) hits face-up 7e: 12 busts (-1 for seat 2, not
    # the learner's). Learner bets 1, stands on 6; the banker (threshold:5.5 plays the
    # bank like banker:6) hits below 6: 4 + 3b = 7 beats 6 -> learner -1, only its own.
    env = SeatEnv(role="punter", num_players=3, position=2, opponents="threshold:5.5", seed=0)
    _, info = env.reset(seed=4, options={"deck": ["5o", "6c", "4e", "7e", "3b"]})
    assert env.banker_seat == 1
    assert info["hand"] == ["6c*"] and info["reward_before_first_decision"] == 0
    steps, info = _run(env, ["BET_1", "STAND"])
    assert steps == [(0.0, False), (-1.0, True)]
    assert list(env.table.game.chips) == [-1, 2, -1]


@pytest.mark.parametrize(
    "deck, script, expected",
    [
        # Punter threshold:5.5 holds 3o (hidden, < 4) -> HIT_DOWN 2e (total 5, hidden 2)
        # -> HIT_DOWN 1b: total 6 >= 5.5, stands (stake 1). Banker learner holds 5c.
        # Hits 2c -> 7, stands: 7 beats 6 -> +1 at the STAND step.
        (["3o", "5c", "2e", "1b", "2c"], ["HIT_UP", "STAND"], [(0.0, False), (1.0, True)]),
        # Same punter; the banker stands on 5: 5 < 6 -> the banker pays 1.
        (["3o", "5c", "2e", "1b"], ["STAND"], [(-1.0, True)]),
        # Banker hits 3c: 5 + 3 = 8 busts -> pays 1 at the HIT_UP step.
        (["3o", "5c", "2e", "1b", "3c"], ["HIT_UP"], [(-1.0, True)]),
        # Banker ties at 6 (5 + 1c): ties go to the banker -> +1.
        (["3o", "5c", "2e", "1b", "1c"], ["HIT_UP", "STAND"], [(0.0, False), (1.0, True)]),
    ],
)
def test_banker_learner_against_threshold(deck, script, expected):
    env = SeatEnv(role="banker", opponents="threshold:5.5", seed=0)
    _, info = env.reset(seed=5, options={"deck": deck})
    assert info["role"] == "banker" and info["hand"] == ["5c"]
    assert info["reward_before_first_decision"] == 0 and info["skipped_episodes"] == 0
    # the punter played its hand inside reset: 3 up, 2 up, 1 hidden
    punter_info = env.table.infos["player_1"]
    assert punter_info["hand"] == ["3o", "2e", "1b*"] and punter_info["stake"] == 1
    steps, info = _run(env, script)
    assert steps == expected
    assert info["chips"] == sum(r for r, _ in expected)


def test_three_player_banker_chips_before_its_first_decision_are_left_out():
    # Banker learner at seat 0, punters seats 1 and 2 (threshold:5.5). Deal: seat 1 5o,
    # seat 2 6c, banker 4e. Seat 1 (5, hidden 5 >= 4) hits face-up 7e: 12 busts and pays
    # its stake 1 to the banker BEFORE the banker has decided anything: that +1 goes to
    # info["reward_before_first_decision"], not into the returned rewards. Seat 2 stands
    # on 6 (stake 1). Banker hits 3b -> 7, stands: beats 6 -> +1, its own decisions' chips.
    env = SeatEnv(role="banker", num_players=3, opponents="threshold:5.5", seed=0)
    _, info = env.reset(seed=6, options={"deck": ["5o", "6c", "4e", "7e", "3b"]})
    assert info["reward_before_first_decision"] == 1.0
    assert info["skipped_episodes"] == 0
    steps, info = _run(env, ["HIT_UP", "STAND"])
    assert steps == [(0.0, False), (1.0, True)]
    chips = list(env.table.game.chips)
    assert chips == [2, -1, -1]
    returned = sum(r for r, _ in steps)
    # never another seat's reward: minus the punters' chips, minus what came before
    assert returned == -(chips[1] + chips[2]) - 1.0
    assert info["chips"] == 2.0  # the episode's chips (both parts)


def test_three_player_banker_pays_the_remaining_punter():
    # As above, but the banker stands on 4: seat 2's 6 beats it -> -1 on the STAND step;
    # the +1 from seat 1's bust stays out of the returned rewards.
    env = SeatEnv(role="banker", num_players=3, opponents="threshold:5.5", seed=0)
    _, info = env.reset(seed=6, options={"deck": ["5o", "6c", "4e", "7e"]})
    assert info["reward_before_first_decision"] == 1.0
    steps, info = _run(env, ["STAND"])
    assert steps == [(-1.0, True)]
    assert list(env.table.game.chips) == [0, -1, 1]


@pytest.mark.parametrize("role", ["punter", "banker"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_step_rewards_add_up_to_the_learners_chips_from_its_first_decision(role, n):
    env = SeatEnv(role=role, num_players=n, opponents=["random", "threshold:5", "smart:6", "bold:5.5"], seed=n)
    rng = np.random.default_rng(n)
    saw_before = False
    for ep in range(300):
        _, info = env.reset()
        before = info["reward_before_first_decision"]
        saw_before |= before != 0
        total, done = 0.0, False
        while not done:
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, r, done, _, info = env.step(a)
            total += r
        chips = env.table.game.chips
        assert total + before == info["chips"] == chips[0], (ep, total, before, list(chips))
        if role == "banker":
            assert total == -sum(chips[1:]) - before
        else:
            assert before == 0  # a punter's chips never move before it bets
    if role == "banker" and n > 2:
        assert saw_before  # the case did come up


# --------------------------------------------------------------------------- skipped episodes
def test_banker_learner_skips_episodes_without_a_decision():
    # Heads-up: the punter threshold:5.5 holds 5o (hidden 5 >= 4), hits face-up 7e: 12
    # busts. Nobody stands, the banker never plays: that episode is skipped by reset.
    env = SeatEnv(role="banker", opponents="threshold:5.5", seed=0)
    _, info = env.reset(seed=7, options={"deck": ["5o", "4c", "7e"]})
    assert info["skipped_episodes"] >= 1
    assert env.action_masks().any()  # a real decision now
    assert info["role"] == "banker"
    assert env.table.infos["player_1"]["hand"] != ["5o", "7e"]  # a later, fresh deal


# --------------------------------------------------------------------------- determinism
def _trajectory(seed, role="punter", n=3, episodes=40):
    env = SeatEnv(role=role, num_players=n, opponents="random")
    rng = np.random.default_rng(123)  # the learner's own choices: the same in both runs
    out = []
    obs, info = env.reset(seed=seed)
    out.append(obs.tobytes())
    for _ in range(episodes):
        done = False
        while not done:
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, r, done, _, info = env.step(a)
            out.append((obs.tobytes(), r))
        obs, info = env.reset()
        out.append((obs.tobytes(), info["reward_before_first_decision"], info["skipped_episodes"]))
    return out


@pytest.mark.parametrize("role", ["punter", "banker"])
def test_same_seed_same_game_other_seed_other_game(role):
    a, b, c = _trajectory(11, role), _trajectory(11, role), _trajectory(12, role)
    assert len(a) > 80
    assert a == b
    assert a != c


def test_reseeding_the_same_env_replays():
    env = SeatEnv(role="punter", opponents="random")
    first = env.reset(seed=9)[0]
    seq1 = [env.step(int(np.flatnonzero(env.action_masks())[-1]))[1] for _ in range(1)]
    second = env.reset(seed=9)[0]
    seq2 = [env.step(int(np.flatnonzero(env.action_masks())[-1]))[1] for _ in range(1)]
    np.testing.assert_array_equal(first, second)
    assert seq1 == seq2


def test_global_rngs_untouched():
    random.seed(5)
    np.random.seed(5)
    py_state, np_state = random.getstate(), np.random.get_state()
    env = SeatEnv(role="banker", num_players=3, opponents=["random", "smart:6"])
    rng = np.random.default_rng(0)
    env.reset(seed=1)
    for _ in range(300):
        _, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if done:
            env.reset()
    assert random.getstate() == py_state
    after = np.random.get_state()
    assert after[0] == np_state[0] and (after[1] == np_state[1]).all() and after[2:] == np_state[2:]


# --------------------------------------------------------------------------- errors
def test_unknown_role():
    with pytest.raises(ValueError, match="role must be 'punter' or 'banker'.*'dealer'"):
        SeatEnv(role="dealer")


def test_bad_opponent_spec_names_the_allowed_specs():
    with pytest.raises(ValueError) as err:
        gymnasium.make(IDS["punter"], opponents="foo:1")
    msg = str(err.value)
    assert "foo:1" in msg
    for allowed in ("random", "threshold:T", "banker:B", "smart:B", "bold:T", "ppo:"):
        assert allowed in msg
    with pytest.raises(ValueError, match="threshold:9"):
        SeatEnv(opponents=["random", "threshold:9"])


def test_set_opponents_with_a_bad_spec_changes_nothing():
    env = SeatEnv(role="punter", opponents="banker:6", seed=0)
    pool = env._pool
    with pytest.raises(ValueError, match="unknown agent spec"):
        env.set_opponents(["smart:6", "nope"])
    assert env._pool is pool


@pytest.mark.parametrize("deck", [["99x"], ["5o", "5o"], ["5o", "banana"]])
def test_bad_deck_is_refused_and_changes_nothing(deck):
    env = SeatEnv(role="punter", opponents="banker:6", seed=0)
    obs, _ = env.reset(seed=1, options={"deck": ["5o", "4c", "2e", "7e"]})
    with pytest.raises(ValueError):
        env.reset(options={"deck": deck})
    # the episode in progress is untouched: the stacked hand plays out as before
    np.testing.assert_array_equal(env._observe(), obs)
    steps, _ = _run(env, ["BET_2", "HIT_UP", "STAND"])
    assert steps[-1] == (2.0, True)


def test_unknown_reset_option():
    env = SeatEnv(opponents="banker:6")
    with pytest.raises(ValueError, match="deck"):
        env.reset(options={"banker": 1})


def test_illegal_action_raise_names_the_legal_ones_and_changes_nothing():
    env = SeatEnv(role="punter", opponents="banker:6", illegal_action="raise", seed=0)
    twin = SeatEnv(role="punter", opponents="banker:6", illegal_action="raise", seed=0)
    deck = ["5o", "4c", "2e", "7e"]
    obs, _ = env.reset(seed=1, options={"deck": deck})
    twin.reset(seed=1, options={"deck": deck})
    A = _ids(env)
    with pytest.raises(ValueError) as err:
        env.step(A["STAND"])  # betting: STAND is not legal
    msg = str(err.value)
    assert "STAND" in msg and all(f"BET_{k}" in msg for k in range(1, 6))
    assert "HIT_UP" not in msg
    np.testing.assert_array_equal(env._observe(), obs)
    np.testing.assert_array_equal(env.action_masks(), twin.action_masks())
    # the game goes on exactly as the twin's
    for name in ["BET_2", "HIT_UP", "STAND"]:
        a, b = env.step(A[name]), twin.step(A[name])
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1:4] == b[1:4]
    assert a[1] == 2.0


def test_illegal_action_terminate():
    env = SeatEnv(role="punter", opponents="banker:6", illegal_reward=-7.0, seed=0)
    env.reset(seed=1, options={"deck": ["5o", "4c"]})
    obs, r, term, trunc, info = env.step(_ids(env)["STAND"])
    assert (r, term, trunc) == (-7.0, True, False)
    assert "STAND" in info["illegal_action"] and "BET_1" in info["illegal_action"]
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError):
        env.step(_ids(env)["BET_1"])


@pytest.mark.parametrize("action", [15, -1, 99])
def test_action_outside_the_space_raises(action):
    env = SeatEnv(role="punter", opponents="banker:6", seed=0)
    env.reset(seed=0)
    before = env._observe().copy()
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(action)
    np.testing.assert_array_equal(env._observe(), before)


def test_step_before_reset_raises():
    env = SeatEnv(role="punter", opponents="banker:6")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(6)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"position": 2}, "position"),
        ({"fold_suits": "maybe"}, "fold_suits"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"render_mode": "human"}, "render_mode"),
        ({"opponents": []}, "empty"),
        ({"opponents": {"random": -1.0}}, "weights"),
        ({"rules": "klingon"}, "klingon"),
    ],
)
def test_bad_constructor_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SeatEnv(**kwargs)


@pytest.mark.parametrize(
    "rules",
    [
        {"preset": "spanish", "hands_per_episode": 3},  # sessions: the bank can pass mid-episode
        {"preset": "italian", "hands_per_episode": 4},
        "spanish_full",  # canto, fusilar, the bank auction
        {"preset": "spanish", "side_bets": True},
        "french",
    ],
)
@pytest.mark.parametrize("role", ["punter", "banker"])
def test_bookkeeping_on_other_rules(rules, role):
    env = SeatEnv(role=role, num_players=3, rules=rules, opponents=["random", "smart:6", "bold:5"], seed=1)
    rng = np.random.default_rng(0)
    for ep in range(120):
        _, info = env.reset()
        before, total, done = info["reward_before_first_decision"], 0.0, False
        while not done:
            _, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            total += r
        assert total + before == pytest.approx(env.table.game.chips[0]), ep


def test_constructor_seed_equals_reset_seed():
    a, _ = SeatEnv(opponents="random", seed=5).reset()
    b, _ = SeatEnv(opponents="random").reset(seed=5)
    c, _ = gymnasium.make(IDS["punter"], seed=5).reset()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
