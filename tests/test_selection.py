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


def test_a_run_takes_the_chosen_generation_and_says_why():
    """``select_generation`` gives both roles the chosen pair's generation; the report's line
    names it and every candidate's gains; ``state.json`` keeps them."""
    from training.config import TrainConfig
    from training.driver import select_generation
    from training.report import _selected_text
    from training.runs import RunState

    cfg = TrainConfig(evaluation={"select": "one_step"}, vine={"snapshot_every": 0})
    state = RunState(generation=3, punter_snapshots=[f"gen_00{g}/punter.zip" for g in (1, 2, 3)],
                     banker_snapshots=[f"gen_00{g}/banker.zip" for g in (1, 2, 3)])  # fmt: skip
    state.one_step = [
        {"generation": 2, "punter": 0.04, "banker": 0.0},
        {"generation": 3, "punter": 0.0, "banker": 0.09},
    ]
    assert [select_generation(cfg, state, r) for r in ("punter", "banker")] == [2, 2]
    state.selected = {"punter": 2, "banker": 2}
    text = _selected_text(cfg, {"selected": state.selected, "one_step": state.one_step})
    assert "generation 2" in text and "+0.0400 / +0.0000" in text and "generation 3 +0.0000 / +0.0900" in text
    assert RunState.from_json(state.to_json()).one_step == state.one_step
    state.one_step = [{"punter": 0.1}]
    with pytest.raises(ValueError, match="one_step"):
        state.check()
