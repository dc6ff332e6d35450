"""One stacked-deck scenario per rule mechanic of the spanish preset, each with an exact
expected payout (docs/rules.md; sources: seeds 000, 001)."""

from __future__ import annotations

import pytest

from siete_env.cards import CARD_INDEX

from .helpers import legal, play, table

P0, P1, P2, P3 = "player_0", "player_1", "player_2", "player_3"


def test_deal_order_and_hidden_cards():
    # 3 players, banker 1: turn order is seat 2, then seat 0; the banker's card comes last.
    e = table(["5o", "6c", "2e", "1b"], n=3, banker=1)
    g = e.game
    assert g.order == [2, 0]
    assert g.cards[g.slot(2)] == [CARD_INDEX["5o"]]
    assert g.cards[g.slot(0)] == [CARD_INDEX["6c"]]
    assert g.cards[g.slot(1)] == [CARD_INDEX["2e"]]
    assert e.agent_selection == P2
    assert e.infos[P2]["hand"] == ["5o*"] and e.infos[P2]["role"] == "punter"
    assert e.infos[P1]["role"] == "banker"
    # first hit comes from the top
    play(e, [(P2, "BET_1"), (P2, "HIT_UP")])
    assert e.infos[P2]["hand"] == ["5o*", "1b"]


def test_punter_beats_banker_even_money():
    # punter 5 + 2 = 7 stands; banker 4 stands: punter wins its stake 3.
    e = table(["5o", "4c", "2e"])
    r = play(e, [(P1, "BET_3"), (P1, "HIT_UP"), (P1, "STAND"), (P0, "STAND")])
    assert r == {P0: -3, P1: 3}
    assert all(e.terminations.values())


def test_tie_goes_to_the_banker():
    # punter 5 + 2 = 7; banker 4 + 3 = 7: a tie, the banker collects.
    e = table(["5o", "4c", "2e", "3b"])
    r = play(e, [(P1, "BET_2"), (P1, "HIT_UP"), (P1, "STAND"), (P0, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: 2, P1: -2}


def test_punter_seven_half_paid_double_and_takes_the_bank():
    # punter 7 + sota = 7½ stands by itself; banker 6 stands: +2 x stake, bank passes.
    e = table(["7o", "6c", "10e"])
    r = play(e, [(P1, "BET_2"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -4, P1: 4}
    assert e.game.new_banker == 1


def test_banker_seven_half_collects_single_stake_from_everyone():
    # 3 players: punters 7½ and 5; banker 7 + rey = 7½ collects one stake from each.
    e = table(["7o", "5c", "7e", "11o", "12e"], n=3, banker=0)
    r = play(e, [(P1, "BET_2"), (P1, "HIT_UP"), (P2, "BET_1"), (P2, "STAND"), (P0, "HIT_UP")])
    assert r == {P0: 3, P1: -2, P2: -1}
    assert e.game.new_banker == -1  # the banker made 7½: the bank stays


def test_punter_bust_pays_at_once_and_banker_skips_its_turn():
    # punter 6 + 5 = 11 busts: it pays its stake at that step; nobody stands, so the
    # banker does not play and the hand ends.
    e = table(["6o", "4c", "5e"])
    play(e, [(P1, "BET_4")])
    e.step(e.action_id("HIT_UP"))
    assert e.rewards == {P0: 4, P1: -4}
    assert all(e.terminations.values())
    assert e.game.status[e.game.slot(0)] == 1  # banker hand still "waiting": it never played


def test_banker_bust_pays_every_standing_punter():
    # 3 players: punter A stands on 7½ (pays double), punter B stands on 3, punter... banker
    # 6 + 7 busts: pays 2x2 to A and 1 to B.
    e = table(["7o", "3c", "6e", "10o", "7b"], n=3, banker=0)
    r = play(e, [(P1, "BET_2"), (P1, "HIT_UP"), (P2, "BET_1"), (P2, "STAND"), (P0, "HIT_UP")])
    assert r == {P0: -5, P1: 4, P2: 1}


def test_bust_punter_loses_even_if_banker_busts_later():
    e = table(["6o", "5c", "3e", "5e", "7c"], n=3, banker=0)
    # P1: 6 + 5 bust (-1). P2: 3 stands. Banker 5 + 7 busts: pays P2 only.
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P2, "BET_2"), (P2, "STAND"), (P0, "HIT_UP")])
    assert r == {P0: -1, P1: -1, P2: 2}


def test_banker_stops_at_seven_half_by_itself():
    e = table(["5o", "7c", "10e", "11e"])
    # punter 5 + ½ = 5½ stands; banker 7 + ½ = 7½ ends its turn by itself.
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "STAND"), (P0, "HIT_UP")])
    assert r == {P0: 1, P1: -1}
    assert all(e.terminations.values())


