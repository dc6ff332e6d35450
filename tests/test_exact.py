"""The exact heads-up evaluator (``siete_env.solve``): known value, observations identical
to the encoder's, EV against large simulations, best responses and NashConv."""

from __future__ import annotations

import numpy as np
import pytest

from agents.specs import make_agent
from siete_env import raw_env
from siete_env.cards import N_RANKS
from siete_env.features import fold_suits
from siete_env.game import HIT_UP, STAND, Phase
from siete_env.solve import (
    ExactEvaluator,
    TabularBankerPolicy,
    best_response,
    check_rules,
    evaluator,
    expected_value,
    nash_conv,
)

from .helpers import row_by_row, simulate_heads_up, some_v_rows
from .tolerance import FLOAT64

SINGLE = {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0}
LEVELS = {"preset": "spanish", "bet_levels": [1, 2, 3], "four_swap": "off", "max_splits": 0}
SWAPS = {"preset": "spanish", "bet_levels": [1, 2], "max_splits": 0}
SWAPS1 = {"preset": "spanish", "bet_levels": [1], "max_splits": 0}
KNOWN = -0.1777828  # threshold 5½ against banker 6 (tests/test_baseline_value.py)


def agent(spec, rules, seed=None):
    return make_agent(spec, raw_env(2, rules), seed=seed)


def test_known_value_threshold_against_banker_6():
    assert abs(expected_value(agent("threshold:5.5", SINGLE), agent("banker:6", SINGLE), SINGLE) - KNOWN) < 1e-7
    # bet levels, raises and swaps do not change a pair that never uses them
    for rules in (LEVELS, SWAPS1):
        assert abs(expected_value(agent("threshold:5.5", rules), agent("banker:6", rules), rules) - KNOWN) < 1e-7


def test_rules_not_covered_are_refused():
    with pytest.raises(ValueError, match="max_splits"):
        check_rules("spanish")
    with pytest.raises(ValueError, match="wild_card"):
        check_rules({"preset": "italian"})
    check_rules(SWAPS)


def _state_of(g):
    """The evaluator's view of the engine: (k, hidden rank, face-up rank counts) of the punter."""
    k = g.swaps[1]
    cards = g.cards[1]
    h = g.hidden[1] % N_RANKS
    U = [0] * N_RANKS
    for c in cards:
        if c != g.hidden[1]:
            U[c % N_RANKS] += 1
    return k, h, tuple(U)


@pytest.mark.parametrize("rules", [SINGLE, LEVELS, SWAPS])
def test_every_punter_state_is_read_back_from_its_observation(rules):
    """``punter_states`` (where a table policy reads an observation) maps the evaluator's
    own observation of every punter information state back to that state; a banker's
    observation is outside the punter tables, where a table punter plays the first legal
    action."""
    from siete_env.solve.observations import banker_base, punter_states
    from siete_env.solve.tables import TabularPunterPolicy

    ev = evaluator(rules)
    obs, masks, bet_row, draw_row = ev.punter_observations()
    kind, index, level, raise_open = punter_states(ev, obs, masks)
    for i, row in enumerate(bet_row):
        if row >= 0:
            assert (kind[row], index[row]) == (0, i)
    rows = np.argwhere(draw_row >= 0)
    assert len(rows)
    for c, lv, ro in rows:
        row = draw_row[c, lv, ro]
        assert (kind[row], index[row], level[row]) == (1, c, lv)
        assert raise_open[row] == (ro if ev.L > 1 else 0)
    L = ev.layout
    waiting = obs[draw_row[rows[:, 0], rows[:, 1], rows[:, 2]]].copy()  # the punter watching the bank play
    waiting[:, L.phase_feature(Phase.DRAW)], waiting[:, L.phase_feature(Phase.BANKER)] = 0.0, 1.0
    assert (punter_states(ev, waiting, masks[: len(waiting)])[0] == -1).all()
    base, _ = banker_base(ev)
    mask = np.zeros((len(base), ev.A), np.int8)
    mask[:, 2:4] = 1
    assert (punter_states(ev, base, mask)[0] == -1).all()
    uniform = np.full((ev.n_states, ev.L, 2, ev.A), 1.0 / ev.A)
    policy = TabularPunterPolicy(ev, np.full((len(ev.bet_states), ev.A), 1.0 / ev.A), uniform)
    np.testing.assert_array_equal(policy.action_probs(base, mask), np.eye(ev.A)[np.full(len(base), 2)])


