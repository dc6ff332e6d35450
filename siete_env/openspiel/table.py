"""The engine driven by chance outcomes, one card at a time (no pyspiel here).

OpenSpiel wants an explicit chance node for every card dealt. The engine every API plays
(the kernels, one table: ``siete_env.table.Table``) deals from the deck in its row; made
with ``chosen=True`` it deals the cards its caller chooses instead
(``siete_env.table.Table.deal_chosen``), without a second copy of the rules:

* a transition (an action, or the first deal) is played from the row before it with the
  cards chosen so far; the first card it needs beyond them stops it: the kernels flag it
  with the cards that could come (the cards not yet dealt from this deck, uniformly, or
  the swapped 4 alone where the rules have put one back: ``hand.swap_return_position``);
* once the card is chosen, the transition is played again from the same row.

So a ``Table`` is its history — the first banker (or ``-1`` while it is to be drawn), the
chance outcomes in dealing order, the player actions, and the player action waiting for
cards — and the row after each completed transition (rows are never written once made, so
copies share them). ``copy.deepcopy`` and ``pickle`` (what OpenSpiel's ``clone`` and
serialisation use) keep the history; an unpickled table replays it.
"""

from __future__ import annotations

import functools
from typing import Any

from ..game import IllegalActionError, Phase
from ..rules import Rules
from ..table import Table as Engine

START = -2  # the pending "action" of the first deal
NO_BANKER = -1


@functools.lru_cache(maxsize=32)
def engine(rules: Rules, num_players: int) -> Engine:
    """The one-table kernels of ``rules`` at ``num_players`` seats, dealing chosen cards
    (shared by every state of a game: it only plays transitions from given rows)."""
    return Engine(rules, num_players, chosen=True)


class Table:
    """One episode of the engine as a sequence of chance outcomes and player actions."""

    __slots__ = (
        "rules", "n", "banker", "cards", "actions", "pending", "outcomes", "log", "memo", "rewards", "rows", "used",
        "_view",
    )  # fmt: skip

    def __init__(self, rules: Rules, num_players: int, banker: int = NO_BANKER):
        self.rules = rules
        self.n = num_players
        self.banker = banker
        self.cards: list[int] = []  # chance outcomes: the cards dealt, in dealing order
        self.actions: list[int] = []  # player actions that completed
        self.log: list[tuple[int, int]] = []  # (seat, action) of every completed player action
        self.pending: int | None = START if banker >= 0 else None
        self.outcomes: list[int] | None = None  # the current chance node's outcomes
        self.memo: dict[Any, Any] = {}  # derived values of history prefixes (never mutated), shared by copies
        self.rewards = [0.0] * num_players  # chips moved by the last move
        self.rows: list[Any] = []  # the row after the first deal and after each completed action
        self.used: list[int] = []  # how many of ``cards`` each of ``rows`` has dealt
        self._view: Engine | None = None

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
        return bool(self.rows)

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

    def view(self) -> Engine:
        """The engine at the last completed transition (before a pending action), for
        reading; before the first deal, a table that has not started (phase OVER, no cards)."""
        v = self._view
        if v is None:
            eng = engine(self.rules, self.n)
            v = self._view = eng.on(self.rows[-1] if self.rows else _blank(eng))
        return v

    def at(self, n_actions: int) -> Engine:
        """The engine after the first deal and the first ``n_actions`` completed actions."""
        return engine(self.rules, self.n).on(self.rows[n_actions])

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
        self.pending = action
        self._advance()

    def _advance(self) -> None:
        """Play the pending transition with the cards chosen so far."""
        eng = engine(self.rules, self.n)
        self.rewards = [0.0] * self.n
        if self.pending == START:
            row, k, need = eng.deal_chosen(None, self.banker, self.cards)
            seat, before = -1, [0] * self.n
        else:
            assert self.pending is not None
            at = self.used[-1]
            row, k, need = eng.deal_chosen(self.rows[-1], self.pending, self.cards[at:])
            k += at
            prev = self.view()
            seat, before = prev.seat, prev.chips
        if need is not None:
            self.outcomes = need
            return
        self._view = None
        if self.pending != START:
            self.log.append((seat, self.pending))
            self.actions.append(self.pending)
        self.rows.append(row)
        self.used.append(k)
        self.rewards = [float(a - b) for a, b in zip(self.view().chips, before, strict=True)]
        self.pending = None
        self.outcomes = None

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
        self.banker = st["banker"]
        self.cards = list(st["cards"])
        self.actions = list(st["actions"])
        self.log = list(st["log"])
        self.pending = st["pending"]
        self.outcomes = None if st["outcomes"] is None else list(st["outcomes"])
        self.memo = {}
        self.rewards = list(st["rewards"])
        self._view = None
        self.rows, self.used = [], []
        if self.banker < 0 or (self.pending == START and self.outcomes is None):
            return  # nothing dealt yet
        if self.pending == START:
            return  # the first deal waits for a card: nothing completed
        eng = engine(self.rules, self.n)
        row, k, need = eng.deal_chosen(None, self.banker, self.cards)
        if need is not None:
            raise ValueError("a pickled table whose first deal is complete needs another card to replay it")
        self.rows, self.used = [row], [k]
        for a in self.actions:
            row, k, need = eng.deal_chosen(self.rows[-1], a, self.cards[self.used[-1] :])
            if need is not None:
                raise ValueError(f"a pickled table needs another card to replay its action {a}")
            self.rows.append(row)
            self.used.append(self.used[-1] + k)

    def __deepcopy__(self, memo: dict) -> Table:
        t = Table.__new__(Table)
        t.rules, t.n, t.banker = self.rules, self.n, self.banker
        t.cards, t.actions, t.log = list(self.cards), list(self.actions), list(self.log)
        t.pending = self.pending
        t.outcomes = None if self.outcomes is None else list(self.outcomes)
        t.memo = dict(self.memo)
        t.rewards = list(self.rewards)
        t.rows, t.used = list(self.rows), list(self.used)  # (rows are never written: shared)
        t._view = self._view  # (read-only)
        return t


def _blank(eng: Engine) -> Any:
    """A row that has not started (phase OVER, no cards)."""
    row = eng.row.copy()
    eng.k.blank(row)
    return row
