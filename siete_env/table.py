"""``Table``: one table played by the batched kernels, read as the reference engine is read.

The AEC environment steps this: the rules of a hand and of a session are the kernels'
(``siete_env.batched.kernels``, the one implementation every API plays), one row of state
for one table. What happened is the kernels' event log (``siete_env.events``: the
``game.EV_*`` tuples); what a seat sees is the kernels' ``observe``. The attributes below
(``cards``, ``status``, ``chips``, ...) are read from the row when asked, with the names and
meanings of ``tests.oracle.Game``'s, so the renderers and the readable views need not know which
engine they draw.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import events as event_log
from . import firstuse
from .batched import kernels as K
from .batched.engine import MAX_CHIPS, BatchedTables, chips_bound
from .cards import CARD_IDS, N_CARDS
from .encoding import state_vector
from .game import EV_NEW_HAND, IllegalActionError, Phase, Status, describe_illegal
from .hand import MAX_SWAPS
from .rules import Rules
from .settle import Payouts, RuleFacts, best_total, is_reale

_HIDDEN_IDS = tuple(f"{c}*" for c in CARD_IDS)
_OVER = int(Phase.OVER)
_EVN = K.EVN


class TableKernels:
    """What every ``Table`` of one ``rules`` and seat count shares: the batched engine of one
    table it was made with (its config, layout and first row), the rule facts, the compiled
    entry points (called without numba's dispatch: a step calls three of them) and their
    buffers."""

    bt: BatchedTables
    cfg: Any
    layout: Any
    row: Any
    max_splits: int
    H: int
    actions: Any
    facts: RuleFacts
    payouts: Payouts
    session: bool
    legal_of: dict[int, tuple[int, ...]]
    games: Any
    banker_arr: Any
    o: dict[str, int]
    end: int
    maxc: int
    deck_len: int
    legal_k: Any
    apply_k: Any
    observe_k: Any
    start_k: Any
    hand_k: Any
    hand_buf: Any
    deck_buf: Any

    def __init__(self, rules: Rules, n: int, chosen: bool) -> None:
        # int16 like the batched tables (the same compiled kernels), int64 for amounts beyond it
        wide = chips_bound(rules, n) > MAX_CHIPS
        log = 0 if chosen else event_log.EVENT_AREA
        # a transition deals at most the deck and the 4s swapped back into it, twice (a hand's
        # end and the next hand, a shoe reshuffled between)
        pick = K.F_CARDS + 2 * (len(rules.deck_cards()) + MAX_SWAPS * n) if chosen else 0
        self.bt = BatchedTables(1, n, rules, events=log, wide=wide, chosen=pick)
        self.row = self.bt.state[0]
        self.cfg = c = self.bt.cfg
        self.layout = self.bt.layout
        self.max_splits = rules.splits_for(n)
        self.H = 1 + self.max_splits
        self.actions = self.bt.actions
        self.facts = RuleFacts(rules)
        self.payouts = Payouts(rules)
        self.legal_of = {}  # legal tuples by bit set
        self.games = np.zeros(1, np.int64)
        self.banker_arr = np.zeros(1, np.int64)
        self.o = {name: int(c[getattr(K, name)]) for name in dir(K) if name.startswith("O_")}
        self.end = self.o["O_EV"]
        self.maxc = int(c[K.K_MAXC])
        self.deck_len = len(self.bt.deck_cards)
        self.session = bool(c[K.K_SESSION])  # several hands an episode: start's seed draws the later decks
        firstuse.notice(K.start_batch, "the batched engine")
        row, out = self.row, np.empty(self.layout.size, np.float32)
        self.legal_k = K.legal.compile(tuple(K.legal.typeof_pyval(a) for a in (row, c)))
        self.apply_k = K.apply.compile(tuple(K.apply.typeof_pyval(a) for a in (row, c, 0)))
        self.observe_k = K.observe.compile(tuple(K.observe.typeof_pyval(a) for a in (row, c, 0, False, out)))
        self.hand_buf = np.empty(6 + 2 * self.maxc, np.int64)
        self.deck_buf = np.zeros((1, self.deck_len), np.int32)
        st = (self.bt.state, c, self.games, self.banker_arr, self.deck_buf, 0, self.bt.rng)
        self.start_k = K.start_batch.compile(tuple(K.start_batch.typeof_pyval(a) for a in st))
        self.hand_k = K.seat_hand.compile(tuple(K.seat_hand.typeof_pyval(a) for a in (row, c, 0, self.hand_buf)))

    def blank(self, row: Any) -> None:
        """``row`` made a table that has not started (phase OVER, no cards)."""
        row[:] = 0
        row[K.PHASE] = K.P_OVER


class Table:
    """One table of ``num_players`` seats under ``rules``, stepped by the kernels (see the
    module's docstring). ``start`` deals a session's first hand from a given deck; its later
    decks and reshuffles come from ``seed``."""

    def __init__(
        self, rules: Rules, num_players: int, chosen: bool = False, kernels: TableKernels | None = None
    ) -> None:
        """``chosen``: every card dealt is chosen by the caller (``deal_chosen``: OpenSpiel's
        chance nodes), and no event log is kept. ``kernels``: those of another table of the
        same rules and seats, shared (``on``); this table then reads a row given to it."""
        self.rules = rules
        self.n = num_players
        self.k = k = kernels if kernels is not None else TableKernels(rules, num_players, chosen)
        self.row = k.row
        # the names the renderers and views read (``tests.oracle.Game``'s)
        self.cfg, self.layout, self.actions, self.bt = k.cfg, k.layout, k.actions, k.bt
        self.facts, self.payouts, self.wild = k.facts, k.payouts, k.facts.wild
        self.max_splits, self.H, self.hands_per_seat = k.max_splits, k.H, k.H
        self.session = k.session  # several hands an episode: start's seed draws the later decks
        self._events: list[tuple] = []
        self._pending: list[list[int]] = []  # logged entries not decoded yet (``events``)
        self._last_new_hand = 0
        self._legal: tuple[int, ...] | None = None
        self._scal: list[int] | None = None  # the row's scalars as a list, until the next action
        self._areas: dict[str, list[int]] = {}  # the row's areas read since the last action

    def on(self, row: Any) -> Table:
        """A table reading ``row`` (a row of this one's rules and seats, not written by it),
        sharing this one's compiled kernels: the view of a state kept as a row."""
        t = Table(self.rules, self.n, kernels=self.k)
        t.row = row
        return t

    def deal_chosen(self, base: Any, action: int, cards: list[int]) -> tuple[Any, int, list[int] | None]:
        """A table made with ``chosen``: from the row ``base`` (not changed) play ``action``,
        or with ``base`` None a session's first deal with ``action`` the banker, dealing
        ``cards`` in order (the first ones: a transition takes what it needs). Returns the new
        row and how many of ``cards`` it dealt; the third value is None, or, when the
        transition needed one more card, the cards that could come (sorted; the row then is
        of no use)."""
        k, row, cfg = self.k, self.row, self.cfg
        f = k.o["O_FORCE"]
        m = min(len(cards), int(cfg[K.K_FORCECAP]) - K.F_CARDS)
        if base is None:
            k.blank(row)
        else:
            row[:] = base
        row[f + K.F_N], row[f + K.F_I], row[f + K.F_NEED], row[f + K.F_ERR] = m, 0, 0, 0
        row[f + K.F_CARDS : f + K.F_CARDS + m] = cards[:m]
        if base is None:
            k.bt.rng[0] = 0
            k.banker_arr[0] = action
            k.deck_buf[0] = k.bt.deck_cards
            k.start_k(k.bt.state, cfg, k.games, k.banker_arr, k.deck_buf, k.deck_len, k.bt.rng)
        else:
            k.apply_k(row, cfg, action)
        if row[f + K.F_ERR]:
            raise ValueError(f"chosen cards {cards[:m]}: one of them is not in the deck where it is dealt")
        used = int(row[f + K.F_I])
        if row[f + K.F_NEED]:
            return row, used, [int(c) for c in np.flatnonzero(row[f + K.F_OUT : f + K.F_OUT + N_CARDS])]
        new = row.copy()
        new[f + K.F_N] = 0
        return new, used, None

    def __reduce__(self) -> tuple[object, ...]:
        """``copy.deepcopy`` and ``pickle`` of a table mid-hand (a search copies the env): a
        new ``Table`` of the same rules and seats, then its row, stream and logs."""
        state = (self.row.copy(), self.bt.rng.copy(), list(self.events), self.last_new_hand)
        return (_restore, (self.rules, self.n, state))

    # ------------------------------------------------------------------ play
    def start(self, banker: int, deck: Any, seed: int) -> None:
        """A new session: ``banker`` banks the first hand, dealt from ``deck`` (card indices,
        a full deck of the rules); ``seed`` (a 64-bit integer) draws the later ones."""
        k = self.k
        self.row[_EVN] = 0  # (events.clear)
        k.bt.rng[0] = seed & ((1 << 64) - 1)
        k.banker_arr[0] = banker
        k.deck_buf[0] = deck
        # (the deck and the banker are checked by the caller: the environment's reset)
        k.start_k(k.bt.state, self.cfg, k.games, k.banker_arr, k.deck_buf, k.deck_len, k.bt.rng)
        self._events = []
        self._last_new_hand = 0
        self._pending = [event_log.raw(self.row, self.cfg)]
        self._legal = None
        self._scal = None
        self._areas = {}

    def legal_actions(self) -> tuple[int, ...]:
        """Ids of the legal actions of the acting seat (empty once the episode is over)."""
        legal = self._legal
        if legal is None:
            bits = int(self.k.legal_k(self.row, self.cfg))
            legal_of = self.k.legal_of
            legal = legal_of.get(bits)
            if legal is None:
                legal = legal_of[bits] = tuple(a for a in range(len(self.actions)) if bits >> a & 1)
            self._legal = legal
        return legal

    def apply(self, action: int) -> None:
        """Apply the acting seat's action (an id into ``self.actions``); an illegal one
        raises ``IllegalActionError`` and changes nothing."""
        if action not in self.legal_actions():
            raise IllegalActionError(self.describe_illegal(action))
        self._legal = None
        self._scal = None
        self._areas = {}
        row = self.row
        row[_EVN] = 0  # (events.clear)
        self.k.apply_k(row, self.cfg, action)
        size = int(row[_EVN])
        if size < 0:
            event_log.raw(row, self.cfg)  # raises: the log overflowed
        end = self.k.end
        self._pending.append(row[end : end + size].tolist())

    @property
    def events(self) -> list[tuple]:
        """The session's event log (``game.EV_*`` tuples), decoded when asked."""
        if self._pending:
            n = self.n
            for vals in self._pending:
                at = len(self._events)
                new = event_log.decode(vals, n)
                self._events.extend(new)
                for i, ev in enumerate(new):
                    if ev[0] == EV_NEW_HAND:
                        self._last_new_hand = at + i
            self._pending = []
        return self._events

    @property
    def last_new_hand(self) -> int:
        """Where this hand's events start in ``events``."""
        self.events  # noqa: B018  (decodes what is pending, which sets _last_new_hand)
        return self._last_new_hand

    def observe(self, seat: int, out: np.ndarray, fold: bool = False) -> None:
        """Seat ``seat``'s observation (``encoding.Layout``) written into ``out``; suit-folded
        with ``fold`` (``features.fold_suits``)."""
        self.k.observe_k(self.row, self.cfg, seat, fold, out)

    # ------------------------------------------------------------------ the row, as Game's attributes
    def _list(self) -> list[int]:
        """The row's scalars (``kernels.BANKER .. NSCAL``)."""
        scal = self._scal
        if scal is None:
            scal = self._scal = self.row[: K.NSCAL].tolist()
        return scal

    def _area(self, name: str, size: int) -> list[int]:
        got = self._areas.get(name)
        if got is None or len(got) != size:
            o = self.k.o[name]
            got = self._areas[name] = self.row[o : o + size].tolist()
        return got

    @property
    def phase(self) -> int:
        return self._list()[K.PHASE]

    @property
    def seat(self) -> int:
        return self._list()[K.SEAT]

    @property
    def hand(self) -> int:
        return self._list()[K.HAND]

    @property
    def banker(self) -> int:
        return self._list()[K.BANKER]

    @property
    def hand_no(self) -> int:
        return self._list()[K.HANDNO]

    @property
    def acting_seat(self) -> int:
        """The seat to act (-1 once the episode is over)."""
        return -1 if self.phase == _OVER else self.seat

    @property
    def pos(self) -> int:
        return self._list()[K.POS]

    @property
    def deck(self) -> list[int]:
        return self._area("O_DECK", self._list()[K.DLEN])

    def cards_left(self) -> int:
        s = self._list()
        return s[K.DLEN] - s[K.POS]

    @property
    def chips(self) -> list[int]:
        return self._area("O_CHIPS", self.n)

    @property
    def nhands(self) -> list[int]:
        return self._area("O_NH", self.n)

    @property
    def splits(self) -> list[int]:
        return self._area("O_SPL", self.n)

    @property
    def swaps(self) -> list[int]:
        return self._area("O_SWP", self.n)

    @property
    def status(self) -> list[int]:
        return self._area("O_STATUS", self.n * self.H)

    @property
    def total(self) -> list[int]:
        return self._area("O_TOT", self.n * self.H)

    @property
    def stake(self) -> list[int]:
        return self._area("O_STAKE", self.n * self.H)

    @property
    def hidden(self) -> list[int]:
        return self._area("O_HID", self.n * self.H)

    @property
    def cards(self) -> list[list[int]]:
        """Each slot's cards in the order received (a shot card last)."""
        nc = self._area("O_NC", self.n * self.H)
        M = self.k.maxc
        flat = self._area("O_CARDS", self.n * self.H * M)
        return [flat[k * M : k * M + nc[k]] for k in range(len(nc))]

    @property
    def more_hidden(self) -> list[list[int]]:
        """Per slot: its face-down cards after the first (``max_face_down: all``, a ½ ace)."""
        if not (self.cfg[K.K_ALLDOWN] or self.cfg[K.A_ACE] >= 0):
            return []
        flag = self._area("O_MH", 40)
        return [[c for c in cards if flag[c]] for cards in self.cards]

    @property
    def blind(self) -> list[int]:
        """Per slot: the card under a shot 7 (nobody sees it), or -1."""
        return self._area("O_BLIND", self.n * self.H)

    @property
    def announced(self) -> list[bool]:
        return [bool(a) for a in self._area("O_ANN", self.n)]

    @property
    def bids(self) -> list[int]:
        return self._area("O_BID", self.n)

    @property
    def side_on(self) -> list[list[int]]:
        """Per seat: the seats backing its first hand, in turn order (empty without side bets)."""
        if self.cfg[K.A_NOSIDE] < 0:
            return []
        backs = self._area("O_SIDE", self.n)
        b, n = self.banker, self.n
        turn = [(b + 1 + i) % n for i in range(n)]
        return [[t for t in turn if backs[t] == s] for s in range(n)]

    @property
    def ace_half(self) -> list[bool]:
        """Per slot: its initial ace declared ½ (empty when the option is off)."""
        if self.cfg[K.A_ACE] < 0:
            return []
        return [bool(a) for a in self._area("O_ACE", self.n * self.H)]

    @property
    def triple(self) -> list[bool]:
        """Per slot: a triplèe (empty when the option is off)."""
        if not self.cfg[K.K_TRIPLEE]:
            return []
        return [bool(a) for a in self._area("O_TRIP", self.n * self.H)]

    @property
    def double(self) -> list[bool]:
        """The points game, per slot: a double (empty in the banking game)."""
        if not self.cfg[K.K_POINTS]:
            return []
        return [bool(a) for a in self._area("O_DBL", self.n * self.H)]

    @property
    def instant(self) -> int:
        """The points game: the slot that won the game at once (``instant_win``) this hand,
        or -1."""
        return self._list()[K.INSTANT]

    @property
    def burned(self) -> list[int]:
        """The cards burnt this hand (out of play)."""
        if self.cfg[K.A_BURN] < 0:
            return []
        return self._area("O_BURNED", self._list()[K.NBURN])

    @property
    def seen_shoe(self) -> list[int]:
        """A shoe's cards of finished hands that were shown face-up (in card order)."""
        if not self.cfg[K.K_SHOE]:
            return []
        return [c for c, f in enumerate(self._area("O_SEEN", 40)) if f]

    @property
    def new_banker(self) -> int:
        """Who takes the bank for the next hand (-1: the banker keeps it), once settled."""
        return self._list()[K.NEWB]

    @property
    def order(self) -> list[int]:
        """The punters of this hand in turn order (a seat sitting out is not one)."""
        b, n, H = self.banker, self.n, self.H
        st = self.status
        return [(b + i) % n for i in range(1, n) if st[((b + i) % n) * H] != Status.EMPTY]

    @property
    def discards(self) -> list[int]:
        """A shoe's cards of finished hands (the burnt ones first)."""
        if not self.cfg[K.K_SHOE]:
            return []
        return self._area("O_DISC", self._list()[K.NDISC])

    def all_cards(self) -> list[int]:
        """Every card of the deck, wherever it is (for conservation checks)."""
        out = self.deck[self.pos :] + self.discards + self.burned
        for cards in self.cards:
            out.extend(cards)
        return out

    def is_reale(self, k: int) -> bool:
        """Slot ``k`` holds sette e mezzo reale (``settle.is_reale``)."""
        return is_reale(self.cards[k], self.total[k], self.facts)

    def slot(self, seat: int, hand: int = 0) -> int:
        """The flat index of a hand slot."""
        return seat * self.H + hand

    def hand_total(self, cards: Any, adjust: int = 0) -> int:
        """Total in half points (``adjust`` added: -1 for an ace declared ½), the wild card
        at its best value (``settle.best_total``)."""
        return best_total(cards, self.facts, adjust)

    def balance(self, s: int) -> int:
        """Chips a seat holds (``starting_chips`` + its net result); unlimited without it."""
        start = self.rules.starting_chips
        return (1 << 30) if start is None else start + self.chips[s]

    def active(self, s: int) -> bool:
        """Whether a seat can cover the minimum stake (always, without ``starting_chips``)."""
        return self.rules.starting_chips is None or self.balance(s) >= self.rules.bet_levels[0]

    # ------------------------------------------------------------------ views
    def info(self, seat: int, legal_names: tuple[str, ...]) -> dict[str, object]:
        """A readable view of what ``seat`` knows of its own hand (the one it is playing):
        card ids, its face-down cards marked ``*``, a card nobody sees (fusilar) as ``??``."""
        buf = self.k.hand_buf
        m = self.k.hand_k(self.row, self.cfg, seat, buf)
        h, total, stake, chips, blind, _, *cards = buf[:m].tolist()
        hand: list[str] = []
        for j in range(0, len(cards), 2):
            c = cards[j]
            if cards[j + 1]:
                hand.append(_HIDDEN_IDS[c])
            elif c == blind:
                hand.append("??")
            else:
                hand.append(CARD_IDS[c])
        return {
            "role": "banker" if seat == self._list()[K.BANKER] else "punter",
            "hand": hand,
            "hand_index": h,
            "total": total * 0.5,
            "stake": stake,
            "chips": chips,
            "legal_actions": legal_names,
        }

    def describe_illegal(self, action: object) -> str:
        return describe_illegal(self.actions, self.legal_actions(), action, self.acting_seat, self.phase)

    def state_vector(self) -> np.ndarray:
        """The full state for a centralised critic (``raw_env.state``; ``encoding.state_vector``)."""
        return state_vector(self, self.layout)


def _restore(rules: Rules, n: int, state: tuple) -> Table:
    """A copy of a ``Table`` (``Table.__reduce__``)."""
    t = Table(rules, n)
    row, rng, events, last = state
    t.row[:] = row
    t.bt.rng[:] = rng
    t._events, t._last_new_hand = events, last
    return t
