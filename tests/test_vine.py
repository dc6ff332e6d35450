"""The vine learner (``training.vine``): branched hands, the all-actions mirror-descent
loss, and a tiny run of train.py measured exactly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from .tolerance import FLOAT32, PROBS

ROOT = Path(__file__).resolve().parent.parent
# two stakes, no swap, no splits: the exact evaluator takes seconds
RULES = {"preset": "spanish", "bet_levels": [1, 2], "four_swap": "off", "max_splits": 0}


def _cfg(**over):
    from training.config import TrainConfig

    ppo = {"net_arch": [16], "learning_rate": 3e-3, "magnet": 0.0, "kl_coef": 0.0}
    data = {"name": "vine-test", "rules": RULES, "num_players": 2, "seed": 0, "generations": 1,
            "threads": 1,
            "vine": {"iterations": 1, "punter_hands": 500, "banker_hands": 500, "steps": 4, "tables": 4000,
                     "epochs": 1, "merge": False, "alternate": False, "snapshot_every": 0},
            "punter": {"ppo": ppo}, "banker": {"ppo": ppo}, "opponents": {"sample": False},
            "evaluation": {"select": "best_worst", "generation_hands": 0}}  # fmt: skip
    for section in ("vine", "evaluation"):  # a section given is merged into the test's own
        if section in over:
            over[section] = {**data[section], **over[section]}
    data.update(over)
    return TrainConfig(**data)


def _model(cfg, role, seed=0, **extra):
    from training.learners import make_model, make_venv

    venv = make_venv(cfg, role, seed)
    args = {"kl_coef": getattr(cfg, role).ppo.kl_coef, "value_scale": 2.0, **extra}
    return make_model(getattr(cfg, role), venv, seed, None, extra=args)


@pytest.fixture(scope="module")
def pair():
    cfg = _cfg()
    return cfg, _model(cfg, "punter", 1), _model(cfg, "banker", 2)


def _nets(pair):
    from training.vine import actor

    _, p, b = pair
    return [actor(p.policy), actor(b.policy)]


def test_the_rollout_probabilities_are_the_networks(pair):
    """``actor`` (the numpy actor the sampler plays) gives the SB3 policy's own distribution."""
    import torch as th

    from training.vine import VineSampler

    cfg, p, _ = pair
    s = VineSampler(cfg.rules, 2000, seed=3)
    batch = s.sample(300, _nets(pair), [0])
    with th.no_grad():
        dist = p.policy.get_distribution(th.as_tensor(batch.obs), action_masks=batch.masks)
        ref = dist.distribution.probs.numpy()
    np.testing.assert_allclose(batch.probs, ref, atol=PROBS)
    assert np.all(batch.probs[batch.masks == 0] == 0)
    assert np.all(batch.q[batch.masks == 0] == 0)


def test_repeated_rows_are_computed_once_with_the_same_probabilities(pair, monkeypatch):
    """The sampler's network runs once per distinct (observation, mask) row; the result is
    the network's probabilities of every row, and a grouping that fails its check (every key equal
    here) falls back to every row."""
    import training.vine as V

    cfg, _, _ = pair
    s = V.VineSampler(cfg.rules, 2000, seed=3)
    net = _nets(pair)[V.PUNTER]
    batch = s.sample(300, _nets(pair), [0])
    rows = np.random.default_rng(0).integers(0, len(batch), 4000)  # many repeats
    obs, masks = batch.obs[rows], batch.masks[rows]
    ref = net.probs(obs, masks)
    calls = []
    real = net.probs
    monkeypatch.setattr(net, "probs", lambda x, m: calls.append(len(x)) or real(x, m))
    np.testing.assert_allclose(s._probs(net, obs, masks), ref, atol=PROBS)
    assert calls == [len(np.unique(obs, axis=0))]  # the distinct rows only
    s._key_obs[:], s._key_mask[:] = 0.0, 0.0  # one key for all: the check fails
    calls.clear()
    np.testing.assert_allclose(s._probs(net, obs, masks), ref, atol=PROBS)
    assert calls == [len(obs)]


def test_sampling_is_deterministic_under_a_seed(pair):
    from training.vine import VineSampler

    a, b, c = (VineSampler(pair[0].rules, 1000, seed=s).sample(400, _nets(pair), [1]) for s in (5, 5, 6))
    for x, y in zip((a.obs, a.masks, a.probs, a.q), (b.obs, b.masks, b.probs, b.q), strict=True):
        np.testing.assert_array_equal(x, y)
    assert len(a) != len(c) or not np.array_equal(a.q, c.q)


