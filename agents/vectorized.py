"""The heuristic baselines' decisions on a batch of observations, in numpy.

``batch_actions(agent, observations (N, D), masks (N, A))`` gives, for the table players of
``agents.baselines`` (``ThresholdPunter``, ``BankerThreshold``, ``SmartBanker``,
``BoldPunter``: exactly these classes), the action each would take on each row — the
same action as ``agent(obs_dict)``, read from the same observation entries
(``tests/test_vectorized_baselines.py`` checks them row by row) — and -1 on rows it does
not answer (auction and side-bet phases, other agent classes): the caller asks the agent
itself there. This is what makes ``action_probs`` of a baseline cost microseconds per
thousand rows, so that batched matches (``agents.batched_play``) and the batched
environments' opponents run at engine speed.
"""

from __future__ import annotations

import numpy as np

from siete_env.cards import N_CARDS, VALUE2
from siete_env.game import Phase

from .baselines import BankerThreshold, BoldPunter, SmartBanker, ThresholdPunter

_HALF_VALUE = np.array(VALUE2, np.float64) / 2


class _Cols:
    """Observation columns a baseline reads, per layout (cached on the agent's view)."""

    def __init__(self, layout):
        L = self.L = layout
        self.G = L.GLOBAL
        self.playing = np.array([L.hand(0, h) + 2 for h in range(L.H)])
        self.total = np.array([L.hand(0, h) + 8 for h in range(L.H)])
        self.W, self.nH = L.W, L.n * L.H
        others = [L.hand(r, h) for r in range(1, L.n) for h in range(L.H)]
        self.o_stood = np.array([b + 3 for b in others], np.int64)
        self.o_stake = np.array([b + 5 for b in others], np.int64)
        self.o_down = np.array([b + 7 for b in others], np.int64)
        self.o_total = np.array([b + 8 for b in others], np.int64)
        self.my0 = L.hand(0, 0) + 8


def _cols(agent) -> _Cols:
    c = getattr(agent, "_batch_cols", None)
    if c is None or c.L is not agent.view.layout:
        c = agent._batch_cols = _Cols(agent.view.layout)
    return c


def batch_actions(agent, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The agent's action per row, -1 where the caller must ask the agent itself."""
    N = len(observations)
    out = np.full(N, -1, np.int64)
    if type(agent) not in (ThresholdPunter, BankerThreshold, SmartBanker, BoldPunter) or N == 0:
        return out
    obs = np.asarray(observations)
    m = np.asarray(masks) != 0
    c = _cols(agent)
    ids = agent.ids
    rows = np.arange(N)
    phase = np.argmax(obs[:, c.G : c.G + len(Phase)], axis=1)
    playing = obs[:, c.playing] == 1.0
    cur = np.where(playing.any(axis=1), playing.argmax(axis=1), 0)
    my_total = obs[rows, c.total[cur]].astype(np.float64)
    stand, hit_up, hit_down = ids["STAND"], ids["HIT_UP"], ids["HIT_DOWN"]

    # banker phase: _banker_move(want_hit)
    bank = phase == Phase.BANKER
    if bank.any():
        if type(agent) is SmartBanker:
            want = _smart_hits(agent, obs, c)
        elif type(agent) is ThresholdPunter or type(agent) is BoldPunter:
            want = my_total < agent.banker_threshold
        else:
            want = my_total < agent.threshold
        act = np.where(want & m[:, hit_up], hit_up, np.where(m[:, stand], stand, hit_up))
        out[bank] = act[bank]

    # bet phase
    bet = phase == Phase.BET
    if bet.any():
        bets = np.array(agent._bets, np.int64)
        legal_bets = m[:, bets] if len(bets) else np.zeros((N, 0), bool)
        any_bet = legal_bets.any(axis=1) if len(bets) else np.zeros(N, bool)
        last_legal = m.shape[1] - 1 - np.argmax(m[:, ::-1], axis=1)
        first_bet = bets[np.argmax(legal_bets, axis=1)] if len(bets) else last_legal
        act = np.where(any_bet, first_bet, last_legal)
        if type(agent) is BoldPunter:
            # ids in action order: the legal BET_ ids, the last one on a strong first card
            bold_bets = np.array([i for name, i in ids.items() if name.startswith("BET_")], np.int64)
            lb = m[:, bold_bets]
            has = lb.any(axis=1)
            top = bold_bets[lb.shape[1] - 1 - np.argmax(lb[:, ::-1], axis=1)]
            low = bold_bets[np.argmax(lb, axis=1)]
            strong = (my_total == 0.5) | (my_total == 7.0)
            act = np.where(has, np.where(strong, top, low), act)
            swap = ids.get("SWAP_FOUR")
            if swap is not None:
                act = np.where(m[:, swap], swap, act)
        out[bet] = act[bet]

    # split phase: keep
    split = phase == Phase.SPLIT
    out[split] = ids["KEEP"]

    # draw phase
    draw = phase == Phase.DRAW
    if draw.any():
        cards = obs[:, : N_CARDS * c.W].reshape(N, N_CARDS, c.W)
        hidden = (cards[:, :, c.nH] * cards[rows, :, cur]) != 0
        has_hidden = hidden.any(axis=1)
        hv = _HALF_VALUE[np.argmax(hidden, axis=1)]
        low_hidden = has_hidden & (hv < 4) & m[:, hit_down]
        act = np.where(low_hidden, hit_down, hit_up)
        act = np.where((my_total >= agent.threshold) | ~m[:, hit_up], stand, act)
        out[draw] = act[draw]
    return out


def _smart_hits(agent: SmartBanker, obs: np.ndarray, c: _Cols) -> np.ndarray:
    mine = obs[:, c.my0].astype(np.float64)
    stood = obs[:, c.o_stood] == 1.0
    stake = obs[:, c.o_stake].astype(np.float64)
    least = obs[:, c.o_total].astype(np.float64) + np.where(obs[:, c.o_down] == 1.0, 0.5, 0.0)
    standing = np.where(stood, stake, 0.0).sum(axis=1)
    sure = np.where(stood & (mine[:, None] < least) & (least < 7.5), stake, 0.0).sum(axis=1)
    return (mine < agent.threshold) | ((standing > 0) & (sure > standing / 2))
