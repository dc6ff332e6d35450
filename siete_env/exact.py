"""Exact evaluation of heads-up Siete y Media: expected value, best responses, NashConv.

This module owns the exact (enumerated, never sampled) evaluator of one punter against
the banker. Everything is computed per hand, in chips won by the **punter** (the
banker's are the negative), with the banker at seat 0 and the punter at seat 1 of a
``raw_env(num_players=2, rules=...)`` table.

Coverage (anything else raises ``ValueError``):

* the ``spanish`` preset with one stake: ``{"preset": "spanish", "bet_levels": [1],
  "four_swap": "off", "max_splits": 0}``;
* any ``bet_levels`` with or without ``raise_on_draw`` (the stake is part of the state;
  ``RAISE_k`` on the draw decisions after the first);
* ``four_swap`` ``off`` / ``optional`` / ``mandatory``, exactly: a swapped 4 goes back
  ``floor(remaining / 2)`` cards down the deck, which heads-up is always absolute deck
  position ``21 + j`` for the ``j``-th swap; those positions are dealt the 4s, every
  other position is drawn without replacement from the cards nobody has seen;
* the payout options ``seven_half_pays``, ``banker_seven_half_collects``,
  ``both_seven_half_collects`` (any values).
* ``banker_policy_rule: hit_below_6``: the banker's moves are forced (it hits below 6), so
  its best response is that forced play and NashConv is the punter's gain alone: a
  configuration whose equilibria are exactly the punter's best responses (NashConv 0).

Not covered: splits (``max_splits`` must resolve to 0 — the default ``spanish`` preset has
3 heads-up; see ``check_rules``), and every option that changes what is hidden or how
hands are valued (wild card, reale, fusilar, canto, face-up variants, shoe, ...).

**Policies.** A policy is any object with ``action_probs(observations (N, D) float32,
masks (N, A) int8) -> (N, A)``, e.g. ``agents.specs.make_agent(spec, env)``. It is given
exactly the observations and masks the environment gives that seat, and it is queried
over every reachable information state in a few large batches (``batch_rows`` rows).
Stochastic policies are supported.

**Suit assumption.** Cards are enumerated by *rank*, not by identity: the evaluator
chooses the suits of the cards in an observation itself. This is exact for policies
that depend on the cards only through their ranks, i.e. functions of
``siete_env.features.fold_suits(obs)`` (the baselines, and the learned policies of
``train.py``, which see folded observations). With ``check_suits=True`` (the default)
every policy call is also made on a few rows with the suits of each rank permuted, and a
``ValueError`` is raised if the probabilities differ.

**Information model.** The punter decides on its own cards (which one is face-down),
its stake, the swapped 4s and the number of cards left: the banker's card is unseen and
nothing the banker does comes before the punter's turn, so this is all it can know. The
banker decides on exactly what its observation holds: its own cards; the punter's
face-up cards (which cards), its number of cards, that it holds one face-down card, its
stake and its status (stood; when it busts the banker does not play); the 4s shown going
back into the deck; the cards left. The observation holds **no order** of the punter's
reveals or draws. The banker's best response is a function of that observation. Because
the punter's policy cannot see the banker's cards, the order in which the banker
received its own cards carries no information, so this observation-based best response
is also the best response of a banker with perfect recall.

**Method.** The punter's side is a DAG of card states ``(k, h, U)`` (swaps, hidden
rank, face-up rank counts) times (stake, raise open); the punter's draws are without
replacement from every card it has not seen (the banker's card among them, which is
exact because the deck is exchangeable and the banker has not acted yet). A forward pass
gives the reach of every stood hand ``(V, h)`` under the punter's policy; a backward pass
gives the punter's best response. The banker's side is, for every ``V`` a punter can
stand with and every banker card multiset ``M`` with a total below 7½ (1489 of them), a
backward pass vectorised over all ``(V, h)``: draws without replacement from the cards
the banker does not see (the punter's hidden card excluded, per ``h``), the swapped 4s
at their places. The banker's best response at ``(V, M)`` weighs each hidden rank ``h``
by its reach times the probability of the banker's cards given ``h``.

**Speed** (this 2-core machine, ``benchmarks/exact_speed.py``): single stake: punter's
best response to ``banker:6`` 0.4 s, banker's to ``threshold:5.5`` 0.3 s, NashConv of
two policy networks of the trained shape (128x128, folded observations) 2.5 s; bet levels
1-5 with raises: 0.4 s / 0.4 s / 12.3 s; plus four-swap (the full ``spanish`` preset
without splits): 2.0 s / 1.2 s / 58 s. A banker that plays the same at every stake (every
heuristic) is evaluated at one stake and its values scaled (payoffs are proportional to
the stake). Most of the NashConv time is building the banker's ~20M
observations and running the policy on them. The heuristic baselines of
``agents.baselines`` get a vectorised ``action_probs`` here (``_fast_baseline``,
``_fast_banker_table``; checked against the agents' own), since theirs loop over rows.

Public API (all values in chips per hand)::

    expected_value(punter, banker, rules) -> float            # the punter's EV
    best_response(policy, against="banker"|"punter", rules) -> BestResponse
        # against="banker": the punter's best response to that banker; "punter": the
        # banker's to that punter. .value = the responder's own EV, .policy = a table
        # agent (action_probs / __call__) that plays it.
    nash_conv(punter, banker, rules) -> NashConv(ev, punter_br_value, banker_br_value,
                                                  nash_conv, exploitability)
    check_rules(rules) -> Rules                                # ValueError if not covered
    evaluator(rules) -> ExactEvaluator                         # cached; pass it as rules=

``rules`` is anything ``raw_env`` accepts, or an ``ExactEvaluator`` (reused: its
enumeration is built once per rule set).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np

from .cards import N_CARDS, SEVEN_HALF, VALUE2
from .encoding import Layout
from .game import Phase, Status, build_actions
from .rules import Rules, resolve_rules

__all__ = [
    "BestResponse",
    "ExactEvaluator",
    "NashConv",
    "Policy",
    "TabularBankerPolicy",
    "TabularPunterPolicy",
    "best_response",
    "check_rules",
    "evaluator",
    "expected_value",
    "nash_conv",
]

N_RANKS = 10
N_SUITS = N_CARDS // N_RANKS
VAL = np.array(VALUE2[:N_RANKS], np.int64)  # value of rank index r (card r of any suit), half points
FOUR = 3  # rank index of the 4s
MAX_SWAPS = 4  # the engine allows at most four swaps a hand
MAX_DECIDING = SEVEN_HALF - 1  # a hand decides while its total is below 7½ (half points)
BANKER, PUNTER = 0, 1
_STAND, _HIT_UP, _HIT_DOWN, _SWAP = 0, 1, 2, 3


class Policy(Protocol):
    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray: ...


# --------------------------------------------------------------------------- rules
_FREE_OPTIONS = {
    "preset", "deck", "bet_levels", "raise_on_draw", "four_swap", "seven_half_pays",
    "banker_seven_half_collects", "both_seven_half_collects", "bank_passes", "max_splits",
    "auction_bids", "fusilar_pays", "triplee_pays", "side_bet_stake", "banker_reale_collects",
    "both_reale_collects", "banker_policy_rule",
}  # fmt: skip


def check_rules(rules: str | dict[str, Any] | Rules | None) -> Rules:
    """The validated rules if the exact evaluator covers them, else a ``ValueError``
    naming what is not covered."""
    r = resolve_rules(rules)
    defaults = Rules()
    bad = [
        f"{name}={getattr(r, name)!r}"
        for name in Rules.model_fields
        if name not in _FREE_OPTIONS and getattr(r, name) != getattr(defaults, name)
    ]
    if r.splits_for(2) != 0:
        bad.append(f"max_splits={r.max_splits!r} (heads-up {r.splits_for(2)} splits)")
    if bad:
        raise ValueError(
            "the exact evaluator covers the heads-up spanish game without splits (bet levels, "
            "raises and four-swap included); not covered: "
            + ", ".join(bad)
            + ". Use e.g. rules={'preset': 'spanish', 'max_splits': 0}."
        )
    return r


# --------------------------------------------------------------------------- results
class NashConv(NamedTuple):
    """Chips per hand. ``ev`` and ``punter_br_value`` are the punter's; ``banker_br_value``
    is the banker's own gain with its best response (``-ev`` if the banker is already best)."""

    ev: float
    punter_br_value: float
    banker_br_value: float
    nash_conv: float  # (punter_br_value - ev) + (banker_br_value + ev), >= 0
    exploitability: float  # nash_conv / 2