def test_branch_values_average_to_the_exact_value(pair, tmp_path):
    """Every hand starts with exactly one punter decision (the stake); the rollout policy's
    average of its branches' values is a played sample of the hand's value, so their mean
    over many hands is the pair's exact expected value within its sampling error. Both
    networks sample (``:sample``), in the exact value as in the hands."""
    from agents.specs import make_agent
    from siete_env import raw_env, solve
    from training.vine import VineSampler

    cfg, p, b = pair
    p.save(tmp_path / "p.zip")
    b.save(tmp_path / "b.zip")
    table = raw_env(2, RULES)
    exact = solve.expected_value(make_agent(f"ppo:{tmp_path / 'p.zip'}:sample", table),
                                 make_agent(f"ppo:{tmp_path / 'b.zip'}:sample", table), RULES)  # fmt: skip
    s = VineSampler(cfg.rules, 20_000, seed=11)
    batch = s.sample(20_000, _nets(pair), [0])
    bets = [i for i, n in enumerate(s.t.action_names) if n.startswith("BET_")]
    first = batch.masks[:, bets].any(1)
    assert first.sum() == 20_000  # one stake decision per hand
    v = (batch.probs[first] * batch.q[first]).sum(1)
    se = v.std() / np.sqrt(len(v))
    assert abs(v.mean() - exact) < 4 * se + 1e-3, (v.mean(), exact, se)


def test_common_random_numbers_make_the_branches_of_a_decision_share_the_hand(pair):
    """The copies of a decision share the deck and the random numbers of the later
    actions: with networks that ignore the table (uniform play) and no raises, staking 2
    replays the hand staked 1 card for card, so its value is exactly twice."""
    from training.vine import VineSampler

    rules = {**RULES, "raise_on_draw": False}
    from agents.learned import MLPPolicy

    uniform = [MLPPolicy([(np.zeros_like(w.T), np.zeros_like(c)) for w, c in net.layers]) for net in _nets(pair)]
    s = VineSampler(rules, 4000, seed=2)
    batch = s.sample(2000, uniform, [0])
    i1, i2 = (s.t.action_names.index(f"BET_{k}") for k in (1, 2))
    first = batch.masks[:, i1] > 0
    assert first.sum() == 2000 and np.all(batch.masks[first, i2] > 0)
    np.testing.assert_array_equal(batch.q[first, i2], 2 * batch.q[first, i1])
    assert np.any(batch.q[first, i1] != 0)


def test_merged_rows_stand_for_the_decisions_with_the_same_loss(pair):
    """``VineSampler.merge``: one row per distinct (observation, mask), weighted by its
    count, its played values averaged; the loss over the merged rows is the loss over the
    decisions (one minibatch: the same figures, here for a network that did not play)."""
    from training.learners import set_rates
    from training.vine import VineSampler

    cfg = pair[0]
    s = VineSampler(cfg.rules, 4000, seed=4)
    batch = s.sample(1500, _nets(pair), [0])
    merged = s.merge(batch)
    assert len(merged) < len(batch) / 3 and merged.decisions == len(batch) and batch.decisions == len(batch)
    key = [r.tobytes() + m.tobytes() for r, m in zip(batch.obs, batch.masks, strict=True)]
    for j in np.random.default_rng(0).choice(len(merged), 20, replace=False):
        same = [i for i, k in enumerate(key) if k == merged.obs[j].tobytes() + merged.masks[j].tobytes()]
        assert merged.weight[j] == len(same)
        np.testing.assert_allclose(merged.q[j], batch.q[same].mean(0), atol=PROBS)
        np.testing.assert_allclose(merged.probs[j], batch.probs[same[0]])
    stats = []
    for b in (batch, merged):
        m = _model(cfg, "punter", 5, kl_coef=0.3)  # another network: every term of the loss nonzero
        set_rates(m, 0.0)
        stats.append(m.train_on(b, steps=1))
    assert all(abs(v) > 1e-5 for v in stats[0].values())
    for k in stats[0]:
        assert stats[1][k] == pytest.approx(stats[0][k], rel=1e-4, abs=1e-7)


