"""Card faces and backs, drawn with Pillow: the one picture of each card that the
``rgb_array`` frames (``siete_env.render``) and the web table (``siete_env.web``) show.

Spanish and Italian cards carry their own suits (oros / denari a coin, copas / coppe a cup,
espadas / spade a sword, bastos / bastoni a club) and, as Spanish decks do, the **pintas**:
the frame inside the card is broken once for copas, twice for espadas and three times for
bastos, so the suit shows even when the cards overlap. French cards carry ♦ ♥ ♠ ♣. The rank
index sits in the top-left corner (the one a fan of cards leaves in sight; none upside down,
where a 6 would read 9), the values in the middle as pips, and the figures (sota, caballo, rey; fante, cavallo, re; J, Q, K) as a bust
with its headgear. Every back is the same picture, whatever the card.

Each image is drawn once per (card, deck, width) at four times its size and scaled down
(anti-aliased), then kept (``functools.cache``).
"""

from __future__ import annotations

import functools
import io
from importlib import resources

from PIL import Image, ImageDraw, ImageFont

from .cards import N_CARDS, RANK, SUIT, card_id

DECKS = ("spanish", "italian", "french")
ASPECT = 1.5  # height / width, as a Spanish card (about 6.1 x 9.4 cm)
_SS = 4  # supersampling

PAPER = (252, 249, 238)
EDGE = (70, 60, 50)
INK = (25, 25, 25)
BACK = (38, 66, 150)
BACK_LINE = (150, 175, 235)
SUIT_COLOURS = {  # fill, outline
    "spanish": (((222, 170, 20), (140, 95, 0)), ((200, 35, 35), (120, 15, 15)),
                ((40, 85, 190), (15, 40, 110)), ((60, 130, 45), (30, 75, 20))),
    "french": (((205, 30, 30), (140, 10, 10)), ((205, 30, 30), (140, 10, 10)),
               ((25, 25, 25), (0, 0, 0)), ((25, 25, 25), (0, 0, 0))),
}  # fmt: skip
SUIT_COLOURS["italian"] = SUIT_COLOURS["spanish"]
_INDEX = {  # the corner index of the figures (the pips' ranks are their numbers)
    "spanish": {10: "10", 11: "11", 12: "12"},
    "italian": {1: "A", 10: "F", 11: "C", 12: "R"},
    "french": {1: "A", 10: "J", 11: "Q", 12: "K"},
}
_PIPS = {  # pip centres in the card's middle area, as fractions of its width and height
    1: [(0.5, 0.5)],
    2: [(0.5, 0.2), (0.5, 0.8)],
    3: [(0.5, 0.15), (0.5, 0.5), (0.5, 0.85)],
    4: [(0.28, 0.2), (0.72, 0.2), (0.28, 0.8), (0.72, 0.8)],
    5: [(0.28, 0.15), (0.72, 0.15), (0.5, 0.5), (0.28, 0.85), (0.72, 0.85)],
    6: [(0.28, 0.15), (0.72, 0.15), (0.28, 0.5), (0.72, 0.5), (0.28, 0.85), (0.72, 0.85)],
    7: [(0.28, 0.12), (0.72, 0.12), (0.5, 0.31), (0.28, 0.5), (0.72, 0.5), (0.28, 0.88), (0.72, 0.88)],
}


@functools.cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans (shipped with the package, subset: Latin-1, ½, the French suits) at ``size`` px."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    data = resources.files("siete_env").joinpath("assets", name).read_bytes()
    return ImageFont.truetype(io.BytesIO(data), size)


def card_size(width: int) -> tuple[int, int]:
    """The (width, height) in pixels of a card ``width`` pixels wide."""
    return width, round(width * ASPECT)


