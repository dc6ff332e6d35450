"""The baselines' batched decisions (``agents.vectorized``) are their own decisions, row by
row, on observations from random play under every preset and several table sizes."""

from __future__ import annotations

import numpy as np
import pytest

from agents.specs import make_agent
from agents.vectorized import batch_actions
from siete_env import PRESETS, raw_env

SPECS = ["threshold:5.5", "threshold:4", "banker:6", "banker:5", "smart:6", "smart:4.5", "bold:5.5", "bold:7"]


def _observations(rules, n, hands, seed):
    """Every seat's observation and mask at every decision of random play."""
    e = raw_env(num_players=n, rules=rules)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    for i in range(hands):
        e.reset(seed=seed if i == 0 else None)
        g = e.game
        while g.phase != 4:
            for s in range(n):
                o = e.observe(f"player_{s}")
                if o["action_mask"].any():
                    obs.append(o["observation"])
                    masks.append(o["action_mask"])
            legal = g.legal_actions()
            g.apply(legal[int(rng.integers(len(legal)))])
    return e, np.array(obs), np.array(masks)


@pytest.mark.parametrize("rules", list(PRESETS))
@pytest.mark.parametrize("n", [2, 5])
def test_batch_actions_are_the_agents_own(rules, n):
    e, obs, masks = _observations(rules, n, 60, seed=n)
    for spec in SPECS:
        agent = make_agent(spec, e)
        acts = batch_actions(agent, obs, masks)
        want = np.array([agent({"observation": o, "action_mask": m}) for o, m in zip(obs, masks, strict=True)])
        answered = acts >= 0
        assert answered.mean() > 0.5
        np.testing.assert_array_equal(acts[answered], want[answered], err_msg=f"{spec} {rules} n={n}")
        probs = agent.action_probs(obs, masks)  # -1 rows answered by the agent itself
        np.testing.assert_array_equal(probs.argmax(axis=1), want)
        assert (probs.sum(axis=1) == 1).all()