@pytest.mark.parametrize("merge", [False, True])
def test_the_loss_improves_the_policy_on_its_batch(pair, merge):
    """With no KL terms the all-actions step raises the batch's expected advantage (on
    the decisions, or on their merged rows: minibatches with a row's repeats together)."""
    import torch as th

    from training.vine import VineSampler

    cfg = pair[0]
    model = _model(cfg, "banker", 2)  # the fixture's banker, fresh
    s = VineSampler(cfg.rules, 4000, seed=4)
    batch = s.sample(2000, _nets(pair), [1])
    adv = (batch.q - (batch.probs * batch.q).sum(1, keepdims=True)) * (batch.masks > 0)
    stats = model.train_on(s.merge(batch) if merge else batch, steps=4)
    assert set(stats) == {"policy_gradient_loss", "kl_rollout", "kl_magnet"}
    with th.no_grad():
        new = model.policy.get_distribution(th.as_tensor(batch.obs), action_masks=batch.masks).distribution.probs
    assert float((new.numpy() * adv).sum(1).mean()) > 0


def _skewed(cfg):
    """A fresh punter model far from uniform play."""
    import torch as th

    m = _model(cfg, "punter", 1)
    with th.no_grad():
        m.policy.action_net.bias.copy_(th.linspace(-3, 3, m.action_space.n))
    return m


def _flat_batch(pair, m):
    """1,000 hands of ``m`` against the fixture's banker, every advantage zero."""
    from training.vine import VineBatch, VineSampler, actor

    batch = VineSampler(pair[0].rules, 2000, seed=8).sample(1000, [actor(m.policy), _nets(pair)[1]], [0])
    return VineBatch(batch.obs, batch.masks, batch.probs, np.zeros_like(batch.q))


def _kl_uniform(m, flat) -> float:
    """Mean KL(policy || uniform over the legal actions) at the batch's decisions."""
    import torch as th

    with th.no_grad():
        q = m.policy.get_distribution(th.as_tensor(flat.obs), action_masks=flat.masks).distribution.probs.numpy()
    lg = np.where(flat.masks > 0, np.log(np.maximum(q, 1e-30)), 0)
    return float(((q * lg).sum(1) + np.log(flat.masks.sum(1))).mean())


def test_the_magnet_pulls_toward_uniform(pair):
    """Zero advantages and ``magnet`` > 0: the policy moves toward the uniform policy;
    ``kl_coef`` alone with zero advantages keeps the policy that played the hands."""
    m = _skewed(pair[0])
    flat = _flat_batch(pair, m)
    before = _kl_uniform(m, flat)
    assert before > 0.1
    m.magnet = 0.5
    for _ in range(5):
        m.train_on(flat, steps=2)
    pulled = before - _kl_uniform(m, flat)
    assert pulled > 0.1 * before
    anchored = _skewed(pair[0])
    anchored.magnet, anchored.kl_coef = 0.0, 1.0
    for _ in range(5):
        anchored.train_on(flat, steps=2)
    assert abs(_kl_uniform(anchored, flat) - before) < 0.3 * pulled  # (Adam's steps on float noise only)


def test_more_passes_go_further_toward_the_step(pair):
    """``epochs`` passes over the same decisions move the policy further along the step
    than one pass (here the magnet's pull: zero advantages, ``magnet`` > 0)."""
    one, four = _skewed(pair[0]), _skewed(pair[0])
    for m in (one, four):
        m.magnet, m.kl_coef = 0.5, 0.0
    flat = _flat_batch(pair, one)
    before = _kl_uniform(one, flat)
    one.train_on(flat, steps=2)
    four.train_on(flat, steps=2, epochs=4)
    assert _kl_uniform(four, flat) < _kl_uniform(one, flat) < before


def test_a_vine_model_saves_and_loads_as_maskable_ppo(pair, tmp_path):
    from sb3_contrib import MaskablePPO

    from training.vine import VinePPO

    _, p, _ = pair
    p.save(tmp_path / "m.zip")
    m = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    v = VinePPO.load(tmp_path / "m.zip", device="cpu")
    assert v.kl_coef == p.kl_coef and v.value_scale == 2.0
    x = np.zeros((1, p.observation_space.shape[0]), np.float32)
    mask = np.ones((1, p.action_space.n), bool)
    assert m.predict(x, action_masks=mask, deterministic=True)[0] == p.predict(x, action_masks=mask,
                                                                                deterministic=True)[0]  # fmt: skip
    with pytest.raises(NotImplementedError, match="train_on"):
        v.learn(10)


