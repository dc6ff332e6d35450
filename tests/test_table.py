"""The AEC environment's table (``siete_env.table.Table``, one row of the kernels): amounts
beyond ``int16``, what it refuses, and what it says happened."""

from __future__ import annotations

import numpy as np
import pytest

from siete_env import raw_env
from siete_env.cards import CARD_IDS
from siete_env.rules import resolve_rules
from siete_env.table import Table


def test_amounts_beyond_int32_are_exact():
    # a stake of 10^9 at six seats moves more than 2^31 chips: the row is int64
    e = raw_env(num_players=6, rules={"preset": "spanish", "bet_levels": [10**9]})
    for seed in range(5):
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _agent in e.agent_iter():
            obs, _r, term, trunc, _i = e.last()
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        chips = e.game.chips
        assert sum(chips) == 0 and all(c % 10**9 == 0 for c in chips), chips
        assert e.game.row.dtype == np.int64


def test_play_match_takes_amounts_beyond_int16_to_the_aec_table():
    # beside the test above (one pytest-xdist worker a file): the int64 row compiles once
    from agents.tournament import play_match

    huge = {"bet_levels": [1, 5000]}  # amounts beyond the batched kernels' int16
    assert play_match("banker:6", "threshold:5.5", rules=huge, hands=50).extra["engine"] == "aec"
    with pytest.raises(ValueError, match="can move 80,000 chips"):
        play_match("banker:6", "threshold:5.5", rules=huge, hands=5, engine="batched")


def test_more_than_63_actions_are_refused_with_the_count():
    with pytest.raises(ValueError, match="69 actions"):
        raw_env(num_players=3, rules={"preset": "spanish", "bet_levels": list(range(1, 33))})


def test_a_declared_double_is_not_an_instant_win():
    # 4 + the wild card (the re of denari) is a double under double_rank 4; its total 4½ in
    # two cards is also instant_win's, but the double is declared first: it stands, no one
    # has won the game at once
    rules = {"preset": "quattro_e_mezzo", "double_rank": 4, "instant_win": [4.5, 2]}
    e = raw_env(num_players=2, rules=rules)
    e.reset(options={"deck": ["4o", "5c", "12o"], "banker": 0})
    e.step(e.action_id("HIT_UP"))
    g = e.game
    assert g.double[1] and g.instant == -1


def _chosen_episode(rules, n: int, seed: int):
    """An episode of a ``chosen`` table (OpenSpiel's chance nodes): every card drawn at
    random from the outcomes offered, random legal actions. Returns the first banker, the
    cards dealt, the actions, the final view and whether a swapped 4 was the only outcome."""
    eng = Table(rules, n, chosen=True)
    rng = np.random.default_rng(seed)
    banker = int(rng.integers(n))
    cards: list[int] = []
    actions: list[int] = []
    row, pending, used, forced_four = None, banker, 0, False
    while True:
        new, k, need = eng.deal_chosen(row, pending, cards[used:])
        if need is not None:
            assert need and need == sorted(need)
            if need[0] in cards:  # dealt before: only a swapped 4, the one outcome where it was put back
                assert len(need) == 1 and CARD_IDS[need[0]].startswith("4")
                forced_four = True  # the swapped 4 where the rules put it back
            cards.append(int(rng.choice(need)))
            continue
        used += k
        assert used == len(cards)
        row, view = new, eng.on(new)
        legal = view.legal_actions()
        if not legal:
            return banker, cards, actions, view, forced_four
        keen = [a for a in legal if eng.actions[a].name in ("SWAP_FOUR", "HIT_UP", "HIT_DOWN")]
        pending = int(rng.choice(keen if keen and rng.random() < 0.7 else legal))  # many cards dealt
        actions.append(pending)


@pytest.mark.parametrize("preset,n", [("spanish", 12), ("spanish", 2), ("italian", 4), ("spanish_full", 3)])
def test_chosen_cards_play_as_the_same_deck_would(preset, n):
    # the chosen table deals exactly what the kernels deal from a deck in that order (each
    # swapped 4 dealt again where the rules put it back, the only outcome there)
    rules = resolve_rules({"preset": preset, "hands_per_episode": 1})
    eng = Table(rules, n)
    out_a, out_b = np.empty(eng.layout.size, np.float32), np.empty(eng.layout.size, np.float32)
    forced = 0
    for seed in range(40):
        banker, cards, actions, view, forced_four = _chosen_episode(rules, n, seed)
        forced += forced_four
        first = list(dict.fromkeys(cards))  # a returned 4 comes again from its place in the deck
        eng.start(banker, first + [c for c in rules.deck_cards() if c not in first], seed=0)
        for a in actions:
            eng.apply(a)
        assert eng.chips == view.chips and eng.phase == view.phase
        assert [c for cs in eng.cards for c in cs] == [c for cs in view.cards for c in cs]
        for s in range(n):
            eng.observe(s, out_a)
            view.observe(s, out_b)
            assert np.array_equal(out_a, out_b)
    if preset == "spanish" and n == 12:
        assert forced > 0  # the forced 4 was met
