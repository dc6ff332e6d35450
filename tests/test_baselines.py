"""The baseline agents' decisions on hand-made situations (stacked decks through a
``raw_env``; each agent sees only the observation of the seat that acts), their batched
action probabilities, and the spec strings."""

from __future__ import annotations

import numpy as np
import pytest

from agents.baselines import BankerThreshold, BoldPunter, RandomAgent, SmartBanker, TableView, ThresholdPunter
from agents.specs import SPEC_HELP, check_spec, make_agent, policy_probs
from agents.tournament import play_match
from siete_env import raw_env
from siete_env.game import Phase

from .helpers import legal, play, row_by_row, table

P0, P1, P2 = "player_0", "player_1", "player_2"


def decide(spec, e, agent_name=None):
    """The action name ``spec`` picks for the seat to act (its own observation only)."""
    agent_name = agent_name or e.agent_selection
    assert e.agent_selection == agent_name
    agent = make_agent(spec, e)
    return e.action_names[agent(e.observe(agent_name))]


# --------------------------------------------------------------------------- threshold punter
def test_threshold_bets_one():
    e = table(["5o", "4c"])
    assert decide("threshold:5.5", e, P1) == "BET_1"


def test_threshold_bets_one_on_a_four_and_never_swaps():
    e = table(["4o", "4c"])
    assert "SWAP_FOUR" in e.legal_action_names()
    assert decide("threshold:5.5", e, P1) == "BET_1"


def test_threshold_swaps_when_it_must():
    e = table(["4o", "4c"], rules={"preset": "spanish", "four_swap": "mandatory"})
    assert tuple(e.legal_action_names()) == ("SWAP_FOUR",)
    assert decide("threshold:5.5", e, P1) == "SWAP_FOUR"


@pytest.mark.parametrize("spec", ["threshold:5.5", "banker:6", "smart:6"])
def test_threshold_bets_the_lowest_level_without_a_level_one(spec):
    e = table(["5o", "4c"], rules={"preset": "spanish", "bet_levels": [2, 4]})
    assert set(e.legal_action_names()) == {"BET_2", "BET_4"}
    assert decide(spec, e, P1) == "BET_2"


def test_threshold_stands_at_five_and_a_half():
    # hidden 5 + face-up sota (½) = 5½ >= 5½
    e = table(["5o", "4c", "10e"])
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert e.infos[P1]["total"] == 5.5
    assert decide("threshold:5.5", e, P1) == "STAND"
    assert decide("threshold:6", e, P1) == "HIT_UP"  # 5½ < 6, hidden 5 >= 4: face-up


def test_threshold_hits_at_five_face_up_with_a_high_hidden_card():
    e = table(["5o", "4c"])
    play(e, [(P1, "BET_1")])
    assert e.infos[P1]["total"] == 5.0
    assert decide("threshold:5.5", e, P1) == "HIT_UP"  # hidden 5 >= 4: face-up


@pytest.mark.parametrize(
    "card, expected",
    [
        ("1o", "HIT_DOWN"),
        ("2o", "HIT_DOWN"),
        ("3o", "HIT_DOWN"),
        ("4o", "HIT_UP"),  # exactly 4 is not below 4
        ("5o", "HIT_UP"),
        ("6o", "HIT_UP"),
        ("7o", "HIT_UP"),
        ("10o", "HIT_DOWN"),  # figures are worth ½
        ("11o", "HIT_DOWN"),
        ("12o", "HIT_DOWN"),
    ],
)
def test_threshold_hits_face_down_exactly_when_its_hidden_card_is_below_four(card, expected):
    e = table([card, "4c"])
    play(e, [(P1, "BET_1")])
    assert decide("threshold:7.5", e, P1) == expected


def test_threshold_follows_the_current_hidden_card():
    # 1o hidden -> HIT_DOWN turns it up and hides 5e: the hidden card is now 5 -> face-up.
    e = table(["1o", "4c", "5e"])
    play(e, [(P1, "BET_1"), (P1, "HIT_DOWN")])
    assert e.infos[P1]["hand"] == ["1o", "5e*"]
    assert decide("threshold:7.5", e, P1) == "HIT_UP"
    # 3o hidden -> HIT_DOWN turns it up and hides 2e: hidden 2 -> face-down again
    e = table(["3o", "4c", "2e"])
    play(e, [(P1, "BET_1"), (P1, "HIT_DOWN")])
    assert e.infos[P1]["hand"] == ["3o", "2e*"]
    assert decide("threshold:7.5", e, P1) == "HIT_DOWN"


