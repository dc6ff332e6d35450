"""The table as an RGB image (``render_mode="rgb_array"``), drawn with numpy alone.

``table_image(game, deck)`` draws what a spectator at the table sees: every seat's face-up
cards, its face-down cards as **card backs** (the same pixels whatever the card), the
stakes, the statuses, the totals of the face-up cards, the chips, the banker and the seat to
act. It reads the engine's public facts only (which cards are face-up; a face-down card is
drawn from nothing but its place in the hand). The frame has one size per table (``frame_shape``), so a
video of episodes (Gymnasium's ``RecordVideo``) keeps one size.
"""

from __future__ import annotations

import numpy as np

from .cards import RANK, SUIT, card_label, format_total
from .game import Game, Phase, Status

CARD_W, CARD_H, CARD_GAP = 30, 42, 4
SCALE = 2  # font pixels
LINE = 7 * SCALE + 4
WIDTH = 760
LEFT = 28
MAX_CARDS = 14  # drawn per hand (a hand never holds more below 7½)

GREEN = (22, 110, 60)
WHITE = (245, 245, 240)
BLACK = (20, 20, 20)
GOLD = (235, 190, 40)
FACE = (250, 248, 235)
BACK = (40, 70, 160)
BACK_LINE = (170, 190, 240)
HIGHLIGHT = (255, 220, 90)
SUIT_COLOURS = {
    "spanish": ((210, 160, 0), (200, 30, 30), (30, 80, 200), (30, 140, 50)),
    "italian": ((210, 160, 0), (200, 30, 30), (30, 80, 200), (30, 140, 50)),
    "french": ((200, 30, 30), (200, 30, 30), (20, 20, 20), (20, 20, 20)),
}

_GLYPHS = {
    "0": ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
    "1": ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    "2": ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    "3": ["11110", "00001", "00001", "01110", "00001", "00001", "11110"],
    "4": ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    "5": ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
    "6": ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
    "7": ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    "8": ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
    "9": ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
    "A": ["01110", "10001", "10001", "11111", "10001", "10001", "10001"],
    "B": ["11110", "10001", "10001", "11110", "10001", "10001", "11110"],
    "C": ["01110", "10001", "10000", "10000", "10000", "10001", "01110"],
    "D": ["11100", "10010", "10001", "10001", "10001", "10010", "11100"],
    "E": ["11111", "10000", "10000", "11110", "10000", "10000", "11111"],
    "F": ["11111", "10000", "10000", "11110", "10000", "10000", "10000"],
    "G": ["01110", "10001", "10000", "10111", "10001", "10001", "01111"],
    "H": ["10001", "10001", "10001", "11111", "10001", "10001", "10001"],
    "I": ["01110", "00100", "00100", "00100", "00100", "00100", "01110"],
    "J": ["00111", "00010", "00010", "00010", "00010", "10010", "01100"],
    "K": ["10001", "10010", "10100", "11000", "10100", "10010", "10001"],
    "L": ["10000", "10000", "10000", "10000", "10000", "10000", "11111"],
    "M": ["10001", "11011", "10101", "10101", "10001", "10001", "10001"],
    "N": ["10001", "10001", "11001", "10101", "10011", "10001", "10001"],
    "O": ["01110", "10001", "10001", "10001", "10001", "10001", "01110"],
    "P": ["11110", "10001", "10001", "11110", "10000", "10000", "10000"],
    "Q": ["01110", "10001", "10001", "10001", "10101", "10010", "01101"],
    "R": ["11110", "10001", "10001", "11110", "10100", "10010", "10001"],
    "S": ["01111", "10000", "10000", "01110", "00001", "00001", "11110"],
    "T": ["11111", "00100", "00100", "00100", "00100", "00100", "00100"],
    "U": ["10001", "10001", "10001", "10001", "10001", "10001", "01110"],
    "V": ["10001", "10001", "10001", "10001", "10001", "01010", "00100"],
    "W": ["10001", "10001", "10001", "10101", "10101", "10101", "01010"],
    "X": ["10001", "10001", "01010", "00100", "01010", "10001", "10001"],
    "Y": ["10001", "10001", "01010", "00100", "00100", "00100", "00100"],
    "Z": ["11111", "00001", "00010", "00100", "01000", "10000", "11111"],
    "+": ["00000", "00100", "00100", "11111", "00100", "00100", "00000"],
    "-": ["00000", "00000", "00000", "11111", "00000", "00000", "00000"],
    "/": ["00001", "00010", "00010", "00100", "01000", "01000", "10000"],
    ".": ["00000", "00000", "00000", "00000", "00000", "01100", "01100"],
    ":": ["00000", "01100", "01100", "00000", "01100", "01100", "00000"],
    ">": ["01000", "00100", "00010", "00001", "00010", "00100", "01000"],
    "?": ["01110", "10001", "00001", "00010", "00100", "00000", "00100"],
    "(": ["00010", "00100", "01000", "01000", "01000", "00100", "00010"],
    ")": ["01000", "00100", "00010", "00010", "00010", "00100", "01000"],
    "½": ["10000", "10010", "10100", "01011", "10001", "00010", "00111"],
    "*": ["00000", "10101", "01110", "11111", "01110", "10101", "00000"],
    " ": ["00000"] * 7,
}
_BITMAPS = {ch: np.array([[c == "1" for c in row] for row in rows], bool) for ch, rows in _GLYPHS.items()}


