"""CFR+ reference equilibria (``siete_env.solve.cfr``) and NashConv at an exact equilibrium.

The toy configuration is the single-stake heads-up game with ``banker_policy_rule:
hit_below_6``: the banker has no decision, so the equilibria are exactly the punter's best
responses to the forced banker, NashConv is 0 there and positive for every other punter."""

from __future__ import annotations

import numpy as np
import pytest

from agents.specs import make_agent
from siete_env import raw_env
from siete_env.game import HIT_UP, STAND
from siete_env.solve import (
    ExactEvaluator,
    TabularPunterPolicy,
    best_response,
    cfr,
    evaluator,
    expected_value,
    load_tables,
    nash_conv,
)

from .helpers import simulate_heads_up
from .tolerance import FLOAT64

SINGLE = {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0}
FORCED = {**SINGLE, "banker_policy_rule": "hit_below_6"}
LEVELS = {"preset": "spanish", "bet_levels": [1, 2], "four_swap": "off", "max_splits": 0}


def agent(spec, rules, seed=None):
    return make_agent(spec, raw_env(2, rules), seed=seed)


# --------------------------------------------------------------------------- the toy configuration
def test_forced_banker_value_matches_the_free_game_and_a_simulation():
    ev = evaluator(FORCED)
    # banker:6 is exactly the forced play: the core issue's value
    assert abs(expected_value(agent("threshold:5.5", FORCED), agent("banker:6", FORCED), ev) + 0.1777828) < 1e-7
    # every banker policy is overridden by the forced moves
    assert abs(expected_value(agent("threshold:5.5", FORCED), agent("random", FORCED), ev) + 0.1777828) < 1e-7
    br = best_response(agent("banker:6", FORCED), "banker", ev)
    sim = simulate_heads_up(br.policy, agent("banker:6", FORCED), FORCED, 4000, seed=5)
    assert abs(sim.mean() - br.value) < 1.96 * sim.std() / np.sqrt(len(sim))


def test_nash_conv_is_zero_exactly_at_the_equilibrium_of_the_toy_configuration():
    ev = evaluator(FORCED)
    banker = agent("banker:6", FORCED)
    br = best_response(banker, "banker", ev)
    nc = nash_conv(br.policy, banker, ev)
    assert abs(nc.nash_conv) < FLOAT64 and abs(nc.banker_br_value + nc.ev) < FLOAT64
    # the banker's best response is its forced play: no gain, whatever banker is named
    assert abs(nash_conv(br.policy, agent("smart:4", FORCED), ev).nash_conv) < FLOAT64


@pytest.mark.parametrize("spec", ["threshold:4", "threshold:5", "threshold:5.5", "threshold:6", "bold:5", "random"])
def test_nash_conv_is_positive_away_from_the_equilibrium(spec):
    ev = evaluator(FORCED)
    nc = nash_conv(agent(spec, FORCED), agent("banker:6", FORCED), ev)
    assert nc.nash_conv > 1e-4
    assert abs(nc.nash_conv - (nc.punter_br_value - nc.ev)) < FLOAT64  # the banker gains nothing


def test_one_changed_decision_moves_the_pair_off_the_equilibrium():
    """Changing the best response at one reachable state with a strictly worse action
    makes NashConv positive, by exactly the reach times the loss."""
    ev = evaluator(FORCED)
    banker = agent("banker:6", FORCED)
    br = best_response(banker, "banker", ev).policy
    sol = cfr.CFRPlus(ev)
    G = ev.banker_pass(ev.banker_table(banker), None)[0]
    sol.bet, sol.draw = br.bet_p, br.draw_p
    _, Q, _ = sol.punter_values(G)
    _, _, _, reach = ev.punter_forward(br.bet_p, br.draw_p, return_reach=True)
    gap = Q[:, 0, 0, [STAND, HIT_UP]].max(1) - Q[:, 0, 0, [STAND, HIT_UP]].min(1)
    c = int(np.argmax(reach[:, 0, 0] * gap))  # the reachable state where a change costs most
    draw = br.draw_p.copy()
    best = int(np.argmax(draw[c, 0, 0]))
    assert best in (STAND, HIT_UP)  # (the best response hits up or stands there)
    draw[c, 0, 0] = 0.0
    draw[c, 0, 0, HIT_UP if best == STAND else STAND] = 1.0
    nc = nash_conv(TabularPunterPolicy(ev, br.bet_p, draw), banker, ev)
    assert nc.nash_conv > 1e-3
    assert abs(nc.nash_conv - reach[c, 0, 0] * gap[c]) < FLOAT64


