"""Every observation equals one built from scratch from the game state by an independent,
slow reference (a different method: no event log, no incremental updates), for every seat
at every step, across presets, table sizes and options."""

from __future__ import annotations

import numpy as np
import pytest

from siete_env import PRESETS, raw_env
from siete_env.encoding import GlobalFeature
from siete_env.game import EV_DEAL, EV_RETURN, EV_REVEAL
from siete_env.rules import fit_overrides

HANDS_DONE, CARDS_LEFT = GlobalFeature.HANDS_DONE, GlobalFeature.CARDS_LEFT


def reference_observation(env, o: int) -> np.ndarray:
    g, L = env.game, env.layout
    n, H = g.n, g.H
    out = np.zeros(L.size, np.float32)
    shown_out = set()  # shown leaving a hand (swap, burn) and not seen face-up since
    for ev in g.events[g.last_new_hand :]:
        if ev[0] == EV_RETURN:
            shown_out.add(ev[1])
        elif (ev[0] == EV_DEAL and ev[4]) or ev[0] == EV_REVEAL:
            shown_out.discard(ev[1])
    for c in shown_out:
        out[L.returned(c)] = 1
    if L.shoe:
        for c in g.seen_shoe:
            out[L.seen_in_shoe(c)] = 1
    blind = g.blind if g.blind else [-1] * (n * H)
    for s in range(n):
        r = (s - o) % n
        for h in range(H):
            k = s * H + h
            hb = L.hand(r, h)
            seen = []
            hidden = {g.hidden[k], *(g.more_hidden[k] if g.more_hidden else ())} - {-1}
            for c in g.cards[k]:
                if c == blind[k]:
                    continue
                if c not in hidden or s == o:
                    out[L.card(c, r, h)] = 1
                    seen.append(c)
            if s == o:
                for c in hidden:
                    out[L.own_face_down(c)] = 1
            out[hb + g.status[k]] = 1
            out[hb + 5] = g.stake[k]
            out[hb + 6] = len(g.cards[k])
            out[hb + 7] = g.hidden[k] >= 0 or blind[k] >= 0
            out[hb + 8] = g.hand_total(seen, -1 if (g.ace_half and g.ace_half[k]) else 0) / 2
        sb = L.seat(r)
        out[sb] = s == g.banker
        out[sb + 1] = s == g.acting_seat
        out[sb + 2] = g.chips[s]
        out[sb + 3] = g.announced[s] if g.announced else 0
        out[sb + 4] = g.bids[s] if g.phase == 5 else 0
        out[sb + 5] = len(g.side_on[s]) * g.rules.side_bet_stake if g.side_on else 0
    ph = g.phase
    if ph == 2 and o != g.seat:
        ph = 1  # only the deciding punter sees the split phase
    out[L.GLOBAL + ph] = 1
    out[L.GLOBAL + HANDS_DONE] = g.hand_no
    out[L.GLOBAL + CARDS_LEFT] = g.cards_left()
    return out


EXTRAS = [
    {},
    {"hands_per_episode": 6},
    {"hands_per_episode": 4, "starting_chips": 5},
    {"split_any_pair": True, "hands_per_episode": 3},
    {"ace_half": True, "triplee": True, "hands_per_episode": 3},
    {"side_bets": True, "hands_per_episode": 2},
]


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("n", [2, 3, 5, 8, 12])
def test_observations_match_a_from_scratch_reference(preset, n):
    for seed, extra in enumerate(EXTRAS):
        if extra.get("side_bets") and n < 3:
            continue  # refused heads-up (check_table): a side bet backs another punter
        _check_against_reference({"preset": preset, **fit_overrides(preset, extra)}, n, seed)


# Rules whose options no preset takes, with several hidden cards per hand.
OPTION_RULES = [
    {"max_face_down": "all", "hands_per_episode": 3},
    {"preset": "spanish_full", "max_face_down": "all", "split_any_pair": True, "hands_per_episode": 2},
    {"preset": "french", "max_face_down": "all", "hands_per_episode": 2},
    {"preset": "italian", "wild_whole_only": True, "hands_per_episode": 3},
    {"preset": "italian", "burn_three_four": True, "burn_drawn": True, "hands_per_episode": 3},
    {"burn_three_four": True, "burn_drawn": True, "four_swap": "off", "split_any_pair": True, "hands_per_episode": 2},
    {"preset": "italian", "triplee": True, "triplee_wild": "seven_half", "hands_per_episode": 3},
    {"preset": "french", "face_down_choice": False, "split_first_hand_only": True, "hands_per_episode": 3},
]


@pytest.mark.parametrize("rules", OPTION_RULES)
@pytest.mark.parametrize("n", [2, 3, 6])
def test_observations_match_the_reference_with_options(rules, n):
    for seed in range(3):
        _check_against_reference(rules, n, seed)


def _check_against_reference(rules, n, seed):
    """Random play (the rarer mechanics favoured), every observation checked at every step."""
    e = raw_env(num_players=n, rules=rules)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    names = e.action_names
    for _agent in e.agent_iter(3000):
        for i, a in enumerate(e.possible_agents):
            if a in e.agents:
                np.testing.assert_array_equal(e.observe(a)["observation"], reference_observation(e, i), err_msg=a)
                assert e.infos[a] == e._info(i), f"stale infos[{a}]"
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        # favour the rarer mechanics so that they are exercised
        rare = [a for a in legal if names[a] in ("SWAP_FOUR", "SPLIT", "BURN", "FUSILAR", "SELL_BANK", "ACE_HALF")]
        hits = [a for a in legal if names[a].startswith("HIT")]
        if rare and rng.random() < 0.7:
            a = rng.choice(rare)
        elif hits and rng.random() < 0.6:
            a = rng.choice(hits)
        else:
            a = rng.choice(legal)
        e.step(int(a))
