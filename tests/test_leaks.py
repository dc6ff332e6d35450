"""No observation carries another seat's face-down card, the deck order, or anything
derived from them: two decks that differ only in one hidden card give every other seat
identical observations until that card is shown."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from siete_env import PRESETS, raw_env, resolve_rules
from siete_env.cards import CARD_IDS

presets = st.sampled_from(sorted(PRESETS))


def _twin_tables(seed, n, position, rules):
    """Two envs whose decks differ only by swapping the card dealt at ``position`` of the
    initial deal with the deck's last card (which no small table ever reaches)."""
    cards = resolve_rules(rules).deck_cards()
    order = [cards[i] for i in np.random.default_rng(seed).permutation(len(cards))]
    other = list(order)
    other[position], other[-1] = other[-1], other[position]
    envs = []
    for deck in (order, other):
        e = raw_env(num_players=n, rules=rules)
        e.reset(seed=seed, options={"deck": [CARD_IDS[c] for c in deck], "banker": 0})
        envs.append(e)
    return envs, order[position], other[position]


def _compare_until_shown(envs, owner, cards, seed):
    a, b = envs
    owner_slot = a.game.slot(owner, 0)
    rng = np.random.default_rng(seed)
    compared = 0
    for agent in a.agent_iter(max_iter=2000):
        hidden_a = a.game.hidden[owner_slot] == cards[0]
        hidden_b = b.game.hidden[owner_slot] == cards[1]
        if not (hidden_a and hidden_b) or b.game.pos >= len(b.game.deck) - 1 or a.game.hand_no or b.game.hand_no:
            break  # the card was shown (or the decks' last card came into play, or the hand ended)
        if agent != b.agent_selection:
            break  # the owner's play diverged (e.g. 7½ stands by itself in one of the twins)
        for seat, other in enumerate(a.possible_agents):
            if seat == owner or other not in a.agents:
                continue
            oa, ob = a.observe(other), b.observe(other)
            np.testing.assert_array_equal(
                oa["observation"], ob["observation"], err_msg=f"{other} sees {owner}'s hidden card"
            )
            np.testing.assert_array_equal(oa["action_mask"], ob["action_mask"])
            assert a.infos[other] == b.infos[other]
            compared += 1
        obs, _, term, trunc, _ = a.last()
        if term or trunc:
            break
        mask_b = b.observe(agent)["action_mask"]
        if not np.array_equal(obs["action_mask"], mask_b):
            break  # only the owner's options can differ (e.g. a split); it acts differently now
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        a.step(action)
        b.step(action)
    return compared


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1), n=st.integers(2, 8), first=st.booleans(), sessions=st.integers(1, 2), preset=presets
)
def test_a_punters_hidden_card_never_reaches_another_seat(seed, n, first, sessions, preset):
    # banker 0: the punters are seats 1..n-1 in turn order; deal position i goes to seat i+1.
    position = 0 if first else n - 2
    envs, x, y = _twin_tables(seed, n, position, {"preset": preset, "hands_per_episode": sessions})
    assert x != y
    _compare_until_shown(envs, position + 1, (x, y), seed)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 6), preset=presets)
def test_the_bankers_hidden_card_never_reaches_a_punter(seed, n, preset):
    envs, x, y = _twin_tables(seed, n, n - 1, preset)  # the banker's card is dealt last
    _compare_until_shown(envs, 0, (x, y), seed)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("n", [2, 4, 8])
def test_no_leak_for_every_preset_at_2_4_8_players(preset, n):
    for seed in range(4):
        for position, owner in ((0, 1), (n - 2, n - 1), (n - 1, 0)):  # first, last punter; banker
            envs, x, y = _twin_tables(seed, n, position, {"preset": preset})
            _compare_until_shown(envs, owner, (x, y), seed)


def test_leak_check_compares_something():
    # The check above must really compare observations (not stop at once).
    envs, x, y = _twin_tables(11, 4, 0, None)
    assert _compare_until_shown(envs, 1, (x, y), 11) > 0


def test_state_has_the_hidden_cards_but_no_observation_does():
    envs, x, y = _twin_tables(5, 3, 0, None)
    a, b = envs
    assert not np.array_equal(a.state(), b.state())
    for agent in ("player_0", "player_2"):
        np.testing.assert_array_equal(a.observe(agent)["observation"], b.observe(agent)["observation"])
    assert not np.array_equal(a.observe("player_1")["observation"], b.observe("player_1")["observation"])


def test_deck_order_is_not_observed():
    # Same dealt cards, different undealt order: every observation identical.
    order = np.random.default_rng(2).permutation(40).tolist()
    shuffled_tail = order[:3] + order[3:][::-1]
    obs = []
    for deck in (order, shuffled_tail):
        e = raw_env(num_players=3)
        e.reset(seed=0, options={"deck": [CARD_IDS[c] for c in deck], "banker": 0})
        obs.append([e.observe(a)["observation"] for a in e.possible_agents])
    for oa, ob in zip(*obs, strict=True):
        np.testing.assert_array_equal(oa, ob)