def test_cfr_reaches_the_toy_equilibrium_value():
    ev = evaluator(FORCED)
    value = best_response(agent("banker:6", FORCED), "banker", ev).value
    sol = cfr.solve(ev, iterations=20)
    assert 0 <= sol.nash_conv < 2e-3
    assert abs(sol.result.punter_br_value - value) < FLOAT64


# --------------------------------------------------------------------------- the free game
SWAPS = {"preset": "spanish", "bet_levels": [1, 2], "max_splits": 0}
MANDATORY = {"preset": "spanish", "bet_levels": [1, 2, 3], "max_splits": 0, "four_swap": "mandatory"}


@pytest.mark.parametrize("rules", [SWAPS, MANDATORY])  # (SWAPS has LEVELS' stakes and raises, and the swap)
def test_punter_action_values_agree_with_the_evaluator(rules):
    """CFR's policy evaluation of the punter (stakes, raises, swaps) against a fixed banker
    gives the exact value of a stochastic policy (computed by the forward pass instead),
    and for the best response its value and greedy choices at every reachable state."""
    ev = evaluator(rules)
    banker = agent("smart:6", rules)
    G = ev.banker_pass(ev.banker_table(banker), None)[0]
    c = cfr.CFRPlus(ev)  # starts uniform over the legal actions
    rng = np.random.default_rng(0)
    c.draw = c.draw * rng.random(c.draw.shape) * c.draw_mask
    c.draw /= c.draw.sum(-1, keepdims=True)
    _, _, v = c.punter_values(G)
    assert abs(v - expected_value(TabularPunterPolicy(ev, c.bet, c.draw), banker, ev)) < FLOAT64
    br = best_response(banker, "banker", ev)
    c.bet, c.draw = br.policy.bet_p, br.policy.draw_p
    Q_bet, Q, v = c.punter_values(G)
    assert abs(v - br.value) < FLOAT64
    _, _, breach, reach = ev.punter_forward(c.bet, c.draw, return_reach=True)
    best = np.where(c.draw_mask, Q, -np.inf).max(-1)
    np.testing.assert_allclose((c.draw * Q).sum(-1)[reach > 0], best[reach > 0], rtol=0, atol=FLOAT64)
    best_bet = np.where(c.bet_mask, Q_bet, -np.inf).max(-1)
    np.testing.assert_allclose((c.bet * Q_bet).sum(-1)[breach > 0], best_bet[breach > 0], rtol=0, atol=FLOAT64)


def test_cfr_with_the_four_swap_improves_on_the_uniform_start():
    ev = evaluator({"preset": "spanish", "bet_levels": [1], "max_splits": 0})
    c = cfr.CFRPlus(ev)
    start = c.measure(average=False).nash_conv
    for _ in range(2):
        c.iterate()
    assert 0 <= c.measure().nash_conv < start / 2
    x = c.banker_reach()
    assert (x >= 0).all() and (x[:, ev.single] == 1).all()


@pytest.fixture(scope="module")
def single_dcfr():
    """DCFR's solution of the single-stake game after 16 iterations (measured at 8 and 16):
    shared by the convergence test and the comparison with CFR+."""
    return cfr.solve(evaluator(SINGLE), iterations=16, every=8, method="dcfr")


def test_cfr_single_stake_converges_and_its_policies_play_through_the_env(tmp_path, single_dcfr):
    ev = evaluator(SINGLE)
    sol = single_dcfr
    its = [h[0] for h in sol.history]
    ncs = [h[2] for h in sol.history]
    assert its == [8, 16]
    assert ncs[-1] < ncs[0] and 0 <= ncs[-1] < 0.01, ncs  # (measured: 0.0200, 0.0052)
    r = sol.result
    # the game value lies between what each side guarantees itself
    assert r.punter_br_value >= r.ev - FLOAT64 and -r.banker_br_value <= r.ev + FLOAT64
    assert -r.banker_br_value <= -0.10 and r.punter_br_value >= -0.125  # value ~ -0.113 (measured)
    # well under the best pair of simple threshold policies (0.0245)
    best_pair = nash_conv(agent("threshold:5", SINGLE), agent("banker:5", SINGLE), ev).nash_conv
    assert abs(best_pair - 0.0245) < 5e-4 and sol.nash_conv < best_pair / 2
    # the stochastic tables, read back from real observations, play their exact value
    sim = simulate_heads_up(sol.punter, sol.banker, SINGLE, 4000, seed=11)
    assert abs(sim.mean() - sol.value) < 1.96 * sim.std() / np.sqrt(len(sim))
    # the tables read back from observations by a fresh evaluator (no shortcut) are the tables
    fresh = ExactEvaluator(SINGLE)
    bet, draw = fresh.punter_table(sol.punter)
    _, _, _, draw_row = fresh.punter_observations()
    np.testing.assert_allclose(bet, sol.bet, atol=FLOAT64)
    np.testing.assert_allclose(draw[draw_row >= 0], sol.draw[draw_row >= 0], atol=FLOAT64)
    # saved and loaded: the same policies
    sol.save(tmp_path / "eq.npz")
    back = load_tables(tmp_path / "eq.npz")
    assert back.iterations == 16 and back.result == sol.result
    again = nash_conv(back.punter, back.banker, evaluator(back.rules))
    assert abs(again.nash_conv - sol.nash_conv) < 1e-5  # (tables stored in float32)