@pytest.mark.parametrize(
    "rules", [SINGLE, LEVELS, SWAPS, {"preset": "spanish", "max_splits": 0, "four_swap": "mandatory"}]
)
def test_constructed_observations_equal_the_encoders(rules):
    """Random plays through the env: at every decision the evaluator's own observation
    of that information state (folded: suits are the evaluator's choice) and mask equal
    the environment's (the banker's row built for its own V row alone: each row is built on
    its own, and the batches' order is the observation-path tables' own test)."""
    ev = evaluator(rules)
    obs, masks, bet_row, draw_row = ev.punter_observations()
    state = {(int(k), int(h), tuple(U)): c for c, (k, h, U) in enumerate(ev.states)}
    bet_key = {(int(ev.K[c]), int(ev.Hd[c])): i for i, c in enumerate(ev.bet_states)}
    vu = {(k, tuple(U)): i for i, (k, U) in enumerate(ev.vu_keys)}
    base, _ = ev.banker_base()
    vk_all, vU_all = np.repeat(ev.vu_k, ev.L), np.repeat(ev.vu_U, ev.L, axis=0)
    L = ev.layout
    e = raw_env(2, rules)
    rng = np.random.default_rng(1)
    checked = {"bet": 0, "draw": 0, "banker": 0}
    n_hands = 0
    while n_hands < 400 or checked["banker"] < 200:
        n_hands += 1
        deck = None
        if n_hands % 4 == 0:  # plenty of 4s to swap
            fours = [f"4{s}" for s in "oceb"]
            deck = [fours[0], "1o"] + fours[1:]
        e.reset(seed=int(rng.integers(1 << 30)), options={"banker": 0, **({"deck": deck} if deck else {})})
        g = e.game
        while e.agents and g.phase != 4:
            seat = g.seat
            o = e.observe(f"player_{seat}")
            mine_obs = mine_mask = None
            if seat == 1:
                k, h, U = _state_of(g)
                if g.phase == 0:
                    i = bet_row[bet_key[(k, h)]]
                    checked["bet"] += 1
                else:
                    si = ev.levels.index(g.stake[1])
                    ro = int(any(o["action_mask"][list(ev.raise_ids.values())])) if ev.raise_ids else 0
                    i = draw_row[state[(k, h, U)], si, ro]
                    checked["draw"] += 1
                mine_obs, mine_mask = obs[i], masks[i]
            else:
                k, _, U = _state_of(g)
                Ufull = list(U)  # the banker does not see the hidden card: U is the face-up part
                M = [0] * N_RANKS
                for c in g.cards[0]:
                    M[c % N_RANKS] += 1
                m_i = ev.M_index[tuple(M)]
                v = vu[(k, tuple(Ufull))] * ev.L + ev.levels.index(g.stake[1])
                rows, ok = ev.banker_rows(base[v : v + 1], vk_all[v : v + 1], vU_all[v : v + 1], m_i)
                assert ok[0]
                mine_obs = rows[0]
                mine_mask = np.zeros(ev.A, np.int8)
                mine_mask[[STAND, HIT_UP]] = 1
                checked["banker"] += 1
            np.testing.assert_array_equal(fold_suits(mine_obs, L), fold_suits(o["observation"], L))
            np.testing.assert_array_equal(mine_mask, o["action_mask"])
            legal = np.flatnonzero(o["action_mask"])
            e.step(int(rng.choice(legal)))
    assert min(checked.values()) > 0, checked


@pytest.mark.parametrize(
    ("rules", "p_spec", "b_spec"),
    [
        (SINGLE, "random", "smart:6"),
        (LEVELS, "bold:5", "smart:5.5"),
        (SWAPS, "random", "random"),
    ],
)
def test_exact_value_within_the_confidence_interval_of_a_simulation(rules, p_spec, b_spec):
    p, b = agent(p_spec, rules), agent(b_spec, rules)
    exact = expected_value(p, b, evaluator(rules))
    sim = simulate_heads_up(p, b, rules, 5000, seed=7)
    half = 1.96 * sim.std() / np.sqrt(len(sim))
    assert abs(sim.mean() - exact) < half, (exact, sim.mean(), half)


