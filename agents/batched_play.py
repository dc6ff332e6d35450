"""Matches played through the batched engine (``siete_env.batched``), with batched policy
inference: ``agents.tournament.play_match`` uses this when the rules and table allow it.

Up to ``batch`` tables play at once. Each table that finishes a hand is dealt the next
hand of the match; at every round each seat's agent decides, in one ``action_probs`` call
on the ``(N, D)`` observations of the tables where that seat is to act (uniformly random
players and the table heuristics of ``agents.baselines`` decide inside the kernels, from
the state, with the same decisions). A deterministic agent plays its most probable
action, a stochastic one a draw from its probabilities (one generator per seat, seeded
from the match seed).

Decks: hand ``i`` of a match seeded ``seed`` is dealt ``kernels.hand_decks(seed, i)``, a
function of ``(seed, i)`` only, so every pairing of a tournament with the same seed plays
the same decks whatever its agents do (and whichever table plays the hand). The banker is
seat 0 at every hand, as in ``play_match``.
"""

from __future__ import annotations

import numpy as np

from siete_env import raw_env
from siete_env.batched import BatchedTables
from siete_env.batched import kernels as K
from siete_env.batched.vector import EXTERNAL, native_params, sample_actions

from .specs import make_agent


def match_decks(seed: int, first: int, count: int, cards: np.ndarray) -> np.ndarray:
    """The decks of hands ``first .. first + count - 1`` of a match seeded ``seed``."""
    out = np.empty((count, len(cards)), np.int32)
    K.hand_decks(np.uint64(seed % (1 << 64)), first, count, np.asarray(cards, np.int32), out)
    return out


def play_chips(
    specs: list,  # agent specs or built agents, one per seat
    rules="spanish",
    num_players: int = 2,
    hands: int = 200_000,
    seed: int = 0,
    batch: int = 4096,
    agent_seeds: list[int] | None = None,
    table_seed: int | None = None,
    native: bool = True,
) -> np.ndarray:
    """``(hands, n)`` chips of each seat per hand, seat ``s`` played by ``specs[s]`` (seat 0
    banks every hand). ``native``: random players and the table heuristics decide inside
    the kernels (the same decisions as their ``action_probs``)."""
    n = num_players
    if len(specs) != n:
        raise ValueError(f"{n} seats but {len(specs)} agents")
    bt = BatchedTables(max(1, min(batch, hands)), n, rules)
    ref = raw_env(num_players=n, rules=rules)
    agent_seeds = agent_seeds or [None] * n
    agents = [make_agent(s, ref, seed=agent_seeds[i]) for i, s in enumerate(specs)]
    params = np.array([native_params(a) if native else EXTERNAL for a in agents], np.int64)
    seat_native = np.tile(np.where(params[:, 0] != K.N_EXTERNAL, np.arange(n), -1), (bt.N, 1))
    rngs = [np.random.default_rng([seed, 1, s]) for s in range(n)]
    bt.seed([seed, 2] if table_seed is None else table_seed)
    deck_seed = seed if table_seed is None else table_seed
    chips = np.zeros((hands, n), np.float64)
    hand_of = np.arange(bt.N, dtype=np.int64)
    bt.start(None, 0, match_decks(deck_seed, 0, bt.N, bt.deck_cards))
    next_hand = bt.N
    active = bt.all.copy()
    c0 = bt.cfg[K.O_CHIPS]
    while len(active):
        who = np.empty(len(active), np.int64)
        K.play_native(bt.state, bt.cfg, active, seat_native, params, bt.rng, who)
        for s in range(n):
            g = active[who == s]
            if len(g):
                obs, masks = bt.observe(g, s)
                bt.apply(g, sample_actions(agents[s], obs, masks, rngs[s]))
        done = active[who < 0]
        if len(done):
            chips[hand_of[done]] = bt.state[done, c0 : c0 + n]
            k = min(len(done), hands - next_hand)
            if k > 0:
                again = done[:k]
                hand_of[again] = np.arange(next_hand, next_hand + k)
                bt.start(again, 0, match_decks(deck_seed, next_hand, k, bt.deck_cards))
                next_hand += k
            if k < len(done):
                active = np.setdiff1d(active, done[k:], assume_unique=True)
    return chips
