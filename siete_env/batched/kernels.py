"""numba kernels of the batched engine: one packed ``int16`` row of state per table.

The episode is ``game.py``'s — a hand, or a session of hands — for the rules
``engine.check_rules`` accepts (every preset and option); the rules' values come from
tables made from ``settle`` (``T_*`` below), the rules of a hand's moves are ``hand``'s
functions and the points game's showdown is ``showdown.winners``, compiled here. Every
function here works on one table's row ``r`` (a view of ``state[g]``) and the table
configuration ``cfg`` (an ``int64`` array built by ``engine.BatchedTables``); the batch
kernels at the end loop over tables. Nothing here allocates, and no kernel calls itself
through another (numba's cache does not keep recursive calls): a session's next hand is
dealt by ``apply`` after the action that ended the last one.

Row layout (offsets in ``cfg``): the scalars (``BANKER .. SEED3``), then the deck
(``DMAX`` cards: the deck list of the reference engine, which grows by one card at each
four-swap), the "returned to the deck" flag of each of the 40 cards, and per hand slot
``k = seat * H + hand``: number of cards, face-down card (-1: none), total in half
points, stake, status, its cards (``MAXC`` each); per seat: hands, splits, swaps, chips;
then per slot a double flag (the points game), a scratch area for the showdown, per slot
the shot card (fusilar), per seat the announcement and the bid; then the areas of the
options and of the session (below, with their ``cfg`` entries).
"""

from __future__ import annotations

from typing import get_args

import numpy as np
from numba import njit, prange

from .. import hand, showdown
from ..cards import IS_FIGURE, N_CARDS, N_RANKS, RANK, VALUE2
from ..encoding import HAND_FEATURES, SEAT_FEATURES, CardColumn, GlobalFeature, HandFeature, SeatFeature
from ..game import (
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
    FIXED_ACTIONS,
    HIT_DOWN,
    HIT_UP,
    KEEP,
    SPLIT,
    STAND,
    SWAP_FOUR,
    Phase,
    Status,
)
from ..rules import Rules
from ..settle import OUT_BUST, OUT_POINTS_BEST, OUT_POINTS_DOUBLE, OUT_POINTS_UPSET, OUT_TRIPLEE

V2 = np.array(VALUE2, np.int64)
RANKS = np.array(RANK, np.int64)
FIG = np.array(IS_FIGURE, np.bool_)

# scalar fields of a row
BANKER, PHASE, SEAT, HAND, TURN, FIRST, RAISED, POS, DLEN, HANDNO, BURNABLE, NBURN = range(12)
NEWB, EXH, NDISC, NRESH, SEED0, SEED1, SEED2, SEED3 = range(12, 20)
EVN, EVSEAT, EVPHASE = range(20, 23)  # the event log: its length, the last turn it announced
INSTANT = 23  # the points game: the slot that won the game at once this hand (-1: none)
NSCAL = 24
# cfg entries
(K_N, K_H, K_MAXC, K_SPLITS, K_NB, K_TOP, K_CANRAISE, K_SWAP, K_SPLITANY, K_INITUP, K_DRAWDOWN, K_REVEAL75,
 K_FORCED, K_A, K_DECKSIZE, O_DECK, O_RET, O_NC, O_HID, O_TOT, O_STAKE, O_STATUS,
 O_CARDS, O_NH, O_SPL, O_SWP, O_CHIPS, K_F, K_W, K_HANDS, K_SEATS, K_GLOBAL, K_LIMIT, K_WILD, T_WILD, T_PAY,
 T_REALE, K_POINTS, K_MIN, K_DECLARE, K_UPSET_WIN, K_UPSET_LOSE, K_MORE_CARDS, K_TARGET, O_DBL, O_SCR, T_DOUBLE,
 T_INSTANT, T_POINTS, T_TAKES, T_RANK, T_WILD_LOSES, T_TIE, K_CANTO, K_CHASE, A_FUSIL, A_NOBID, K_NBIDS, T_BIDS,
 T_SHOT, T_BYOUT, O_BLIND, O_ANN, O_BID, K_SPLITFIRST, K_FACEFORCED, K_ALLDOWN, A_ACE, A_BURN, K_BURNDRAWN,
 K_TRIPLEE, T_TRIPLEE, O_EV, A_NOSIDE, K_SIDESTAKE, O_MH, O_ACE, O_TRIP, O_SIDE, O_BURNED, K_SESSION,
 K_EPHANDS, K_TOTARGET, K_START, K_SHOE, K_PASS, K_TRIP_TAKES, T_RSUIT, T_CARDS, O_DISC, O_SEEN, O_SHOWN,
 K_EVCAP, O_FORCE, K_FORCECAP, K_LEVELS) = range(96)  # fmt: skip
# The session (several hands per episode; ``K_SESSION``): ``K_EPHANDS`` hands, or
# (``K_TOTARGET``) until a seat's score reaches ``K_TARGET``; ``K_START`` the chips each seat
# starts with (-1: unlimited; a seat that cannot cover the lowest stake sits out, its first
# slot ``EMPTY``); ``K_PASS`` how the bank passes (``BP_*``, the new banker in ``NEWB``);
# ``K_SHOE`` the shoe runs on across hands: the cards of finished hands in ``O_DISC``
# (``NDISC``, the burnt ones first, in ``O_BURNED``), reshuffled when it runs out (``EXH``),
# the cards shown face-up in ``O_SHOWN`` (this hand) and ``O_SEEN`` (this shoe: the
# observation's seen-in-shoe column). Later hands' decks and every reshuffle are drawn from
# the episode's seed (``SEED0..3``: ``session_shuffle``), so the row alone plays the session.
BANK_PASSES = get_args(Rules.model_fields["bank_passes"].annotation)  # the values of ``Rules.bank_passes``
BP_SEVEN_HALF, BP_REALE, BP_WHEN_EXHAUSTED = (BANK_PASSES.index(m) for m in ("seven_half", "reale", "when_exhausted"))
# The options of italian and old-French sources: ``K_SPLITFIRST`` splits only from a seat's
# first hand (``split_first_hand_only``); ``K_FACEFORCED`` a hit comes face-down exactly when
# the hand shows no face-down card (``face_down_choice: false``); ``K_ALLDOWN`` every later
# card may come face-down (``max_face_down: all``), the face-down cards after a slot's first
# flagged per card in ``O_MH``; ``A_ACE`` the ACE_HALF action's id (-1: off), the declared
# ace per slot in ``O_ACE`` (its hand counts one half point less, later cards face-down);
# ``A_BURN`` BURN's id (-1: off), ``K_BURNDRAWN`` a 3 or 4 just drawn face-up may be burnt
# too (the row's ``BURNABLE``), ``NBURN`` the cards burnt this hand (out of play, shown in
# the returned column); ``K_TRIPLEE`` a triplèe (``T_TRIPLEE``: ``settle.is_triplee`` at ``40 * a + b``)
# stand at once and are paid as ``OUT_TRIPLEE``, flagged per slot in ``O_TRIP``;
# ``A_NOSIDE`` NO_SIDE_BET's id (-1: no side bets; ``SIDE_BET_r`` follow it), the seat each
# punter backs in ``O_SIDE`` (-1: none) at ``K_SIDESTAKE``.
# 000 §9's complements: ``K_CANTO`` the first 7½ is announced, ``K_CHASE`` the banker may not
# stand below 7½ after an announcement or a shot; ``A_FUSIL`` the FUSILAR action's id (-1:
# off), its shot card in ``O_BLIND`` per slot (-1: none), its outcome ``T_SHOT`` at ``P * (limit
# + 2) + min(B, limit + 1)`` (``settle.Payouts.shot_outcome``); ``A_NOBID`` the
# auction's first action id (-1: no auction; then ``BID_k`` for the ``K_NBIDS`` prices of
# ``T_BIDS``, SELL_BANK, KEEP_BANK), the bids per seat in ``O_BID``; ``O_ANN`` per seat: it
# announced 7½ or shot.
# The rules' tables (built by ``engine.BatchedTables`` from ``settle``, where each rule is
# written; at the cfg offsets ``T_*``): ``T_WILD`` the total of a hand holding the wild card
# (``settle.wild_total``) at ``2 * base + alone``; ``T_PAY`` a standing punter hand's outcome
# (``settle.Payouts.outcome``, an ``OUT_*`` code) at ``((P * (limit + 2) + min(B, limit + 1)) * 2 +
# punter_reale) * 2 + banker_reale``, ``T_BYOUT`` what each outcome pays in stakes
# (``settle.Payouts.by_outcome``); ``T_REALE`` (-1: no reale scoring) whether two cards
# at the limit are a reale (``settle.is_reale``) at ``40 * a + b``.
# The points game (``K_POINTS``; its other facts: ``K_MIN`` the lowest total a hand stands on
# while a card can be drawn, ``K_DECLARE`` the totals shown when made, a bit set): ``T_DOUBLE``
# (``settle.is_double``) at ``40 * a + b``; ``T_INSTANT`` (``settle.is_instant_win``) and
# ``T_POINTS`` (``settle.hand_points``) at ``total * (MAXC + 1) + cards`` (``T_POINTS``: then
# ``* 2 + wild) * 2 + double``; its totals up to ``TOTALS``: a double may be over the
# limit); ``T_TAKES`` (``settle.takes_bank``) at ``(total * 2 + double) * 2 + upset``; ``T_RANK``, ``T_WILD_LOSES`` (``RuleFacts``) per total; ``T_TIE``
# (``settle.tie_card_value``) per card. Who wins is ``showdown.winners``, compiled here.
WILD_BASES = 256  # the bases of T_WILD: every card of a deck (the tie for the bank deals on)
TOTALS = 64  # the totals of T_POINTS and T_TAKES: a hand at the showdown (two 7s: 28)
# The engine's and the encoding's names as plain ints (numba compiles them in as constants).
# phases and statuses (game.Phase, game.Status)
P_BET, P_DRAW, P_SPLIT, P_BANKER, P_OVER, P_AUCTION, P_SIDE = (
    int(Phase.BET),
    int(Phase.DRAW),
    int(Phase.SPLIT),
    int(Phase.BANKER),
    int(Phase.OVER),
    int(Phase.AUCTION),
    int(Phase.SIDE_BETS),
)
P_NEXT = 1 + max(int(p) for p in Phase)  # a session's hand is over, the next one not dealt yet (inside ``apply``)
S_EMPTY, S_WAITING, S_PLAYING = int(Status.EMPTY), int(Status.WAITING), int(Status.PLAYING)
S_STOOD, S_BUST = int(Status.STOOD), int(Status.BUST)
# action ids (game.build_actions: the fixed actions, then BET_k, then RAISE_k)
A_STAND, A_HIT_UP, A_HIT_DOWN, A_SWAP, A_SPLIT, A_KEEP = STAND, HIT_UP, HIT_DOWN, SWAP_FOUR, SPLIT, KEEP
A_BET0 = len(FIXED_ACTIONS)
MAX_ACTIONS = 63  # legal actions are int64 bit sets
# observation features (encoding.HandFeature, SeatFeature, GlobalFeature, CardColumn)
F_STATUS, F_STAKE, F_NCARDS = int(HandFeature.STATUS), int(HandFeature.STAKE), int(HandFeature.N_CARDS)
F_FACE_DOWN, F_TOTAL = int(HandFeature.FACE_DOWN), int(HandFeature.VISIBLE_TOTAL)
F_IS_BANKER, F_TO_ACT, F_CHIPS = int(SeatFeature.IS_BANKER), int(SeatFeature.TO_ACT), int(SeatFeature.CHIPS)
F_ANNOUNCED, F_BID, F_SIDE = int(SeatFeature.ANNOUNCED), int(SeatFeature.BID), int(SeatFeature.SIDE_BETS)
F_PHASE, F_HANDS_DONE = int(GlobalFeature.PHASE), int(GlobalFeature.HANDS_DONE)
F_CARDS_LEFT = int(GlobalFeature.CARDS_LEFT)
C_OWN_FACE_DOWN, C_RETURNED = int(CardColumn.OWN_FACE_DOWN), int(CardColumn.RETURNED)
C_SEEN = int(CardColumn.SEEN_IN_SHOE)
# results of ``advance``
LEARNER, PENDING = 0, 1

