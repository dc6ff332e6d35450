"""The numpy copy of a MaskablePPO actor (``agents.learned.MLPPolicy``) against the torch
policy it was copied from, the greedy ``PPOAgent`` against ``model.predict``, and loading a
saved model through the ``ppo:PATH`` spec."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

from agents.learned import MLPPolicy, PPOAgent, load_policy  # noqa: E402
from agents.specs import make_agent  # noqa: E402
from agents.tournament import play_match  # noqa: E402
from siete_env import raw_env  # noqa: E402
from siete_env.features import fold_suits  # noqa: E402
from siete_env.gym_env import SeatEnv  # noqa: E402

from .tolerance import PROBS  # noqa: E402


def _model(activation, role="punter", n=2, seed=0):
    from sb3_contrib import MaskablePPO

    env = SeatEnv(role=role, num_players=n, opponents="banker:6" if role == "punter" else "threshold:5.5",
                  fold_suits=True, seed=seed)  # fmt: skip
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=64, seed=seed, device="cpu",
        policy_kwargs={"net_arch": [32, 16], "activation_fn": act},
    )  # fmt: skip
    # A fresh action head is scaled by 0.01 (near-uniform probabilities): give every
    # weight a real spread so that the comparison means something.
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.policy.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.5)
    return model, env


def _situations(env, steps=400, seed=0):
    """(folded observations, masks, raw observation dicts) of the learner on random play."""
    rng = np.random.default_rng(seed)
    xs, ms, raws = [], [], []
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        m = env.action_masks()
        raw = env.table.observe("player_0")
        xs.append(obs.copy())
        ms.append(m.copy())
        raws.append({"observation": raw["observation"].copy(), "action_mask": raw["action_mask"].copy()})
        obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(m))))
        if done:
            obs, _ = env.reset()
    return np.array(xs), np.array(ms), raws


def _torch_probs(model, xs, ms):
    with torch.no_grad():
        obs_t = torch.as_tensor(xs, dtype=torch.float32)
        dist = model.policy.get_distribution(obs_t, action_masks=ms)
        return dist.distribution.probs.numpy().astype(np.float64)


@pytest.fixture(scope="module", params=["tanh", "relu"])
def tiny(request):
    model, env = _model(request.param)
    return model, env, _situations(env)


def test_mlp_policy_probs_equal_the_torch_distribution(tiny):
    model, env, (xs, ms, _) = tiny
    pol = MLPPolicy.from_model(model)
    assert pol.activation == {torch.nn.Tanh: "Tanh", torch.nn.ReLU: "ReLU"}[model.policy.activation_fn]
    assert pol.input_size == xs.shape[1] and pol.n_actions == ms.shape[1]
    mine = pol.probs(xs, ms)
    theirs = _torch_probs(model, xs, ms)
    np.testing.assert_allclose(mine, theirs, atol=PROBS)
    assert (mine[~ms] == 0).all()
    np.testing.assert_allclose(mine.sum(axis=1), 1.0)
    assert mine.max(axis=1).min() < 0.99 and mine.max(axis=1).max() > 0.6  # not trivial
    # one observation at a time gives the same numbers
    for i in range(0, len(xs), 37):
        np.testing.assert_allclose(pol.probs(xs[i], ms[i]), theirs[i], atol=PROBS)


def test_greedy_agent_equals_model_predict(tiny):
    model, env, (xs, ms, raws) = tiny
    agent = PPOAgent(env.table, MLPPolicy.from_model(model), greedy=True)
    assert agent.fold is True  # recognised by the input size
    for x, m, raw in zip(xs, ms, raws, strict=True):
        np.testing.assert_array_equal(fold_suits(raw["observation"], env.layout), x)
        want, _ = model.predict(x, action_masks=m, deterministic=True)
        assert agent(raw) == int(want)
    probs = agent.action_probs(np.array([r["observation"] for r in raws]), ms)
    np.testing.assert_array_equal(probs.argmax(axis=1), [agent(r) for r in raws])
    assert set(np.unique(probs)) <= {0.0, 1.0}


def test_sampling_agent_follows_the_probabilities(tiny):
    model, env, (xs, ms, raws) = tiny
    pol = MLPPolicy.from_model(model)
    agent = PPOAgent(env.table, pol, greedy=False, seed=0)
    raw_obs = np.array([r["observation"] for r in raws])
    np.testing.assert_allclose(agent.action_probs(raw_obs, ms), pol.probs(xs, ms))
    # the empirical frequencies of one situation follow its probabilities
    i = int(np.argmax(np.sort(pol.probs(xs, ms), axis=1)[:, -2]))  # the least one-sided situation
    counts = np.bincount([agent(raws[i]) for _ in range(4000)], minlength=ms.shape[1]) / 4000
    np.testing.assert_allclose(counts, pol.probs(xs[i], ms[i]), atol=0.03)
    assert (counts[~ms[i]] == 0).all()


def test_save_and_load_through_the_ppo_spec(tmp_path, tiny):
    model, env, (xs, ms, raws) = tiny
    path = tmp_path / "punter.zip"
    model.save(path)
    pol = load_policy(str(path))
    np.testing.assert_allclose(pol.probs(xs, ms), _torch_probs(model, xs, ms), atol=PROBS)
    table = raw_env(num_players=2)
    agent = make_agent(f"ppo:{path}", table)
    assert isinstance(agent, PPOAgent) and agent.greedy
    for x, m, raw in zip(xs[:100], ms[:100], raws[:100], strict=True):
        want, _ = model.predict(x, action_masks=m, deterministic=True)
        assert agent(raw) == int(want)
    sampler = make_agent(f"ppo:{path}:sample", table, seed=1)
    assert not sampler.greedy
    # it plays a match by spec
    r = play_match("banker:6", f"ppo:{path}", hands=200, seed=0)
    assert r.hands == 200 and r.punters == (f"ppo:{path}",)


def test_a_model_for_another_table_size_is_refused(tmp_path, tiny):
    model, _, _ = tiny
    path = tmp_path / "two_players.zip"
    model.save(path)
    with pytest.raises(ValueError, match="trained for other rules or another table size") as err:
        make_agent(f"ppo:{path}", raw_env(num_players=3))
    assert "expects observations of size" in str(err.value)
    with pytest.raises(ValueError, match="trained for other rules or another table size"):
        make_agent(f"ppo:{path}", raw_env(num_players=2, rules="french"))  # 7 actions, not 15


def test_unfolded_model_gets_raw_observations(tmp_path):
    from sb3_contrib import MaskablePPO

    env = SeatEnv(role="banker", opponents="threshold:5.5", fold_suits=False, seed=1)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=1, device="cpu",
                        policy_kwargs={"net_arch": [8]})  # fmt: skip
    with torch.no_grad():
        g = torch.Generator().manual_seed(1)
        for p in model.policy.parameters():
            p.copy_(torch.randn(p.shape, generator=g))
    agent = PPOAgent(env.table, MLPPolicy.from_model(model))
    assert agent.fold is False
    xs, ms, raws = _situations(env, steps=150, seed=1)
    for x, m, raw in zip(xs, ms, raws, strict=True):
        np.testing.assert_array_equal(raw["observation"], x)
        want, _ = model.predict(x, action_masks=m, deterministic=True)
        assert agent(raw) == int(want)


def test_unsupported_activation():
    with pytest.raises(ValueError, match="unsupported activation 'Sigmoid'"):
        MLPPolicy([(np.zeros((2, 3)), np.zeros(2))], activation="Sigmoid")
