"""``BatchedTables``: N tables of one rule set stepped together by the numba kernels.

The readable reference engine (``tests.oracle.Game``) is the oracle it is checked against; this is the
episode — a hand, or a session of hands — for every preset the environment ships and the
options ``rules.ENGINE_OPTIONS["batched"]`` lists (``check_rules`` refuses the others with a
``ValueError`` naming them; the AEC environment steps the same kernels, ``siete_env.table``). A session's later decks and
reshuffles are drawn from the episode's seed (``kernels.session_shuffle``). The rules' values — what
a hand totals with the wild card, the reale, every payout, the points game's table,
doubles and instant wins — are tables made here from ``siete_env.settle``'s functions
(``_with_tables``); the kernels read them and never restate them.

Observations are ``encoding.Layout`` vectors (optionally suit-folded as
``features.fold_suits``), masks ``int8`` rows over ``game.build_actions``' action ids,
both bit for bit what ``raw_env.observe`` gives (``tests/batched_differential.py``, run by ``tests/test_batched.py``).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .. import firstuse
from ..cards import N_CARDS, VALUE2
from ..encoding import Layout
from ..features import folded_size
from ..game import build_actions
from ..hand import MAX_SWAPS
from ..rules import ENGINE_OPTIONS, MAX_PLAYERS, Rules, check_table, options_not_played, resolve_rules
from ..settle import (
    Payouts,
    RuleFacts,
    Shown,
    best_total,
    hand_points,
    is_double,
    is_instant_win,
    is_reale,
    is_triplee,
    reale_suit,
    takes_bank,
    tie_card_value,
    wild_total,
)
from . import kernels as K

MAX_CHIPS = 2**15 - 1  # the state row is int16: the chips an episode can move must fit
MAX_CARDS_IN_HAND = 16  # at 7½: 12 figures and an ace make 7, one more card ends the hand: 14 at most


def max_cards_in_hand(rules: Rules) -> int:
    """The card slots of a hand: the most cards a hand can hold (the deck's lowest cards
    while they stay under the limit, then one more; an ace declared ½ and the wild card
    counted at ½), at least 16; a points game whose winners may take the bank deals its
    ties on, one card each while they tie, up to the whole deck."""
    if rules.scoring == "points" and rules.bank_passes == "winner":
        return N_CARDS
    facts = RuleFacts(rules)
    least = sorted(
        1 if (c == facts.wild or (rules.ace_half and VALUE2[c] == 2)) else VALUE2[c] for c in rules.deck_cards()
    )
    held = total = 0
    for v in least:
        if total >= facts.limit:
            break
        held, total = held + 1, total + v
    return max(MAX_CARDS_IN_HAND, held)


def chips_bound(rules: Rules, num_players: int) -> int:
    """The most chips (or points) a seat can win or lose in an episode under these rules: in
    a hand, the banker against every punter hand and side bet at the top stake and the
    largest multiplier, plus the bank's price (in the points game, the largest score); times
    the hands of a session (to the target and one more hand's score, playing to a target)."""
    if rules.scoring == "points":
        facts = RuleFacts(rules)
        scores = [row.points for row in facts.table] + [facts.otherwise]
        one = max(scores + ([facts.target] if rules.instant_win is not None else []))
        # a session's scores add up: to the target (then at most one more hand's), or over its hands
        return facts.target + one if rules.play_to_target else one * rules.hands_per_episode
    worst = max(abs(m) for m in Payouts(rules).by_outcome)
    hands = (num_players - 1) * (1 + rules.splits_for(num_players))
    side = (num_players - 1) * rules.side_bet_stake * worst if rules.side_bets else 0
    one = hands * rules.bet_levels[-1] * worst + side + (max(rules.auction_bids) if rules.bank_auction else 0)
    return one * rules.hands_per_episode  # (a session: its chips add up over its hands)


def check_rules(rules: str | dict[str, Any] | Rules | None, num_players: int = 2, wide: bool = False) -> Rules:
    """The validated rules if the batched engine plays them, else a ``ValueError`` naming
    what it does not cover. ``wide``: rows of ``int64`` (``siete_env.table``'s one table,
    for amounts beyond ``int16``): the chips an episode can move are not bounded."""
    r = resolve_rules(rules)
    if isinstance(num_players, bool) or not isinstance(num_players, int | np.integer):
        raise ValueError(f"num_players must be an integer 2..{MAX_PLAYERS}, got {num_players!r}")
    if not 2 <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be 2..{MAX_PLAYERS}, got {num_players}")
    check_table(r, num_players)  # options that cannot apply at this table size
    bad = options_not_played(r, "batched")
    actions = len(build_actions(r, num_players))
    if actions > K.MAX_ACTIONS:  # legal actions are int64 bit sets
        bad.append(f"{actions} actions (bet_levels and auction_bids; at most {K.MAX_ACTIONS})")
    moved = chips_bound(r, num_players)
    if moved > MAX_CHIPS and not wide:  # the state row is int16
        bad.append(
            f"stakes, payouts, bids or scores that can move {moved:,} chips in an episode at "
            f"{num_players} seats (at most {MAX_CHIPS:,})"
        )
    if bad:
        raise ValueError(
            "the engine (the batched kernels, which every API of siete_env steps) does not play "
            + ", ".join(bad)
            + "; it plays any value of "
            + ", ".join(sorted(ENGINE_OPTIONS["batched"]))
            + " and the other options at their defaults"
        )
    return r


def memory_bytes() -> int | None:
    """The machine's physical memory in bytes (None where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None


def _size(b: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if b < 1024 or unit == "PiB":
            return f"{b:,.0f} {unit}" if unit == "bytes" else f"{b:,.1f} {unit}"
        b /= 1024
    return ""  # pragma: no cover


def check_num_tables(num_tables: Any, bytes_per_table: int, what: str = "num_envs") -> int:
    """``num_tables`` as an int, if it is a positive integer whose tables fit in the
    machine's memory (``bytes_per_table`` each); else a ``ValueError`` with the memory it
    would need and the allowed range."""
    if isinstance(num_tables, bool) or not isinstance(num_tables, int | np.integer) or num_tables < 1:
        raise ValueError(f"{what} (the number of tables) must be a positive integer, got {num_tables!r}")
    n = int(num_tables)
    mem = memory_bytes()
    if mem is not None and n * bytes_per_table > mem:
        raise ValueError(
            f"{what} {n:,} would need {_size(n * bytes_per_table)} ({bytes_per_table:,} bytes per table); this "
            f"machine has {_size(mem)} of memory: {what} must be 1..{mem // bytes_per_table:,}"
        )
    return n


def supported(rules: Any, num_players: int = 2) -> bool:
    """Whether ``check_rules`` accepts these rules."""
    try:
        check_rules(rules, num_players)
    except ValueError:
        return False
    return True


def _with_tables(cfg: np.ndarray, rules: Rules, facts: RuleFacts) -> np.ndarray:
    """``cfg`` followed by the rules' tables the kernels read (``kernels.T_*``), each made
    from the one function of ``settle`` that states the rule."""
    L = facts.limit
    pays = Payouts(rules)
    pay = [  # a standing hand is within the limit, or its one initial card is over it (a 7 at a limit below 7)
        pays.outcome(p, b, bool(pr), bool(br))
        for p in range(max(L, max(VALUE2)) + 1)
        for b in range(L + 2)
        for pr in (0, 1)
        for br in (0, 1)
    ]
    wild = [wild_total(base, bool(alone), facts) for base in range(K.WILD_BASES) for alone in (0, 1)]
    reale = (
        [int(is_reale((a, b), best_total((a, b), facts), facts)) for a in range(N_CARDS) for b in range(N_CARDS)]
        if rules.reale_pays is not None
        else []
    )
    M = max_cards_in_hand(rules)
    cards = range(N_CARDS)
    points = [
        hand_points(Shown(0, t, nc, bool(w), bool(d), True), facts)
        for t in range(K.TOTALS)  # (a double may be over the limit: two 7s)
        for nc in range(M + 1)
        for w in (0, 1)
        for d in (0, 1)
    ]
    tables = {
        "T_PAY": pay,
        "T_WILD": wild,
        "T_REALE": reale,
        "T_DOUBLE": [int(is_double((a, b), facts)) for a in cards for b in cards],
        "T_TRIPLEE": [int(is_triplee((a, b), facts)) for a in cards for b in cards] if rules.triplee else [],
        "T_INSTANT": [int(is_instant_win(range(nc), t, facts)) for t in range(L + 1) for nc in range(M + 1)],
        "T_POINTS": points,
        "T_TAKES": [
            int(takes_bank(Shown(0, t, 1, False, bool(d), True), bool(u), facts))
            for t in range(K.TOTALS)
            for d in (0, 1)
            for u in (0, 1)
        ],
        "T_RANK": facts.rank[: L + 1],
        "T_WILD_LOSES": facts.wild_loses_at,
        "T_TIE": [tie_card_value(c) for c in cards],
        "T_BIDS": list(rules.auction_bids),
        "T_SHOT": [pays.shot_outcome(p, b) for p in range(K.TOTALS) for b in range(L + 2)],
        "T_BYOUT": pays.by_outcome,
        "T_RSUIT": [reale_suit((a, b), facts) for a in cards for b in cards] if rules.reale_pays is not None else [],
        "T_CARDS": list(rules.deck_cards()),
    }
    out = [cfg]
    at = len(cfg)
    for name, table in tables.items():
        cfg[getattr(K, name)] = at if table else -1
        out.append(np.asarray(table, np.int64))
        at += len(table)
    return np.concatenate(out)


class BatchedTables:
    """``num_tables`` tables of ``num_players`` seats under ``rules``, as arrays.

    Every method takes table indices (``games``) so that any subset can move; the state is
    ``self.state`` (one ``int16`` row per table, see ``kernels``). Decks are given
    (``start``) or drawn by the kernels from per-table splitmix64 streams (``rng``).
    ``events``: the size (entries) of each row's event log (``kernels._ev``), 0 (none) for
    batched play; a one-table engine (``siete_env.table.Table``) reads it after every
    action. ``wide``: ``int64`` rows (the kernels compile for them too), for rules whose
    amounts do not fit ``int16`` (``chips_bound``). ``chosen``: the size of each row's area
    of chosen cards (``kernels._choose_top``), 0 (none) but for a one-table engine whose
    every card dealt its caller chooses (``siete_env.openspiel``).
    """

    def __init__(
        self,
        num_tables: int,
        num_players: int = 2,
        rules: Any = "spanish",
        num_tables_name: str = "num_tables",
        events: int = 0,
        wide: bool = False,
        chosen: int = 0,
    ):
        self.rules = check_rules(rules, num_players, wide)
        n = self.n = int(num_players)
        r = self.rules
        splits = r.splits_for(n)
        H = self.H = 1 + splits
        S = n * H
        self.actions = build_actions(r, n)
        self.action_names = tuple(a.name for a in self.actions)
        levels = list(r.bet_levels)
        nb = len(levels)
        A = self.A = len(self.actions)
        # the kernels' action ids: the fixed ones, BET_k, RAISE_k, then the options' own (cfg)
        assert self.action_names[K.A_BET0 : K.A_BET0 + 2 * nb - 1] == tuple(
            [f"BET_{k}" for k in levels] + [f"RAISE_{k}" for k in levels[1:]]
        ), self.action_names
        self.deck_cards = np.array(r.deck_cards(), np.int32)
        deck_size = len(self.deck_cards)
        dmax = deck_size + MAX_SWAPS * (n - 1)  # a four-swap puts one more card into the deck list
        cfg = np.zeros(K.K_LEVELS + nb, np.int64)
        maxc = max_cards_in_hand(r)
        cfg[K.K_N], cfg[K.K_H], cfg[K.K_MAXC], cfg[K.K_SPLITS] = n, H, maxc, splits
        cfg[K.K_NB], cfg[K.K_TOP] = nb, levels[-1]
        cfg[K.K_CANRAISE] = r.raise_on_draw and nb > 1
        cfg[K.K_SWAP] = {"off": 0, "optional": 1, "mandatory": 2}[r.four_swap]
        cfg[K.K_SPLITANY] = r.split_any_pair
        cfg[K.K_INITUP] = r.all_face_up
        cfg[K.K_DRAWDOWN] = r.draw_face_down and not r.all_face_up
        cfg[K.K_REVEAL75] = r.reveal_seven_half
        cfg[K.K_FORCED] = r.banker_policy_rule == "hit_below_6"
        facts = RuleFacts(r)
        cfg[K.K_LIMIT] = facts.limit  # the rules' limit (half points): over it bust, at it a hand stands
        cfg[K.K_WILD] = facts.wild
        cfg[K.K_POINTS], cfg[K.K_MIN], cfg[K.K_TARGET] = facts.points_game, facts.min_stand, facts.target
        cfg[K.K_DECLARE] = sum(1 << t for t in facts.declare)
        cfg[K.K_UPSET_WIN], cfg[K.K_UPSET_LOSE] = facts.upset if facts.upset is not None else (-1, -1)
        cfg[K.K_MORE_CARDS] = facts.more_cards
        ids = {a.name: i for i, a in enumerate(self.actions)}
        cfg[K.K_CANTO], cfg[K.K_CHASE] = r.canto, r.banker_must_chase
        cfg[K.A_FUSIL] = ids.get("FUSILAR", -1)
        cfg[K.A_NOBID], cfg[K.K_NBIDS] = ids.get("NO_BID", -1), len(r.auction_bids) if r.bank_auction else 0
        cfg[K.K_SPLITFIRST], cfg[K.K_FACEFORCED] = r.split_first_hand_only, not r.face_down_choice
        cfg[K.K_ALLDOWN] = r.max_face_down == "all"
        cfg[K.A_ACE], cfg[K.A_BURN] = ids.get("ACE_HALF", -1), ids.get("BURN", -1)
        cfg[K.K_BURNDRAWN] = r.burn_drawn
        cfg[K.K_TRIPLEE] = r.triplee
        cfg[K.A_NOSIDE], cfg[K.K_SIDESTAKE] = ids.get("NO_SIDE_BET", -1), r.side_bet_stake
        # the session: its hands, the chips each seat starts with, the bank passing, the shoe
        cfg[K.K_SESSION] = r.hands_per_episode > 1 or r.play_to_target
        cfg[K.K_EPHANDS], cfg[K.K_TOTARGET] = r.hands_per_episode, r.play_to_target
        cfg[K.K_START] = -1 if r.starting_chips is None else r.starting_chips
        shoe = cfg[K.K_SHOE] = r.reshuffle == "when_exhausted"
        cfg[K.K_PASS] = K.BANK_PASSES.index(r.bank_passes)
        cfg[K.K_TRIP_TAKES] = r.triplee_takes_bank
        cfg[K.K_A], cfg[K.K_DECKSIZE] = A, deck_size
        cfg[K.K_EVCAP] = events
        cfg[K.K_FORCECAP] = chosen
        o = K.NSCAL
        for name, size in (
            ("O_DECK", dmax), ("O_RET", N_CARDS), ("O_NC", S), ("O_HID", S), ("O_TOT", S), ("O_STAKE", S),
            ("O_STATUS", S), ("O_CARDS", S * maxc), ("O_NH", n), ("O_SPL", n), ("O_SWP", n),
            ("O_CHIPS", n), ("O_DBL", S), ("O_SCR", 6 * n), ("O_BLIND", S), ("O_ANN", n), ("O_BID", n),
            # the options' areas, only where the rules use them (a short row stays in cache)
            ("O_MH", N_CARDS * (r.max_face_down == "all" or r.ace_half)), ("O_ACE", S * r.ace_half),
            ("O_TRIP", S * r.triplee), ("O_SIDE", n * r.side_bets), ("O_BURNED", N_CARDS * r.burn_three_four),
            ("O_DISC", N_CARDS * shoe), ("O_SEEN", N_CARDS * shoe), ("O_SHOWN", N_CARDS * shoe),
            ("O_EV", events),  # the event log of a one-table engine (siete_env.table)
            ("O_FORCE", chosen),  # the chosen cards of a one-table engine (siete_env.openspiel)
        ):  # fmt: skip
            cfg[getattr(K, name)] = o
            o += size
        cfg[K.K_F] = o
        self.layout = Layout(n, H, levels[-1], r.hands_bound(), r.reshuffle == "when_exhausted")
        cfg[K.K_W] = self.layout.W
        cfg[K.K_HANDS], cfg[K.K_SEATS], cfg[K.K_GLOBAL] = self.layout.HANDS, self.layout.SEATS, self.layout.GLOBAL
        cfg[K.K_LEVELS : K.K_LEVELS + nb] = levels
        self.cfg = _with_tables(cfg, r, facts)
        self.obs_size = self.layout.size
        self.folded_size = folded_size(self.layout)
        # the state row, the streams, and the buffers of a vector env over the tables (about a
        # dozen (N, D) float32 arrays: observations, final observations, their recycled copies)
        self.bytes_per_table = 2 * o + 16 + 12 * 4 * self.obs_size + 4 * A + 16 * 8 * n
        self.N = check_num_tables(num_tables, self.bytes_per_table, num_tables_name)
        # int16: half the memory of int32, the batch stays in cache (``wide``: int64)
        self.state = np.zeros((self.N, o), np.int64 if wide else np.int16)
        self.state[:, K.PHASE] = K.P_OVER
        self.rng = np.zeros(self.N, np.uint64)
        self.all = np.arange(self.N, dtype=np.int64)

    # ------------------------------------------------------------------ state
    def seed(self, seed: int | list[int] | None) -> None:
        """Seed the per-table random streams (decks, native random players)."""
        ss = np.random.SeedSequence(seed)
        self.rng[:] = ss.generate_state(self.N, np.uint64)

    @property
    def phase(self) -> np.ndarray:
        return self.state[:, K.PHASE]

    @property
    def seat(self) -> np.ndarray:
        """The acting seat of each table (meaningless once its phase is over)."""
        return self.state[:, K.SEAT]

    @property
    def chips(self) -> np.ndarray:
        """``(N, n)`` net chips of each seat this episode."""
        c = self.cfg[K.O_CHIPS]
        return self.state[:, c : c + self.n]

    def _games(self, games) -> np.ndarray:
        """Table indices (the kernels index without bounds checks: checked here)."""
        if games is None:
            return self.all
        g = np.asarray(games)
        if g.ndim != 1 or (g.size and g.dtype.kind not in "iu"):
            raise ValueError(
                f"games must be a 1-d array of table indices 0..{self.N - 1}, got shape {g.shape} {g.dtype}"
            )
        if g.size and (g.min() < 0 or g.max() >= self.N):
            raise ValueError(f"games must be table indices 0..{self.N - 1}, got {g.min()}..{g.max()}")
        return g.astype(np.int64)

    def _per_game(self, values, games: np.ndarray, what: str, low: int, high: int) -> np.ndarray:
        """One integer in ``low..high`` per table of ``games`` (a scalar is broadcast)."""
        v = np.asarray(values)
        if v.dtype.kind not in "iu" or v.ndim > 1 or (v.ndim == 1 and v.shape != games.shape):
            raise ValueError(
                f"{what} must be an integer or {len(games)} integers (one per table), got shape {v.shape} {v.dtype}"
            )
        if v.size and (v.min() < low or v.max() > high):
            bad = v[(v < low) | (v > high)].flat[0]
            raise ValueError(f"{what} must be {low}..{high}, got {bad}")
        return np.broadcast_to(v.astype(np.int64), games.shape).copy()

    def start(self, games, bankers, decks) -> None:
        """Start episodes: table ``games[i]`` with banker ``bankers[i]``, dealt from
        ``decks[i]`` (card indices, a full deck of these rules: first card to the first
        punter in turn order, the banker's last, then every later card from the top)."""
        games = self._games(games)
        d = np.asarray(decks)
        if d.shape != (len(games), len(self.deck_cards)) or (d.size and d.dtype.kind not in "iu"):
            raise ValueError(
                f"decks must be {len(games)} rows of {len(self.deck_cards)} card indices, got shape {d.shape} {d.dtype}"
            )
        decks = np.ascontiguousarray(d, np.int32)
        if len(decks) and (np.sort(decks, axis=1) != np.sort(self.deck_cards)).any():
            row = int(np.flatnonzero((np.sort(decks, axis=1) != np.sort(self.deck_cards)).any(axis=1))[0])
            raise ValueError(f"decks[{row}] is not a permutation of this rules' deck (rules.deck_cards())")
        bankers = self._per_game(bankers, games, "bankers", 0, self.n - 1)
        firstuse.notice(K.start_batch, "the batched engine")
        K.start_batch(self.state, self.cfg, games, bankers, decks, decks.shape[1], self.rng)

    def shuffled_decks(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` uniformly shuffled decks (numpy's generator)."""
        return rng.permuted(np.tile(self.deck_cards, (count, 1)), axis=1)

    def observe(self, games=None, seats=None, fold: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """``(observations, masks)`` of ``seats[i]`` at ``games[i]`` (default: every table,
        the acting seat); a seat not to act has an all-zero mask, as in ``raw_env``."""
        games = self._games(games)
        seats = (
            self.state[games, K.SEAT].astype(np.int64)
            if seats is None
            else self._per_game(seats, games, "seats", 0, self.n - 1)
        )
        obs = np.empty((len(games), self.folded_size if fold else self.obs_size), np.float32)
        masks = np.empty((len(games), self.A), np.int8)
        K.observe_batch(self.state, self.cfg, games, seats, bool(fold), obs, masks)
        return obs, masks

    def legal_masks(self, games=None) -> np.ndarray:
        """``(len(games), A)`` ``int8`` masks of the acting seats (zeros once over)."""
        games = self._games(games)
        bits = np.empty(len(games), np.int64)
        K.legal_batch(self.state, self.cfg, games, bits)
        return ((bits[:, None] >> np.arange(self.A)) & 1).astype(np.int8)

    def apply(self, games, actions) -> None:
        """Apply ``actions[i]`` at ``games[i]``; an illegal action raises ``ValueError``
        (the actions before it are applied)."""
        games = self._games(games)
        a = np.asarray(actions)
        if a.shape != games.shape or (a.size and a.dtype.kind not in "iu"):
            raise ValueError(
                f"actions must be {len(games)} integer action ids (one per table), got shape {a.shape} {a.dtype}"
            )
        out = (a < 0) | (a >= self.A)
        if out.any():
            i = int(np.flatnonzero(out)[0])
            raise ValueError(f"action {a[i]} at table {int(games[i])} is outside the action space: ids 0..{self.A - 1}")
        actions = a.astype(np.int64)
        bad = K.apply_batch(self.state, self.cfg, games, actions)
        if bad >= 0:
            g, a = int(games[bad]), int(actions[bad])
            legal = [self.action_names[i] for i in np.flatnonzero(self.legal_masks([g])[0])]
            name = self.action_names[a] if 0 <= a < self.A else "?"
            raise ValueError(f"illegal action {a} ({name}) at table {g}; legal there: {legal}")

    def over(self) -> np.ndarray:
        return self.state[:, K.PHASE] == K.P_OVER
