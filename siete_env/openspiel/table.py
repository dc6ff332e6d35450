"""The engine driven by chance outcomes, one card at a time (no pyspiel here).

OpenSpiel wants an explicit chance node for every card dealt. The engine (``siete_env.game``)
deals from a deck list inside its transitions; ``Table`` turns that into chance nodes with
the engine's ``draw_hook``, without a second copy of the rules:

* the engine is given the physical deck in a fixed order; just before it reads a card,
  the hook puts the card chosen at that chance node on top (a swap inside the cards not
  yet dealt), so the engine deals it;
* when the hook is asked for a card that has not been chosen yet it raises ``NeedCard``
  with the outcomes: the cards not yet dealt from this deck (uniformly), or the swapped 4
  alone where the engine has put one back (``hand.swap_return_position``: the hook reads it
  from the deck list, it never computes it);
* the transition that asked is then replayed from the start of the episode once the card
  is chosen (``Game`` is a few integers and lists: a replay costs microseconds per action).

So a ``Table`` is its history: the first banker (or ``-1`` while it is to be drawn), the
chance outcomes in dealing order, the player actions, and the player action waiting for
cards. ``copy.deepcopy`` and ``pickle`` (what OpenSpiel's ``clone`` and serialisation use)
replay that history.
"""

from __future__ import annotations

from typing import Any

from ..game import EV_DEAL, EV_NEW_HAND, EV_RESHUFFLE, EV_RETURN, Game, IllegalActionError, Phase
from ..rules import Rules

START = -2  # the pending "action" of the first deal
NO_BANKER = -1


class NeedCard(Exception):
    """The engine asked for a card no chance outcome has chosen yet."""

    def __init__(self, outcomes: list[int]):
        super().__init__(outcomes)
        self.outcomes = outcomes


class _Dealer:
    """The draw hook of one replay: hands out the chosen cards in order."""

    __slots__ = ("cards", "i", "back", "cursor", "shoe")

    def __init__(self, cards: list[int], shoe: bool):
        self.cards = cards
        self.i = 0
        self.back: set[int] = set()  # swapped 4s in the deck list, not dealt again yet
        self.cursor = 0
        self.shoe = shoe

    def __call__(self, g: Game) -> None:
        events = g.events
        if self.cursor > len(events):  # the log was cleared (a new session)
            self.cursor = 0
        for ev in events[self.cursor :]:
            code = ev[0]
            if code == EV_RETURN and ev[4]:
                self.back.add(ev[1])
            elif code == EV_DEAL:
                self.back.discard(ev[1])
            elif (code == EV_NEW_HAND and not self.shoe) or code == EV_RESHUFFLE:
                self.back.clear()  # a new deck list
        self.cursor = len(events)
        p = g.pos
        deck = g.deck
        top = deck[p]
        if top in self.back:  # the engine put this swapped 4 here: the only outcome
            if self.i < len(self.cards):
                if self.cards[self.i] != top:
                    raise ValueError(f"chance outcome {self.cards[self.i]} where the swapped 4 {top} is dealt")
                self.i += 1
                return
            raise NeedCard([top])
        if self.i < len(self.cards):
            c = self.cards[self.i]
            self.i += 1
            q = deck.index(c, p)  # still in the deck (checked when the outcome was applied)
            deck[p], deck[q] = c, top
            return
        raise NeedCard(sorted(set(deck[p:]) - self.back))