@pytest.mark.parametrize("spec", ["threshold:5.5", "bold:5.5", "banker:6", "smart:6"])
def test_punters_hit_face_down_when_that_is_the_only_hit(spec):
    # max_face_down: all: HIT_UP is never legal, HIT_DOWN is the hit
    e = table(["5o", "4c", "1e", "10b"], rules={"max_face_down": "all"})
    play(e, [(P1, "BET_1")])
    assert legal(e) == {"STAND", "HIT_DOWN"}
    assert decide(spec, e, P1) == "HIT_DOWN"  # 5 < 5½
    play(e, [(P1, "HIT_DOWN")])  # 5 + 1 = 6
    assert decide(spec, e, P1) == "STAND"
    # face_down_choice: false: the hand's cards all face-up after a split, the next hit face-down
    e = table(["10o", "5c", "11e", "6b", "1c"], rules={"preset": "french", "face_down_choice": False})
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "SPLIT")])
    assert legal(e) == {"STAND", "HIT_DOWN"}
    assert decide(spec, e, P1) == "HIT_DOWN"  # ½
    # ... and face-up when the hand holds its hidden card, even a low one (the only hit)
    e = table(["2o", "5c", "3e"], rules={"preset": "french", "face_down_choice": False})
    play(e, [(P1, "BET_1")])
    assert legal(e) == {"STAND", "HIT_UP"}
    assert decide(spec, e, P1) == "HIT_UP"


@pytest.mark.parametrize("rules", [{"max_face_down": "all"}, {"preset": "french", "face_down_choice": False}])
def test_baseline_punters_draw_past_their_first_card_under_face_down_rules(rules):
    # before the fix, HIT_UP illegal read as "cannot hit": every punter stood on its first card
    hits = []
    e = raw_env(num_players=2, rules=rules)
    view = TableView.of(e)

    def rec(seat, o, a):
        if view.phase(o["observation"]) == Phase.DRAW and e.action_names[a] in ("HIT_UP", "HIT_DOWN"):
            hits.append(e.action_names[a])

    play_match("banker:6", "threshold:5.5", rules=rules, num_players=2, hands=60, seed=0, recorder=rec)
    assert len(hits) > 20
    if rules.get("max_face_down") == "all":
        assert set(hits) == {"HIT_DOWN"}


def test_threshold_keeps_instead_of_splitting():
    e = table(["10o", "4c", "11c"])
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert set(e.legal_action_names()) == {"SPLIT", "KEEP"}
    assert decide("threshold:5.5", e, P1) == "KEEP"


def test_threshold_never_raises():
    e = table(["1o", "4c", "2e"])
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert "RAISE_2" in e.legal_action_names()
    assert decide("threshold:5.5", e, P1) in {"HIT_UP", "HIT_DOWN"}


# --------------------------------------------------------------------------- banker threshold
def _banker_turn(deck, punter_script):
    e = table(deck)
    play(e, [(P1, a) for a in punter_script])
    assert e.agent_selection == P0 and e.infos[P0]["role"] == "banker"
    return e


def test_banker_six_hits_at_five_and_a_half_and_stands_at_six():
    e = _banker_turn(["5o", "5c", "10e"], ["BET_1", "STAND"])
    assert decide("banker:6", e, P0) == "HIT_UP"  # 5
    play(e, [(P0, "HIT_UP")])
    assert e.infos[P0]["total"] == 5.5
    assert decide("banker:6", e, P0) == "HIT_UP"  # 5½ < 6
    e = _banker_turn(["5o", "6c"], ["BET_1", "STAND"])
    assert decide("banker:6", e, P0) == "STAND"  # 6
    e = _banker_turn(["5o", "5c", "1e"], ["BET_1", "STAND"])
    play(e, [(P0, "HIT_UP")])
    assert decide("banker:6", e, P0) == "STAND"  # 5 + 1 = 6


def test_threshold_as_banker_plays_banker_six():
    e = _banker_turn(["5o", "5c", "10e"], ["BET_1", "STAND"])
    play(e, [(P0, "HIT_UP")])
    assert decide("threshold:5.5", e, P0) == "HIT_UP"  # 5½: a threshold:5.5 *punter* would stand
    e = _banker_turn(["5o", "6c"], ["BET_1", "STAND"])
    assert decide("threshold:5.5", e, P0) == "STAND"


