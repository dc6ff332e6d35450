"""The exact evaluator's observations and masks, and the table states read back from them.

The evaluator asks a policy about every information state by showing it the observation
(and mask) the environment would show at that state: these are built here, only through
``siete_env.encoding.Layout``'s named features (``tests/test_exact.py`` checks them equal
to the encoder's, suit-folded, along random plays). Suits are the evaluator's choice:
the ``j``-th card of a rank it places is of suit ``j``.

The other way round, ``punter_states`` and ``banker_state_of`` read the evaluator's state
(which table row) from real observations, for the table policies
(``siete_env.solve.tables``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..cards import CARD_IDS, N_CARDS, N_RANKS, N_SUITS, card_of, parse_card
from ..encoding import CardColumn, HandFeature, SeatFeature
from ..encoding import GlobalFeature as GF
from ..game import Phase, Status
from ..rules import Rules
from ..table import Table
from .states import FOUR, VAL, HeadsUpStates

BANKER, PUNTER = 0, 1  # seats at the evaluator's table
ME, OTHER = 0, 1  # relative seats in an observation
OPENING_CARDS = 2  # one card to each seat before anyone decides


# --------------------------------------------------------------------------- legal actions
def _engine_legal(rules: Rules, cards: list[str], actions: list[str]) -> np.ndarray:
    """The engine's legal actions (a bool mask) in a heads-up hand dealt ``cards`` from the
    top (the punter's first card, the banker's, then the draws) after ``actions``."""
    g = Table(rules, 2)
    top = [parse_card(c) for c in cards]
    g.start(0, top + [c for c in rules.deck_cards() if c not in top], seed=0)
    names = [a.name for a in g.actions]
    for name in actions:
        g.apply(names.index(name))
    mask = np.zeros(len(g.actions), bool)
    mask[list(g.legal_actions())] = True
    return mask


def punter_masks(st: HeadsUpStates) -> tuple[np.ndarray, np.ndarray]:
    """The legal actions at every punter state, as the engine gives them: ``bet (n_bet,
    A)`` and ``draw (n_states, L, 2, A)`` (bool; by card state, stake level and whether a
    raise is open). The engine is asked once per kind of state: a first card that may be
    swapped or not; a draw decision at each stake with raises closed (the first decision
    after the bet) or open (after a hit)."""
    r = st.rules
    low, four = "5o", CARD_IDS[card_of(FOUR, 0)]
    plain = _engine_legal(r, [low, "5c"], [])
    swap = _engine_legal(r, [four, "5c"], []) if st.kmax else plain
    bet = np.array([swap if (st.Hd[c] == FOUR and st.K[c] < st.kmax) else plain for c in st.bet_states])
    draw = np.zeros((st.n_states, st.L, 2, st.A), bool)
    for si, level in enumerate(st.levels):
        draw[:, si, 0] = _engine_legal(r, ["1o", "5c"], [f"BET_{level}"])
        draw[:, si, 1] = _engine_legal(r, ["1o", "5c", "1c"], [f"BET_{level}", "HIT_UP"])
    return bet.reshape(len(st.bet_states), st.A), draw


def banker_mask(st: HeadsUpStates) -> np.ndarray:
    """``(1, A)``: the banker's legal actions where it has a choice (hit or stand), as the
    engine gives them (under forced banker rules the evaluator never asks a banker)."""
    free = st.rules.model_copy(update={"banker_policy_rule": "free"})
    return _engine_legal(free, ["5o", "5c"], [f"BET_{st.levels[0]}", "STAND"]).astype(np.int8)[None, :]


def _template(st: HeadsUpStates, seat: int) -> np.ndarray:
    L = st.layout
    row = np.zeros(L.size, np.float32)
    row[L.seat_feature(ME, SeatFeature.IS_BANKER)] = 1.0 if seat == BANKER else 0.0
    row[L.seat_feature(OTHER, SeatFeature.IS_BANKER)] = 1.0 if seat == PUNTER else 0.0
    row[L.seat_feature(ME, SeatFeature.TO_ACT)] = 1.0
    return row


def punter_observations(st: HeadsUpStates) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Observations and masks of every punter information state: rows for BET
    states (one per (k, h)), then for each card state, stake level and raise flag.
    Returns ``obs, masks, bet_row (n_bet,), draw_row (n_states, L, 2)`` (-1: none)."""
    L = st.layout
    base = _template(st, PUNTER)
    hf = L.hand_feature
    base[L.status_feature(OTHER, 0, Status.WAITING)] = 1.0
    base[hf(OTHER, 0, HandFeature.N_CARDS)] = 1.0
    base[hf(OTHER, 0, HandFeature.FACE_DOWN)] = 1.0
    base[L.status_feature(ME, 0, Status.PLAYING)] = 1.0
    base[hf(ME, 0, HandFeature.FACE_DOWN)] = 1.0
    stake, n_cards, total = (hf(ME, 0, f) for f in (HandFeature.STAKE, HandFeature.N_CARDS, HandFeature.VISIBLE_TOTAL))
    cards_left = L.global_feature(GF.CARDS_LEFT)
    own, own_fd, returned = L.hand_column(ME, 0), L.column(CardColumn.OWN_FACE_DOWN), L.column(CardColumn.RETURNED)
    n_bet = len(st.bet_states)
    bet_mask, draw_mask = punter_masks(st)
    raise_ok = [st.can_raise and i < st.L - 1 for i in range(st.L)]
    n_draw_rows = st.n_states * st.L + st.n_states * sum(raise_ok)
    n = n_bet + n_draw_rows
    obs = np.tile(base, (n, 1))
    masks = np.zeros((n, st.A), np.int8)
    bet_row = np.arange(n_bet)
    draw_row = np.full((st.n_states, st.L, 2), -1, np.int64)
    # per card state: the card entries (suits chosen by rank: returned 4s, face-up, hidden)
    rows_c = []
    for c in range(st.n_states):
        k, h, U = int(st.K[c]), int(st.Hd[c]), st.U[c]
        idx = []
        for r in range(N_RANKS):
            s0 = k if r == FOUR else 0
            for j in range(s0):
                idx.append(L.card_entry(card_of(r, j), returned))
            for j in range(int(U[r])):
                idx.append(L.card_entry(card_of(r, s0 + j), own))
        s_h = (k if h == FOUR else 0) + int(U[h])
        idx.append(L.card_entry(card_of(h, s_h), own))
        idx.append(L.card_entry(card_of(h, s_h), own_fd))
        rows_c.append(idx)
    tot = (st.U @ VAL + VAL[st.Hd]) * 0.5
    ncards = st.U.sum(1) + 1
    i = 0
    for c in st.bet_states:
        o = obs[i]
        o[rows_c[c]] = 1.0
        o[n_cards] = 1.0
        o[total] = tot[c]
        o[L.phase_feature(Phase.BET)] = 1.0
        o[cards_left] = N_CARDS - OPENING_CARDS
        masks[i] = bet_mask[i]
        i += 1
    rr, cc = [], []
    for c in range(st.n_states):
        for si in range(st.L):
            for ro in (0, 1):
                if ro and not raise_ok[si]:
                    continue
                draw_row[c, si, ro] = i
                rr.extend([i] * len(rows_c[c]))
                cc.extend(rows_c[c])
                o = obs[i]
                o[stake] = st.levels[si]
                o[n_cards] = ncards[c]
                o[total] = tot[c]
                o[L.phase_feature(Phase.DRAW)] = 1.0
                o[cards_left] = N_CARDS - OPENING_CARDS - ncards[c] + 1
                masks[i] = draw_mask[c, si, ro]
                i += 1
    obs[np.array(rr, np.int64), np.array(cc, np.int64)] = 1.0
    assert i == n
    return obs, masks, bet_row, draw_row