@pytest.mark.parametrize("preset", ["spanish", "latin", "french", "spanish_full"])
@pytest.mark.parametrize("n", [2, 4])
def test_later_face_down_cards_never_reach_another_seat(preset, n):
    # max_face_down: all (002): the first punter's first hit (the card dealt right after the
    # initial deal) comes face-down beside its hidden first card; twin decks that differ in
    # that card look the same to every other seat until it is shown.
    rules = {"preset": preset, "max_face_down": "all"}
    compared = 0
    for seed in range(6):
        envs, x, y = _twin_tables(seed, n, n, rules)
        a, b = envs
        slot = a.game.slot(1, 0)
        rng = np.random.default_rng(seed)
        for agent in a.agent_iter(max_iter=500):
            hid_a = {a.game.hidden[slot], *a.game.more_hidden[slot]}
            hid_b = {b.game.hidden[slot], *b.game.more_hidden[slot]}
            if a.game.pos > n and not (x in hid_a and y in hid_b):
                break  # drawn and shown in either twin (e.g. a bust in one of them), or not to that hand
            if agent != b.agent_selection or a.game.hand_no:
                break
            for other in a.possible_agents[:1] + a.possible_agents[2:]:
                if other in a.agents:
                    np.testing.assert_array_equal(a.observe(other)["observation"], b.observe(other)["observation"])
                    assert a.infos[other] == b.infos[other]
            obs, _, term, trunc, _ = a.last()
            if term or trunc:
                break
            if not np.array_equal(obs["action_mask"], b.observe(agent)["action_mask"]):
                break  # only the owner's options differ (a split, 7½): it acts differently now
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(len(legal))])
            a.step(action)
            b.step(action)
            compared += a.game.pos > n
    assert compared > 0  # some steps were compared with the later card hidden


@pytest.mark.parametrize(
    "rules",
    [
        {"preset": "french", "face_down_choice": False, "split_first_hand_only": True},
        {"preset": "italian", "burn_three_four": True, "burn_drawn": True, "wild_whole_only": True},
        {
            "preset": "italian",
            "triplee": True,
            "triplee_wild": "seven_half",
            "triplee_takes_bank": False,
            "bank_passes": "seven_half",
        },
        {"max_face_down": "all"},
    ],
)
@pytest.mark.parametrize("n", [2, 4])
def test_no_leak_with_the_source_options(rules, n):
    for seed in range(4):
        for position, owner in ((0, 1), (n - 2, n - 1), (n - 1, 0)):  # first, last punter; banker
            envs, x, y = _twin_tables(seed, n, position, rules)
            _compare_until_shown(envs, owner, (x, y), seed)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("n", [2, 4, 7])
def test_no_leak_through_the_batched_engine(preset, n):
    """The batched engine's observations (``BatchedTables.observe``, every seat's): twin
    decks that differ only in the first punter's or the banker's face-down card, with the
    same random actions, look the same to every other seat until the card is shown (and
    to every seat before it is dealt: the auction of ``spanish_full``)."""
    pytest.importorskip("numba")
    from siete_env.batched import BatchedTables
    from siete_env.batched import kernels as K

    tables = 48
    rng = np.random.default_rng([n, len(preset)])
    twins = [BatchedTables(tables, n, preset), BatchedTables(tables, n, preset)]
    a, b = twins
    S = n * a.H
    decks = rng.permuted(np.tile(a.deck_cards, (tables, 1)), axis=1)
    position = np.where(np.arange(tables) % 2 == 0, 0, n - 1)  # the first punter's card, the banker's
    other = decks.copy()
    rows = np.arange(tables)
    other[rows, position], other[rows, -1] = decks[rows, -1], decks[rows, position]
    a.start(None, 0, decks)
    b.start(None, 0, other)
    x = decks[rows, position]
    hid, nc, cards, maxc = a.cfg[K.O_HID], a.cfg[K.O_NC], a.cfg[K.O_CARDS], a.cfg[K.K_MAXC]
    compared = 0
    live = rows.copy()
    dealt = np.zeros(tables, bool)
    for _ in range(200):
        keep = []
        owners = []
        for g in live:
            sa, sb = a.state[g], b.state[g]
            if sa[K.PHASE] == K.P_OVER or sa[K.POS] >= sa[K.DLEN] - 1:
                continue  # over, or the decks' last card came into play
            if sa[K.PHASE] != sb[K.PHASE] or sa[K.SEAT] != sb[K.SEAT]:
                continue  # the owner's play diverged (7½ stands by itself in one of the twins)
            places = []
            for row, card in ((sa, x[g]), (sb, other[g, position[g]])):
                held = [k for k in range(S) if card in row[cards + k * maxc : cards + k * maxc + row[nc + k]]]
                places.append(held[0] if held and row[hid + held[0]] == card else (-1 if not held else -2))
            if -2 in places or places[0] != places[1] or (dealt[g] and places[0] < 0):
                continue  # shown in a twin (or swapped back into the deck, shown)
            dealt[g] |= places[0] >= 0
            keep.append(g)
            owners.append(places[0] // a.H if places[0] >= 0 else -1)  # -1: not dealt yet
        live, owners = np.array(keep, np.int64), np.array(owners)
        if not len(live):
            break
        for seat in range(n):
            sel = owners != seat
            if not sel.any():
                continue
            oa, ma = a.observe(live[sel], seat)
            ob, mb = b.observe(live[sel], seat)
            np.testing.assert_array_equal(oa, ob, err_msg=f"{preset} n={n}: seat {seat} sees a hidden card")
            np.testing.assert_array_equal(ma, mb)
            compared += int(sel.sum())
        ma, mb = a.legal_masks(live), b.legal_masks(live)
        same = (ma == mb).all(axis=1)  # only the owner's options can differ (a split): stop there
        live = live[same]
        actions = (rng.random(ma[same].shape) * ma[same]).argmax(axis=1)
        a.apply(live, actions)
        b.apply(live, actions)
    assert compared > 0
