"""The enumeration of heads-up Siete y Media the exact evaluator works on.

Which rules it covers (``check_rules``), and for one rule set (``HeadsUpStates``):

* **punter card states** ``(k, h, U)``: ``k`` 4s swapped (back in the deck at known
  places), hidden rank ``h``, face-up rank counts ``U``; built layer by layer (one more
  face-up card per layer), with, per state and drawn rank, the chance of the rank and
  where a face-up or a face-down hit leads (a later state, 7½, a bust);
* **V rows**: every ``(k, U)`` a punter can stand with (what the banker sees of it, times
  the stake level);
* **banker nodes**: every multiset ``M`` of banker ranks with a total below 7½ (1489),
  by decreasing total, with the node each drawn rank leads to.

Cards are enumerated by rank (suits never change a payoff under the covered rules). Every
fact of the game comes from the engine: the payouts (``game.Payouts``), where a swapped 4
goes back (``hand.swap_return_position``), the most swaps (``hand.MAX_SWAPS``), the forced
banker's threshold (``hand.FORCED_BANKER_STANDS_AT``) and the action table
(``game.build_actions``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..cards import N_CARDS, N_RANKS, N_SUITS, RANKS, VALUE2
from ..encoding import Layout
from ..game import build_actions
from ..hand import FORCED_BANKER_STANDS_AT, MAX_SWAPS, SWAP_RANK, swap_return_position
from ..rules import Rules, options_not_played, resolve_rules
from ..settle import Payouts, half

VAL = np.array(VALUE2[:N_RANKS], np.int64)  # value of rank index r (card r of any suit), half points
FOUR = RANKS.index(SWAP_RANK)  # rank index of the swapped 4s
LIMIT = half(Rules().limit)  # the rules' limit, 7½ (check_rules refuses a game with another one)
MAX_DECIDING = LIMIT - 1  # a hand decides while its total is below 7½ (half points)
BUST = LIMIT + 1  # a total standing for "over 7½" in the payout table
# Outcomes of a draw in the punter's transition tables (``up_kind``, ``dn_kind``):
NO_CARD, NEXT_STATE, STANDS_75, BUSTS = 0, 1, 2, 3
# Children of a banker node (``M_child``) that are not nodes:
BANKER_75, BANKER_BUST, NO_SUCH_CARD = -1, -2, -3


# --------------------------------------------------------------------------- rules


def check_rules(rules: str | dict[str, Any] | Rules | None) -> Rules:
    """The validated rules if the exact evaluator covers them, else a ``ValueError``
    naming what is not covered."""
    r = resolve_rules(rules)
    bad = options_not_played(r, "exact")
    if r.splits_for(2) != 0:
        bad.append(f"max_splits={r.max_splits!r} (heads-up {r.splits_for(2)} splits)")
    if bad:
        raise ValueError(
            "the exact evaluator covers the heads-up spanish game without splits (bet levels, "
            "raises and four-swap included); not covered: "
            + ", ".join(bad)
            + ". Use e.g. rules={'preset': 'spanish', 'max_splits': 0}."
            + (
                " Splits are out of reach of an exact evaluation (the banker's joint observations of "
                "2-4 split hands number 10^9-10^19): docs/exact.md#splits-why-the-full-game-has-no-exact-nashconv"
                if r.splits_for(2) != 0
                else ""
            )
        )
    return r


# --------------------------------------------------------------------------- the enumeration
class HeadsUpStates:
    """The enumeration for one rule set (see the module docstring); the banker is seat 0
    and the punter seat 1 of a heads-up table."""

    def __init__(self, rules: str | dict[str, Any] | Rules | None = "spanish"):
        self.rules = r = check_rules(rules)
        self.levels = tuple(int(x) for x in r.bet_levels)
        self.L = len(self.levels)
        self.can_raise = bool(r.raise_on_draw) and self.L > 1
        self.kmax = 0 if r.four_swap == "off" else MAX_SWAPS
        self.forced = r.banker_policy_rule == "hit_below_6"  # the banker has no choice
        # payout[P, B]: the punter's multiplier of its stake, standing with P against the
        # banker's B (BUST: the banker busts; P = BUST stands for any total a punter cannot hold)
        pay = Payouts(r)
        self.payout = np.array([[pay.multiplier(P, B) for B in range(BUST + 1)] for P in range(BUST + 1)], np.int64)
        self.actions = build_actions(r, 2)
        self.A = len(self.actions)
        names = [a.name for a in self.actions]
        self.bet_ids = [names.index(f"BET_{s}") for s in self.levels]
        self.raise_ids = {i: names.index(f"RAISE_{s}") for i, s in enumerate(self.levels) if i > 0}
        self.layout = Layout(2, 1, self.levels[-1], r.hands_per_episode, False)
        # heads-up, the first swap: the two initial cards and the replacement are dealt
        self.fixed_at = swap_return_position(3, N_CARDS)  # deck index of the first swapped 4
        self._build_punter()
        self._build_banker_nodes()

    # ------------------------------------------------------------------ helpers
    def pool(self, k: int, U: tuple[int, ...]) -> list[int]:
        """Cards of each rank nobody but the banker may hold or the deck may deal freely:
        not among the punter's face-up cards, not a swapped 4 (its place is known)."""
        return [N_SUITS - U[r] - (k if r == FOUR else 0) for r in range(N_RANKS)]

    def fixed_drawn(self, vk: np.ndarray, vn: np.ndarray, m_n: int) -> np.ndarray:
        """Swapped 4s the banker has drawn when it holds ``m_n`` cards (their deck places
        are known: ``fixed_at + j``); the next deck index is ``1 + k + |U| + m_n``."""
        return np.clip(1 + vk + vn + m_n - self.fixed_at, 0, vk)

    def stake_vec(self) -> np.ndarray:
        return np.array(self.levels, np.float64)

    def raise_to(self) -> dict[int, int]:
        """The RAISE action id that goes to each stake level above the lowest."""
        return {sj: self.raise_ids[sj] for sj in range(1, self.L)}

    def after_hit_flag(self) -> np.ndarray:
        """Raise flag of the draw decision after a hit, by stake level."""
        return np.array([1 if (self.can_raise and si < self.L - 1) else 0 for si in range(self.L)])

    def bet_key(self) -> dict[tuple[int, int], int]:
        """``(k, h) -> i``: the BET states (the first layer), by index in that layer."""
        b0, b1 = self.layers[0]
        return {(int(self.K[c]), int(self.Hd[c])): c - b0 for c in range(b0, b1)}

    # ------------------------------------------------------------------ punter card states
    def _build_punter(self) -> None:
        """Enumerate the punter's card states by number of face-up cards (layers)."""
        states: list[tuple[int, int, tuple[int, ...]]] = []
        index: dict[tuple[int, int, tuple[int, ...]], int] = {}
        vu_index: dict[tuple[int, tuple[int, ...]], int] = {}
        self.vu_keys: list[tuple[int, tuple[int, ...]]] = []

        def vu_of(k: int, U: tuple[int, ...]) -> int:
            key = (k, U)
            i = vu_index.get(key)
            if i is None:
                i = vu_index[key] = len(self.vu_keys)
                self.vu_keys.append(key)
            return i

        zero = (0,) * N_RANKS
        layer = []
        for k in range(self.kmax + 1):
            pool = self.pool(k, zero)
            for h in range(N_RANKS):
                if pool[h] >= 1:
                    layer.append((k, h, zero))
        up_kind: list[list[int]] = []
        up_idx: list[list[int]] = []
        dn_kind: list[list[int]] = []
        dn_idx: list[list[int]] = []
        probs: list[list[float]] = []
        layers: list[tuple[int, int]] = []
        while layer:
            start = len(states)
            for key in layer:
                index[key] = len(states)
                states.append(key)
            layers.append((start, len(states)))
            nxt: dict[tuple[int, int, tuple[int, ...]], None] = {}
            for k, h, U in layer:
                pool = self.pool(k, U)
                pool[h] -= 1
                n = sum(pool)
                assert 2 + k + sum(U) < self.fixed_at or k == 0  # a punter never reaches a swapped 4
                t = int(VAL @ np.array(U)) + VAL[h]
                row_p, uk, ui, dk, di = [], [], [], [], []
                for r in range(N_RANKS):
                    row_p.append(pool[r] / n if pool[r] > 0 else 0.0)
                    t2 = t + VAL[r]
                    for hid, kinds, idxs in ((h, uk, ui), (r, dk, di)):
                        moved = r if hid == h else h  # the card that ends face-up
                        U2 = list(U)
                        U2[moved] += 1
                        U2t = tuple(U2)
                        if pool[r] <= 0:
                            kinds.append(NO_CARD)
                            idxs.append(0)
                        elif t2 > LIMIT:
                            kinds.append(BUSTS)
                            idxs.append(0)
                        elif t2 == LIMIT:
                            kinds.append(STANDS_75)
                            idxs.append(vu_of(k, U2t))
                        else:
                            kinds.append(NEXT_STATE)
                            child = (k, hid, U2t)
                            nxt[child] = None
                            idxs.append(-1)  # resolved below
                probs.append(row_p)
                up_kind.append(uk)
                up_idx.append(ui)
                dn_kind.append(dk)
                dn_idx.append(di)
            layer = list(nxt)
            for key in layer:
                index.setdefault(key, -1)
        self.states = states
        n_states = len(states)
        self.layers = layers
        self.p = np.array(probs)
        self.up_kind, self.dn_kind = np.array(up_kind, np.int8), np.array(dn_kind, np.int8)
        ui_arr, di_arr = np.array(up_idx, np.int64), np.array(dn_idx, np.int64)
        # resolve child state indices
        for c, (k, h, U) in enumerate(states):
            for r in range(N_RANKS):
                if self.up_kind[c, r] == NEXT_STATE:
                    U2 = list(U)
                    U2[r] += 1
                    ui_arr[c, r] = index[(k, h, tuple(U2))]
                if self.dn_kind[c, r] == NEXT_STATE:
                    U2 = list(U)
                    U2[h] += 1
                    di_arr[c, r] = index[(k, r, tuple(U2))]
        self.up_idx, self.dn_idx = ui_arr, di_arr
        self.K = np.array([s[0] for s in states], np.int64)
        self.Hd = np.array([s[1] for s in states], np.int64)
        self.U = np.array([s[2] for s in states], np.int64).reshape(n_states, N_RANKS)
        self.stand_vu = np.array([vu_of(k, U) for k, _, U in states], np.int64)
        self.n_states = n_states
        self.state_index = {(int(k), int(h), tuple(U)): c for c, (k, h, U) in enumerate(states)}
        self.vu_index = dict(vu_index)
        # the banker side's V rows: every (k, U) a punter can stand with
        self.n_vu = len(self.vu_keys)
        self.vu_k = np.array([k for k, _ in self.vu_keys], np.int64)
        self.vu_U = np.array([U for _, U in self.vu_keys], np.int64).reshape(self.n_vu, N_RANKS)
        # BET-phase states: (k, h) with nothing face-up: the first card state of each layer 0
        self.bet_states = [c for c in range(*layers[0])]

    # ------------------------------------------------------------------ banker nodes
    def _build_banker_nodes(self) -> None:
        """Banker multisets with a total below 7½, by decreasing total."""
        nodes: list[tuple[int, ...]] = []

        def rec(r: int, cur: list[int], t: int) -> None:
            if r == N_RANKS:
                if sum(cur):
                    nodes.append(tuple(cur))
                return
            for m in range(N_SUITS + 1):
                if t + m * VAL[r] > MAX_DECIDING:
                    break
                cur.append(m)
                rec(r + 1, cur, t + m * int(VAL[r]))
                cur.pop()

        rec(0, [], 0)
        M = np.array(nodes, np.int64)
        tot = M @ VAL
        order = np.lexsort((M.sum(1), -tot))
        self.M = M[order]
        self.M_tot = tot[order]
        self.M_n = self.M.sum(1)
        self.n_M = len(self.M)
        self.M_index = {tuple(m): i for i, m in enumerate(self.M.tolist())}
        child = np.full((self.n_M, N_RANKS), BANKER_75, np.int64)
        for i, m in enumerate(self.M.tolist()):
            for r in range(N_RANKS):
                t2 = self.M_tot[i] + VAL[r]
                if t2 > LIMIT:
                    child[i, r] = BANKER_BUST
                elif t2 == LIMIT:
                    child[i, r] = BANKER_75
                elif m[r] == N_SUITS:
                    child[i, r] = NO_SUCH_CARD  # no fifth card of a rank: never drawn
                else:
                    m2 = list(m)
                    m2[r] += 1
                    child[i, r] = self.M_index[tuple(m2)]
        self.M_child = child
        self.single = np.array([self.M_index[tuple(int(r == x) for x in range(N_RANKS))] for r in range(N_RANKS)])
        self.forced_hit = self.M_tot < FORCED_BANKER_STANDS_AT  # hit_below_6: hit below 6, else stand


__all__ = ["FOUR", "VAL", "HeadsUpStates", "check_rules"]