@pytest.mark.parametrize(
    ("over", "words"),
    [
        ({"rules": {"preset": "spanish", "bet_levels": [1, 5000]}}, "batched engine"),
        ({"rules": "spanish_full"}, "bank_auction sells the bank"),
        ({"vine": {"iterations": 4, "snapshot_every": 4}}, "snapshot_every below iterations"),
        ({"vine": {"iterations": 4, "snapshot_every": 2}, "evaluation": {"select": "last"}}, "select: mixture"),
    ],
)
def test_vine_config_is_checked(over, words):
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=words):
        _cfg(**over)


def test_snapshots_within_generations_are_taken_where_the_config_says():
    ev = {"exact": True, "select": "mixture"}
    cfg = _cfg(generations=3, vine={"iterations": 6, "snapshot_every": 2, "snapshot_generations": 2}, evaluation=ev)
    taken = [(g, i) for g in range(1, 4) for i in range(1, 7) if cfg.iterate_snapshot(g, i)]
    assert taken == [(2, 2), (2, 4), (3, 2), (3, 4)]  # not the last iteration: that is the generation's own
    assert not any(_cfg(generations=3).iterate_snapshot(g, i) for g in range(1, 4) for i in range(1, 2))


def test_the_pools_learner_is_refused():
    from pydantic import ValidationError

    from training.config import TrainConfig

    data = _cfg().model_dump()
    data["learner"] = "pools"
    with pytest.raises(ValidationError, match=r"the only learner is vine"):
        TrainConfig(**data)
    data["learner"] = "vine"  # as an old run folder's config.yaml says it: read
    assert TrainConfig(**data) == _cfg()


def test_the_value_scale_is_the_top_stake_unless_given():
    assert _cfg().vine_value_scale() == 2.0  # RULES: stakes 1 and 2
    assert _cfg(rules={"preset": "spanish", "max_splits": 0}).vine_value_scale() == 5.0
    assert _cfg(rules={"preset": "spanish", "max_splits": 0, "bet_levels": [1, 3]}).vine_value_scale() == 3.0
    given = _cfg(vine={"iterations": 1, "punter_hands": 500, "banker_hands": 500, "steps": 4, "tables": 4000,
                       "value_scale": 2.5})  # fmt: skip
    assert given.vine_value_scale() == 2.5


def _train(*args, timeout=600):
    cmd = [sys.executable, str(ROOT / "train.py"), *map(str, args)]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONHASHSEED": "0"})  # fmt: skip