# --------------------------------------------------------------------------- smart banker
# Heads-up, the banker holds 6 (6c); the punter (scripted) stands holding one hidden card.
# Its least possible total is its face-up total + ½ (the hidden card is at least a figure).
@pytest.mark.parametrize(
    "deck, punter_script, least, expected",
    [
        # hidden 1o, face-up 6e: least 6½ -> sure to lose as it stands, can still win
        (["1o", "6c", "6e"], ["BET_1", "HIT_UP", "STAND"], 6.5, "HIT_UP"),
        # hidden 10o, face-up 6e + 10b: face-up 6½, least 7 -> hit
        (["10o", "6c", "6e", "10b"], ["BET_1", "HIT_UP", "HIT_UP", "STAND"], 7.0, "HIT_UP"),
        # hidden 1o, face-up 5e: least 5½ < 6 -> the banker may already win: stand
        (["1o", "6c", "5e"], ["BET_1", "HIT_UP", "STAND"], 5.5, "STAND"),
        # hidden 1o, face-up 5e + 10b: face-up 5½, least 6 == 6 (ties go to the banker): stand
        (["1o", "6c", "5e", "10b"], ["BET_1", "HIT_UP", "HIT_UP", "STAND"], 6.0, "STAND"),
        # hidden 10o, face-up 7e: 7½ (the turn ends by itself); least 7½, not below 7½:
        # the banker cannot beat it, hitting is pointless: stand
        (["10o", "6c", "7e"], ["BET_1", "HIT_UP"], 7.5, "STAND"),
        # the punter stood on its single hidden card: face-up 0, least ½: stand
        (["5o", "6c"], ["BET_1", "STAND"], 0.5, "STAND"),
    ],
)
def test_smart_banker_at_six(deck, punter_script, least, expected):
    e = _banker_turn(deck, punter_script)
    assert e.infos[P0]["total"] == 6.0
    L = e.layout
    o = e.observe(P0)["observation"]
    b = L.hand(1, 0)
    assert o[b + 8] + 0.5 * o[b + 7] == least  # what the banker sees
    assert decide("smart:6", e, P0) == expected
    assert decide("banker:6", e, P0) == "STAND"  # the plain banker ignores the punter


def test_smart_banker_below_its_threshold_always_hits():
    # banker 5 against a punter standing on its single hidden card (least ½): below 6, hit
    e = _banker_turn(["5o", "5c"], ["BET_1", "STAND"])
    assert decide("smart:6", e, P0) == "HIT_UP"
    assert decide("smart:5", e, P0) == "STAND"  # 5 >= 5 and it already beats ½
    # banker 5, punter hidden 1o + 5e face-up (least 5½): smart:5 chases (5 < 5½ < 7½)
    e = _banker_turn(["1o", "5c", "5e"], ["BET_1", "HIT_UP", "STAND"])
    assert decide("smart:5", e, P0) == "HIT_UP"
    assert decide("banker:5", e, P0) == "STAND"


@pytest.mark.parametrize("stakes, expected", [((3, 1), "HIT_UP"), ((1, 3), "STAND"), ((2, 2), "STAND")])
def test_smart_banker_several_punters_weighs_the_stakes(stakes, expected):
    # 3 players, banker seat 0 holds 6. Seat 1: hidden 1o + 6e face-up (least 6½: a sure
    # loss it can still beat); seat 2: hidden 2o + 3b face-up (least 3½: beaten already).
    # The banker hits when the stakes of the sure losses exceed half the standing stakes.
    a, b = stakes
    e = table(["1o", "2o", "6c", "6e", "3b"], n=3, banker=0)
    play(e, [(P1, f"BET_{a}"), (P1, "HIT_UP"), (P1, "STAND"), (P2, f"BET_{b}"), (P2, "HIT_UP"), (P2, "STAND")])
    assert e.agent_selection == P0 and e.infos[P0]["total"] == 6.0
    assert decide("smart:6", e, P0) == expected