def banker_base(st: HeadsUpStates) -> tuple[np.ndarray, np.ndarray]:
    """Per V row (``vu`` x stake level): the banker's observation without its own cards,
    and the banker's mask (STAND and HIT_UP)."""
    L = st.layout
    base = _template(st, BANKER)
    hf = L.hand_feature
    base[L.status_feature(ME, 0, Status.PLAYING)] = 1.0
    base[L.status_feature(OTHER, 0, Status.STOOD)] = 1.0
    base[hf(OTHER, 0, HandFeature.FACE_DOWN)] = 1.0
    base[L.phase_feature(Phase.BANKER)] = 1.0
    nV = st.n_vu * st.L
    obs = np.tile(base, (nV, 1))
    punter = L.hand_column(OTHER, 0)
    rr, cc = [], []
    for v, (_k, U) in enumerate(st.vu_keys):
        idx = [L.card_entry(card_of(r, j), punter) for r in range(N_RANKS) for j in range(U[r])]
        for si in range(st.L):
            row = v * st.L + si
            rr.extend([row] * len(idx))
            cc.extend(idx)
    obs[np.array(rr, np.int64), np.array(cc, np.int64)] = 1.0
    vsum = st.vu_U.sum(1)
    obs[:, hf(OTHER, 0, HandFeature.STAKE)] = np.tile(np.array(st.levels, np.float32), st.n_vu)
    obs[:, hf(OTHER, 0, HandFeature.N_CARDS)] = np.repeat(vsum + 1, st.L)
    obs[:, hf(OTHER, 0, HandFeature.VISIBLE_TOTAL)] = np.repeat((st.vu_U @ VAL) * 0.5, st.L)
    return obs, banker_mask(st)


