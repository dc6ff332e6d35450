"""Ray RLlib multi-agent training (``train_rllib.py``, the ``rllib`` extra).

Without Ray: the role-named AEC env passes PettingZoo's API test, configs are validated,
and the ``rllib:`` agent spec plays numpy actors written like ``train_rllib.py`` writes
them. With Ray (``pip install -e ".[rllib]"``, its own environment): a smoke run of a few
iterations updates both modules without a single illegal move, its checkpoint's numpy
actors give the RLlib modules' own action probabilities, and ``evaluate.py`` plays the
checkpoint as an agent spec.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.rllib_policy import ACTORS_FILE, RLlibAgent, load_actors, save_actors
from siete_env import raw_env
from siete_env.features import folded_size
from siete_env.game import Phase
from siete_env.role_env import RoleEnv
from train_rllib import load_config, policy_mapping_fn


def test_role_env_passes_the_pettingzoo_api_test():
    from pettingzoo.test import api_test

    api_test(RoleEnv(num_players=3, fold_suits=False, mask_dtype="int8"), num_cycles=200)
    e = RoleEnv(num_players=4)
    e.reset(seed=1)
    assert e.possible_agents == ["banker", "punter_1", "punter_2", "punter_3"]
    assert e.agent_selection == "punter_1"  # the first punter in turn order plays first
    o = e.observe("punter_1")
    assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
    assert o["observations"].shape == (folded_size(e.layout),)  # auto: folded (spanish never looks at suits)
    assert [policy_mapping_fn(a) for a in e.possible_agents] == ["banker", "punter", "punter", "punter"]


def test_role_env_rewards_are_the_aec_env_rewards():
    """Same seed, same actions: each role's rewards are those of its seat in raw_env (bank at seat 0)."""
    a, b = RoleEnv(num_players=3, fold_suits=False), raw_env(num_players=3)
    rng = np.random.default_rng(0)
    for ep in range(50):
        a.reset(seed=ep)
        b.reset(seed=ep, options={"banker": 0})
        while b.agents:
            seat = int(b.agent_selection.split("_")[1])
            assert a.agent_selection == ("banker" if seat == 0 else f"punter_{seat}")
            obs = b.observe(b.agent_selection)
            np.testing.assert_array_equal(a.observe(a.agent_selection)["observations"], obs["observation"])
            if b.terminations[b.agent_selection]:
                a.step(None)
                b.step(None)
                continue
            act = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            a.step(act)
            b.step(act)
            assert a.rewards == {("banker" if s == 0 else f"punter_{s}"): b.rewards[f"player_{s}"] for s in range(3)}


def test_role_env_counts_illegal_moves():
    """``illegal_moves`` counts the actions given against the mask (each ends the hand with -1
    for the offender and PettingZoo's warning); legal play and dead steps leave it at 0."""
    e = RoleEnv(num_players=3)
    rng = np.random.default_rng(0)
    for ep in range(30):
        e.reset(seed=ep)
        while e.agents:
            a = e.agent_selection
            e.step(None if e.terminations[a] else int(rng.choice(np.flatnonzero(e.observe(a)["action_mask"]))))
    assert e.illegal_moves == 0
    e.reset(seed=0)
    a = e.agent_selection
    e.step(int(np.flatnonzero(e.observe(a)["action_mask"] == 0)[0]))
    assert e.illegal_moves == 1 and e.rewards[a] == -1 and all(e.terminations.values())
    while e.agents:
        e.step(None)
    assert e.illegal_moves == 1


def test_config_is_validated():
    cfg = load_config(None, ["iterations=3", "env_runners.num_env_runners=0", "ray.address=auto"])
    assert cfg.iterations == 3 and cfg.env_runners.num_env_runners == 0 and cfg.ray.address == "auto"
    with pytest.raises(ValueError, match="iterationz"):
        load_config(None, ["iterationz=3"])
    with pytest.raises(ValueError, match="unknown agent spec"):
        load_config(None, ["evaluation.punters=[nope]"])
    assert load_config("configs/rllib/cluster.yaml").ray.address == "auto"