def _text(img: np.ndarray, x: int, y: int, s: str, colour: tuple[int, int, int], scale: int = SCALE) -> int:
    """Write ``s`` with its top-left corner at ``(x, y)``; returns the x after it."""
    for ch in s.upper():
        bm = _BITMAPS.get(ch, _BITMAPS["?"])
        big = np.kron(bm, np.ones((scale, scale), bool))
        h, w = big.shape
        region = img[y : y + h, x : x + w]
        region[big[: region.shape[0], : region.shape[1]]] = colour
        x += w + scale
    return x


def _rect(img: np.ndarray, x: int, y: int, w: int, h: int, colour: tuple[int, int, int]) -> None:
    img[max(y, 0) : y + h, max(x, 0) : x + w] = colour


def _card_back(img: np.ndarray, x: int, y: int) -> None:
    _rect(img, x, y, CARD_W, CARD_H, WHITE)
    _rect(img, x + 2, y + 2, CARD_W - 4, CARD_H - 4, BACK)
    for i in range(-CARD_H, CARD_W, 6):  # the same lattice on every back
        for j in range(CARD_H - 4):
            u = i + j
            if 2 <= u < CARD_W - 2:
                img[y + 2 + j, x + u] = BACK_LINE
                if 2 <= CARD_W - 1 - u < CARD_W - 2:
                    img[y + 2 + j, x + CARD_W - 1 - u] = BACK_LINE


def _pip(img: np.ndarray, cx: int, cy: int, suit: int, colour: tuple[int, int, int]) -> None:
    """A suit mark: oros a disk, copas a cup, espadas a blade, bastos a club (shapes only)."""
    yy, xx = np.mgrid[-7:8, -7:8]
    if suit == 0:
        shape = xx**2 + yy**2 <= 36
    elif suit == 1:
        shape = ((yy <= 1) & (xx**2 + (yy + 1) ** 2 <= 36)) | ((yy > 1) & (abs(xx) <= 1)) | (yy == 6) & (abs(xx) <= 4)
    elif suit == 2:
        shape = (abs(xx) <= 1) | ((yy == 2) & (abs(xx) <= 5))
    else:
        shape = (abs(xx) + abs(yy) <= 7) & ((abs(xx) <= 2) | (abs(yy) <= 2))
    region = img[cy - 7 : cy + 8, cx - 7 : cx + 8]
    region[shape[: region.shape[0], : region.shape[1]]] = colour


