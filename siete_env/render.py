"""The table as an RGB image (``render_mode="rgb_array"``), drawn with Pillow.

``table_image(game, deck)`` draws what a spectator at the table sees: every seat's face-up
cards (the faces of ``siete_env.cardart``, the same the web table shows), its face-down
cards as **card backs** (the same pixels whatever the card), the stakes, the statuses, the
totals of the face-up cards, the chips (or points), the banker and the seat to act. It reads
the engine's public facts only (which cards are face-up; a face-down card is drawn from
nothing but its place in the hand).

The frame is sized to the table (``frame_shape``): a panel a seat, in one column up to four
seats and two beyond, each panel as wide as its seat's hands need (split hands share it).
A table keeps one size for all its frames, so a video of episodes (Gymnasium's
``RecordVideo``) keeps one size; both sides are multiples of 16, as video encoders like.
Every text is fitted to the box it is given (a smaller size, then an ellipsis): none is
clipped (``table_image(..., boxes=[])`` lists them; a test checks every preset and 2-12 seats).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from .cardart import card_back, card_face, card_size, font
from .cards import format_total
from .game import Game, Phase, Status

CARD_W = 46
CARD_H = card_size(CARD_W)[1]
FAN = 20  # the step between overlapping cards of a hand: the index of each stays in sight
MAX_CARDS = 14  # a hand never holds more below 7½
PAD = 8
LABEL_W = 128  # the seat's name, role, chips
HEADER_H = 30
CAPTION = 15  # a caption line under a hand
PANEL_H = 6 + CARD_H + 4 + 2 * CAPTION + 6

TABLE = (22, 110, 60)
PANEL = (18, 92, 50)
WHITE = (245, 245, 240)
MUTED = (190, 215, 195)
GOLD = (240, 195, 50)
HIGHLIGHT = (255, 225, 90)
_STATUS = {
    Status.EMPTY: "",
    Status.WAITING: "waiting",
    Status.PLAYING: "playing",
    Status.STOOD: "stands",
    Status.BUST: "bust",
}


def _hands_w(hands_per_seat: int) -> int:
    """The width of a seat's hands: seven cards of one hand in full fan, or each of its split
    hands two cards' worth."""
    one = CARD_W + 6 * FAN
    return max(one, hands_per_seat * (CARD_W + 2 * FAN) + (hands_per_seat - 1) * PAD)


def _layout(num_players: int, hands_per_seat: int) -> tuple[int, int, int, int]:
    """(columns, rows, panel width, frame width)."""
    cols = 1 if num_players <= 4 else 2
    rows = math.ceil(num_players / cols)
    panel_w = LABEL_W + _hands_w(hands_per_seat) + 2 * PAD
    return cols, rows, panel_w, cols * panel_w + (cols + 1) * PAD


