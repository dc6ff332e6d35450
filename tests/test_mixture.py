"""Mixtures of heads-up policies (``siete_env.solve.mixture``): restricted-game payoffs, the
meta-solvers, and the mixture's table policy, each checked against the exact evaluator."""

from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import pytest

from agents.specs import make_agent
from siete_env import raw_env
from siete_env.solve import banker as banker_side
from siete_env.solve import best_response, evaluate_pair, evaluator, expected_value, load_tables, nash_conv
from siete_env.solve import punter as punter_side
from siete_env.solve.exact import stood_value
from siete_env.solve.mixture import Population, matrix_nash

from .helpers import simulate_heads_up
from .tolerance import FLOAT64

SINGLE = {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0}
PUNTERS = ["threshold:4.5", "threshold:5", "threshold:6", "bold:5.5"]
BANKERS = ["banker:5", "banker:6", "smart:6", "banker:6.5"]


def agent(spec, rules=SINGLE):
    return make_agent(spec, raw_env(2, rules))


@pytest.fixture(scope="module")
def pairs():
    """The four member pairs, each evaluated exactly once (``evaluate_pair``, as
    ``Population.add_pair`` does): every population of this module is built from them."""
    ev = evaluator(SINGLE)
    out = []
    for a, b in zip(PUNTERS, BANKERS, strict=True):
        p, q = agent(a), agent(b)
        out.append((p, q, evaluate_pair(p, q, ev), (a, b)))
    return out


def population(pairs):
    p = Population(evaluator(SINGLE))
    for punter, banker, pe, names in pairs:
        p.add_evaluated(punter, banker, pe, names)
    return p


@pytest.fixture(scope="module")
def pop(pairs):
    """The population of the four pairs, shared by the tests that only read it (only the
    ``least`` fixture's ``least_exploitable`` writes to it: its ``gaps`` and ``duals``)."""
    return population(pairs)


@pytest.fixture(scope="module")
def least(pop):
    """``least_exploitable`` of the shared population (once: two tests read it) and its mixture."""
    wp, wb = pop.least_exploitable(iterations=15)
    return wp, wb, pop.mixture(wp, wb)


# --------------------------------------------------------------------------- matrix games
def test_matrix_nash_of_rock_paper_scissors_is_uniform():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float)
    x, y, gap = matrix_nash(rps)
    assert gap < 1e-3
    assert np.allclose(x, 1 / 3, atol=2e-3) and np.allclose(y, 1 / 3, atol=2e-3)


def test_matrix_nash_finds_a_saddle_point_and_a_known_mixed_equilibrium():
    x, y, gap = matrix_nash(np.array([[3.0, 1.0], [4.0, 2.0]]))  # row 2 dominates; column 2 then
    assert gap < 1e-6 and x[1] > 0.999 and y[1] > 0.999
    # matching pennies with unequal stakes: the row player mixes 1/4, 3/4 (value 0.5)
    M = np.array([[3.0, 0.0], [0.0, 1.0]])
    x, y, gap = matrix_nash(M, iterations=50_000)
    assert gap < 1e-3 and abs(x[0] - 0.25) < 5e-3 and abs(y[0] - 0.25) < 5e-3


# --------------------------------------------------------------------------- exact values
def test_pairs_and_matrix_are_the_exact_values(pop):
    ev = pop.ev
    for i, a in enumerate(PUNTERS):
        for j, b in enumerate(BANKERS):
            assert abs(pop.matrix[i, j] - expected_value(agent(a), agent(b), ev)) < FLOAT64
    # add_pair's NashConv is the evaluator's
    p2 = Population(ev)
    got = p2.add_pair(agent("threshold:5"), agent("smart:6"))
    want = nash_conv(agent("threshold:5"), agent("smart:6"), ev)
    assert np.allclose(tuple(got), tuple(want), atol=FLOAT64)