def test_face_down_hit_turns_the_hidden_card_up():
    # punter 3 (hidden), HIT_DOWN: the 3 is turned up, the new 2 is the hidden card.
    e = table(["3o", "4c", "2e", "3b"])
    play(e, [(P1, "BET_1"), (P1, "HIT_DOWN")])
    g = e.game
    assert g.hidden[g.slot(1)] == CARD_INDEX["2e"]
    assert e.infos[P1]["hand"] == ["3o", "2e*"] and e.infos[P1]["total"] == 5.0
    # the banker sees the 3 and that one card is face-down, never the 2
    L = e.layout
    obs = e.observe(P0)["observation"]
    assert obs[L.card(CARD_INDEX["3o"], 1, 0)] == 1.0
    assert obs[L.card(CARD_INDEX["2e"], 1, 0)] == 0.0
    assert obs[L.hand(1, 0) + 6] == 2.0 and obs[L.hand(1, 0) + 7] == 1.0
    assert obs[L.hand(1, 0) + 8] == 3.0
    # the punter sees its own 5
    mine = e.observe(P1)["observation"]
    assert mine[L.card(CARD_INDEX["2e"], 0, 0)] == 1.0 and mine[L.own_face_down(CARD_INDEX["2e"])] == 1.0
    assert mine[L.hand(0, 0) + 8] == 5.0
    # punter 5 stands; banker 4 + 3 = 7 wins.
    r = play(e, [(P1, "STAND"), (P0, "HIT_UP"), (P0, "STAND")], {P0: 0, P1: 0})
    assert r == {P0: 1, P1: -1}


def test_face_down_hit_bust_shows_the_hand():
    e = table(["3o", "4c", "5e"])
    play(e, [(P1, "BET_1"), (P1, "HIT_DOWN")])
    assert e.game.hidden[e.game.slot(1)] == -1  # 3 + 5 = 8: bust, shown
    assert e.rewards == {P0: 1, P1: -1}


