"""Policies across the two APIs: OpenSpiel policies as ``action_probs`` policies, and back.

``from_openspiel(policy, game, player)`` turns an OpenSpiel policy of ``python_siete_y_media``
into an object with ``action_probs(observations (N, D), masks (N, A)) -> (N, A)``, the
interface of this project's agents and of its exact evaluator (``siete_env.solve``), so that
``solve.nash_conv(from_openspiel(p, game, 1), from_openspiel(p, game, 0), rules)`` scores a
policy OpenSpiel's algorithms produced. The observations are the PettingZoo environment's
(``raw_env(num_players=n, rules=...)``, seat ``player``); the game must have been loaded with
``recall=observation``, whose information state is a function of the observation and the
legal actions (one information state per row), and with the table's ``banker`` seat fixed.

* tabular policies (the average policy of ``open_spiel.python.algorithms`` MCCFR, of
  ``pyspiel``'s C++ MCCFR solvers, a ``TabularPolicy``): looked up by information-state
  string. The game remembers every information state it has described in this process
  (``Config.infostates``), which covers every state a solver has visited; a row no
  information state was ever made for plays uniformly, as an MCCFR average policy does where
  it has no entry;
* any other ``open_spiel.python.policy.Policy`` (a neural one reading
  ``information_state_tensor``, say): asked directly, one ``RowState`` per distinct row (a
  minimal state holding the row's tensors, strings and legal actions).

``to_openspiel(agent, game)`` goes the other way: any agent of this project (``make_agent``
specs, trained policies, table policies) as an ``open_spiel.python.policy.Policy`` of the
game, reading at each state the acting seat's environment observation and mask.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import mccfr

from ..features import fold_suits
from ..game import Phase
from .game import Config, SieteYMediaGame, SieteYMediaState

__all__ = ["OpenSpielAsAgent", "RowState", "from_openspiel", "sample_returns", "to_openspiel"]


def _normalise(rows: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(rows, np.float32) + np.float32(0.0)  # -0.0 -> 0.0 for byte keys


class RowState:
    """The parts of a ``pyspiel.State`` a policy reads, for one observation row: the acting
    player, its legal actions, and its information state / observation (tensor and string)
    in the ``recall=observation`` game."""

    def __init__(self, cfg: Config, player: int, obs: np.ndarray, mask: np.ndarray):
        self.cfg, self.player = cfg, player
        self.obs = obs
        self.legal = [int(a) for a in np.flatnonzero(mask)]
        self.mask = np.zeros(cfg.A, np.int32)
        self.mask[self.legal] = 1

    def current_player(self) -> int:
        return self.player

    def is_chance_node(self) -> bool:
        return False

    def is_terminal(self) -> bool:
        return False

    def is_simultaneous_node(self) -> bool:
        return False

    def legal_actions(self, player: int | None = None) -> list[int]:
        return list(self.legal)

    def legal_actions_mask(self, player: int | None = None) -> list[int]:
        return self.mask.tolist()

    def observation_tensor(self, player: int | None = None) -> list[float]:
        return self.obs.tolist()

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        return np.concatenate([self.obs, self.mask.astype(np.float32)]).tolist()

    def observation_string(self, player: int | None = None) -> str:
        return f"p{self.player} {self.cfg.text(self.obs)}"

    def information_state_string(self, player: int | None = None) -> str:
        return self.cfg.info_string(self.player, self.obs, self.legal)


def _keys(rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """One opaque key per (row, mask) pair: their bytes, as a numpy void array."""
    b = np.concatenate([rows.view(np.uint8).reshape(len(rows), -1), masks.view(np.uint8)], axis=1)
    b = np.ascontiguousarray(b)
    return b.view(np.dtype((np.void, b.shape[1]))).ravel()


class _Lookup:
    """An ``action_probs`` policy from a table ``(row, mask) -> probabilities``; elsewhere
    uniform, or ``direct(RowState)``."""

    def __init__(self, cfg: Config, player: int, rows: list[bytes], probs: list[np.ndarray], direct: Any = None):
        self.cfg, self.player, self.direct = cfg, player, direct
        self.A = cfg.A
        width = cfg.D * 4 + cfg.A
        self.keys = np.frombuffer(b"".join(rows), dtype=np.dtype((np.void, width))) if rows else None
        self.probs = np.asarray(probs, np.float64).reshape(len(probs), cfg.A)
        self.queried = self.found = 0
        self.used = np.zeros(len(self.probs), bool)  # table entries some query has matched
        self._cache: dict[bytes, np.ndarray] = {}

    @property
    def table(self) -> dict[bytes, np.ndarray]:
        """The table as a dict (row and mask bytes -> probabilities)."""
        if self.keys is None:
            return {}
        return {bytes(k): p for k, p in zip(self.keys.tolist(), self.probs, strict=True)}

    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        cfg = self.cfg
        x = np.atleast_2d(np.asarray(observations, np.float32))
        x = _normalise(fold_suits(x, cfg.layout) if cfg.fold else x)
        m = np.ascontiguousarray(np.atleast_2d(masks), np.int8)
        n = len(x)
        idx = np.full(n, -1, np.int64)
        if self.keys is not None and n:
            q = _keys(x, m)
            k = len(self.keys)
            _, inv = np.unique(np.concatenate([self.keys, q]), return_inverse=True)
            inv = inv.ravel()
            at = np.full(inv.max() + 1, -1, np.int64)
            at[inv[:k]] = np.arange(k)
            idx = at[inv[k:]]
        out = np.zeros(m.shape, np.float64)
        hit = idx >= 0
        out[hit] = self.probs[idx[hit]]
        self.used[idx[hit]] = True
        miss = np.flatnonzero(~hit)
        if len(miss):
            legal = m[miss].astype(np.float64)
            out[miss] = legal / legal.sum(1, keepdims=True)
            if self.direct is not None:
                for i in miss:
                    key = x[i].tobytes() + m[i].tobytes()
                    p = self._cache.get(key)
                    if p is None:
                        p = self._cache[key] = self.direct(RowState(cfg, self.player, x[i], m[i]))
                    out[i] = p
        self.found += int(hit.sum())
        self.queried += n
        return out

    def __call__(self, obs: dict) -> int:
        p = self.action_probs(obs["observation"][None], obs["action_mask"][None])[0]
        return int(np.argmax(p))


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 to /dev/null for a moment (C++ writes there directly)."""
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _probs_vector(pairs: Any, A: int) -> np.ndarray:
    p = np.zeros(A, np.float64)
    items = pairs.items() if isinstance(pairs, dict) else pairs
    for a, q in items:
        p[int(a)] = float(q)
    s = p.sum()
    return p / s if s > 0 else p


