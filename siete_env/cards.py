"""Cards: ids, values and decks.

A card is a small int ``0..39`` everywhere inside the engine: ``suit * 10 + rank_index``.
Its public id is rank then suit letter (``"7o"``, ``"12b"``). Values are kept in
**half points** (integers): ranks 1-7 count ``2 * rank``, the figures (10, 11, 12)
count 1, so 7½ is ``15``. Every table here is computed once at import. What a total means
(the limit, the ranking, the payouts) is a rule: ``rules.Rules`` and ``settle``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SUITS = "oceb"  # oros, copas, espadas, bastos
SUIT_NAMES = {
    "spanish": ("oros", "copas", "espadas", "bastos"),
    "italian": ("denari", "coppe", "spade", "bastoni"),
    "french": ("♦", "♥", "♠", "♣"),
}
RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
RANK_NAMES = {
    "spanish": {1: "as", 10: "sota", 11: "caballo", 12: "rey"},
    "italian": {1: "asso", 10: "fante", 11: "cavallo", 12: "re"},
    "french": {1: "A", 10: "J", 11: "Q", 12: "K"},
}
N_CARDS = 40
N_SUITS = len(SUITS)
N_RANKS = len(RANKS)  # card ``c`` has rank index ``c % N_RANKS`` and suit ``c // N_RANKS``

CARD_IDS: tuple[str, ...] = tuple(f"{r}{s}" for s in SUITS for r in RANKS)
CARD_INDEX: dict[str, int] = {cid: i for i, cid in enumerate(CARD_IDS)}
RANK: tuple[int, ...] = tuple(RANKS[i % N_RANKS] for i in range(N_CARDS))
SUIT: tuple[int, ...] = tuple(i // N_RANKS for i in range(N_CARDS))
IS_FIGURE: tuple[bool, ...] = tuple(r >= 10 for r in RANK)
VALUE2: tuple[int, ...] = tuple(1 if r >= 10 else 2 * r for r in RANK)


def card_of(rank_index: Any, suit: Any) -> Any:
    """The card index of a rank index (``0..9``: 1-7, 10, 11, 12) and a suit (ints or
    integer arrays)."""
    return suit * N_RANKS + rank_index


def card_id(card: int) -> str:
    """The public id of a card index, e.g. ``card_id(6) == "7o"``."""
    return CARD_IDS[card]


def parse_card(cid: str) -> int:
    """The card index of a card id; a clear ``ValueError`` for anything else."""
    try:
        return CARD_INDEX[cid]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown card id {cid!r}: a card id is a rank (1-7, 10, 11, 12) followed by a "
            f"suit letter (o, c, e, b), e.g. '7o', '12b'"
        ) from None


def parse_deck(ids: Sequence[str], allowed: Sequence[int] | None = None) -> list[int]:
    """Card indices of a list (or tuple) of card ids, refusing unknown ids, duplicates and cards
    not in the deck in use (``allowed``)."""
    if isinstance(ids, str):
        raise ValueError(f"a deck is a list of card ids such as ['4o', '7c'], not the string {ids!r}")
    if not isinstance(ids, list | tuple):
        raise ValueError(f"a deck is a list of card ids such as ['4o', '7c'], not {type(ids).__name__} {ids!r}")
    cards = [parse_card(c) for c in ids]
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise ValueError(f"invalid deck: card {card_id(c)!r} is listed twice")
        seen.add(c)
    if allowed is not None:
        allowed_set = set(allowed)
        for c in cards:
            if c not in allowed_set:
                raise ValueError(f"invalid deck: card {card_id(c)!r} is not in the deck these rules use")
    return cards


_SHORT_RANK = {
    "spanish": {},
    "italian": {1: "A", 10: "F", 11: "C", 12: "R"},
    "french": {1: "A", 10: "J", 11: "Q", 12: "K"},
}
_SHORT_SUIT = {"spanish": SUITS, "italian": "dcsb", "french": "♦♥♠♣"}


def card_label(card: int, deck: str = "spanish") -> str:
    """A short label for rendering: the id for the spanish deck, ``"Rd"`` (re di denari)
    for the italian one, ``"Q♥"`` for the french one."""
    if deck == "spanish":
        return CARD_IDS[card]
    rank = RANK[card]
    return f"{_SHORT_RANK[deck].get(rank, str(rank))}{_SHORT_SUIT[deck][SUIT[card]]}"


def format_total(half_points: int) -> str:
    """``11 -> "5½"``, ``1 -> "½"``."""
    whole, half = divmod(half_points, 2)
    return (f"{whole}½" if whole else "½") if half else str(whole)


def card_name(card: int, deck: str = "spanish") -> str:
    """A readable name, e.g. ``"caballo de copas"`` or ``"Q♥"``."""
    rank, suit = RANK[card], SUIT[card]
    if deck == "french":
        return f"{RANK_NAMES['french'].get(rank, str(rank))}{SUIT_NAMES['french'][suit]}"
    sep = " di " if deck == "italian" else " de "
    return f"{RANK_NAMES[deck].get(rank, str(rank))}{sep}{SUIT_NAMES[deck][suit]}"
