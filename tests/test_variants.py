"""Scenario tests for the rule variants, each with an exact expected result. Every test
names the source document (docs/rules.md, "The source documents") and the sentence it implements:
000 = 000_e38fda313f5aa24a.txt (Spanish), 001 = 001_ac9263210faa28be.txt (Spanish),
002 = 002_a800a540ffe55e3f.txt (Latin American), 003 = 003_34f1b911eeb84e49.txt (French),
004 = 004_cd6d149114947459.txt (Italian)."""

from __future__ import annotations

import numpy as np
import pytest

from siete_env import raw_env
from siete_env.cards import CARD_INDEX, card_label
from siete_env.game import Status

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
    assert legal(e) == {"STAND", "HIT_UP"}
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


ITALIAN = "italian"


def test_wild_card_counts_its_best_value():
    # 004: "Il re di denari ... viene chiamato matta ... da sola assume il valore di mezzo
    # punto come una figura qualsiasi, mentre accoppiata a un'altra carta può valere mezzo o
    # da 1 a 7 punti interi, a discrezione del giocatore".
    e = raw_env(rules=ITALIAN)
    g = e.game
    W, ids = CARD_INDEX["12o"], CARD_INDEX
    assert g.hand_total([W]) == 1  # alone: ½
    assert g.hand_total([W, ids["5c"]]) == 14  # 5 + 2 = 7
    assert g.hand_total([W, ids["10c"]]) == 15  # ½ + 7 = 7½
    assert g.hand_total([W, ids["7c"]]) == 15  # 7 + ½ = 7½
    assert g.hand_total([W, ids["6c"], ids["2e"]]) == 17  # 8 already: the wild adds ½, 8½ bust
    # In play: punter holds the wild (hidden), draws a 5 face-up: 7 points, stands; the banker
    # (who sees only the 5) stands on 6: the punter wins its stake.
    e = table(["12o", "6c", "5e"], rules=ITALIAN)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert e.infos[P1]["total"] == 7.0
    L = e.layout
    assert e.observe(P0)["observation"][L.hand(1, 0) + 8] == 5.0  # the banker sees 5
    assert e.observe(P1)["observation"][L.hand(0, 0) + 8] == 7.0
    r = play(e, [(P1, "STAND"), (P0, "STAND")], {P0: 0, P1: 0})
    assert r == {P0: -1, P1: 1}


def test_reale_paid_double_plain_seven_half_even_money():
    # 004: "Il 7 e mezzo realizzato con due sole carte dello stesso seme (un sette e una
    # figura oppure la matta e una figura) è detto sette e mezzo reale ... riceve dal banco
    # una somma pari al doppio della posta"; plain 7½ is paid even money in the preset.
    e = table(["7c", "5o", "10c"], rules=ITALIAN)  # 7 and fante of coppe: reale
    r = play(e, [(P1, "BET_2"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -4, P1: 4}
    assert e.game.new_banker == 1  # the reale takes the bank
    e = table(["7c", "5o", "10e"], rules=ITALIAN)  # 7 of coppe + fante of spade: plain 7½
    r = play(e, [(P1, "BET_2"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -2, P1: 2}
    assert e.game.new_banker == -1  # only a reale takes the bank
    e = table(["12o", "5c", "10o"], rules=ITALIAN)  # the wild + a figure of its suit: reale
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -2, P1: 2}


def test_banker_reale_collects_double_except_from_a_reale():
    # 004: "Se è il mazziere a fare sette e mezzo reale, egli riscuote una posta doppia da
    # tutti i giocatori, tranne da quelli che hanno fatto a loro volta sette e mezzo reale
    # ... dai quali riscuote una posta semplice".
    # 3 players, banker 0: P1 reale (7+cavallo of coppe), P2 stands on 5; banker 7 + fante
    # of spade = reale.
    e = table(["7c", "5o", "7e", "11c", "10e"], n=3, rules=ITALIAN)
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P2, "BET_1"), (P2, "STAND"), (P0, "HIT_UP")])
    assert r == {P0: 3, P1: -1, P2: -2}
    assert e.game.new_banker == 1  # coppe ranks above spade: the better reale takes the bank


def test_bank_goes_to_the_best_reale_by_suit():
    # 004: "il banco passerà al giocatore che possiede il sette e mezzo più alto in base
    # posizioni elencate: quadri o denari; cuori o coppe; picche o spade; fiori o bastoni".
    e = table(["7c", "7o", "5e", "11c", "10o"], n=3, rules=ITALIAN)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P2, "BET_1"), (P2, "HIT_UP"), (P0, "STAND")])
    assert e.game.new_banker == 2  # denari beats coppe


def test_shoe_runs_across_hands_and_seen_cards_are_public():
    # 004: "il mazziere tiene il banco fino all'esaurimento delle carte nel mazzo" (one shoe);
    # docs/rules.md §1: the cards already seen in this shoe are public information.
    e = table(["5c", "6o", "1e", "3b", "2c"], rules={"preset": ITALIAN, "hands_per_episode": 2})
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "STAND"), (P0, "STAND")])  # 6 vs 6: banker
    g, L = e.game, e.layout
    assert g.hand_no == 1 and g.cards_left() == 40 - 3 - 2
    # the second hand continues the shoe: the punter gets 3b, the banker 2c
    assert g.cards[g.slot(1)] == [CARD_INDEX["3b"]] and g.cards[g.slot(0)] == [CARD_INDEX["2c"]]
    obs = e.observe(P1)["observation"]
    for cid in ("5c", "6o", "1e"):  # shown in the first hand
        assert obs[L.seen_in_shoe(CARD_INDEX[cid])] == 1.0
    assert obs[L.seen_in_shoe(CARD_INDEX["3b"])] == 0.0


def test_shoe_reshuffles_the_discards_and_passes_the_bank_right():
    # 004: "... fino all'esaurimento delle carte nel mazzo, dopodiché il banco passa al
    # giocatore seduto alla sua destra."
    from siete_env.rules import resolve_rules
    from tests.oracle import Game

    rules = resolve_rules({"preset": ITALIAN, "hands_per_episode": 3, "bank_passes": "when_exhausted"})
    g = Game(rules, 2, shuffle=lambda cards=None: sorted(cards) if cards is not None else list(range(40)))
    deck = [CARD_INDEX[c] for c in ("5c", "6o", "1e", "3b")]
    g.start(0, deck)  # a 4-card shoe
    stand, bet1 = 0, [a.name for a in g.actions].index("BET_1")
    for a in (bet1, stand, stand):  # punter 5 stands, banker 6 stands
        g.apply(a)
    assert g.hand_no == 1 and g.banker == 0  # the shoe did not run out in hand 1
    assert g.cards[g.slot(1)] == [CARD_INDEX["1e"]] and g.cards[g.slot(0)] == [CARD_INDEX["3b"]]
    g.apply(bet1)
    g.apply(1)  # HIT_UP: the shoe is empty, the discards (5c, 6o) are reshuffled
    assert g.cards[g.slot(1)] == [CARD_INDEX["1e"], CARD_INDEX["6o"]]
    assert sorted(g.all_cards()) == sorted(deck)
    g.apply(stand)
    g.apply(stand)
    assert g.banker == 1  # the shoe ran out: the bank passed to the banker's right