class Table:
    """One episode of the engine as a sequence of chance outcomes and player actions."""

    __slots__ = (
        "rules", "n", "banker", "cards", "actions", "pending", "game", "outcomes", "log", "memo", "rewards", "_deck",
    )  # fmt: skip

    def __init__(self, rules: Rules, num_players: int, banker: int = NO_BANKER):
        self.rules = rules
        self.n = num_players
        self._deck = list(rules.deck_cards())
        self.banker = banker
        self.cards: list[int] = []  # chance outcomes: the cards dealt, in dealing order
        self.actions: list[int] = []  # player actions that completed
        self.log: list[tuple[int, int]] = []  # (seat, action) of every completed player action
        self.pending: int | None = START if banker >= 0 else None
        self.game: Game | None = None
        self.outcomes: list[int] | None = None  # the current chance node's outcomes
        self.memo: dict[Any, Any] = {}  # derived values of history prefixes (never mutated), shared by copies
        self.rewards = [0.0] * num_players  # chips moved by the last move

    # ------------------------------------------------------------------ queries
    def _resolve(self) -> None:
        """A new table tries its first deal when first asked (copies skip it): the deal may
        need no card yet (an auction for the bank comes first)."""
        if self.pending == START and self.outcomes is None:
            self._advance()

    @property
    def is_chance(self) -> bool:
        if self.banker < 0:
            return True
        self._resolve()
        return self.pending is not None

    @property
    def started(self) -> bool:
        """Whether the first deal is complete (there is a game to look at)."""
        self._resolve()
        return self.banker >= 0 and self.pending != START

    @property
    def is_terminal(self) -> bool:
        return not self.is_chance and self.view().phase == Phase.OVER

    def chance_outcomes(self) -> list[int]:
        if self.banker < 0:
            return list(range(self.n))
        self._resolve()
        assert self.outcomes is not None
        return self.outcomes

    def current_player(self) -> int:
        """The acting seat, -1 at a chance node, -4 when the episode is over."""
        if self.is_chance:
            return -1
        g = self.view()
        return -4 if g.phase == Phase.OVER else g.seat

    def view(self) -> Game:
        """The engine at the last completed transition (before a pending action)."""
        if self.game is None:
            self.game = self._replay(len(self.actions), strict=False)
        return self.game

    # ------------------------------------------------------------------ moves
    def apply_chance(self, outcome: int) -> None:
        if self.banker < 0:
            if not 0 <= outcome < self.n:
                raise ValueError(f"the first banker is a seat 0..{self.n - 1}, got {outcome}")
            self.banker = outcome
            self.pending = START
        else:
            if self.outcomes is None or outcome not in self.outcomes:
                raise ValueError(f"chance outcome {outcome} is not one of {self.outcomes}")
            self.cards.append(outcome)
        self._advance()

    def apply_action(self, action: int) -> None:
        assert not self.is_chance
        g = self.view()
        if action not in g.legal_actions():
            raise IllegalActionError(g.describe_illegal(action))
        seat = g.seat
        before = list(g.chips)
        self.rewards = [0.0] * self.n
        try:
            g.apply(action)  # no card needed: done
        except NeedCard as e:
            self.game = None  # half-applied: replayed when the cards are known
            self.pending = action
            self.outcomes = e.outcomes
            return
        self.actions.append(action)
        self.log.append((seat, action))
        self.rewards = [float(a - b) for a, b in zip(g.chips, before, strict=True)]

    def _advance(self) -> None:
        """Try the pending transition again with the cards chosen so far."""
        seat = -1
        before = [0] * self.n
        self.rewards = [0.0] * self.n
        try:
            if self.pending == START:
                self.game = self._replay(0, strict=True)
            else:
                g = self._replay(len(self.actions), strict=True)
                seat = g.seat
                before = list(g.chips)
                assert self.pending is not None
                g.apply(self.pending)
                self.game = g
        except NeedCard as e:
            self.game = None
            self.outcomes = e.outcomes
            return
        self.rewards = [float(a - b) for a, b in zip(self.game.chips, before, strict=True)]
        if self.pending != START:
            assert self.pending is not None
            self.actions.append(self.pending)
            self.log.append((seat, self.pending))
        self.pending = None
        self.outcomes = None

    def at(self, n_actions: int) -> Game:
        """The engine after the first deal and the first ``n_actions`` completed actions."""
        if n_actions == len(self.actions) and self.pending is None:
            return self.view()
        return self._replay(n_actions, strict=False)

    def _replay(self, n_actions: int, strict: bool) -> Game:
        """A fresh engine after the first deal and ``n_actions`` actions. ``strict``: the
        first deal needs its cards (else ``NeedCard``); otherwise a table still being dealt
        gives an engine that has not started."""
        g = Game(self.rules, self.n, self._shuffle)
        g.draw_hook = _Dealer(self.cards, self.rules.reshuffle == "when_exhausted")
        try:
            g.start(self.banker, self._deck)
        except NeedCard:
            if strict:
                raise
            return Game(self.rules, self.n, self._shuffle)  # not started: phase OVER, no cards
        for a in self.actions[:n_actions]:
            g.apply(a)
        return g

    def _shuffle(self, cards: list[int] | None = None) -> list[int]:
        """The engine's shuffle: a fixed order (the hook chooses every card dealt)."""
        return sorted(cards) if cards is not None else list(self._deck)

    # ------------------------------------------------------------------ copies
    def __getstate__(self) -> dict[str, Any]:
        return {
            "rules": self.rules.model_dump(),
            "n": self.n,
            "banker": self.banker,
            "cards": list(self.cards),
            "actions": list(self.actions),
            "log": list(self.log),
            "pending": self.pending,
            "outcomes": None if self.outcomes is None else list(self.outcomes),
            "rewards": list(self.rewards),
        }

    def __setstate__(self, st: dict[str, Any]) -> None:
        self.rules = st["rules"] if isinstance(st["rules"], Rules) else Rules(**st["rules"])
        self.n = st["n"]
        self._deck = list(self.rules.deck_cards())
        self.banker = st["banker"]
        self.cards = list(st["cards"])
        self.actions = list(st["actions"])
        self.log = list(st["log"])
        self.pending = st["pending"]
        self.outcomes = None if st["outcomes"] is None else list(st["outcomes"])
        self.game = None
        self.memo = {}
        self.rewards = list(st["rewards"])

    def __deepcopy__(self, memo: dict) -> Table:
        t = Table.__new__(Table)
        t.rules, t.n, t._deck, t.banker = self.rules, self.n, self._deck, self.banker
        t.cards, t.actions, t.log = list(self.cards), list(self.actions), list(self.log)
        t.pending = self.pending
        t.outcomes = None if self.outcomes is None else list(self.outcomes)
        t.game = None  # replayed on demand
        t.memo = dict(self.memo)
        t.rewards = list(self.rewards)
        return t