def test_smart_banker_ignores_bust_punters():
    # 3 players: seat 1 busts (6o + 6e), seat 2 stands with least 6½ -> hit for seat 2 alone.
    e = table(["6o", "1o", "6c", "6e", "6b"], n=3, banker=0)
    play(e, [(P1, "BET_5"), (P1, "HIT_UP"), (P2, "BET_1"), (P2, "HIT_UP"), (P2, "STAND")])
    assert e.agent_selection == P0
    assert decide("smart:6", e, P0) == "HIT_UP"


# --------------------------------------------------------------------------- bold punter
def test_bold_swaps_a_four():
    e = table(["4o", "4c"])
    assert decide("bold:5.5", e, P1) == "SWAP_FOUR"


@pytest.mark.parametrize(
    "card, expected",
    [("7o", "BET_5"), ("10o", "BET_5"), ("11o", "BET_5"), ("12o", "BET_5"), ("1o", "BET_1"), ("6o", "BET_1")],
)
def test_bold_bets_the_top_level_on_a_seven_or_a_figure(card, expected):
    e = table([card, "4c"])
    assert decide("bold:5.5", e, P1) == expected


def test_bold_after_a_swap_bets_on_the_new_card():
    e = table(["4o", "4c", "7e"])
    play(e, [(P1, "SWAP_FOUR")])
    assert e.infos[P1]["hand"] == ["7e*"]
    assert decide("bold:5.5", e, P1) == "BET_5"


def test_bold_top_level_follows_the_preset():
    # italian: no four-swap (four_swap off); bet levels 1..5 -> still BET_5 on a 7
    e = table(["7o", "4c"], rules="italian")
    assert decide("bold:5.5", e, P1) == "BET_5"
    e = table(["4o", "4c"], rules="italian")
    assert decide("bold:5.5", e, P1) == "BET_1"
    # french: a single stake
    e = table(["7o", "4c"], rules="french")
    assert decide("bold:5.5", e, P1) == "BET_1"


def test_bold_draws_like_threshold():
    e = table(["2o", "4c"])
    play(e, [(P1, "BET_1")])
    assert decide("bold:5.5", e, P1) == "HIT_DOWN"
    e = table(["5o", "4c", "10e"])
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert decide("bold:5.5", e, P1) == "STAND"


# --------------------------------------------------------------------------- random, batches
def _recorded(banker, punter, n=2, hands=400, seed=0, seats=None):
    obs, masks, actions, who = [], [], [], []

    def rec(seat, o, a):
        if seats is None or seat in seats:
            obs.append(np.array(o["observation"], copy=True))
            masks.append(np.array(o["action_mask"], copy=True))
            actions.append(a)
            who.append(seat)

    play_match(banker, punter, num_players=n, hands=hands, seed=seed, recorder=rec)
    return np.array(obs), np.array(masks), np.array(actions), np.array(who)


def test_random_only_chooses_legal_actions_and_covers_them():
    obs, masks, actions, _ = _recorded("random", "random", n=3, hands=500)
    assert len(actions) > 1000
    assert all(masks[i, a] for i, a in enumerate(actions))
    assert len(set(actions.tolist())) >= 12  # bets, raises, swaps, splits all come up
    agent = RandomAgent(raw_env(num_players=3), seed=0)
    p = agent.action_probs(obs.astype(np.float32), masks)
    np.testing.assert_allclose(p, masks / masks.sum(axis=1, keepdims=True))


@pytest.mark.parametrize("spec", ["threshold:5.5", "threshold:4", "banker:6", "smart:6", "smart:5", "bold:5.5"])
def test_action_probs_are_the_one_hot_decisions(spec):
    # observations from both seats of both roles, on random play (many situations)
    obs, masks, _, _ = _recorded("random", "random", n=3, hands=300, seed=1)
    e = raw_env(num_players=3)
    agent = make_agent(spec, e)
    probs = agent.action_probs(obs, masks)
    expected = np.zeros_like(probs)
    for i in range(len(obs)):
        a = agent({"observation": obs[i], "action_mask": masks[i]})
        assert masks[i, a], (spec, i, e.action_names[a])  # always legal
        expected[i, a] = 1.0
    np.testing.assert_array_equal(probs, expected)
    np.testing.assert_array_equal(policy_probs(agent, obs, masks), expected)


