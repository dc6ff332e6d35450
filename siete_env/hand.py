"""The rules of a hand's moves, written once: what the reference engine (``tests.oracle.Game``)
and the batched kernels (``batched.kernels``, which compile each function with numba) both
call to decide whether a move is allowed and where a card goes.

Plain Python over ints, in the subset numba compiles, each function self-contained (numba
compiles it alone; the module's constants it reads as constants). Not compiled by mypyc (``setup.py``): numba needs the Python function.
Totals are in half points.
"""

from __future__ import annotations

from typing import Final

SWAP_RANK: Final = 4
"""The rank of the card the four-swap (``four_swap``) returns: an initial 4 (000)."""
MAX_SWAPS: Final = 4
"""Swaps of an initial 4 a punter may make in one hand ("y así hasta cuatro veces", 000);
the limit also ends the loop of a deck whose last cards are 4s."""
BURN_RANKS: Final = (3, 4)
"""The ranks ``burn_three_four`` may burn (004: "un 3 o un 4")."""
FUSILAR_RANK: Final = 7
"""The initial card a punter may shoot with (``fusilar``, 000 §9)."""
FORCED_BANKER_STANDS_AT: Final = 12
"""``banker_policy_rule: hit_below_6``: the banker hits below this total (half points: 6)
and stands from it."""


def swap_return_position(pos: int, deck_size: int) -> int:
    """The deck index a swapped 4 goes back to: half-way down the cards left, ``pos`` being
    the index of the next card to deal (after the replacement was dealt) in a deck of
    ``deck_size`` cards (the 4 not counted)."""
    return pos + (deck_size - pos) // 2


def may_swap(rank: int, swaps: int) -> bool:
    """A punter's one initial card of ``rank``, after ``swaps`` swaps this hand, may be
    swapped (with ``four_swap`` on and a card left to draw)."""
    return rank == SWAP_RANK and swaps < MAX_SWAPS


def may_split(splits: int, max_splits: int, value: int, first_value: int, figure: bool, any_pair: bool) -> bool:
    """A card of ``value`` just drawn onto a one-card hand whose card is worth
    ``first_value`` may start a new hand: splits are left, the values match, and the card is
    a figure (or ``split_any_pair``)."""
    return splits < max_splits and value == first_value and (figure or any_pair)


def may_burn(rank: int) -> bool:
    """``burn_three_four``: a card of ``rank`` may be burnt (an initial card before the bet;
    with ``burn_drawn``, one just received face-up from a hit, in a hand that plays on)."""
    return rank in BURN_RANKS


def may_declare_half(rank: int, wild: bool) -> bool:
    """``ace_half``: a punter's one initial card of ``rank`` may be declared worth ½: an ace
    that is not the wild card (the wild card takes its own value)."""
    return rank == 1 and not wild


def may_shoot(rank: int, cards: int, first_decision: bool, first_hand: bool) -> bool:
    """Fusilar: a punter's first hand holding only its initial card, of ``FUSILAR_RANK``, at
    its first decision (a card left to draw, the option on)."""
    return rank == FUSILAR_RANK and cards == 1 and first_decision and first_hand


def banker_must_hit(total: int, min_stand: int, chase: bool, limit: int) -> bool:
    """The banker may not stand: below ``min_stand``, or (``banker_must_chase``, ``chase``: a
    punter announced 7½ or shot) below the limit."""
    return total < min_stand or (chase and total < limit)


def forced_banker_hits(total: int) -> bool:
    """``banker_policy_rule: hit_below_6``: the banker's one move is to hit (else to stand)."""
    return total < FORCED_BANKER_STANDS_AT


__all__ = [
    "BURN_RANKS",
    "FORCED_BANKER_STANDS_AT",
    "FUSILAR_RANK",
    "MAX_SWAPS",
    "SWAP_RANK",
    "banker_must_hit",
    "forced_banker_hits",
    "may_burn",
    "may_declare_half",
    "may_shoot",
    "may_split",
    "may_swap",
    "swap_return_position",
]