FULL = {"preset": "spanish_full", "bank_auction": False}  # the auction has its own tests


def test_canto_obliges_the_banker_to_chase_seven_half():
    # 000 §9: "El primer jugador que obtiene la siete y media lo anuncia para obligar a la
    # banca a que intente obtener esta misma jugada." and "Puede establecerse la
    # obligatoriedad de que el banquero no pueda plantarse antes de las siete y media".
    e = table(["7o", "6c", "10e", "1e", "11e"], rules=FULL)
    play(e, [(P1, "BET_2"), (P1, "HIT_UP")])  # 7½, announced
    L = e.layout
    assert e.observe(P0)["observation"][L.seat(1) + 3] == 1.0  # the banker hears the canto
    assert legal(e) == {"HIT_UP"}  # banker on 6 may not stand
    play(e, [(P0, "HIT_UP")])  # 7: still below 7½
    assert legal(e) == {"HIT_UP"}
    r = play(e, [(P0, "HIT_UP")], {P0: 0, P1: 0})  # 7½: the banker wins, single stake
    assert r == {P0: 2, P1: -2}


def test_only_the_first_seven_half_is_announced():
    e = table(["7o", "7c", "6c", "10e", "12e"], n=3, rules=FULL)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P2, "BET_1"), (P2, "HIT_UP")])
    assert e.game.announced == [False, True, False]


def test_fusilar_figure_pays_four_times():
    # 000 §9: "Fusilar ... la carta del reparto inicial sea un siete ... El banquero colocará
    # la primera carta del mazo debajo del siete sin darle la vuelta y procurando que ningún
    # jugador la vea ... El banquero deberá actuar como si allí hubiera siete y media, y si la
    # hubiera pagaría el cuádruple de la apuesta."
    e = table(["7o", "5c", "11c", "6e"], rules=FULL)
    play(e, [(P1, "BET_3")])
    assert "FUSILAR" in legal(e)
    play(e, [(P1, "FUSILAR")])
    g, L = e.game, e.layout
    assert e.infos[P1]["hand"] == ["7o", "??"]  # the punter does not see it either
    for seat, agent in ((1, P0), (0, P1)):
        obs = e.observe(agent)["observation"]
        assert obs[L.card(CARD_INDEX["7o"], seat, 0)] == 1.0  # the 7 is shown
        assert obs[L.card(CARD_INDEX["11c"], seat, 0)] == 0.0  # nobody sees the card under it
        assert obs[L.own_face_down(CARD_INDEX["11c"])] == 0.0
    assert legal(e) == {"HIT_UP"}  # the banker plays as if against 7½
    r = play(e, [(P0, "HIT_UP")], {P0: 0, P1: 0})  # 5 + 6: bust
    assert r == {P0: -12, P1: 12}
    assert g.total[g.slot(1)] == 15


def test_fusilar_other_card_is_a_bust():
    e = table(["7o", "5c", "2c", "12b", "2e"], rules=FULL)
    r = play(e, [(P1, "BET_3"), (P1, "FUSILAR"), (P0, "HIT_UP")])  # banker 5½: must go on
    assert legal(e) == {"HIT_UP"}
    r = play(e, [(P0, "HIT_UP")], r)  # 7½
    assert r == {P0: 3, P1: -3}


def test_fusilar_pays_only_seven_and_a_half():
    # 000 §9: only 7½ under the shot 7 is paid; "any other card is a bust" (docs/rules.md).
    # With the matta as the shot 7 a hand can stay under 7½: 7o (wild) + 5o makes 7, a bust.
    rules = {**FULL, "wild_card": "7o"}
    e = table(["7o", "6c", "5o", "11b", "1c"], rules=rules)
    r = play(e, [(P1, "BET_3"), (P1, "FUSILAR"), (P0, "HIT_UP"), (P0, "HIT_UP")])  # the banker chases to 7½
    g = e.game
    assert g.total[g.slot(1)] == 14 and g.status[g.slot(1)] == Status.BUST
    assert r == {P0: 3, P1: -3}


def test_fusilar_only_with_an_initial_seven_and_only_first():
    e = table(["6o", "5c", "1c"], rules=FULL)
    play(e, [(P1, "BET_1")])
    assert "FUSILAR" not in legal(e)
    e = table(["7o", "5c", "12c"], rules=FULL)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])  # 7½ already; no shooting after a hit anyway
    assert e.agent_selection == P0


def test_chase_needs_something_to_chase():
    with pytest.raises(ValueError, match="banker_must_chase: true needs canto: true or fusilar: true"):
        raw_env(rules={"banker_must_chase": True})


def test_the_card_under_a_shot_seven_reaches_nobody():
    obs = []
    for under in ("11c", "2c"):
        e = table(["7o", "5c", under, "12b", "2e", "3e"], rules=FULL)
        play(e, [(P1, "BET_1"), (P1, "FUSILAR")])
        obs.append([e.observe(a)["observation"] for a in (P0, P1)] + [repr(e.infos)])
    for a, b in zip(*obs, strict=True):
        assert np.array_equal(a, b) if not isinstance(a, str) else a == b


def test_bank_auction_sold_to_the_highest_bid():
    # 001: "Antes de empezar cada mano, cada jugador podrá hacer una oferta de compra por la
    # banca a quien la tuviera en ese momento. En caso de que se aceptara, la banca pasa al
    # jugador que hizo la oferta."
    # 3 players, banker 0: seat 1 bids 2, seat 2 bids 5; the banker sells for 5.
    e = table(["5o", "6c", "4e", "1b"], n=3, rules="spanish_full")
    assert e.agent_selection == P1 and legal(e) == {"NO_BID", "BID_1", "BID_2", "BID_5", "BID_10"}
    play(e, [(P1, "BID_2")])
    assert legal(e) == {"NO_BID", "BID_5", "BID_10"}  # only higher bids
    assert e.observe(P0)["observation"][e.layout.seat(1) + 4] == 2.0  # bids are public
    r = play(e, [(P2, "BID_5")])
    assert legal(e) == {"SELL_BANK", "KEEP_BANK"} and e.agent_selection == P0
    r = play(e, [(P0, "SELL_BANK")], r)
    assert r == {P0: 5, P1: 0, P2: -5}
    g = e.game
    assert g.banker == 2 and g.order == [0, 1]
    assert e.infos[P2]["role"] == "banker"
    # the deal follows with the new banker: seat 0 first, then seat 1, the banker last
    assert g.cards[g.slot(0)] == [CARD_INDEX["5o"]] and g.cards[g.slot(2)] == [CARD_INDEX["4e"]]
    assert e.agent_selection == P0 and "BET_1" in legal(e)


