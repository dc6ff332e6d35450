"""Who wins a hand of the points game (quattro e mezzo): the one definition that the
reference engine (through ``settle.hand_winners``) and the batched kernels (compiled by
numba: ``batched.kernels``) both call.

Plain Python over sequences of ints, in the subset numba compiles: the hands are parallel
sequences (``total`` in half points, ``ncards``, ``wild``: 1 if it holds the wild card,
``double``, ``standing``), the rules' facts are ``settle.RuleFacts``' as ints and tables
(``rank`` and ``wild_loses`` indexed by a total). Not compiled by mypyc (``setup.py``): numba
needs the Python function.
"""

from __future__ import annotations

from typing import Any


def winners(
    total: Any, ncards: Any, wild: Any, double: Any, standing: Any, n: int, banker: int, rank: Any, limit: int,
    upset_win: int, upset_lose: int, more_cards: bool, wild_loses: Any, out: Any,
) -> tuple[int, bool]:  # fmt: skip
    """The winners of a points-game hand among hands ``0..n-1`` (``banker`` is the banker's
    index), written to ``out``: ``(how many, won by the upset)``.

    A double beats everything (doubles tie; a banker's double wins); the upset total
    (``upset_win``, -1: none) beats ``upset_lose`` and then wins the hand whatever the others
    hold; otherwise the best rank wins. Among hands of equal value the banker wins every tie;
    otherwise (``more_cards``) the hands without the wild card win at a ``wild_loses``
    total, then those with the most cards; a full tie leaves them all winners. No standing
    hand: no winner. (One function: numba compiles it whole.)"""
    k = 0
    for i in range(n):
        if standing[i] and double[i]:
            out[k] = i
            k += 1
    if k > 0:
        for j in range(k):
            if out[j] == banker:
                out[0] = banker
                return 1, False
        return k, False
    upset = False
    if upset_win >= 0:
        for i in range(n):
            if standing[i] and total[i] == upset_lose:
                upset = True
        if upset:
            for i in range(n):
                if standing[i] and total[i] == upset_win:
                    out[k] = i
                    k += 1
            upset = k > 0
    if not upset:
        best = -2
        for i in range(n):
            if standing[i]:
                best = max(best, rank[total[i]] if total[i] <= limit else -1)
        if best == -2:
            return 0, False
        for i in range(n):
            if standing[i] and (rank[total[i]] if total[i] <= limit else -1) == best:
                out[k] = i
                k += 1
    # the tie among out[:k]
    for j in range(k):
        if out[j] == banker:
            out[0] = banker
            return 1, upset
    if not more_cards:
        return k, upset
    if wild_loses[total[out[0]]]:
        plain = 0
        for j in range(k):
            if not wild[out[j]]:
                out[plain] = out[j]
                plain += 1
        if plain > 0:
            k = plain
    most = 0
    for j in range(k):
        most = max(most, ncards[out[j]])
    m = 0
    for j in range(k):
        if ncards[out[j]] == most:
            out[m] = out[j]
            m += 1
    return m, upset


__all__ = ["winners"]