def _suit(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, suit: int, deck: str) -> None:
    """A suit mark of radius ``r`` centred on ``(cx, cy)``."""
    fill, line = SUIT_COLOURS[deck][suit]
    w = max(1, round(r * 0.09))
    if deck == "french":
        if suit == 0:  # diamond
            d.polygon([(cx, cy - r), (cx + 0.72 * r, cy), (cx, cy + r), (cx - 0.72 * r, cy)], fill=fill)
        elif suit in (1, 2):  # heart; spade = a heart upside down on a stem
            s = 1 if suit == 1 else -1
            q = 0.48 * r
            for dx in (-q, q):
                d.ellipse([cx + dx - q, cy - s * 0.35 * r - q, cx + dx + q, cy - s * 0.35 * r + q], fill=fill)
            d.polygon(
                [
                    (cx - 2 * q + 0.02 * r, cy - s * 0.2 * r),
                    (cx + 2 * q - 0.02 * r, cy - s * 0.2 * r),
                    (cx, cy + s * r),
                ],
                fill=fill,
            )
            if suit == 2:
                d.polygon([(cx, cy + 0.2 * r), (cx + 0.3 * r, cy + r), (cx - 0.3 * r, cy + r)], fill=fill)
        else:  # club
            q = 0.36 * r
            for px, py in ((cx, cy - 0.5 * r), (cx - 0.5 * r, cy + 0.12 * r), (cx + 0.5 * r, cy + 0.12 * r)):
                d.ellipse([px - q, py - q, px + q, py + q], fill=fill)
            d.polygon([(cx, cy - 0.1 * r), (cx + 0.3 * r, cy + r), (cx - 0.3 * r, cy + r)], fill=fill)
        return
    if suit == 0:  # oros / denari: a coin
        d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=fill, outline=line, width=w)
        d.ellipse([cx - 0.62 * r, cy - 0.62 * r, cx + 0.62 * r, cy + 0.62 * r], outline=line, width=w)
        d.ellipse([cx - 0.2 * r, cy - 0.2 * r, cx + 0.2 * r, cy + 0.2 * r], fill=line)
    elif suit == 1:  # copas / coppe: a cup
        d.chord([cx - 0.8 * r, cy - 1.0 * r, cx + 0.8 * r, cy + 0.2 * r], 0, 180, fill=fill, outline=line, width=w)
        d.ellipse([cx - 0.8 * r, cy - 0.6 * r, cx + 0.8 * r, cy - 0.3 * r], fill=line)
        d.rectangle([cx - 0.13 * r, cy + 0.15 * r, cx + 0.13 * r, cy + 0.7 * r], fill=fill, outline=line, width=w)
        d.ellipse([cx - 0.55 * r, cy + 0.62 * r, cx + 0.55 * r, cy + 0.98 * r], fill=fill, outline=line, width=w)
    elif suit == 2:  # espadas / spade: a sword, point up
        b = 0.15 * r
        d.polygon([(cx, cy - r), (cx + b, cy - 0.78 * r), (cx + b, cy + 0.38 * r), (cx - b, cy + 0.38 * r),
                   (cx - b, cy - 0.78 * r)], fill=fill, outline=line, width=w)  # fmt: skip
        d.rounded_rectangle([cx - 0.6 * r, cy + 0.36 * r, cx + 0.6 * r, cy + 0.5 * r], 0.06 * r, fill=line)
        d.rectangle([cx - 0.1 * r, cy + 0.5 * r, cx + 0.1 * r, cy + 0.8 * r], fill=(120, 80, 40))
        d.ellipse([cx - 0.14 * r, cy + 0.76 * r, cx + 0.14 * r, cy + r], fill=line)
    else:  # bastos / bastoni: a knotted club, thick end up
        d.polygon([(cx - 0.14 * r, cy + r), (cx + 0.14 * r, cy + r), (cx + 0.36 * r, cy - 0.75 * r),
                   (cx - 0.36 * r, cy - 0.75 * r)], fill=fill, outline=line, width=w)  # fmt: skip
        d.ellipse([cx - 0.37 * r, cy - r, cx + 0.37 * r, cy - 0.55 * r], fill=fill, outline=line, width=w)
        for ky, side in ((-0.35, -1), (0.05, 1), (0.45, -1)):
            kx = cx + side * (0.3 - 0.12 * ky) * r
            d.ellipse([kx - 0.1 * r, cy + ky * r - 0.1 * r, kx + 0.1 * r, cy + ky * r + 0.1 * r], fill=line)


def _frame(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], breaks: int, colour, w: int) -> None:
    """The card's inner frame; its top and bottom sides broken ``breaks`` times (the pintas)."""
    x0, y0, x1, y1 = box
    d.line([(x0, y0), (x0, y1)], fill=colour, width=w)
    d.line([(x1, y0), (x1, y1)], fill=colour, width=w)
    gap = (x1 - x0) * 0.09
    for y in (y0, y1):
        cuts = [x0 + (x1 - x0) * (i + 1) / (breaks + 1) for i in range(breaks)]
        starts = [x0, *(c + gap / 2 for c in cuts)]
        ends = [*(c - gap / 2 for c in cuts), x1]
        for a, b in zip(starts, ends, strict=True):
            d.line([(a, y), (b, y)], fill=colour, width=w)


def _figure(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, rank: int, suit: int, deck: str) -> None:
    """A figure: a bust in the suit's colour with its headgear (a cap, a plumed hat or a
    crown), holding its suit."""
    fill, line = SUIT_COLOURS[deck][suit]
    skin, w = (236, 200, 160), max(1, round(r * 0.06))
    d.chord([cx - 0.9 * r, cy + 0.1 * r, cx + 0.9 * r, cy + 1.9 * r], 180, 360, fill=fill, outline=line, width=w)
    d.ellipse([cx - 0.38 * r, cy - 0.55 * r, cx + 0.38 * r, cy + 0.25 * r], fill=skin, outline=line, width=w)
    top = cy - 0.5 * r
    if rank == 12:  # a crown
        d.polygon([(cx - 0.42 * r, top), (cx - 0.42 * r, top - 0.45 * r), (cx - 0.2 * r, top - 0.2 * r),
                   (cx, top - 0.55 * r), (cx + 0.2 * r, top - 0.2 * r), (cx + 0.42 * r, top - 0.45 * r),
                   (cx + 0.42 * r, top)], fill=(230, 180, 30), outline=(140, 95, 0), width=w)  # fmt: skip
    elif rank == 11:  # a plumed hat
        d.chord([cx - 0.5 * r, top - 0.35 * r, cx + 0.5 * r, top + 0.25 * r], 180, 360, fill=line)
        d.ellipse([cx + 0.15 * r, top - 0.75 * r, cx + 0.65 * r, top - 0.15 * r], fill=fill)
    else:  # a cap
        d.chord([cx - 0.42 * r, top - 0.3 * r, cx + 0.42 * r, top + 0.3 * r], 180, 360, fill=line)
    _suit(d, cx - 0.62 * r, cy + 1.1 * r, 0.4 * r, suit, deck)