@pytest.mark.parametrize(
    ("rules", "n"),
    [
        ("spanish", 2),
        ("spanish_full", 4),
        ("italian", 3),
        ("french", 5),
        ("latin", 2),
        ("blackjack_style", 3),
        ({"preset": "spanish", "side_bets": True, "bet_levels": [1, 2], "starting_chips": 6}, 4),
        ({"preset": "italian", "burn_three_four": True, "ace_half": True, "triplee": True}, 3),
        ({"preset": "spanish", "four_swap": "mandatory", "split_any_pair": True, "fusilar": True}, 2),
        # a hit only face-down: every later card (002), the forced face (003), a declared ½ ace
        ({"max_face_down": "all"}, 3),
        ({"preset": "spanish_full", "max_face_down": "all", "split_any_pair": True}, 2),
        ({"preset": "french", "face_down_choice": False}, 3),
        ({"preset": "french", "face_down_choice": False, "split_first_hand_only": True}, 2),
        ({"preset": "italian", "ace_half": True}, 2),
    ],
)
def test_vectorised_decisions_equal_the_row_by_row_ones_under_every_preset(rules, n):
    """``action_probs`` (vectorised) makes, row by row, the decision ``agent(obs_dict)``
    makes, on every decision of random play (every phase: auctions, side bets, splits,
    swaps, burns, forced bankers), for every baseline."""
    obs, masks = [], []

    def rec(seat, o, a):
        obs.append(np.array(o["observation"], copy=True))
        masks.append(np.array(o["action_mask"], copy=True))

    play_match("random", "random", rules=rules, num_players=n, hands=150, seed=3, recorder=rec)
    obs, masks = np.array(obs), np.array(masks)
    e = raw_env(num_players=n, rules=rules)
    for spec in ("threshold:5.5", "threshold:3", "banker:6", "smart:6", "smart:4", "bold:5.5", "bold:7"):
        agent = make_agent(spec, e)
        np.testing.assert_array_equal(agent.action_probs(obs, masks), row_by_row(agent, obs, masks), err_msg=spec)


def test_agents_classes_by_spec():
    e = raw_env(num_players=2)
    assert type(make_agent("threshold:5", e)) is ThresholdPunter and make_agent("threshold:5", e).threshold == 5.0
    assert type(make_agent("banker:6.5", e)) is BankerThreshold and make_agent("banker:6.5", e).threshold == 6.5
    assert type(make_agent("smart:6", e)) is SmartBanker
    assert type(make_agent("bold:5.5", e)) is BoldPunter
    assert type(make_agent("random", e)) is RandomAgent
    f = lambda obs: 0  # noqa: E731
    assert make_agent(f, e) is f


def test_random_agent_is_seeded():
    obs, masks, _, _ = _recorded("random", "random", n=2, hands=50)
    e = raw_env(num_players=2)
    a, b = make_agent("random", e, seed=4), make_agent("random", e, seed=4)
    seq_a = [a({"observation": o, "action_mask": m}) for o, m in zip(obs, masks, strict=True)]
    seq_b = [b({"observation": o, "action_mask": m}) for o, m in zip(obs, masks, strict=True)]
    assert seq_a == seq_b


# --------------------------------------------------------------------------- specs
@pytest.mark.parametrize(
    "spec, match",
    [
        ("threshold:x", "needs a total"),
        ("threshold:", "needs a total"),
        ("threshold:9", "0.5..7.5"),
        ("threshold:0", "0.5..7.5"),
        ("threshold:5.3", "multiple of 0.5"),
        ("banker:-1", "0.5..7.5"),
        ("smart:8", "0.5..7.5"),
        ("foo:1", "unknown agent spec 'foo:1'"),
        ("random:3", "unknown agent spec"),
        ("", "unknown agent spec"),
        ("ppo:", "needs a model path"),
        ("ppo:/nonexistent/model.zip", "no model file /nonexistent/model.zip"),
        ("ppo:/nonexistent/model.zip:sample", "no model file /nonexistent/model.zip"),
    ],
)
def test_spec_errors(spec, match):
    with pytest.raises(ValueError, match=match) as err:
        check_spec(spec)
    assert SPEC_HELP in str(err.value) or "no model file" in str(err.value)
    with pytest.raises(ValueError):
        make_agent(spec, raw_env(num_players=2))


def test_spec_not_a_string():
    with pytest.raises(ValueError, match="spec is a string"):
        check_spec(5)


@pytest.mark.parametrize("spec", ["random", "threshold:5.5", "threshold:7.5", "banker:0.5", "smart:6", "bold:5"])
def test_good_specs(spec):
    assert check_spec(spec) == spec
