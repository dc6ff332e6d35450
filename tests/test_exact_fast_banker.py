"""``PPOAgent.exact_banker_table`` (the exact evaluator's banker table computed from the
network's layers, no observation built) against the generic path
(``ExactEvaluator._banker_table_from_observations``: every banker observation, folded,
through ``PPOAgent.action_probs``)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.learned import MLPPolicy, PPOAgent
from siete_env import raw_env
from siete_env.features import folded_size
from siete_env.game import HIT_UP, STAND
from siete_env.solve import ExactEvaluator

from .helpers import some_v_rows
from .tolerance import PROBS

SINGLE = {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0}
LEVELS = {"preset": "spanish", "four_swap": "off", "max_splits": 0}

_EV: dict[str, ExactEvaluator] = {}


def _evaluator(rules) -> ExactEvaluator:
    key = repr(rules)
    if key not in _EV:
        _EV[key] = ExactEvaluator(rules)
    return _EV[key]


def _network(env, seed, activation="Tanh", greedy=False, hidden=(128, 128), bias=0.0, fold=True):
    """A network of the trained shape with random weights (``benchmarks/exact_speed.py``'s
    ``network``), with random biases of scale ``bias``."""
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    size = folded_size(raw.layout) if fold else raw.layout.size
    sizes = [size, *hidden, len(raw.action_names)]
    layers = [
        (rng.normal(0, 1 / np.sqrt(a), (b, a)), rng.normal(0, bias, b) if bias else np.zeros(b))
        for a, b in zip(sizes[:-1], sizes[1:], strict=True)
    ]
    return PPOAgent(env, MLPPolicy(layers, activation), greedy=greedy, seed=seed)


def _centred(env, agent, table, greedy):
    """The same network with ``z_hit - z_stand`` shifted by its median over ``table`` (the
    agent's hit probabilities), so that a greedy banker hits about half the time."""
    valid = table > 0
    shift = np.median(np.log(table[valid] / (1 - table[valid])))
    layers = [(w.T.copy(), b.copy()) for w, b in agent.policy.layers]
    layers[-1][1][HIT_UP] -= shift
    out = PPOAgent(env, MLPPolicy(layers, agent.policy.activation), greedy=greedy)
    return out, shift


# (rules, activation, hidden, bias, greedy too: the greedy branch is one test of z, the same for
# every network and rule set, checked on the trained shape, both activations and no hidden layer)
CASES = [
    (SINGLE, "Tanh", (128, 128), 0.0, True),  # benchmarks/exact_speed.py's network
    (SINGLE, "ReLU", (64, 64), 0.1, False),
    (SINGLE, "Tanh", (24,), 0.3, True),
    (SINGLE, "ReLU", (16, 16, 16), 0.3, True),
    (SINGLE, "Tanh", (), 0.3, True),  # no hidden layer
    (LEVELS, "Tanh", (32, 16), 0.5, False),  # (ReLU at these rules: ReLU's layers above, these rules' entries here)
]


NODES = 150  # banker nodes compared per case (of 1,489): every shape and rule set, at a tenth of the cost


def _generic_columns(ev, agent, cols) -> np.ndarray:
    """``ExactEvaluator._banker_table_from_observations(agent)[:, cols]``: the generic path
    (every banker observation of those nodes through ``action_probs``) on those nodes only."""
    base, mask1 = ev.banker_base()
    vk, vU = np.repeat(ev.vu_k, ev.L), np.repeat(ev.vu_U, ev.L, axis=0)
    out = np.zeros((len(base), len(cols)))
    for j, m_i in enumerate(cols):
        rows, ok = ev.banker_rows(base, vk, vU, int(m_i))
        p = ev.query(agent, rows, np.broadcast_to(mask1, (len(rows), ev.A)).copy())
        out[ok, j] = p[:, HIT_UP] / p[:, [STAND, HIT_UP]].sum(1)
    return out


def test_the_generic_columns_are_the_generic_table():
    """The sampled generic path is the whole one on its nodes (the one full table computed
    here, on a fixed sample of 300 V rows: each row is built and asked on its own)."""
    ev, _ = some_v_rows(_evaluator(SINGLE), 300)
    agent = _network(raw_env(2, SINGLE), 7, "Tanh", False, (16,), 0.3)
    cols = np.random.default_rng(0).choice(ev.n_M, 20, replace=False)
    whole = ev._banker_table_from_observations(agent)[:, cols]  # (BLAS may block other batch sizes otherwise)
    np.testing.assert_allclose(_generic_columns(ev, agent, cols), whole, rtol=0, atol=PROBS)


@pytest.mark.parametrize(
    ("rules", "activation", "hidden", "bias", "greedy_too"),
    # the small networks run again with NUMBA_CPU_NAME=generic (the `processor` mark: tests/tolerance.py)
    [pytest.param(*c, marks=pytest.mark.processor) if c[0] is SINGLE and c[2] != (128, 128) else c for c in CASES],
)
def test_fast_banker_table_equals_the_generic_one(rules, activation, hidden, bias, greedy_too):
    ev = _evaluator(rules)
    env = raw_env(2, rules)
    cols = np.random.default_rng(len(hidden)).choice(ev.n_M, NODES, replace=False)
    sampled = _network(env, 3 + len(hidden), activation, False, hidden, bias)
    fast = sampled.exact_banker_table(ev)
    assert fast is not None
    assert fast.shape == (ev.n_vu * ev.L, ev.n_M)
    generic = _generic_columns(ev, sampled, cols)
    np.testing.assert_allclose(fast[:, cols], generic, rtol=0, atol=PROBS)
    assert np.ptp(generic) > 0.05  # the table means something
    if len(hidden) <= 1:  # what ExactEvaluator.banker_table gives (its dispatch: the same for every network)
        assert np.array_equal(ev.banker_table(sampled), fast)
    if not greedy_too:
        return
    # greedy (a network that hits about half the time): the same, but where z_hit and
    # z_stand tie (|z_hit - z_stand| < 1e-4) rounding may break the tie either way
    greedy, shift = _centred(env, sampled, generic, greedy=True)
    fast_g = greedy.exact_banker_table(ev)[:, cols]
    generic_g = _generic_columns(ev, greedy, cols)
    valid = generic > 0
    assert set(np.unique(generic_g)) <= {0.0, 1.0}
    assert 0.3 < generic_g[valid].mean() < 0.7
    z = np.log(generic[valid] / (1 - generic[valid])) - shift
    near_tie = np.zeros_like(valid)
    near_tie[valid] = np.abs(z) < 1e-4
    assert np.array_equal(fast_g[~near_tie], generic_g[~near_tie])


@pytest.mark.processor
def test_numpy_layers_equal_the_compiled_ones(monkeypatch):
    """Where numba is missing (or ``SIETE_SOLVE_BACKEND=numpy``), the layers run in numpy."""
    ev = _evaluator(SINGLE)
    env = raw_env(2, SINGLE)
    for activation, hidden in (("Tanh", (32, 16, 8)), ("ReLU", (32,)), ("Tanh", ())):
        agent = _network(env, 5, activation, False, hidden, 0.3)
        compiled = agent.exact_banker_table(ev)
        monkeypatch.setenv("SIETE_SOLVE_BACKEND", "numpy")
        np.testing.assert_allclose(agent.exact_banker_table(ev), compiled, rtol=0, atol=PROBS)
        monkeypatch.delenv("SIETE_SOLVE_BACKEND")


def test_exact_speed_network_on_four_swap_rules_sample():
    """The four-swap rules (the 4s going back are per-row entries): on a subset of the
    banker nodes, the fast table against the generic rows."""
    rules = {"preset": "spanish", "bet_levels": [1, 2], "max_splits": 0}  # (two stakes: as many 4s as five)
    ev = _evaluator(rules)
    env = raw_env(2, rules)
    agent = _network(env, 1, "Tanh", False, (32, 32), 0.5)
    fast = agent.exact_banker_table(ev)
    base, mask1 = ev.banker_base()
    vk, vU = np.repeat(ev.vu_k, ev.L), np.repeat(ev.vu_U, ev.L, axis=0)
    rng = np.random.default_rng(0)
    checked = 0
    for m_i in rng.choice(ev.n_M, 15, replace=False):
        rows, ok = ev.banker_rows(base, vk, vU, int(m_i))
        ret = ev.banker_node(vk, vU, int(m_i)).cards[-1][2]
        sel = np.flatnonzero(ok)
        if len(rows) > 4000:  # a sample of the rows, every number of 4s going back included
            pick = np.unique(np.concatenate([rng.choice(len(rows), 4000, replace=False),
                                             [np.flatnonzero(ret == k)[0] for k in np.unique(ret)]]))  # fmt: skip
            rows, sel = rows[pick], sel[pick]
        p = ev.query(agent, rows, np.broadcast_to(mask1, (len(rows), ev.A)).copy())
        h = p[:, HIT_UP] / (p[:, STAND] + p[:, HIT_UP])
        np.testing.assert_allclose(fast[sel, m_i], h, rtol=0, atol=PROBS)
        assert not fast[~ok, m_i].any()
        checked += int((ret > 0).any())
    assert checked > 0  # some of them with swapped 4s going back


def test_fallbacks_to_the_generic_path():
    ev = _evaluator(SINGLE)
    env = raw_env(2, SINGLE)
    unfolded = _network(env, 1, fold=False)
    assert not unfolded.fold and unfolded.exact_banker_table(ev) is None

    class Other(MLPPolicy):
        pass

    agent = _network(env, 1)
    agent.policy = Other([(w.T, b) for w, b in agent.policy.layers], agent.policy.activation)
    assert agent.exact_banker_table(ev) is None

    class Tempered(PPOAgent):
        def action_probs(self, observations, masks):
            return super().action_probs(observations, masks) ** 0.5

    t = Tempered(env, _network(env, 1).policy, greedy=False)
    assert t.exact_banker_table(ev) is None


def test_the_table_split_over_processes_is_the_same_table():
    """``agents.learned.table_workers``: the node range split between forked processes
    (three here: two children) gives the single process's table, value for value."""
    from agents.learned import table_workers

    env = raw_env(2, SINGLE)
    ev = _evaluator(SINGLE)
    assert ev.n_M >= 4 * 64 * 3  # else fewer processes are used
    agent = _network(env, 7, hidden=(16, 16), bias=0.2)
    one = agent.exact_banker_table(ev)
    with table_workers(3):
        split = agent.exact_banker_table(ev)
    assert np.array_equal(one, split)