class BankerNode(NamedTuple):
    """What the banker's observation at node ``m_i`` adds to the base rows (``banker_base``)
    of some V rows, by rank (``banker_rows`` chooses the suits)."""

    ok: np.ndarray
    """``(n,)`` bool: the V rows at which the node is possible (the cards fit)."""
    cards: list[tuple[int, int, int | np.ndarray]]
    """``(rank, column, count)``: ``count`` cards of ``rank`` in card column ``column``
    (an int, or ``(n_ok,)`` per possible row): the banker's own cards, then the swapped 4s
    shown going back into the deck. Each is 1.0 at one card entry of the observation
    (which one: ``banker_rows``), where the base row holds 0."""
    scalars: list[tuple[int, float | np.ndarray]]
    """``(observation index, value)`` (a float, or ``(n_ok,)`` per possible row), where
    the base row holds 0."""


def banker_node(st: HeadsUpStates, vk: np.ndarray, vU: np.ndarray, m_i: int,
                vn: np.ndarray | None = None) -> BankerNode:  # fmt: skip
    """What the banker's observation at node ``m_i`` adds to the V rows whose punters
    swapped ``vk`` 4s and show ``vU`` (``vn``: ``vU.sum(1)``, if at hand); see ``BankerNode``."""
    L = st.layout
    m = st.M[m_i]
    m_n = int(st.M_n[m_i])
    vn = vU.sum(1) if vn is None else vn
    fd = st.fixed_drawn(vk, vn, m_n)
    ret = vk - fd
    # the cards fit: no more than N_SUITS of a rank (the punter's alone always fit, with
    # its swapped 4s: only the ranks the banker holds, and the 4s going back, are checked)
    ok = m[FOUR] >= fd
    for r in sorted(set(np.flatnonzero(m).tolist()) | ({FOUR} if st.kmax else set())):
        cnt = vU[:, r] + m[r]
        if r == FOUR:
            cnt += ret
        ok &= cnt <= N_SUITS
    own, returned = L.hand_column(ME, 0), L.column(CardColumn.RETURNED)
    cards: list[tuple[int, int, int | np.ndarray]] = [(int(r), own, int(m[r])) for r in np.flatnonzero(m)]
    if st.kmax:
        cards.append((FOUR, returned, ret[ok]))
    scalars: list[tuple[int, float | np.ndarray]] = [
        (L.hand_feature(ME, 0, HandFeature.N_CARDS), float(m_n)),
        (L.hand_feature(ME, 0, HandFeature.VISIBLE_TOTAL), float(st.M_tot[m_i]) * 0.5),
        (L.global_feature(GF.CARDS_LEFT), N_CARDS - 1 - vn[ok] - m_n),
    ]
    return BankerNode(ok, cards, scalars)


