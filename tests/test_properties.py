"""Invariants over random legal play (hypothesis): cards conserved, chips zero-sum, a legal
action for the acting agent and none for the others, every episode ends."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from siete_env import PRESETS, raw_env
from siete_env.rules import fit_overrides
from siete_env.settle import RuleFacts

rule_overrides = st.fixed_dictionaries(
    {},
    optional={
        "four_swap": st.sampled_from(["off", "optional", "mandatory"]),
        "hands_per_episode": st.integers(1, 4),
        "split_any_pair": st.booleans(),
        "max_splits": st.sampled_from(["auto", 0, 1, 3]),
        "raise_on_draw": st.booleans(),
        "banker_policy_rule": st.sampled_from(["free", "hit_below_6"]),
        "bank_passes": st.sampled_from(["seven_half", "never"]),
        "bet_levels": st.sampled_from([[1], [1, 2], [1, 2, 3, 4, 5], [2, 5, 10]]),
        "triplee": st.booleans(),
        "ace_half": st.booleans(),
        "side_bets": st.booleans(),
        "burn_three_four": st.booleans(),
        "reveal_seven_half": st.booleans(),
        "starting_chips": st.sampled_from([None, 1, 3, 10]),
    },
)


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1), n=st.integers(2, 12), preset=st.sampled_from(sorted(PRESETS)), rules=rule_overrides
)
def test_random_legal_play_keeps_every_invariant(seed, n, preset, rules):
    check_invariants(seed, n, preset, rules)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("n", [2, 4, 8])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_invariants_for_every_preset_at_2_4_8_players(seed, n, preset):
    check_invariants(seed, n, preset, {"hands_per_episode": 3})


def check_invariants(seed, n, preset, rules):
    rules = fit_overrides(preset, rules)
    if rules.get("burn_three_four"):
        rules["four_swap"] = "off"  # burning covers the 4s
    if n < 3:
        rules.pop("side_bets", None)  # refused heads-up (check_table): a side bet backs another punter
    if (rules.get("starting_chips") or 99) < (rules.get("bet_levels") or [1])[0]:
        rules["starting_chips"] = rules["bet_levels"][0]  # (refused as a clash otherwise)
    e = raw_env(num_players=n, rules={"preset": preset, **rules})
    facts = RuleFacts(e.rules)
    deck = sorted(e.rules.deck_cards())
    e.reset(seed=seed)
    g = e.game
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(e.possible_agents, 0)
    live_steps = 0
    for agent in e.agent_iter(max_iter=5000):
        obs, _, term, trunc, _ = e.last()
        assert sorted(g.all_cards()) == deck, "cards are conserved"
        assert facts.points_game or sum(g.chips) == 0, "chips are zero-sum"
        if term or trunc:
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.sum() >= 1, "the acting agent always has a legal action"
        for other in e.agents:
            if other != agent:
                assert e.observe(other)["action_mask"].sum() == 0, "only the acting agent may act"
        legal = np.flatnonzero(mask)
        e.step(int(legal[rng.integers(len(legal))]))
        live_steps += 1
        if facts.points_game:  # points are scored, never lost
            # a winner scores a row of the points table (none lose)
            assert all(r == 0 or r in facts.scores or g.instant >= 0 for r in e.rewards.values()), e.rewards
        else:
            assert sum(e.rewards.values()) == 0, "every step's rewards are zero-sum"
        for a, r in e.rewards.items():
            totals[a] += r
    assert not e.agents, "the episode ended"
    assert g.hand_no == e.rules.hands_per_episode or sum(g.active(s) for s in range(n)) < 2
    assert [totals[a] for a in e.possible_agents] == g.chips, "rewards add up to the chips won"
    assert live_steps <= 60 * n * e.rules.hands_per_episode


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 8), preset=st.sampled_from(sorted(PRESETS)))
def test_observations_stay_within_their_space(seed, n, preset):
    e = raw_env(num_players=n, rules={"preset": preset, "hands_per_episode": 2})
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    space = e.observation_space(e.possible_agents[0])
    for _agent in e.agent_iter(max_iter=3000):
        for other in e.agents:
            assert space.contains(e.observe(other))
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(len(legal))]))
