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
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw

from .cardart import card_back, card_face, card_size, font
from .cards import format_total
from .game import Phase, Status

if TYPE_CHECKING:
    from .table import Table

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


def face_down_cards(g: Table, k: int) -> set[int]:
    """The cards of hand slot ``k`` that lie face-down (nobody at the table but, for its own
    face-down cards, the seat itself sees them; a fusilar card nobody sees)."""
    down = {g.hidden[k]} if g.hidden[k] >= 0 else set()
    if g.more_hidden:
        down.update(g.more_hidden[k])
    if g.blind and g.blind[k] >= 0:
        down.add(g.blind[k])
    return down


def unit_of(g: Table) -> str:
    """What the table plays for: ``chips`` (the banking game) or ``points`` (quattro e mezzo)."""
    return "points" if g.rules.scoring == "points" else "chips"


def amount(n: int, unit: str) -> str:
    """``n`` of a unit, singular or plural: ``1 chip``, ``2 chips``, ``1 point``."""
    return f"{n} {unit[:-1] if abs(n) == 1 and unit.endswith('s') else unit}"


_PHASE_WORDS = {
    Phase.BET: "betting",
    Phase.DRAW: "drawing",
    Phase.SPLIT: "a split to decide",
    Phase.BANKER: "the banker plays",
    Phase.OVER: "hand over",
    Phase.AUCTION: "bidding for the bank",
    Phase.SIDE_BETS: "side bets",
}


def phase_words(phase: int) -> str:
    """The phase as people say it (``betting``, ``drawing``, ``the banker plays``, ...)."""
    return _PHASE_WORDS[Phase(phase)]


def hand_number(g: Table, hands_before: int = 0) -> int:
    """The number of the hand on the table, counted over the session: ``hands_before`` hands
    played in earlier episodes plus this episode's (the last one, once it is over)."""
    return hands_before + g.hand_no + (0 if g.phase == Phase.OVER else 1)


def header_text(g: Table, hands_per_episode: int, hands_before: int = 0) -> str:
    """The line over the table: which hand (``hands_before``: hands of earlier episodes, for
    a running count over a session), what is happening, the cards left (also the text
    view's): ``hand 3 · drawing · 34 cards left in the deck``."""
    n = hand_number(g, hands_before)
    if g.rules.play_to_target:
        hand = f"hand {n} (the game goes to {g.rules.target_score} points)"
    elif hands_per_episode > 1:
        hand = f"hand {n} ({g.hand_no + (0 if g.phase == Phase.OVER else 1)} of {hands_per_episode} this episode)"
    else:
        hand = f"hand {n}"
    left = g.cards_left()
    return f"{hand} · {phase_words(g.phase)} · {left} card{'' if left == 1 else 's'} left in the deck"


def _times(mult: int) -> str:
    return {1: "even money", 2: "double", 3: "triple"}.get(mult, f"{mult} times the stake")