def test_a_vine_run_measures_every_generation_and_resumes_exactly(tmp_path):
    """Two generations of the vine learner: each generation's pair measured exactly (the
    figure recomputed here from the saved snapshots), the final mixture, and the run as it
    stood after generation 1 (``gen_001/state.json``, without generation 2's files), resumed,
    ends with the same weights, measures and mixture as the uninterrupted run."""
    from agents.learned import load_policy
    from agents.specs import make_agent
    from siete_env import raw_env, solve

    rules = {**RULES, "bet_levels": [1]}  # one stake: the exact measures of the six pairs are quick
    cfg = _cfg(generations=2, rules=rules,
               vine={"iterations": 2, "punter_hands": 300, "banker_hands": 300, "steps": 2, "tables": 2000,
                     "merge": True,  # repeated decisions merged
                     "snapshot_every": 1, "snapshot_generations": 2,  # a snapshot within each generation too
                     "alternate": True},  # the learners take turns
               evaluation={"hands": 300, "punters": ["threshold:5.5"], "bankers": ["banker:6"], "workers": 1,
                           "generation_hands": 0, "exact": True, "select": "mixture", "mixture_iterations": 2,
                           "map_hands": 500})  # fmt: skip
    path = tmp_path / "vine.yaml"
    path.write_text(yaml.safe_dump(cfg.model_dump()))
    a, b = tmp_path / "a", tmp_path / "b"
    r = _train("--config", path, "--run-dir", a, "--no-eval")
    assert r.returncode == 0, r.stderr[-3000:]
    # b: the run as it stood after generation 1 (its state then is kept as gen_001/state.json)
    later = {"gen_002", "final.npz", "punter.zip", "banker.zip"}  # of the run folder itself
    shutil.copytree(a, b, ignore=lambda folder, names: [n for n in names if Path(folder) == a and n in later])
    shutil.copyfile(b / "gen_001" / "state.json", b / "state.json")
    assert json.loads((b / "state.json").read_text())["generation"] == 1
    r = _train("--resume", b, "--no-eval")
    assert r.returncode == 0, r.stderr[-3000:]
    st = json.loads((a / "state.json").read_text())
    assert st["generation"] == 2 and [x["generation"] for x in st["nash_conv"]] == [1, 2]
    assert st["learn_steps"]["punter"] > 2 * 2 * 300 and st["learn_steps"]["banker"] > 0
    table = raw_env(2, rules)
    g2 = [make_agent(f"ppo:{a / 'gen_002' / f'{r}.zip'}", table) for r in ("punter", "banker")]
    assert solve.nash_conv(*g2, rules).nash_conv == pytest.approx(st["nash_conv"][1]["nash_conv"], abs=FLOAT32)
    # the snapshots within the generations: measured, and members of the final mixture's population
    assert [(x["generation"], x["iteration"]) for x in st["iterates"]] == [(1, 1), (2, 1)]
    it2 = st["iterates"][1]
    assert it2["punter"] == "gen_002/punter_it001.zip" and it2["banker"] == "gen_002/banker_it001.zip"
    pair = [make_agent(f"ppo:{a / it2[r]}", table) for r in ("punter", "banker")]
    assert solve.nash_conv(*pair, rules).nash_conv == pytest.approx(it2["nash_conv"], abs=FLOAT32)
    assert st["final"] is not None and set(st["final"]["weights"]["punter"]) == {
        "gen_001/punter_it001.zip", "gen_001/punter.zip", "gen_002/punter_it001.zip", "gen_002/punter.zip"}  # fmt: skip
    resumed = json.loads((b / "state.json").read_text())  # the population rebuilt on resume: the same mixture
    assert resumed["iterates"] == [{**x, "wall_seconds": y["wall_seconds"], "seconds": y["seconds"]}
                                   for x, y in zip(st["iterates"], resumed["iterates"], strict=True)]  # fmt: skip
    assert resumed["final"]["weights"] == st["final"]["weights"]
    assert resumed["final"]["nash_conv"] == st["final"]["nash_conv"]
    for gen in ("gen_001", "gen_002"):
        for role in ("punter", "banker"):
            pa, pb = (load_policy(str(x / gen / f"{role}.zip")) for x in (a, b))
            for (wa, ba), (wb, bb) in zip(pa.layers, pb.layers, strict=True):
                np.testing.assert_array_equal(wa, wb)
                np.testing.assert_array_equal(ba, bb)
    p1, p2 = (load_policy(str(a / g / "punter.zip")) for g in ("gen_001", "gen_002"))
    assert any(not np.array_equal(x[0], y[0]) for x, y in zip(p1.layers, p2.layers, strict=True))


def _report_env(role, cfg_data, run_dir, snapshot, conn, counter, parent_pid):
    conn.send((role, os.environ.get("SIETE_TEST_THREADS")))
    conn.close()


def test_the_learners_start_with_their_environment_and_this_process_keeps_its_own(tmp_path, monkeypatch):
    """``start_learners(env=...)``: the learner processes see ``env`` (their BLAS
    threads); this process's environment is as it was."""
    import multiprocessing as mp

    from training.runs import RunState, start_learners, stop_learners

    monkeypatch.delenv("SIETE_TEST_THREADS", raising=False)
    ctx = mp.get_context("spawn")
    procs, conns, _ = start_learners(ctx, _report_env, _cfg(), tmp_path, RunState(), {"SIETE_TEST_THREADS": "2"})
    try:
        assert sorted(c.recv() for c in conns.values()) == [("banker", "2"), ("punter", "2")]
    finally:
        stop_learners(conns, procs)
    assert "SIETE_TEST_THREADS" not in os.environ


def test_the_actor_pickles_as_the_learners_send_it(pair):
    """The learners exchange their actors through pipes: an actor pickles, and plays the same."""
    import pickle

    from training.vine import PUNTER, VineSampler

    net = _nets(pair)[PUNTER]
    batch = VineSampler(pair[0].rules, 2000, seed=3).sample(200, _nets(pair), [0])
    np.testing.assert_allclose(pickle.loads(pickle.dumps(net)).probs(batch.obs, batch.masks), batch.probs, atol=1e-7)


def test_a_snapshot_within_a_generation_is_named_by_its_iteration():
    from training.report import member_label
    from training.runs import iterate_snapshot

    assert iterate_snapshot(6, 8, "punter") == "gen_006/punter_it008.zip"
    assert member_label("gen_006/punter_it008.zip") == "gen_006 it 8"
    assert member_label("gen_006/banker.zip") == "gen_006"


