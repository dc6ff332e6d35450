"""``evaluation.select: one_step`` (``training.selection``): a pair's one-step gains, checked
against the exact best responses in the exactly measured game, and the choice."""

from __future__ import annotations

import pytest

RULES = {"preset": "spanish", "bet_levels": [1, 2], "four_swap": "off", "max_splits": 0}


@pytest.fixture(scope="module")
def players():
    from agents.specs import make_agent
    from siete_env import raw_env
    from training.vine import Frozen

    table = raw_env(num_players=2, rules=RULES)
    return {spec: make_agent(spec, table) for spec in ("threshold:5", "random", "banker:6")}, Frozen


def test_one_step_gains_are_below_the_exact_best_responses(players):
    """Against a uniformly random banker the bank's one-step gain is large, yet within the
    exact best response's gain; a heuristic pair's gains are small and within theirs too;
    the same seed gives the same figures."""
    from siete_env.solve.exact import best_response, expected_value
    from training.selection import one_step_gains

    agents, Frozen = players
    punter = agents["threshold:5"]
    for name, bound in (("random", 0.05), ("banker:6", None)):
        banker = agents[name]
        g = one_step_gains(RULES, 2, Frozen(punter), Frozen(banker), seed=3, hands=8000)
        ev = expected_value(punter, banker, RULES)
        bank_br = best_response(punter, against="punter", rules=RULES).value + ev  # the bank's best gain
        punter_br = best_response(banker, against="banker", rules=RULES).value - ev
        noise = 0.03  # 8,000 hands a batch
        assert -noise <= g.banker <= bank_br + noise and -noise <= g.punter <= punter_br + noise, (name, g)
        if bound:
            assert g.banker > bound, g  # a random bank leaves much to gain
        assert one_step_gains(RULES, 2, Frozen(punter), Frozen(banker), seed=3, hands=8000) == g


def test_the_pair_whose_larger_gain_is_least_is_chosen():
    from training.selection import chosen

    cands = [
        {"generation": 4, "punter": 0.03, "banker": 0.01},
        {"generation": 5, "punter": 0.00, "banker": 0.02},
        {"generation": 6, "punter": 0.08, "banker": -0.01},
    ]
    assert chosen(cands)["generation"] == 5
    assert chosen([*cands, {"generation": 7, "punter": 0.02, "banker": 0.0}])["generation"] == 7  # a tie: the later