def _card_face(img: np.ndarray, x: int, y: int, card: int, deck: str) -> None:
    _rect(img, x, y, CARD_W, CARD_H, BLACK)
    _rect(img, x + 1, y + 1, CARD_W - 2, CARD_H - 2, FACE)
    colour = SUIT_COLOURS[deck][SUIT[card]]
    label = card_label(card, deck)
    rank = str(RANK[card]) if deck == "spanish" else label[:-1]
    _text(img, x + 3, y + 3, rank, colour, scale=1 if len(rank) > 1 else 2)
    _pip(img, x + CARD_W // 2, y + CARD_H - 14, SUIT[card], colour)


def frame_shape(num_players: int, hands_per_seat: int) -> tuple[int, int, int]:
    """The (height, width, 3) of every frame of a table."""
    return (LINE + 8 + num_players * (LINE + hands_per_seat * (CARD_H + 6)) + 4, WIDTH, 3)


def face_down_cards(g: Game, k: int) -> set[int]:
    """The cards of hand slot ``k`` that lie face-down (nobody at the table but, for its own
    face-down cards, the seat itself sees them; a fusilar card nobody sees)."""
    down = {g.hidden[k]} if g.hidden[k] >= 0 else set()
    if g.more_hidden:
        down.update(g.more_hidden[k])
    if g.blind and g.blind[k] >= 0:
        down.add(g.blind[k])
    return down


def table_image(g: Game, deck: str = "spanish", hands_per_episode: int = 1) -> np.ndarray:
    """An RGB frame (``uint8``) of the table: the public view (face-down cards as backs)."""
    n, H = g.n, g.hands_per_seat
    shape = frame_shape(n, H)
    img = np.empty(shape, np.uint8)
    img[:] = GREEN
    if not hasattr(g, "hidden"):  # never started
        return img
    over = g.phase == Phase.OVER
    header = (
        f"hand {g.hand_no + (0 if over else 1)}/{hands_per_episode}   "
        f"phase {Phase(g.phase).name}   deck {g.cards_left()}"
    )
    _text(img, 8, 6, header, WHITE)
    y = LINE + 8
    unit = "points" if g.rules.scoring == "points" else "chips"
    order = [*g.order, g.banker]  # turn order, the banker last; seats sitting out after
    for s in sorted(range(n), key=lambda s: order.index(s) if s in order else n + s):
        banker = s == g.banker
        acting = s == g.acting_seat
        label = f"{'>' if acting else ' '}player {s} {'banker' if banker else 'punter'}  {unit} {g.chips[s]:+d}"
        _text(img, 8, y + 2, label, HIGHLIGHT if acting else (GOLD if banker else WHITE))
        yh = y + LINE
        for h in range(min(g.nhands[s], H)):
            k = g.slot(s, h)
            cards = g.cards[k]
            if not cards and g.status[k] == Status.EMPTY:
                continue
            down = face_down_cards(g, k)
            x = LEFT
            for c in cards[:MAX_CARDS]:
                if c in down:
                    _card_back(img, x, yh)
                else:
                    _card_face(img, x, yh, c, deck)
                x += CARD_W + CARD_GAP
            visible = [c for c in cards if c not in down]
            adjust = -1 if (g.ace_half and g.ace_half[k]) else 0
            total = format_total(g.hand_total(visible, adjust)) if visible else "0"
            info = f"{Status(g.status[k]).name} {total}{'+?' if down else ''}"
            if not banker:
                info += f" stake {g.stake[k]}"
            mark = ">" if (acting and h == g.hand and not over) else ""
            _text(img, WIDTH - 230, yh + 12, mark + info, WHITE)
            yh += CARD_H + 6
        y += LINE + H * (CARD_H + 6)
    return img


__all__ = ["face_down_cards", "frame_shape", "table_image"]