def test_raise_on_a_hit_and_on_a_stand():
    # Bet 1, hit (no raise allowed right after betting), raise to 3 with the next hit,
    # raise to 5 when standing: 1 + 2 + 2 = 5; banker 4 + 3 = 7 beats 5.
    e = table(["1o", "4c", "2e", "2c", "3b"])
    play(e, [(P1, "BET_1")])
    assert not any(a.startswith("RAISE") for a in legal(e))
    play(e, [(P1, "HIT_UP")])
    assert {"RAISE_2", "RAISE_3", "RAISE_4", "RAISE_5"} <= legal(e)
    play(e, [(P1, "RAISE_3")])
    assert legal(e) == {"STAND", "HIT_UP", "HIT_DOWN"}  # one raise per decision
    play(e, [(P1, "HIT_UP")])
    assert "RAISE_2" not in legal(e) and "RAISE_4" in legal(e)  # never lower
    r = play(e, [(P1, "RAISE_5"), (P1, "STAND"), (P0, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: 5, P1: -5}


def test_no_raise_rule():
    e = table(["1o", "4c", "2e"], rules={"raise_on_draw": False})
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert not any(a.startswith("RAISE") for a in legal(e))


def test_four_swap_optional():
    # The punter's initial 4 goes back into the middle of the deck; the top card (6c)
    # replaces it. Then 6 + 1 = 7 stands, banker 2 + 3 = 5: punter +1.
    e = table(["4o", "2c", "6c", "1e", "3b"])
    assert legal(e) == {"SWAP_FOUR", "BET_1", "BET_2", "BET_3", "BET_4", "BET_5"}
    play(e, [(P1, "SWAP_FOUR")])
    g = e.game
    assert g.cards[g.slot(1)] == [CARD_INDEX["6c"]]
    remaining = g.deck[g.pos :]
    four_at = remaining.index(CARD_INDEX["4o"])
    assert four_at == (len(remaining) - 1) // 2  # roughly the middle of what is left
    assert "SWAP_FOUR" not in legal(e)
    # The swapped 4 was shown: the banker knows it went back.
    assert e.observe(P0)["observation"][e.layout.returned(CARD_INDEX["4o"])] == 1.0
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "STAND"), (P0, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -1, P1: 1}


def test_four_swap_repeats_while_a_four_comes():
    e = table(["4o", "2c", "4c", "5e"], rules={"four_swap": "mandatory"})
    assert legal(e) == {"SWAP_FOUR"}
    play(e, [(P1, "SWAP_FOUR")])
    assert legal(e) == {"SWAP_FOUR"}  # the new card is a 4 again
    play(e, [(P1, "SWAP_FOUR")])
    assert e.game.cards[e.game.slot(1)] == [CARD_INDEX["5e"]]
    assert "SWAP_FOUR" not in legal(e)


def test_four_swap_off_and_not_after_the_first_card():
    e = table(["4o", "2c"], rules={"four_swap": "off"})
    assert "SWAP_FOUR" not in legal(e)
    e = table(["1o", "2c", "4e"])
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert "SWAP_FOUR" not in legal(e)


def test_split_figures_two_independent_hands():
    # Punter: sota, draws caballo -> SPLIT. Hand 0 (sota) + 7 = 7½ (stands, pays 2x2);
    # hand 1 (caballo) bets 1, + 6 = 6½ stands. Banker 5 + 2 = 7: hand 0 wins 4, hand 1
    # (6½ < 7) loses 1.
    e = table(["10o", "5c", "11c", "7e", "6b", "2o"])
    play(e, [(P1, "BET_2"), (P1, "HIT_UP")])
    assert legal(e) == {"SPLIT", "KEEP"}
    play(e, [(P1, "SPLIT")])
    g = e.game
    assert g.cards[g.slot(1, 0)] == [CARD_INDEX["10o"]] and g.cards[g.slot(1, 1)] == [CARD_INDEX["11c"]]
    assert g.hidden[g.slot(1, 0)] == -1  # split figures are face-up
    play(e, [(P1, "HIT_UP")])  # 7½: hand 0 stands by itself, hand 1 starts with its bet
    assert legal(e) == {"BET_1", "BET_2", "BET_3", "BET_4", "BET_5"}
    r = play(e, [(P1, "BET_1"), (P1, "HIT_DOWN"), (P1, "STAND"), (P0, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -3, P1: 3}


def test_keep_instead_of_split():
    e = table(["10o", "5c", "11c", "12e", "6b"])
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "KEEP")])
    assert e.infos[P1]["total"] == 1.0
    play(e, [(P1, "HIT_UP")])  # a third figure: the hand has two cards, no split
    assert "SPLIT" not in legal(e)
    r = play(e, [(P1, "HIT_UP"), (P0, "STAND")])  # 1½ + 6 = 7½ stands by itself
    assert r == {P0: -2, P1: 2}


def test_split_hands_can_split_again_up_to_the_auto_limit():
    # 2 players: up to 3 splits. sota, caballo (split), rey (split), sota (split), then
    # caballo: no fourth split.
    e = table(["10o", "5c", "11c", "12c", "10e", "11b", "7o"])
    play(
        e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "SPLIT"), (P1, "HIT_UP"), (P1, "SPLIT"), (P1, "HIT_UP"), (P1, "SPLIT")]
    )
    assert e.game.nhands[1] == 4 and e.game.splits[1] == 3
    play(e, [(P1, "HIT_UP")])  # 11b on hand 0: no more splits allowed
    assert legal(e) >= {"STAND", "HIT_UP"} and "SPLIT" not in legal(e)


@pytest.mark.parametrize("n,limit", [(2, 3), (3, 3), (4, 1), (5, 1), (6, 0), (8, 0)])
def test_split_limit_by_table_size(n, limit):
    from siete_env import raw_env

    assert raw_env(num_players=n).game.max_splits == limit


def test_split_not_allowed_at_six_players():
    # 6 players, banker 0: punter 1 holds a sota and draws a caballo: no split offered.
    deck = ["10o", "1c", "1e", "1b", "2o", "3o", "11c"]
    e = table(deck, n=6, banker=0)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert "SPLIT" not in legal(e)