def test_worst_cases_are_the_best_responses_to_the_mixture_table(pop):
    ev = pop.ev
    wp = np.array([0.1, 0.4, 0.2, 0.3])
    wb = np.array([0.25, 0.25, 0.4, 0.1])
    sol = pop.mixture(wp, wb)
    pw, v = pop.punter_worst(wp)
    bw, u = pop.banker_worst(wb)
    assert abs(-best_response(sol.punter, "punter", ev).value - pw) < FLOAT64
    assert abs(best_response(sol.banker, "banker", ev).value - bw) < FLOAT64
    # realization equivalence: against any fixed opponent, the mixture table's value is the
    # weighted value of its members (the matrix: each entry is its pair's expected_value,
    # test_pairs_and_matrix_are_the_exact_values)
    M = pop.matrix
    for j, b in enumerate(BANKERS):
        assert abs(expected_value(sol.punter, agent(b), ev) - wp @ M[:, j]) < FLOAT64
    for i, a in enumerate(PUNTERS):
        assert abs(expected_value(agent(a), sol.banker, ev) - M[i] @ wb) < FLOAT64
    # and the members' values against those best responses average to the worst cases
    assert abs(wp @ v - pw) < FLOAT64 and abs(wb @ u - bw) < FLOAT64


def test_the_mixture_plays_as_its_table_in_the_environment(pop, tmp_path):
    sol = pop.mixture(np.array([0.5, 0.5, 0.0, 0.0]), np.array([0.0, 0.5, 0.5, 0.0]))
    sol.save(tmp_path / "m.npz")
    loaded = load_tables(tmp_path / "m.npz")
    assert loaded.source == "mixture" and loaded.weights["punter"]["threshold:4.5"] == 0.5
    p = make_agent(f"table:{tmp_path / 'm.npz'}", raw_env(2, SINGLE), seed=1)
    sim = simulate_heads_up(p, p, SINGLE, 3000, seed=11)
    assert abs(sim.mean() - sol.value) < 1.96 * sim.std() / np.sqrt(len(sim)) + FLOAT64


def test_least_exploitable_is_no_worse_than_any_member_and_beats_them_here(pop, least):
    wp, wb, sol = least
    p_worst = [pop.punter_worst(np.eye(4)[i])[0] for i in range(4)]
    b_worst = [pop.banker_worst(np.eye(4)[j])[0] for j in range(4)]
    # NashConv = (punter BR to the banker) - (punter's value against a banker BR)
    assert sol.result.banker_br_value <= min(-x for x in p_worst) + FLOAT64
    assert sol.result.punter_br_value <= min(b_worst) + FLOAT64
    assert sol.nash_conv <= min(b - p for b in b_worst for p in p_worst) + FLOAT64
    # and here strictly better than the best pair of members (0.0245 -> 0.0215): it mixes
    assert sol.nash_conv < min(b_worst) - max(p_worst) - 0.002
    assert sum(w > 0.1 for w in wp) >= 2
    assert abs(sol.nash_conv - nash_conv(sol.punter, sol.banker, pop.ev).nash_conv) < FLOAT64
    # and the weights are a distribution
    for w in (wp, wb):
        assert np.all(w >= 0) and abs(w.sum() - 1) < FLOAT64
    # the cutting plane finds the optimum: here the punter mixes its first two members (a grid
    # over the whole simplex, step 0.05, found nothing better than -0.125722; the planes reach -0.125707)
    assert wp[2] + wp[3] < 1e-6 and 0.4 < wp[0] < 0.6
    edge = max(pop.punter_worst(np.array([t, 1 - t, 0, 0]))[0] for t in np.linspace(0, 1, 51))
    assert pop.punter_worst(wp)[0] >= edge - FLOAT64
    assert set(pop.gaps) == {"punter", "banker"} and max(pop.gaps.values()) <= 1e-5  # and certifies it


def test_population_errors():
    p = Population(evaluator(SINGLE))
    with pytest.raises(ValueError, match="at least one punter and one banker"):
        p.restricted_nash()
    p.add_punter(agent("threshold:5"))
    with pytest.raises(ValueError, match="at least one punter and one banker"):
        p.least_exploitable()
    p.add_banker(agent("banker:6"))
    with pytest.raises(ValueError, match="no weight left"):
        p.mixture(np.array([0.0]), np.array([1.0]))


