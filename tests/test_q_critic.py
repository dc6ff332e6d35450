"""The action-value central critic and the all-actions policy loss (``<role>.ppo.q_critic``:
``training.ppo.QCriticPolicy`` and ``training.ppo.AllActionsPPO``)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("sb3_contrib")

from siete_env.batched.vector import SB3VecEnv, SeatVectorEnv  # noqa: E402
from siete_env.game import HIT_UP, STAND  # noqa: E402

from .tolerance import PROBS

RULES = {"preset": "spanish", "max_splits": 0}


def _model(tables: int = 16, **kw):
    import torch

    from training.ppo import AllActionsPPO, QCriticPolicy

    wide = SeatVectorEnv(num_envs=tables, role="banker", rules=RULES, opponents="random", fold_suits="auto",
                         seed=3, critic_view=True)  # fmt: skip
    pk = {"actor_features": wide.learner_size, "net_arch": [32, 32], "activation_fn": torch.nn.Tanh}
    args = dict(n_steps=16, batch_size=64, n_epochs=2, gamma=1.0, policy_kwargs=pk, device="cpu", seed=0)
    args.update(kw)
    return wide, AllActionsPPO(QCriticPolicy, SB3VecEnv(wide), **args)


def test_the_critic_gives_every_action_a_value_and_the_state_their_policy_mean():
    import torch

    wide, model = _model()
    policy = model.policy
    assert model.gae_lambda == 1.0  # the critic's targets: the returns of the played hands
    assert policy.value_net.out_features == wide.single_action_space.n
    obs, info = wide.reset()
    x, masks = torch.as_tensor(obs), info["action_mask"]
    with torch.no_grad():
        q, dist = policy.q_and_distribution(x, masks)
        _, values, _ = policy(x, action_masks=masks)
    probs = dist.distribution.probs
    assert torch.all(probs[torch.as_tensor(masks) == 0] == 0)
    torch.testing.assert_close(values.flatten(), (probs * q).sum(1))
    # the actor reads its own seat only: the critic's part changes Q, not the play
    d = wide.learner_size
    other = x.clone()
    other[:, d:] = torch.as_tensor(obs[::-1, d:].copy()) + 1.0
    with torch.no_grad():
        q2, dist2 = policy.q_and_distribution(other, masks)
    torch.testing.assert_close(dist2.distribution.probs, probs)
    assert not torch.allclose(q, q2)


def test_the_loss_moves_the_policy_toward_the_better_valued_action():
    """With a frozen critic valuing HIT above STAND everywhere, one update raises the
    probability of hitting at every decision where both are legal."""
    import torch

    wide, model = _model(vf_coef=0.0, ent_coef=0.0, learning_rate=1e-3)
    net = model.policy.value_net
    with torch.no_grad():
        net.weight.zero_()
        net.bias.zero_()
        net.bias[HIT_UP], net.bias[STAND] = 1.0, -1.0
    obs, info = wide.reset()
    masks = info["action_mask"]
    both = (masks[:, HIT_UP] > 0) & (masks[:, STAND] > 0)
    assert both.sum() >= 4
    x = torch.as_tensor(obs)
    with torch.no_grad():
        before = model.policy.get_distribution(x, action_masks=masks).distribution.probs[:, HIT_UP]
    model.learn(16 * 16)
    with torch.no_grad():
        after = model.policy.get_distribution(x, action_masks=masks).distribution.probs[:, HIT_UP]
        torch.testing.assert_close(net.bias[HIT_UP], torch.tensor(1.0))  # vf_coef 0: the critic is untouched
    sel = torch.as_tensor(both)
    assert torch.all(after[sel] > before[sel])


def test_a_q_critic_learner_saves_an_ordinary_actor(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    from agents.learned import PPOAgent
    from siete_env import raw_env

    wide, model = _model()
    model.learn(512)
    path = tmp_path / "banker.zip"
    model.save(path)
    agent = PPOAgent(raw_env(num_players=2, rules=RULES), str(path), greedy=False)
    raw_obs, raw_masks = wide.tables.observe(wide.tables.all, 0)
    obs, info = wide.reset()
    again = MaskablePPO.load(path, device="cpu")
    with torch.no_grad():
        want = again.policy.get_distribution(torch.as_tensor(obs), action_masks=info["action_mask"])
    raw_obs, raw_masks = wide.tables.observe(wide.tables.all, 0)
    np.testing.assert_allclose(agent.action_probs(raw_obs, raw_masks), want.distribution.probs.numpy(), atol=PROBS)


def test_q_critic_needs_the_batched_engine():
    from training.config import TrainConfig

    role = {"steps": 100, "ppo": {"q_critic": True}}
    with pytest.raises(ValueError, match="needs vec_env: batched"):
        TrainConfig(generations=1, vec_env="dummy", punter=role, banker={"steps": 100})