def test_bank_auction_kept_or_no_bids():
    e = table(["5o", "6c", "4e"], n=3, rules="spanish_full")
    r = play(e, [(P1, "BID_1"), (P2, "NO_BID"), (P0, "KEEP_BANK")])
    assert r == {P0: 0, P1: 0, P2: 0} and e.game.banker == 0
    e = table(["5o", "6c", "4e"], n=3, rules="spanish_full")
    play(e, [(P1, "NO_BID"), (P2, "NO_BID")])
    assert e.agent_selection == P1 and "BET_1" in legal(e)  # no bids: straight to the deal


def test_burn_three_or_four():
    # 004: "se uno o più giocatori possiedono come prima carta ... un 3 o un 4 hanno la
    # possibilità di 'bruciare' la loro carta all'inizio del gioco, ossia mostrarla al banco
    # che dovrà prenderla e annullarla cedendo ai giocatori un'altra carta."
    rules = {"preset": ITALIAN, "burn_three_four": True}
    e = table(["3c", "5o", "4e", "6b", "1b"], rules=rules)
    assert legal(e) == {"BURN", "BET_1", "BET_2", "BET_3", "BET_4", "BET_5"}
    play(e, [(P1, "BURN")])
    g = e.game
    assert g.cards[g.slot(1)] == [CARD_INDEX["4e"]] and "BURN" in legal(e)  # a 4 again
    play(e, [(P1, "BURN")])
    assert g.cards[g.slot(1)] == [CARD_INDEX["6b"]] and "BURN" not in legal(e)
    assert CARD_INDEX["3c"] not in g.deck[g.pos :]  # burnt cards are out of play
    obs = e.observe(P0)["observation"]
    assert obs[e.layout.returned(CARD_INDEX["3c"])] == 1.0  # and were shown
    # 6 + 1 = 7 stands, banker 5 stands: punter wins
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "STAND"), (P0, "STAND")], {P0: 0, P1: 0})
    assert r == {P0: -1, P1: 1}
    with pytest.raises(ValueError, match="burn_three_four: true and four_swap: optional clash"):
        raw_env(rules={"burn_three_four": True})


def test_triplee_two_sevens_pay_triple_and_keep_the_bank_where_it_is():
    # 004: "Nella zona di Novara viene giocata una variante che prevede il 'triplèe': si
    # realizza con due 7, paga triplo e non prende il mazzo."
    rules = {"preset": ITALIAN, "triplee": True}
    e = table(["7o", "6c", "7e", "1b"], rules=rules)
    play(e, [(P1, "BET_2"), (P1, "HIT_UP")])  # 7 + 7: triplèe, stands, shown
    g = e.game
    assert g.triple[g.slot(1)] and g.hidden[g.slot(1)] == -1
    r = play(e, [(P0, "HIT_UP"), (P0, "STAND")], {P0: 0, P1: 0})  # banker 7: still pays
    assert r == {P0: -6, P1: 6}
    # "chi ha 7 più la matta può decidere se far valere la matta come 7 e farsi quindi pagare
    # triplo": the environment takes the triple payout, and the bank does not move.
    e = table(["7o", "6c", "12o", "1b"], rules={**rules, "hands_per_episode": 2})
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -3, P1: 3}
    assert e.game.banker == 0
    # without the option two 7s are a bust
    e = table(["7o", "6c", "7e"], rules=ITALIAN)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert e.rewards == {P0: 1, P1: -1}


def test_starting_chips_limit_stakes_and_end_the_session():
    # docs/rules.md §6: "starting_chips (default none = unlimited) ends a seat's play when it
    # cannot cover the minimum stake".
    e = table(["5o", "6c", "1e", "2b"], rules={"starting_chips": 3, "hands_per_episode": 5})
    assert legal(e) == {"BET_1", "BET_2", "BET_3"}
    play(e, [(P1, "BET_2"), (P1, "HIT_UP")])
    assert legal(e) == {"STAND", "HIT_UP", "HIT_DOWN", "RAISE_3"}  # 3 chips in all
    r = play(e, [(P1, "RAISE_3"), (P1, "STAND"), (P0, "STAND")])  # 6 against 6: the banker wins
    assert r == {P0: 3, P1: -3}
    g = e.game
    assert g.balance(1) == 0 and not g.active(1)
    assert all(e.terminations.values())  # fewer than two seats can play: the session ends


def test_a_banker_without_chips_passes_the_bank_and_sits_out():
    # 3 players, 2 chips each: the banker loses 2 to seat 1 and cannot cover the next hand.
    e = table(["5o", "1c", "6e", "2b", "7b"], n=3, rules={"starting_chips": 2, "hands_per_episode": 3})
    r = play(e, [(P1, "BET_2"), (P1, "STAND"), (P2, "BET_1"), (P2, "HIT_UP")])  # seat 2: 1 + 2 = 3
    r = play(e, [(P2, "STAND"), (P0, "HIT_UP")], r)  # banker 6 + 7 = 13: bust, pays 2 + 1
    assert r == {P0: -3, P1: 2, P2: 1}
    g = e.game
    assert g.hand_no == 1 and not g.active(0) and g.banker == 1 and g.order == [2]
    assert e.infos[P1]["role"] == "banker"
    L = e.layout
    obs = e.observe(P1)["observation"]
    assert obs[L.hand(2, 0)] == 1.0  # seat 0 (relative 2 for player_1) sits out: empty slot


def test_keep_still_busts_or_stands_at_seven_half():
    # A kept pair counts like any other card: 4 + 4 = 8 busts at once (split_any_pair).
    e = table(["4o", "1c", "4c"], rules={"split_any_pair": True})
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert legal(e) == {"SPLIT", "KEEP"}
    play(e, [(P1, "KEEP")])
    assert e.rewards == {P0: 1, P1: -1} and all(e.terminations.values())
    # sota + the wild card kept: 7½ stands by itself (no raise after 7½).
    e = table(["10c", "1c", "12o"], rules={"preset": ITALIAN, "max_splits": 1})
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "KEEP")])
    assert e.agent_selection == P0 and e.game.total[e.game.slot(1)] == 15


def test_blackjack_style_swap_keeps_every_card_face_up():
    e = table(["4o", "2c", "6e"], rules={"preset": "blackjack_style", "four_swap": "optional"})
    play(e, [(P1, "SWAP_FOUR")])
    g, L = e.game, e.layout
    assert g.hidden[g.slot(1)] == -1
    obs = e.observe(P0)["observation"]
    assert obs[L.card(CARD_INDEX["4o"], 1, 0)] == 0.0 and obs[L.card(CARD_INDEX["6e"], 1, 0)] == 1.0
    assert obs[L.hand(1, 0) + 8] == 6.0 and obs[L.hand(1, 0) + 7] == 0.0