def explain_result(ev: tuple, g: Table, me: int = -1, banker: int = -1) -> str:
    """Why a hand was paid what it was, in one line, from its ``EV_RESULT`` event (the
    outcome ``settle.Payouts.outcome`` gave the payment, ``settle.OUT_*``): ``you stood on
    6½, the banker busts with 8: you win 2 chips``; ``tie at 7: ties go to the banker — you
    lose 2 chips``; ``7½: paid double — you win 4 chips``. ``me``: the seat reading it
    (``you``), -1 for a spectator; ``banker``: that hand's banker."""
    from . import settle as S

    _, s, h, outcome, won, total, btotal = ev
    unit = unit_of(g)
    pays = g.payouts.by_outcome
    P, B = format_total(total), format_total(btotal) if btotal >= 0 else "?"
    punter = "you" if s == me else f"player {s}" + (f" (hand {h + 1})" if h else "")
    bank = "you" if banker == me and banker >= 0 else "the banker"
    if outcome >= S.OUT_POINTS_BEST:  # the points game
        has = "have" if s == me else "has"
        why = {
            S.OUT_POINTS_BEST: f"{punter} {has} the best hand at the table, {P}",
            S.OUT_POINTS_UPSET: f"{'your' if s == me else punter + chr(39) + 's'} {P} upsets {format_total(g.facts.upset[1]) if g.facts.upset else '?'}",
            S.OUT_POINTS_DOUBLE: f"{punter} {has} a double, which beats everything",
        }[outcome]
        return f"{why} — {punter} {'score' if s == me else 'scores'} {amount(won, unit)}"
    why = {
        S.OUT_BUST: f"{punter} {'bust' if s == me else 'busts'} with {P} (over {format_total(g.facts.limit)})",
        S.OUT_LOWER: f"{punter} stood on {P}, {bank} on {B}: the higher total wins",
        S.OUT_TIE: f"tie at {P}: ties go to the banker",
        S.OUT_BANKER_SEVEN_HALF: f"{bank} made 7½"
        + (f", which collects {_times(-pays[outcome])}" if pays[outcome] < -1 else f", beating {P}"),
        S.OUT_BOTH_SEVEN_HALF: "7½ each: ties go to the banker"
        + (f", which collects {_times(-pays[outcome])}" if pays[outcome] < -1 else ""),
        S.OUT_BANKER_REALE: f"{bank} made sette e mezzo reale: it collects {_times(-pays[outcome])}",
        S.OUT_BOTH_REALE: f"a reale each: the banker's wins, collecting {_times(-pays[outcome])}",
        S.OUT_HIGHER: f"{punter} stood on {P}, {bank} on {B}: the higher total wins",
        S.OUT_BANKER_BUST: f"{punter} stood on {P}, {bank} {'bust' if bank == 'you' else 'busts'} with {B}",
        S.OUT_SEVEN_HALF: f"7½ against {B}: paid {_times(pays[outcome])}",
        S.OUT_SEVEN_HALF_BANKER_BUST: f"7½ (and {bank} {'bust' if bank == 'you' else 'busts'} with {B}): paid {_times(pays[outcome])}",
        S.OUT_REALE: f"sette e mezzo reale: paid {_times(pays[outcome])}",
        S.OUT_TRIPLEE: f"two 7s (triplèe): paid {_times(pays[outcome])} whatever the banker holds",
        S.OUT_FUSILAR: f"the shot 7 made 7½: paid {_times(pays[outcome])}",
        S.OUT_FUSILAR_BANKER_SEVEN_HALF: f"the shot 7 made 7½, but {bank} made 7½ too",
    }[outcome]
    if s == me:
        result = f"you {'win' if won > 0 else 'lose'} {amount(abs(won), unit)}"
    elif banker == me and banker >= 0:
        result = f"you {'lose' if won > 0 else 'win'} {amount(abs(won), unit)}"
    else:
        result = f"{punter} {'wins' if won > 0 else 'loses'} {amount(abs(won), unit)}"
    return f"{why} — {result}"


def settled_results(g: Table) -> tuple[int, list[tuple]]:
    """The ``EV_RESULT`` events of the latest hand that has results, and its banker (``(-1,
    [])`` before any): what ``result_lines`` explains."""
    from .game import EV_NEW_HAND, EV_RESULT

    events = g.events
    i = len(events) - 1
    while i >= 0 and events[i][0] != EV_RESULT:
        i -= 1
    if i < 0:
        return -1, []
    start = i
    while start > 0 and events[start][0] != EV_NEW_HAND:
        start -= 1
    out = []
    for ev in events[start:]:
        if ev[0] == EV_NEW_HAND and out:
            break
        if ev[0] == EV_RESULT:
            out.append(ev)
    return events[start][1], out


def result_lines(g: Table, me: int = -1) -> list[str]:
    """Why each hand of the latest settled hand was paid what it was (``explain_result``),
    for seat ``me`` (-1: a spectator); a seat's own results first."""
    banker, results = settled_results(g)
    results.sort(key=lambda ev: ev[1] != me)
    return [explain_result(ev, g, me, banker) for ev in results]


def _hand(c: _Canvas, g: Table, k: int, x: int, y: int, w: int, deck: str, banker: bool, mark: bool) -> None:
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
    g: Table,
    deck: str = "spanish",
    hands_per_episode: int = 1,
    boxes: list[TextBox] | None = None,
    hands_before: int = 0,
) -> np.ndarray:
    """An RGB frame (``uint8``) of the table: the public view (face-down cards as backs).
    ``boxes``, a list, receives every text drawn (``TextBox``); ``hands_before``: hands of
    earlier episodes, for the header's running count."""
    n, H = g.n, g.hands_per_seat
    shape = frame_shape(n, H)
    c = _Canvas(shape, boxes)
    if not hasattr(g, "hidden"):  # never started
        return c.frame()
    cols, rows, panel_w, _ = _layout(n, H)
    c.text(PAD, 7, shape[1] - 2 * PAD, HEADER_H - 8, header_text(g, hands_per_episode, hands_before), WHITE, 14)
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


__all__ = [
    "TextBox",
    "amount",
    "explain_result",
    "face_down_cards",
    "frame_shape",
    "hand_number",
    "header_text",
    "phase_words",
    "result_lines",
    "settled_results",
    "status_word",
    "table_image",
    "unit_of",
]
