"""Rule options and presets (docs/rules.md), validated with pydantic.

``Rules`` is a frozen model: one field per rule option, defaults as in docs/rules.md.
``resolve_rules`` turns what a user passes (a preset name, a dict of overrides on a
preset, or a ``Rules``) into a validated ``Rules`` for a table size, or raises a
``ValueError`` naming the offending option and what is allowed. Nothing is ever
half-applied: the input is validated whole before an environment uses it.

Values are as strict as their types (pydantic's strict mode): ``max_splits: "2"`` or
``remove_sotas: "yes"`` are refused, not coerced; lists are welcome where a tuple is
wanted (``bet_levels: [1, 2]``). YAML files are parsed to proper types before they get
here, and command-line values go through ``parse_rule_value`` (``rules_with_options``:
``--rules`` with ``--rule option=value`` overrides). ``check_table`` refuses options that
cannot apply at a table size (``side_bets`` heads-up).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, ClassVar, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .cards import N_CARDS, RANK, parse_card

MAX_PLAYERS = 12
MAX_TOTAL = 15
"""The highest total an option may name (``limit`` included)."""
MAX_AMOUNT = 10**9
"""The largest stake, chip count, score or hand count an option may name (a larger
integer would overflow the observation's floats)."""


class PointsEntry(BaseModel):
    """One row of a points game's table (``Rules.points_table``): a winning hand matching
    every field given scores ``points``; a field left out matches any hand."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    total: float | None = None
    """The hand's total in points (``4.5``)."""
    cards: int | None = Field(default=None, ge=1)
    """How many cards make it."""
    wild: bool | None = None
    """Made with the wild card (``true``) or without it (``false``)."""
    double: bool | None = None
    """A double (``double_rank``)."""
    points: int = Field(ge=0, le=MAX_AMOUNT)
    """What the hand scores."""

    @field_validator("total")
    @classmethod
    def _total(cls, v: float | None) -> float | None:
        return None if v is None else _half_points(v, "points_table total")


def _half_points(v: float, what: str) -> float:
    """``v`` if it is a total of 0..``MAX_TOTAL`` points in whole or half points; else a
    ``ValueError`` naming ``what`` and the range (infinity and NaN included: no
    ``OverflowError`` from ``int(v * 2)`` escapes the validation)."""
    if not (math.isfinite(v) and 0 <= v <= MAX_TOTAL):
        raise ValueError(f"{what} must be 0..{MAX_TOTAL} points, got {v}")
    if v * 2 != int(v * 2):
        raise ValueError(f"{what} must be a whole or half point (e.g. 4.5), got {v}")
    return v


class Rules(BaseModel):
    """One table's rules. Every field is a rule option of docs/rules.md (section in brackets)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    preset: str = "spanish"
    """Name of the preset these rules started from (informational)."""
    limit: float = 7.5
    """[§2] Over this total a hand is bust; a hand that reaches it stands at once (000-004:
    7½). Whole or half points, 1..15."""
    min_stand: float = 0.0
    """[§3.4] No hand, the banker's included, may stand below this total while a card can
    be drawn (quattro e mezzo, 004: 4½)."""
    scoring: Literal["stakes", "points"] = "stakes"
    """[§5] ``stakes``: the banking game, each punter against the banker for its stake
    (000-004); ``points``: all against all, the best hand of the table scores points from
    ``points_table`` (quattro e mezzo, 004). The points game has no bets: it needs
    ``bet_levels: [1]``, ``raise_on_draw: false`` and none of the banking game's extras."""
    ranking: tuple[float, ...] = ()
    """[§5] Points game: the standing totals best first, every total from ``min_stand`` to
    ``limit`` once (004: 4½, 7½, 7, 6½, 6, 5½, 5); empty: the higher total is the better."""
    upset: tuple[float, float] | None = None
    """[§5] Points game: ``[a, b]``: a hand of ``a`` beats a hand of ``b`` (which beats it
    otherwise) and then wins the hand, whatever the others hold (004: a 5 beats a 4½)."""
    double_rank: int | None = None
    """[§5] Points game: a first card of this rank and a second of the same rank (or the wild
    card) make a double, declared at once: it wins the hand; doubles tie (004: 6, "doppio sei")."""
    declare: tuple[float, ...] = ()
    """[§3.4] Points game: a hand reaching one of these totals declares it (it is shown); it
    may go on drawing below the limit (004: 4½ and 7½)."""
    more_cards_win_ties: bool = False
    """[§5] Points game: of two equal totals the one with more cards wins; a full tie (same
    total, same count) makes both winners (004). The banker wins every tie with it."""
    wild_loses_ties_at: tuple[float, ...] = ()
    """[§5] Points game: at these totals a hand made with the wild card loses a tie, even with
    more cards (004: 4½ and 7½)."""
    points_table: tuple[PointsEntry, ...] = ()
    """[§5] Points game: what a winning hand scores, the first matching row (004: 4½ 5, 7½ 3,
    double six 4, ...; docs/rules.md)."""
    points_otherwise: int = Field(default=1, ge=0, le=MAX_AMOUNT)
    """[§5] Points game: what a winning hand matching no row of ``points_table`` scores (004: 1)."""
    bank_totals: tuple[float, ...] = (7.5,)
    """[§6] ``bank_passes: winner``: the winning totals that take the bank (004: 4½ and 7½;
    a win by the upset takes it too)."""
    instant_win: tuple[float, int] | None = None
    """[§6] Points game: ``[total, cards]``: a hand of that total made with that many cards
    wins the whole game at once (004: a 4½ of nine cards): the episode ends and its maker's
    score is raised to ``target_score``."""
    target_score: int = Field(default=50, ge=1, le=MAX_AMOUNT)
    """[§6] Points game: the score that wins a game (004: 50 or 100)."""
    play_to_target: bool = False
    """[§6] Points game: an episode is a whole game, ending when a seat reaches
    ``target_score`` (``hands_per_episode`` is then not used); ``false``: an episode is
    ``hands_per_episode`` hands."""
    deck: Literal["spanish", "italian", "french"] = "spanish"
    """[§1] Card names and rendering (ids stay rank + suit letter ``o c e b``; in the
    italian deck ``o`` is denari, in the french deck ``o c e b`` are ♦ ♥ ♠ ♣)."""
    remove_sotas: bool = False
    """[§1] The four sotas (10s) are removed: 36 cards (seed 002)."""
    wild_card: str | None = None
    """[§1] The *matta* (e.g. ``"12o"``, king of oros/denari/diamonds): alone it counts ½;
    with other cards it counts the value (½ or 1..7) giving the best total <= 7½ (004)."""
    wild_whole_only: bool = False
    """[§1] The wild card counts a whole 1..7, never ½, alone too (its best value, 7 alone)
    (004: "la matta debba assumere un punteggio obbligatoriamente da 1 a 7, escludendo
    dunque il mezzo punto"). Needs ``wild_card``."""
    reshuffle: Literal["every_hand", "when_exhausted"] = "every_hand"
    """[§1] ``every_hand``: every hand is dealt from a freshly shuffled deck;
    ``when_exhausted``: one shoe runs across the hands of an episode, the discards are
    reshuffled when it runs out, and the cards already seen in the shoe are public (004)."""
    four_swap: Literal["off", "optional", "mandatory"] = "optional"
    """[§3.1] Swapping an initial 4 before betting."""
    burn_three_four: bool = False
    """[§3.1] Italian: an initial 3 or 4 may be burnt (BURN): shown, put out of play for the
    hand, and replaced by the top card, again while a 3 or 4 comes (004). It covers the 4s:
    use it with ``four_swap: off``."""
    burn_drawn: bool = False
    """[§3.1] With ``burn_three_four``: a 3 or 4 just received face-up from a hit may be
    burnt too (BURN, before any other decision), replaced face-up by the top card, again
    while a 3 or 4 comes (004 "possiedono come prima carta o ricevono da una chiamata un 3
    o un 4")."""
    ace_half: bool = False
    """[§7] Italian: an initial ace may be declared worth ½ (ACE_HALF, shown); every later
    card of that hand then comes face-down (004). Not an ace that is the ``wild_card``: the
    wild card takes its own value."""
    bet_levels: tuple[int, ...] = (1, 2, 3, 4, 5)
    """[§3.3] The stakes a punter may bet, in units of the minimum stake."""
    raise_on_draw: bool = True
    """[§3.4] A punter may raise its stake when it hits or stands."""
    max_face_down: Literal[1, "all"] = 1
    """[§3.4] ``1``: at most one face-down card per hand, a hit chooses face-up or face-down
    (turning the hidden card up) (000, 001, 003); ``all``: every later card is dealt
    face-down too, so a hand may hold several hidden cards and ``HIT_DOWN`` is its only hit
    (002 "descubiertas o cubiertas de acuerdo a como se decida la regla"; needs
    ``draw_face_down: true``)."""
    face_down_choice: bool = True
    """[§3.4] ``true``: before each hit the punter chooses face-up or face-down (000, 001);
    ``false``: it does not choose: the new card comes face-down when every card of the hand
    is face-up, face-up otherwise (003: "si toutes ses cartes sont visibles, la banque lui
    donne une carte cachée, mais si toutes ses cartes sauf une sont visibles, la banque lui
    en donne une visible"). ``false`` needs ``draw_face_down: true`` and ``max_face_down: 1``."""
    draw_face_down: bool = True
    """[§3.4] A hit may come face-down (turning the hidden card up); ``false``: only the
    initial card is hidden, every later card comes face-up (italian, 004)."""
    all_face_up: bool = False
    """[§3.4] Every punter card, the first included, is dealt face-up (000 §10)."""
    reveal_seven_half: bool = False
    """[§3.4] A punter reaching 7½ shows its hidden card at once (003, 004)."""
    max_splits: Literal["auto"] | int = "auto"
    """[§3.5] Splits per punter per hand; ``auto``: 2-3 players 3, 4-5 players 1, 6+ 0."""
    split_any_pair: bool = False
    """[§3.5] Allow splitting any two equal values, not only figures."""
    split_first_hand_only: bool = False
    """[§3.5] Splits only from the punter's first hand, while it holds its one card: the
    first card it draws that does not split ends the splitting, and split hands never split
    again (003: "jusqu'à ce qu'il reçoive une carte n'étant pas une figure"); ``false``: a
    split hand may split again while splits are left (000 §9). Needs splits
    (``max_splits`` not 0)."""
    fusilar: bool = False
    """[§3.2] A punter whose initial card is a 7 may shoot (FUSILAR): it shows the 7, and
    after its bet one card is put face-down under it that nobody sees; its turn ends. At
    settlement a figure makes 7½ paid ``fusilar_pays`` times the stake (unless the banker
    made 7½), any other card is a bust (000 §9)."""
    fusilar_pays: int = 4
    """[§3.2] Multiple of the stake paid to a shot that makes 7½."""
    canto: bool = False
    """[§3.4] The first punter to make 7½ announces it (000 §9 "el canto de las siete y media")."""
    banker_must_chase: bool = False
    """[§4] With ``canto``/``fusilar``: the banker may not stand below 7½ once a punter has
    announced 7½ or shot (000 §9)."""
    banker_policy_rule: Literal["free", "hit_below_6"] = "free"
    """[§4] ``hit_below_6``: the banker must hit below 6 and stand on 6 or more."""
    seven_half_pays: int = 2
    """[§5] Multiple of the stake paid to a punter's winning 7½."""
    banker_seven_half_collects: int = 1
    """[§5] Multiple of the stake the banker's 7½ collects from a punter without 7½."""
    both_seven_half_collects: int = 1
    """[§5] Multiple of the stake the banker's 7½ collects from a punter that has 7½ too."""
    reale_pays: int | None = None
    """[§5] *Sette e mezzo reale* (7½ with two cards of one suit: a 7, or the wild card, and
    a figure) is scored: a winning punter reale is paid this multiple (004: 2). ``null``:
    no reale."""
    banker_reale_collects: int = 2
    """[§5] What the banker's reale collects from a punter without reale (with ``reale_pays``)."""
    both_reale_collects: int = 1
    """[§5] What the banker's reale collects from a punter with a reale too."""
    bank_passes: Literal["seven_half", "reale", "never", "when_exhausted", "winner"] = "seven_half"
    """[§6] ``seven_half``: if the banker did not make 7½, the first punter in turn order
    with 7½ takes the bank for the next hand; ``reale``: only a reale paid double takes it
    (never against a banker's plain 7½, which beats it), the best by suit (oros > copas > espadas > bastos), and against a banker's reale only a better one
    (004), and with a shoe the bank also passes to the banker's right when the shoe runs out
    (004 says both); ``when_exhausted``: only that; ``never``: the bank stays; ``winner``
    (points game): the hand's winner with a ``bank_totals`` total or by the upset (004)."""
    bank_auction: bool = False
    """[§6] Before each hand every punter in turn may bid to buy the bank (BID_k / NO_BID);
    the banker sells to the highest bid or keeps it (SELL_BANK / KEEP_BANK); the price moves
    between their chips (001 "Compra de la banca")."""
    auction_bids: tuple[int, ...] = (1, 2, 5, 10)
    """[§6] The prices a punter may offer for the bank, in units of the minimum stake."""
    triplee: bool = False
    """[§7] Novara's *triplèe*: two 7s (or a 7 and the wild card) as a punter's first two
    cards stand at once and are paid ``triplee_pays`` times the stake, whatever the banker
    makes; they never take the bank (004)."""
    triplee_pays: int = 3
    """[§7] Multiple of the stake paid to a triplèe."""
    triplee_wild: Literal["triplee", "seven_half"] = "triplee"
    """[§7] With ``triplee``: what a 7 and the wild card make. ``triplee``: a triplèe (the
    wild counted 7); ``seven_half``: 7½ (the wild counted ½) scored as a reale, paid double
    and taking the bank (004: "farla valere come mezzo punto (scelta molto più frequente),
    farsi pagare doppio e prendere il mazzo")."""
    triplee_takes_bank: bool = True
    """[§7] With ``triplee`` and ``bank_passes: seven_half``: a triplèe of a 7 and the wild
    card counts 7½ and takes the bank like any 7½ (the engine's reading); ``false``: a
    triplèe never takes the bank (004: "paga triplo e non prende il mazzo"); only under
    ``bank_passes: seven_half`` (elsewhere a triplèe never takes it: ``false`` is refused)."""
    side_bets: bool = False
    """[§7] After the deal each punter in turn may back another punter's first hand
    (SIDE_BET_r: the seat r places after it; NO_SIDE_BET), without a say in its play; the
    side bet wins or loses with that hand, at ``side_bet_stake`` (000 §9 "Las apuestas")."""
    side_bet_stake: int = Field(default=1, ge=1, le=MAX_AMOUNT)
    """[§7] The stake of a side bet."""
    hands_per_episode: int = Field(default=1, ge=1, le=MAX_AMOUNT)
    """[§6] Hands played in one episode (a session)."""
    starting_chips: int | None = Field(default=None, ge=1, le=MAX_AMOUNT)
    """[§6] Chips each seat starts a session with (``null``: unlimited). A punter bets and
    raises only what it can cover; a seat that cannot cover the minimum stake sits out the
    following hands (a banker passes the bank on); the session ends when fewer than two
    seats can play."""
    """[§6] Hands played in one episode (a session)."""

    @field_validator("bet_levels", "auction_bids", mode="before")
    @classmethod
    def _levels(cls, v: Any, info) -> Any:
        if isinstance(v, int | str):
            raise ValueError(f"{info.field_name} is a list of positive integers, e.g. [1, 2, 3, 4, 5]")
        if isinstance(v, list):
            return tuple(v)  # a list (YAML, JSON, Python) where the field is a tuple
        return v

    @field_validator("bet_levels", "auction_bids")
    @classmethod
    def _levels_sorted(cls, v: tuple[int, ...], info) -> tuple[int, ...]:
        if not v or any(x < 1 for x in v) or list(v) != sorted(set(v)):
            raise ValueError(f"{info.field_name} must be distinct positive integers in increasing order, got {list(v)}")
        if v[-1] > MAX_AMOUNT:
            raise ValueError(f"{info.field_name} must be at most {MAX_AMOUNT:,}, got {v[-1]}")
        return v

    @field_validator(
        "ranking", "upset", "declare", "wild_loses_ties_at", "points_table", "bank_totals", "instant_win", mode="before"
    )
    @classmethod
    def _listed(cls, v: Any, info) -> Any:
        if isinstance(v, list):
            return tuple(v)  # a list (YAML, JSON, Python) where the field is a tuple
        return v

    @field_validator("limit", "min_stand")
    @classmethod
    def _totals(cls, v: float, info) -> float:
        return _half_points(v, info.field_name)

    @field_validator("upset", "instant_win")
    @classmethod
    def _total_pairs(cls, v: tuple | None, info) -> tuple | None:
        if v is not None:
            for t in v if info.field_name == "upset" else v[:1]:
                _half_points(t, info.field_name)
        return v

    @field_validator("ranking", "declare", "wild_loses_ties_at", "bank_totals")
    @classmethod
    def _total_lists(cls, v: tuple[float, ...], info) -> tuple[float, ...]:
        for t in v:
            _half_points(t, info.field_name)
        if len(set(v)) != len(v):
            raise ValueError(f"{info.field_name} lists a total twice: {list(v)}")
        return v

    @field_validator("max_splits", mode="before")
    @classmethod
    def _splits(cls, v: Any) -> Any:
        # one clear message instead of one per member of the union
        if v == "auto" or (type(v) is int and 0 <= v <= 3):
            return v
        raise ValueError("max_splits must be 'auto' or an integer 0..3")

    @field_validator("wild_card")
    @classmethod
    def _wild(cls, v: str | None) -> str | None:
        if v is not None:
            parse_card(v)
        return v

    @field_validator(
        "seven_half_pays", "banker_seven_half_collects", "both_seven_half_collects", "reale_pays",
        "banker_reale_collects", "both_reale_collects", "fusilar_pays", "triplee_pays",
    )  # fmt: skip
    @classmethod
    def _multiplier(cls, v: int | None) -> int | None:
        if v is not None and not 1 <= v <= 8:
            raise ValueError(f"a payout multiplier must be an integer 1..8, got {v}")
        return v

    @model_validator(mode="after")
    def _no_clash(self) -> Rules:
        clashes = []
        if self.all_face_up and self.draw_face_down:
            clashes.append(
                "all_face_up: true and draw_face_down: true clash (with every card face-up no card can be "
                "drawn face-down; set draw_face_down: false)"
            )
        if (self.triplee_wild != "triplee" or not self.triplee_takes_bank) and not self.triplee:
            clashes.append("triplee_wild and triplee_takes_bank need triplee: true (they say what a triplèe does)")
        if self.triplee_wild == "seven_half" and (self.wild_card is None or self.wild_whole_only):
            clashes.append(
                "triplee_wild: seven_half needs a wild_card that may count ½ (a wild_card, without wild_whole_only)"
            )
        if not self.face_down_choice and (not self.draw_face_down or self.max_face_down != 1):
            clashes.append(
                "face_down_choice: false needs draw_face_down: true and max_face_down: 1 (it says which hit comes "
                "face-down when a hand may hold one hidden card)"
            )
        if not self.triplee_takes_bank and self.triplee and self.bank_passes != "seven_half":
            clashes.append(
                f"triplee_takes_bank: false does nothing with bank_passes: {self.bank_passes} (a triplèe takes the "
                "bank only under bank_passes: seven_half); leave it true"
            )
        if self.split_first_hand_only and self.max_splits == 0:
            clashes.append(
                "split_first_hand_only: true does nothing with max_splits: 0 (no split at all); leave it false"
            )
        if self.burn_drawn and not self.burn_three_four:
            clashes.append("burn_drawn: true needs burn_three_four: true (burning a 3 or 4 at all)")
        if self.wild_whole_only and self.wild_card is None:
            clashes.append("wild_whole_only: true needs a wild_card (e.g. 12o)")
        if self.max_face_down == "all" and not self.draw_face_down:
            clashes.append(
                "max_face_down: all and draw_face_down: false clash (later cards cannot come both face-down "
                "and face-up; set draw_face_down: true)"
            )
        if self.wild_card is not None and self.remove_sotas and RANK[parse_card(self.wild_card)] == 10:
            clashes.append(f"wild_card: {self.wild_card} and remove_sotas: true clash (that card is not in the deck)")
        if self.starting_chips is not None and self.starting_chips < self.bet_levels[0]:
            clashes.append(
                f"starting_chips: {self.starting_chips} and bet_levels: {list(self.bet_levels)} clash "
                "(nobody could cover the minimum stake)"
            )
        if self.burn_three_four and self.four_swap != "off":
            clashes.append(
                f"burn_three_four: true and four_swap: {self.four_swap} clash (burning covers the 4s; set four_swap: off)"
            )
        if self.banker_must_chase and not (self.canto or self.fusilar):
            clashes.append("banker_must_chase: true needs canto: true or fusilar: true (something to chase)")
        if self.bank_passes == "reale" and self.reale_pays is None:
            clashes.append("bank_passes: reale needs reale scoring (set reale_pays, e.g. 2)")
        if self.bank_passes == "when_exhausted" and self.reshuffle != "when_exhausted":
            clashes.append("bank_passes: when_exhausted needs reshuffle: when_exhausted (a shoe that can run out)")
        clashes += self._points_clashes()
        if clashes:
            raise ValueError("; ".join(clashes))
        return self

    # The banking game's extras the points game has no use for, with the value it needs.
    _NOT_IN_POINTS: ClassVar[dict[str, Any]] = {
        "bet_levels": (1,), "raise_on_draw": False, "four_swap": "off", "burn_three_four": False, "burn_drawn": False,
        "ace_half": False, "fusilar": False, "canto": False, "banker_must_chase": False, "triplee": False,
        "triplee_wild": "triplee", "triplee_takes_bank": True,
        "side_bets": False, "bank_auction": False, "reale_pays": None, "starting_chips": None, "max_splits": 0,
        "banker_policy_rule": "free",
    }  # fmt: skip
    # The points game's fields, with the value that leaves them off in the banking game.
    _POINTS_ONLY: ClassVar[dict[str, Any]] = {
        "ranking": (), "upset": None, "double_rank": None, "declare": (), "more_cards_win_ties": False,
        "wild_loses_ties_at": (), "points_table": (), "instant_win": None, "play_to_target": False,
    }  # fmt: skip

    def _points_clashes(self) -> list[str]:
        """The fields of one scoring that the other cannot play, and the points game's own
        consistency (its ranking covers every standing total, ...)."""
        out: list[str] = []
        if self.min_stand > self.limit:
            out.append(f"min_stand: {self.min_stand} is above limit: {self.limit} (no hand could stand)")
        if self.scoring == "stakes":
            out += [
                f"{name}: {_show(getattr(self, name))!r} needs scoring: points"
                for name, off in self._POINTS_ONLY.items()
                if getattr(self, name) != off
            ]
            if self.bank_passes == "winner":
                out.append("bank_passes: winner needs scoring: points (the winner of an all-against-all hand)")
            return out
        out += [
            f"scoring: points and {name}: {_show(getattr(self, name))} clash (the points game has none of "
            f"the banking game's bets and extras; set {name}: {_show(off)})"
            for name, off in self._NOT_IN_POINTS.items()
            if getattr(self, name) != off
        ]
        if self.bank_passes not in ("winner", "never"):
            out.append(f"scoring: points needs bank_passes: winner or never, not {self.bank_passes}")
        lo, hi = int(self.min_stand * 2), int(self.limit * 2)
        if self.ranking and sorted(int(t * 2) for t in self.ranking) != list(range(max(lo, 1), hi + 1)):
            out.append(
                f"ranking {list(self.ranking)} must list every total from min_stand {self.min_stand} to limit "
                f"{self.limit} once (half points included), best first"
            )
        for name in ("declare", "wild_loses_ties_at", "bank_totals"):
            bad = [t for t in getattr(self, name) if not self.min_stand <= t <= self.limit]
            if bad:
                out.append(f"{name} {bad}: a total a hand can stand on ({self.min_stand}..{self.limit}) is needed")
        for name, t in (("upset", self.upset), ("instant_win", self.instant_win)):
            if t is not None:
                totals = t if name == "upset" else t[:1]
                if any(not (self.min_stand <= x <= self.limit and x * 2 == int(x * 2)) for x in totals):
                    out.append(f"{name} {list(t)}: totals a hand can stand on ({self.min_stand}..{self.limit}) needed")
        if self.double_rank is not None and self.double_rank not in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12):
            out.append(f"double_rank must be a card rank (1-7, 10, 11, 12), got {self.double_rank}")
        return out

    def deck_cards(self) -> tuple[int, ...]:
        """The card indices of the deck these rules play with."""
        return tuple(c for c in range(N_CARDS) if not (self.remove_sotas and RANK[c] == 10))

    def hands_bound(self) -> int:
        """The most hands an episode can have, as an observation bound: ``hands_per_episode``,
        or a million for a game played to ``target_score``."""
        return 10**6 if self.play_to_target else self.hands_per_episode

    def splits_for(self, num_players: int) -> int:
        """Splits allowed per punter per hand at a table of ``num_players``."""
        if self.max_splits != "auto":
            return int(self.max_splits)
        if num_players <= 3:
            return 3
        if num_players <= 5:
            return 1
        return 0


