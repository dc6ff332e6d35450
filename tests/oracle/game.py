"""The readable reference engine: the oracle the kernels are checked against.

The product plays one implementation of the rules, the batched kernels
(``siete_env.batched.kernels``; one table of them is ``siete_env.table.Table``). This is a
second, independent one written for reading: ``tests/batched_differential.py`` plays both
on the same decks and actions and compares every observation, mask, reward and event, and
the scenario tests read its state. It shares the rules' single definitions with the
kernels (``siete_env.hand``, ``siete_env.settle``, ``siete_env.showdown``) and the names of
``siete_env.game`` (actions, phases, statuses, events).

A ``Game`` is a small mutable state of ints and lists, advanced by ``apply(action)``;
every change an observer could see is also appended to ``Game.events``. All randomness
comes from the ``shuffle`` callable given to the game: a hand is dealt from the top of one
permuted deck, which is also what makes a stacked deck for a test trivial.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from siete_env.cards import CARD_IDS, IS_FIGURE, N_CARDS, RANK, VALUE2
from siete_env.game import (  # the names: actions, phases, statuses, events
    EV_ACE_HALF,
    EV_ANNOUNCE,
    EV_BID,
    EV_DEAL,
    EV_MOVE,
    EV_NEW_HAND,
    EV_PAY,
    EV_RESHUFFLE,
    EV_RESULT,
    EV_RETURN,
    EV_REVEAL,
    EV_SIDE,
    EV_STAKE,
    EV_STATUS,
    EV_TURN,
    HIT_DOWN,
    HIT_UP,
    KEEP,
    SPLIT,
    STAND,
    SWAP_FOUR,
    ActionKind,
    IllegalActionError,
    Phase,
    Status,
    build_actions,
    describe_illegal,
)
from siete_env.hand import (
    banker_must_hit,
    forced_banker_hits,
    may_burn,
    may_declare_half,
    may_shoot,
    may_split,
    may_swap,
    swap_return_position,
)
from siete_env.rules import Rules
from siete_env.settle import (
    OUT_BUST,
    OUT_POINTS_BEST,
    OUT_POINTS_DOUBLE,
    OUT_POINTS_UPSET,
    OUT_TRIPLEE,
    Payouts,
    RuleFacts,
    Shown,
    best_total,
    hand_points,
    hand_winners,
    is_double,
    is_instant_win,
    is_reale,
    is_triplee,
    reale_suit,
    takes_bank,
    tie_card_value,
)

_HIDDEN_IDS = tuple(c + "*" for c in CARD_IDS)
_K_STAND: Final = int(ActionKind.STAND)
_K_HIT_UP: Final = int(ActionKind.HIT_UP)
_K_SWAP: Final = int(ActionKind.SWAP_FOUR)
_K_SPLIT: Final = int(ActionKind.SPLIT)
_K_KEEP: Final = int(ActionKind.KEEP)
_K_RAISE: Final = int(ActionKind.RAISE)
_K_FUSILAR: Final = int(ActionKind.FUSILAR)
_K_BID: Final = int(ActionKind.BID)
_K_SELL: Final = int(ActionKind.SELL_BANK)
_K_BURN: Final = int(ActionKind.BURN)
_K_ACE: Final = int(ActionKind.ACE_HALF)
_BETP: Final = int(Phase.BET)
_DRAWP: Final = int(Phase.DRAW)
_SPLITP: Final = int(Phase.SPLIT)
_BANKP: Final = int(Phase.BANKER)
_OVERP: Final = int(Phase.OVER)
_AUCTIONP: Final = int(Phase.AUCTION)
_SIDEP: Final = int(Phase.SIDE_BETS)
_EMPTY: Final = int(Status.EMPTY)
_WAITING: Final = int(Status.WAITING)
_PLAYING: Final = int(Status.PLAYING)
_STOOD: Final = int(Status.STOOD)
_BUST: Final = int(Status.BUST)


class Game:
    """One table: a session of ``rules.hands_per_episode`` hands.

    Seats are ``0..n-1``; each seat has ``H = 1 + max_splits`` hand slots (split hands use
    slots ``1..``; the banker only slot 0). Per-hand data lives in flat lists indexed by
    ``k = seat * H + hand``: ``cards[k]`` (in the order received), ``hidden[k]`` (the
    face-down card or -1), ``total[k]`` (half points), ``stake[k]``, ``status[k]``.
    ``chips[s]`` is seat ``s``'s net result over the session.
    """

    __slots__ = (
        "rules", "n", "H", "hands_per_seat", "max_splits", "actions", "shuffle", "deck", "pos",
        "banker", "order", "turn", "seat", "hand", "phase", "cards", "hidden", "total",
        "stake", "status", "nhands", "splits", "chips", "hand_no", "events", "first_decision",
        "raised", "new_banker", "_legal_cache", "_levels", "_top", "_bet_ids", "_raise_ids",
        "_forced_banker", "_swap_mode", "payouts", "_legal", "_can_raise",
        "_split_any", "_initial_up", "_draw_down", "_all_down", "_forced_face", "_split_first", "_reveal75", "_slot_range", "wild", "_shoe", "discards", "seen_shoe", "_public", "_exhausted",
        "_reale", "announced", "blind", "_fusil_id", "_chase",
        "_canto", "_auction", "bids", "_auction_ids", "_burn_id", "_burn_drawn", "burnable", "burned", "triple", "swaps", "_start_chips", "_ace_id", "ace_half", "more_hidden", "_side_ids", "side_on", "payments", "last_new_hand", "_ev_seat", "_ev_phase", "draw_hook",
        "facts", "_limit", "_min", "_points", "double", "instant",
    )  # fmt: skip

    def __init__(self, rules: Rules, num_players: int, shuffle: Callable[..., Sequence[int]]):
        self.rules = rules
        self.n = num_players
        self.max_splits = rules.splits_for(num_players)
        self.H = self.hands_per_seat = 1 + self.max_splits
        self.actions = build_actions(rules, num_players)
        self.shuffle = shuffle
        self.draw_hook: Callable[[Game], None] | None = None  # see _draw
        self._levels = rules.bet_levels
        self._top = rules.bet_levels[-1]
        names = [a.name for a in self.actions]
        self._bet_ids = tuple(names.index(f"BET_{k}") for k in self._levels)
        self._raise_ids = {k: names.index(f"RAISE_{k}") for k in self._levels[1:]}
        self._forced_banker = rules.banker_policy_rule == "hit_below_6"
        self._swap_mode = rules.four_swap
        self.payouts = Payouts(rules)
        self._can_raise = rules.raise_on_draw and len(rules.bet_levels) > 1
        self._split_any = rules.split_any_pair
        self._initial_up = rules.all_face_up
        self._draw_down = rules.draw_face_down and not rules.all_face_up
        self._all_down = rules.max_face_down == "all"  # every later card face-down (002)
        self._forced_face = not rules.face_down_choice  # hidden exactly when none is (003)
        self._split_first = rules.split_first_hand_only  # splits end at the first non-split card (003)
        self._reveal75 = rules.reveal_seven_half
        facts = self.facts = RuleFacts(rules)  # the settlement facts (settle.py), half points
        self._limit = facts.limit  # over it a hand is bust; at it a hand stands
        self._min = facts.min_stand  # no hand stands below it while a card can be drawn
        self._points = facts.points_game  # all against all for points (no stakes)
        self.double: list[bool] = []  # points game, per slot: a double (double_rank)
        self.instant = -1  # points game: the slot that won the game at once (instant_win)
        self.wild = facts.wild  # its card, or -1
        self._shoe = rules.reshuffle == "when_exhausted"
        self._reale = rules.reale_pays is not None
        self.discards: list[int] = []  # shoe mode: cards of finished hands
        self.seen_shoe: list[int] = []  # shoe mode: of those, the ones shown face-up
        self._public: list[int] = []  # cards shown face-up in this hand
        self._exhausted = False
        self._canto = rules.canto
        self._chase = rules.banker_must_chase
        self._fusil_id = names.index("FUSILAR") if rules.fusilar else -1
        self.announced = [False] * num_players  # canto / fusilar, this hand
        self._burn_id = names.index("BURN") if rules.burn_three_four else -1
        self.burned: list[int] = []  # cards burned this hand (out of play)
        self._burn_drawn = rules.burn_drawn
        self.burnable = False  # burn_drawn: the acting hand just drew a 3 or 4 face-up it may burn
        self.triple: list[bool] = []  # per slot: a triplèe (empty list when the option is off)
        self._start_chips = rules.starting_chips
        self._ace_id = names.index("ACE_HALF") if rules.ace_half else -1
        # NO_SIDE_BET, then SIDE_BET_r at index r (empty without side bets)
        self._side_ids = (
            [names.index("NO_SIDE_BET")] + [names.index(f"SIDE_BET_{r}") for r in range(1, num_players)]
            if rules.side_bets else []
        )  # fmt: skip
        self.side_on: list[list[int]] = []  # per seat: the seats backing its first hand
        self.ace_half: list[bool] = []  # per slot: its initial ace declared ½ (empty when off)
        self.more_hidden: list[list[int]] = []  # per slot: face-down cards after the first
        self._auction = rules.bank_auction
        self.bids = [0] * num_players
        if self._auction:
            self._auction_ids = {a.name: i for i, a in enumerate(self.actions)}
        self.blind: list[int] = []  # per slot: the card under a shot 7 (nobody sees it), or -1
        self._legal_cache: dict[tuple, tuple[int, ...]] = {}
        self._legal: tuple[int, ...] | None = None
        self._slot_range = range(num_players * self.H)
        self.events: list[tuple] = []  # the session's event log (see EV_* above)
        self.payments: list[tuple[int, int, int]] = []  # chips moved, (from, to, amount)
        self.last_new_hand = 0
        self._ev_seat = self._ev_phase = -1
        self.chips = [0] * num_players
        self.hand_no = 0
        self.phase = _OVERP
        self.new_banker = -1
        self.seat = self.hand = 0

    # ------------------------------------------------------------------ copies
    def __reduce__(self) -> tuple[object, ...]:
        """``copy.deepcopy`` and ``pickle`` of a table mid-hand (a search copies the env): a
        new ``Game`` of the same rules and seats, then every attribute set so far."""
        state: dict[str, object] = {}
        for name in _GAME_ATTRS:
            if name in ("rules", "n", "payouts", "facts", "actions"):
                continue  # made from the rules again by the fresh Game
            try:
                state[name] = getattr(self, name)
            except AttributeError:  # not set yet (before the first hand, or unused by the rules)
                pass
        return (_new_game, (self.rules, self.n), state)

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    # ------------------------------------------------------------------ set-up
    def start(self, banker: int, deck: Sequence[int]) -> None:
        """Start a session with ``banker`` and the first hand dealt from ``deck``."""
        self.events.clear()
        self.payments.clear()
        self.chips = [0] * self.n
        self.hand_no = 0
        self.banker = banker
        self.discards = []
        self.seen_shoe = []
        self._exhausted = False
        self._deal_hand(deck)

    def _deal_hand(self, deck: Sequence[int] | None) -> None:
        """A new hand: from ``deck`` (a fresh order) or, in shoe mode, from what is left."""
        if deck is not None:
            self.deck = list(deck)
            self.pos = 0
        self._public = []
        self._open_hand()
        if self._auction:
            self.bids = [0] * self.n
            self.turn = 0
            self.hand = 0
            self._turn(self.order[0], _AUCTIONP)
        else:
            self._deal_cards()

    def _open_hand(self) -> None:
        """Roles, empty hands and the NEW_HAND event for the current banker."""
        n, H = self.n, self.H
        b = self.banker
        if self._start_chips is None:
            self.order = [(b + i) % n for i in range(1, n)]
        else:
            self.order = [(b + i) % n for i in range(1, n) if self.active((b + i) % n)]
        slots = n * H
        self.cards: list[list[int]] = [[] for _ in self._slot_range]
        self.hidden = [-1] * slots
        self.total = [0] * slots
        self.stake = [0] * slots
        status = self.status = [_EMPTY] * slots
        self.nhands = [1] * n
        self.splits = [0] * n
        self.burned = []
        self.swaps = [0] * n
        self.side_on = []
        if self._ace_id >= 0:
            self.ace_half = [False] * slots
        if self._ace_id >= 0 or self._all_down:
            self.more_hidden = [[] for _ in range(slots)]
        if self.rules.triplee:
            self.triple = [False] * slots
        if self._points:
            self.double = [False] * slots
            self.instant = -1
        if self._fusil_id >= 0 or self._canto:
            self.announced = [False] * n
            self.blind = [-1] * slots
        self.new_banker = -1
        self._legal = None
        self.last_new_hand = len(self.events)
        out = () if self._start_chips is None else tuple(s for s in range(n) if s != b and s not in self.order)
        self.events.append(
            (
                EV_NEW_HAND,
                b,
                self.hand_no,
                tuple(self.chips),
                len(self.deck) - self.pos,
                tuple(sorted(set(self.seen_shoe))),
                out,
            )
        )
        self._ev_seat = self._ev_phase = -1
        for s in self.order:
            status[s * H] = _WAITING
        status[b * H] = _WAITING

    def _deal_cards(self) -> None:
        """One face-down card to each punter in turn order, the banker's last; then play."""
        up = self._initial_up
        for s in self.order:
            if self.can_draw():
                self._give(s, 0, up)
        if self.can_draw():
            self._give(self.banker, 0, False)
        if self._side_ids and len(self.order) >= 2:
            self.side_on = [[] for _ in range(self.n)]
            self.turn = 0
            self.hand = 0
            return self._turn(self.order[0], _SIDEP)
        self.turn = -1
        self._next_punter()

    def _side_step(self, action: int) -> None:
        """Side bets (000 §9): after the deal each punter in turn may back another punter's
        hand, without a say in its play."""
        s = self.seat
        if action != self._side_ids[0]:
            r = self._side_ids.index(action)  # SIDE_BET_r: the seat r places after this one
            target = (s + r) % self.n
            self.side_on[target].append(s)
            self.events.append((EV_SIDE, target, self.rules.side_bet_stake))
        self.turn += 1
        if self.turn < len(self.order):
            return self._turn(self.order[self.turn], _SIDEP)
        self.turn = -1
        self._next_punter()

    def _auction_step(self, kind: int, arg: int) -> None:
        """Buying the bank (001): each punter in turn bids or passes, then the banker sells
        to the highest bid or keeps the bank; the price moves between their chips."""
        s = self.seat
        if s != self.banker:
            if kind == _K_BID:
                self.bids[s] = arg
                self.events.append((EV_BID, s, arg))
            self.turn += 1
            if self.turn < len(self.order):
                return self._turn(self.order[self.turn], _AUCTIONP)
            if any(self.bids):
                return self._turn(self.banker, _AUCTIONP)
        elif kind == _K_SELL:
            price = max(self.bids)
            buyer = self.bids.index(price)
            self._pay(buyer, self.banker, price)
            self.banker = buyer
            self._open_hand()  # the same hand, with the new banker
        self._deal_cards()

    # ------------------------------------------------------------------ helpers
    def can_draw(self) -> bool:
        return self.pos < len(self.deck) or (self._shoe and bool(self.discards))

    def _draw(self) -> int:
        """The next card: the top of the deck (a shoe first reshuffles its discards when it
        runs out). ``draw_hook``, when set, is called just before the card is read; it may
        write ``deck[pos]`` (a card still in the deck) or raise to stop the transition
        (``siete_env.openspiel`` makes every card dealt a chance node this way)."""
        if self.pos >= len(self.deck):
            self._reshuffle()
        hook = self.draw_hook
        if hook is not None:
            hook(self)
        c = self.deck[self.pos]
        self.pos += 1
        return c

    def _give(self, s: int, h: int, face_up: bool) -> int:
        c = self._draw()
        k = s * self.H + h
        self.cards[k].append(c)
        if self.wild < 0:
            self.total[k] += VALUE2[c]
        else:
            self.total[k] = self._slot_total(k)
        if face_up:
            self._public.append(c)
        elif self.hidden[k] >= 0:  # a declared ½ ace or max_face_down: all: several hidden cards
            self.more_hidden[k].append(c)
        else:
            self.hidden[k] = c
        self.events.append((EV_DEAL, c, s, h, face_up))
        return c

    def _reshuffle(self) -> None:
        """Shoe mode: the discards, shuffled, become the new shoe (the table keeps its cards)."""
        self.deck = list(self.shuffle(self.discards))
        self.pos = 0
        self.discards = []
        self.seen_shoe = []
        self._exhausted = True
        self.events.append((EV_RESHUFFLE, len(self.deck)))

    def _slot_total(self, k: int) -> int:
        return self.hand_total(self.cards[k], -1 if (self.ace_half and self.ace_half[k]) else 0)

    def hand_total(self, cards: Sequence[int], adjust: int = 0) -> int:
        """Total in half points (``adjust`` added to the cards' sum: -1 for an ace declared
        ½); the wild card takes its best value (``settle.best_total``)."""
        return best_total(cards, self.facts, adjust)

    def is_reale(self, k: int) -> bool:
        """Sette e mezzo reale (``settle.is_reale``)."""
        return is_reale(self.cards[k], self.total[k], self.facts)

    def _reale_suit(self, k: int) -> int:
        """The suit slot ``k``'s reale ranks by (``settle.reale_suit``: a 7 and the wild, the 7's)."""
        return reale_suit(self.cards[k], self.facts)

    def _reveal(self, s: int, h: int) -> None:
        k = s * self.H + h
        c = self.hidden[k]
        if c >= 0:
            self.hidden[k] = -1
            self._public.append(c)
            self.events.append((EV_REVEAL, c, s, h))
            if self.more_hidden and self.more_hidden[k]:
                for c in self.more_hidden[k]:
                    self._public.append(c)
                    self.events.append((EV_REVEAL, c, s, h))
                self.more_hidden[k] = []

    def _set_status(self, s: int, h: int, st: int) -> None:
        k = s * self.H + h
        self.events.append((EV_STATUS, s, h, self.status[k], st))
        self.status[k] = st

    def _result(self, s: int, h: int, outcome: int) -> None:
        """Settle a punter hand by its ``outcome`` (``settle.OUT_*``): it wins what the
        outcome pays times its stake (loses, if negative; ``Payouts.by_outcome``); side bets
        on a seat's first hand follow it at their own stake."""
        b = self.banker
        k = s * self.H + h
        st = self.stake[k]
        mult = self.payouts.by_outcome[outcome]
        banker_total = self.total[b * self.H] if self.status[b * self.H] in (_STOOD, _BUST) else -1
        self.events.append((EV_RESULT, s, h, outcome, st * mult, self.total[k], banker_total))
        if mult > 0:
            self._pay(b, s, st * mult)
        else:
            self._pay(s, b, -st * mult)
        if h == 0 and self.side_on and self.side_on[s]:
            side = self.rules.side_bet_stake
            for bettor in self.side_on[s]:
                if mult > 0:
                    self._pay(b, bettor, side * mult)
                else:
                    self._pay(bettor, b, -side * mult)

    def _turn(self, seat: int, phase: int) -> None:
        self.phase = phase
        if seat >= 0:
            self.seat = seat
        self.events.append((EV_TURN, self._ev_seat, self._ev_phase, seat, phase, self.hand_no))
        self._ev_seat, self._ev_phase = seat, phase

    def _pay(self, frm: int, to: int, amount: int) -> None:
        """Chips from ``frm`` to ``to``; ``frm = -1``: points scored (from no seat)."""
        if frm >= 0:
            self.chips[frm] -= amount
        self.chips[to] += amount
        self.events.append((EV_PAY, frm, to, amount))
        self.payments.append((frm, to, amount))

    def cards_left(self) -> int:
        return len(self.deck) - self.pos

    @property
    def acting_seat(self) -> int:
        """The seat to act (-1 once the episode is over)."""
        return -1 if self.phase == _OVERP else self.seat

    def slot(self, seat: int, hand: int = 0) -> int:
        """The flat index of a hand slot."""
        return seat * self.H + hand

    # ------------------------------------------------------------------ turn order
    def _next_punter(self) -> None:
        """Move to the next punter hand to play, or to the banker, or settle."""
        H = self.H
        while True:
            self.turn += 1
            if self.turn >= len(self.order):
                return self._banker_turn()
            s = self.order[self.turn]
            if self.status[s * H] == _WAITING:
                return self._begin_hand(s, 0)

    def _begin_hand(self, s: int, h: int) -> None:
        self.seat, self.hand = s, h
        self._set_status(s, h, _PLAYING)
        if self._points:  # no stakes: the hand starts drawing
            self.first_decision = True
            self.raised = False
            self._turn(s, _DRAWP)
        else:
            self._turn(s, _BETP)

    def _end_punter_hand(self) -> None:
        s, h = self.seat, self.hand
        if h + 1 < self.nhands[s]:
            return self._begin_hand(s, h + 1)
        self._next_punter()

    def _banker_turn(self) -> None:
        b, H, status = self.banker, self.H, self.status
        if not self._points and all(status[s * H + h] == _BUST for s in self.order for h in range(self.nhands[s])):
            return self._settle()  # the banking game: nothing left to play for
        self.seat, self.hand = b, 0
        self._reveal(b, 0)
        self._set_status(b, 0, _PLAYING)
        self._turn(b, _BANKP)

    # ------------------------------------------------------------------ legality
    def legal_actions(self) -> tuple[int, ...]:
        """Ids of the legal actions of the acting seat (empty once the game is over)."""
        legal = self._legal
        if legal is not None:
            return legal
        key: tuple = ()
        ph = self.phase
        can_draw = self.pos < len(self.deck) or (self._shoe and bool(self.discards))
        if ph == _DRAWP:
            k = self.seat * self.H + self.hand
            raise_from = (
                self.stake[k] if (self._can_raise and not self.raised and not self.first_decision) else self._top
            )
            cards = self.cards[k]
            shoot = (
                self._fusil_id >= 0 and can_draw
                and may_shoot(RANK[cards[0]], len(cards), self.first_decision, self.hand == 0)
            )  # fmt: skip
            cap = self._top if self._start_chips is None else self.stake[k] + self.budget(self.seat)
            down_only = self._all_down or (bool(self.ace_half) and self.ace_half[k])
            up_only = False
            if self._forced_face:  # 003: a hidden card only when every card is face-up
                up_only = self.hidden[k] >= 0
                down_only = down_only or not up_only
            low = can_draw and self.total[k] < self._min  # below min_stand: it must draw
            burn = self.burnable and can_draw
            key = (ph, can_draw, raise_from, shoot, cap, down_only, low, burn, up_only)
        elif ph == _BETP:
            k = self.seat * self.H
            first = self.hand == 0 and can_draw and len(self.cards[k]) == 1
            rank = RANK[self.cards[k][0]] if first else 0
            swap = first and self._swap_mode != "off" and may_swap(rank, self.swaps[self.seat])
            burn = first and self._burn_id >= 0 and may_burn(rank)
            ace = (
                first
                and self._ace_id >= 0
                and may_declare_half(rank, self.cards[k][0] == self.wild)
                and not self.ace_half[k]
            )
            cap = self._top if self._start_chips is None else max(self.budget(self.seat), self._levels[0])
            key = (ph, swap, burn, cap, ace)
        elif ph == _BANKP:
            t = self.total[self.seat * self.H]
            must = banker_must_hit(t, self._min, self._chase and any(self.announced), self._limit)
            key = (ph, can_draw, self._forced_banker and forced_banker_hits(t), must)
        elif ph == _SIDEP:
            s = self.seat
            can = self._start_chips is None or self.budget(s) >= self.rules.side_bet_stake
            key = (ph, s, tuple(self.order) if can else ())
        elif ph == _AUCTIONP:
            cap = 1 << 30 if self._start_chips is None else self.balance(self.seat)
            key = (ph, self.seat == self.banker, max(self.bids), cap)
        else:
            key = (ph,)
        legal = self._legal_cache.get(key)
        if legal is None:
            legal = self._legal_cache[key] = self._compute_legal(key)
        self._legal = legal
        return legal

    def _compute_legal(self, key: tuple) -> tuple[int, ...]:
        ph = key[0]
        if ph == _DRAWP:
            _, can_draw, raise_from, shoot, cap, down_only, low, burn, up_only = key
            if down_only:
                draws = [HIT_DOWN]
            else:
                draws = [HIT_UP] if (up_only or not self._draw_down) else [HIT_UP, HIT_DOWN]
            acts = ([] if low else [STAND]) + (draws if can_draw else []) + ([self._burn_id] if burn else [])
            acts += [self._raise_ids[k] for k in self._levels if raise_from < k <= cap]
            if shoot:
                acts.append(self._fusil_id)
            return tuple(acts)
        if ph == _BETP:
            _, swap, burn, cap, ace = key
            bets = tuple(a for a, k in zip(self._bet_ids, self._levels, strict=True) if k <= cap)
            if ace:
                bets = (self._ace_id, *bets)
            if swap:
                if self._swap_mode == "mandatory":
                    return (SWAP_FOUR,)
                return (SWAP_FOUR, *bets)
            if burn:
                return (self._burn_id, *bets)
            return bets
        if ph == _SPLITP:
            return (SPLIT, KEEP)
        if ph == _SIDEP:
            _, s, punters = key
            return (self._side_ids[0], *(self._side_ids[(t - s) % self.n] for t in punters if t != s))
        if ph == _AUCTIONP:
            ids = self._auction_ids
            if key[1]:
                return (ids["SELL_BANK"], ids["KEEP_BANK"])
            return (ids["NO_BID"], *(ids[f"BID_{k}"] for k in self.rules.auction_bids if key[2] < k <= key[3]))
        if ph == _BANKP:
            _, can_draw, must_hit, chase = key
            if not can_draw:
                return (STAND,)
            if chase:
                return (HIT_UP,)
            if self._forced_banker:
                return (HIT_UP,) if must_hit else (STAND,)
            return (STAND, HIT_UP)
        return ()

    # ------------------------------------------------------------------ transitions
    def apply(self, action: int) -> None:
        """Apply the acting seat's action (an id into ``self.actions``)."""
        if action not in self.legal_actions():
            raise IllegalActionError(self.describe_illegal(action))
        _, kind, arg = self.actions[action]
        self._legal = None
        self.burnable = False  # a drawn 3 or 4 is burnt at once or kept
        ph = self.phase
        s, h = self.seat, self.hand
        if ph == _DRAWP:
            if kind == _K_RAISE:
                self.stake[s * self.H + h] = arg
                self.raised = True
                self.events.append((EV_STAKE, s, h, arg))
            elif kind == _K_STAND:
                self._set_status(s, h, _STOOD)
                self._end_punter_hand()
            elif kind == _K_FUSILAR:
                self._shoot(s)
            elif kind == _K_BURN:
                self._burn(s, h)
            else:
                self._hit(s, h, kind == _K_HIT_UP)
        elif ph == _BETP:
            if kind == _K_SWAP:
                self._swap_four(s)
            elif kind == _K_BURN:
                self._burn(s, 0)
            elif kind == _K_ACE:
                self._declare_ace(s)
            else:
                self.stake[s * self.H + h] = arg
                self.events.append((EV_STAKE, s, h, arg))
                self.first_decision = True
                self.raised = False
                self._turn(s, _DRAWP)
        elif ph == _AUCTIONP:
            self._auction_step(kind, arg)
        elif ph == _SIDEP:
            self._side_step(action)
        elif ph == _SPLITP:
            if kind == _K_SPLIT:
                self._split(s, h)
            self.first_decision = False
            self.raised = False
            self._turn(s, _DRAWP)
            if kind == _K_KEEP:  # a kept pair (split_any_pair) or a wild card may bust or make 7½
                self._check_total(s, h)
        else:  # banker
            if kind == _K_STAND:
                self._set_status(s, 0, _STOOD)
                self._settle()
            else:
                k = s * self.H
                was_single = len(self.cards[k]) == 1
                self._give(s, 0, True)
                t = self.total[k]
                if self._points and was_single and self._made_double(k):  # declared: it stands
                    self._set_status(s, 0, _STOOD)
                    self._settle()
                elif t > self._limit:
                    self._set_status(s, 0, _BUST)
                    self._settle()
                elif (self._points and self._made_instant(k)) or t == self._limit:  # (the instant win first)
                    self._set_status(s, 0, _STOOD)
                    self._settle()

    def _hit(self, s: int, h: int, face_up: bool) -> None:
        k = s * self.H + h
        cards = self.cards[k]
        was_single = len(cards) == 1
        if not face_up and not self._all_down and not (self.ace_half and self.ace_half[k]):
            self._reveal(s, h)
        c = self._give(s, h, face_up)
        self._after_draw(s, h, c, was_single, face_up)

    def _after_draw(self, s: int, h: int, c: int, was_single: bool, face_up: bool) -> None:
        """A punter hand received ``c`` from a hit (or in place of a burnt card): a double,
        a triplèe, a split, a bust or 7½, a 3 or 4 it may burn."""
        k = s * self.H + h
        cards = self.cards[k]
        self.first_decision = False
        self.raised = False
        if self._points and was_single and self._made_double(k):  # declared: shown, it stands
            self._reveal(s, h)
            self._set_status(s, h, _STOOD)
            self._end_punter_hand()
            return
        if self.triple and was_single and is_triplee(cards, self.facts):
            self._reveal(s, h)  # a triplèe is shown and stands
            self.triple[k] = True
            self._set_status(s, h, _STOOD)
            self._end_punter_hand()
            return
        if (
            was_single
            and may_split(self.splits[s], self.max_splits, VALUE2[c], VALUE2[cards[0]], IS_FIGURE[c], self._split_any)
            and (h == 0 or not self._split_first)
            and (self._start_chips is None or self.budget(s) >= self._levels[0])
        ):
            self._turn(s, _SPLITP)
            return
        self._check_total(s, h)
        self._may_burn(k, c, face_up)

    def _may_burn(self, k: int, c: int, face_up: bool) -> None:
        """``burn_drawn``: a 3 or 4 just received face-up from a hit, in a hand that plays
        on, may be burnt (004 "o ricevono da una chiamata un 3 o un 4")."""
        if self._burn_drawn and face_up and may_burn(RANK[c]) and self.status[k] == _PLAYING and self.phase == _DRAWP:
            self.burnable = True

    def _check_total(self, s: int, h: int) -> None:
        """After a card joins a punter hand: over 7½ it busts and pays, at 7½ it stands."""
        k = s * self.H + h
        t = self.total[k]
        if t > self._limit:
            self._reveal(s, h)  # a bust hand is shown
            self._set_status(s, h, _BUST)
            if not self._points:
                self._result(s, h, OUT_BUST)
            self._end_punter_hand()
        elif self._points and self._made_instant(k):  # it wins the game at once
            self._reveal(s, h)
            self._set_status(s, h, _STOOD)
            self._settle()
        elif t == self._limit:
            if self._reveal75 or t in self.facts.declare:
                self._reveal(s, h)
            if self._canto and not any(self.announced):
                self._announce(s)
            self._set_status(s, h, _STOOD)
            self._end_punter_hand()
        elif t in self.facts.declare:  # declared (shown); it may go on drawing
            self._reveal(s, h)

    def _made_double(self, k: int) -> bool:
        """Points game: the slot's first two cards make a double (``settle.is_double``)."""
        if is_double(self.cards[k], self.facts):
            self.double[k] = True
            return True
        return False

    def _made_instant(self, k: int) -> bool:
        """Points game: the slot's hand wins the game at once (``settle.is_instant_win``)."""
        if is_instant_win(self.cards[k], self.total[k], self.facts):
            self.instant = k
            return True
        return False

    def balance(self, s: int) -> int:
        """Chips a seat holds (``starting_chips`` + its net result); unlimited without it."""
        return (1 << 30) if self._start_chips is None else self._start_chips + self.chips[s]

    def budget(self, s: int) -> int:
        """What a punter can still put at stake this hand (its balance less its stakes)."""
        H = self.H
        return self.balance(s) - sum(self.stake[s * H + h] for h in range(self.nhands[s]))

    def active(self, s: int) -> bool:
        """Whether a seat can cover the minimum stake (always, without ``starting_chips``)."""
        return self._start_chips is None or self.balance(s) >= self._levels[0]

    def _announce(self, s: int) -> None:
        self.announced[s] = True
        self.events.append((EV_ANNOUNCE, s))

    def _shoot(self, s: int) -> None:
        """Fusilar: the 7 is shown, a card nobody sees goes under it, the turn ends."""
        k = s * self.H
        self._reveal(s, 0)
        c = self._draw()
        self.cards[k].append(c)  # not counted until it is shown at settlement
        self.blind[k] = c
        self.events.append((EV_DEAL, c, s, 0, False))
        self._announce(s)
        self._set_status(s, 0, _STOOD)
        self._end_punter_hand()

    def _split(self, s: int, h: int) -> None:
        # Both split cards are face-up; the drawn one starts a new hand.
        H = self.H
        self._reveal(s, h)
        k = s * H + h
        c = self.cards[k].pop()
        nh = self.nhands[s]
        self.nhands[s] += 1
        self.splits[s] += 1
        self.cards[s * H + nh].append(c)
        self.total[k] = self._slot_total(k)
        self.total[s * H + nh] = self._slot_total(s * H + nh)
        self.events.append((EV_MOVE, c, s, h, nh))
        self._set_status(s, nh, _WAITING)

    def _declare_ace(self, s: int) -> None:
        """Italian: the initial ace is declared (shown) worth ½; later cards come face-down."""
        k = s * self.H
        self._reveal(s, 0)
        self.ace_half[k] = True
        self.total[k] = self._slot_total(k)
        self.events.append((EV_ACE_HALF, s))

    def _burn(self, s: int, h: int) -> None:
        """Italian: a 3 or 4 is shown and put out of play; the top card replaces it. The
        initial card (before the bet), or with ``burn_drawn`` one just received face-up from
        a hit (then replaced face-up, and the hand goes on as after a hit)."""
        k = s * self.H + h
        initial = self.phase == _BETP
        card = self.cards[k].pop()
        was_up = self.hidden[k] != card
        self.total[k] = self._slot_total(k)
        if not was_up:
            self.hidden[k] = -1
        self._public.append(card)
        self.burned.append(card)
        self.events.append((EV_RETURN, card, s, was_up, False, h))
        if initial:
            self._give(s, 0, self._initial_up)
            return
        was_single = len(self.cards[k]) == 1
        self._after_draw(s, h, self._give(s, h, True), was_single, True)

    def _swap_four(self, s: int) -> None:
        self.swaps[s] += 1
        if self.pos >= len(self.deck):
            self._reshuffle()  # before the 4 goes back, so that the shoe counts stay right
        k = s * self.H
        four = self.cards[k].pop()
        was_up = self.hidden[k] != four
        self.total[k] = self._slot_total(k)
        self.hidden[k] = -1
        # Shown, but back in the deck: not one of this shoe's seen discards.
        self.events.append((EV_RETURN, four, s, was_up, True, 0))
        self._give(s, 0, self._initial_up)
        self.deck.insert(swap_return_position(self.pos, len(self.deck)), four)

    # ------------------------------------------------------------------ settlement
    def _settle(self) -> None:
        if self._points:
            return self._settle_points()
        b, H = self.banker, self.H
        B = self.total[b * H]
        reale = self._reale
        pay = self.payouts
        banker_reale = reale and B == self._limit and self.is_reale(b * H)
        best_reale = -1  # the best punter reale (suit index; oros = 0 is best) and its seat
        for s in self.order:
            for h in range(self.nhands[s]):
                k = s * H + h
                if self.status[k] != _STOOD:
                    continue
                self._reveal(s, h)  # showdown: standing hands are shown
                P = self.total[k]
                if self.triple and self.triple[k]:  # triplèe: paid triple, whatever the banker has
                    self._result(s, h, OUT_TRIPLEE)
                    continue
                if self.blind and self.blind[k] >= 0:  # a shot 7: its card is shown now
                    c = self.blind[k]
                    self.blind[k] = -1
                    self._public.append(c)
                    self.events.append((EV_REVEAL, c, s, h))
                    P = self.total[k] = self._slot_total(k)
                    outcome = pay.shot_outcome(P, B)
                    if outcome == OUT_BUST:
                        self._set_status(s, h, _BUST)
                    self._result(s, h, outcome)
                    continue
                p_reale = reale and P == self._limit and self.is_reale(k)
                if p_reale and (best_reale < 0 or self._reale_suit(k) < self._reale_suit(best_reale)):
                    best_reale = k
                self._result(s, h, pay.outcome(P, B, p_reale, banker_reale))
        self._pass_bank(B, banker_reale, best_reale)
        self._next_hand()

    def _settle_points(self) -> None:
        """The points game (``scoring: points``): every standing hand is shown; the best of
        the table scores (``settle.hand_winners``, ``settle.hand_points``); a winner may take
        the bank (``settle.takes_bank``), a full tie for it going to the higher of one more
        card dealt to each (again while they tie; the first in turn order if the deck runs
        out); an ``instant_win`` hand wins the game at once."""
        H, b, facts = self.H, self.banker, self.facts
        seats = [*self.order, b]
        hands = []
        for s in seats:
            k = s * H
            standing = self.status[k] == _STOOD
            if standing:
                self._reveal(s, 0)  # showdown
            cards = self.cards[k]
            hands.append(Shown(s, self.total[k], len(cards), self.wild in cards, self.double[k], standing))
        if self.instant >= 0:
            w = self.instant // H
            hand = hands[seats.index(w)]
            self._pay(-1, w, max(hand_points(hand, facts), facts.target - self.chips[w]))
            self._turn(-1, _OVERP)
            return
        winners, upset = hand_winners(hands, len(seats) - 1, facts)
        B = hands[-1].total if hands[-1].standing else -1
        for i in winners:
            hand = hands[i]
            won = hand_points(hand, facts)
            why = OUT_POINTS_DOUBLE if hand.double else (OUT_POINTS_UPSET if upset else OUT_POINTS_BEST)
            self.events.append((EV_RESULT, seats[i], 0, why, won, hand.total, B))
            self._pay(-1, seats[i], won)
        if winners and takes_bank(hands[winners[0]], upset, facts):
            tied = [seats[i] for i in winners]
            while len(tied) > 1 and len(self.deck) - self.pos >= len(tied):  # one more card each, face-up
                drawn = [(s, self._give(s, 0, True)) for s in tied]
                top = max(tie_card_value(c) for _, c in drawn)
                tied = [s for s, c in drawn if tie_card_value(c) == top]
            self.new_banker = tied[0] if tied[0] != b else -1
        self._next_hand()

    def _next_hand(self) -> None:
        """After a settlement: the episode ends, or the next hand is dealt (the bank passed)."""
        self.hand_no += 1
        if self._episode_over():
            self._turn(-1, _OVERP)
            return
        if self.new_banker >= 0:
            self.banker = self.new_banker
        while self._start_chips is not None and not self.active(self.banker):  # it passes the bank on
            self.banker = (self.banker + 1) % self.n
        if self._shoe:
            self.discards.extend(self.burned)
            for cards in self.cards:
                self.discards.extend(cards)
            self.seen_shoe.extend(self._public)
            if self.pos >= len(self.deck):  # the shoe ended with the hand (``_pass_bank`` counted it)
                self._reshuffle()
                self._exhausted = False
            self._deal_hand(None)
        else:
            self._deal_hand(self.shuffle())

    def _episode_over(self) -> bool:
        if self.facts.to_target:
            return max(self.chips) >= self.facts.target
        if self.hand_no >= self.rules.hands_per_episode:
            return True
        return self._start_chips is not None and sum(self.active(s) for s in range(self.n)) < 2

    def _pass_bank(self, B: int, banker_reale: bool, best_reale: int) -> None:
        mode, H = self.rules.bank_passes, self.H
        if mode == "seven_half" and B != self._limit:
            keep_triple = bool(self.triple) and not self.rules.triplee_takes_bank  # 004 "non prende il mazzo"
            for s in self.order:
                if any(
                    self.total[s * H + h] == self._limit
                    and self.status[s * H + h] == _STOOD
                    and not (keep_triple and self.triple[s * H + h])
                    for h in range(self.nhands[s])
                ):
                    self.new_banker = s
                    break
        elif mode == "reale" and best_reale >= 0:
            # 004: "Se il sette e mezzo viene pagato doppio, dà diritto di diventare mazziere":
            # only a reale the banker paid double takes the bank (a banker's plain 7½ beats
            # it), and against a banker's reale only a better one ("a meno che gli altri
            # giocatori non abbiano un sette e mezzo di valore più alto").
            b = self.banker
            if B != self._limit or (banker_reale and self._reale_suit(best_reale) < self._reale_suit(b * H)):
                self.new_banker = best_reale // H
        # 004: "il mazziere tiene il banco fino all'esaurimento delle carte nel mazzo": the shoe
        # ran out in this hand, or with its last card.
        exhausted = self._exhausted or (self._shoe and self.pos >= len(self.deck))
        if self.new_banker < 0 and exhausted and mode in ("reale", "when_exhausted"):
            self.new_banker = (self.banker + 1) % self.n  # the banker's right: next in turn order
        self._exhausted = False

    # ------------------------------------------------------------------ views
    def info(self, seat: int, legal_names: tuple[str, ...]) -> dict[str, object]:
        """A readable view of what ``seat`` knows of its own hand (the one it is playing):
        card ids, its face-down cards marked ``*``, a card nobody sees (fusilar) as ``??``."""
        h = self.hand if (seat == self.seat and self.phase != _OVERP) else 0
        k = seat * self.H + h
        hidden = self.hidden[k]
        blind = self.blind[k] if self.blind else -1
        more: list[int] = self.more_hidden[k] if self.more_hidden else []
        hand: list[str] = []
        for c in self.cards[k]:
            if c == hidden or c in more:
                hand.append(_HIDDEN_IDS[c])
            elif c == blind:
                hand.append("??")
            else:
                hand.append(CARD_IDS[c])
        return {
            "role": "banker" if seat == self.banker else "punter",
            "hand": hand,
            "hand_index": h,
            "total": self.total[k] * 0.5,
            "stake": self.stake[k],
            "chips": self.chips[seat],
            "legal_actions": legal_names,
        }

    def describe_illegal(self, action: object) -> str:
        return describe_illegal(self.actions, self.legal_actions(), action, self.acting_seat, self.phase)

    def all_cards(self) -> list[int]:
        """Every card of the deck, wherever it is (for conservation checks)."""
        out = list(self.deck[self.pos :]) + list(self.discards) + list(self.burned)
        for cards in self.cards:
            out.extend(cards)
        return out


def _no_shuffle(cards: list[int] | None = None) -> list[int]:
    raise RuntimeError("a copied Game got no shuffle")  # replaced by the copied state


def _new_game(rules: Rules, n: int) -> Game:
    """A fresh table for ``Game.__reduce__`` (its state is set next)."""
    return Game(rules, n, _no_shuffle)


# every attribute of a table: the compiled class lists them in ``__mypyc_attrs__``, the
# interpreted one in ``__slots__``
_attrs: Any = getattr(Game, "__mypyc_attrs__", None) or getattr(Game, "__slots__", ())
_GAME_ATTRS: Final[tuple[str, ...]] = tuple(str(a) for a in _attrs)


assert N_CARDS == 40