def test_cfr_with_bet_levels_and_raises_improves_on_the_uniform_start():
    ev = evaluator(LEVELS)
    c = cfr.CFRPlus(ev)
    start = c.measure(average=False).nash_conv
    for _ in range(5):
        c.iterate()
    nc = c.measure()
    assert 0 <= nc.nash_conv < start / 3  # (measured: 1.507 at the start, 0.408 after 5)
    bet, draw, hit = c.average()
    np.testing.assert_allclose(bet.sum(-1), 1.0)
    assert ((hit >= 0) & (hit <= 1)).all()
    assert (bet[~c.bet_mask] == 0).all() and (draw[~c.draw_mask] == 0).all()


def test_dcfr_converges_faster_than_cfr_plus(single_dcfr):
    """At the same number of iterations DCFR's average is well under CFR+'s (measured on
    the single-stake game: 0.0052 against 0.0142 after 16). DCFR's run is ``solve``'s (the
    shared fixture: ``CFRPlus(method="dcfr")`` iterated and measured)."""
    ev = evaluator(SINGLE)
    assert cfr.METHODS == ("cfr+", "dcfr")
    assert single_dcfr.history[-1][0] == 16
    nc = {"dcfr": single_dcfr.history[-1][2]}
    c = cfr.CFRPlus(ev, method="cfr+")
    for _ in range(16):
        c.iterate()
    nc["cfr+"] = c.measure().nash_conv
    assert 0 <= nc["dcfr"] < nc["cfr+"] / 2, nc
    with pytest.raises(ValueError, match="unknown method 'cfr'"):
        cfr.CFRPlus(ev, method="cfr")


# --------------------------------------------------------------------------- CLI and agent spec
def test_solve_cli_and_the_cfr_agent_spec(tmp_path, capsys):
    import json

    import evaluate
    from agents.specs import check_spec
    from agents.tournament import play_match

    out = tmp_path / "eq.npz"
    args = ["--solve", str(out), "--rules", "spanish", "--rule", "bet_levels=[1]", "--rule", "four_swap=off",
            "--rule", "max_splits=0", "--iterations", "4", "--every", "2", "--json", str(tmp_path / "eq.json")]  # fmt: skip
    assert evaluate.main(args) == 0
    data = json.loads((tmp_path / "eq.json").read_text())
    assert [h["iteration"] for h in data["history"]] == [2, 4] and data["nash_conv"] > 0
    assert "NashConv" in capsys.readouterr().out
    spec = f"cfr:{out}"
    assert check_spec(spec) == spec
    # the exact values of the saved solution, read through the spec
    nc = nash_conv(agent(spec, SINGLE), agent(spec, SINGLE), evaluator(SINGLE))
    assert abs(nc.nash_conv - data["nash_conv"]) < 1e-5
    # it plays either seat at a table of its rules
    res = play_match(spec, [spec], rules=SINGLE, num_players=2, hands=300, seed=1)
    assert res.hands == 300
    with pytest.raises(ValueError, match="no solution file"):
        check_spec(f"cfr:{tmp_path / 'missing.npz'}")
    with pytest.raises(ValueError, match="solved for heads-up"):
        agent(spec, LEVELS)
    assert evaluate.main(["--solve", str(out), "--rules", "spanish"]) == 2  # splits: not covered
    err = capsys.readouterr().err
    assert "not covered" in err and "docs/exact.md#splits" in err
