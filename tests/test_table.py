"""The AEC environment's table (``siete_env.table.Table``, one row of the kernels): amounts
beyond ``int16``, what it refuses, and what it says happened."""

from __future__ import annotations

import numpy as np
import pytest

from siete_env import raw_env


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
