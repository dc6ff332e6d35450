"""The game's names: actions, phases, statuses and the events of the event log.

Every API plays one implementation of the rules, the batched kernels
(``siete_env.batched.kernels``; one table of them: ``siete_env.table.Table``); the rules'
single definitions they compile are in ``siete_env.hand``, ``siete_env.settle`` and
``siete_env.showdown``. This module names what the kernels, the encoder, the renderers and
the agents share: the actions (``build_actions``: indices into a tuple of
``ActionDef(name, kind, arg)``, whose ``kind`` is an ``ActionKind``), the phases and
statuses, and the ``EV_*`` events. The readable reference engine the kernels are checked
against lives in ``tests/oracle``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Final, NamedTuple

from .rules import Rules


class ActionKind(enum.IntEnum):
    STAND = 0
    HIT_UP = 1  # new card face-up (also the banker's hit)
    HIT_DOWN = 2  # new card face-down; the hand's hidden card is turned face-up
    SWAP_FOUR = 3  # return an initial 4 before betting and take the top card instead
    SPLIT = 4  # the figure just drawn starts a new hand
    KEEP = 5  # the figure just drawn stays in the current hand
    BET = 6  # initial stake ``arg``
    RAISE = 7  # raise the stake to ``arg``
    FUSILAR = 8  # shoot with an initial 7: a card nobody sees goes under it, the turn ends
    NO_BID = 9  # pass in the auction for the bank
    BID = 10  # offer ``arg`` for the bank
    SELL_BANK = 11  # the banker sells the bank to the highest bid
    KEEP_BANK = 12  # the banker keeps the bank
    BURN = 13  # italian: show an initial 3 or 4; it is put out of play and the top card dealt
    ACE_HALF = 14  # italian: declare an initial ace worth ½; every later card comes face-down
    NO_SIDE_BET = 15  # no side bet
    SIDE_BET = 16  # back the hand of the seat ``arg`` places after the bettor


class ActionDef(NamedTuple):
    name: str
    kind: ActionKind
    arg: int


class Phase(enum.IntEnum):
    BET = 0  # a punter hand starts: bet (or swap an initial 4)
    DRAW = 1  # a punter hand: hit face-up / face-down, stand, raise
    SPLIT = 2  # a punter just drew a matching figure: split or keep
    BANKER = 3  # the banker plays, all cards face-up
    OVER = 4  # the episode is over
    AUCTION = 5  # before a hand's deal: punters bid for the bank, the banker sells or keeps
    SIDE_BETS = 6  # after the deal: each punter may back another punter's hand


class Status(enum.IntEnum):
    EMPTY = 0  # no such hand (a split slot not used)
    WAITING = 1  # dealt, not yet played
    PLAYING = 2
    STOOD = 3
    BUST = 4


# Event codes (first item of each tuple of an event log: ``siete_env.table.Table.events``):
EV_NEW_HAND: Final = 0  # (EV_NEW_HAND, banker, hands_done, chips, cards_left, seen_in_shoe, seats_out)
EV_DEAL: Final = 1  # (EV_DEAL, card, seat, hand, face_up)
EV_REVEAL: Final = 2  # (EV_REVEAL, card, seat, hand): a face-down card is turned face-up
EV_MOVE: Final = 3  # (EV_MOVE, card, seat, from_hand, to_hand): a face-up split card moves
EV_RETURN: Final = 4  # (EV_RETURN, card, seat, was_face_up, back_to_deck, hand): a card leaves a hand (swap/burn)
EV_STATUS: Final = 5  # (EV_STATUS, seat, hand, old_status, new_status)
EV_STAKE: Final = 6  # (EV_STAKE, seat, hand, stake)
EV_TURN: Final = 7  # (EV_TURN, old_seat, old_phase, seat, phase, hands_done): who acts now
EV_PAY: Final = 8  # (EV_PAY, from_seat, to_seat, amount)
EV_RESHUFFLE: Final = 9  # (EV_RESHUFFLE, shoe_size): the discards became a new shoe
EV_ANNOUNCE: Final = 10  # (EV_ANNOUNCE, seat): the punter announced 7½ (canto) or shot (fusilar)
EV_BID: Final = 11  # (EV_BID, seat, amount): a bid for the bank
EV_ACE_HALF: Final = 12  # (EV_ACE_HALF, seat): the seat's initial ace now counts ½
EV_SIDE: Final = 13  # (EV_SIDE, target_seat, stake): a side bet was placed on the seat's hand
EV_RESULT: Final = 14  # (EV_RESULT, seat, hand, outcome, won, total, banker_total): why a hand was paid
# (``settle.OUT_*``; ``won``: chips won, negative lost, or points scored; the totals in half
# points, the banker's -1 when it had not played). ``render.explain_result`` says it in words.


FIXED_ACTIONS: Final[tuple[ActionDef, ...]] = tuple(
    ActionDef(kind.name, kind, 0)
    for kind in (
        ActionKind.STAND, ActionKind.HIT_UP, ActionKind.HIT_DOWN, ActionKind.SWAP_FOUR, ActionKind.SPLIT,
        ActionKind.KEEP,
    )
)  # fmt: skip
"""The actions of every rule set, first in every action table: their ids never change."""


def _fixed_id(kind: ActionKind) -> int:
    return [a.kind for a in FIXED_ACTIONS].index(kind)


# The ids of the fixed actions (``build_actions`` puts ``FIXED_ACTIONS`` first).
STAND: Final = _fixed_id(ActionKind.STAND)
HIT_UP: Final = _fixed_id(ActionKind.HIT_UP)
HIT_DOWN: Final = _fixed_id(ActionKind.HIT_DOWN)
SWAP_FOUR: Final = _fixed_id(ActionKind.SWAP_FOUR)
SPLIT: Final = _fixed_id(ActionKind.SPLIT)
KEEP: Final = _fixed_id(ActionKind.KEEP)


def build_actions(rules: Rules, num_players: int = 2) -> tuple[ActionDef, ...]:
    """The flat action table for these rules; the index of an action is its id."""
    acts = list(FIXED_ACTIONS)
    acts += [ActionDef(f"BET_{k}", ActionKind.BET, k) for k in rules.bet_levels]
    acts += [ActionDef(f"RAISE_{k}", ActionKind.RAISE, k) for k in rules.bet_levels[1:]]
    if rules.fusilar:
        acts.append(ActionDef("FUSILAR", ActionKind.FUSILAR, 0))
    if rules.burn_three_four:
        acts.append(ActionDef("BURN", ActionKind.BURN, 0))
    if rules.ace_half:
        acts.append(ActionDef("ACE_HALF", ActionKind.ACE_HALF, 0))
    if rules.side_bets:
        acts.append(ActionDef("NO_SIDE_BET", ActionKind.NO_SIDE_BET, 0))
        acts += [ActionDef(f"SIDE_BET_{r}", ActionKind.SIDE_BET, r) for r in range(1, num_players)]
    if rules.bank_auction:
        acts.append(ActionDef("NO_BID", ActionKind.NO_BID, 0))
        acts += [ActionDef(f"BID_{k}", ActionKind.BID, k) for k in rules.auction_bids]
        acts += [ActionDef("SELL_BANK", ActionKind.SELL_BANK, 0), ActionDef("KEEP_BANK", ActionKind.KEEP_BANK, 0)]
    return tuple(acts)


class IllegalActionError(ValueError):
    """An action that is not legal in the current state."""


# The enums' values as plain ints for the engine's hot paths (one source: the enums above).
def describe_illegal(actions: Sequence[ActionDef], legal: Sequence[int], action: object, seat: int, phase: int) -> str:
    """The error for an illegal ``action``: what it is, the seat and phase, the legal actions."""
    names = [actions[a].name for a in sorted(legal)]
    if isinstance(action, int) and 0 <= action < len(actions):
        what = f"{action} ({actions[action].name})"
    else:
        what = repr(action)
    return (
        f"illegal action {what} for seat {seat} in phase {Phase(phase).name}; "
        f"legal actions now: {names} (action ids 0..{len(actions) - 1})"
    )