def _round16(v: int) -> int:
    return -(-v // 16) * 16


def frame_shape(num_players: int, hands_per_seat: int) -> tuple[int, int, int]:
    """The (height, width, 3) of every frame of a table."""
    _, rows, _, width = _layout(num_players, hands_per_seat)
    return (_round16(HEADER_H + rows * (PANEL_H + PAD) + PAD), _round16(width), 3)


@dataclass(frozen=True)
class TextBox:
    """A text drawn: the text, the box it was given and the box its pixels take (both
    ``(x0, y0, x1, y1)``, in the frame)."""

    text: str
    allowed: tuple[int, int, int, int]
    drawn: tuple[int, int, int, int]


class _Canvas:
    def __init__(self, shape: tuple[int, int, int], boxes: list[TextBox] | None):
        # Pillow draws straight into a numpy array (an RGBA image sharing its memory): no
        # copy out of Pillow at the end, the green cloth copied in from one kept array
        self.pixels = _cloth(shape[0], shape[1]).copy()
        self.img = Image.frombuffer("RGBA", (shape[1], shape[0]), self.pixels, "raw", "RGBA", 0, 1)
        self.img.readonly = False
        self.draw = ImageDraw.Draw(self.img)
        self.boxes = boxes

    def frame(self) -> np.ndarray:
        h, w, _ = self.pixels.shape
        out = np.empty((h, w, 3), np.uint8)
        for i in range(3):  # a channel at a time: numpy copies these strides fastest
            out[:, :, i] = self.pixels[:, :, i]
        return out

    def text(self, x: int, y: int, w: int, h: int, s: str, colour, size: int = 12, bold: bool = False) -> None:
        """``s`` with its top-left at ``(x, y)``, fitted to ``w`` x ``h`` pixels (``_fit``)."""
        fitted = _fit(s, w, h, size, bold)
        if fitted is None:
            return
        mask, (x0, y0, x1, y1) = _glyphs(*fitted)
        self.img.paste((*colour, 255), (x + x0, y + y0, x + x1, y + y1), mask)
        if self.boxes is not None:
            self.boxes.append(TextBox(fitted[0], (x, y, x + w, y + h), (x + x0, y + y0, x + x1, y + y1)))

    def paste(self, card: Image.Image, x: int, y: int) -> None:
        self.img.paste(card, (x, y), card)


@functools.lru_cache(maxsize=64)
def _cloth(h: int, w: int) -> np.ndarray:
    out = np.empty((h, w, 4), np.uint8)
    out[:] = (*TABLE, 255)
    return out


@functools.lru_cache(maxsize=4096)
def _fit(s: str, w: int, h: int, size: int, bold: bool) -> tuple[str, int, bool] | None:
    """The text and size that fit ``w`` x ``h``: a smaller size down to 8 px, then cut with
    an ellipsis; ``None`` when nothing fits."""
    for px in range(size, 7, -1):
        f = font(px, bold)
        if f.getlength(s) <= w and px * 1.2 <= h:
            break
    while s and f.getlength(s) > w:
        s = s[:-2] + "…" if len(s) > 1 else ""
    return (s, px, bold) if s else None


@functools.lru_cache(maxsize=4096)
def _glyphs(s: str, px: int, bold: bool) -> tuple[Image.Image, tuple[int, int, int, int]]:
    """A text's pixels as a mask, and the box they take relative to the text's origin
    (drawn once per text and size: the same few texts recur in every frame)."""
    f = font(px, bold)
    box = f.getbbox(s)
    mask = Image.new("L", (box[2] - box[0], box[3] - box[1]), 0)
    ImageDraw.Draw(mask).text((-box[0], -box[1]), s, font=f, fill=255)
    return mask, box


def status_word(status: int) -> str:
    """A hand's status as a word (``waiting``, ``playing``, ``stands``, ``bust``)."""
    return _STATUS[Status(status)]


def face_down_cards(g: Game, k: int) -> set[int]:
    """The cards of hand slot ``k`` that lie face-down (nobody at the table but, for its own
    face-down cards, the seat itself sees them; a fusilar card nobody sees)."""
    down = {g.hidden[k]} if g.hidden[k] >= 0 else set()
    if g.more_hidden:
        down.update(g.more_hidden[k])
    if g.blind and g.blind[k] >= 0:
        down.add(g.blind[k])
    return down


def unit_of(g: Game) -> str:
    """What the table plays for: ``chips`` (the banking game) or ``points`` (quattro e mezzo)."""
    return "points" if g.rules.scoring == "points" else "chips"


def header_text(g: Game, hands_per_episode: int) -> str:
    """The line over the table: which hand, the phase, the cards left (also the text view's)."""
    over = g.phase == Phase.OVER
    done = g.hand_no + (0 if over else 1)
    if g.rules.play_to_target:
        hand = f"hand {done} (game to {g.rules.target_score} points)"
    else:
        hand = f"hand {done}/{hands_per_episode}"
    return f"{hand}   phase {Phase(g.phase).name.lower()}   {g.cards_left()} cards in the deck"


def _hand(c: _Canvas, g: Game, k: int, x: int, y: int, w: int, deck: str, banker: bool, mark: bool) -> None:
    cards = g.cards[k][:MAX_CARDS]
    down = face_down_cards(g, k)
    step = FAN if len(cards) <= 1 else min(FAN, (w - CARD_W) // (len(cards) - 1))
    for i, card in enumerate(cards):
        c.paste(card_back(CARD_W) if card in down else card_face(card, deck, CARD_W), x + i * step, y)
    visible = [card for card in g.cards[k] if card not in down]
    adjust = -1 if (g.ace_half and g.ace_half[k]) else 0
    total = format_total(g.hand_total(visible, adjust)) + (" +?" if down else "") if visible else ("?" if down else "0")
    line = " ".join(p for p in (status_word(g.status[k]), total) if p)
    yc = y + CARD_H + 4
    c.text(x, yc, w, CAPTION, ("▶ " if mark else "") + line, HIGHLIGHT if mark else WHITE, 12, bold=mark)
    if not banker and g.rules.scoring == "stakes" and g.stake[k]:
        c.text(x, yc + CAPTION, w, CAPTION, f"stake {g.stake[k]}", MUTED, 12)


def table_image(
    g: Game, deck: str = "spanish", hands_per_episode: int = 1, boxes: list[TextBox] | None = None
) -> np.ndarray:
    """An RGB frame (``uint8``) of the table: the public view (face-down cards as backs).
    ``boxes``, a list, receives every text drawn (``TextBox``)."""
    n, H = g.n, g.hands_per_seat
    shape = frame_shape(n, H)
    c = _Canvas(shape, boxes)
    if not hasattr(g, "hidden"):  # never started
        return c.frame()
    cols, rows, panel_w, _ = _layout(n, H)
    c.text(PAD, 7, shape[1] - 2 * PAD, HEADER_H - 8, header_text(g, hands_per_episode), WHITE, 14)
    over = g.phase == Phase.OVER
    unit = unit_of(g)
    order = [*g.order, g.banker]  # turn order, the banker last; seats sitting out after
    seats = sorted(range(n), key=lambda s: order.index(s) if s in order else n + s)
    hands_w = _hands_w(H)
    for i, s in enumerate(seats):
        px = PAD + (i // rows) * (panel_w + PAD)
        py = HEADER_H + (i % rows) * (PANEL_H + PAD)
        banker, acting = s == g.banker, s == g.acting_seat and not over
        c.draw.rounded_rectangle(
            [px, py, px + panel_w - 1, py + PANEL_H - 1], 8, fill=PANEL, outline=HIGHLIGHT if acting else PANEL, width=2
        )
        lx, lw = px + PAD, LABEL_W - PAD
        c.text(lx, py + 6, lw, 20, f"player {s}", HIGHLIGHT if acting else WHITE, 15, bold=True)
        c.text(lx, py + 28, lw, 18, "banker" if banker else "punter", GOLD if banker else MUTED, 13, bold=banker)
        c.text(lx, py + 48, lw, 18, f"{g.chips[s]:+d} {unit}", WHITE, 13)
        if acting:
            c.text(lx, py + 68, lw, 18, "to act", HIGHLIGHT, 13, bold=True)
        used = [
            h for h in range(min(g.nhands[s], H)) if g.cards[g.slot(s, h)] or g.status[g.slot(s, h)] != Status.EMPTY
        ]
        if not used:
            continue
        each = (hands_w - (len(used) - 1) * PAD) // len(used)
        for j, h in enumerate(used):
            mark = acting and h == g.hand and len(used) > 1
            _hand(c, g, g.slot(s, h), px + LABEL_W + j * (each + PAD), py + 6, each, deck, banker, mark)
    return c.frame()


__all__ = ["TextBox", "face_down_cards", "frame_shape", "header_text", "status_word", "table_image", "unit_of"]