def banker_rows(st: HeadsUpStates, base: np.ndarray, vk: np.ndarray, vU: np.ndarray,
                m_i: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Banker observations for node ``m_i`` at the V rows given (``base`` their base
    rows); returns the rows and which of them are possible (cards fit). The cards of a
    rank take its suits in order: the punter's face-up cards, then those of
    ``banker_node`` in its order."""
    L = st.layout
    node = banker_node(st, vk, vU, m_i)
    rows = base[node.ok].copy()
    used = vU[node.ok].copy()  # cards of each rank placed so far (suits 0..used-1)
    ar = np.arange(len(rows))
    for r, column, count in node.cards:
        if np.ndim(count) == 0:
            for j in range(int(count)):
                rows[ar, L.card_entry(card_of(r, used[:, r] + j), column)] = 1.0
        else:
            for j in range(int(count.max(initial=0))):
                sel = j < count
                rows[ar[sel], L.card_entry(card_of(r, used[sel, r] + j), column)] = 1.0
        used[:, r] += count
    for index, value in node.scalars:
        rows[:, index] = value
    return rows, node.ok


# --------------------------------------------------------------------------- reading states back
def _rank_counts(st: HeadsUpStates, obs: np.ndarray) -> np.ndarray:
    """``(N, 10, W)``: how many cards of each rank the observation shows in each column."""
    L = st.layout
    cards = L.cards(obs).reshape(len(obs), N_SUITS, N_RANKS, L.W)  # card c = suit * N_RANKS + rank
    return cards.sum(1).round().astype(np.int64)


def _state_codes(k: np.ndarray, h: np.ndarray, U: np.ndarray) -> np.ndarray:
    """One ``int64`` per punter card state ``(k, h, U)``: ``U``'s counts (0..7) three bits a
    rank, then the face-down rank and the returned fours above them."""
    return ((k * N_RANKS + h) << (3 * N_RANKS)) + (U << (3 * np.arange(N_RANKS))).sum(-1)


def _punter_lookup(st: HeadsUpStates) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(sorted state codes, their card states, bet index by [k, h] (-1: none))``, made
    once per ``st`` from its card states (``st.K``, ``st.Hd``, ``st.U``) and ``st.bet_key()``."""
    cached = st.__dict__.get("_punter_lookup")
    if cached is None:
        codes = _state_codes(st.K, st.Hd, st.U)
        order = np.argsort(codes)
        bets = st.bet_key()
        bet_at = np.full((1 + max((k for k, _ in bets), default=0), N_RANKS), -1, np.int64)
        for (k, h), j in bets.items():
            bet_at[k, h] = j
        cached = st.__dict__["_punter_lookup"] = (codes[order], order, bet_at)
    return cached


def punter_states(st: HeadsUpStates, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, ...]:
    """Where a punter table reads each row, as arrays ``(kind, index, stake_level,
    raise_open)``: kind 0 at a BET state (``index``: its place in the first layer), 1 at a
    draw decision (``index``: the card state, with the stake's level and whether a raise is
    open), -1 outside the tables (a banker's observation, another phase, a state these
    rules never reach)."""
    L = st.layout
    o = np.asarray(observations)
    n = len(o)
    counts = _rank_counts(st, o)
    fd = counts[:, :, L.column(CardColumn.OWN_FACE_DOWN)]
    h = fd.argmax(1)
    k = counts[:, FOUR, L.column(CardColumn.RETURNED)]
    punter = (o[:, L.seat_feature(ME, SeatFeature.IS_BANKER)] == 0.0) & ((fd > 0).sum(1) == 1)
    bet = punter & (o[:, L.phase_feature(Phase.BET)] == 1.0)
    draw = punter & ~bet & (o[:, L.phase_feature(Phase.DRAW)] == 1.0)
    codes, states, bet_at = _punter_lookup(st)
    kind = np.full(n, -1, np.int64)
    index = np.zeros(n, np.int64)
    level = np.zeros(n, np.int64)
    raise_open = np.zeros(n, np.int64)
    if bet.any():
        kb, hb = k[bet], h[bet]
        inside = kb < bet_at.shape[0]
        j = np.full(len(kb), -1, np.int64)
        j[inside] = bet_at[kb[inside], hb[inside]]
        rows = np.flatnonzero(bet)[j >= 0]
        kind[rows], index[rows] = 0, j[j >= 0]
    if draw.any():
        rows = np.flatnonzero(draw)
        U = counts[rows][:, :, L.hand_column(ME, 0)]
        U[np.arange(len(rows)), h[rows]] -= 1
        fits = ((U >= 0) & (U < 8)).all(1)  # three bits a rank: a code of another state otherwise
        code = _state_codes(k[rows], h[rows], np.clip(U, 0, 7))
        at = np.minimum(np.searchsorted(codes, code), len(codes) - 1)
        found = fits & (codes[at] == code)
        stake = np.rint(o[rows, L.hand_feature(ME, 0, HandFeature.STAKE)]).astype(np.int64)
        levels = np.array(st.levels, np.int64)
        li = np.minimum(np.searchsorted(levels, stake), len(levels) - 1)
        found &= levels[li] == stake
        rows, at, li = rows[found], at[found], li[found]
        kind[rows], index[rows], level[rows] = 1, states[at], li
        raise_cols = list(st.raise_ids.values())
        if raise_cols:
            raise_open[rows] = (np.asarray(masks)[rows][:, raise_cols] != 0).any(1)
    return kind, index, level, raise_open


def banker_state_of(st: HeadsUpStates, observations: np.ndarray) -> list[tuple[int, int] | None]:
    """Per row, where a banker table reads it: ``(V row, banker node)``; ``None`` outside
    the table (a punter's observation, another phase, a state these rules never reach)."""
    L = st.layout
    counts = _rank_counts(st, observations)
    own, punter = L.hand_column(ME, 0), L.hand_column(OTHER, 0)
    returned = L.column(CardColumn.RETURNED)
    is_banker = L.seat_feature(ME, SeatFeature.IS_BANKER)
    banker_phase = L.phase_feature(Phase.BANKER)
    stake_at = L.hand_feature(OTHER, 0, HandFeature.STAKE)
    out: list[tuple[int, int] | None] = []
    for i in range(len(observations)):
        o, key = observations[i], None
        if o[banker_phase] == 1.0 and o[is_banker] == 1.0:
            M = counts[i, :, own]
            U = tuple(counts[i, :, punter].tolist())
            ret = int(counts[i, FOUR, returned])
            m_i = st.M_index.get(tuple(M.tolist()))
            stake = int(round(float(o[stake_at])))
            for k in range(ret, st.kmax + 1):  # swapped 4s: those still in the deck + those drawn
                fd = int(st.fixed_drawn(np.array([k]), np.array([sum(U)]), int(M.sum()))[0])
                if k - fd == ret and (k, U) in st.vu_index:
                    break
            else:
                k = -1
            if m_i is not None and k >= 0 and stake in st.levels:
                key = (st.vu_index[(k, U)] * st.L + st.levels.index(stake), m_i)
        out.append(key)
    return out


def banker_summary(st: HeadsUpStates) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The fields of ``BankerSummary`` over the banker's table ``(V rows, nodes)``: its own
    total ``(1, n_M)``; the punter hand's visible total, face-down flag (always: its
    hidden card), stake and standing ``(n_V, 1)``."""
    nV = st.n_vu * st.L
    own = (st.M_tot * 0.5)[None, :]
    punter_total = np.repeat(st.vu_U @ VAL, st.L)[:, None] * 0.5
    stake = np.tile(st.stake_vec(), st.n_vu)[:, None]
    yes = np.ones((nV, 1), bool)
    return own, punter_total, yes, stake, yes


__all__ = [
    "BankerNode",
    "banker_base",
    "banker_mask",
    "banker_node",
    "banker_rows",
    "banker_state_of",
    "banker_summary",
    "punter_masks",
    "punter_observations",
    "punter_states",
]