@pytest.mark.parametrize("rules", [SINGLE, SWAPS, {"preset": "spanish", "max_splits": 0, "four_swap": "mandatory"}])
def test_vectorised_baselines_match_the_agents(rules):
    ev = evaluator(rules)
    obs, masks, _, _ = ev.punter_observations()
    base, mask1 = ev.banker_base()
    rng = np.random.default_rng(0)
    brows = [ev.banker_rows(base, np.repeat(ev.vu_k, ev.L), np.repeat(ev.vu_U, ev.L, axis=0), int(m))[0]
             for m in rng.choice(ev.n_M, 30, replace=False)]  # fmt: skip
    bobs = np.concatenate(brows)
    bmask = np.broadcast_to(mask1, (len(bobs), ev.A)).copy()
    for spec in ("threshold:5.5", "threshold:4", "banker:6", "smart:6", "smart:5", "bold:5", "random"):
        a = agent(spec, rules)
        for o, m in ((obs, masks), (bobs, bmask)):
            sel = rng.choice(len(o), min(len(o), 3000), replace=False)
            np.testing.assert_array_equal(a.action_probs(o[sel], m[sel]), row_by_row(a, o[sel], m[sel]))


def test_best_response_beats_every_policy_tried_and_is_achieved():
    ev = evaluator(SINGLE)
    banker = agent("smart:6", SINGLE)
    br = best_response(banker, against="banker", rules=ev)
    for spec in ("threshold:4", "threshold:5", "threshold:5.5", "threshold:6", "bold:5", "random"):
        assert br.value >= expected_value(agent(spec, SINGLE), banker, ev) - FLOAT64, spec
    # the best-response policy, played as an ordinary agent, has exactly that value
    assert abs(expected_value(br.policy, banker, ev) - br.value) < FLOAT64
    punter = agent("threshold:5.5", SINGLE)
    bbr = best_response(punter, against="punter", rules=ev)
    for spec in ("banker:4", "banker:5", "banker:6", "smart:5", "smart:6", "random"):
        assert bbr.value >= -expected_value(punter, agent(spec, SINGLE), ev) - FLOAT64, spec
    assert abs(-expected_value(punter, bbr.policy, ev) - bbr.value) < FLOAT64


def test_best_response_policies_play_through_the_env():
    """A simulation of the best-response agents agrees with their exact values (the
    tables are read back from real observations)."""
    ev = evaluator(SINGLE)
    banker = agent("banker:6", SINGLE)
    br = best_response(banker, against="banker", rules=ev)
    sim = simulate_heads_up(br.policy, banker, SINGLE, 4000, seed=3)
    assert abs(sim.mean() - br.value) < 1.96 * sim.std() / np.sqrt(len(sim))
    bbr = best_response(agent("random", SINGLE), against="punter", rules=ev)
    sim = simulate_heads_up(agent("random", SINGLE), bbr.policy, SINGLE, 4000, seed=4)
    assert abs(-sim.mean() - bbr.value) < 1.96 * sim.std() / np.sqrt(len(sim))


def test_best_response_to_a_best_response():
    ev = evaluator(SINGLE)
    banker = agent("banker:6", SINGLE)
    p1 = best_response(banker, against="banker", rules=ev)
    nc1 = nash_conv(p1.policy, banker, ev)
    assert abs(nc1.punter_br_value - nc1.ev) < FLOAT64  # p1 is a best response: no punter gain
    assert nc1.nash_conv > 0.01  # banker:6 is not a best response to it
    b2 = best_response(p1.policy, against="punter", rules=ev)
    # the banker's best reply to p1 does at least as well as banker:6 did against it
    assert b2.value >= -p1.value - FLOAT64
    p3 = best_response(b2.policy, against="banker", rules=ev)
    assert p3.value >= expected_value(p1.policy, b2.policy, ev) - FLOAT64
    nc = nash_conv(p1.policy, b2.policy, ev)
    assert abs(nc.banker_br_value - b2.value) < FLOAT64  # b2 is already a best response: no banker gain
    assert abs(nc.banker_br_value + nc.ev) < FLOAT64
    assert abs(nc.punter_br_value - p3.value) < FLOAT64
    assert nc.nash_conv >= -FLOAT64