def _uniform(sampler):
    """A network that ignores the table (all weights 0): uniform play over the legal actions."""
    from agents.learned import MLPPolicy

    return MLPPolicy([(np.zeros((8, sampler.D), np.float32), np.zeros(8, np.float32)),
                      (np.zeros((sampler.A, 8), np.float32), np.zeros(sampler.A, np.float32))])  # fmt: skip


def test_a_table_of_four_branches_every_punter_seat_and_values_the_bank_per_punter():
    """At four seats the punter network sits at the three punter seats and each of their
    decisions is branched, valued by the deciding seat's own chips (staking 2 replays the
    hand staked 1: exactly twice); the bank's values are its chips over the three punters."""
    from siete_env.batched import kernels as K
    from training.vine import BANKER, PUNTER, VineSampler

    rules = {"preset": "spanish", "raise_on_draw": False, "max_splits": 0}
    s = VineSampler(rules, 4000, seed=2, num_players=4)
    assert s.record(PUNTER) == [0, 2, 3] and s.record(BANKER) == [1]
    net = _uniform(s)
    batch = s.sample(600, s.seats(net, net), s.record(PUNTER))
    i1, i2 = (s.t.action_names.index(f"BET_{k}") for k in (1, 2))
    first = batch.masks[:, i1] > 0
    assert 3 * 600 <= first.sum() < 4 * 600  # every punter's first bet, at each of the three punter seats
    np.testing.assert_array_equal(batch.q[first, i2], 2 * batch.q[first, i1])
    bank = s.sample(600, s.seats(net, net), s.record(BANKER))
    legal = bank.q[bank.masks > 0]
    np.testing.assert_allclose(legal * 3, np.round(legal * 3), atol=1e-5)  # whole chips over three punters
    assert np.any(np.abs(legal * 3 - np.round(legal)) > 1e-3)  # not whole chips themselves
    assert s.t.state[0, K.BANKER] == s.BANKER_SEAT


def test_frozen_players_and_helper_processes():
    """A frozen heuristic plays through its own action_probs; with a helper process the
    hands are shared out and the batch is the same under the same seed."""
    from agents.specs import make_agent
    from siete_env import raw_env
    from training.vine import Frozen, VineSampler

    rules = {"preset": "spanish", "max_splits": 0}
    banker = Frozen(make_agent("banker:6", raw_env(num_players=2, rules=rules)))
    out = []
    for _ in range(2):
        s = VineSampler(rules, 2000, seed=9)
        s.start_workers(2)
        try:
            out.append(s.sample(1000, [_uniform(s), banker], [0], merge=True))
            assert s.steps > 0
        finally:
            s.close()
    a, b = out
    assert a.decisions > 1000
    for x, y in zip((a.obs, a.masks, a.q, a.weight), (b.obs, b.masks, b.q, b.weight), strict=True):
        np.testing.assert_array_equal(x, y)


def test_explore_mixes_random_legal_moves_into_a_policy():
    """``vine.explore``: the banker learner's punters (``Explore``) play the policy's
    probabilities mixed with the uniform ones over the legal moves, never an illegal one;
    a share of 1 or more is refused."""
    from agents.learned import MLPPolicy
    from training.config import TrainConfig
    from training.vine import Explore, VineSampler

    rng = np.random.default_rng(0)
    s = VineSampler(RULES, 2000, seed=0)
    D, A = s.D, s.A
    pol = MLPPolicy(
        [(rng.normal(0, 2.0, (16, D)), rng.normal(0, 1, 16)), (rng.normal(0, 2.0, (A, 16)), rng.normal(0, 1, A))]
    )
    g = np.arange(200)
    s.t.start(g, np.full(200, s.BANKER_SEAT, np.int64), s.t.shuffled_decks(200, s.rng))
    obs, masks = s.t.observe(g, fold=s.fold)
    p, q = pol.probs(obs, masks), Explore(pol, 0.3).probs(obs, masks)
    legal = masks > 0
    uniform = legal / legal.sum(1, keepdims=True)
    assert np.allclose(q, 0.7 * p + 0.3 * uniform, atol=PROBS) and np.allclose(q.sum(1), 1.0, atol=PROBS)
    assert (q[~legal] == 0).all() and (q[legal] > 0).all()
    with pytest.raises(ValueError, match="explore"):
        TrainConfig(vine={"explore": 1.0})