def from_openspiel(policy: Any, game: SieteYMediaGame, player: int, mode: str = "auto") -> _Lookup:
    """An ``action_probs`` policy playing ``player`` as the OpenSpiel ``policy`` does.

    ``mode``: ``"table"`` (look up the information states the game has described, uniform
    elsewhere: exact for MCCFR-style tables), ``"direct"`` (ask ``policy.action_probabilities``
    on a ``RowState`` for every distinct row), ``"auto"`` (``table`` for the tabular policies
    named in the module docstring, ``direct`` otherwise)."""
    cfg = game.cfg
    if cfg.recall != "observation":
        raise ValueError(
            "from_openspiel needs the game loaded with recall=observation: there an information state "
            "is one observation row (with recall=perfect a row stands for many histories)"
        )
    if cfg.banker < 0:
        raise ValueError("from_openspiel needs a fixed banker seat (banker >= 0)")
    A = cfg.A

    def direct(row: RowState) -> np.ndarray:
        return _probs_vector(policy.action_probabilities(row, player), A)

    get_avg = None
    if isinstance(policy, mccfr.AveragePolicy):  # open_spiel.python.algorithms MCCFR: uniform where it has no entry

        def get_avg(key: str, row: RowState) -> np.ndarray | None:
            return direct(row)

    elif hasattr(policy, "get_state_policy"):  # pyspiel C++ policies (MCCFR average policy)

        def get_avg(key: str, row: RowState) -> np.ndarray | None:
            try:
                with _quiet_stderr():  # OpenSpiel prints every error it raises
                    pairs = policy.get_state_policy(key)
            except pyspiel.SpielError:  # not in the table (its default policy has no strings)
                return None
            return _probs_vector(pairs, A) if pairs else None

    elif isinstance(policy, os_policy.TabularPolicy):

        def get_avg(key: str, row: RowState) -> np.ndarray | None:
            i = policy.state_lookup.get(key)
            return None if i is None else _probs_vector(enumerate(policy.action_probability_array[i]), A)

    if mode == "auto":
        mode = "table" if get_avg is not None else "direct"
    if mode == "direct":
        return _Lookup(cfg, player, [], [], direct)
    if mode != "table" or get_avg is None:
        raise ValueError(f"mode must be 'auto', 'table' or 'direct' (table needs a tabular policy), got {mode!r}")
    rows: list[bytes] = []
    probs_list: list[np.ndarray] = []
    for p, obs, legal in list(cfg.infostates):
        if p != player or not legal:
            continue
        mask = np.zeros(A, np.int8)
        mask[list(legal)] = 1
        row = RowState(cfg, p, np.frombuffer(obs, np.float32), mask)
        probs = get_avg(row.information_state_string(), row)
        if probs is not None:
            rows.append(obs + mask.tobytes())
            probs_list.append(probs)
    return _Lookup(cfg, player, rows, probs_list)


