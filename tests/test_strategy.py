"""Strategy maps recorded from known deterministic policies, and the figures."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.strategy import FIRST_CARDS, HIDDEN_LABELS, TOTALS, StrategyRecorder
from agents.tournament import play_match


@pytest.fixture(scope="module")
def recorded():
    """3000 heads-up hands of threshold:5.5 (seat 1) against banker:6 (seat 0)."""
    banker = StrategyRecorder.for_table(seats=[0])
    punter = StrategyRecorder.for_table(seats=[1])
    both = StrategyRecorder.for_table(seats=[0, 1])

    def rec(seat, obs, action):
        banker(seat, obs, action)
        punter(seat, obs, action)
        both(seat, obs, action)

    play_match("banker:6", "threshold:5.5", hands=3000, seed=3, recorder=rec)
    return banker, punter, both


def _cells(grid):
    """(row, col, value) of the cells with data."""
    return [(i, j, v) for i, row in enumerate(grid) for j, v in enumerate(row) if v is not None]


def test_roles_are_kept_apart(recorded):
    banker, punter, _ = recorded
    bm, pm = banker.maps(), punter.maps()
    assert bm["decisions"]["bet"] == bm["decisions"]["draw"] == 0
    assert bm["decisions"]["banker"] > 1000
    assert pm["decisions"]["banker"] == 0
    assert pm["decisions"]["bet"] == 3000  # one bet a hand (no splits: threshold keeps)
    assert all(v is None for row in bm["stand_hit"]["p_stand"] for v in row)
    assert all(v is None for row in pm["banker"]["p_hit"] for v in row)


def test_threshold_punter_stands_at_five_and_a_half(recorded):
    m = recorded[1].maps()["stand_hit"]
    cells = _cells(m["p_stand"])
    assert len(cells) > 40
    for i, j, p in cells:
        assert p == (1.0 if TOTALS[i] >= 5.5 else 0.0), (TOTALS[i], j + 1, p)
        assert m["n"][i][j] > 0
    # Every total from ½ to 7 is seen, and a 1-card hand only at ½ and whole totals.
    assert {i for i, _, _ in cells} == set(range(14))
    assert all(m["p_stand"][i][0] is None for i in range(14) if TOTALS[i] % 1 == 0.5 and TOTALS[i] > 0.5)


def test_threshold_punter_hides_low_cards(recorded):
    m = recorded[1].maps()["face_down"]
    cells = _cells(m["p_down"])
    assert len(cells) > 20
    for i, j, p in cells:
        hidden = HIDDEN_LABELS[j]
        assert hidden != "none"  # heads-up without splits it always holds a face-down card
        assert p == (1.0 if hidden < 4 else 0.0), (TOTALS[i], hidden, p)
        assert TOTALS[i] < 5.5  # it only hits below its threshold
    assert {HIDDEN_LABELS[j] for _, j, _ in cells} >= {0.5, 1.0, 2.0, 3.0, 4.0, 5.0}


def test_threshold_punter_bets_one_and_never_swaps_or_raises(recorded):
    m = recorded[1].maps()
    st = m["stake"]
    assert st["first_card"] == FIRST_CARDS and st["levels"] == [1, 2, 3, 4, 5]
    assert st["mean"] == [1.0] * 8
    assert st["dist"] == [[1.0, 0.0, 0.0, 0.0, 0.0]] * 8
    assert sum(st["n"]) == 3000 and min(st["n"]) > 100
    assert st["swap_four"]["n"] == st["n"][FIRST_CARDS.index(4.0)] and st["swap_four"]["p"] == 0.0
    r = m["raise"]
    assert r["p_raise"][0] is None  # a raise is never legal on the first decision after the bet
    assert [p for p in r["p_raise"] if p is not None] == [0.0] * 13


def test_banker_hits_below_six(recorded):
    m = recorded[0].maps()["banker"]
    cells = _cells(m["p_hit"])
    assert len(cells) > 50
    for i, j, p in cells:
        assert p == (1.0 if TOTALS[i] < 6 else 0.0), (TOTALS[i], m["cols"][j], p)
    assert {i for i, _, _ in cells} == set(range(14))
    # Heads-up the threshold punter always keeps a face-down card: nothing in the face-up panel.
    assert _cells(m["p_hit_face_down"]) == cells
    assert _cells(m["p_hit_face_up"]) == []
    assert np.array(m["n"]).sum() == np.array(m["n_face_down"]).sum()


def test_merge_and_json(recorded):
    banker, punter, both = recorded
    merged = StrategyRecorder.for_table(seats=[0]).merge(banker).merge(punter)
    assert merged.maps() == both.maps()
    json.loads(json.dumps(both.maps()))
    with pytest.raises(ValueError):
        merged.merge(StrategyRecorder.for_table(seats=[1], rules="french"))


def test_banker_sees_the_best_standing_punter_hand():
    """Three players: the banker's column is the highest face-up total of the standing hands."""
    rec = StrategyRecorder.for_table(seats=[0], num_players=3)
    play_match("banker:6", "threshold:5.5", num_players=3, hands=300, seed=1, recorder=rec)
    m = rec.maps()["banker"]
    assert m["cols"][int(np.nonzero(np.array(m["n"]).sum(axis=0))[0].max())] <= 5.0
    assert all(p == (1.0 if TOTALS[i] < 6 else 0.0) for i, _, p in _cells(m["p_hit"]))


def test_plots_write_pngs(recorded, tmp_path):
    from agents.plots import plot_learning_curves, plot_strategy_maps, plot_tournament

    banker, punter, _ = recorded
    paths = [
        plot_strategy_maps({"threshold:5.5": punter.maps(), "banker:6": banker.maps()}, str(tmp_path / "m.png"), "t"),
        plot_strategy_maps({}, str(tmp_path / "empty.png")),
        plot_learning_curves(
            {
                "generation": [1, 2, 3],
                "punter vs banker:6": [-0.2, -0.1, None],
                "punter vs banker:6_ci": [0.05] * 3,
                "nash_conv": [0.5, 0.2, 0.1],
            },
            str(tmp_path / "c.png"),
        ),
        plot_tournament(
            {"punters": ["a", "b"], "bankers": ["x"], "mean": [[-0.1], [0.2]], "ci": [[0.01], [None]]},
            str(tmp_path / "t.png"),
        ),
    ]
    for p in paths:
        with open(p, "rb") as f:
            head = f.read(8)
        assert head == b"\x89PNG\r\n\x1a\n"
        assert (tmp_path / p.split("/")[-1]).stat().st_size > 5000