PRESETS: dict[str, dict[str, Any]] = {
    # 000, 001: the basic game.
    "spanish": {},
    # 002: the Latin American table plays without sotas.
    "latin": {"remove_sotas": True},
    # 000 §10: the blackjack-like variant: punters' cards all face-up, the banker hits below 6.
    "blackjack_style": {"all_face_up": True, "draw_face_down": False, "banker_policy_rule": "hit_below_6"},
    # 003: one stake announced by the bank, figure splits, the bank's 7½ collects double
    # (four times from a punter with 7½).
    # 000 §9: the complementary rules most tables accept.
    "spanish_full": {"canto": True, "banker_must_chase": True, "fusilar": True, "bank_auction": True},
    # 004: italian cards, the king of denari wild, only the first card hidden, 7½ shown at
    # once, the reale paid double and taking the bank, one shoe until it runs out.
    "italian": {
        "deck": "italian",
        "wild_card": "12o",
        "draw_face_down": False,
        "reveal_seven_half": True,
        "seven_half_pays": 1,
        "reale_pays": 2,
        "banker_reale_collects": 2,
        "both_reale_collects": 1,
        "bank_passes": "reale",
        "reshuffle": "when_exhausted",
        "four_swap": "off",
        "max_splits": 0,
    },
    "french": {
        "bet_levels": [1],
        "raise_on_draw": False,
        "max_splits": 3,
        "banker_seven_half_collects": 2,
        "both_seven_half_collects": 4,
        "four_swap": "off",
        "reveal_seven_half": True,
    },
    # 004 "Quattro e mezzo": all against all for points; 4½ is the best hand, 5 upsets it,
    # nobody stands below 4½; italian cards with the king of denari wild (choices in
    # docs/rules.md, "Quattro e mezzo").
    "quattro_e_mezzo": {
        "deck": "italian",
        "wild_card": "12o",
        "scoring": "points",
        "min_stand": 4.5,
        "ranking": [4.5, 7.5, 7, 6.5, 6, 5.5, 5],
        "upset": [5, 4.5],
        "double_rank": 6,
        "declare": [4.5, 7.5],
        "more_cards_win_ties": True,
        "wild_loses_ties_at": [4.5, 7.5],
        "points_table": [
            {"double": True, "wild": True, "points": 2},
            {"double": True, "points": 4},
            {"total": 4.5, "wild": True, "points": 3},
            {"total": 4.5, "points": 5},
            {"total": 7.5, "wild": True, "points": 1},
            {"total": 7.5, "points": 3},
            {"total": 5, "cards": 1, "points": 2},
            {"total": 5, "cards": 5, "points": 5},
        ],
        "points_otherwise": 1,
        "bank_passes": "winner",
        "bank_totals": [4.5, 7.5],
        "instant_win": [4.5, 9],
        "target_score": 50,
        "bet_levels": [1],
        "raise_on_draw": False,
        "four_swap": "off",
        "max_splits": 0,
        "draw_face_down": False,
    },
}


