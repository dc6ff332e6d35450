"""The table as one seat sees it: what a person sitting there may know, never more.

``seat_view(env, me)`` is the one place that decides which cards a seat sees: its own
face-down cards (marked as such), every face-up card at the table, and for the rest only
that a card lies there (a back). A card nobody sees (the one under a shot 7) is a back for
its owner too. The totals are those of the cards the seat sees, with ``+?`` where a card
is unseen. ``play.py``'s terminal table and the web table (``siete_env.web``) both draw
this view; a test changes only another seat's face-down card and finds the view the same.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .cards import card_id, card_label, card_name, format_total
from .game import Phase, Status
from .render import amount, explain_result, face_down_cards, header_text, result_lines, status_word, unit_of


@dataclass(frozen=True)
class CardView:
    """A card as the seat sees it: ``id`` ``None`` for a back (a card it may not see)."""

    id: str | None
    label: str = ""
    name: str = ""
    face_down: bool = False  # the seat's own face-down card (seen by it alone)


@dataclass(frozen=True)
class HandView:
    cards: tuple[CardView, ...]
    total: str  # of the cards the seat sees, "+?" after it when one is unseen
    status: str  # waiting, playing, stands, bust
    stake: int | None  # a punter's stake (None for the banker, or in the points game)
    acting: bool  # the hand now being played


@dataclass(frozen=True)
class SeatView:
    seat: int
    role: str  # banker / punter
    chips: int  # chips, or points in the points game
    acting: bool
    hands: tuple[HandView, ...]
    you: bool = False


@dataclass(frozen=True)
class TableView:
    me: int
    header: str
    phase: str
    over: bool
    unit: str  # chips / points
    seats: tuple[SeatView, ...] = field(default_factory=tuple)
    hand_no: int = 1  # the hand on the table, counted over the env's episodes
    why: tuple[str, ...] = ()  # why the latest settled hand paid what it did (render.result_lines)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _hand(g: Any, s: int, k: int, me: int, deck: str, acting: bool) -> HandView:
    down = face_down_cards(g, k)
    blind = g.blind[k] if g.blind else -1
    cards, seen, unseen = [], [], False
    for c in g.cards[k]:
        if c in down and (s != me or c == blind):
            cards.append(CardView(None))
            unseen = True
        else:
            cards.append(CardView(card_id(c), card_label(c, deck), card_name(c, deck), c in down))
            seen.append(c)
    adjust = -1 if (g.ace_half and g.ace_half[k]) else 0
    total = (format_total(g.hand_total(seen, adjust)) + ("+?" if unseen else "")) if seen else ("?" if unseen else "0")
    punter = s != g.banker and g.rules.scoring == "stakes"
    return HandView(tuple(cards), total, status_word(g.status[k]), g.stake[k] if punter else None, acting)


def seat_view(env: Any, me: int) -> TableView:
    """The table as seat ``me`` of ``env`` (a ``raw_env``) sees it, seats in turn order
    (the banker last)."""
    g = env.game
    deck = env.rules.deck
    over = g.phase == Phase.OVER
    order = [*g.order, g.banker]
    seats = []
    for s in sorted(range(g.n), key=lambda s: order.index(s) if s in order else g.n + s):
        acting = s == g.acting_seat and not over
        hands = []
        for h in range(max(1, min(g.nhands[s], g.hands_per_seat))):
            k = g.slot(s, h)
            if h > 0 and not g.cards[k] and g.status[k] == Status.EMPTY:
                continue
            hands.append(_hand(g, s, k, me, deck, acting and h == g.hand))
        role = "banker" if s == g.banker else "punter"
        seats.append(SeatView(s, role, g.chips[s], acting, tuple(hands), s == me))
    unit = unit_of(g)
    before = getattr(env, "hands_before", 0)
    header = header_text(g, env.rules.hands_per_episode, before)
    hand_no = before + g.hand_no + (0 if over else 1)
    why = tuple(result_lines(g, me))
    return TableView(me, header, Phase(g.phase).name.lower(), over, unit, tuple(seats), hand_no, why)


__all__ = ["CardView", "HandView", "SeatView", "TableView", "event_lines", "seat_view"]


def event_lines(env: Any, me: int, since: int = 0) -> list[str]:
    """The game's events from index ``since`` as sentences that seat ``me`` may read: a card
    dealt face-down is named only to its owner, every payment, stake, stand and bust is
    said (what players at a table say and see)."""
    from . import game as G

    g = env.game
    deck = env.rules.deck
    unit = unit_of(g)

    def who(s: int) -> str:
        return "you" if s == me else f"player {s}"

    def verb(s: int, yours: str, theirs: str) -> str:
        return f"{who(s)} {yours if s == me else theirs}"

    before = getattr(env, "hands_before", 0)
    banker = g.banker
    for ev in g.events[: max(0, since)][::-1]:  # the banker of the hand under way at ``since``
        if ev[0] == G.EV_NEW_HAND:
            banker = ev[1]
            break
    out = []
    for ev in g.events[since:]:
        kind = ev[0]
        if kind == G.EV_NEW_HAND:
            banker = ev[1]
            out.append(
                f"— hand {before + ev[2] + 1}: {'you are' if ev[1] == me else f'player {ev[1]} is'} the banker —"
            )
        elif kind == G.EV_RESULT:
            out.append(explain_result(ev, g, me, banker))
        elif kind == G.EV_DEAL:
            _, c, s, h, up = ev
            if up or s == me:
                name = card_name(c, deck) + ("" if up else " face-down")
                out.append(verb(s, f"draw the {name}", f"draws the {name}"))
            else:
                out.append(verb(s, "draw a card face-down", "draws a card face-down"))
        elif kind == G.EV_REVEAL:
            out.append(verb(ev[2], f"turn up the {card_name(ev[1], deck)}", f"turns up the {card_name(ev[1], deck)}"))
        elif kind == G.EV_RETURN:
            _, c, s, _up, _back, _h = ev
            out.append(verb(s, f"give back the {card_name(c, deck)}", f"gives back the {card_name(c, deck)}"))
        elif kind == G.EV_MOVE:
            out.append(verb(ev[2], "split: a new hand", "splits: a new hand"))
        elif kind == G.EV_STATUS:
            _, s, _h, _old, new = ev
            if new == Status.STOOD:
                out.append(verb(s, "stand", "stands"))
            elif new == Status.BUST:
                out.append(verb(s, "bust", "busts"))
        elif kind == G.EV_STAKE:
            if g.rules.scoring == "stakes":
                out.append(verb(ev[1], f"stake {ev[3]}", f"stakes {ev[3]}"))
        elif kind == G.EV_PAY:
            _, frm, to, n = ev
            if frm < 0:
                out.append(verb(to, f"score {amount(n, unit)}", f"scores {amount(n, unit)}"))
            else:
                out.append(f"{who(frm)} {'pay' if frm == me else 'pays'} {who(to)} {amount(n, unit)}")
        elif kind == G.EV_ANNOUNCE:
            out.append(verb(ev[1], "announce", "announces"))
        elif kind == G.EV_BID:
            out.append(verb(ev[1], f"bid {ev[2]} for the bank", f"bids {ev[2]} for the bank"))
        elif kind == G.EV_ACE_HALF:
            out.append(verb(ev[1], "count your ace ½", "counts its ace ½"))
        elif kind == G.EV_SIDE:
            out.append(f"a side bet of {ev[2]} on player {ev[1]}'s hand")
        elif kind == G.EV_RESHUFFLE:
            out.append(f"the discards are shuffled: {ev[1]} cards")
    return out
