"""The ``rgb_array`` frames and the card faces: no text clipped at any table size of any
preset, frames sized to the table, every card drawn distinctly."""

from __future__ import annotations

import numpy as np
import pytest

from siete_env import raw_env
from siete_env.cardart import DECKS, card_back, card_face, card_png, card_size
from siete_env.cards import N_CARDS
from siete_env.render import frame_shape, table_image
from siete_env.rules import PRESETS


def _check_frame(e, seen: set[str]) -> None:
    boxes: list = []
    frame = table_image(e.game, e.rules.deck, e.rules.hands_per_episode, boxes=boxes)
    h, w, _ = frame.shape
    assert frame.shape == frame_shape(e.game.n, e.game.hands_per_seat)
    assert boxes, "no text drawn"
    for b in boxes:
        x0, y0, x1, y1 = b.drawn
        ax0, ay0, ax1, ay1 = b.allowed
        assert 0 <= x0 and 0 <= y0 and x1 <= w and y1 <= h, f"{b.text!r} leaves the frame {w}x{h}: {b.drawn}"
        assert ax0 <= x0 and ay0 <= y0 and x1 <= ax1 and y1 <= ay1, f"{b.text!r} leaves its box {b.allowed}: {b.drawn}"
        seen.add(b.text)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_no_text_leaves_its_box_at_any_table_size(preset):
    """Every text of every frame of a random hand, 2-12 seats: inside its box and the frame."""
    rng = np.random.default_rng(7)
    for n in range(2, 13):
        e = raw_env(num_players=n, rules=preset)
        e.reset(seed=n)
        seen: set[str] = set()
        _check_frame(e, seen)
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if e.agents:
                _check_frame(e, seen)
        _check_frame(e, seen)
        assert any(t.startswith("player 1") or t == f"player {n - 1}" for t in seen)
        assert not any(t.endswith("…") for t in seen if t.startswith("player")), "a seat's name was cut"


def test_frames_are_sized_to_the_table():
    """No mostly empty rows: the frame grows with the seats, one column up to four seats."""
    heights = [frame_shape(n, 1)[0] for n in range(2, 13)]
    assert heights[0] < 320 and max(heights) < 820 and frame_shape(12, 4)[0] < 820
    assert frame_shape(4, 1)[1] < frame_shape(5, 1)[1]  # two columns from five seats
    for n in range(2, 13):
        for H in (1, 4):
            h, w, _ = frame_shape(n, H)
            assert h % 16 == 0 and w % 16 == 0 and w <= 1100


@pytest.mark.parametrize("deck", DECKS)
def test_every_card_face_differs_and_backs_are_one_picture(deck):
    faces = [np.asarray(card_face(c, deck, 46)) for c in range(N_CARDS)]
    assert faces[0].shape == (*card_size(46)[::-1], 4)
    distinct = {f.tobytes() for f in faces}
    assert len(distinct) == N_CARDS
    assert card_back(46) is card_back(46)  # drawn once
    assert card_png(6, deck).startswith(b"\x89PNG")


def test_bad_card_or_deck_is_refused():
    with pytest.raises(ValueError, match="cards are 0..39"):
        card_face(40)
    with pytest.raises(ValueError, match="decks: spanish, italian, french"):
        card_face(0, "tarot")
    with pytest.raises(ValueError, match="unknown card id"):
        card_png("13o")