class OpenSpielAsAgent(os_policy.Policy):
    """A project agent (``action_probs(observations, masks)``) as an OpenSpiel policy of the
    game: at a state it is given the acting seat's environment observation and mask."""

    def __init__(self, game: SieteYMediaGame, agents: Any):
        super().__init__(game, list(range(game.num_players())))
        self.cfg = game.cfg
        self.agents = agents if isinstance(agents, dict) else dict.fromkeys(range(game.num_players()), agents)

    def action_probabilities(self, state: SieteYMediaState, player_id: int | None = None) -> dict[int, float]:
        player = state.current_player() if player_id is None else player_id
        g = state.engine
        obs = self.cfg.observe_raw(g, player)
        legal = sorted(g.legal_actions()) if g.acting_seat == player and g.phase != Phase.OVER else []
        mask = np.zeros(self.cfg.A, np.int8)
        mask[legal] = 1
        p = np.asarray(self.agents[player].action_probs(obs[None], mask[None])[0], np.float64)
        p = p * mask
        s = p.sum()
        p = p / s if s > 0 else mask / max(mask.sum(), 1)
        return {a: float(p[a]) for a in legal}


def to_openspiel(agents: Any, game: SieteYMediaGame) -> OpenSpielAsAgent:
    """``agents``: one agent for every seat, or a dict ``seat -> agent``."""
    return OpenSpielAsAgent(game, agents)


def sample_returns(game: pyspiel.Game, policy: Any, episodes: int, seed: int = 0) -> np.ndarray:
    """Play ``episodes`` episodes of ``game`` through OpenSpiel's API (chance by its
    ``chance_outcomes``, every player by ``policy.action_probabilities``); returns the
    ``(episodes, players)`` returns."""
    rng = np.random.default_rng(seed)
    out = np.zeros((episodes, game.num_players()))
    for e in range(episodes):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(outcomes[rng.choice(len(outcomes), p=np.asarray(probs) / sum(probs))]))
            else:
                ap = policy.action_probabilities(state)
                actions = list(ap)
                p = np.asarray([ap[a] for a in actions], np.float64)
                state.apply_action(int(actions[rng.choice(len(actions), p=p / p.sum())]))
        out[e] = state.returns()
    return out