def test_ace_declared_half_and_later_cards_face_down():
    # 004: "se si riceve come prima carta un asso, si può scegliere se assegnargli un valore
    # di mezzo punto oppure mantenerne il valore nominale di 1 punto. Se si sceglie di far
    # valere l'asso mezzo punto lo si deve dichiarare e le carte successive vanno date
    # coperte".
    rules = {"preset": ITALIAN, "ace_half": True}
    e = table(["1o", "5c", "6e", "1c", "2b"], rules=rules)
    assert legal(e) == {"ACE_HALF", "BET_1", "BET_2", "BET_3", "BET_4", "BET_5"}
    play(e, [(P1, "ACE_HALF")])
    g, L = e.game, e.layout
    assert g.total[g.slot(1)] == 1 and "ACE_HALF" not in legal(e)
    assert e.observe(P0)["observation"][L.hand(1, 0) + 8] == 0.5  # the table sees the ½ ace
    play(e, [(P1, "BET_1")])
    assert legal(e) == {"STAND", "HIT_DOWN"}  # later cards only face-down
    play(e, [(P1, "HIT_DOWN"), (P1, "HIT_DOWN")])  # 6 and 1, both face-down: ½ + 6 + 1 = 7½
    # at 7½ the hand stands and (reveal_seven_half) every hidden card is shown
    assert e.infos[P1]["hand"] == ["1o", "6e", "1c"] and g.hidden[g.slot(1)] == -1
    # 7½ stands by itself and (reveal_seven_half) is shown; the banker 5 + 2 = 7 loses:
    # plain 7½ is even money in the italian preset.
    r = play(e, [(P0, "HIT_UP"), (P0, "STAND")], {P0: 0, P1: 0})
    assert r == {P0: -1, P1: 1}
    # Without the option an ace counts 1 and later cards may come face-up.
    e = table(["1o", "5c"], rules=ITALIAN)
    assert "ACE_HALF" not in legal(e)
    # An ace that is the wild card takes the wild card's value: it is not declared ½.
    e = table(["1o", "5c"], rules={"preset": ITALIAN, "ace_half": True, "wild_card": "1o"})
    assert "ACE_HALF" not in legal(e)
    e = table(["1b", "5c"], rules={"preset": ITALIAN, "ace_half": True, "wild_card": "1o"})
    assert "ACE_HALF" in legal(e)


def test_declared_ace_keeps_several_cards_hidden_from_the_table():
    rules = {"preset": ITALIAN, "ace_half": True, "reveal_seven_half": False}
    e = table(["1o", "5c", "2e", "3c"], rules=rules)
    play(e, [(P1, "ACE_HALF"), (P1, "BET_1"), (P1, "HIT_DOWN"), (P1, "HIT_DOWN")])  # ½ + 2 + 3
    L = e.layout
    assert e.infos[P1]["hand"] == ["1o", "2e*", "3c*"] and e.infos[P1]["total"] == 5.5
    banker = e.observe(P0)["observation"]
    assert banker[L.hand(1, 0) + 8] == 0.5 and banker[L.hand(1, 0) + 6] == 3.0
    assert banker[L.card(CARD_INDEX["2e"], 1, 0)] == 0.0 and banker[L.card(CARD_INDEX["3c"], 1, 0)] == 0.0
    mine = e.observe(P1)["observation"]
    assert mine[L.own_face_down(CARD_INDEX["2e"])] == 1.0 and mine[L.own_face_down(CARD_INDEX["3c"])] == 1.0
    assert mine[L.hand(0, 0) + 8] == 5.5


def test_side_bets_follow_the_backed_hand():
    # 000 §9: "También puede establecerse la posibilidad de apostar sobre las jugadas ajenas
    # ... La apuesta sobre la jugada ajena no da voz ni voto: el jugador que pide carta, se
    # abre o se planta es el que tiene el turno."
    # 4 players, banker 0: after the deal seat 1 backs nobody, seat 2 backs seat 1 (2 places
    # after it: SIDE_BET_3), seat 3 backs seat 2 (SIDE_BET_3 as well). Seat 1 makes 7½ (2x),
    # seat 2 busts; the banker stands on 5.
    rules = {"side_bets": True}
    e = table(["7o", "6c", "2e", "5b", "10o", "6e", "1e"], n=4, rules=rules)
    assert e.agent_selection == P1 and legal(e) == {"NO_SIDE_BET", "SIDE_BET_1", "SIDE_BET_2"}
    r = play(e, [(P1, "NO_SIDE_BET"), (P2, "SIDE_BET_3"), ("player_3", "SIDE_BET_3")])
    L = e.layout
    assert e.observe(P0)["observation"][L.seat(1) + 5] == 1.0  # side bets are public
    r = play(e, [(P1, "BET_2"), (P1, "HIT_UP")], r)  # 7 + sota: 7½
    r = play(e, [(P2, "BET_1"), (P2, "HIT_UP")], r)  # 6 + 6: bust, its backer pays at once
    assert r == {P0: 2, P2: -1, "player_3": -1, P1: 0}
    r = play(e, [("player_3", "BET_1"), ("player_3", "HIT_UP"), ("player_3", "STAND"), (P0, "STAND")], r)
    # seat 1: +4 and its backer seat 2: +2; seat 3 (2 + 1 = 3) loses 1 to the banker's 5.
    assert r == {P0: 2 - 4 - 2 + 1, P1: 4, P2: -1 + 2, "player_3": -1 - 1}


def test_italian_and_french_decks_render_with_their_names():
    # docs/rules.md §1: "The ids stay rank+suit-letter; only names/rendering change."
    from siete_env.cards import card_name

    assert (
        card_label(CARD_INDEX["12o"], "italian") == "Rd" and card_name(CARD_INDEX["12o"], "italian") == "re di denari"
    )
    assert card_label(CARD_INDEX["11c"], "french") == "Q♥" and card_name(CARD_INDEX["1e"], "french") == "A♠"
    assert card_name(CARD_INDEX["11c"]) == "caballo de copas"
    e = raw_env(rules="italian", render_mode="ansi")
    e.reset(seed=0, options={"deck": ["12o", "7c"], "banker": 0})
    assert "[Rd]" in e.render() and "[7c]" in e.render()
    assert e.infos[P1]["hand"] == ["12o*"]  # ids do not change