# Every kernel is compiled without the runtime's reference counts (numba's ``_nrt=False``):
# kernels allocate nothing and only index arrays their caller holds, and the atomic counts
# numba puts on each array handed to a helper cost more than the rules (``legal`` took 78 ns
# a table with them, 30 ns without).
KERNEL = dict(cache=True, _nrt=False)
# Numba compiles a helper that is not inlined once for each combination of its arguments'
# types, and types a constant argument as its own literal (a ``0`` or a ``True`` compiles
# another copy; a row's int16 and an int64 another): so the scalars handed to such a helper
# go as int64 (``_i8``) and bools as ``np.bool_``, and each helper compiles once per row type
# (docs/batched.md, "Compile time").
_i8 = np.int64

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


_winners = njit(**KERNEL)(showdown.winners)  # the points game's showdown: the rule's one definition
# the rules of a hand's moves (``siete_env.hand``: the reference engine calls the same functions)
_swap_return_position = njit(**KERNEL, inline="always")(hand.swap_return_position)
_may_swap = njit(**KERNEL, inline="always")(hand.may_swap)
_may_split = njit(**KERNEL, inline="always")(hand.may_split)
_may_shoot = njit(**KERNEL, inline="always")(hand.may_shoot)
_may_burn = njit(**KERNEL, inline="always")(hand.may_burn)
_may_declare_half = njit(**KERNEL, inline="always")(hand.may_declare_half)
_banker_must_hit = njit(**KERNEL, inline="always")(hand.banker_must_hit)
_forced_banker_hits = njit(**KERNEL, inline="always")(hand.forced_banker_hits)


