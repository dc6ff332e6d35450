"""Scenario tests for the rule variants, each with an exact expected result. Every test
names the source document in shared/seeds/ and the sentence it implements."""

from __future__ import annotations

import pytest

from siete_env import raw_env
from siete_env.cards import CARD_INDEX, card_label

from .helpers import legal, play, table

P0, P1, P2 = "player_0", "player_1", "player_2"


def test_remove_sotas_latin_deck():
    # 002: "Es común que las Sotas se descarten de modo que valdrán medio punto los Reyes y
    # los Caballos."
    e = raw_env(rules="latin")
    assert len(e.rules.deck_cards()) == 36
    e.reset(seed=3)
    assert sorted(e.game.all_cards()) == sorted(e.rules.deck_cards())
    assert not any(card_label(c).startswith("10") for c in e.game.all_cards())
    with pytest.raises(ValueError, match="card '10o' is not in the deck these rules use"):
        e.reset(options={"deck": ["10o"]})
    # caballo + rey still count ½ each: 7 + caballo = 7½, paid double.
    e = table(["7o", "5c", "11e"], rules="latin")
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -2, P1: 2}


def test_all_face_up_blackjack_style():
    # 000 §10: "los jugadores juegan con todas sus cartas descubiertas; hasta seis puntos, la
    # banca pide carta; con seis puntos o más, la banca se planta."
    e = table(["5o", "2c", "1e", "4b"], rules="blackjack_style")
    g, L = e.game, e.layout
    assert g.hidden[g.slot(1)] == -1  # the punter's first card is face-up
    assert e.observe(P0)["observation"][L.card(CARD_INDEX["5o"], 1, 0)] == 1.0  # the banker sees it
    play(e, [(P1, "BET_2")])
    assert legal(e) == {"STAND", "HIT_UP", "RAISE_3", "RAISE_4", "RAISE_5"} - {"RAISE_3", "RAISE_4", "RAISE_5"}
    play(e, [(P1, "HIT_UP")])  # 6
    assert "HIT_DOWN" not in legal(e)
    play(e, [(P1, "STAND")])
    assert legal(e) == {"HIT_UP"}  # banker 2 < 6 must hit
    r = play(e, [(P0, "HIT_UP")])  # banker 2 + 4 = 6: must stand; 6 ties 6, the banker wins
    assert legal(e) == {"STAND"}
    r = play(e, [(P0, "STAND")], r)
    assert r == {P0: 2, P1: -2}


def test_only_the_first_card_hidden():
    # 004: "Tutte le carte successive alla prima vengono date scoperte una per volta".
    e = table(["3o", "2c", "2e"], rules={"draw_face_down": False})
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert "HIT_DOWN" not in legal(e)
    assert e.game.hidden[e.game.slot(1)] == CARD_INDEX["3o"]


def test_reveal_seven_half_shows_the_hidden_card():
    # 003: "S'il a sept points et demi ou s'il les a dépassés, il doit montrer la carte qui
    # est cachée."
    e = table(["7o", "2c", "12e", "11b", "1e"], n=3, rules={"reveal_seven_half": True})
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert e.game.hidden[e.game.slot(1)] == -1
    assert e.observe(P2)["observation"][e.layout.card(CARD_INDEX["7o"], 2, 0)] == 1.0
    # without the option the 7 stays hidden at 7½
    e = table(["7o", "2c", "12e", "11b", "1e"], n=3)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert e.game.hidden[e.game.slot(1)] == CARD_INDEX["7o"]


def test_french_payouts():
    # 003: "Si la banque arrive à 7,5, tous les joueurs lui paieront le double de la mise,
    # sauf si un autre joueur a obtenu 7,5, auquel cas celui-ci paiera 4 fois le montant de
    # la mise à la banque." and "La banque annonce la quantité de la mise": one stake.
    e = table(["7o", "5c", "7e", "11o", "12e"], n=3, rules="french")
    assert legal(e) == {"BET_1"}
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P2, "BET_1"), (P2, "STAND"), (P0, "HIT_UP")])
    assert r == {P0: 6, P1: -4, P2: -2}
    # "Tout joueur obtenant 7,5 recevra le double du montant misé par la banque."
    e = table(["7o", "5c", "10e", "1o"], rules="french")
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -2, P1: 2}


def test_french_figure_splits():
    # 003: "Si un joueur reçoit comme première carte une figure ... et qu'il reçoit
    # (consécutivement) une autre figure ... il pourra rejouer".
    e = table(["10o", "5c", "6c", "7e", "11c"], n=4, rules="french")
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert legal(e) == {"SPLIT", "KEEP"}  # max_splits 3 at any table size
