"""Every baseline agent plays legal moves under every preset (forced banker moves
included: ``hit_below_6``, ``banker_must_chase`` after a canto or a shot)."""

from __future__ import annotations

import pytest

from agents.tournament import play_match
from siete_env.rules import PRESETS

from .tolerance import FLOAT64

PUNTERS = ["random", "threshold:5.5", "bold:5.5", "threshold:7", "quattro:6"]
BANKERS = ["random", "banker:6", "smart:6", "banker:4", "quattro:5.5"]


@pytest.mark.parametrize("rules", list(PRESETS))
@pytest.mark.parametrize("n", [2, 4])
def test_baselines_play_every_preset(rules, n):
    for p, b in zip(PUNTERS, BANKERS, strict=True):
        r = play_match(b, p, rules=rules, num_players=n, hands=150, seed=n)
        if PRESETS[rules].get("scoring") == "points":  # points are scored, never lost
            assert all(s.mean >= 0 for s in r.seats) and sum(s.mean for s in r.seats) > 0
        else:
            assert sum(s.mean for s in r.seats) == pytest.approx(0.0, abs=FLOAT64)  # zero-sum


def test_forced_banker_move_is_taken():
    # blackjack_style: the banker must hit below 6 and stand from 6; banker:4 wants to
    # stand at 4 and banker:7 wants to hit at 6.5, neither may.
    for b in ("banker:4", "banker:7", "smart:3"):
        play_match(b, "threshold:5.5", rules="blackjack_style", hands=400, seed=1)
    # spanish_full: after a punter's canto (7½) or shot the banker must chase below 7½.
    play_match("banker:5", "bold:5.5", rules="spanish_full", hands=600, seed=2)