def _fake_state(rng, sizes):
    """A module state dict shaped like RLlib's default PPO MLP module."""
    st = {}
    for i, (a, b) in enumerate(zip(sizes[:-2], sizes[1:-1], strict=True)):
        st[f"encoder.actor_encoder.net.mlp.{2 * i}.weight"] = rng.normal(size=(b, a)).astype(np.float32)
        st[f"encoder.actor_encoder.net.mlp.{2 * i}.bias"] = rng.normal(size=b).astype(np.float32)
        st[f"encoder.critic_encoder.net.mlp.{2 * i}.weight"] = np.zeros((b, a), np.float32)
    st["pi.net.mlp.0.weight"] = rng.normal(size=(sizes[-1], sizes[-2])).astype(np.float32)
    st["pi.net.mlp.0.bias"] = rng.normal(size=sizes[-1]).astype(np.float32)
    st["vf.net.mlp.0.weight"] = np.zeros((1, sizes[-2]), np.float32)
    return st


def test_rllib_spec_plays_the_saved_actors(tmp_path):
    from agents.specs import make_agent

    e = raw_env(num_players=2)
    rng = np.random.default_rng(0)
    D, A = folded_size(e.layout), len(e.action_names)
    states = {"banker": _fake_state(rng, [D, 16, 8, A]), "punter": _fake_state(rng, [D, 16, 8, A])}
    ckpt = tmp_path / "checkpoint"
    ckpt.mkdir()
    save_actors(ckpt / ACTORS_FILE, states, {"activation": "tanh"})
    actors, meta = load_actors(ckpt)
    assert meta == {"activation": "tanh"} and set(actors) == {"banker", "punter"}
    agent = make_agent(f"rllib:{ckpt}", e)
    assert isinstance(agent, RLlibAgent) and agent.fold and agent.greedy
    e.reset(seed=0, options={"banker": 0})
    obs, masks = [], []
    while e.game.phase != Phase.OVER:
        o = e.observe(f"player_{e.game.seat}")
        obs.append(o["observation"])
        masks.append(o["action_mask"])
        e.game.apply(agent(o))
    p = make_agent(f"rllib:{ckpt}:sample", e).action_probs(np.array(obs), np.array(masks))
    assert np.allclose(p.sum(axis=1), 1) and (p[np.array(masks) == 0] == 0).all()
    with pytest.raises(ValueError, match="no RLlib checkpoint"):
        make_agent(f"rllib:{tmp_path / 'nope'}", e)
    with pytest.raises(ValueError, match="rllib: needs a checkpoint path"):
        make_agent("rllib::sample", e)
    with pytest.raises(ValueError, match="expects observations of size"):
        make_agent(f"rllib:{ckpt}", raw_env(num_players=3))


def test_rllib_spec_is_an_agent_spec(tmp_path):
    from agents.specs import AgentSpec, check_spec

    for spec, sample in ((f"rllib:{tmp_path}", False), (f"rllib:{tmp_path}:sample", True)):
        a = AgentSpec.parse(spec)
        assert (a.kind, a.path, a.sample, a.learned) == ("rllib", tmp_path, sample, True)
        assert str(a) == spec and a == AgentSpec.rllib(tmp_path, sample)
        assert check_spec(spec) == spec
    assert str(AgentSpec.parse(f"rllib:{tmp_path}:greedy")) == f"rllib:{tmp_path}"
    assert AgentSpec.parse(f"rllib:{tmp_path}").relative_to(tmp_path.parent) == AgentSpec.rllib(tmp_path.name)
    with pytest.raises(ValueError, match="no RLlib checkpoint"):
        check_spec(f"rllib:{tmp_path / 'nope'}")


# --------------------------------------------------------------------------- with Ray
def test_rllib_env_check_with_legal_actions():
    """RLlib's own env check (``check_multiagent_environments``) passes on the env that
    ``train_rllib.py`` builds when its one action is legal. As RLlib runs it, with
    ``get_action_space(agent).sample()`` (no mask), it makes illegal moves: the source of
    the "Illegal move made" warnings of earlier runs, so the runs switch it off."""
    pytest.importorskip("ray.rllib")
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    import train_rllib as tr

    cfg = tr.load_config(None, ["num_players=3"])
    assert tr.algorithm_config(cfg).disable_env_checking
    env = tr.make_env({"num_players": 3, "rules": "spanish", "fold_suits": "auto"})
    role = env.env

    class Legal:  # the check's action sampler, masked
        def __init__(self, agent):
            self.agent = agent

        def sample(self):
            return int(np.flatnonzero(role.observe(self.agent)["action_mask"])[-1])

    env.get_action_space = Legal
    for _ in range(20):
        check_multiagent_environments(env)
    assert role.illegal_moves == 0
    del env.get_action_space  # RLlib's unmasked sample: illegal two times in three
    env.get_action_space("punter_1").seed(0)
    for _ in range(20):
        check_multiagent_environments(env)
    assert role.illegal_moves > 0


