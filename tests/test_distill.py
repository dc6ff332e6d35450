"""``training.distill``: one banker network fitted to a mixture of banker networks plays
(nearly) as the mixture does, measured exactly."""

from __future__ import annotations

import numpy as np
import pytest

from agents.learned import MLPPolicy, PPOAgent
from agents.specs import make_agent
from siete_env import raw_env
from siete_env.features import folded_size
from siete_env.solve import evaluator, expected_value
from siete_env.solve.mixture import Population

pytest.importorskip("torch")

RULES = {"preset": "spanish", "bet_levels": [1, 2], "four_swap": "off", "max_splits": 0}


def net(rng, env, scale):
    raw = env.unwrapped
    sizes = [folded_size(raw.layout), 16, len(raw.action_names)]
    return MLPPolicy(
        [(rng.normal(0, scale, (o, i)), rng.normal(0, 0.5, o)) for i, o in zip(sizes[:-1], sizes[1:], strict=True)],
        "Tanh",
    )


def test_the_distilled_banker_plays_as_the_mixture():
    from training.distill import banker_samples, distill_banker

    env = raw_env(2, RULES)
    ev = evaluator(RULES)
    rng = np.random.default_rng(0)
    a, b = net(rng, env, 0.6), net(rng, env, 0.6)
    pop = Population(ev)
    punter = make_agent("threshold:5", env)
    pop.add_pair(punter, PPOAgent(env, a, greedy=False), ("p", "a"))
    pop.add_banker(PPOAgent(env, b, greedy=False), "b")
    sol = pop.mixture(np.array([1.0]), np.array([0.5, 0.5]))
    X, y = banker_samples(sol, 2000, seed=1)
    assert X.shape == (len(y), a.input_size) and ((y >= 0) & (y <= 1)).all()
    pol, info = distill_banker(sol, a, samples=20_000, epochs=8, batch_size=256, seed=0)
    assert pol.input_size == a.input_size and pol.n_actions == a.n_actions
    assert info["mae_after"] < 0.4 * info["mae_before"]
    # the exact values against punters that reach different banker states: far closer
    # to the mixture's than the start network's
    err, err0 = 0.0, 0.0
    for spec in ("threshold:5", "bold:5.5", "random"):
        p = make_agent(spec, env)
        want = expected_value(p, sol.banker, ev)
        err += abs(expected_value(p, PPOAgent(env, pol, greedy=False), ev) - want)
        err0 += abs(expected_value(p, PPOAgent(env, a, greedy=False), ev) - want)
    assert err < 0.5 * err0, (err, err0)


def test_a_start_network_of_other_rules_is_refused():
    from training.distill import distill_banker

    env = raw_env(2, RULES)
    pop = Population(evaluator(RULES))
    pop.add_pair(make_agent("threshold:5", env), make_agent("banker:6", env))
    sol = pop.mixture(np.array([1.0]), np.array([1.0]))
    bad = MLPPolicy([(np.zeros((4, 7)), np.zeros(4))], "Tanh")
    with pytest.raises(ValueError, match="reads 7 features"):
        distill_banker(sol, bad, samples=100, epochs=1)