# --------------------------------------------------------------------------- audit fixes
def test_reale_beaten_by_the_banker_does_not_take_the_bank():
    # 004: "Se il sette e mezzo viene pagato doppio, dà diritto di diventare mazziere al primo
    # giocatore che lo realizza; in caso contrario il mazziere tiene il banco": a reale the
    # banker's 7½ beat was not paid double, so the bank stays.
    rules = {"preset": ITALIAN, "hands_per_episode": 2}
    # P1 7c + 10c (reale, stands); the banker 3b + 4e + 11e: an "illegitimate" 7½ of three
    # cards, which "può battere tutti gli altri sette e mezzo anche se fatti con due carte".
    e = table(["7c", "3b", "10c", "4e", "11e"], rules=rules)
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "HIT_UP"), (P0, "HIT_UP")])
    assert r == {P0: 1, P1: -1}
    assert e.game.banker == 0 and e.game.hand_no == 1
    # The banker's 7½ of two cards of different suits (7o + 10e) beats the reale too.
    e = table(["7c", "7o", "10c", "10e"], rules=rules)
    r = play(e, [(P1, "BET_2"), (P1, "HIT_UP"), (P0, "HIT_UP")])
    assert r == {P0: 2, P1: -2}
    assert e.game.banker == 0
    # A banker's reale keeps the bank against a worse reale (spade below coppe) and
    # collects a single stake from it ("dai quali riscuote una posta semplice").
    e = table(["7e", "7c", "10e", "11c"], rules=rules)
    r = play(e, [(P1, "BET_3"), (P1, "HIT_UP"), (P0, "HIT_UP")])
    assert r == {P0: 3, P1: -3}
    assert e.game.banker == 0
    # ... and gives it up to a better one ("a meno che gli altri giocatori non abbiano un
    # sette e mezzo di valore più alto"), still collecting a single stake.
    e = table(["7c", "7e", "10c", "11e"], rules=rules)
    r = play(e, [(P1, "BET_3"), (P1, "HIT_UP"), (P0, "HIT_UP")])
    assert r == {P0: 3, P1: -3}
    assert e.game.banker == 1
    # A banker who stands below 7½ pays the reale double, and the reale takes the bank.
    e = table(["7c", "6o", "10c"], rules=rules)
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -2, P1: 2}
    assert e.game.banker == 1


def test_seven_half_beaten_by_the_banker_does_not_take_the_bank():
    # 000: "Si en la mano uno o varios jugadores han conseguido las siete y media, pero no la
    # banca, el primero de ellos tiene derecho a la banca"; 001: "Si un jugador tiene siete y
    # medio (y la banca no) cobra el doble de lo apostado y además toma la banca".
    rules = {"hands_per_episode": 2}
    e = table(["7c", "3b", "10c", "4e", "11e"], rules=rules)  # P1 7½, the banker 7½ of three cards
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "HIT_UP"), (P0, "HIT_UP")])
    assert r == {P0: 1, P1: -1}
    assert e.game.banker == 0
    e = table(["7c", "3b", "10c", "5e"], rules=rules)  # the banker 3 + 5 = 8: bust
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "HIT_UP")])
    assert r == {P0: -2, P1: 2}
    assert e.game.banker == 1


def _shoe_game(hands, **extra):
    """An italian two-seat Game whose shoe is the 40 cards in index order (1o 2o ... 12b),
    reshuffled to index order again: every card it deals is known."""
    from siete_env.rules import resolve_rules
    from tests.oracle import Game

    rules = resolve_rules({"preset": ITALIAN, "hands_per_episode": hands, **extra})
    g = Game(rules, 2, shuffle=lambda cards=None: sorted(cards) if cards is not None else list(range(40)))
    g.start(0, list(range(40)))
    names = [a.name for a in g.actions]
    return g, names.index("BET_1")


def test_shoe_ending_with_the_last_card_of_a_hand_passes_the_bank():
    # 004: "il mazziere tiene il banco fino all'esaurimento delle carte nel mazzo, dopodiché il
    # banco passa al giocatore seduto alla sua destra": a hand that deals the shoe's last card
    # exhausts it, and the next hand has a new banker (and a new shoe).
    g, bet1 = _shoe_game(23)
    bankers = []
    while g.acting_seat >= 0:
        bankers.append(g.banker)
        for a in (bet1, 0, 0):  # BET_1, STAND, STAND: two cards a hand
            g.apply(a)
    # 20 hands use the 40 cards; each suit: 1 v 2, 3 v 4, 5 v 6 and ½ v ½ (the wild 12 alone)
    # to the banker, 7 v ½ to the punter: seat 0 wins 3 a suit. Then seat 1 banks the new
    # shoe: 1o v 2o, 3o v 4o, 5o v 6o, all to the banker.
    assert bankers == [0] * 20 + [1] * 3
    assert g.chips == [12 - 3, -12 + 3]


def test_shoe_running_out_in_mid_hand_passes_the_bank_once():
    # 004 (as above): the shoe runs out while the punter draws in hand 20; the discards of
    # the earlier hands are the new shoe, and the bank passes after that hand only.
    g, bet1 = _shoe_game(22)
    bankers = []
    while g.acting_seat >= 0:
        bankers.append(g.banker)
        g.apply(bet1)
        if g.hand_no == 19:  # P1 11b, the banker 12b: P1 hits 1o from the new shoe, 1½ v ½
            g.apply(1)
        g.apply(0)
        g.apply(0)
    assert bankers == [0] * 20 + [1] * 2
    # 19 hands: +3 a suit for seat 0 in three suits, +2 in bastos' four (7b v 10b to P1),
    # then P1's 1½ beats ½ (-1); seat 1 banks: P0 2o v 3o and 4o v 5o, both to the banker.
    assert g.chips == [9 + 2 - 1 - 2, -(9 + 2 - 1 - 2)]


