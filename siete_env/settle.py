"""The settlement rules as pure functions of the hands and the rules (docs/adding-a-game.md).

Every fact that decides who wins a hand and what it is paid lives here, read from the
``Rules`` fields (never from module constants): the limit over which a hand is bust, the
lowest total a hand may stand on, the ranking of standing totals and its exceptions (the
upset: a 5 beats a 4½), the ties, the wild card's value, the stake multipliers of the
banking game and the points table of the points game, who takes the bank. The engine
(``tests.oracle.Game``) calls these functions; the batched kernels and the exact solver take the
stake multipliers from ``Payouts`` and the limit from ``RuleFacts`` (and refuse a game they
do not play: ``batched.engine.check_rules``, ``solve.states.check_rules``).

Totals are in **half points** (ints): ``rules.limit`` 7.5 is ``RuleFacts.limit`` 15.
One function per concern:

- ``best_total``: a hand's total (the wild card takes its best value);
- ``is_reale``: sette e mezzo reale;
- ``Payouts.multiplier``: a punter hand's result against the banker, in stakes;
- ``is_triplee``: two 7s, or a 7 and the wild card (``triplee``);
- ``is_double``: a first card of ``double_rank`` and a second of the same rank (or the wild);
- ``hand_winners``: who wins a hand of the points game (ties, the upset, doubles, the
  banker winning every tie), written in ``showdown`` for the kernels to compile too;
- ``hand_points``: what a winning hand scores (the points table);
- ``takes_bank``: whether a points-game winner takes the bank.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .cards import IS_FIGURE, RANK, SUIT, VALUE2, parse_card
from .rules import Rules
from .showdown import winners

WILD_VALUES = (14, 12, 10, 8, 6, 4, 2, 1)
"""What the wild card may count with other cards, in half points: a whole 7..1 or ½ (004)."""
WILD_WHOLE_VALUES = WILD_VALUES[:-1]
"""``wild_whole_only``: a whole 7..1, never ½, alone too (004's variant)."""


def half(points: float) -> int:
    """A total in points (``7.5``) in half points (``15``)."""
    return int(round(points * 2))


class PointsRow(NamedTuple):
    """One row of the points table in half points; ``-1`` in a field means "any"."""

    total: int
    cards: int
    wild: int  # 1: made with the wild card, 0: without it, -1: either
    double: int  # 1: a double, 0: not a double, -1: either
    points: int


class RuleFacts:
    """The rules' settlement facts in half points, built once per table from a ``Rules``."""

    __slots__ = (
        "limit", "min_stand", "points_game", "rank", "upset", "double_rank", "wild", "declare",
        "more_cards", "wild_loses", "wild_loses_at", "table", "otherwise", "bank_totals", "bank_on_win", "instant",
        "target", "to_target", "scores", "wild_values", "seven_wild_reale",
    )  # fmt: skip

    def __init__(self, rules: Rules) -> None:
        self.limit = half(rules.limit)
        self.min_stand = half(rules.min_stand)
        self.points_game = rules.scoring == "points"
        # rank[t]: the order of standing totals (higher is better). Without a ranking the
        # higher total is the better; a ranked total beats every unranked one.
        rank = list(range(self.limit + 1))
        ranked = [half(t) for t in rules.ranking]
        for i, t in enumerate(ranked):
            rank[t] = 10_000 - i
        self.rank = rank
        self.upset = (half(rules.upset[0]), half(rules.upset[1])) if rules.upset is not None else None
        self.double_rank = rules.double_rank if rules.double_rank is not None else 0
        self.wild = parse_card(rules.wild_card) if rules.wild_card is not None else -1
        self.wild_values = WILD_WHOLE_VALUES if rules.wild_whole_only else WILD_VALUES
        # triplee_wild: seven_half: a 7 and the wild card, counted 7½, are a reale (004)
        self.seven_wild_reale = rules.triplee and rules.triplee_wild == "seven_half"
        self.declare = frozenset(half(t) for t in rules.declare)
        self.more_cards = rules.more_cards_win_ties
        self.wild_loses = frozenset(half(t) for t in rules.wild_loses_ties_at)
        self.wild_loses_at = [int(t in self.wild_loses) for t in range(self.limit + 1)]  # per total
        self.table = tuple(
            PointsRow(
                -1 if e.total is None else half(e.total),
                -1 if e.cards is None else e.cards,
                -1 if e.wild is None else int(e.wild),
                -1 if e.double is None else int(e.double),
                e.points,
            )
            for e in rules.points_table
        )
        self.otherwise = rules.points_otherwise
        self.scores = frozenset(row.points for row in self.table) | {self.otherwise}  # what a winner may score
        self.bank_on_win = rules.bank_passes == "winner"
        self.bank_totals = frozenset(half(t) for t in rules.bank_totals)
        self.instant = (half(rules.instant_win[0]), rules.instant_win[1]) if rules.instant_win is not None else None
        self.target = rules.target_score
        self.to_target = rules.play_to_target


# --------------------------------------------------------------------------- hand values
def best_total(cards: Sequence[int], facts: RuleFacts, adjust: int = 0) -> int:
    """A hand's total in half points (``adjust`` added to the cards' sum: -1 for an ace
    declared ½). The wild card alone counts ½; with other cards it counts the value (½ or a
    whole 1..7) giving the best-ranked total within the limit (the highest, without a
    ranking), or ½ if none fits. With ``wild_whole_only`` it counts a whole 1..7, alone too
    (its best value; 1 if none fits)."""
    wild = facts.wild
    base = sum(VALUE2[c] for c in cards if c != wild) + adjust
    if wild < 0 or wild not in cards:
        return base
    return wild_total(base, len(cards) == 1, facts)


def wild_total(base: int, alone: bool, facts: RuleFacts) -> int:
    """The total of a hand holding the wild card (``best_total``): ``base`` is what its other
    cards make, ``alone`` whether the wild card is its only card."""
    values = facts.wild_values
    if alone and values[-1] == 1:  # alone: ½ (unless ½ is not a value it may take)
        return 1
    limit, rank = facts.limit, facts.rank
    best, best_rank = base + values[-1], -1
    for w in values:
        t = base + w
        if t <= limit and rank[t] > best_rank:
            best, best_rank = t, rank[t]
    return best


def is_reale(cards: Sequence[int], total: int, facts: RuleFacts) -> bool:
    """Sette e mezzo reale: the limit with two cards of one suit, a 7 (or the wild card) and
    a figure; with ``triplee_wild: seven_half``, also a 7 and the wild card (of any suits)."""
    if len(cards) != 2 or total != facts.limit:
        return False
    a, b = cards
    if facts.seven_wild_reale and ((RANK[a] == 7 and b == facts.wild) or (RANK[b] == 7 and a == facts.wild)):
        return True
    if SUIT[a] != SUIT[b]:
        return False
    return any((RANK[x] == 7 or x == facts.wild) and IS_FIGURE[y] for x, y in ((a, b), (b, a)))


def reale_suit(cards: Sequence[int], facts: RuleFacts) -> int:
    """The suit a reale (``is_reale``) ranks by (oros/denari = 0 the best): its cards' one
    suit; a 7 and the wild card (``triplee_wild: seven_half``, of any suits): the 7's."""
    a, b = cards[0], cards[1]
    if facts.seven_wild_reale and a == facts.wild and RANK[b] == 7:
        return SUIT[b]
    return SUIT[a]


def is_triplee(cards: Sequence[int], facts: RuleFacts) -> bool:
    """A triplèe's two cards (``triplee``, 004): two 7s, or a 7 and the wild card (unless
    ``triplee_wild: seven_half``, where those make 7½)."""
    a, b = cards
    wild = -1 if facts.seven_wild_reale else facts.wild
    return (RANK[a] == 7 or a == wild) and (RANK[b] == 7 or b == wild)


def is_double(cards: Sequence[int], facts: RuleFacts) -> bool:
    """A double (quattro e mezzo's "doppio sei"): a first card of ``double_rank`` and a second
    of the same rank or the wild card."""
    r = facts.double_rank
    if not r or len(cards) != 2:
        return False
    a, b = cards
    return RANK[a] == r and (RANK[b] == r or b == facts.wild)


# --------------------------------------------------------------------------- outcomes
# Why a punter hand of the banking game was paid what it was (``Payouts.outcome``; the engine
# records the code with the payment: ``game.EV_RESULT``). ``Payouts.by_outcome[code]`` is
# what the code pays, in stakes; ``siete_env.render.explain_result`` says it in words.
OUT_LOWER = 0  # the banker's total is higher
OUT_TIE = 1  # equal totals: ties go to the banker
OUT_BANKER_SEVEN_HALF = 2  # the banker made 7½
OUT_BOTH_SEVEN_HALF = 3  # both made 7½
OUT_BANKER_REALE = 4  # the banker made sette e mezzo reale
OUT_BOTH_REALE = 5  # both made a reale
OUT_HIGHER = 6  # the punter's total is higher
OUT_BANKER_BUST = 7  # the banker went over the limit
OUT_SEVEN_HALF = 8  # the punter's 7½ beats the banker's total
OUT_SEVEN_HALF_BANKER_BUST = 9  # the punter's 7½ and the banker bust
OUT_REALE = 10  # the punter's reale
OUT_BUST = 11  # the punter went over the limit (it loses whatever the banker does)
OUT_TRIPLEE = 12  # two 7s (triplèe): paid whatever the banker holds
OUT_FUSILAR = 13  # a shot 7 that made 7½ at the showdown
OUT_FUSILAR_BANKER_SEVEN_HALF = 14  # a shot 7 that made 7½ against the banker's 7½
OUT_POINTS_BEST = 15  # the points game: the best hand at the table scores
OUT_POINTS_UPSET = 16  # the points game: the upset total beat the total it upsets
OUT_POINTS_DOUBLE = 17  # the points game: a double beats everything
N_OUTCOMES = 18


# --------------------------------------------------------------------------- the banking game
class Payouts:
    """Settlement multipliers of the banking game: what a standing punter hand wins, in
    stakes (negative: what it loses), against the banker's total (the limit is 7½; above it
    the banker is bust). Reale scoring applies when ``rules.reale_pays`` is set."""

    def __init__(self, rules: Rules) -> None:
        self.limit: int = half(rules.limit)
        self.seven_half: int = rules.seven_half_pays
        self.banker_seven_half: int = rules.banker_seven_half_collects
        self.both_seven_half: int = rules.both_seven_half_collects
        self.reale: int = rules.reale_pays if rules.reale_pays is not None else 1
        self.banker_reale: int = rules.banker_reale_collects
        self.both_reale: int = rules.both_reale_collects

        # what each outcome (``OUT_*``) pays, in stakes: the one table ``multiplier`` reads
        self.by_outcome: list[int] = [0] * N_OUTCOMES
        for code, mult in (
            (OUT_LOWER, -1), (OUT_TIE, -1), (OUT_BANKER_SEVEN_HALF, -self.banker_seven_half),
            (OUT_BOTH_SEVEN_HALF, -self.both_seven_half), (OUT_BANKER_REALE, -self.banker_reale),
            (OUT_BOTH_REALE, -self.both_reale), (OUT_HIGHER, 1), (OUT_BANKER_BUST, 1),
            (OUT_SEVEN_HALF, self.seven_half), (OUT_SEVEN_HALF_BANKER_BUST, self.seven_half),
            (OUT_REALE, self.reale), (OUT_BUST, -1), (OUT_TRIPLEE, rules.triplee_pays),
            (OUT_FUSILAR, rules.fusilar_pays), (OUT_FUSILAR_BANKER_SEVEN_HALF, -self.both_seven_half),
        ):  # fmt: skip
            self.by_outcome[code] = mult

    def outcome(self, punter: int, banker: int, punter_reale: bool = False, banker_reale: bool = False) -> int:
        """Why a standing punter total ``punter`` (half points, at most the limit) wins or
        loses against the banker's ``banker``: an ``OUT_*`` code (``by_outcome`` says what it
        pays; ``siete_env.render.explain_result`` says it in words). Ties and lower totals
        lose one stake."""
        limit = self.limit
        if banker == limit:
            if banker_reale:
                return OUT_BOTH_REALE if punter_reale else OUT_BANKER_REALE
            return OUT_BOTH_SEVEN_HALF if punter == limit else OUT_BANKER_SEVEN_HALF
        if banker > limit or punter > banker:
            if punter_reale:
                return OUT_REALE
            if punter == limit:
                return OUT_SEVEN_HALF_BANKER_BUST if banker > limit else OUT_SEVEN_HALF
            return OUT_BANKER_BUST if banker > limit else OUT_HIGHER
        return OUT_TIE if punter == banker else OUT_LOWER

    def shot_outcome(self, punter: int, banker: int) -> int:
        """Fusilar: a shot 7's total once its card is shown (``punter``) against the banker's:
        only 7½ is paid (``OUT_FUSILAR``, or ``OUT_FUSILAR_BANKER_SEVEN_HALF`` against the
        banker's 7½); any other total is a bust (000 §9: "any other card is a bust")."""
        if punter != self.limit:
            return OUT_BUST
        return OUT_FUSILAR_BANKER_SEVEN_HALF if banker == self.limit else OUT_FUSILAR

    def multiplier(self, punter: int, banker: int, punter_reale: bool = False, banker_reale: bool = False) -> int:
        """A standing punter total ``punter`` (half points, at most the limit) against the
        banker's ``banker``, in stakes won (negative: lost): what its ``outcome`` pays."""
        return self.by_outcome[self.outcome(punter, banker, punter_reale, banker_reale)]


# --------------------------------------------------------------------------- the points game
class Shown(NamedTuple):
    """A hand at the showdown of the points game."""

    seat: int
    total: int  # half points
    cards: int  # how many cards
    wild: bool  # it holds the wild card
    double: bool
    standing: bool  # stood (not bust, not unplayed)


def hand_winners(hands: Sequence[Shown], banker: int, facts: RuleFacts) -> tuple[list[int], bool]:
    """The winners of a points-game hand (indices into ``hands``; ``banker`` is the banker's
    index) and whether they won by the upset: ``showdown.winners``, the rule's one
    definition (the batched kernels call it too)."""
    n = len(hands)
    out = [0] * n
    win, lose = facts.upset if facts.upset is not None else (-1, -1)
    k, upset = winners(
        [h.total for h in hands], [h.cards for h in hands], [int(h.wild) for h in hands],
        [int(h.double) for h in hands], [int(h.standing) for h in hands], n, banker, facts.rank, facts.limit,
        win, lose, facts.more_cards, facts.wild_loses_at, out,
    )  # fmt: skip
    return out[:k], upset


def hand_points(hand: Shown, facts: RuleFacts) -> int:
    """What a winning hand scores: the first row of the points table it matches, else
    ``points_otherwise``."""
    for row in facts.table:
        if row.double >= 0 and hand.double != bool(row.double):
            continue
        if row.total >= 0 and hand.total != row.total:
            continue
        if row.cards >= 0 and hand.cards != row.cards:
            continue
        if row.wild >= 0 and hand.wild != bool(row.wild):
            continue
        return row.points
    return facts.otherwise


def takes_bank(hand: Shown, upset: bool, facts: RuleFacts) -> bool:
    """Whether a points-game winner takes the bank: it won with a ``bank_totals`` total or by
    the upset (``bank_passes: winner``)."""
    return facts.bank_on_win and not hand.double and (upset or hand.total in facts.bank_totals)


def is_instant_win(cards: Sequence[int], total: int, facts: RuleFacts) -> bool:
    """``instant_win``: a hand of that total made with that many cards wins the game at once."""
    return facts.instant is not None and total == facts.instant[0] and len(cards) == facts.instant[1]


def tie_card_value(card: int) -> int:
    """The order of a tie-break card for the bank (a figure lowest, a 7 highest): its value."""
    return VALUE2[card]


__all__ = [
    "N_OUTCOMES",
    "OUT_BANKER_BUST",
    "OUT_BANKER_REALE",
    "OUT_BANKER_SEVEN_HALF",
    "OUT_BOTH_REALE",
    "OUT_BOTH_SEVEN_HALF",
    "OUT_BUST",
    "OUT_FUSILAR",
    "OUT_FUSILAR_BANKER_SEVEN_HALF",
    "OUT_HIGHER",
    "OUT_LOWER",
    "OUT_POINTS_BEST",
    "OUT_POINTS_DOUBLE",
    "OUT_POINTS_UPSET",
    "OUT_REALE",
    "OUT_SEVEN_HALF",
    "OUT_SEVEN_HALF_BANKER_BUST",
    "OUT_TIE",
    "OUT_TRIPLEE",
    "Payouts",
    "PointsRow",
    "RuleFacts",
    "Shown",
    "WILD_VALUES",
    "WILD_WHOLE_VALUES",
    "best_total",
    "half",
    "hand_points",
    "hand_winners",
    "is_double",
    "is_triplee",
    "is_instant_win",
    "is_reale",
    "takes_bank",
    "tie_card_value",
    "wild_total",
]