# --------------------------------------------------------------------------- randomness
@njit(**KERNEL, inline="always")
def mix64(x):
    """splitmix64's output function."""
    z = (x ^ (x >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(**KERNEL, inline="always")
def next64(rng, g):
    """The next number of table ``g``'s splitmix64 stream (``rng[g]`` is its state)."""
    x = rng[g] + _GOLDEN
    rng[g] = x
    return mix64(x)


@njit(**KERNEL, inline="always")
def _below(z, m):
    """A 64-bit random number ``z`` as a draw uniform in ``0..m-1`` (``m`` small)."""
    return np.int64(((z >> np.uint64(11)) * np.uint64(m)) >> np.uint64(53))


@njit(**KERNEL, inline="always")
def randint(rng, g, m):
    """Uniform in ``0..m-1`` (``m`` small)."""
    return _below(next64(rng, g), m)


@njit(**KERNEL)
def uniform(rng, g):
    return (next64(rng, g) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(**KERNEL)
def shuffle_deck(r, cfg, cards, rng, g):
    """A fresh uniformly shuffled deck into the row: Fisher-Yates ("inside-out") with table
    ``g``'s stream, two 32-bit draws from each 64-bit number."""
    d = cfg[O_DECK]
    m = cards.shape[0]
    x = rng[g]
    mask = np.uint64(0xFFFFFFFF)
    r[d] = cards[0]
    z = np.uint64(0)
    for i in range(1, m):
        if i & 1:
            x += _GOLDEN
            z = mix64(x)
            u = z & mask
        else:
            u = z >> np.uint64(32)
        j = np.int64((u * np.uint64(i + 1)) >> np.uint64(32))
        r[d + i] = r[d + j]
        r[d + j] = cards[i]
    rng[g] = x
    r[DLEN] = m


@njit(**KERNEL)
def set_seed(r, x):
    """The episode's seed ``x`` (a ``uint64``) into the row's four 16-bit words."""
    for i in range(4):
        w = np.int64((x >> np.uint64(16 * i)) & np.uint64(0xFFFF))
        r[SEED0 + i] = w - 65536 if w >= 32768 else w  # as a signed 16-bit word


@njit(**KERNEL, inline="always")
def _row_seed(r):
    x = np.uint64(0)
    for i in range(4):
        x |= np.uint64(np.int64(r[SEED0 + i]) & 0xFFFF) << np.uint64(16 * i)
    return x


@njit(**KERNEL)
def session_shuffle(seed, stream, cards, m, out):
    """``cards[:m]`` shuffled into ``out[:m]`` by the episode's ``seed`` and ``stream`` (hand
    ``h``'s fresh deck: ``2 * h``; the ``j``-th reshuffle of a shoe: ``2 * j + 1``): Fisher-Yates
    from the last card, each draw ``_below`` a number of a splitmix64 stream started at
    ``mix64(seed * golden + stream + 1)``."""
    x = mix64(seed * _GOLDEN + np.uint64(stream) + np.uint64(1))
    for j in range(m):
        out[j] = cards[j]
    for j in range(m - 1, 0, -1):
        x += _GOLDEN
        t = _below(mix64(x), j + 1)
        c = out[j]
        out[j] = out[t]
        out[t] = c


# --------------------------------------------------------------------------- helpers
# --------------------------------------------------------------------------- the event log
# A one-table engine (``K_EVCAP`` > 0: ``siete_env.table.Table``) has the kernels write what
# happens, in order, into the row's area at ``O_EV``: per event its kind (``game.EV_*``), the
# count of its fields, the fields (``EVN``: the area's length; the reader empties it before an
# action; -1: it overflowed). The batched tables size it 0 and write nothing.
@njit(**KERNEL)
def _ev_write(r, cfg, kind, m, a, b, c, d, e, f):
    i = r[EVN]
    if i < 0 or i + 8 > cfg[K_EVCAP]:  # (the six fields are written, the unused ones overwritten next)
        r[EVN] = -1  # overflow: the reader raises
        return
    o = cfg[O_EV] + i
    r[o] = kind
    r[o + 1] = m
    r[o + 2] = a
    r[o + 3] = b
    r[o + 4] = c
    r[o + 5] = d
    r[o + 6] = e
    r[o + 7] = f
    r[EVN] = i + 2 + m


@njit(**KERNEL, inline="always")
def _ev(r, cfg, kind, m, a, b, c, d, e, f):
    """Log an event of ``m`` fields (``a..f``, the unused ones 0)."""
    if cfg[K_EVCAP]:
        _ev_write(r, cfg, _i8(kind), _i8(m), _i8(a), _i8(b), _i8(c), _i8(d), _i8(e), _i8(f))


# --------------------------------------------------------------------------- chosen cards
# A one-table engine whose every card dealt is chosen by its caller (``K_FORCECAP`` > 0:
# ``siete_env.openspiel``, where each card is a chance node) has an area at ``O_FORCE``:
# ``F_N`` cards chosen for the next transition at ``F_CARDS`` (dealing order), ``F_I`` how
# many it dealt; when it needs one more, ``F_NEED`` is set and ``F_OUT`` flags the cards
# that could come (the caller drops what followed and plays the transition again with one
# more card chosen). ``F_BACK`` flags the swapped 4s put back into the deck list and not
# dealt since: the deck's top is one of them only where the rules put it, so it is the only
# outcome there, and elsewhere not one. ``F_ERR``: a chosen card that could not come.
F_N, F_I, F_NEED, F_ERR = range(4)
F_BACK = 4
F_OUT = F_BACK + N_CARDS
F_CARDS = F_OUT + N_CARDS


@njit(**KERNEL)
def _choose_top(r, cfg):
    """Put the next chosen card on top of the deck (or flag that one is needed)."""
    f, d = cfg[O_FORCE], cfg[O_DECK]
    pos, end = r[POS], r[DLEN]
    top = r[d + pos]
    i = r[f + F_I]
    if i < r[f + F_N]:
        c = r[f + F_CARDS + i]
        r[f + F_I] = i + 1
        if r[f + F_BACK + top]:
            if c != top:
                r[f + F_ERR] = 1
        else:
            q = -1
            for j in range(pos, end):
                if r[d + j] == c:
                    q = j
                    break
            if q < 0 or r[f + F_BACK + c]:
                r[f + F_ERR] = 1
            else:
                r[d + q] = top
                r[d + pos] = c
    elif not r[f + F_NEED]:
        r[f + F_NEED] = 1
        for c in range(N_CARDS):
            r[f + F_OUT + c] = 0
        if r[f + F_BACK + top]:
            r[f + F_OUT + top] = 1
        else:
            for j in range(pos, end):
                c = r[d + j]
                if not r[f + F_BACK + c]:
                    r[f + F_OUT + c] = 1
    r[f + F_BACK + r[d + pos]] = 0  # dealt now


@njit(**KERNEL, inline="always")
def _clear_back(r, cfg):
    """A new deck list: no swapped 4 in it."""
    if cfg[K_FORCECAP]:
        for c in range(N_CARDS):
            r[cfg[O_FORCE] + F_BACK + c] = 0


@njit(**KERNEL)
def _ev_new_hand(r, cfg):
    """``EV_NEW_HAND``: the banker, the hands done, every seat's chips, the cards left, the
    shoe's seen cards (in card order) and the seats sitting out."""
    if not cfg[K_EVCAP]:
        return
    n, H = cfg[K_N], cfg[K_H]
    i = r[EVN]
    if i < 0 or i + 6 + 2 * n + N_CARDS > cfg[K_EVCAP]:
        r[EVN] = -1
        return
    o = cfg[O_EV] + i
    b = r[BANKER]
    r[o] = EV_NEW_HAND
    j = o + 2
    r[j] = b
    r[j + 1] = r[HANDNO]
    r[j + 2] = r[DLEN] - r[POS]
    j += 3
    for s in range(n):
        r[j] = r[cfg[O_CHIPS] + s]
        j += 1
    at = j
    j += 1
    if cfg[K_SHOE]:
        for c in range(N_CARDS):
            if r[cfg[O_SEEN] + c]:
                r[j] = c
                j += 1
    r[at] = j - at - 1
    at = j
    j += 1
    for s in range(n):
        if s != b and r[cfg[O_STATUS] + s * H] == S_EMPTY:
            r[j] = s
            j += 1
    r[at] = j - at - 1
    r[o + 1] = j - o - 2
    r[EVN] = j - cfg[O_EV]
    r[EVSEAT] = -1
    r[EVPHASE] = -1


@njit(**KERNEL, inline="always")
def _turn(r, cfg, seat, phase):
    """The turn passes (``tests.oracle.Game._turn``): ``phase``, and ``seat`` to act (-1: none)."""
    r[PHASE] = phase
    if seat >= 0:
        r[SEAT] = seat
    if cfg[K_EVCAP]:
        _ev(r, cfg, EV_TURN, 5, r[EVSEAT], r[EVPHASE], seat, phase, r[HANDNO], 0)
        r[EVSEAT] = seat
        r[EVPHASE] = phase


@njit(**KERNEL, inline="always")
def _set_status(r, cfg, k, st):
    H = cfg[K_H]
    _ev(r, cfg, EV_STATUS, 4, k // H, k % H, r[cfg[O_STATUS] + k], st, 0, 0)
    r[cfg[O_STATUS] + k] = st


@njit(**KERNEL, inline="always")
def _multi_hidden(cfg):
    """A slot may hold several face-down cards (``max_face_down: all``, a declared ½ ace)."""
    return cfg[K_ALLDOWN] != 0 or cfg[A_ACE] >= 0


@njit(**KERNEL, inline="always")
def _reveal(r, cfg, k):
    c = r[cfg[O_HID] + k]
    if c >= 0:
        H = cfg[K_H]
        r[cfg[O_HID] + k] = -1
        r[cfg[O_RET] + c] = 0  # seen face-up: no longer "returned to the deck"
        if cfg[K_SHOE]:
            r[cfg[O_SHOWN] + c] = 1
        _ev(r, cfg, EV_REVEAL, 3, c, k // H, k % H, 0, 0, 0)
        if _multi_hidden(cfg):
            b = cfg[O_CARDS] + k * cfg[K_MAXC]
            for j in range(r[cfg[O_NC] + k]):
                c = r[b + j]
                if r[cfg[O_MH] + c]:
                    r[cfg[O_MH] + c] = 0
                    r[cfg[O_RET] + c] = 0
                    if cfg[K_SHOE]:
                        r[cfg[O_SHOWN] + c] = 1
                    _ev(r, cfg, EV_REVEAL, 3, c, k // H, k % H, 0, 0, 0)


@njit(**KERNEL)
def _cards_total(r, cfg, k, visible):
    """The total of slot ``k``'s cards (``visible``: only those face-up), the wild card at
    its best value (``T_WILD``)."""
    wild = cfg[K_WILD]
    hid = r[cfg[O_HID] + k] if visible else -1
    more = visible and _multi_hidden(cfg)
    blind = r[cfg[O_BLIND] + k]  # a shot card counts once it is shown (settlement)
    base = -r[cfg[O_ACE] + k] if cfg[A_ACE] >= 0 else 0  # a declared ace counts ½ (settle.best_total's adjust)
    count = 0
    has_wild = False
    b = cfg[O_CARDS] + k * cfg[K_MAXC]
    for j in range(r[cfg[O_NC] + k]):
        c = r[b + j]
        if c == hid or c == blind or (more and r[cfg[O_MH] + c]):
            continue
        count += 1
        if c == wild:
            has_wild = True
        else:
            base += V2[c]
    if not has_wild:
        return base
    return cfg[cfg[T_WILD] + 2 * base + (count == 1)]


@njit(**KERNEL, inline="always")
def _slot_total(r, cfg, k):
    return _cards_total(r, cfg, _i8(k), np.bool_(False))


@njit(**KERNEL, inline="always")
def _visible_total(r, cfg, k):
    """What the table sees of slot ``k``'s total (its face-up cards)."""
    if cfg[K_WILD] < 0:
        hid = r[cfg[O_HID] + k]
        if hid < 0:
            return r[cfg[O_TOT] + k]
        t = r[cfg[O_TOT] + k] - V2[hid]
        if _multi_hidden(cfg):
            b = cfg[O_CARDS] + k * cfg[K_MAXC]
            for j in range(r[cfg[O_NC] + k]):
                c = r[b + j]
                if r[cfg[O_MH] + c]:
                    t -= V2[c]
        return t
    return _cards_total(r, cfg, _i8(k), np.bool_(True))


@njit(**KERNEL)
def _reshuffle(r, cfg):
    """The shoe ran out: its discards, shuffled, become the new shoe (the table keeps its
    cards)."""
    m = r[NDISC]
    d = cfg[O_DECK]
    session_shuffle(_row_seed(r), 2 * r[NRESH] + 1, r[cfg[O_DISC] : cfg[O_DISC] + m], m, r[d : d + m])
    r[NRESH] += 1
    r[DLEN] = m
    r[POS] = 0
    r[NDISC] = 0
    for c in range(N_CARDS):
        r[cfg[O_SEEN] + c] = 0
    r[EXH] = 1
    _clear_back(r, cfg)
    _ev(r, cfg, EV_RESHUFFLE, 1, m, 0, 0, 0, 0, 0)


@njit(**KERNEL, inline="always")
def _can_draw(r, cfg):
    """A card is left to draw: in the deck, or in a shoe's discards (``NDISC`` stays 0
    without a shoe)."""
    return r[POS] < r[DLEN] or r[NDISC] > 0


@njit(**KERNEL, inline="always")
def _draw_into(r, cfg, k):
    """The deck's next card (a shoe first reshuffles its discards when it runs out) joins
    slot ``k``'s cards (counted nowhere yet); returns it."""
    if r[POS] >= r[DLEN]:
        _reshuffle(r, cfg)
    if cfg[K_FORCECAP]:
        _choose_top(r, cfg)
    pos = r[POS]
    c = r[cfg[O_DECK] + pos]
    r[POS] = pos + 1
    nc = r[cfg[O_NC] + k]
    r[cfg[O_CARDS] + k * cfg[K_MAXC] + nc] = c
    r[cfg[O_NC] + k] = nc + 1
    return c


@njit(**KERNEL, inline="always")
def _give(r, cfg, k, face_up):
    c = _draw_into(r, cfg, k)
    if cfg[K_WILD] < 0:
        r[cfg[O_TOT] + k] += V2[c]
    else:
        r[cfg[O_TOT] + k] = _slot_total(r, cfg, k)
    if face_up:
        r[cfg[O_RET] + c] = 0
        if cfg[K_SHOE]:
            r[cfg[O_SHOWN] + c] = 1
    elif _multi_hidden(cfg) and r[cfg[O_HID] + k] >= 0:  # a declared ½ ace, max_face_down: all
        r[cfg[O_MH] + c] = 1
    else:
        r[cfg[O_HID] + k] = c
    _ev(r, cfg, EV_DEAL, 4, c, k // cfg[K_H], k % cfg[K_H], face_up, 0, 0)
    return c


@njit(**KERNEL, inline="always")
def _active(r, cfg, s):
    """Seat ``s`` can cover the lowest stake (always, without ``starting_chips``)."""
    return cfg[K_START] < 0 or cfg[K_START] + r[cfg[O_CHIPS] + s] >= cfg[K_LEVELS]


@njit(**KERNEL, inline="always")
def _budget(r, cfg, s):
    """What seat ``s`` can still stake this hand (``starting_chips``: its balance less its stakes)."""
    b = cfg[K_START] + r[cfg[O_CHIPS] + s]
    for h in range(r[cfg[O_NH] + s]):
        b -= r[cfg[O_STAKE] + s * cfg[K_H] + h]
    return b


@njit(**KERNEL, inline="always")
def _pay(r, cfg, frm, to, amount):
    """Chips from seat ``frm`` to ``to``; ``frm`` -1: points scored (from no seat)."""
    if frm >= 0:
        r[cfg[O_CHIPS] + frm] -= amount
    r[cfg[O_CHIPS] + to] += amount
    _ev(r, cfg, EV_PAY, 3, frm, to, amount, 0, 0, 0)


@njit(**KERNEL)
def _result(r, cfg, k, s, outcome):
    """Settle punter slot ``k`` (seat ``s``) by its ``outcome`` (``settle.OUT_*``): it wins
    what the outcome pays (``T_BYOUT``) times its stake (loses, if negative); side bets on a
    seat's first hand follow it at their own stake, their bettors in turn order."""
    b = r[BANKER]
    n, H = cfg[K_N], cfg[K_H]
    st = r[cfg[O_STAKE] + k]
    mult = cfg[cfg[T_BYOUT] + outcome]
    if cfg[K_EVCAP]:
        kb = b * H
        bst = r[cfg[O_STATUS] + kb]
        B = r[cfg[O_TOT] + kb] if (bst == S_STOOD or bst == S_BUST) else -1
        _ev(r, cfg, EV_RESULT, 6, s, k % H, outcome, st * mult, r[cfg[O_TOT] + k], B)
    if mult > 0:
        _pay(r, cfg, b, s, st * mult)
    else:
        _pay(r, cfg, s, b, -st * mult)
    if cfg[A_NOSIDE] >= 0 and k % H == 0:
        side = cfg[K_SIDESTAKE]
        for i in range(n):
            t = (b + 1 + i) % n
            if r[cfg[O_SIDE] + t] == s:
                if mult > 0:
                    _pay(r, cfg, b, t, side * mult)
                else:
                    _pay(r, cfg, t, b, -side * mult)


@njit(**KERNEL, inline="always")
def _is_reale(r, cfg, k):
    """Slot ``k`` holds a reale (``T_REALE``; ``settle.is_reale``)."""
    if cfg[T_REALE] < 0 or r[cfg[O_NC] + k] != 2 or r[cfg[O_TOT] + k] != cfg[K_LIMIT]:
        return 0
    b = cfg[O_CARDS] + k * cfg[K_MAXC]
    return cfg[cfg[T_REALE] + N_CARDS * r[b] + r[b + 1]]


@njit(**KERNEL)
def _settle_points(r, cfg, instant):
    """The points game's showdown (``tests.oracle.Game._settle_points``): standing hands are shown,
    the winners score (``T_POINTS``), a full tie for the bank is broken by one more face-up
    card each; ``instant`` (a slot, -1: none) won the game at once."""
    n, H, L, MAXC = cfg[K_N], cfg[K_H], cfg[K_LIMIT], cfg[K_MAXC]
    b = r[BANKER]
    o = cfg[O_SCR]  # scratch: the hands in turn order, the banker's last
    tot, nc, wild, dbl, st, out = r[o : o + n], r[o + n : o + 2 * n], r[o + 2 * n : o + 3 * n], r[
        o + 3 * n : o + 4 * n], r[o + 4 * n : o + 5 * n], r[o + 5 * n : o + 6 * n]  # fmt: skip
    w = cfg[K_WILD]
    for i in range(n):
        k = ((b + 1 + i) % n) * H
        st[i] = r[cfg[O_STATUS] + k] == S_STOOD
        if st[i]:
            _reveal(r, cfg, k)  # showdown
        tot[i] = r[cfg[O_TOT] + k]
        nc[i] = r[cfg[O_NC] + k]
        dbl[i] = r[cfg[O_DBL] + k]
        wild[i] = 0
        for j in range(nc[i]):
            if r[cfg[O_CARDS] + k * MAXC + j] == w:
                wild[i] = 1
    chips = cfg[O_CHIPS]
    if instant >= 0:
        s = instant // H
        i = (s - b - 1) % n
        won = cfg[cfg[T_POINTS] + ((tot[i] * (MAXC + 1) + nc[i]) * 2 + wild[i]) * 2 + dbl[i]]
        r[INSTANT] = instant
        _pay(r, cfg, -1, s, max(won, cfg[K_TARGET] - r[chips + s]))
        _turn(r, cfg, -1, P_OVER)
        return
    k, upset = _winners(
        tot, nc, wild, dbl, st, n, n - 1, cfg[cfg[T_RANK] : cfg[T_RANK] + L + 1], L, cfg[K_UPSET_WIN],
        cfg[K_UPSET_LOSE], cfg[K_MORE_CARDS] != 0, cfg[cfg[T_WILD_LOSES] : cfg[T_WILD_LOSES] + L + 1], out,
    )  # fmt: skip
    B = tot[n - 1] if st[n - 1] else -1  # the banker's (the last)
    for j in range(k):
        i = out[j]
        won = cfg[cfg[T_POINTS] + ((tot[i] * (MAXC + 1) + nc[i]) * 2 + wild[i]) * 2 + dbl[i]]
        why = OUT_POINTS_DOUBLE if dbl[i] else (OUT_POINTS_UPSET if upset else OUT_POINTS_BEST)
        _ev(r, cfg, EV_RESULT, 6, (b + 1 + i) % n, 0, why, won, tot[i], B)
        _pay(r, cfg, -1, (b + 1 + i) % n, won)
    if k > 0 and cfg[cfg[T_TAKES] + (tot[out[0]] * 2 + dbl[out[0]]) * 2 + upset]:
        while k > 1 and r[DLEN] - r[POS] >= k:  # one more card each, face-up, while they tie
            top = -1
            for j in range(k):
                c = _give(r, cfg, ((b + 1 + out[j]) % n) * H, True)
                nc[j] = cfg[cfg[T_TIE] + c]
                top = max(top, nc[j])
            m = 0
            for j in range(k):
                if nc[j] == top:
                    out[m] = out[j]
                    m += 1
            k = m
        w = (b + 1 + out[0]) % n
        if w != b:
            r[NEWB] = w
    _hand_over(r, cfg)


@njit(**KERNEL)
def _settle(r, cfg):
    if cfg[K_POINTS]:
        _settle_points(r, cfg, _i8(-1))
        return
    n, H, L = cfg[K_N], cfg[K_H], cfg[K_LIMIT]
    b = r[BANKER]
    B = min(r[cfg[O_TOT] + b * H], L + 1)
    br = _is_reale(r, cfg, b * H)
    pay = cfg[T_PAY]
    best = -1  # the best punter reale's slot (its suit the lowest index)
    for t in range(n - 1):
        s = (b + t + 1) % n
        for h in range(r[cfg[O_NH] + s]):
            k = s * H + h
            if r[cfg[O_STATUS] + k] != S_STOOD:
                continue
            _reveal(r, cfg, k)
            if cfg[K_TRIPLEE] and r[cfg[O_TRIP] + k]:  # a triplèe: paid its own, whatever the banker has
                _result(r, cfg, _i8(k), _i8(s), _i8(OUT_TRIPLEE))
                continue
            c = r[cfg[O_BLIND] + k]
            if c >= 0:  # a shot 7: its card is shown now
                r[cfg[O_BLIND] + k] = -1
                r[cfg[O_RET] + c] = 0
                if cfg[K_SHOE]:
                    r[cfg[O_SHOWN] + c] = 1
                _ev(r, cfg, EV_REVEAL, 3, c, s, h, 0, 0, 0)
                P = r[cfg[O_TOT] + k] = _slot_total(r, cfg, k) if cfg[K_WILD] >= 0 else r[cfg[O_TOT] + k] + V2[c]
                out = cfg[cfg[T_SHOT] + min(P, TOTALS - 1) * (L + 2) + B]  # (settle.Payouts.shot_outcome)
                if out == OUT_BUST:
                    _set_status(r, cfg, k, S_BUST)
                _result(r, cfg, _i8(k), _i8(s), _i8(out))
                continue
            P = r[cfg[O_TOT] + k]
            pr = _is_reale(r, cfg, k)
            if pr and (best < 0 or _reale_suit(r, cfg, k) < _reale_suit(r, cfg, best)):
                best = k
            _result(r, cfg, _i8(k), _i8(s), _i8(cfg[pay + ((P * (L + 2) + B) * 2 + pr) * 2 + br]))
    _pass_bank(r, cfg, _i8(B), _i8(br), _i8(best))  # (read by the next hand of a session, and by ``Table.new_banker``)
    _hand_over(r, cfg)


@njit(**KERNEL, inline="always")
def _reale_suit(r, cfg, k):
    """The suit slot ``k``'s reale ranks by (``T_RSUIT``; ``settle.reale_suit``)."""
    b = cfg[O_CARDS] + k * cfg[K_MAXC]
    return cfg[cfg[T_RSUIT] + N_CARDS * r[b] + r[b + 1]]


@njit(**KERNEL)
def _pass_bank(r, cfg, B, banker_reale, best):
    """Who takes the bank for the next hand (``tests.oracle.Game._pass_bank``): ``NEWB`` (-1: the
    banker keeps it)."""
    n, H, L = cfg[K_N], cfg[K_H], cfg[K_LIMIT]
    b = r[BANKER]
    mode = cfg[K_PASS]
    if mode == BP_SEVEN_HALF and B != L:
        keep_triple = cfg[K_TRIPLEE] != 0 and cfg[K_TRIP_TAKES] == 0  # 004 "non prende il mazzo"
        for t in range(n - 1):
            s = (b + t + 1) % n
            for h in range(r[cfg[O_NH] + s]):
                k = s * H + h
                if (
                    r[cfg[O_TOT] + k] == L
                    and r[cfg[O_STATUS] + k] == S_STOOD
                    and not (keep_triple and r[cfg[O_TRIP] + k])
                ):
                    r[NEWB] = s
                    break
            if r[NEWB] >= 0:
                break
    elif mode == BP_REALE and best >= 0:
        if B != L or (banker_reale and _reale_suit(r, cfg, best) < _reale_suit(r, cfg, b * H)):
            r[NEWB] = best // H
    exhausted = r[EXH] != 0 or (cfg[K_SHOE] != 0 and r[POS] >= r[DLEN])
    if r[NEWB] < 0 and exhausted and (mode == BP_REALE or mode == BP_WHEN_EXHAUSTED):
        r[NEWB] = (b + 1) % n  # the banker's right: next in turn order
    r[EXH] = 0


@njit(**KERNEL)
def _episode_over(r, cfg):
    if cfg[K_TOTARGET]:
        for s in range(cfg[K_N]):
            if r[cfg[O_CHIPS] + s] >= cfg[K_TARGET]:
                return True
        return False
    if r[HANDNO] >= cfg[K_EPHANDS]:
        return True
    if cfg[K_START] < 0:
        return False
    active = 0
    for s in range(cfg[K_N]):
        active += _active(r, cfg, s)
    return active < 2


@njit(**KERNEL, inline="always")
def _hand_over(r, cfg):
    """After a settlement: the episode ends, or (``P_NEXT``) ``apply`` deals the next hand
    once the action is done (no kernel of a hand calls the next hand's: numba's cache does
    not take recursive calls)."""
    r[HANDNO] += 1
    if cfg[K_SESSION] and not _episode_over(r, cfg):
        r[PHASE] = P_NEXT
    else:
        _turn(r, cfg, -1, P_OVER)


@njit(**KERNEL)
def _next_hand(r, cfg):
    """The next hand of a session: the bank passed, dealt in a shoe from what is left, else
    from a fresh deck."""
    n, H = cfg[K_N], cfg[K_H]
    if r[NEWB] >= 0:
        r[BANKER] = r[NEWB]
    while not _active(r, cfg, r[BANKER]):  # it passes the bank on
        r[BANKER] = (r[BANKER] + 1) % n
    d = cfg[O_DECK]
    if cfg[K_SHOE]:
        o = cfg[O_DISC]
        for i in range(r[NBURN]):
            r[o + r[NDISC]] = r[cfg[O_BURNED] + i]
            r[NDISC] += 1
        for k in range(n * H):
            b = cfg[O_CARDS] + k * cfg[K_MAXC]
            for j in range(r[cfg[O_NC] + k]):
                r[o + r[NDISC]] = r[b + j]
                r[NDISC] += 1
        for c in range(N_CARDS):
            if r[cfg[O_SHOWN] + c]:
                r[cfg[O_SEEN] + c] = 1
        if r[POS] >= r[DLEN]:  # the shoe ended with the hand (``_pass_bank`` counted it)
            _reshuffle(r, cfg)
            r[EXH] = 0
    else:
        m = cfg[K_DECKSIZE]
        session_shuffle(_row_seed(r), 2 * r[HANDNO], cfg[cfg[T_CARDS] : cfg[T_CARDS] + m], m, r[d : d + m])
        r[DLEN] = m
        r[POS] = 0
        _clear_back(r, cfg)
    _open_hand(r, cfg)


@njit(**KERNEL, inline="always")
def _banker_turn(r, cfg):
    n, H = cfg[K_N], cfg[K_H]
    b = r[BANKER]
    plays = cfg[K_POINTS] != 0  # the points game: the banker plays for its own score
    for t in range(n - 1):
        s = (b + t + 1) % n
        for h in range(r[cfg[O_NH] + s]):
            st = r[cfg[O_STATUS] + s * H + h]
            if st != S_BUST and st != S_EMPTY:  # (EMPTY: a seat sitting out)
                plays = True
    if not plays:
        _settle(r, cfg)  # every punter hand is bust: the banker has nothing to play
        return
    r[SEAT] = b
    r[HAND] = 0
    _reveal(r, cfg, b * H)
    _set_status(r, cfg, b * H, S_PLAYING)
    _turn(r, cfg, b, P_BANKER)


@njit(**KERNEL, inline="always")
def _begin_hand(r, cfg, s, h):
    r[SEAT] = s
    r[HAND] = h
    _set_status(r, cfg, s * cfg[K_H] + h, S_PLAYING)
    if cfg[K_POINTS]:  # no stakes: the hand starts drawing
        r[FIRST] = 1
        r[RAISED] = 0
        _turn(r, cfg, s, P_DRAW)
    else:
        _turn(r, cfg, s, P_BET)


@njit(**KERNEL, inline="always")
def _next_punter(r, cfg):
    n, H = cfg[K_N], cfg[K_H]
    while True:
        r[TURN] += 1
        if r[TURN] >= n - 1:
            _banker_turn(r, cfg)
            return
        s = (r[BANKER] + r[TURN] + 1) % n
        if r[cfg[O_STATUS] + s * H] == S_WAITING:
            _begin_hand(r, cfg, s, 0)
            return


@njit(**KERNEL)
def _end_punter_hand(r, cfg):
    s, h = r[SEAT], r[HAND]
    if h + 1 < r[cfg[O_NH] + s]:
        _begin_hand(r, cfg, s, h + 1)
    else:
        _next_punter(r, cfg)


@njit(**KERNEL, inline="always")
def _instant(r, cfg, k):
    """The points game: slot ``k``'s hand wins the game at once (``T_INSTANT``)."""
    return cfg[K_POINTS] != 0 and cfg[cfg[T_INSTANT] + r[cfg[O_TOT] + k] * (cfg[K_MAXC] + 1) + r[cfg[O_NC] + k]] != 0


@njit(**KERNEL, inline="always")
def _declared(cfg, t):
    """A total shown when it is made (``K_DECLARE``)."""
    return t < 63 and (cfg[K_DECLARE] >> t) & 1 != 0


@njit(**KERNEL, inline="always")
def _double(r, cfg, k):
    """The points game: slot ``k``'s first two cards make a double (``T_DOUBLE``)."""
    b = cfg[O_CARDS] + k * cfg[K_MAXC]
    return cfg[K_POINTS] != 0 and cfg[cfg[T_DOUBLE] + N_CARDS * r[b] + r[b + 1]] != 0


@njit(**KERNEL)
def _announced(r, cfg):
    """Some seat announced 7½ or shot this hand."""
    for s in range(cfg[K_N]):
        if r[cfg[O_ANN] + s]:
            return True
    return False


@njit(**KERNEL)
def _shoot(r, cfg, s):
    """Fusilar: the 7 is shown, a card nobody sees goes under it (not counted until the
    showdown), the turn ends."""
    k = s * cfg[K_H]
    _reveal(r, cfg, k)
    c = r[cfg[O_BLIND] + k] = _draw_into(r, cfg, k)
    _ev(r, cfg, EV_DEAL, 4, c, s, 0, 0, 0, 0)
    r[cfg[O_ANN] + s] = 1
    _ev(r, cfg, EV_ANNOUNCE, 1, s, 0, 0, 0, 0, 0)
    _set_status(r, cfg, k, S_STOOD)
    _end_punter_hand(r, cfg)


@njit(**KERNEL)
def _deal(r, cfg):
    """One card to each punter in turn order (face-down unless ``all_face_up``), the
    banker's last; then the first punter plays."""
    n, H = cfg[K_N], cfg[K_H]
    banker = r[BANKER]
    up = cfg[K_INITUP] != 0
    punters = 0
    for t in range(n - 1):
        k = ((banker + t + 1) % n) * H
        if r[cfg[O_STATUS] + k] == S_EMPTY:  # sitting out
            continue
        punters += 1
        if _can_draw(r, cfg):
            _give(r, cfg, k, up)
    if _can_draw(r, cfg):
        _give(r, cfg, banker * H, False)
    r[HAND] = 0
    r[TURN] = -1
    if cfg[A_NOSIDE] >= 0 and punters >= 2:  # side bets: each punter in turn may back another's hand
        _next_turn(r, cfg)
        _turn(r, cfg, r[SEAT], P_SIDE)
        return
    r[SEAT] = 0
    _next_punter(r, cfg)


@njit(**KERNEL)
def _side_bet(r, cfg, a):
    """Side bets (000 §9): the acting punter backs the seat ``a - A_NOSIDE`` places after
    it (NO_SIDE_BET: none); then the next punter, or play."""
    n = cfg[K_N]
    s = r[SEAT]
    if a != cfg[A_NOSIDE]:
        t = r[cfg[O_SIDE] + s] = (s + a - cfg[A_NOSIDE]) % n
        _ev(r, cfg, EV_SIDE, 2, t, cfg[K_SIDESTAKE], 0, 0, 0, 0)
    if _next_turn(r, cfg):
        _turn(r, cfg, r[SEAT], P_SIDE)
        return
    r[TURN] = -1
    _next_punter(r, cfg)


@njit(**KERNEL)
def _auction(r, cfg, a):
    """The auction for the bank (001): each punter in turn bids or passes, then the banker
    sells to the highest bid (the first seat offering it) or keeps the bank; then the deal."""
    n = cfg[K_N]
    s, b = r[SEAT], r[BANKER]
    o = cfg[O_BID]
    if s != b:
        if a > cfg[A_NOBID]:
            r[o + s] = cfg[cfg[T_BIDS] + a - cfg[A_NOBID] - 1]
            _ev(r, cfg, EV_BID, 2, s, r[o + s], 0, 0, 0, 0)
        if _next_turn(r, cfg):
            _turn(r, cfg, r[SEAT], P_AUCTION)
            return
        for t in range(n):
            if r[o + t]:
                _turn(r, cfg, b, P_AUCTION)  # the banker sells or keeps
                return
    elif a == cfg[A_NOBID] + cfg[K_NBIDS] + 1:  # SELL_BANK
        buyer = 0
        for t in range(n):
            if r[o + t] > r[o + buyer]:
                buyer = t
        _pay(r, cfg, buyer, b, r[o + buyer])
        r[BANKER] = buyer
        _mark_seats(r, cfg)  # the same hand, with the new banker
        _ev_new_hand(r, cfg)
    for t in range(n):
        r[o + t] = 0
    _deal(r, cfg)


@njit(**KERNEL)
def _check_total(r, cfg, s, h):
    k = s * cfg[K_H] + h
    t = r[cfg[O_TOT] + k]
    if t > cfg[K_LIMIT]:
        _reveal(r, cfg, k)
        _set_status(r, cfg, k, S_BUST)
        if not cfg[K_POINTS]:
            _result(r, cfg, _i8(k), _i8(s), _i8(OUT_BUST))
        _end_punter_hand(r, cfg)
    elif _instant(r, cfg, k):  # it wins the game at once
        _reveal(r, cfg, k)
        _set_status(r, cfg, k, S_STOOD)
        _settle_points(r, cfg, _i8(k))
    elif t == cfg[K_LIMIT]:
        if cfg[K_REVEAL75] or _declared(cfg, t):
            _reveal(r, cfg, k)
        if cfg[K_CANTO] and not _announced(r, cfg):
            r[cfg[O_ANN] + s] = 1
            _ev(r, cfg, EV_ANNOUNCE, 1, s, 0, 0, 0, 0, 0)
        _set_status(r, cfg, k, S_STOOD)
        _end_punter_hand(r, cfg)
    elif _declared(cfg, t):  # shown; it may go on drawing
        _reveal(r, cfg, k)


@njit(**KERNEL)
def _hit(r, cfg, s, h, face_up):
    k = s * cfg[K_H] + h
    was_single = r[cfg[O_NC] + k] == 1
    if not face_up and cfg[K_ALLDOWN] == 0 and not (cfg[A_ACE] >= 0 and r[cfg[O_ACE] + k]):
        _reveal(r, cfg, k)
    c = _give(r, cfg, k, face_up)
    _after_draw(r, cfg, _i8(s), _i8(h), _i8(c), np.bool_(was_single), np.bool_(face_up))


@njit(**KERNEL, inline="always")
def _is_triplee(r, cfg, k):
    """Slot ``k``'s two cards make a triplèe (``T_TRIPLEE``: ``settle.is_triplee``)."""
    b = cfg[O_CARDS] + k * cfg[K_MAXC]
    return cfg[cfg[T_TRIPLEE] + N_CARDS * r[b] + r[b + 1]] != 0


@njit(**KERNEL)
def _after_draw(r, cfg, s, h, c, was_single, face_up):
    """A punter hand received ``c`` from a hit (or in place of a burnt card): a double, a
    triplèe, a split, a bust or 7½, a 3 or 4 it may burn."""
    k = s * cfg[K_H] + h
    r[FIRST] = 0
    r[RAISED] = 0
    if was_single and _double(r, cfg, k):  # declared: shown, it stands
        r[cfg[O_DBL] + k] = 1
        _reveal(r, cfg, k)
        _set_status(r, cfg, k, S_STOOD)
        _end_punter_hand(r, cfg)
        return
    if cfg[K_TRIPLEE] and was_single and _is_triplee(r, cfg, k):  # shown, it stands
        _reveal(r, cfg, k)
        r[cfg[O_TRIP] + k] = 1
        _set_status(r, cfg, k, S_STOOD)
        _end_punter_hand(r, cfg)
        return
    first = r[cfg[O_CARDS] + k * cfg[K_MAXC]]
    if (
        was_single
        and _may_split(r[cfg[O_SPL] + s], cfg[K_SPLITS], V2[c], V2[first], FIG[c], cfg[K_SPLITANY] != 0)
        and (h == 0 or cfg[K_SPLITFIRST] == 0)
        and (cfg[K_START] < 0 or _budget(r, cfg, s) >= cfg[K_LEVELS])
    ):
        _turn(r, cfg, s, P_SPLIT)
        return
    _check_total(r, cfg, _i8(s), _i8(h))
    # burn_drawn: a 3 or 4 just received face-up, in a hand that plays on, may be burnt
    if (
        cfg[K_BURNDRAWN]
        and face_up
        and _may_burn(RANKS[c])
        and r[cfg[O_STATUS] + k] == S_PLAYING
        and r[PHASE] == P_DRAW
    ):
        r[BURNABLE] = 1


@njit(**KERNEL)
def _burn(r, cfg, s, h):
    """A 3 or 4 is shown and put out of play; the top card replaces it: the initial card
    (before the bet), or one just received face-up from a hit (then face-up, and the hand
    goes on as after a hit)."""
    k = s * cfg[K_H] + h
    nc = r[cfg[O_NC] + k] - 1
    card = r[cfg[O_CARDS] + k * cfg[K_MAXC] + nc]
    r[cfg[O_NC] + k] = nc
    was_up = r[cfg[O_HID] + k] != card
    if not was_up:
        r[cfg[O_HID] + k] = -1
    r[cfg[O_TOT] + k] = _slot_total(r, cfg, k)
    r[cfg[O_RET] + card] = 1  # shown, out of the hand (and of play)
    r[cfg[O_BURNED] + r[NBURN]] = card
    r[NBURN] += 1
    if cfg[K_SHOE]:
        r[cfg[O_SHOWN] + card] = 1
    _ev(r, cfg, EV_RETURN, 5, card, s, was_up, 0, h, 0)
    if r[PHASE] == P_BET:
        _give(r, cfg, k, cfg[K_INITUP] != 0)
        return
    _after_draw(r, cfg, _i8(s), _i8(h), _i8(_give(r, cfg, k, True)), np.bool_(nc == 1), np.bool_(True))


@njit(**KERNEL)
def _declare_ace(r, cfg, s):
    """Italian: the initial ace is declared (shown) worth ½; later cards come face-down."""
    k = s * cfg[K_H]
    _reveal(r, cfg, k)
    r[cfg[O_ACE] + k] = 1
    r[cfg[O_TOT] + k] = _slot_total(r, cfg, k)
    _ev(r, cfg, EV_ACE_HALF, 1, s, 0, 0, 0, 0, 0)


@njit(**KERNEL)
def _split(r, cfg, s, h):
    H, MAXC = cfg[K_H], cfg[K_MAXC]
    k = s * H + h
    _reveal(r, cfg, k)
    nc = r[cfg[O_NC] + k] - 1
    c = r[cfg[O_CARDS] + k * MAXC + nc]
    r[cfg[O_NC] + k] = nc
    nh = r[cfg[O_NH] + s]
    r[cfg[O_NH] + s] = nh + 1
    r[cfg[O_SPL] + s] += 1
    nk = s * H + nh
    r[cfg[O_CARDS] + nk * MAXC] = c
    r[cfg[O_NC] + nk] = 1
    if cfg[K_WILD] < 0:
        r[cfg[O_TOT] + k] -= V2[c]
        r[cfg[O_TOT] + nk] = V2[c]
    else:
        r[cfg[O_TOT] + k] = _slot_total(r, cfg, k)
        r[cfg[O_TOT] + nk] = _slot_total(r, cfg, nk)
    _ev(r, cfg, EV_MOVE, 4, c, s, h, nh, 0, 0)
    _set_status(r, cfg, nk, S_WAITING)


@njit(**KERNEL)
def _swap_four(r, cfg, s):
    r[cfg[O_SWP] + s] += 1
    if r[POS] >= r[DLEN]:
        _reshuffle(r, cfg)  # before the 4 goes back, so that the shoe counts stay right
    k = s * cfg[K_H]
    nc = r[cfg[O_NC] + k] - 1
    four = r[cfg[O_CARDS] + k * cfg[K_MAXC] + nc]
    r[cfg[O_NC] + k] = nc
    was_up = r[cfg[O_HID] + k] != four
    r[cfg[O_HID] + k] = -1
    r[cfg[O_TOT] + k] = _slot_total(r, cfg, k)  # (no card left: 0)
    r[cfg[O_RET] + four] = 1  # shown going back into the deck
    _ev(r, cfg, EV_RETURN, 5, four, s, was_up, 1, 0, 0)
    _give(r, cfg, k, cfg[K_INITUP] != 0)
    d = cfg[O_DECK]
    pos, end = r[POS], r[DLEN]
    at = _swap_return_position(pos, end)
    for i in range(end, at, -1):
        r[d + i] = r[d + i - 1]
    r[d + at] = four
    r[DLEN] = end + 1
    if cfg[K_FORCECAP]:
        r[cfg[O_FORCE] + F_BACK + four] = 1


# --------------------------------------------------------------------------- the game
@njit(**KERNEL)
def start(r, cfg, banker):
    """A new episode with ``banker``, its first hand dealt from the deck already in the row;
    the session's later decks and reshuffles come from the row's seed (``set_seed``)."""
    r[BANKER] = banker
    r[POS] = 0
    r[HANDNO] = 0
    r[EXH] = 0
    r[NDISC] = 0
    r[NRESH] = 0
    for s in range(cfg[K_N]):
        r[cfg[O_CHIPS] + s] = 0
    if cfg[K_SHOE]:
        for c in range(N_CARDS):
            r[cfg[O_SEEN] + c] = 0
    _open_hand(r, cfg)


@njit(**KERNEL)
def _mark_seats(r, cfg):
    """Every seat's first slot: waiting to play (the banker, the punters who can cover the
    lowest stake) or empty (sitting out)."""
    H = cfg[K_H]
    b = r[BANKER]
    for s in range(cfg[K_N]):
        r[cfg[O_STATUS] + s * H] = S_WAITING if (s == b or _active(r, cfg, s)) else S_EMPTY


@njit(**KERNEL)
def _next_turn(r, cfg):
    """The turn moves to the next punter in turn order who plays this hand (``SEAT``);
    False when none is left."""
    n, H = cfg[K_N], cfg[K_H]
    while True:
        r[TURN] += 1
        if r[TURN] >= n - 1:
            return False
        s = (r[BANKER] + r[TURN] + 1) % n
        if r[cfg[O_STATUS] + s * H] != S_EMPTY:
            r[SEAT] = s
            return True


@njit(**KERNEL)
def _open_hand(r, cfg):
    """A hand's empty slots for the current banker, then the auction or the deal."""
    n, H = cfg[K_N], cfg[K_H]
    S = n * H
    r[FIRST] = 0
    r[RAISED] = 0
    r[BURNABLE] = 0
    r[NBURN] = 0
    r[NEWB] = -1
    r[INSTANT] = -1
    for c in range(N_CARDS):
        r[cfg[O_RET] + c] = 0
    if _multi_hidden(cfg):
        for c in range(N_CARDS):
            r[cfg[O_MH] + c] = 0
    if cfg[K_SHOE]:
        for c in range(N_CARDS):
            r[cfg[O_SHOWN] + c] = 0
    for k in range(S):
        r[cfg[O_NC] + k] = 0
        r[cfg[O_HID] + k] = -1
        r[cfg[O_TOT] + k] = 0
        r[cfg[O_STAKE] + k] = 0
        r[cfg[O_STATUS] + k] = S_WAITING if k % H == 0 else S_EMPTY
        r[cfg[O_DBL] + k] = 0
        r[cfg[O_BLIND] + k] = -1
    if cfg[A_ACE] >= 0:
        for k in range(S):
            r[cfg[O_ACE] + k] = 0
    if cfg[K_TRIPLEE]:
        for k in range(S):
            r[cfg[O_TRIP] + k] = 0
    for s in range(n):
        r[cfg[O_NH] + s] = 1
        r[cfg[O_SPL] + s] = 0
        r[cfg[O_SWP] + s] = 0
        r[cfg[O_ANN] + s] = 0
        r[cfg[O_BID] + s] = 0
    if cfg[A_NOSIDE] >= 0:
        for s in range(n):
            r[cfg[O_SIDE] + s] = -1
    if cfg[K_START] >= 0:  # (without starting chips every seat plays)
        _mark_seats(r, cfg)
    _ev_new_hand(r, cfg)
    if cfg[A_NOBID] >= 0:  # the bank's auction before the deal
        r[TURN] = -1
        r[HAND] = 0
        _next_turn(r, cfg)
        _turn(r, cfg, r[SEAT], P_AUCTION)
        return
    _deal(r, cfg)


@njit(**KERNEL)
def legal(r, cfg):
    """The acting seat's legal actions as a bit set (bit ``a``: action ``a``); 0 once over."""
    ph = r[PHASE]
    if ph == P_OVER:
        return np.int64(0)
    can_draw = _can_draw(r, cfg)
    H, nb, top = cfg[K_H], cfg[K_NB], cfg[K_TOP]
    one = np.int64(1)
    if ph == P_DRAW:
        k = r[SEAT] * H + r[HAND]
        m = np.int64(0)
        if not (can_draw and r[cfg[O_TOT] + k] < cfg[K_MIN]):  # below min_stand a hand must draw
            m = one << A_STAND
        if can_draw:
            down_only = cfg[K_ALLDOWN] != 0 or (cfg[A_ACE] >= 0 and r[cfg[O_ACE] + k] != 0)
            up_only = False
            if cfg[K_FACEFORCED]:  # face-down exactly when the hand shows no face-down card
                up_only = r[cfg[O_HID] + k] >= 0
                down_only = down_only or not up_only
            if down_only:
                m |= one << A_HIT_DOWN
            else:
                m |= one << A_HIT_UP
                if cfg[K_DRAWDOWN] != 0 and not up_only:
                    m |= one << A_HIT_DOWN
            if r[BURNABLE]:
                m |= one << cfg[A_BURN]
        if cfg[K_CANRAISE] != 0 and r[RAISED] == 0 and r[FIRST] == 0:
            raise_from = r[cfg[O_STAKE] + k]
        else:
            raise_from = top
        cap = top if cfg[K_START] < 0 else min(top, r[cfg[O_STAKE] + k] + _budget(r, cfg, r[SEAT]))
        for i in range(1, nb):
            lv = cfg[K_LEVELS + i]
            if raise_from < lv <= cap:
                m |= one << (A_BET0 + nb + i - 1)
        if (
            cfg[A_FUSIL] >= 0
            and can_draw
            and _may_shoot(RANKS[r[cfg[O_CARDS] + k * cfg[K_MAXC]]], r[cfg[O_NC] + k], r[FIRST] != 0, r[HAND] == 0)
        ):
            m |= one << cfg[A_FUSIL]
        return m
    if ph == P_BET:
        if cfg[K_START] < 0:
            m = ((one << nb) - 1) << A_BET0  # every stake
        else:  # the stakes it can cover (the lowest always)
            m = np.int64(0)
            cap = max(_budget(r, cfg, r[SEAT]), cfg[K_LEVELS])
            for i in range(nb):
                if cfg[K_LEVELS + i] <= cap:
                    m |= one << (A_BET0 + i)
        k = r[SEAT] * H
        first = r[HAND] == 0 and can_draw and r[cfg[O_NC] + k] == 1
        rank = RANKS[r[cfg[O_CARDS] + k * cfg[K_MAXC]]] if first else 0
        if first and cfg[K_SWAP] != 0 and _may_swap(rank, r[cfg[O_SWP] + r[SEAT]]):
            if cfg[K_SWAP] == 2:  # mandatory
                return one << A_SWAP
            m |= one << A_SWAP
        if first and cfg[A_BURN] >= 0 and _may_burn(rank):
            m |= one << cfg[A_BURN]
        if (
            first
            and cfg[A_ACE] >= 0
            and _may_declare_half(rank, r[cfg[O_CARDS] + k * cfg[K_MAXC]] == cfg[K_WILD])
            and r[cfg[O_ACE] + k] == 0
        ):
            m |= one << cfg[A_ACE]
        return m
    if ph == P_SPLIT:
        return (one << A_SPLIT) | (one << A_KEEP)
    if ph == P_SIDE:  # no side bet, or back another punter: SIDE_BET_r, r places after the bettor
        n = cfg[K_N]
        s, b = r[SEAT], r[BANKER]
        m = one << cfg[A_NOSIDE]
        if cfg[K_START] >= 0 and _budget(r, cfg, s) < cfg[K_SIDESTAKE]:
            return m  # it cannot cover a side bet
        for t in range(n):
            if t != s and t != b and r[cfg[O_STATUS] + t * H] != S_EMPTY:
                m |= one << (cfg[A_NOSIDE] + (t - s + n) % n)
        return m
    if ph == P_AUCTION:
        a0 = cfg[A_NOBID]
        if r[SEAT] == r[BANKER]:
            return (one << (a0 + cfg[K_NBIDS] + 1)) | (one << (a0 + cfg[K_NBIDS] + 2))
        high = 0
        for t in range(cfg[K_N]):
            high = max(high, r[cfg[O_BID] + t])
        m = one << a0
        for i in range(cfg[K_NBIDS]):
            bid = cfg[cfg[T_BIDS] + i]
            if bid > high and (cfg[K_START] < 0 or bid <= cfg[K_START] + r[cfg[O_CHIPS] + r[SEAT]]):
                m |= one << (a0 + 1 + i)
        return m
    # banker
    if not can_draw:
        return one << A_STAND
    t = r[cfg[O_TOT] + r[SEAT] * H]
    if _banker_must_hit(t, cfg[K_MIN], cfg[K_CHASE] != 0 and _announced(r, cfg), cfg[K_LIMIT]):
        return one << A_HIT_UP
    if cfg[K_FORCED] != 0:
        return one << (A_HIT_UP if _forced_banker_hits(t) else A_STAND)
    return (one << A_STAND) | (one << A_HIT_UP)


@njit(**KERNEL)
def apply(r, cfg, a):
    """Apply the acting seat's action ``a`` (legal: the caller checks)."""
    _act(r, cfg, a)
    if r[PHASE] == P_NEXT:  # a session's hand ended: the next one is dealt
        _next_hand(r, cfg)


@njit(**KERNEL)
def _act(r, cfg, a):
    ph = r[PHASE]
    s, h = r[SEAT], r[HAND]
    H, nb = cfg[K_H], cfg[K_NB]
    k = s * H + h
    r[BURNABLE] = 0  # a drawn 3 or 4 is burnt at once or kept
    if ph == P_AUCTION:
        _auction(r, cfg, a)
    elif ph == P_SIDE:
        _side_bet(r, cfg, a)
    elif ph == P_DRAW:
        if a == cfg[A_FUSIL]:
            _shoot(r, cfg, s)
        elif a == cfg[A_BURN]:
            _burn(r, cfg, _i8(s), _i8(h))
        elif a >= A_BET0 + nb:  # RAISE
            r[cfg[O_STAKE] + k] = cfg[K_LEVELS + a - A_BET0 - nb + 1]
            r[RAISED] = 1
            _ev(r, cfg, EV_STAKE, 3, s, h, r[cfg[O_STAKE] + k], 0, 0, 0)
        elif a == A_STAND:
            _set_status(r, cfg, k, S_STOOD)
            _end_punter_hand(r, cfg)
        else:
            _hit(r, cfg, s, h, a == A_HIT_UP)
    elif ph == P_BET:
        if a == A_SWAP:
            _swap_four(r, cfg, s)
        elif a == cfg[A_BURN]:
            _burn(r, cfg, _i8(s), _i8(0))
        elif a == cfg[A_ACE]:
            _declare_ace(r, cfg, s)
        else:
            r[cfg[O_STAKE] + k] = cfg[K_LEVELS + a - A_BET0]
            _ev(r, cfg, EV_STAKE, 3, s, h, r[cfg[O_STAKE] + k], 0, 0, 0)
            r[FIRST] = 1
            r[RAISED] = 0
            _turn(r, cfg, s, P_DRAW)
    elif ph == P_SPLIT:
        if a == A_SPLIT:
            _split(r, cfg, s, h)
        r[FIRST] = 0
        r[RAISED] = 0
        _turn(r, cfg, s, P_DRAW)
        if a == A_KEEP:
            _check_total(r, cfg, _i8(s), _i8(h))
    elif ph == P_BANKER:
        kb = s * H
        if a == A_STAND:
            _set_status(r, cfg, kb, S_STOOD)
            _settle(r, cfg)
        else:
            was_single = r[cfg[O_NC] + kb] == 1
            _give(r, cfg, kb, True)
            t = r[cfg[O_TOT] + kb]
            if was_single and _double(r, cfg, kb):  # declared: it stands
                r[cfg[O_DBL] + kb] = 1
                _set_status(r, cfg, kb, S_STOOD)
                _settle(r, cfg)
            elif t > cfg[K_LIMIT]:
                _set_status(r, cfg, kb, S_BUST)
                _settle(r, cfg)
            elif _instant(r, cfg, kb):  # (before the limit, as a punter's)
                _set_status(r, cfg, kb, S_STOOD)
                _settle_points(r, cfg, _i8(kb))
            elif t == cfg[K_LIMIT]:
                _set_status(r, cfg, kb, S_STOOD)
                _settle(r, cfg)


@njit(**KERNEL)
def random_legal(m, rng, g):
    """A uniformly drawn action of the bit set ``m`` (not empty)."""
    cnt = 0
    x = m
    while x:
        x &= x - 1
        cnt += 1
    j = randint(rng, g, cnt)
    a = 0
    while True:
        if (m >> a) & 1:
            if j == 0:
                return a
            j -= 1
        a += 1


# --------------------------------------------------------------------------- native players
# Players the kernels decide for themselves, from the state (what their observation shows
# them): a ``params`` row (``vector.native_params``, from the agent object) is its kind and
# its parameters, totals in half points: the threshold it stands on, the banker's, the
# hidden-card value below which it hits face-down, and the first-card totals it stakes the
# top level on (a bit set: bit ``t``, total ``t``), the best total it always stands on (-1:
# none; quattro e mezzo's 4½), the least a face-down card counts for the smart banker.
N_EXTERNAL, N_RANDOM, N_THRESHOLD, N_BANKER, N_SMART, N_BOLD, N_QUATTRO = 0, 1, 2, 3, 4, 5, 6
P_KIND, P_STANDS, P_BANKER_STANDS, P_HIDE_BELOW, P_STRONG, P_BEST, P_LEAST_HIDDEN = range(7)
N_PARAMS = 7


@njit(**KERNEL)
def _smart_hits(r, cfg, t2, least_hidden):
    """``agents.baselines.SmartBanker.hits`` for the banker at ``r[SEAT]`` (``least_hidden``:
    its ``LEAST_HIDDEN``, half points)."""
    n, H = cfg[K_N], cfg[K_H]
    b = r[SEAT]
    mine = r[cfg[O_TOT] + b * H]
    if mine < t2:
        return True
    standing = 0
    sure = 0
    for s in range(n):
        if s == b:
            continue
        for h in range(H):
            k = s * H + h
            if r[cfg[O_STATUS] + k] != S_STOOD:
                continue
            stake = r[cfg[O_STAKE] + k]
            least = _visible_total(r, cfg, k)  # the face-up total, plus ½ for a face-down card
            if r[cfg[O_HID] + k] >= 0 or r[cfg[O_BLIND] + k] >= 0:
                least += least_hidden
            standing += stake
            if mine < least < cfg[K_LIMIT]:
                sure += stake
    return standing > 0 and 2 * sure > standing


@njit(**KERNEL)
def decide(r, cfg, p, rng, g):
    """The action of the native player of ``params`` row ``p`` at the acting seat (the
    heuristics of ``agents.baselines``, decided on the state instead of the observation)."""
    kind, t2, bt2 = p[P_KIND], p[P_STANDS], p[P_BANKER_STANDS]
    m = legal(r, cfg)
    if kind == N_RANDOM:
        return random_legal(m, rng, g)
    one = np.int64(1)
    ph = r[PHASE]
    k = r[SEAT] * cfg[K_H] + r[HAND]
    tot = r[cfg[O_TOT] + k]
    if ph == P_BANKER:
        if kind == N_SMART:
            want = _smart_hits(r, cfg, t2, p[P_LEAST_HIDDEN])
        elif kind == N_BANKER:
            want = tot < t2
        else:
            want = tot < bt2 and tot != p[P_BEST]
        if want and (m >> A_HIT_UP) & one:
            return A_HIT_UP
        return A_STAND if (m >> A_STAND) & one else A_HIT_UP
    if ph == P_BET:
        nb = cfg[K_NB]
        if kind == N_BOLD:
            if (m >> A_SWAP) & one:
                return A_SWAP
            lo, hi = -1, -1
            for i in range(nb):
                if (m >> (A_BET0 + i)) & one:
                    if lo < 0:
                        lo = A_BET0 + i
                    hi = A_BET0 + i
            if lo >= 0:
                return hi if (p[P_STRONG] >> tot) & one else lo
        for i in range(nb):
            if (m >> (A_BET0 + i)) & one:
                return A_BET0 + i
        a = MAX_ACTIONS - 1
        while not (m >> a) & one:
            a -= 1
        return a
    if ph == P_SPLIT:
        return A_KEEP
    if ph == P_AUCTION:  # no bid; a banker keeps the bank
        if (m >> cfg[A_NOBID]) & one:
            return cfg[A_NOBID]
        return cfg[A_NOBID] + cfg[K_NBIDS] + 2
    if ph == P_SIDE:  # no side bet
        return cfg[A_NOSIDE]
    hits = (m >> A_HIT_UP) & one or (m >> A_HIT_DOWN) & one
    if ((tot >= t2 or tot == p[P_BEST]) and (m >> A_STAND) & one) or not hits:
        return A_STAND  # (below min_stand it may not stand: it draws)
    if not (m >> A_HIT_UP) & one:
        return A_HIT_DOWN  # (a face-down hit the only one)
    hid = r[cfg[O_HID] + k]
    if hid >= 0 and V2[hid] < p[P_HIDE_BELOW] and (m >> A_HIT_DOWN) & one:
        return A_HIT_DOWN
    return A_HIT_UP


# --------------------------------------------------------------------------- observations
@njit(**KERNEL)
def observe(r, cfg, o, fold, out):
    """Seat ``o``'s observation (``tests.oracle.Encoder.observe``), suit-folded if ``fold``
    (``features.fold_suits``), written over ``out``."""
    n, H, W, MAXC = cfg[K_N], cfg[K_H], cfg[K_W], cfg[K_MAXC]
    o_status, o_stake, o_nc, o_hid, o_tot = cfg[O_STATUS], cfg[O_STAKE], cfg[O_NC], cfg[O_HID], cfg[O_TOT]
    o_cards, o_chips, o_ret, o_swp = cfg[O_CARDS], cfg[O_CHIPS], cfg[O_RET], cfg[O_SWP]
    o_blind = cfg[O_BLIND]
    nH = n * H
    shift = (N_CARDS - N_RANKS) * W if fold else 0  # folded: a row per rank instead of per card
    HANDS, SEATS, G = cfg[K_HANDS] - shift, cfg[K_SEATS] - shift, cfg[K_GLOBAL] - shift  # encoding.Layout's blocks
    out[:] = 0.0
    phase, seat, b = r[PHASE], r[SEAT], r[BANKER]
    swaps = r[NBURN]  # cards shown going back into the deck or out of play: the returned column
    more = _multi_hidden(cfg)
    for s in range(n):
        swaps += r[o_swp + s]
        rel = s - o
        if rel < 0:
            rel += n
        for h in range(H):
            k = s * H + h
            slot = rel * H + h
            hb = HANDS + slot * HAND_FEATURES
            out[hb + F_STATUS + r[o_status + k]] = 1.0
            nc = r[o_nc + k]
            if nc == 0:
                continue
            out[hb + F_STAKE] = r[o_stake + k]
            out[hb + F_NCARDS] = nc
            hid = r[o_hid + k]
            blind = r[o_blind + k]  # a shot card: nobody sees it
            if hid >= 0 or blind >= 0:
                out[hb + F_FACE_DOWN] = 1.0
            base = o_cards + k * MAXC
            for j in range(nc):
                c = r[base + j]
                if c == blind:
                    continue
                row = (c % N_RANKS if fold else c) * W
                down = c == hid or (more and r[cfg[O_MH] + c] != 0)
                if not down or s == o:
                    out[row + slot] += 1.0
                if down and s == o:
                    out[row + nH + C_OWN_FACE_DOWN] += 1.0
            out[hb + F_TOTAL] = (r[o_tot + k] if s == o else _visible_total(r, cfg, k)) * 0.5
        sb = SEATS + rel * SEAT_FEATURES
        if s == b:
            out[sb + F_IS_BANKER] = 1.0
        if s == seat and phase != P_OVER:
            out[sb + F_TO_ACT] = 1.0
        out[sb + F_CHIPS] = r[o_chips + s]
        out[sb + F_ANNOUNCED] = r[cfg[O_ANN] + s]
        if phase == P_AUCTION:
            out[sb + F_BID] = r[cfg[O_BID] + s]
        if cfg[A_NOSIDE] >= 0:
            for t in range(n):
                if r[cfg[O_SIDE] + t] == s:
                    out[sb + F_SIDE] += cfg[K_SIDESTAKE]
    if swaps:
        for c in range(N_CARDS):
            if r[o_ret + c]:
                out[(c % N_RANKS if fold else c) * W + nH + C_RETURNED] += 1.0
    if cfg[K_SHOE]:  # the cards of this shoe's finished hands that were shown
        for c in range(N_CARDS):
            if r[cfg[O_SEEN] + c]:
                out[(c % N_RANKS if fold else c) * W + nH + C_SEEN] += 1.0
    ph = phase
    if ph == P_SPLIT and o != seat:
        ph = P_DRAW  # only the deciding punter knows it may split
    out[G + F_PHASE + ph] = 1.0
    out[G + F_HANDS_DONE] = r[HANDNO]
    out[G + F_CARDS_LEFT] = r[DLEN] - r[POS]


@njit(**KERNEL)
def seat_hand(r, cfg, s, out):
    """Seat ``s``'s hand as ``Table.info`` shows it to the seat (the hand it is playing, else
    its first): the hand's index, total, stake, the seat's chips, the shot card (-1: none),
    the number of cards, then per card the card and 1 if it is face-down; returns the count
    of entries written into ``out``."""
    H = cfg[K_H]
    h = r[HAND] if (s == r[SEAT] and r[PHASE] != P_OVER) else 0
    k = s * H + h
    out[0] = h
    out[1] = r[cfg[O_TOT] + k]
    out[2] = r[cfg[O_STAKE] + k]
    out[3] = r[cfg[O_CHIPS] + s]
    out[4] = r[cfg[O_BLIND] + k]
    nc = r[cfg[O_NC] + k]
    out[5] = nc
    hid = r[cfg[O_HID] + k]
    more = _multi_hidden(cfg)
    b = cfg[O_CARDS] + k * cfg[K_MAXC]
    for j in range(nc):
        c = r[b + j]
        out[6 + 2 * j] = c
        out[7 + 2 * j] = c == hid or (more and r[cfg[O_MH] + c] != 0)
    return 6 + 2 * nc


@njit(**KERNEL)
def write_mask(m, out):
    for a in range(out.shape[0]):
        out[a] = (m >> a) & 1


# --------------------------------------------------------------------------- batch kernels
@njit(**KERNEL)
def start_batch(state, cfg, games, bankers, decks, deck_len, rng):
    """Start tables ``games`` with ``bankers`` and the given decks (rows of ``decks``; a
    session's later decks from each table's stream ``rng``)."""
    d = cfg[O_DECK]
    for i in range(games.shape[0]):
        r = state[games[i]]
        for j in range(deck_len):
            r[d + j] = decks[i, j]
        r[DLEN] = deck_len
        if cfg[K_SESSION]:
            set_seed(r, next64(rng, games[i]))
        start(r, cfg, bankers[i])


@njit(**KERNEL)
def hand_decks(seed, first, count, cards, out):
    """The decks of hands ``first .. first+count-1`` of a match seeded ``seed``: hand ``i``'s
    deck is a function of ``(seed, i)`` only (common decks whatever the agents do)."""
    for i in range(count):
        session_shuffle(np.uint64(seed), first + i, cards, cards.shape[0], out[i])


@njit(**KERNEL)
def observe_batch(state, cfg, games, seats, fold, obs, masks):
    """Observations (and masks: the seat's legal actions if it is to act) of ``seats[i]``
    at table ``games[i]`` into row ``i`` of ``obs`` / ``masks``."""
    for i in range(games.shape[0]):
        r = state[games[i]]
        observe(r, cfg, seats[i], fold, obs[i])
        if r[PHASE] != P_OVER and r[SEAT] == seats[i]:
            write_mask(legal(r, cfg), masks[i])
        else:
            masks[i, :] = 0


@njit(**KERNEL)
def legal_batch(state, cfg, games, out):
    for i in range(games.shape[0]):
        out[i] = legal(state[games[i]], cfg)


@njit(**KERNEL)
def apply_batch(state, cfg, games, actions):
    """Apply ``actions[i]`` at table ``games[i]``; returns the index of the first illegal
    action (nothing applied from it on), or -1."""
    one = np.int64(1)
    for i in range(games.shape[0]):
        r = state[games[i]]
        a = actions[i]
        if a < 0 or a >= MAX_ACTIONS or (legal(r, cfg) >> a) & one == 0:
            return i
        apply(r, cfg, a)
    return -1


@njit(**KERNEL)
def play_native(state, cfg, games, seat_native, params, rng, out):
    """Tables ``games`` play on while the acting seat is native (``seat_native[g, s]``: a
    row of ``params``, -1: decided outside). Writes per table (``out[i]``) the acting seat
    that needs a decision from outside, or -1 when the episode is over."""
    for i in range(games.shape[0]):
        g = games[i]
        r = state[g]
        while True:
            if r[PHASE] == P_OVER:
                out[i] = -1
                break
            s = r[SEAT]
            a = seat_native[g, s]
            if a < 0:
                out[i] = s
                break
            apply(r, cfg, decide(r, cfg, params[a], rng, g))


@njit(**KERNEL)
def new_episode(state, cfg, g, rng, cards, banker, agent_of, pool_cum, seat_pool, params, seat_native):
    """Table ``g``'s next episode: a shuffled deck, ``banker``, and the opponents drawn per
    seat (``seat_pool[s]``: which pool seat ``s`` draws from, -1: the learner)."""
    r = state[g]
    shuffle_deck(r, cfg, cards, rng, g)
    if cfg[K_SESSION]:
        set_seed(r, next64(rng, g))
    n = cfg[K_N]
    for s in range(n):
        p = seat_pool[s]
        if p < 0:
            agent_of[g, s] = -1
            seat_native[g, s] = -1
            continue
        u = uniform(rng, g)
        j = 0
        while pool_cum[p, j] <= u:  # the pool's last entry is 1.0 (padding beyond: 2.0)
            j += 1
        a = p * pool_cum.shape[1] + j
        agent_of[g, s] = a
        seat_native[g, s] = a if params[a, 0] != N_EXTERNAL else -1
    start(r, cfg, banker)


@njit(**KERNEL)
def advance(
    state, cfg, games, lo, hi, rng, cards, banker, agent_of, pool_cum, seat_pool, params, seat_native,
    stage, before, rewards, terminated, final_obs, final_chips, skipped, before_first, fold, max_skip, out,
):  # fmt: skip
    """The single-seat view (seat 0 learns): tables ``games`` play on until the learner must
    decide or an opponent that is not native must act. An episode that ends after a learner
    decision (``stage`` 1) records its reward, final observation and chips and starts the
    next one (``stage`` 2: until the learner's first decision; an episode over before it is
    skipped). Writes per table (``out[i]``) ``LEARNER`` or ``PENDING``; -2 when a table
    skipped ``max_skip`` episodes in a row. Only ``games[lo:hi]`` (``advance_parts``: a part)."""
    c0 = cfg[O_CHIPS]
    for i in range(lo, hi):
        g = games[i]
        r = state[g]
        while True:
            if r[PHASE] == P_OVER:
                if stage[g] == 1:
                    rewards[g] += r[c0] - before[g]
                    terminated[g] = True
                    observe(r, cfg, _i8(0), fold, final_obs[g])
                    final_chips[g] = r[c0]
                    stage[g] = 2
                    skipped[g] = 0
                else:
                    skipped[g] += 1
                    if skipped[g] >= max_skip:
                        out[i] = -2
                        break
                new_episode(state, cfg, g, rng, cards, banker, agent_of, pool_cum, seat_pool, params, seat_native)
                continue
            s = r[SEAT]
            if s == 0:
                if stage[g] == 1:
                    rewards[g] += r[c0] - before[g]
                else:
                    before_first[g] = r[c0]
                stage[g] = 0
                out[i] = LEARNER
                break
            a = seat_native[g, s]
            if a < 0:
                out[i] = PENDING
                break
            apply(r, cfg, decide(r, cfg, params[a], rng, g))


@njit(**KERNEL)
def learner_apply(state, cfg, lo, hi, actions, stage, before, rewards, terminated, ok):
    """Apply the learner's action at tables ``lo..hi-1`` where ``ok`` (legal: the caller checked)."""
    c0 = cfg[O_CHIPS]
    for g in range(lo, hi):
        r = state[g]
        rewards[g] = 0.0
        terminated[g] = False
        before[g] = r[c0]
        if ok[g]:
            apply(r, cfg, actions[g])
            stage[g] = 1


@njit(**KERNEL)
def learner_views(state, cfg, lo, hi, fold, obs, masks):
    """Seat 0's observation and mask at tables ``lo..hi-1``."""
    for g in range(lo, hi):
        r = state[g]
        observe(r, cfg, _i8(0), fold, obs[g])
        if r[PHASE] != P_OVER and r[SEAT] == 0:
            write_mask(legal(r, cfg), masks[g])
        else:
            masks[g, :] = 0


@njit(**KERNEL)
def check_actions(masks, actions, ok):
    """``ok[g]``: ``actions[g]`` is set in ``masks[g]``; returns the number of illegal ones."""
    bad = 0
    A = masks.shape[1]
    for g in range(masks.shape[0]):
        a = actions[g]
        ok[g] = 0 <= a < A and masks[g, a] != 0
        if not ok[g]:
            bad += 1
    return bad


@njit(**KERNEL)
def random_actions(masks, rng, out):
    """A uniformly random legal action per row of ``masks`` (rows with none: -1), from the
    splitmix64 stream ``rng[0]``."""
    A = masks.shape[1]
    for g in range(masks.shape[0]):
        cnt = 0
        for a in range(A):
            cnt += masks[g, a] != 0
        if cnt == 0:
            out[g] = -1
            continue
        j = randint(rng, 0, cnt)
        for a in range(A):
            if masks[g, a] != 0:
                if j == 0:
                    out[g] = a
                    break
                j -= 1


# --------------------------------------------------------------------------- tables over threads
# ``SeatVectorEnv(threads=N)``: the tables cut into N parts (``cut``: their bounds), each
# played by the serial kernel in one iteration of a ``prange``. Under numba's OpenMP layer
# (static scheduling) part ``p`` runs on the same thread every call, part 0 on the caller's,
# so a table's row tends to stay in one core's cache (threads are not pinned). Every table
# has its own row and stream, so the result is the same whatever the number of threads.
@njit(cache=True, parallel=True)
def advance_parts(
    state, cfg, games, rng, cards, banker, agent_of, pool_cum, seat_pool, params, seat_native,
    stage, before, rewards, terminated, final_obs, final_chips, skipped, before_first, fold, max_skip, out, cut,
):  # fmt: skip
    """``advance`` over ``games[cut[p]:cut[p + 1]]`` on thread ``p``."""
    for p in prange(cut.shape[0] - 1):
        advance(
            state, cfg, games, cut[p], cut[p + 1], rng, cards, banker, agent_of, pool_cum, seat_pool, params,
            seat_native, stage, before, rewards, terminated, final_obs, final_chips, skipped, before_first, fold,
            max_skip, out,
        )  # fmt: skip


@njit(cache=True, parallel=True)
def apply_parts(state, cfg, actions, stage, before, rewards, terminated, ok, cut):
    """``learner_apply`` over tables ``cut[p]..cut[p + 1]-1`` on thread ``p``."""
    for p in prange(cut.shape[0] - 1):
        learner_apply(state, cfg, cut[p], cut[p + 1], actions, stage, before, rewards, terminated, ok)


@njit(cache=True, parallel=True)
def views_parts(state, cfg, fold, obs, masks, cut):
    """``learner_views`` over tables ``cut[p]..cut[p + 1]-1`` on thread ``p``."""
    for p in prange(cut.shape[0] - 1):
        learner_views(state, cfg, cut[p], cut[p + 1], fold, obs, masks)