def test_the_distilled_average_plays_as_the_uniform_mixture_on_both_seats():
    """``distill_average``: one network per role fitted to the uniform mixture of two, from
    the members' own play on the batched engine (no exact value used), is measured exactly:
    its value against other players is far closer to the mixture's (the exact
    realisation-equivalent policy of the mixture, ``Population.mixture``) than the start
    network's, on both seats."""
    from training.distill import distill_average

    env = raw_env(2, RULES)
    ev = evaluator(RULES)
    rng = np.random.default_rng(3)
    p1, p2, b1, b2 = (net(rng, env, 0.8) for _ in range(4))
    pop = Population(ev)
    pop.add_pair(PPOAgent(env, p1, greedy=False), PPOAgent(env, b1, greedy=False), ("p1", "b1"))
    pop.add_pair(PPOAgent(env, p2, greedy=False), PPOAgent(env, b2, greedy=False), ("p2", "b2"))
    sol = pop.mixture(np.array([0.5, 0.5]), np.array([0.5, 0.5]))
    nets, info = distill_average(
        RULES, 2, {"punter": [p1, p2], "banker": [b1, b2]}, {"punter": p2, "banker": b2},
        hands=40_000, epochs=40, batch_size=64, learning_rate=3e-3, tables=4000,
    )  # fmt: skip
    for role in ("punter", "banker"):
        assert nets[role].input_size == p1.input_size and nets[role].n_actions == p1.n_actions
        assert info[role]["kl_after"] < 0.2 * info[role]["kl_before"], info  # measured 0.05
    err = {"punter": 0.0, "banker": 0.0}
    err0 = {"punter": 0.0, "banker": 0.0}
    for spec, rival_spec in (("threshold:5", "banker:6"), ("bold:5.5", "smart:6"), ("random", "random")):
        other, rival = make_agent(spec, env), make_agent(rival_spec, env)  # a punter, a banker
        want = expected_value(sol.punter, rival, ev)
        err["punter"] += abs(expected_value(PPOAgent(env, nets["punter"], greedy=False), rival, ev) - want)
        err0["punter"] += abs(expected_value(PPOAgent(env, p2, greedy=False), rival, ev) - want)
        want = expected_value(other, sol.banker, ev)
        err["banker"] += abs(expected_value(other, PPOAgent(env, nets["banker"], greedy=False), ev) - want)
        err0["banker"] += abs(expected_value(other, PPOAgent(env, b2, greedy=False), ev) - want)
    for role in err:
        assert err[role] < 0.4 * err0[role], (role, err, err0)  # measured 0.24 (punter), 0.09 (banker)


def test_write_actor_replaces_the_actor_weights_only(tmp_path):
    """``write_actor``: the model file keeps every entry but the actor's weights, which
    ``load_policy`` then reads back exactly; a policy of another shape is refused."""
    import zipfile

    import torch

    from agents.learned import load_policy, read_model_tensors
    from training.config import load_config
    from training.distill import write_actor
    from training.learners import learner_model, make_venv

    cfg = load_config(None, ["punter.ppo.net_arch=[8]", "rules={preset: spanish, max_splits: 0}"])
    model = learner_model(cfg, "punter", make_venv(cfg, "punter", 0), 0, None)
    model.save(tmp_path / "m.zip")
    old = load_policy(str(tmp_path / "m.zip"))
    rng = np.random.default_rng(0)
    new = MLPPolicy([(rng.normal(size=w.T.shape), rng.normal(size=b.shape)) for w, b in old.layers], old.activation)
    write_actor(tmp_path / "m.zip", new, tmp_path / "out.zip")
    got = load_policy(str(tmp_path / "out.zip"))
    for (w, b), (w2, b2) in zip(got.layers, new.layers, strict=True):
        assert (w == w2).all() and (b == b2).all()
    before, _ = read_model_tensors(tmp_path / "m.zip")
    after, _ = read_model_tensors(tmp_path / "out.zip")
    actor = {k for k in before["policy"] if k.startswith(("mlp_extractor.policy_net.", "action_net."))}
    assert actor and all(not torch.equal(before["policy"][k], after["policy"][k]) for k in actor)
    assert all(torch.equal(before["policy"][k], after["policy"][k]) for k in before["policy"] if k not in actor)
    with zipfile.ZipFile(tmp_path / "m.zip") as a, zipfile.ZipFile(tmp_path / "out.zip") as b:
        assert a.namelist() == b.namelist()
        assert all(a.read(n) == b.read(n) for n in a.namelist() if n != "policy.pth")
    small = MLPPolicy(
        [(np.zeros((3, old.input_size)), np.zeros(3)), (np.zeros((old.n_actions, 3)), np.zeros(old.n_actions))]
    )
    with pytest.raises(ValueError, match="is \\("):
        write_actor(tmp_path / "m.zip", small, tmp_path / "bad.zip")
    assert not (tmp_path / "bad.zip").exists()