def test_every_later_card_face_down():
    # 002: "Las cartas siguientes que da el banquero se pueden entregar descubiertas o
    # cubiertas de acuerdo a como se decida la regla antes de comenzar a jugar."
    rules = {"max_face_down": "all", "hands_per_episode": 2}
    e = table(["2o", "5c", "3e", "1b", "2c"], rules=rules)
    play(e, [(P1, "BET_1")])
    assert legal(e) == {"STAND", "HIT_DOWN"}  # later cards only face-down
    play(e, [(P1, "HIT_DOWN"), (P1, "HIT_DOWN")])  # 2 + 3 + 1 = 6, all three hidden
    assert e.infos[P1]["hand"] == ["2o*", "3e*", "1b*"] and e.infos[P1]["total"] == 6.0
    assert legal(e) == {"STAND", "HIT_DOWN", "RAISE_2", "RAISE_3", "RAISE_4", "RAISE_5"}
    L = e.layout
    banker = e.observe(P0)["observation"]
    assert banker[L.hand(1, 0) + 6] == 3.0 and banker[L.hand(1, 0) + 8] == 0.0  # 3 cards, none seen
    assert all(banker[L.card(CARD_INDEX[c], 1, 0)] == 0.0 for c in ("2o", "3e", "1b"))
    # P1 stands on 6; the banker 5 + 2 = 7 wins one stake and keeps the bank.
    r = play(e, [(P1, "STAND"), (P0, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: 1, P1: -1}
    assert e.game.banker == 0 and e.game.hand_no == 1
    # A hidden 7½ stands by itself, unseen (no reveal_seven_half) until the showdown, is paid
    # double and takes the bank.
    e = table(["7o", "5c", "10e", "1b"], rules=rules)
    play(e, [(P1, "BET_2"), (P1, "HIT_DOWN")])
    assert e.agent_selection == P0
    banker = e.observe(P0)["observation"]
    assert banker[L.card(CARD_INDEX["7o"], 1, 0)] == 0.0 and banker[L.card(CARD_INDEX["10e"], 1, 0)] == 0.0
    r = play(e, [(P0, "HIT_UP"), (P0, "STAND")])  # 5 + 1 = 6
    assert r == {P0: -4, P1: 4}
    assert e.game.banker == 1
    # A bust shows every hidden card and pays at once.
    e = table(["6o", "5c", "1e", "1b"], rules={"max_face_down": "all"})
    r = play(e, [(P1, "BET_1"), (P1, "HIT_DOWN"), (P1, "HIT_DOWN")])  # 6 + 1 + 1 = 8
    assert r == {P0: 1, P1: -1} and e.infos[P1]["hand"] == ["6o", "1e", "1b"]
    with pytest.raises(ValueError, match="max_face_down: all and draw_face_down: false clash"):
        raw_env(rules={"preset": ITALIAN, "max_face_down": "all"})
    with pytest.raises(ValueError, match="max_face_down"):
        raw_env(rules={"max_face_down": 2})


def test_wild_card_whole_values_only():
    # 004: "Sono comuni anche varianti del gioco che ... stabiliscono che la matta debba
    # assumere un punteggio obbligatoriamente da 1 a 7, escludendo dunque il mezzo punto."
    rules = {"preset": ITALIAN, "wild_whole_only": True, "hands_per_episode": 2}
    # The matta alone counts 7 (its best whole value), and beats the banker's 5 + 1.
    e = table(["12o", "5c", "1b"], rules=rules)
    assert e.infos[P1]["total"] == 7.0
    r = play(e, [(P1, "BET_2"), (P1, "STAND"), (P0, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -2, P1: 2}
    assert e.game.banker == 0
    # 7 + the matta is at least 8: a bust (it would be 7½ counting the matta ½).
    e = table(["7c", "5o", "12o"], rules=rules)
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert r == {P0: 1, P1: -1}
    e = table(["7c", "5o", "12o"], rules={**rules, "wild_whole_only": False})
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -1, P1: 1}  # 7½ (plain: even money in the italian preset)
    # The matta with a figure of its suit still makes a reale (7 + ½), paid double, taking
    # the bank.
    e = table(["10o", "5c", "12o"], rules=rules)
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -2, P1: 2}
    assert e.game.banker == 1
    with pytest.raises(ValueError, match="wild_whole_only: true needs a wild_card"):
        raw_env(rules={"wild_whole_only": True})


def test_burn_a_three_or_four_received_from_a_hit():
    # 004: "se uno o più giocatori possiedono come prima carta o ricevono da una chiamata un 3
    # o un 4 hanno la possibilità di 'bruciare' la loro carta ... ha la libertà di bruciare
    # tali carte ogni volta che vuole."
    rules = {"preset": ITALIAN, "burn_three_four": True, "burn_drawn": True, "hands_per_episode": 2}
    # P1 5o, banker 6c; P1 hits 4e: 5 + 4 = 9 busts, paid at once ("Quando si sballa, la
    # posta viene subito ritirata dal banco"): nothing left to burn.
    e = table(["5o", "6c", "4e", "2b"], rules=rules)
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert r == {P0: 1, P1: -1} and e.game.banker == 0
    # P1 2o hits 3e (5): BURN it (shown, out of play), the top card 4b replaces it face-up,
    # burnt again, then 1b: 2 + 1 = 3; P1 hits 4c (7) and stands; the banker 6 stands.
    e = table(["2o", "6c", "3e", "4b", "1b", "4c", "5b"], rules=rules)
    play(e, [(P1, "BET_2"), (P1, "HIT_UP")])
    assert "BURN" in legal(e)
    play(e, [(P1, "BURN")])
    g, L = e.game, e.layout
    assert g.cards[g.slot(1)] == [CARD_INDEX["2o"], CARD_INDEX["4b"]] and "BURN" in legal(e)
    banker = e.observe(P0)["observation"]
    assert banker[L.returned(CARD_INDEX["3e"])] == 1.0 and banker[L.card(CARD_INDEX["3e"], 1, 0)] == 0.0
    assert banker[L.hand(1, 0) + 8] == 4.0 and banker[L.hand(1, 0) + 6] == 2.0  # the 4b seen, 2 cards
    play(e, [(P1, "BURN")])
    assert g.cards[g.slot(1)] == [CARD_INDEX["2o"], CARD_INDEX["1b"]] and "BURN" not in legal(e)
    play(e, [(P1, "HIT_UP")])  # 4c: 7, it may burn it or play on
    assert "BURN" in legal(e)
    r = play(e, [(P1, "STAND"), (P0, "STAND")])  # 7 v 6
    assert r == {P0: -2, P1: 2}
    assert g.burned == [] and g.banker == 0  # a new hand: the burnt cards are discards now
    # Only right after the hit: a raise first gives the burn up.
    e = table(["2o", "6c", "3e", "4b"], rules=rules)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "RAISE_2")])
    assert "BURN" not in legal(e)
    # Without burn_drawn only the initial card may be burnt.
    e = table(["2o", "6c", "3e"], rules={**rules, "burn_drawn": False})
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    assert "BURN" not in legal(e)
    with pytest.raises(ValueError, match="burn_drawn: true needs burn_three_four: true"):
        raw_env(rules={"preset": ITALIAN, "burn_drawn": True})


def test_burn_a_drawn_card_in_a_split_hand():
    # 004 (as above), in the second hand of a split (000 §9 "Abrirse"): the burnt card leaves
    # that hand, and every seat's observation follows (the from-scratch reference agrees).
    from .test_observation_reference import reference_observation

    rules = {"burn_three_four": True, "burn_drawn": True, "four_swap": "off"}
    e = table(["10o", "6c", "11e", "3b", "2b"], rules=rules)
    script = [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "SPLIT"), (P1, "STAND"), (P1, "BET_1"), (P1, "HIT_UP")]
    play(e, script)
    assert legal(e) >= {"BURN"} and e.game.hand == 1
    play(e, [(P1, "BURN")])
    g, L = e.game, e.layout
    assert g.cards[g.slot(1, 1)] == [CARD_INDEX["11e"], CARD_INDEX["2b"]] and g.total[g.slot(1, 1)] == 5
    for i, a in enumerate(e.possible_agents):
        np.testing.assert_array_equal(e.observe(a)["observation"], reference_observation(e, i))
    assert e.observe(P0)["observation"][L.hand(1, 1) + 8] == 2.5
    r = play(e, [(P1, "STAND"), (P0, "STAND")])  # ½ and 2½ against 6: both lose
    assert r == {P0: 2, P1: -2}
    # A burnt card's replacement is dealt as a hit: a figure to a lone figure may split.
    e = table(["10o", "6c", "3e", "11e", "5b", "2b"], rules=rules)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "BURN")])
    assert legal(e) == {"SPLIT", "KEEP"}
    play(e, [(P1, "KEEP"), (P1, "HIT_UP"), (P1, "STAND")])  # ½ + ½ + 5 = 6
    r = play(e, [(P0, "HIT_UP")])  # the banker 6 + 2 = 8: bust
    assert r == {P0: -1, P1: 1}