# ----------------------------------------------------------------------------- engines
_PART_OF: dict[str, tuple[str, Any]] = {
    "auction_bids": ("bank_auction", False), "fusilar_pays": ("fusilar", False), "triplee_pays": ("triplee", False),
    "triplee_wild": ("triplee", False), "triplee_takes_bank": ("triplee", False),
    "side_bet_stake": ("side_bets", False), "banker_reale_collects": ("reale_pays", None),
    "both_reale_collects": ("reale_pays", None), "burn_drawn": ("burn_three_four", False),
}  # fmt: skip
"""Options that change nothing while the feature they belong to is off (its value here)."""

ENGINE_OPTIONS: dict[str, frozenset[str]] = {
    # siete_env.batched: every option
    "batched": frozenset({
        "preset", "deck", "bet_levels", "raise_on_draw", "four_swap", "seven_half_pays",
        "banker_seven_half_collects", "both_seven_half_collects", "bank_passes", "max_splits", "split_any_pair",
        "draw_face_down", "all_face_up", "reveal_seven_half", "banker_policy_rule", "remove_sotas", "wild_card",
        "wild_whole_only", "reale_pays", "banker_reale_collects", "both_reale_collects", "reshuffle",
        "canto", "banker_must_chase", "fusilar", "fusilar_pays", "bank_auction", "auction_bids", "limit",
        "split_first_hand_only", "face_down_choice", "max_face_down", "ace_half", "burn_three_four", "burn_drawn",
        "triplee", "triplee_pays", "triplee_wild", "triplee_takes_bank", "side_bets", "side_bet_stake",
        # the session: several hands per episode, the chips each seat starts with
        "hands_per_episode", "play_to_target", "starting_chips",
        # the points game (quattro e mezzo)
        "scoring", "min_stand", "ranking", "upset", "double_rank", "declare", "more_cards_win_ties",
        "wild_loses_ties_at", "points_table", "points_otherwise", "bank_totals", "instant_win", "target_score",
    }),
    # siete_env.solve (the heads-up game without splits)
    "exact": frozenset({
        "preset", "deck", "bet_levels", "raise_on_draw", "four_swap", "seven_half_pays",
        "banker_seven_half_collects", "both_seven_half_collects", "bank_passes", "max_splits", "banker_policy_rule",
    }),
}  # fmt: skip
"""The options each engine besides the reference one (``tests.oracle.Game``) plays, whatever their
value: the one list of what an engine covers. Every other option must keep its default
there (``options_not_played``), or be one of ``_PART_OF`` with its feature off."""


