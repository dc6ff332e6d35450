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