def test_seven_and_wild_counted_half_instead_of_a_triplee():
    # 004: "chi ha 7 più la matta può decidere se far valere la matta come 7 e farsi quindi
    # pagare triplo, oppure se farla valere come mezzo punto (scelta molto più frequente),
    # farsi pagare doppio e prendere il mazzo".
    rules = {"preset": ITALIAN, "triplee": True, "triplee_wild": "seven_half", "hands_per_episode": 2}
    e = table(["7c", "5o", "12o"], rules=rules)  # 7 of coppe + the matta: 7½, a reale
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])
    g = e.game
    assert not g.triple[g.slot(1)] and g.total[g.slot(1)] == 15 and g.is_reale(g.slot(1))
    r = play(e, [(P0, "STAND")], {P0: 0, P1: 0})
    assert r == {P0: -2, P1: 2}  # paid double
    assert g.banker == 1  # and takes the bank
    # The banker's 7½ of three cards beats it: no double pay, no bank.
    e = table(["7c", "5o", "12o", "2b", "10e"], rules=rules)
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "HIT_UP"), (P0, "HIT_UP")])
    assert r == {P0: 1, P1: -1} and e.game.banker == 0
    # Two 7s are still a triplèe, paid triple whatever the banker makes, keeping the bank.
    e = table(["7o", "6c", "7e"], rules=rules)
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -3, P1: 3} and e.game.banker == 0
    # Spanish scoring (no reale): the 7½ is paid seven_half_pays (2) and takes the bank.
    rules = {"wild_card": "12o", "triplee": True, "triplee_wild": "seven_half", "hands_per_episode": 2}
    e = table(["12o", "5o", "7b"], rules=rules)  # the matta first, then a 7
    r = play(e, [(P1, "BET_2"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -4, P1: 4} and e.game.banker == 1
    with pytest.raises(ValueError, match="need triplee: true"):
        raw_env(rules={"preset": ITALIAN, "triplee_wild": "seven_half"})
    with pytest.raises(ValueError, match="triplee_wild: seven_half needs a wild_card"):
        raw_env(rules={"triplee": True, "triplee_wild": "seven_half"})


def test_triplee_does_not_take_the_bank_under_the_spanish_rule():
    # 004: "Nella zona di Novara viene giocata una variante che prevede il 'triplèe': si
    # realizza con due 7, paga triplo e non prende il mazzo."
    base = {"wild_card": "12o", "triplee": True, "hands_per_episode": 2}
    # Default (the engine's reading): 7 + the matta is a triplèe that counts 7½, and under
    # bank_passes: seven_half it takes the bank.
    e = table(["7c", "5o", "12o"], rules=base)
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -3, P1: 3} and e.game.banker == 1
    # triplee_takes_bank: false: paid triple, and the bank stays.
    rules = {**base, "triplee_takes_bank": False}
    e = table(["7c", "5o", "12o"], rules=rules)
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -3, P1: 3} and e.game.banker == 0
    # ... while a plain 7½ still takes it: 3 players, P1 triplèe, P2 6 + ½ + 1 = 7½.
    e = table(["7c", "6b", "5o", "12o", "10e", "1e"], n=3, rules=rules)
    r = play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P2, "BET_1"), (P2, "HIT_UP"), (P2, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: -5, P1: 3, P2: 2} and e.game.banker == 2


def test_french_hidden_card_only_when_every_card_is_face_up():
    # 003: "peut demander des cartes à la banque, à condition qu'une seule de ses cartes reste
    # cachée. Par conséquent, si toutes ses cartes sont visibles, la banque lui donne une carte
    # cachée, mais si toutes ses cartes sauf une sont visibles, la banque lui en donne une
    # visible."
    rules = {"preset": "french", "face_down_choice": False, "hands_per_episode": 2}
    e = table(["2o", "5c", "3e", "1b", "2c"], rules=rules)
    play(e, [(P1, "BET_1")])
    assert legal(e) == {"STAND", "HIT_UP"}  # its first card is hidden: the next comes face-up
    play(e, [(P1, "HIT_UP"), (P1, "HIT_UP")])  # 2 + 3 + 1 = 6, the 2 still hidden
    assert e.infos[P1]["hand"] == ["2o*", "3e", "1b"]
    r = play(e, [(P1, "STAND"), (P0, "HIT_UP"), (P0, "STAND")])  # 6 v 5 + 2 = 7
    assert r == {P0: 1, P1: -1} and e.game.banker == 0
    # After a split both figures are face-up: each hand's next card comes hidden.
    e = table(["10o", "5c", "11e", "6b", "1c", "2b", "2c"], rules=rules)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "SPLIT")])
    assert legal(e) == {"STAND", "HIT_DOWN"}
    play(e, [(P1, "HIT_DOWN")])  # ½ + 6b hidden = 6½
    assert e.infos[P1]["hand"] == ["10o", "6b*"]
    assert legal(e) == {"STAND", "HIT_UP"}
    play(e, [(P1, "STAND"), (P1, "BET_1")])  # the second hand: 11e
    play(e, [(P1, "HIT_DOWN")])  # ½ + 1c hidden
    assert legal(e) == {"STAND", "HIT_UP"}
    play(e, [(P1, "HIT_UP")])  # + 2b = 3½
    assert e.infos[P1]["hand"] == ["11e", "1c*", "2b"]
    # 6½ and 3½ against the banker's 5 + 2 = 7: both lose.
    r = play(e, [(P1, "STAND"), (P0, "HIT_UP"), (P0, "STAND")])
    assert r == {P0: 2, P1: -2} and e.game.banker == 0
    with pytest.raises(ValueError, match="face_down_choice: false needs draw_face_down: true"):
        raw_env(rules={"preset": ITALIAN, "face_down_choice": False})