@dataclass
class BestResponse:
    """The exact best response of one side (``side``: ``"punter"`` or ``"banker"``)
    against a fixed opponent. ``value`` is the best responder's own expected chips per
    hand (the opponent's is ``-value``). ``policy`` plays the best response (an object
    with ``action_probs`` and ``__call__(obs_dict)``; deterministic)."""

    side: str
    value: float
    policy: Any


# --------------------------------------------------------------------------- evaluator
class _Chunk(NamedTuple):
    """Per-V arrays of one chunk of the banker pass."""

    n: int
    vk: np.ndarray  # swapped 4s
    vn: np.ndarray  # punter's face-up cards
    A: np.ndarray  # (n, 10) unseen cards by rank before the hidden one is removed
    den0: np.ndarray  # unseen cards, the hidden one removed
    win: np.ndarray  # (n, 10) punter's chips when it wins, by hidden rank
    lose75: np.ndarray  # (n, 10) punter's chips against a banker's 7½
    P: np.ndarray  # (n, 10) punter's total (half points), by hidden rank
    stake: np.ndarray  # (n,)


class ExactEvaluator:
    """The enumeration for one rule set (built once; reuse it for many policy pairs).

    Punter side: *card states* ``(k, h, U)``: ``k`` 4s swapped (in the deck at known
    places), hidden rank ``h``, face-up rank counts ``U``; each combined with a stake and
    whether a raise is open. Banker side: for every punter hand that stood, ``V = (k, U,
    stake)`` (what the banker sees of it) and the hidden rank ``h`` (what it does not),
    and every banker card multiset ``M`` with a total below 7½.
    """

    def __init__(self, rules: str | dict[str, Any] | Rules | None = "spanish", batch_rows: int = 262_144,
                 check_suits: bool = True, fast_baselines: bool = True):  # fmt: skip
        self.rules = check_rules(rules)
        self.fast_baselines = fast_baselines
        self.batch_rows = batch_rows
        self.check_suits = check_suits
        r = self.rules
        self.levels = tuple(int(x) for x in r.bet_levels)
        self.L = len(self.levels)
        self.can_raise = bool(r.raise_on_draw) and self.L > 1
        self.kmax = 0 if r.four_swap == "off" else MAX_SWAPS
        self.pays, self.b75, self.both75 = r.seven_half_pays, r.banker_seven_half_collects, r.both_seven_half_collects
        self.forced = r.banker_policy_rule == "hit_below_6"  # the banker has no choice: hits below 6
        self.actions = build_actions(r, 2)
        self.A = len(self.actions)
        names = [a.name for a in self.actions]
        self.bet_ids = [names.index(f"BET_{s}") for s in self.levels]
        self.raise_ids = {i: names.index(f"RAISE_{s}") for i, s in enumerate(self.levels) if i > 0}
        self.layout = Layout(2, 1, self.levels[-1], r.hands_per_episode, False)
        self.fixed_at = self._fixed_position()
        self._build_punter()
        self._build_banker_nodes()

    # ------------------------------------------------------------------ set-up
    @staticmethod
    def _fixed_position() -> int:
        """Deck index of the first swapped 4, as the engine computes it: after the two
        initial cards and the replacement, ``pos + (len - pos) // 2``."""
        pos, length = 3, N_CARDS
        return pos + (length - pos) // 2

    def _pool(self, k: int, U: tuple[int, ...]) -> list[int]:
        """Cards of each rank nobody but the banker may hold or the deck may deal freely:
        not among the punter's face-up cards, not a swapped 4 (its place is known)."""
        return [4 - U[r] - (k if r == FOUR else 0) for r in range(N_RANKS)]

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
            pool = self._pool(k, zero)
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
                pool = self._pool(k, U)
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
                            kinds.append(0)
                            idxs.append(0)
                        elif t2 > SEVEN_HALF:
                            kinds.append(3)
                            idxs.append(0)
                        elif t2 == SEVEN_HALF:
                            kinds.append(2)
                            idxs.append(vu_of(k, U2t))
                        else:
                            kinds.append(1)
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
                if self.up_kind[c, r] == 1:
                    U2 = list(U)
                    U2[r] += 1
                    ui_arr[c, r] = index[(k, h, tuple(U2))]
                if self.dn_kind[c, r] == 1:
                    U2 = list(U)
                    U2[h] += 1
                    di_arr[c, r] = index[(k, r, tuple(U2))]
        self.up_idx, self.dn_idx = ui_arr, di_arr
        self.K = np.array([s[0] for s in states], np.int64)
        self.Hd = np.array([s[1] for s in states], np.int64)
        self.U = np.array([s[2] for s in states], np.int64).reshape(n_states, N_RANKS)
        self.stand_vu = np.array([vu_of(k, U) for k, _, U in states], np.int64)
        self.n_states = n_states
        # the banker side's V rows: every (k, U) a punter can stand with
        self.n_vu = len(self.vu_keys)
        self.vu_k = np.array([k for k, _ in self.vu_keys], np.int64)
        self.vu_U = np.array([U for _, U in self.vu_keys], np.int64).reshape(self.n_vu, N_RANKS)
        # BET-phase states: (k, h) with nothing face-up: the first card state of each layer 0
        self.bet_states = [c for c in range(*layers[0])]

    def _build_banker_nodes(self) -> None:
        """Banker multisets with a total below 7½, by decreasing total."""
        nodes: list[tuple[int, ...]] = []

        def rec(r: int, cur: list[int], t: int) -> None:
            if r == N_RANKS:
                if sum(cur):
                    nodes.append(tuple(cur))
                return
            for m in range(5):
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
        child = np.full((self.n_M, N_RANKS), -1, np.int64)  # -1: 7½, -2: bust, -3: impossible
        for i, m in enumerate(self.M.tolist()):
            for r in range(N_RANKS):
                t2 = self.M_tot[i] + VAL[r]
                if t2 > SEVEN_HALF:
                    child[i, r] = -2
                elif t2 == SEVEN_HALF:
                    child[i, r] = -1
                elif m[r] == 4:
                    child[i, r] = -3  # no fifth card of a rank: never drawn
                else:
                    m2 = list(m)
                    m2[r] += 1
                    child[i, r] = self.M_index[tuple(m2)]
        self.M_child = child
        self.single = np.array([self.M_index[tuple(int(r == x) for x in range(N_RANKS))] for r in range(N_RANKS)])
        self.forced_hit = self.M_tot < 12  # hit_below_6: hit below 6 (12 half points), else stand

    # ------------------------------------------------------------------ observations
    def _template(self, seat: int) -> np.ndarray:
        L = self.layout
        row = np.zeros(L.size, np.float32)
        me, other = (0, 1)
        row[L.seat(me) + 0] = 1.0 if seat == BANKER else 0.0
        row[L.seat(other) + 0] = 1.0 if seat == PUNTER else 0.0
        row[L.seat(me) + 1] = 1.0
        return row

    def punter_observations(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Observations and masks of every punter information state: rows for BET
        states (one per (k, h)), then for each card state, stake level and raise flag.
        Returns ``obs, masks, bet_row (n_bet,), draw_row (n_states, L, 2)`` (-1: none)."""
        L, W = self.layout, self.layout.W
        G = L.GLOBAL
        base = self._template(PUNTER)
        ph, bh = L.hand(0, 0), L.hand(1, 0)
        base[bh + Status.WAITING] = 1.0
        base[bh + 6] = 1.0
        base[bh + 7] = 1.0
        base[ph + Status.PLAYING] = 1.0
        base[ph + 7] = 1.0
        n_bet = len(self.bet_states)
        raise_ok = [self.can_raise and i < self.L - 1 for i in range(self.L)]
        n_draw_rows = self.n_states * self.L + self.n_states * sum(raise_ok)
        n = n_bet + n_draw_rows
        obs = np.tile(base, (n, 1))
        masks = np.zeros((n, self.A), np.int8)
        bet_row = np.arange(n_bet)
        draw_row = np.full((self.n_states, self.L, 2), -1, np.int64)
        # per card state: the card entries (suits chosen by rank: returned 4s, face-up, hidden)
        rows_c = []
        for c in range(self.n_states):
            k, h, U = int(self.K[c]), int(self.Hd[c]), self.U[c]
            idx = []
            for r in range(N_RANKS):
                s0 = k if r == FOUR else 0
                for j in range(s0):
                    idx.append((j * N_RANKS + r) * W + L.n * L.H + 1)  # returned
                for j in range(int(U[r])):
                    idx.append(((s0 + j) * N_RANKS + r) * W + 0)
            s_h = (k if h == FOUR else 0) + int(U[h])
            idx.append((s_h * N_RANKS + h) * W + 0)
            idx.append((s_h * N_RANKS + h) * W + L.n * L.H)
            rows_c.append(idx)
        tot = (self.U @ VAL + VAL[self.Hd]) * 0.5
        ncards = self.U.sum(1) + 1
        i = 0
        for c in self.bet_states:
            o = obs[i]
            o[rows_c[c]] = 1.0
            o[ph + 6] = 1.0
            o[ph + 8] = tot[c]
            o[G + Phase.BET] = 1.0
            o[G + 8] = 38.0
            m = masks[i]
            m[self.bet_ids] = 1
            if self.Hd[c] == FOUR and self.K[c] < MAX_SWAPS and self.kmax:
                m[_SWAP] = 1
                if self.rules.four_swap == "mandatory":
                    m[self.bet_ids] = 0
            i += 1
        rr, cc = [], []
        for c in range(self.n_states):
            for si in range(self.L):
                for ro in (0, 1):
                    if ro and not raise_ok[si]:
                        continue
                    draw_row[c, si, ro] = i
                    rr.extend([i] * len(rows_c[c]))
                    cc.extend(rows_c[c])
                    o = obs[i]
                    o[ph + 5] = self.levels[si]
                    o[ph + 6] = ncards[c]
                    o[ph + 8] = tot[c]
                    o[G + Phase.DRAW] = 1.0
                    o[G + 8] = 38.0 - ncards[c] + 1
                    m = masks[i]
                    m[[_STAND, _HIT_UP, _HIT_DOWN]] = 1
                    if ro:
                        m[[self.raise_ids[j] for j in range(si + 1, self.L)]] = 1
                    i += 1
        obs[np.array(rr, np.int64), np.array(cc, np.int64)] = 1.0
        assert i == n
        return obs, masks, bet_row, draw_row

    def _banker_base(self) -> tuple[np.ndarray, np.ndarray]:
        """Per V row (``vu`` x stake level): the banker's observation without its own cards."""
        L, W = self.layout, self.layout.W
        G = L.GLOBAL
        base = self._template(BANKER)
        bh, ph = L.hand(0, 0), L.hand(1, 0)
        base[bh + Status.PLAYING] = 1.0
        base[ph + Status.STOOD] = 1.0
        base[ph + 7] = 1.0
        base[G + Phase.BANKER] = 1.0
        nV = self.n_vu * self.L
        obs = np.tile(base, (nV, 1))
        rr, cc = [], []
        for v, (_k, U) in enumerate(self.vu_keys):
            idx = [((j * N_RANKS + r) * W + 1) for r in range(N_RANKS) for j in range(U[r])]
            for si in range(self.L):
                row = v * self.L + si
                rr.extend([row] * len(idx))
                cc.extend(idx)
        obs[np.array(rr, np.int64), np.array(cc, np.int64)] = 1.0
        vsum = self.vu_U.sum(1)
        obs[:, ph + 5] = np.tile(np.array(self.levels, np.float32), self.n_vu)
        obs[:, ph + 6] = np.repeat(vsum + 1, self.L)
        obs[:, ph + 8] = np.repeat((self.vu_U @ VAL) * 0.5, self.L)
        masks = np.zeros((1, self.A), np.int8)
        masks[0, [_STAND, _HIT_UP]] = 1
        return obs, masks

    def _fixed_drawn(self, vk: np.ndarray, vn: np.ndarray, m_n: int) -> np.ndarray:
        """Swapped 4s the banker has drawn when it holds ``m_n`` cards (their deck places
        are known: ``fixed_at + j``); the next deck index is ``1 + k + |U| + m_n``."""
        return np.clip(1 + vk + vn + m_n - self.fixed_at, 0, vk)

    def _banker_rows(self, base: np.ndarray, vk: np.ndarray, vU: np.ndarray, m_i: int) -> tuple[np.ndarray, np.ndarray]:
        """Banker observations for node ``m_i`` at the V rows given (``base`` their base
        rows); returns the rows and which of them are possible (cards fit)."""
        L, W = self.layout, self.layout.W
        m = self.M[m_i]
        vn = vU.sum(1)
        fd = self._fixed_drawn(vk, vn, int(self.M_n[m_i]))
        ret = vk - fd
        cnt = vU + m[None, :]
        cnt[:, FOUR] += ret
        ok = (cnt <= 4).all(1) & (m[FOUR] >= fd)
        rows = base[ok].copy()
        vU, ret = vU[ok], ret[ok]
        ar = np.arange(len(rows))
        for r in np.flatnonzero(m):
            for j in range(int(m[r])):
                rows[ar, ((vU[:, r] + j) * N_RANKS + r) * W + 0] = 1.0
        for j in range(MAX_SWAPS):
            sel = j < ret
            if not sel.any():
                break
            rows[ar[sel], ((vU[sel, FOUR] + m[FOUR] + j) * N_RANKS + FOUR) * W + L.n * L.H + 1] = 1.0
        bh = L.hand(0, 0)
        rows[:, bh + 6] = self.M_n[m_i]
        rows[:, bh + 8] = self.M_tot[m_i] * 0.5
        rows[:, L.GLOBAL + 8] = 39 - vn[ok] - self.M_n[m_i]
        return rows, ok

    # ------------------------------------------------------------------ policies
    def _query(self, policy: Policy, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        fast = _fast_baseline(policy, self) if self.fast_baselines else None
        p = np.asarray(fast(obs, masks) if fast is not None else policy.action_probs(obs, masks), np.float64)
        if p.shape != masks.shape:
            raise ValueError(f"action_probs returned shape {p.shape}, expected {masks.shape}")
        if self.check_suits and len(obs):
            self._check_suit_invariance(policy, obs, masks, p)
        return p

    def _check_suit_invariance(self, policy: Policy, obs: np.ndarray, masks: np.ndarray, p: np.ndarray) -> None:
        rng = np.random.default_rng(len(obs))
        sel = rng.choice(len(obs), size=min(16, len(obs)), replace=False)
        W = self.layout.W
        x = obs[sel].copy()
        cards = x[:, : N_CARDS * W].reshape(len(sel), N_SUITS, N_RANKS, W)
        for r in range(N_RANKS):
            cards[:, :, r, :] = cards[:, rng.permutation(N_SUITS), r, :]
        x[:, : N_CARDS * W] = cards.reshape(len(sel), -1)
        q = np.asarray(policy.action_probs(x, masks[sel]), np.float64)
        if not np.allclose(p[sel], q, atol=1e-6):
            raise ValueError(
                "the policy is not suit-invariant (its probabilities change when the suits of a "
                "rank are permuted): the exact evaluator enumerates cards by rank and needs a "
                "policy of the suit-folded observation (siete_env.features.fold_suits); "
                "pass check_suits=False to evaluate it anyway (then the result is not exact)"
            )

    def punter_table(self, punter: Policy) -> tuple[np.ndarray, np.ndarray]:
        """The punter's action probabilities: ``bet (n_bet, A)`` and ``draw (n_states, L, 2, A)``."""
        punter = getattr(punter, "punter_table_policy", punter)  # e.g. siete_env.cfr.EquilibriumAgent
        if isinstance(punter, TabularPunterPolicy) and punter.ev is self:  # a table of ours: no round trip
            return punter.bet_p, punter.draw_p
        obs, masks, bet_row, draw_row = self.punter_observations()
        probs = np.empty((len(obs), self.A))
        for s in range(0, len(obs), self.batch_rows):
            probs[s : s + self.batch_rows] = self._query(
                punter, obs[s : s + self.batch_rows], masks[s : s + self.batch_rows]
            )
        probs *= masks
        bet = probs[bet_row]
        draw = np.zeros((self.n_states, self.L, 2, self.A))
        ok = draw_row >= 0
        draw[ok] = probs[draw_row[ok]]
        return bet, draw

    def banker_table(self, banker: Policy) -> np.ndarray:
        """``(n_vu * L, n_M)``: the banker's probability of hitting at every (V, M)."""
        if self.forced:  # hit_below_6: every banker plays the same forced moves
            return np.broadcast_to(self.forced_hit.astype(np.float64), (self.n_vu * self.L, self.n_M)).copy()
        banker = getattr(banker, "banker_table_policy", banker)
        if isinstance(banker, TabularBankerPolicy) and banker.ev is self:  # a table of ours: no round trip
            return banker.hit.astype(np.float64)
        direct = _fast_banker_table(banker, self) if self.fast_baselines else None
        if direct is not None:
            return direct
        base, mask1 = self._banker_base()
        nV = len(base)
        vk = np.repeat(self.vu_k, self.L)
        vU = np.repeat(self.vu_U, self.L, axis=0)
        hit = np.zeros((nV, self.n_M))
        pending: list[tuple[int, np.ndarray, np.ndarray]] = []
        size = 0

        def flush() -> None:
            nonlocal pending, size
            if not pending:
                return
            rows = np.concatenate([p[1] for p in pending])
            probs = self._query(banker, rows, np.broadcast_to(mask1, (len(rows), self.A)).copy())
            h = probs[:, _HIT_UP] / probs[:, [_STAND, _HIT_UP]].sum(1)
            at = 0
            for m_i, _, ok in pending:
                n = int(ok.sum())
                hit[ok, m_i] = h[at : at + n]
                at += n
            pending, size = [], 0

        for m_i in range(self.n_M):
            rows, ok = self._banker_rows(base, vk, vU, m_i)
            pending.append((m_i, rows, ok))
            size += len(rows)
            if size >= self.batch_rows:
                flush()
        flush()
        return hit

    def banker_reach(self, hit: np.ndarray) -> np.ndarray:
        """``(n_vu * L, n_M)``: the banker's own reach of every (V, M) under its hitting
        probabilities ``hit`` (the product of its hit probabilities along the way, summed
        over the orders of M; the chance of the cards is not in it)."""
        x = np.zeros_like(hit, dtype=np.float64)
        x[:, self.single] = 1.0
        vk = np.repeat(self.vu_k, self.L)
        vn = np.repeat(self.vu_U.sum(1), self.L)
        for i in range(self.n_M - 1, -1, -1):  # increasing total: parents first
            xi = x[:, i] * hit[:, i]
            nxt = 1 + vk + vn + self.M_n[i]  # the deck place of the next card
            free = ~((nxt >= self.fixed_at) & (nxt < self.fixed_at + vk))  # else a swapped 4 comes
            for r in range(N_RANKS):
                c = self.M_child[i, r]
                if c >= 0:
                    x[:, c] += xi if r == FOUR else xi * free
        return x

    # ------------------------------------------------------------------ punter side
    def _stake_vec(self) -> np.ndarray:
        return np.array(self.levels, np.float64)

    def punter_forward(self, bet: np.ndarray, draw: np.ndarray, return_reach: bool = False) -> tuple:
        """Reach of every stood (V, h) under the punter's policy (``(n_vu, L, 10)``) and
        the expected chips lost to busts (per hand). With ``return_reach`` also the reach of
        every decision: ``breach (n_bet,)`` and ``reach (n_states, L, 2)``."""
        Wst = np.zeros((self.n_vu, self.L, N_RANKS))
        reach = np.zeros((self.n_states, self.L, 2))
        bust = 0.0
        st = self._stake_vec()
        # BET states: (k, h) with swaps
        b0, b1 = self.layers[0]
        breach = np.zeros(b1 - b0)
        key = {(int(self.K[c]), int(self.Hd[c])): c - b0 for c in range(b0, b1)}
        for h in range(N_RANKS):
            breach[key[(0, h)]] = 4 / N_CARDS
        for k in range(self.kmax + 1):  # swaps only move k up: in order
            for h in range(N_RANKS):
                i = key.get((k, h))
                if i is None or breach[i] == 0:
                    continue
                pr = bet[i]
                reach[b0 + i, :, 0] += breach[i] * pr[self.bet_ids]
                if pr[_SWAP] > 0:
                    pool = self._pool(k + 1, (0,) * N_RANKS)
                    n = sum(pool)
                    for r in range(N_RANKS):
                        if pool[r]:
                            breach[key[(k + 1, r)]] += breach[i] * pr[_SWAP] * pool[r] / n
        raise_to = self._raise_matrix()
        after = self._after_hit_flag()
        for a, b in self.layers:
            R = reach[a:b]
            pol = draw[a:b]
            if self.can_raise:  # raises move reach from (s, open) to (s', closed)
                for si in range(self.L):
                    for sj in range(si + 1, self.L):
                        R[:, sj, 0] += R[:, si, 1] * pol[:, si, 1, raise_to[sj]]
            Rs = (R[..., None] * pol).sum(2)  # (n, L, A): reach of each action by stake
            c_vu = self.stand_vu[a:b]
            hd = self.Hd[a:b]
            np.add.at(Wst, (c_vu, slice(None), hd), Rs[:, :, _STAND])
            for act, kinds, idx in ((_HIT_UP, self.up_kind, self.up_idx), (_HIT_DOWN, self.dn_kind, self.dn_idx)):
                flow = Rs[:, :, act]  # (n, L)
                for r in range(N_RANKS):
                    p = self.p[a:b, r]
                    f = flow * p[:, None]
                    kd = kinds[a:b, r]
                    sel = kd == 1
                    if sel.any():
                        tgt = idx[a:b, r][sel]
                        np.add.at(reach, (tgt[:, None], np.arange(self.L)[None, :], after[None, :]), f[sel])
                    sel = kd == 2
                    if sel.any():
                        h2 = hd[sel] if act == _HIT_UP else np.full(int(sel.sum()), r)
                        np.add.at(Wst, (idx[a:b, r][sel], slice(None), h2), f[sel])
                    sel = kd == 3
                    if sel.any():
                        bust -= float((f[sel] * st[None, :]).sum())
        if return_reach:
            return Wst, bust, breach, reach
        return Wst, bust

    def _raise_matrix(self) -> dict[int, int]:
        return {sj: self.raise_ids[sj] for sj in range(1, self.L)}

    def _after_hit_flag(self) -> np.ndarray:
        """Raise flag of the draw decision after a hit, by stake level."""
        return np.array([1 if (self.can_raise and si < self.L - 1) else 0 for si in range(self.L)])

    def draw_values(self, a: int, b: int, val: np.ndarray, G: np.ndarray) -> np.ndarray:
        """``(b - a, L, 3)``: the punter's values of STAND, HIT_UP and HIT_DOWN at the card
        states ``a:b`` (one layer), given the values ``val (n_states, L, 2)`` of the later
        layers' decisions and the stood values ``G (n_vu, L, 10)``."""
        n, L = b - a, self.L
        st = self._stake_vec()
        after = self._after_hit_flag()
        hd = self.Hd[a:b]
        qs = [G[self.stand_vu[a:b], :, hd]]
        for kinds, idx, up in ((self.up_kind, self.up_idx, True), (self.dn_kind, self.dn_idx, False)):
            q = np.zeros((n, L))
            for r in range(N_RANKS):
                kd = kinds[a:b, r]
                v = np.zeros((n, L))
                sel = kd == 1
                if sel.any():
                    v[sel] = val[idx[a:b, r][sel][:, None], np.arange(L)[None, :], after[None, :]]
                sel = kd == 2
                if sel.any():
                    h2 = hd[sel] if up else np.full(int(sel.sum()), r)
                    v[sel] = G[idx[a:b, r][sel], :, h2]
                v[kd == 3] = -st[None, :]
                q += self.p[a:b, r][:, None] * v
            qs.append(q)
        return np.stack(qs, -1)

    def punter_best(self, G: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """The punter's best response to a banker whose stood values are ``G (n_vu, L, 10)``
        (punter's chips). Returns its value and actions: ``bet (n_bet,)``, ``draw (n_states, L, 2)``."""
        val = np.zeros((self.n_states, self.L, 2))
        act = np.zeros((self.n_states, self.L, 2), np.int64)
        for a, b in reversed(self.layers):
            n = b - a
            Q = self.draw_values(a, b, val, G)  # (n, L, 3): STAND, HIT_UP, HIT_DOWN
            best = Q.argmax(-1)
            val[a:b, :, 0] = Q.max(-1)
            act[a:b, :, 0] = np.array([_STAND, _HIT_UP, _HIT_DOWN])[best]
            if self.can_raise:
                v0 = val[a:b, :, 0]
                for si in range(self.L - 1):
                    j = si + 1 + v0[:, si + 1 :].argmax(1)
                    better = v0[np.arange(n), j] > v0[:, si]
                    val[a:b, si, 1] = np.where(better, v0[np.arange(n), j], v0[:, si])
                    act[a:b, si, 1] = np.where(better, np.array([self.raise_ids[x] for x in range(1, self.L)])[j - 1],
                                               act[a:b, si, 0])  # fmt: skip
        # BET states, swaps from the top k down
        b0, b1 = self.layers[0]
        key = {(int(self.K[c]), int(self.Hd[c])): c - b0 for c in range(b0, b1)}
        bval = np.zeros(b1 - b0)
        bact = np.zeros(b1 - b0, np.int64)
        for k in range(self.kmax, -1, -1):
            for h in range(N_RANKS):
                i = key.get((k, h))
                if i is None:
                    continue
                c = b0 + i
                opts = {self.bet_ids[si]: val[c, si, 0] for si in range(self.L)}
                if h == FOUR and k < MAX_SWAPS and self.kmax:
                    pool = self._pool(k + 1, (0,) * N_RANKS)
                    n = sum(pool)
                    sw = sum(pool[r] / n * bval[key[(k + 1, r)]] for r in range(N_RANKS) if pool[r])
                    if self.rules.four_swap == "mandatory":
                        opts = {}
                    opts[_SWAP] = sw
                a_best = max(opts, key=opts.__getitem__)
                bval[i], bact[i] = opts[a_best], a_best
        value = sum(4 / N_CARDS * bval[key[(0, h)]] for h in range(N_RANKS))
        return float(value), bact, act

    # ------------------------------------------------------------------ banker side
    def _cont(self, ctx: _Chunk, node_vals: dict[int, np.ndarray], m_i: int | None) -> np.ndarray:
        """The punter's chips, per (V, h) of a chunk, when the banker draws a card holding
        node ``m_i`` (``None``: its first card), the values of the nodes reached being
        ``node_vals``: draws without replacement from the unseen cards (the punter's
        hidden one excluded), or the swapped 4 when the deck reaches its place."""
        n, vk, vn, A = ctx.n, ctx.vk, ctx.vn, ctx.A
        if m_i is None:
            C, den, fixed = A, ctx.den0, np.zeros(n, bool)
            kids = self.single
        else:
            m = self.M[m_i]
            fd = self._fixed_drawn(vk, vn, int(self.M_n[m_i]))
            C = A - m[None, :]
            C[:, FOUR] += fd
            den = ctx.den0 - (self.M_n[m_i] - fd)
            nxt = 1 + vk + vn + self.M_n[m_i]
            fixed = (nxt >= self.fixed_at) & (nxt < self.fixed_at + vk)
            kids = self.M_child[m_i]
        Cp = np.clip(C, 0, None).astype(np.float64)
        X = np.empty((N_RANKS, n, N_RANKS))
        for r in range(N_RANKS):
            kid = kids[r]
            X[r] = ctx.lose75 if kid == -1 else ctx.win if kid == -2 else 0.0 if kid == -3 else node_vals[kid]
        tot = np.einsum("vr,rvh->vh", Cp, X)
        ar = np.arange(N_RANKS)
        tot -= (Cp > 0) * X[ar, :, ar].T  # the hidden rank h is one card fewer: X[h][v, h]
        out = tot / np.maximum(den, 1)[:, None]
        if fixed.any():
            out[fixed] = X[FOUR][fixed]
        return out

    def chunk_context(self, rows: np.ndarray | slice) -> _Chunk:
        """The per-V arrays of the banker pass for the V rows ``rows`` (of ``n_vu * L``)."""
        vk = np.repeat(self.vu_k, self.L)[rows]
        vU = np.repeat(self.vu_U, self.L, axis=0)[rows]
        stake = np.tile(self._stake_vec(), self.n_vu)[rows]
        vn = vU.sum(1)
        A = 4 - vU
        A[:, FOUR] -= vk
        P = (vU @ VAL)[:, None] + VAL[None, :]  # punter total for each hidden rank
        win = stake[:, None] * np.where(P == SEVEN_HALF, self.pays, 1)
        lose75 = -stake[:, None] * np.where(P == SEVEN_HALF, self.both75, self.b75)
        return _Chunk(len(vk), vk, vn, A, 39 - vn - vk, win, lose75, P, stake)

    def stand_values(self, ctx: _Chunk, m_i: int) -> np.ndarray:
        """The punter's chips, per (V, h) of a chunk, when the banker stands on node ``m_i``."""
        return np.where(ctx.P > int(self.M_tot[m_i]), ctx.win, -ctx.stake[:, None])

    def posterior(self, ctx: _Chunk, w: np.ndarray, m_i: int) -> np.ndarray:
        """The banker's unnormalised posterior of the hidden rank ``h`` at node ``m_i``, per
        V of a chunk: the punter's reach ``w (n, 10)`` times the chance of the banker's
        cards given ``h`` (up to a factor of (V, M) alone)."""
        fd = self._fixed_drawn(ctx.vk, ctx.vn, int(self.M_n[m_i]))
        Cex = ctx.A - self.M[m_i][None, :]
        Cex[:, FOUR] += fd
        return w * np.clip(Cex, 0, None) / np.maximum(ctx.A, 1)

    def banker_pass(self, hit: np.ndarray | None, Wst: np.ndarray | None, chunk: int = 8192,
                    scale_stakes: bool = True) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:  # fmt: skip
        """Backward over the banker's card multisets for every stood (V, h).

        ``hit (nV, n_M)``: the banker policy's probability of hitting (or None);
        ``Wst (n_vu, L, 10)``: reach of the stood hands under the punter's policy (or None).
        Returns ``G_pol`` (punter's chips against the banker policy), ``G_br`` (against
        the banker's best response to the punter policy), both ``(n_vu, L, 10)``, and the
        best response's hits ``(nV, n_M)`` (bool)."""
        nV = self.n_vu * self.L
        G_pol = np.zeros((nV, N_RANKS)) if hit is not None else None
        G_br = np.zeros((nV, N_RANKS)) if Wst is not None else None
        br_hit = np.zeros((nV, self.n_M), bool) if Wst is not None else None
        Wf = Wst.reshape(nV, N_RANKS) if Wst is not None else None
        # Without a banker policy only the hands the punter's policy reaches matter.
        rows = np.arange(nV) if hit is not None or Wf is None else np.flatnonzero(Wf.sum(1) > 0)
        # Every payoff is proportional to the stake: where the banker plays the same at every
        # stake of a V, its values at the other stakes are those of the lowest one, scaled.
        scaled = np.zeros(self.n_vu, bool)
        if hit is not None and Wf is None and self.L > 1 and scale_stakes:
            h3 = hit.reshape(self.n_vu, self.L, self.n_M)
            scaled = (h3 == h3[:, :1]).all((1, 2))
            rows = np.flatnonzero(~np.repeat(scaled, self.L) | (np.arange(nV) % self.L == 0))
        for c0 in range(0, len(rows), chunk):
            sl = rows[c0 : c0 + chunk]
            ctx = self.chunk_context(sl)
            vals_pol: dict[int, np.ndarray] = {}
            vals_br: dict[int, np.ndarray] = {}
            w = Wf[sl] if Wf is not None else None
            for m_i in range(self.n_M):
                stand = self.stand_values(ctx, m_i)
                if hit is not None:
                    cp = self._cont(ctx, vals_pol, m_i)
                    s = hit[sl, m_i][:, None]
                    vals_pol[m_i] = s * cp + (1 - s) * stand
                if w is not None:
                    cb = self._cont(ctx, vals_br, m_i)
                    if self.forced:
                        h_hit = np.full(ctx.n, bool(self.forced_hit[m_i]))
                    else:
                        post = self.posterior(ctx, w, m_i)
                        h_hit = (post * cb).sum(1) < (post * stand).sum(1)
                    br_hit[sl, m_i] = h_hit
                    vals_br[m_i] = np.where(h_hit[:, None], cb, stand)
            if hit is not None:
                G_pol[sl] = self._cont(ctx, vals_pol, None)
            if w is not None:
                G_br[sl] = self._cont(ctx, vals_br, None)
        if scaled.any():
            G3 = G_pol.reshape(self.n_vu, self.L, N_RANKS)
            st = self._stake_vec()
            G3[scaled, 1:] = G3[scaled, :1] * (st[1:] / st[0])[None, :, None]
        shape = (self.n_vu, self.L, N_RANKS)
        return (
            G_pol.reshape(shape) if G_pol is not None else None,
            G_br.reshape(shape) if G_br is not None else None,
            br_hit,
        )


# --------------------------------------------------------------------------- fast baselines
def _fast_baseline(policy: Any, ev: ExactEvaluator) -> Any:
    """A vectorised ``action_probs`` for the heuristic baselines of ``agents.baselines``
    (their own is a loop over rows). It reproduces their decisions on the heads-up
    states this evaluator builds (without splits; ``tests/test_exact.py`` checks it
    against the agents' own ``action_probs``). ``None`` for any other policy."""
    kind = type(policy).__name__
    module = type(policy).__module__
    if module != "agents.baselines" or kind not in (
        "ThresholdPunter", "BankerThreshold", "SmartBanker", "BoldPunter", "RandomAgent"
    ):  # fmt: skip
        return None
    L, W = ev.layout, ev.layout.W
    G = L.GLOBAL
    own, other = L.hand(0, 0), L.hand(1, 0)
    ids = dict(policy.ids) if hasattr(policy, "ids") else {}
    bets = [ids[f"BET_{s}"] for s in ev.levels] if ids else []

    def probs(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        n = len(obs)
        if kind == "RandomAgent":
            m = masks.astype(np.float64)
            return m / m.sum(1, keepdims=True)
        act = np.full(n, -1, np.int64)
        mine = obs[:, own + 8]
        phase = obs[:, G : G + len(Phase)].argmax(1)
        bank = phase == Phase.BANKER
        hit = masks[:, _HIT_UP].astype(bool) & (mine < policy.threshold)
        if kind == "SmartBanker":
            stood = obs[:, other + Status.STOOD] == 1.0
            least = obs[:, other + 8] + 0.5 * (obs[:, other + 7] == 1.0)
            hit |= masks[:, _HIT_UP].astype(bool) & (mine >= policy.threshold) & stood & (mine < least) & (least < 7.5)
        elif kind != "BankerThreshold":  # a threshold punter (or bold) as banker: hits below its banker threshold
            hit = masks[:, _HIT_UP].astype(bool) & (mine < policy.banker_threshold)
        act[bank] = np.where(hit[bank], _HIT_UP, _STAND)
        bet = phase == Phase.BET
        mb = masks[:, bets].astype(bool)
        last = np.array(bets)[mb.shape[1] - 1 - mb[:, ::-1].argmax(1)]
        first = np.array(bets)[mb.argmax(1)]
        if kind == "BoldPunter":
            strong = (mine == 0.5) | (mine == 7.0)
            choice = np.where(strong, last, first)
            choice = np.where(masks[:, _SWAP].astype(bool), _SWAP, choice)
        else:
            choice = first  # the lowest legal stake
        choice = np.where(mb.any(1), choice, _SWAP)  # a mandatory swap
        act[bet] = choice[bet]
        draw = phase == Phase.DRAW
        cards = obs[:, : N_CARDS * W].reshape(n, N_CARDS, W)
        hidden = cards[:, :, L.n * L.H] * cards[:, :, 0]
        hv = (hidden * (np.array(VALUE2, np.float64) / 2)[None, :]).sum(1)
        has_h = hidden.sum(1) > 0
        stand = (mine >= policy.threshold) | ~masks[:, _HIT_UP].astype(bool)
        down = has_h & (hv < 4) & masks[:, _HIT_DOWN].astype(bool)
        act[draw] = np.where(stand, _STAND, np.where(down, _HIT_DOWN, _HIT_UP))[draw]
        if (act < 0).any():
            return policy.action_probs(obs, masks)
        out = np.zeros(masks.shape)
        out[np.arange(n), act] = 1.0
        return out

    return probs


def _fast_banker_table(policy: Any, ev: ExactEvaluator) -> np.ndarray | None:
    """The banker table of a heuristic baseline straight from the totals it reads (its
    own total; for ``smart``, the punter's face-up total and face-down card), without
    building observations; ``None`` for any other policy. Checked against the
    observation path in ``tests/test_exact.py``."""
    kind = type(policy).__name__
    if type(policy).__module__ != "agents.baselines" or kind not in (
        "ThresholdPunter", "BankerThreshold", "SmartBanker", "BoldPunter", "RandomAgent"
    ):  # fmt: skip
        return None
    nV = ev.n_vu * ev.L
    if kind == "RandomAgent":
        return np.full((nV, ev.n_M), 0.5)
    mine = ev.M_tot[None, :] * 0.5
    thr = policy.threshold if kind in ("BankerThreshold", "SmartBanker") else policy.banker_threshold
    hit = np.broadcast_to(mine < thr, (nV, ev.n_M)).copy()
    if kind == "SmartBanker":
        least = (np.repeat(ev.vu_U @ VAL, ev.L) * 0.5 + 0.5)[:, None]
        hit |= (mine >= thr) & (mine < least) & (least < 7.5)
    return hit.astype(np.float64)


# --------------------------------------------------------------------------- best-response policies
def _fold_counts(obs: np.ndarray, layout: Layout) -> np.ndarray:
    """``(N, 10, W)``: how many cards of each rank the observation shows in each column."""
    W = layout.W
    return obs[:, : N_CARDS * W].reshape(len(obs), N_SUITS, N_RANKS, W).sum(1).round().astype(np.int64)


class _Tabular:
    """A table policy: ``__call__`` plays the most probable action when the table is
    deterministic, else samples with its own generator (``seed``)."""

    def __init__(self, ev: ExactEvaluator, seed: int | None = None):
        self.ev = ev
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: dict) -> int:
        p = self.action_probs(np.asarray(obs["observation"])[None, :], np.asarray(obs["action_mask"])[None, :])[0]
        if self.deterministic:
            return int(p.argmax())
        return int(self.rng.choice(len(p), p=p / p.sum()))

    @staticmethod
    def _fallback(mask: np.ndarray) -> np.ndarray:
        out = np.zeros(len(mask))
        out[int(np.flatnonzero(mask)[0])] = 1.0
        return out


def _as_probs(table: np.ndarray, A: int, shape: tuple[int, ...]) -> np.ndarray:
    """Action probabilities from a table of actions (ints, ``shape``) or of probabilities
    (``shape + (A,)``)."""
    t = np.asarray(table)
    if t.shape == shape and np.issubdtype(t.dtype, np.integer):
        return np.eye(A)[t]
    if t.shape == shape + (A,):
        return t.astype(np.float64)
    raise ValueError(
        f"a policy table must have shape {shape} (actions) or {shape + (A,)} (probabilities), got {t.shape}"
    )


class TabularPunterPolicy(_Tabular):
    """A punter that plays a table over the evaluator's punter states: ``bet`` (per BET
    state) and ``draw`` (per card state, stake level and raise flag), each either actions
    (ints; a best response) or action probabilities (an equilibrium). As a banker, or in
    a state outside the table, it plays the first legal action."""

    def __init__(self, ev: ExactEvaluator, bet: np.ndarray, draw: np.ndarray, seed: int | None = None):
        super().__init__(ev, seed)
        b0, b1 = ev.layers[0]
        self.bet_p = _as_probs(bet, ev.A, (b1 - b0,))
        self.draw_p = _as_probs(draw, ev.A, (ev.n_states, ev.L, 2))
        self.deterministic = bool(
            ((self.bet_p == 0) | (self.bet_p == 1)).all() and ((self.draw_p == 0) | (self.draw_p == 1)).all()
        )
        self._bet_key = {(int(ev.K[c]), int(ev.Hd[c])): c - b0 for c in range(b0, b1)}
        self._state = {(int(k), int(h), tuple(U)): c for c, (k, h, U) in enumerate(ev.states)}

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        ev, L = self.ev, self.ev.layout
        out = np.zeros(masks.shape)
        counts = _fold_counts(observations, L)
        G, hb = L.GLOBAL, L.hand(0, 0)
        raise_cols = list(ev.raise_ids.values())
        for i in range(len(observations)):
            o, m = observations[i], masks[i]
            p = None
            if o[L.seat(0)] == 0.0 and (o[G + Phase.BET] == 1.0 or o[G + Phase.DRAW] == 1.0):
                own = counts[i, :, 0]
                hid = np.flatnonzero(counts[i, :, L.n * L.H])
                k = int(counts[i, FOUR, L.n * L.H + 1])
                if len(hid) == 1:
                    h = int(hid[0])
                    if o[G + Phase.BET] == 1.0:
                        j = self._bet_key.get((k, h))
                        p = self.bet_p[j] if j is not None else None
                    else:
                        U = own.copy()
                        U[h] -= 1
                        c = self._state.get((k, h, tuple(U.tolist())))
                        stake = int(round(float(o[hb + 5])))
                        if c is not None and stake in ev.levels:
                            ro = int(bool(m[raise_cols].any())) if raise_cols else 0
                            p = self.draw_p[c, ev.levels.index(stake), ro]
            legal = p * (m != 0) if p is not None else None
            if legal is not None and legal.sum() > 0:
                out[i] = legal / legal.sum()  # (a table of these rules never weighs an illegal action)
            else:
                out[i] = self._fallback(m)
        return out


class TabularBankerPolicy(_Tabular):
    """A banker that plays a table over (V, M): ``hit (n_V, n_M)``, bools (a best response)
    or probabilities of hitting (an equilibrium). As a punter, or outside the table, it
    plays the first legal action."""

    def __init__(self, ev: ExactEvaluator, hit: np.ndarray, seed: int | None = None):
        super().__init__(ev, seed)
        hit = np.asarray(hit)
        if hit.shape != (ev.n_vu * ev.L, ev.n_M):
            raise ValueError(f"a banker table must have shape {(ev.n_vu * ev.L, ev.n_M)}, got {hit.shape}")
        self.hit = hit
        self.deterministic = bool(((hit == 0) | (hit == 1)).all())
        self._vu = {(k, tuple(U)): i for i, (k, U) in enumerate(ev.vu_keys)}

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        ev, L = self.ev, self.ev.layout
        out = np.zeros(masks.shape)
        counts = _fold_counts(observations, L)
        G = L.GLOBAL
        for i in range(len(observations)):
            o, m = observations[i], masks[i]
            q = None
            if o[G + Phase.BANKER] == 1.0 and o[L.seat(0)] == 1.0:
                M = counts[i, :, 0]
                U = tuple(counts[i, :, 1].tolist())
                ret = int(counts[i, FOUR, L.n * L.H + 1])
                m_i = ev.M_index.get(tuple(M.tolist()))
                stake = int(round(float(o[L.hand(1, 0) + 5])))
                for k in range(ret, MAX_SWAPS + 1):  # swapped 4s: those still in the deck + those drawn
                    fd = int(ev._fixed_drawn(np.array([k]), np.array([sum(U)]), int(M.sum()))[0])
                    if k - fd == ret and (k, U) in self._vu:
                        break
                else:
                    k = -1
                if m_i is not None and k >= 0 and stake in ev.levels:
                    v = self._vu[(k, U)] * ev.L + ev.levels.index(stake)
                    q = float(self.hit[v, m_i])
            if q is not None and m[_HIT_UP] and m[_STAND]:
                out[i, _HIT_UP], out[i, _STAND] = q, 1.0 - q
            else:
                out[i] = self._fallback(m)
        return out


# --------------------------------------------------------------------------- public API
_CACHE: dict[str, ExactEvaluator] = {}


def evaluator(rules: str | dict[str, Any] | Rules | None = "spanish") -> ExactEvaluator:
    """The (cached) evaluator for these rules."""
    r = check_rules(rules)
    key = r.model_dump_json()
    ev = _CACHE.get(key)
    if ev is None:
        ev = _CACHE[key] = ExactEvaluator(r)
    return ev


def _ev(rules: Any) -> ExactEvaluator:
    return rules if isinstance(rules, ExactEvaluator) else evaluator(rules)


def expected_value(punter: Policy, banker: Policy, rules: Any = "spanish") -> float:
    """The punter's exact expected chips per hand (the banker's is the negative).
    ``rules``: rules as for ``raw_env`` (or an ``ExactEvaluator``)."""
    ev = _ev(rules)
    bet, draw = ev.punter_table(punter)
    Wst, bust = ev.punter_forward(bet, draw)
    G_pol, _, _ = ev.banker_pass(ev.banker_table(banker), None)
    return float((Wst * G_pol).sum() + bust)


def best_response(policy: Policy, against: str, rules: Any = "spanish") -> BestResponse:
    """The exact best response to ``policy`` playing the role ``against``: with
    ``against="banker"`` the punter's best response to that banker, with
    ``against="punter"`` the banker's best response to that punter."""
    ev = _ev(rules)
    if against == "banker":
        G_pol, _, _ = ev.banker_pass(ev.banker_table(policy), None)
        value, bact, dact = ev.punter_best(G_pol)
        return BestResponse("punter", value, TabularPunterPolicy(ev, bact, dact))
    if against == "punter":
        bet, draw = ev.punter_table(policy)
        Wst, bust = ev.punter_forward(bet, draw)
        _, G_br, br_hit = ev.banker_pass(None, Wst)
        punter_value = float((Wst * G_br).sum() + bust)
        return BestResponse("banker", -punter_value, TabularBankerPolicy(ev, br_hit))
    raise ValueError(f"against must be 'punter' or 'banker', got {against!r}")


class PairEvaluation(NamedTuple):
    """Everything one exact pass over a policy pair computes (``evaluate_pair``)."""

    result: NashConv
    W: np.ndarray  # the punter's stood reach (n_vu, L, 10)
    bust: float  # the punter's expected chips lost to busts
    G: np.ndarray  # the punter's stood values against the banker (n_vu, L, 10)
    hit: np.ndarray  # the banker's hitting probabilities (n_vu * L, n_M)
    br_hit: np.ndarray  # the banker's best response to the punter (where the punter stands)
    br_bet: np.ndarray  # the punter's best response to the banker: actions at the BET states
    br_draw: np.ndarray  # ... and at the draw states


def evaluate_pair(punter: Policy, banker: Policy, rules: Any = "spanish") -> PairEvaluation:
    """EV of the pair, both best responses and NashConv, each policy queried once."""
    ev = _ev(rules)
    bet, draw = ev.punter_table(punter)
    Wst, bust = ev.punter_forward(bet, draw)
    hit = ev.banker_table(banker)
    G_pol, G_br, br_hit = ev.banker_pass(hit, Wst)
    value = float((Wst * G_pol).sum() + bust)
    p_br, br_bet, br_draw = ev.punter_best(G_pol)
    b_br = -float((Wst * G_br).sum() + bust)
    nc = (p_br - value) + (b_br + value)
    return PairEvaluation(NashConv(value, p_br, b_br, nc, nc / 2), Wst, bust, G_pol, hit, br_hit, br_bet, br_draw)


def nash_conv(punter: Policy, banker: Policy, rules: Any = "spanish") -> NashConv:
    """EV of the pair, both best-response values and NashConv (each policy queried once)."""
    return evaluate_pair(punter, banker, rules).result