def test_split_any_pair_option():
    e = table(["3o", "5c", "3c"], rules={"split_any_pair": True})
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert legal(e) == {"SPLIT", "KEEP"}
    e = table(["3o", "5c", "3c"])
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert "SPLIT" not in legal(e)


def test_forced_banker_hit_below_6():
    e = table(["5o", "2c", "3e", "1o", "12o"], rules={"banker_policy_rule": "hit_below_6"})
    play(e, [(P1, "BET_1"), (P1, "STAND")])
    assert legal(e) == {"HIT_UP"}  # 2
    play(e, [(P0, "HIT_UP")])  # 5
    assert legal(e) == {"HIT_UP"}
    play(e, [(P0, "HIT_UP")])  # 6
    assert legal(e) == {"STAND"}


def test_deck_runs_out_no_hit_offered():
    # A table engine with a three-card deck: after one hit nothing is left to draw.
    from siete_env.rules import resolve_rules
    from tests.oracle import Game

    g = Game(resolve_rules("spanish"), 2, shuffle=lambda: list(range(40)))
    g.start(0, [CARD_INDEX["1o"], CARD_INDEX["2c"], CARD_INDEX["1e"]])
    names = lambda: {g.actions[a].name for a in g.legal_actions()}  # noqa: E731
    g.apply([a.name for a in g.actions].index("BET_1"))
    g.apply(1)  # HIT_UP: the last card
    assert names() == {"STAND", "RAISE_2", "RAISE_3", "RAISE_4", "RAISE_5"}
    g.apply(0)
    assert names() == {"STAND"}  # the banker cannot hit either


def test_session_of_hands_chips_and_bank_passing():
    # hands_per_episode 2: hand 1 the punter makes 7½ and takes the bank; hand 2 is dealt
    # from a fresh shuffle with seat 1 as banker.
    e = table(["7o", "6c", "10e"], rules={"hands_per_episode": 2})
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -2, P1: 2}
    assert not any(e.terminations.values())
    g = e.game
    assert g.banker == 1 and g.hand_no == 1 and e.agent_selection == P0
    assert e.infos[P1]["role"] == "banker" and e.infos[P0]["role"] == "punter"
    assert sorted(g.all_cards()) == list(range(40))  # a fresh, full deck
    # play the second hand out with stands
    while not all(e.terminations.values()):
        play(e, [next(iter(sorted(legal(e))))], r)
    assert r[P0] + r[P1] == 0
    assert e.game.chips == [r[P0], r[P1]]


def test_bank_passes_never():
    e = table(["7o", "6c", "10e"], rules={"hands_per_episode": 2, "bank_passes": "never"})
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "STAND")])
    assert e.game.banker == 0


def test_first_punter_in_turn_order_with_seven_half_takes_the_bank():
    # 4 players, banker 2: turn order 3, 0, 1. Seats 0 and 1 both make 7½; seat 0 is first.
    deck = ["5o", "7c", "7e", "6b", "10o", "11o"]
    e = table(deck, n=4, banker=2, rules={"hands_per_episode": 2})
    play(
        e,
        [
            (P3, "BET_1"),
            (P3, "STAND"),
            (P0, "BET_1"),
            (P0, "HIT_UP"),
            (P1, "BET_1"),
            (P1, "HIT_UP"),
            ("player_2", "STAND"),
        ],
    )
    assert e.game.banker == 0


def test_four_swap_at_most_four_times():
    # 000: "el jugador tiene la posibilidad de volver a cambiarlo y así hasta cuatro veces";
    # a three-card deck whose last card is a 4 would otherwise swap 4s for ever.
    from siete_env.rules import resolve_rules
    from tests.oracle import Game

    g = Game(resolve_rules({"four_swap": "mandatory"}), 2, shuffle=lambda cards=None: list(range(40)))
    g.start(0, [CARD_INDEX["4o"], CARD_INDEX["5c"], CARD_INDEX["4c"]])
    names = lambda: {g.actions[a].name for a in g.legal_actions()}  # noqa: E731
    for _ in range(4):
        assert names() == {"SWAP_FOUR"}
        g.apply(3)
    assert names() == {f"BET_{k}" for k in range(1, 6)}
