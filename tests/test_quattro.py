"""Quattro e mezzo (seed 004, the points game): one stacked-deck scenario per rule with
its exact points, the environment's id, and the settlement functions on their own.

Stacked decks: the first cards go to the punters in turn order (seat 1, 2, ... when seat 0
deals), the banker's card last, then the top of the deck for every later card. The wild
card is ``12o`` (the king of denari)."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

from siete_env import quattro
from siete_env.rules import resolve_rules
from siete_env.settle import RuleFacts, Shown, hand_points, hand_winners, takes_bank

from .helpers import legal, play

P0, P1, P2, P3 = "player_0", "player_1", "player_2", "player_3"


def q(deck, n=3, banker=0, episode="hand", **rules):
    e = quattro.raw_env(num_players=n, episode=episode, rules=rules or None)
    e.reset(seed=0, options={"deck": deck, "banker": banker})
    return e


def hidden(e, seat):
    g = e.game
    return g.hidden[g.slot(seat)]


def test_nobody_stands_below_four_and_a_half():
    e = q(["2o", "6c", "2c", "10e"], n=2)
    assert legal(e) == {"HIT_UP"}  # 2: it must draw (no bets in the points game)
    play(e, [(P1, "HIT_UP")])  # 4
    assert legal(e) == {"HIT_UP"}
    play(e, [(P1, "HIT_UP")])  # 4½: declared (shown), it may stand or go on
    assert legal(e) == {"STAND", "HIT_UP"}
    assert hidden(e, 1) == -1, "a declared 4½ is shown"


def test_the_banker_must_reach_four_and_a_half_too_and_plays_when_every_punter_is_bust():
    e = q(["7o", "2b", "7c", "3o", "10c"], n=2)
    play(e, [(P1, "HIT_UP")])  # 14: bust
    assert e.agent_selection == P0, "the banker still plays its hand"
    assert legal(e) == {"HIT_UP"}  # 2
    play(e, [(P0, "HIT_UP")])  # 5
    r = play(e, [(P0, "STAND")])
    assert r == {P0: 1, P1: 0}  # the banker's 5 wins (nobody made 4½): any other win, 1 point


def test_four_and_a_half_beats_seven_and_a_half_scores_5_and_takes_the_bank():
    e = q(["4o", "7c", "6e", "10o", "10c"])
    r = play(e, [(P1, "HIT_UP"), (P1, "STAND"), (P2, "HIT_UP"), (P0, "STAND")])  # P2's 7½ stands by itself
    assert r == {P0: 0, P1: 5, P2: 0}
    assert e.game.new_banker == 1


def test_seven_and_a_half_scores_3_and_takes_the_bank():
    e = q(["7o", "6c", "10c"], n=2)
    r = play(e, [(P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: 0, P1: 3} and e.game.new_banker == 1


def test_a_five_beats_a_four_and_a_half_and_wins_whatever_the_others_hold():
    # P1 4½, P2 a one-card 5, P3 7½, the banker 6: the 5 wins (2 points: one card) and the bank.
    e = q(["4o", "5c", "7e", "6b", "10o", "10e"], n=4)
    r = play(e, [(P1, "HIT_UP"), (P1, "STAND"), (P2, "STAND"), (P3, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: 0, P1: 0, P2: 2, P3: 0}
    assert e.game.new_banker == 2


def test_a_five_loses_to_everything_else():
    e = q(["5c", "5e", "10e"], n=2)
    r = play(e, [(P1, "STAND"), (P0, "HIT_UP"), (P0, "STAND")])  # the banker's 5½ beats the 5
    assert r == {P0: 1, P1: 0} and e.game.new_banker == -1


def test_the_banker_wins_every_tie_even_with_fewer_cards():
    e = q(["5o", "6c", "10o", "10c"], n=2)
    r = play(e, [(P1, "HIT_UP"), (P1, "HIT_UP"), (P1, "STAND"), (P0, "STAND")])  # 6 with 3 cards vs the banker's 6
    assert r == {P0: 1, P1: 0}


def test_equal_totals_more_cards_wins():
    # P1 6 (one card), P2 6 (three cards), the banker 5 (no 4½ on the table: the 5 loses).
    e = q(["6o", "5c", "1b", "10c", "10e", "4c"])
    r = play(e, [(P1, "STAND"), (P2, "HIT_UP"), (P2, "HIT_UP"), (P2, "STAND"), (P0, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: 0, P1: 0, P2: 1}
    assert e.game.new_banker == -1  # a 6 does not take the bank


def test_at_four_and_a_half_the_wild_card_loses_the_tie_even_with_more_cards():
    # P1 2 + 2 + the wild (as ½) = 4½ with 3 cards; P2 4 + sota = 4½ with 2 cards: P2 wins.
    e = q(["2o", "4e", "6b", "2c", "12o", "10c"])
    play(e, [(P1, "HIT_UP"), (P1, "HIT_UP")])
    assert e.game.total[e.game.slot(1)] == 9, "the wild card counts ½ here: 4½ is the best hand"
    r = play(e, [(P1, "STAND"), (P2, "HIT_UP"), (P2, "STAND"), (P0, "STAND")])
    assert r == {P0: 0, P1: 0, P2: 5} and e.game.new_banker == 2


def test_four_and_a_half_with_the_wild_card_scores_3_and_seven_and_a_half_with_it_1():
    e = q(["4o", "6c", "12o"], n=2)
    r = play(e, [(P1, "HIT_UP"), (P1, "STAND"), (P0, "STAND")])
    assert r == {P0: 0, P1: 3}
    e = q(["7o", "6c", "12o"], n=2)  # 7 + the wild as ½: 7½ stands by itself
    r = play(e, [(P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: 0, P1: 1}


def test_a_full_tie_scores_both_and_one_more_card_each_decides_the_bank():
    # P1 and P2 both 4½ with two cards; the banker 6. Both score 5; the tie cards 3 and 3
    # tie again, then 1 and 2: P2 takes the bank.
    e = q(["4o", "4c", "6b", "10o", "10c", "3e", "3b", "1o", "2o"])
    r = play(e, [(P1, "HIT_UP"), (P1, "STAND"), (P2, "HIT_UP"), (P2, "STAND"), (P0, "STAND")])
    assert r == {P0: 0, P1: 5, P2: 5}
    assert e.game.new_banker == 2
    assert sorted(e.game.all_cards()) == sorted(e.rules.deck_cards())


def test_double_six_is_declared_wins_and_scores_4_without_the_bank():
    # P1 6 + 6: a double six, shown, its turn ends; P2 4½; the banker 7.
    e = q(["6o", "4e", "7b", "6c", "10e"])
    play(e, [(P1, "HIT_UP")])
    assert e.agent_selection == P2 and hidden(e, 1) == -1
    r = play(e, [(P2, "HIT_UP"), (P2, "STAND"), (P0, "STAND")])
    assert r == {P0: 0, P1: 4, P2: 0}
    assert e.game.new_banker == -1


def test_double_six_with_the_wild_card_scores_2():
    e = q(["6o", "7b", "12o"], n=2)
    r = play(e, [(P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: 0, P1: 2}


def test_two_double_sixes_tie_and_the_bankers_beats_them():
    e = q(["6o", "6c", "7b", "6e", "6b"])
    r = play(e, [(P1, "HIT_UP"), (P2, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: 0, P1: 4, P2: 4}  # a later double six ties
    e = q(["6o", "6c", "6e", "6b"], n=2)
    r = play(e, [(P1, "HIT_UP"), (P0, "HIT_UP")])
    assert r == {P0: 4, P1: 0}  # the banker's double wins the tie


def test_a_five_card_five_scores_5():
    # P1 2 + 1 + 1 + sota (4½, declared) + sota = 5 with five cards; the banker busts.
    e = q(["2o", "6b", "1o", "1c", "10c", "10e", "7b"], n=2)
    play(e, [(P1, "HIT_UP"), (P1, "HIT_UP"), (P1, "HIT_UP")])
    assert legal(e) == {"STAND", "HIT_UP"}
    r = play(e, [(P1, "HIT_UP"), (P1, "STAND"), (P0, "HIT_UP")])
    assert r == {P0: 0, P1: 5} and e.game.new_banker == -1


def test_a_nine_card_four_and_a_half_wins_the_game_at_once():
    figures = ["10c", "10e", "10b", "11o", "11c", "11e", "11b", "12c"]  # with 10o: nine figures, 4½
    for episode in ("hand", "game"):
        e = q(["10o", "7c", "7b", *figures], episode=episode)
        r = play(e, [(P1, "HIT_UP")] * 8)
        assert r == {P0: 0, P1: 50, P2: 0}, "its score is raised to the target"
        assert all(e.terminations.values()) and e.game.phase == 4  # over: nobody else plays


def test_the_bankers_instant_win_at_the_limit_wins_the_game_as_a_punters_does():
    # instant_win: [7.5, 3]: a three-card 7½ wins the game at once, the banker's as a punter's.
    e = q(["5o", "3c", "4c", "10e"], n=2, instant_win=[7.5, 3])
    r = play(e, [(P1, "STAND"), (P0, "HIT_UP"), (P0, "HIT_UP")])  # 5; the banker 3 + 4 + ½
    assert r == {P0: 50, P1: 0} and e.game.phase == 4


def test_a_whole_game_passes_the_bank_and_ends_at_the_target_score():
    e = q(["4o", "7c", "6e", "10o", "10c"], episode="game")
    play(e, [(P1, "HIT_UP"), (P1, "STAND"), (P2, "HIT_UP"), (P0, "STAND")])
    g = e.game
    assert g.banker == 1 and g.hand_no == 1 and not any(e.terminations.values())
    e = q(["4o", "7c", "6e", "10o", "10c"], episode="game", target_score=5)
    play(e, [(P1, "HIT_UP"), (P1, "STAND"), (P2, "HIT_UP"), (P0, "STAND")])
    assert all(e.terminations.values()) and e.game.chips == [0, 5, 0]


def test_nobody_standing_scores_nothing():
    e = q(["7o", "7c", "7e", "7b"], n=2)
    r = play(e, [(P1, "HIT_UP"), (P0, "HIT_UP")])  # both bust
    assert r == {P0: 0, P1: 0} and all(e.terminations.values())


# --------------------------------------------------------------------------- the functions alone
def test_settlement_functions():
    f = RuleFacts(resolve_rules("quattro_e_mezzo"))

    def hand(seat, total, cards=2, wild=False, double=False, standing=True):
        return Shown(seat, int(total * 2), cards, wild, double, standing)

    banker = hand(0, 6)
    assert hand_winners([hand(1, 4.5), hand(2, 7.5), banker], 2, f) == ([0], False)
    assert hand_winners([hand(1, 4.5), hand(2, 5, 1), banker], 2, f) == ([1], True)
    assert hand_winners([hand(1, 6, 3), hand(2, 6, 1), hand(0, 6, 1)], 2, f) == ([2], False)  # the banker's tie
    assert hand_winners([hand(1, 7.5, 2, wild=True), hand(2, 7.5, 2), banker], 2, f) == ([1], False)
    assert hand_winners([hand(1, 7, standing=False), hand(0, 9, standing=False)], 1, f) == ([], False)
    assert hand_points(hand(1, 4.5), f) == 5 and hand_points(hand(1, 4.5, wild=True), f) == 3
    assert hand_points(hand(1, 12, double=True), f) == 4 and hand_points(hand(1, 12, double=True, wild=True), f) == 2
    assert (
        hand_points(hand(1, 5, 1), f) == 2 and hand_points(hand(1, 5, 5), f) == 5 and hand_points(hand(1, 5, 3), f) == 1
    )
    assert hand_points(hand(1, 7.5), f) == 3 and hand_points(hand(1, 7.5, wild=True), f) == 1
    assert takes_bank(hand(1, 4.5), False, f) and takes_bank(hand(1, 5, 1), True, f)
    assert not takes_bank(hand(1, 6), False, f) and not takes_bank(hand(1, 12, double=True), False, f)


# --------------------------------------------------------------------------- the environment
def test_pettingzoo_id_passes_api_and_seed_tests():
    e = pettingzoo.make("aec", "QuattroEMezzo-v0", num_players=4)
    assert e.metadata["name"] == "quattro_e_mezzo_v0"
    api_test(e, num_cycles=300)
    seed_test(lambda **kw: quattro.env(num_players=4, **kw), num_cycles=300)
    seed_test(lambda **kw: quattro.env(num_players=4, episode="game", target_score=10, **kw), num_cycles=300)


def test_a_game_to_50_points_plays_through_with_the_heuristics():
    from agents.specs import make_agent

    e = quattro.env(num_players=4, episode="game")
    agents = {
        a: make_agent(spec, e)
        for a, spec in zip(e.possible_agents, ["quattro:6", "quattro:5.5", "quattro:7", "random"], strict=True)
    }
    e.reset(seed=5)
    for a in e.agent_iter(100_000):
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else agents[a](obs))
    g = e.unwrapped.game
    assert max(g.chips) >= 50 and g.hand_no > 5 and g.phase == 4


@pytest.mark.parametrize("bad,message", [
    ({"episode": "match"}, "episode must be 'hand'"),
    ({"rules": {"four_swap": "optional"}}, "scoring: points and four_swap: optional clash"),
    ({"rules": resolve_rules("spanish")}, "quattro e mezzo is a points game"),
    ({"target_score": 0}, "target_score"),
])  # fmt: skip
def test_bad_arguments_are_refused(bad, message):
    with pytest.raises(ValueError, match=message):
        quattro.raw_env(**bad)


def test_no_leak_of_a_hidden_card():
    # Two decks that differ only in P1's face-down first card (a 2 or a 3): every other
    # seat observes the same while P1's card is hidden.
    obs = []
    for first in ("2o", "3o"):
        e = q([first, "5c", "6b", "1c"])
        play(e, [(P1, "HIT_UP")])  # 3 or 4: still hidden
        obs.append([e.observe(a)["observation"].copy() for a in (P0, P2)])
    for a, b in zip(*obs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_game_to_50_points_plays_through_play_py():
    pytest.importorskip("rich")
    import io

    from rich.console import Console

    from agents.play import main

    buf = io.StringIO()
    console = Console(file=buf, width=140, force_terminal=False, color_system=None)
    # you (seat 1) stand whenever you may, else draw: "STAND" is refused below 4½ and the next line is read
    moves = "STAND\nHIT_UP\n" * 5000
    args = ["--seat", "1", "--players", "4", "--rules", "quattro_e_mezzo", "--rule", "play_to_target=true"]
    code = main(
        [*args, "--opponents", "quattro:6", "--episodes", "1", "--script", "-"],
        stdin=io.StringIO(moves),
        console=console,
    )
    out = buf.getvalue()
    assert code == 0, out[-2000:]
    assert "final score after 1 episode(s)" in out and "points" in out
    assert "+50" in out or any(f"+{p}" in out for p in range(50, 56)), out[-1500:]


def test_the_bankers_double_counts_when_its_pair_is_within_the_limit():
    # double_rank 3: 3 + 3 = 3 points, within 7½; the banker's pair is a double all the same.
    e = q(["4o", "3c", "10o", "3e"], n=2, double_rank=3)
    r = play(e, [(P1, "HIT_UP"), (P1, "STAND"), (P0, "HIT_UP")])  # P1 4½; the banker 3 + 3
    assert r == {P0: 4, P1: 0}