def test_french_splits_end_at_the_first_non_figure():
    # 003: "Si un joueur reçoit comme première carte une figure ... et qu'il reçoit
    # (consécutivement) une autre figure, deux figures, trois figures il pourra rejouer deux
    # fois, trois fois, quatre fois... jusqu'à ce qu'il reçoive une carte n'étant pas une
    # figure." and the example: "je reçois un 6 et je décide de m'arrêter à 6 et demi, je
    # demande la suivante et je reçois une carte valant un demi-point, donc j'ai déjà 1 point
    # pour la seconde mise, je demande et je reçois un 7 et j'ai dépassé la valeur de la
    # deuxième mise, ensuite je demande une carte pour la troisième mise".
    rules = {"preset": "french", "split_first_hand_only": True, "hands_per_episode": 2}
    deck = ["11o", "4c", "10c", "12e", "6b", "10e", "7b", "5o", "2c"]
    e = table(deck, rules=rules)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "SPLIT"), (P1, "HIT_UP"), (P1, "SPLIT")])  # 3 bets
    play(e, [(P1, "HIT_UP"), (P1, "STAND")])  # the first bet: 6½
    play(e, [(P1, "BET_1"), (P1, "HIT_UP")])  # the second: 10c + 10e, 1 point, no split
    assert legal(e) == {"STAND", "HIT_UP", "HIT_DOWN"}
    r = play(e, [(P1, "HIT_UP")])  # 7b: over 7½, bust
    assert r == {P0: 1, P1: -1}
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "STAND")])  # the third: 12e + 5o = 5½
    r = play(e, [(P0, "HIT_UP"), (P0, "STAND")], r)  # the banker 4 + 2 = 6
    assert r == {P0: 1, P1: -1}  # 6½ wins, the bust and 5½ lose
    assert e.game.banker == 0
    # 000 §9 (the default): the second hand may split again on its figure.
    e = table(deck, rules={"preset": "french", "hands_per_episode": 2})
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P1, "SPLIT"), (P1, "HIT_UP"), (P1, "SPLIT")])
    play(e, [(P1, "HIT_UP"), (P1, "STAND"), (P1, "BET_1"), (P1, "HIT_UP")])
    assert legal(e) == {"SPLIT", "KEEP"}


_INF = float("inf")
QUATTRO = "quattro_e_mezzo"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"limit": 1e308}, "'limit': limit must be 0..15 points, got 1e+308"),
        ({"limit": _INF}, "limit must be 0..15 points"),
        ({"limit": float("nan")}, "limit must be 0..15 points"),
        ({"limit": 16}, "limit must be 0..15 points"),
        ({"min_stand": -_INF}, "min_stand must be 0..15 points"),
        ({"preset": QUATTRO, "declare": [4.5, 1e308]}, "declare must be 0..15 points"),
        ({"preset": QUATTRO, "bank_totals": [_INF]}, "bank_totals must be 0..15 points"),
        ({"preset": QUATTRO, "wild_loses_ties_at": [1e308]}, "wild_loses_ties_at must be 0..15 points"),
        ({"preset": QUATTRO, "ranking": [_INF]}, "ranking must be 0..15 points"),
        ({"preset": QUATTRO, "upset": [1e308, 4.5]}, "upset must be 0..15 points"),
        ({"preset": QUATTRO, "instant_win": [_INF, 9]}, "instant_win must be 0..15 points"),
        ({"preset": QUATTRO, "points_table": [{"total": 1e308, "points": 1}]}, "points_table total must be 0..15"),
        ({"bet_levels": [1, 10**400]}, "bet_levels must be at most 1,000,000,000"),
        ({"hands_per_episode": 10**400}, "'hands_per_episode': Input should be less than or equal to 1000000000"),
        ({"starting_chips": 10**10}, "'starting_chips': Input should be less than or equal to 1000000000"),
        ({"side_bets": True, "side_bet_stake": 10**400}, "'side_bet_stake': Input should be less than or equal"),
    ],
)
def test_numbers_the_rules_cannot_hold_are_refused_with_the_field_and_its_range(options, message):
    # before: an OverflowError (int(v * 2) on infinity; a float of a huge int) out of the validation
    from siete_env import resolve_rules

    with pytest.raises(ValueError, match="invalid rules") as err:
        resolve_rules(options)
    assert message in str(err.value)


def test_a_seven_and_the_wild_rank_by_the_sevens_suit():
    # triplee_wild: seven_half: a 7 and the matta (of any suits) are a reale; its suit is
    # the 7's, not its first card's. P1 the matta 12o (denari) then 7b (bastoni); the
    # banker 7c + 10c, a reale of coppe: coppe ranks above bastoni, the banker keeps the bank.
    rules = {"preset": ITALIAN, "triplee": True, "triplee_wild": "seven_half"}
    e = table(["12o", "7c", "7b", "10c"], rules=rules)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "HIT_UP")])
    g = e.game
    assert g.is_reale(g.slot(1)) and g.is_reale(g.slot(0))
    assert e.game.new_banker == -1  # read from the 12o (denari) it took the bank
    # the 7 first, the matta second: the same
    e = table(["7b", "7c", "12o", "10c"], rules=rules)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "HIT_UP")])
    assert e.game.new_banker == -1
    # against a banker's reale of spade, the 7 of coppe with the matta takes the bank
    e = table(["12o", "7e", "7c", "10e"], rules=rules)
    play(e, [(P1, "BET_1"), (P1, "HIT_UP"), (P0, "HIT_UP")])
    assert e.game.new_banker == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"preset": ITALIAN, "triplee": True, "triplee_takes_bank": False},
            "triplee_takes_bank: false does nothing with bank_passes: reale",
        ),
        (
            {"triplee": True, "triplee_takes_bank": False, "bank_passes": "never"},
            "triplee_takes_bank: false does nothing with bank_passes: never",
        ),
        (
            {"preset": ITALIAN, "split_first_hand_only": True},
            "split_first_hand_only: true does nothing with max_splits: 0",
        ),
        ({"split_first_hand_only": True, "max_splits": 0}, "split_first_hand_only: true does nothing"),
    ],
)
def test_options_that_would_silently_do_nothing_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        raw_env(rules=options)
    # where they matter they are accepted
    raw_env(rules={"triplee": True, "triplee_takes_bank": False, "bank_passes": "seven_half"})
    raw_env(rules={"preset": "french", "split_first_hand_only": True})


def test_the_guide_says_what_burn_does_under_these_rules():
    from siete_env.guide import describe_action, player_guide
    from siete_env.rules import resolve_rules

    plain = resolve_rules({"preset": ITALIAN, "burn_three_four": True})
    drawn = resolve_rules({"preset": ITALIAN, "burn_three_four": True, "burn_drawn": True})
    assert describe_action("BURN", plain) == describe_action("BURN") == "burn your initial 3 or 4 for the top card"
    assert "just drawn" in describe_action("BURN", drawn)
    assert any("Burning: an initial 3 or 4 may" in line for line in player_guide(plain))
    assert any("or one just drawn face-up" in line for line in player_guide(drawn))
    assert not any("Burning" in line for line in player_guide(resolve_rules(ITALIAN)))