def test_mixtures_with_stakes_raises_and_swaps_are_realization_equivalent():
    """The reach weighting through bets, raises and the four-swap, with a stochastic
    member: the mixture table's value against any fixed opponent is the weighted value
    of its members (to rounding). Each value is ``expected_value``'s (the punter's stood
    reach from its table, against the banker's stood values from its table), each pass
    made once: the members' are the population's."""
    rules = {"preset": "spanish", "bet_levels": [1, 2], "max_splits": 0}
    ev = evaluator(rules)
    pop = Population(ev)
    for a, b in (("random", "banker:5"), ("bold:5", "smart:6")):
        pop.add_punter(agent(a, rules), a)
        pop.add_banker(agent(b, rules), b)
    wp, wb = np.array([0.3, 0.7]), np.array([0.6, 0.4])
    sol = pop.mixture(wp, wb)
    M = pop.matrix
    W, bust = ev.punter_forward(*ev.punter_table(sol.punter))  # the mixture punter's
    for j, G in enumerate(pop._G):  # against each member banker: banker:5, smart:6
        assert abs(stood_value(W, bust, G) - wp @ M[:, j]) < FLOAT64
    G = banker_side.policy_values(ev, ev.banker_table(sol.banker))  # the mixture banker's
    for i, (Wi, b) in enumerate(zip(pop._W, pop._bust, strict=True)):  # each member punter: random, bold:5
        assert abs(stood_value(Wi, b, G) - M[i] @ wb) < FLOAT64


def test_the_banker_tables_wait_on_disk_and_leave_with_the_population():
    p = Population(evaluator(SINGLE))
    p.add_pair(agent("threshold:5"), agent("banker:6"))
    kept = p._tables["banker"][0]
    folder = Path(p._files.name)
    assert isinstance(kept, np.memmap) and kept.dtype == np.float32 and folder.is_dir()
    assert np.array_equal(kept, np.asarray(p.ev.banker_table(agent("banker:6")), np.float32))
    sol = p.mixture(np.array([1.0]), np.array([1.0]))  # the mixture reads them back
    assert abs(sol.nash_conv - nash_conv(agent("threshold:5"), agent("banker:6"), p.ev).nash_conv) < 1e-6
    del p, kept, sol
    gc.collect()
    assert not folder.exists()


def test_the_double_oracle_adds_best_responses_to_the_planes_equilibria(pairs, pop, least):
    """``oracles()``: each side's exact best response to the other side's strategy that holds
    this side's members down (the last planes' equilibrium); added as members, they never
    leave the least exploitable mixture worse, and here make it better. (The shared
    population's ``least_exploitable`` is read; the oracles join a copy of it.)"""
    ev = pop.ev
    grown = population(pairs)
    with pytest.raises(ValueError, match="call it first"):
        grown.oracles()
    wp, wb, sol = least
    before = sol.nash_conv
    G, (W, bust) = pop.duals["banker"], pop.duals["punter"]
    # the duals are the planes' equilibria: the best punter member against that banker mixture is
    # the bound the search stopped at, and so is the best banker member against that punter mixture
    top = max(stood_value(Wi, b, G) for Wi, b in zip(pop._W, pop._bust, strict=True))
    assert abs(top - (pop.punter_worst(wp)[0] + pop.gaps["punter"])) < 1e-6
    low = min(stood_value(W, bust, Gj) for Gj in pop._G)
    assert abs(low - (pop.banker_worst(wb)[0] - pop.gaps["banker"])) < 1e-6
    p_or, b_or = pop.oracles()
    # the punter oracle is a best response to that banker mixture: as good as any punter there
    Wo, bo = ev.punter_forward(*ev.punter_table(p_or))
    mine = stood_value(Wo, bo, G)
    assert mine >= max(stood_value(Wi, b, G) for Wi, b in zip(pop._W, pop._bust, strict=True)) - FLOAT64
    assert abs(mine - punter_side.best_response(ev, G)[0]) < FLOAT64  # and its table plays that value
    # the banker oracle holds that punter mixture at least as low as any banker member
    Go = banker_side.policy_values(ev, ev.banker_table(b_or))
    assert stood_value(W, bust, Go) <= min(stood_value(W, bust, Gj) for Gj in pop._G) + FLOAT64
    grown.least_exploitable(iterations=0)  # the first planes only (no best response): duals to forget
    assert grown.duals
    grown.add_pair(p_or, b_or, ("oracle", "oracle"))
    assert not grown.duals  # those planes were for the members before
    after = grown.mixture(*grown.least_exploitable(iterations=15)).nash_conv
    assert after < before - 1e-4