@functools.cache
def card_face(card: int, deck: str = "spanish", width: int = 48) -> Image.Image:
    """The face of ``card`` (``0..39``) as an RGBA image ``width`` pixels wide."""
    if not 0 <= card < N_CARDS:
        raise ValueError(f"no card {card!r}: cards are 0..{N_CARDS - 1}")
    if deck not in DECKS:
        raise ValueError(f"unknown deck {deck!r}; decks: {', '.join(DECKS)}")
    W, H = (v * _SS for v in card_size(width))
    img = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    rad = W * 0.08
    d.rounded_rectangle([0, 0, W - 1, H - 1], rad, fill=PAPER, outline=EDGE, width=max(1, _SS))
    rank, suit = RANK[card], SUIT[card]
    fill, line = SUIT_COLOURS[deck][suit]
    index = _INDEX[deck].get(rank, str(rank))
    f = font(round(W * (0.3 if len(index) > 1 else 0.36)), bold=True)
    d.text((W * 0.07, H * 0.03), index, font=f, fill=line)
    mx0, my0, mx1, my1 = W * 0.14, H * 0.25, W * 0.86, H * 0.75  # the middle, clear of the indices
    if deck != "french":
        _frame(d, (W * 0.05, H * 0.035, W * 0.95, H * 0.965), suit, fill, max(1, round(W * 0.025)))
    if rank >= 10:
        _figure(d, W * 0.5, H * 0.42, W * 0.3, rank, suit, deck)
    else:
        pips = _PIPS[rank]
        r = W * (0.3, 0.14, 0.14, 0.12, 0.12, 0.105, 0.105)[rank - 1]
        for fx, fy in pips:
            _suit(d, mx0 + fx * (mx1 - mx0), my0 + fy * (my1 - my0), r, suit, deck)
    return img.resize(card_size(width), Image.Resampling.LANCZOS)


@functools.cache
def card_back(width: int = 48) -> Image.Image:
    """The back of every card (the same pixels whatever the card), RGBA, ``width`` pixels wide."""
    W, H = (v * _SS for v in card_size(width))
    img = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([0, 0, W - 1, H - 1], W * 0.08, fill=PAPER, outline=EDGE, width=max(1, _SS))
    inset = W * 0.07
    d.rounded_rectangle([inset, inset, W - inset, H - inset], W * 0.05, fill=BACK)
    step, lw = W / 6, max(1, round(W * 0.02))
    k = -H
    while k < W + H:  # a diamond lattice
        d.line([(k, inset), (k + H, H + inset)], fill=BACK_LINE, width=lw)
        d.line([(k + H, inset), (k, H + inset)], fill=BACK_LINE, width=lw)
        k += step
    d.rectangle([0, 0, W, inset], fill=PAPER)
    d.rectangle([0, H - inset, W, H], fill=PAPER)
    d.rectangle([0, 0, inset, H], fill=PAPER)
    d.rectangle([W - inset, 0, W, H], fill=PAPER)
    d.rounded_rectangle([0, 0, W - 1, H - 1], W * 0.08, outline=EDGE, width=max(1, _SS))
    cx, cy, r = W / 2, H / 2, W * 0.16
    d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=BACK, outline=BACK_LINE, width=lw * 2)
    return img.resize(card_size(width), Image.Resampling.LANCZOS)


def png(image: Image.Image) -> bytes:
    """An image as PNG bytes (the web table serves the cards so)."""
    buf = io.BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()


def card_png(card: int | str, deck: str = "spanish", width: int = 96) -> bytes:
    """A card face as PNG bytes; ``card`` an index or an id such as ``"7o"``."""
    from .cards import parse_card

    return png(card_face(parse_card(card) if isinstance(card, str) else card, deck, width))


def sheet(deck: str = "spanish", width: int = 48) -> Image.Image:
    """Every card of a deck in a grid (a suit a row), for looking at the faces."""
    cw, ch = card_size(width)
    img = Image.new("RGB", (11 * (cw + 4) + 4, 4 * (ch + 4) + 4), (22, 110, 60))
    for c in range(N_CARDS):
        img.paste(
            card_face(c, deck, width), (4 + (c % 10) * (cw + 4), 4 + (c // 10) * (ch + 4)), card_face(c, deck, width)
        )
    img.paste(card_back(width), (4 + 10 * (cw + 4), 4), card_back(width))
    return img


__all__ = ["ASPECT", "DECKS", "card_back", "card_face", "card_id", "card_png", "card_size", "font", "png", "sheet"]