def test_smoke_run_updates_both_policies_and_evaluates(tmp_path, capsys):
    pytest.importorskip("ray.rllib")
    import ray
    import torch
    from ray.rllib.core.columns import Columns

    import evaluate
    import train_rllib as tr

    cfg = tr.load_config(
        None,
        [
            "iterations=3", "env_runners.num_env_runners=1", "env_runners.num_envs_per_env_runner=4",
            "ppo.train_batch_size_per_learner=400", "ppo.minibatch_size=100", "ppo.num_epochs=2",
            "ppo.fcnet_hiddens=[32, 32]", "ray.num_cpus=2", "evaluation.hands=0",
        ],
    )  # fmt: skip
    tr.init_ray(cfg)
    try:
        algo = tr.algorithm_config(cfg).build_algo()
        before = {k: {n: t.detach().clone() for n, t in s.items()} for k, s in tr.module_states(algo).items()}
        for _ in range(cfg.iterations):
            result = algo.train()
        summary = tr._summary(result, 1.0)
        assert summary["env_steps"] > 0
        after = tr.module_states(algo)
        for role in ("banker", "punter"):  # both policies learned
            assert summary[role]["steps_trained"] > 0
            changed = [n for n in before[role] if not torch.equal(before[role][n], after[role][n])]
            assert any(n.startswith("pi.") for n in changed), role
        assert tr.illegal_moves(algo) == 0  # the masked modules, over every env of every runner
        ckpt = tr.save_checkpoint(algo, cfg, tmp_path / "checkpoint")
        # the numpy actors are the modules' own masked action distributions
        env = RoleEnv(num_players=2)
        actors, _ = load_actors(ckpt)
        rng = np.random.default_rng(0)
        for role, agent_id in (("banker", "banker"), ("punter", "punter_1")):
            xs, ms = [], []
            for ep in range(40):
                env.reset(seed=ep)
                while env.agents:
                    a = env.agent_selection
                    o = env.observe(a)
                    if env.terminations[a]:
                        env.step(None)
                        continue
                    if a == agent_id:
                        xs.append(o["observations"])
                        ms.append(o["action_mask"])
                    env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
            x, m = np.array(xs), np.array(ms)
            module = algo.get_module(role)
            with torch.no_grad():
                out = module.forward_inference(
                    {Columns.OBS: {"observations": torch.tensor(x), "action_mask": torch.tensor(m)}}
                )
            logits = out[Columns.ACTION_DIST_INPUTS].numpy().astype(np.float64)
            want = np.exp(logits - logits.max(axis=1, keepdims=True))
            want /= want.sum(axis=1, keepdims=True)
            np.testing.assert_allclose(actors[role].probs(x, m), want, atol=1e-5)

        def illegal_move(runner):  # one illegal move in a remote runner's env: the count sees it
            role_env = runner.env.envs[0].unwrapped.env
            role_env.reset(seed=0)
            role_env.step(int(np.flatnonzero(role_env.observe(role_env.agent_selection)["action_mask"] == 0)[0]))

        algo.env_runner_group.foreach_env_runner(illegal_move, local_env_runner=False)
        assert tr.illegal_moves(algo) == 1
        algo.stop()
    finally:
        ray.shutdown()
    # evaluate.py plays the checkpoint as an agent spec, in either seat
    out = tmp_path / "eval.json"
    code = evaluate.main(
        ["--punters", f"rllib:{ckpt}", "threshold:5.5", "--bankers", f"rllib:{ckpt}:sample", "banker:6",
         "--hands", "3000", "--workers", "1", "--json", str(out)]
    )  # fmt: skip
    assert code == 0
    report = json.loads(out.read_text())
    assert len(report["matches"]) == 4