@pytest.mark.parametrize(
    ("rules", "p_spec", "b_spec"),
    [(SINGLE, "threshold:5.5", "banker:6"), (SINGLE, "random", "smart:6"), (SINGLE, "bold:5", "random")],
)
def test_nash_conv_is_the_sum_of_both_gains(rules, p_spec, b_spec):
    ev = evaluator(rules)
    p, b = agent(p_spec, rules), agent(b_spec, rules)
    nc = nash_conv(p, b, ev)
    assert abs(nc.ev - expected_value(p, b, ev)) < FLOAT64
    assert abs(nc.punter_br_value - best_response(b, "banker", ev).value) < FLOAT64
    assert abs(nc.banker_br_value - best_response(p, "punter", ev).value) < FLOAT64
    assert nc.punter_br_value >= nc.ev - FLOAT64 and nc.banker_br_value >= -nc.ev - FLOAT64
    assert nc.nash_conv >= 0 and abs(nc.exploitability - nc.nash_conv / 2) < 1e-15


def test_best_response_with_four_swaps():
    """With swaps the punter's best response to banker:6 beats a punter that swaps every
    4 (bold) and one that never does, and its table plays back to its value."""
    ev = evaluator(SWAPS1)
    banker = agent("banker:6", SWAPS1)
    br = best_response(banker, against="banker", rules=ev)
    for spec in ("bold:5.5", "threshold:5.5"):
        assert br.value >= expected_value(agent(spec, SWAPS1), banker, ev) - FLOAT64, spec
    assert abs(expected_value(br.policy, banker, ev) - br.value) < FLOAT64


def test_direct_banker_tables_of_the_baselines_match_the_observation_path():
    """The baselines' banker tables from their summaries equal those read from every banker
    observation, at every banker node of a fixed sample of 300 stood punter hands (of 1,489)."""
    ev = evaluator(SINGLE)
    no_summaries, rows = some_v_rows(ExactEvaluator(SINGLE, summaries=False), 300)
    vk, vU = np.repeat(no_summaries.vu_k, ev.L), np.repeat(no_summaries.vu_U, ev.L, axis=0)
    oks = [no_summaries.banker_node(vk, vU, m_i).ok for m_i in range(ev.n_M)]
    for spec in ("banker:6", "smart:6", "smart:4.5", "threshold:5", "random"):
        a = agent(spec, SINGLE)
        direct = ev.banker_table(a)[rows]
        via_obs = no_summaries.banker_table(a)
        for m_i, ok in enumerate(oks):  # impossible (V, M) pairs are never asked through observations
            np.testing.assert_array_equal(direct[ok, m_i], via_obs[ok, m_i], err_msg=spec)


@pytest.mark.parametrize("rules", [LEVELS])  # (the shortcut never looks at the swapped 4s: SWAPS took its branch again)
def test_stake_scaling_shortcut_is_exact(rules):
    """Where a banker plays the same at every stake its values scale with the stake: the
    shortcut gives the same values as the full pass, for stake-free and mixed tables."""
    ev = evaluator(rules)
    rng = np.random.default_rng(0)
    mixed = ev.banker_table(agent("smart:6", rules)).copy()
    rows = rng.choice(ev.n_vu, ev.n_vu // 3, replace=False) * ev.L + 1  # these V play otherwise at stake 2
    mixed[rows] = rng.random((len(rows), ev.n_M))
    for hit in (ev.banker_table(agent("banker:6", rules)), mixed):
        fast = ev.banker_pass(hit, None)[0]
        slow = ev.banker_pass(hit, None, scale_stakes=False)[0]
        np.testing.assert_allclose(fast, slow, rtol=0, atol=FLOAT64)
    # and the values the public API gives for the mixed table are the full pass's
    Wst, bust = ev.punter_forward(*ev.punter_table(agent("threshold:5.5", rules)))
    want = float((Wst * slow).sum() + bust)
    assert abs(expected_value(agent("threshold:5.5", rules), TabularBankerPolicy(ev, mixed), ev) - want) < FLOAT64