def options_not_played(rules: Rules, engine: str) -> list[str]:
    """The options of ``rules`` that ``engine`` (a key of ``ENGINE_OPTIONS``) does not play,
    as ``name=value`` (empty: it plays these rules)."""
    plays = ENGINE_OPTIONS[engine]
    defaults = Rules()
    out = []
    for name in Rules.model_fields:
        value = getattr(rules, name)
        if name in plays or value == getattr(defaults, name):
            continue
        feature = _PART_OF.get(name)
        if feature is not None and getattr(rules, feature[0]) == feature[1]:
            continue
        out.append(f"{name}={value!r}")
    return out


def _show(v: Any) -> Any:
    """A field value as a rules file writes it."""
    if v is None:
        return "null"
    return list(v) if isinstance(v, tuple) else v


def fit_overrides(preset: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """``overrides`` without the options a preset's game does not play (the banking game's
    bets and extras, for a points game): e.g. to try one set of options on every preset."""
    if PRESETS[preset].get("scoring") != "points":
        return dict(overrides)
    return {k: v for k, v in overrides.items() if k not in Rules._NOT_IN_POINTS and k not in ("bank_passes",)}


def check_table(rules: Rules, num_players: int) -> None:
    """Refuse options that cannot apply at a table of ``num_players`` (a ``ValueError``
    naming the option): ``side_bets`` needs two punters, one to back the other's hand."""
    if rules.side_bets and num_players < 3:
        raise ValueError(
            f"side_bets: true needs at least 3 players (a punter backs another punter's hand); "
            f"this table has {num_players}"
        )


_WORDS = {"on": True, "yes": True, "y": True, "off": False, "no": False, "n": False}
MAX_YAML_BYTES = 1 << 20  # a rules or config file is a few hundred bytes: 1 MiB is far beyond any real one
MAX_YAML_NODES = 100_000  # values once aliases are expanded: anchors are welcome (shared settings), a bomb is not
_MAX_SHOWN = 200  # characters of a bad value shown in an error message


def shorten(value: Any, limit: int = _MAX_SHOWN) -> str:
    """``repr(value)``, cut to ``limit`` characters (a bad value in an error message)."""
    return cut(repr(value), limit)


def cut(text: str, limit: int = 2 * _MAX_SHOWN) -> str:
    """``text`` cut to about ``limit`` characters (a message quoting a user's value)."""
    return text if len(text) <= limit else f"{text[: limit - 20]}... ({len(text):,} characters)"


class StrictYAMLLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a mapping with a key given twice (YAML keeps the
    last one silently) and a document that aliases expand beyond ``MAX_YAML_NODES`` nodes
    (an alias bomb: a few lines that stand for billions of values)."""

    def construct_document(self, node: Any) -> Any:
        sizes: dict[int, int] = {}

        def size(n: Any) -> int:  # nodes once every alias is expanded (each node counted once per use)
            if id(n) not in sizes:
                sizes[id(n)] = 0  # a recursive alias: counted once
                kids = n.value if isinstance(n, yaml.CollectionNode) else []
                flat = [x for pair in kids for x in pair] if isinstance(n, yaml.MappingNode) else kids
                sizes[id(n)] = 1 + sum(size(k) for k in flat)
            return sizes[id(n)]

        total = size(node)
        if total > MAX_YAML_NODES:
            raise yaml.YAMLError(
                f"its aliases (*name) expand to {total:,} values (at most {MAX_YAML_NODES:,}): refused (an alias bomb?)"
            )
        return super().construct_document(node)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # "<<: *base": its keys may be overridden
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key: the constructor names it below
                continue
            if first is not None:
                raise yaml.YAMLError(f"key {shorten(key)} given twice (lines {first} and {line}): keep one")
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str) -> Any:
    """YAML text as Python values, through ``StrictYAMLLoader`` (safe types only, no key
    given twice, a bounded number of aliases). Raises ``yaml.YAMLError``."""
    try:
        return yaml.load(text, Loader=StrictYAMLLoader)  # noqa: S506  (a SafeLoader)
    except RecursionError:
        raise yaml.YAMLError("nested too deeply") from None


def _yaml_error(e: yaml.YAMLError) -> str:
    """A YAML error in at most a few lines."""
    return cut(str(e), 4 * _MAX_SHOWN)


def parse_rule_value(option: str, raw: str) -> Any:
    """A command-line value (``--rule option=value``, ``--set rules.option=value``) as the
    option's type: YAML, except YAML 1.1's on/off/yes/no (and y/n), which are booleans for
    a boolean option and stay words otherwise (``four_swap=off`` is the option ``off``)."""
    word = raw.strip()
    field = Rules.model_fields.get(option)
    if word.lower() in _WORDS:
        return _WORDS[word.lower()] if field is not None and field.annotation is bool else word
    try:
        return load_yaml(raw)
    except yaml.YAMLError:
        return raw


def option_help() -> str:
    return ", ".join(name for name in Rules.model_fields if name != "preset")


def read_yaml_mapping(path: str | Path, what: str = "rules file", holds: str = "rule options") -> dict[str, Any]:
    """A YAML file that must hold a mapping (an empty file is an empty mapping); a clear
    ``ValueError`` naming the file (``what``) otherwise: missing, not a regular file,
    over ``MAX_YAML_BYTES``, not UTF-8, not valid YAML (a key given twice, an alias bomb)."""
    p = Path(path)
    name = repr(str(p))
    try:
        if not p.is_file():
            problem = "no such file" if not p.exists() else "a folder" if p.is_dir() else "not a regular file"
            raise ValueError(f"cannot read {what} {name}: {problem}")
        if p.stat().st_size > MAX_YAML_BYTES:
            raise ValueError(f"{what} {name} is {p.stat().st_size:,} bytes: at most {MAX_YAML_BYTES:,}")
        raw = p.read_bytes()
    except OSError as e:
        raise ValueError(f"cannot read {what} {name}: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{what} {name} is not UTF-8 text (byte {e.start}: {raw[e.start : e.start + 1]!r})") from None
    try:
        data = load_yaml(text)
    except yaml.YAMLError as e:
        raise ValueError(f"{what} {name} is not valid YAML: {_yaml_error(e)}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"{what} {name} must hold a mapping of {holds}, not {type(data).__name__}")
    return data


def load_rules_file(path: str | Path) -> dict[str, Any]:
    """Read a rules YAML file (a mapping of options, optionally with ``preset``)."""
    return read_yaml_mapping(path)


def is_rules_file(name: str) -> bool:
    """Whether a ``rules`` string names a YAML file (rather than a preset)."""
    return name.endswith((".yaml", ".yml")) or "/" in name or "\\" in name


def rules_with_options(rules: str, options: list[str]) -> str | dict[str, Any]:
    """A ``--rules`` value (a preset or a YAML file) with ``--rule option=value`` overrides
    (each read as the option's type: ``parse_rule_value``) as a rules dict; ``rules`` itself
    without overrides."""
    if not options:
        return rules
    spec: dict[str, Any] = load_rules_file(rules) if is_rules_file(rules) else {"preset": rules}
    given: dict[str, str] = {}
    for item in options:
        key, eq, raw = item.partition("=")
        if not eq or not key:
            raise ValueError(f"--rule {item!r} must look like option=value (e.g. max_splits=0)")
        if key.strip() in given:
            raise ValueError(f"--rule {key.strip()} given twice ({given[key.strip()]!r} and {item!r}): keep one")
        given[key.strip()] = item
        spec[key.strip()] = parse_rule_value(key.strip(), raw)
    return spec


def resolve_rules(rules: str | dict[str, Any] | Rules | None = None) -> Rules:
    """Validated ``Rules`` from a preset name, a YAML file path, a dict
    (``{"preset": ..., option: value}``) or a ``Rules`` instance. Unknown presets and
    options, bad values and clashing options raise ``ValueError``."""
    if rules is None:
        rules = "spanish"
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, Path) or (isinstance(rules, str) and is_rules_file(rules)):
        rules = load_rules_file(rules)
    elif isinstance(rules, str):
        rules = {"preset": rules}
    if not isinstance(rules, dict):
        raise ValueError(
            f"rules must be a preset name ({', '.join(PRESETS)}), a YAML file, a dict of options or a Rules, "
            f"not {type(rules).__name__}"
        )
    spec = dict(rules)
    preset = spec.pop("preset", "spanish")
    if preset not in PRESETS:
        raise ValueError(f"unknown rules preset {preset!r}; allowed presets: {', '.join(PRESETS)}")
    unknown = [k for k in spec if k not in Rules.model_fields or k == "preset"]
    if unknown:
        raise ValueError(f"unknown rule option(s) {', '.join(map(repr, unknown))}; allowed options: {option_help()}")
    merged = {**PRESETS[preset], **spec, "preset": preset}
    try:
        return Rules(**merged)
    except ValidationError as e:
        msgs = []
        for err in e.errors():
            loc = ".".join(str(x) for x in err["loc"])
            msg = cut(err["msg"].removeprefix("Value error, "))
            msgs.append(f"rule option {loc!r}: {msg} (got {shorten(err.get('input'))})" if loc else msg)
        raise ValueError("invalid rules: " + "; ".join(msgs)) from None
