"""The centralised critic (``<role>.ppo.central_critic``): the batched engine's
``critic_view`` observations (the learner's own, then the other seats') and
``training.ppo.CentralCriticPolicy`` (the actor reads its own seat's features only)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("sb3_contrib")

from siete_env.batched.vector import SB3VecEnv, SeatVectorEnv, random_legal_actions  # noqa: E402

from .tolerance import PROBS

RULES = {"preset": "spanish", "max_splits": 0}


def _pair(role: str, seed: int = 5, tables: int = 64):
    kw = dict(num_envs=tables, role=role, rules=RULES, opponents="random", fold_suits="auto", seed=seed)
    return SeatVectorEnv(**kw), SeatVectorEnv(**kw, critic_view=True)


@pytest.mark.parametrize("role", ["banker", "punter"])
def test_critic_view_is_the_learner_view_then_the_other_seat(role):
    plain, wide = _pair(role)
    d = wide.learner_size
    assert plain.single_observation_space.shape == (d,)
    assert wide.single_observation_space.shape == (2 * d,)
    a, ia = plain.reset()
    b, ib = wide.reset()
    assert wide.single_observation_space.contains(b[0])
    rng = np.array([7], np.uint64)
    hidden_seen = False
    for _ in range(60):
        np.testing.assert_array_equal(a, b[:, :d])  # the actor's part: exactly the seat's own view
        np.testing.assert_array_equal(ia["action_mask"], ib["action_mask"])
        other, _ = wide.tables.observe(wide.tables.all, 1, fold=wide.fold)
        np.testing.assert_array_equal(b[:, d:], other)
        # tables whose learner sees the same thing but whose critic part differs: it knows more
        _, first = np.unique(b[:, :d], axis=0, return_inverse=True)
        for g in np.unique(first):
            rows = b[first.ravel() == g, d:]
            hidden_seen |= len(np.unique(rows, axis=0)) > 1
        actions = random_legal_actions(ia["action_mask"], rng.copy())
        a, ra, ta, _, ia = plain.step(actions)
        b, rb, tb, _, ib = wide.step(actions)
        rng[0] += 1
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(ta, tb)
        if ta.any():
            fa, fb = ia["final_obs"][ta], ib["final_obs"][tb]
            np.testing.assert_array_equal(fa, fb[:, :d])
            assert not fb[:, d:].any()  # the hand is over: nothing past the learner's part
    assert hidden_seen


def test_critic_view_must_be_a_bool():
    with pytest.raises(ValueError, match="critic_view must be True or False"):
        SeatVectorEnv(num_envs=2, role="banker", rules=RULES, critic_view="yes")


def test_central_critic_policy_acts_on_its_own_seat_only(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    from agents.learned import PPOAgent, load_policy
    from siete_env import raw_env
    from training.ppo import CentralCriticPolicy

    _, wide = _pair("banker", tables=16)
    d = wide.learner_size
    kw = {"actor_features": d, "net_arch": [32, 32], "activation_fn": torch.nn.Tanh}
    model = MaskablePPO(CentralCriticPolicy, SB3VecEnv(wide), n_steps=16, batch_size=64, n_epochs=1,
                        policy_kwargs=kw, device="cpu", seed=0)  # fmt: skip
    model.learn(512)
    policy = model.policy
    assert policy.mlp_extractor.policy_net[0].in_features == d
    assert policy.mlp_extractor.value_net[0].in_features == 2 * d
    obs, info = wide.reset()
    x = torch.as_tensor(obs)
    other = x.clone()
    other[:, d:] = torch.as_tensor(obs[::-1, d:].copy()) + 1.0  # only the critic's part changes
    masks = info["action_mask"]
    with torch.no_grad():
        p1 = policy.get_distribution(x, action_masks=masks).distribution.probs
        p2 = policy.get_distribution(other, action_masks=masks).distribution.probs
        v1, v2 = policy.predict_values(x), policy.predict_values(other)
    torch.testing.assert_close(p1, p2)
    assert not torch.allclose(v1, v2)
    # saved and loaded, the actor plays at an ordinary table from the seat's own view
    path = tmp_path / "banker.zip"
    model.save(path)
    again = MaskablePPO.load(path, device="cpu")
    assert isinstance(again.policy, CentralCriticPolicy) and again.policy.actor_features == d
    assert load_policy(str(path)).input_size == d
    agent = PPOAgent(raw_env(num_players=2, rules=RULES), str(path), greedy=False)
    raw_obs, raw_masks = wide.tables.observe(wide.tables.all, 0)  # the table's own (unfolded) view
    got = agent.action_probs(raw_obs, raw_masks)
    np.testing.assert_allclose(got, p1.numpy(), atol=PROBS)


def test_central_critic_policy_refuses_a_bad_actor_size():
    import torch
    from sb3_contrib import MaskablePPO

    from training.ppo import CentralCriticPolicy

    _, wide = _pair("banker", tables=2)
    for bad in (0, 1000):
        with pytest.raises(ValueError, match="actor_features must be in 1..158"):
            MaskablePPO(CentralCriticPolicy, SB3VecEnv(wide), n_steps=8, batch_size=8, device="cpu",
                        policy_kwargs={"actor_features": bad, "activation_fn": torch.nn.Tanh})  # fmt: skip


def test_central_critic_needs_the_batched_engine():
    from training.config import TrainConfig

    role = {"steps": 100, "ppo": {"central_critic": True}}
    with pytest.raises(ValueError, match="central_critic needs vec_env: batched"):
        TrainConfig(generations=1, vec_env="dummy", punter=role, banker={"steps": 100})
