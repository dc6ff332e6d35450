"""The one-line "why" of each result (``siete_env.render.explain_result``) on stacked decks,
the hand counter, and that the why comes from the outcome that paid (``settle.Payouts``)."""

from __future__ import annotations

import numpy as np
import pytest

from siete_env import raw_env
from siete_env.game import EV_PAY, EV_RESULT
from siete_env.render import header_text, result_lines
from siete_env.rules import PRESETS
from siete_env.view import event_lines, seat_view

from .helpers import play, table


def _why(e, me=1):
    return result_lines(e.game, me)


def test_banker_busts():
    e = table(["5o", "12b", "1b", "5c", "3e"])
    play(e, ["BET_2", "HIT_UP", "STAND", "HIT_UP", "HIT_UP"])
    assert _why(e) == ["you stood on 6, the banker busts with 8½ — you win 2 chips"]
    assert _why(e, 0) == ["player 1 stood on 6, you bust with 8½ — you lose 2 chips"]
    assert result_lines(e.game) == ["player 1 stood on 6, the banker busts with 8½ — player 1 wins 2 chips"]


def test_tie_goes_to_the_banker():
    e = table(["7o", "7c"])
    play(e, ["BET_1", "STAND", "STAND"])
    assert _why(e) == ["tie at 7: ties go to the banker — you lose 1 chip"]


def test_seven_and_a_half_is_paid_double():
    e = table(["7o", "5c", "12b", "2e"])
    play(e, ["BET_1", "HIT_UP", "HIT_UP", "STAND"])  # 7½ stands at once; the banker 5 draws 2: 7
    assert _why(e) == ["7½ against 7: paid double — you win 2 chips"]


def test_punter_bust_and_lower_total():
    e = table(["7o", "5c", "6b"])
    play(e, ["BET_1", "HIT_UP"])
    assert _why(e) == ["you bust with 13 (over 7½) — you lose 1 chip"]
    e = table(["5o", "6c"])
    play(e, ["BET_3", "STAND", "STAND"])
    assert _why(e) == ["you stood on 5, the banker on 6: the higher total wins — you lose 3 chips"]
    e = table(["6o", "5c", "1b"])  # the punter stands on 6; the banker's 5 draws an ace: 6
    play(e, ["BET_1", "STAND", "HIT_UP", "STAND"])
    assert _why(e) == ["tie at 6: ties go to the banker — you lose 1 chip"]


def test_the_why_is_in_the_log_and_the_view_and_the_text():
    e = table(["5o", "12b", "1b", "5c", "3e"])
    play(e, ["BET_2", "HIT_UP", "STAND", "HIT_UP", "HIT_UP"])
    assert "you stood on 6, the banker busts with 8½ — you win 2 chips" in event_lines(e, 1)
    v = seat_view(e, 1)
    assert v.why == ("you stood on 6, the banker busts with 8½ — you win 2 chips",)
    assert "why: player 1 stood on 6" in e.table_text()


def test_the_hand_counter_runs_over_episodes():
    e = raw_env(num_players=2)
    e.reset(seed=0)
    assert header_text(e.game, 1, e.hands_before).startswith("hand 1 · betting · ")
    assert "38 cards left in the deck" in e.table_text()
    for n in (2, 3):
        while e.agents:
            e.step(None if (e.terminations[e.agent_selection]) else e.game.legal_actions()[0])
        e.reset()
        assert e.table_text().startswith(f"hand {n} · ")
        assert seat_view(e, 0).hand_no == n
        assert event_lines(e, 0)[0].startswith(f"— hand {n}: ")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_result_is_explained_and_says_what_was_paid(preset):
    """On every preset, random play: each hand's result is explained, and the amount the
    why line states is the payment that followed it."""
    rng = np.random.default_rng(0)
    e = raw_env(num_players=3, rules=preset)
    for ep in range(15):
        e.reset(seed=ep)
        while e.agents:
            a = e.agent_selection
            if e.terminations[a] or e.truncations[a]:
                e.step(None)
                continue
            legal = e.game.legal_actions()
            e.step(int(legal[rng.integers(len(legal))]))
        events = e.game.events
        for i, ev in enumerate(events):
            if ev[0] != EV_RESULT:
                continue
            line = event_lines(e, ev[1], i)[0]
            assert line.endswith(("chip", "point") if abs(ev[4]) == 1 else "s"), line
            assert f" {abs(ev[4])} " in line, line
            if ev[4]:
                nxt = events[i + 1]
                assert nxt[0] == EV_PAY and nxt[3] == abs(ev[4]) and ev[1] in (nxt[1], nxt[2])
        for me in range(3):
            for line in result_lines(e.game, me):
                assert " — " in line
