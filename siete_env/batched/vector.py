"""Batched single-seat views: a Gymnasium ``VectorEnv`` and a stable-baselines3 ``VecEnv``.

``SeatVectorEnv`` is ``num_envs`` copies of ``SeatEnv`` (``siete_env.gym_env``) stepped
together by the batched engine: the same arguments, observations, masks, rewards and
episode boundaries (the learner is seat 0; episodes in which it has no decision are
skipped; chips that moved before its first decision are left out of the return and
reported as ``reward_before_first_decision``). It is the ids' ``vector_entry_point``:

>>> import gymnasium as gym, siete_env
>>> envs = gym.make_vec("SieteYMedia-Punter-v0", num_envs=1024, vectorization_mode="vector_entry_point")
>>> obs, infos = envs.reset(seed=0)
>>> masks = envs.action_masks()          # also infos["action_mask"]

Autoreset is ``SAME_STEP`` (declared in ``metadata["autoreset_mode"]``): a step that ends
an episode returns the next episode's first observation and mask, with the last one in
row ``i`` of ``infos["final_obs"]`` (an ``(N, D)`` array, written only for the tables that
ended: ``infos["_final_obs"]`` marks them, the other rows hold nothing meaningful) and
the learner's chips in ``infos["final_info"]["chips"]``, so every returned mask has a
legal action. Opponents play inside ``step``, in batch: uniformly random players and the
table heuristics (``threshold``, ``banker``, ``smart``, ``bold``) in the kernels, every
other agent (learned policies, solutions) through its ``action_probs`` on the ``(N, D)``
observations of the tables where it acts (a deterministic agent's most probable action,
a stochastic agent's sampled one).

``SB3VecEnv(SeatVectorEnv(...))`` is the same tables as an SB3 ``VecEnv`` for
sb3-contrib's ``MaskablePPO`` (``env_method("action_masks")`` answers with the rows of one
mask matrix; ``reset()`` returns observations only; a finished episode's last
observation is ``infos[i]["terminal_observation"]``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import gymnasium
import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import firstuse
from ..aec import check_seed
from ..features import fold_suits as _fold
from ..features import suits_matter
from ..gym_env import MAX_SKIPPED, policy_pool
from ..opponents import policy_probs, resolve
from ..rules import shorten
from . import kernels as K
from .engine import BatchedTables

_PAD = 2.0  # pool_cum padding: never below a uniform draw


class _Recycler:
    """Arrays handed out as fresh ones, recycled once nobody else holds them: CPython's
    reference count tells (a view of an array holds a reference to it, so an array the
    caller keeps, or keeps a part of, is never written again). A step then writes its
    observations into memory that is already mapped and warm instead of a new allocation."""

    def __init__(self, shape: tuple[int, ...], dtype, keep: int = 4):
        self.shape, self.dtype, self.keep = shape, dtype, keep
        self.bufs: list[np.ndarray] = []

    def get(self) -> np.ndarray:
        for buf in self.bufs:
            if sys.getrefcount(buf) <= 3:  # this list, the loop variable, getrefcount's argument
                return buf
        buf = np.empty(self.shape, self.dtype)
        if len(self.bufs) < self.keep:
            self.bufs.append(buf)
        return buf


NATIVE_KINDS = {
    "random": K.N_RANDOM,
    "threshold": K.N_THRESHOLD,
    "banker": K.N_BANKER,
    "smart": K.N_SMART,
    "bold": K.N_BOLD,
    "quattro": K.N_QUATTRO,
}
"""The players the kernels play themselves (``kernels.decide``): uniformly random legal
play and the table heuristics of ``agents.baselines``, by the ``native_kind`` their class
declares."""


def check_threads(threads: Any) -> None:
    """``threads`` (``SeatVectorEnv(threads=...)``) is 1..numba's thread count, or a
    ``ValueError`` saying so."""
    if (
        isinstance(threads, bool | np.bool_)
        or not isinstance(threads, int | np.integer)
        or not 1 <= threads <= numba.config.NUMBA_NUM_THREADS
    ):
        raise ValueError(
            f"threads must be 1..{numba.config.NUMBA_NUM_THREADS} (numba's threads on this machine; 1: the "
            f"tables play on the caller's thread), got {threads!r}"
        )


def native_params(agent: Any) -> tuple[int, ...]:
    """The ``params`` row (``kernels.P_*``: kind, then the agent's own parameters in half
    points) of an agent the kernels play themselves: one whose class itself (not a parent
    class: a subclass may decide otherwise) declares a ``native_kind`` of ``NATIVE_KINDS`` —
    ``UniformRandom`` and the heuristics of ``agents.baselines``, whose decisions the
    kernels make from the state (``tests/test_batched.py`` checks them equal); kind 0
    (``EXTERNAL``): any other agent, asked through its ``action_probs``. The parameters are
    read from the agent (``threshold``, ``banker_threshold``, ``hide_below``, ``STRONG``,
    ``BEST``, ``LEAST_HIDDEN``): the kernels hold none of their own."""
    kind = NATIVE_KINDS.get(type(agent).__dict__.get("native_kind"), K.N_EXTERNAL)
    if kind in (K.N_EXTERNAL, K.N_RANDOM):
        return (kind,) + EXTERNAL[1:]
    strong = tuple(getattr(agent, "STRONG", ()))
    best = getattr(agent, "BEST", None)
    least = getattr(agent, "LEAST_HIDDEN", 0.0)
    halves = [2 * agent.threshold, 2 * agent.banker_threshold, 2 * agent.hide_below, 2 * least]
    halves += [2 * t for t in strong]
    if best is not None:
        halves.append(2 * best)
    if any(x != int(x) or not 0 <= x < 63 for x in halves):  # not a multiple of ½: ask the agent itself
        return EXTERNAL
    t2, b2, hide2, least2, *rest = (int(x) for x in halves)
    row = [0] * K.N_PARAMS
    row[K.P_KIND], row[K.P_STANDS], row[K.P_BANKER_STANDS], row[K.P_HIDE_BELOW] = kind, t2, b2, hide2
    row[K.P_STRONG] = sum(1 << t for t in set(rest[: len(strong)]))
    row[K.P_BEST] = rest[-1] if best is not None else -1
    row[K.P_LEAST_HIDDEN] = least2
    return tuple(row)


EXTERNAL: tuple[int, ...] = tuple(-1 if i == K.P_BEST else 0 for i in range(K.N_PARAMS))  # kind 0: N_EXTERNAL
"""The ``params`` row of a player decided outside the kernels."""


def sample_actions(agent: Any, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row from ``agent.action_probs``: the most probable one for a
    deterministic agent, else drawn from the probabilities (illegal ones never)."""
    p = np.asarray(policy_probs(agent, obs, masks), np.float64)
    p = np.where(masks > 0, p, 0.0)
    if getattr(agent, "deterministic", False):
        return p.argmax(axis=1)
    c = np.cumsum(p, axis=1)
    u = rng.random(len(p)) * c[:, -1]
    a = (c <= u[:, None]).sum(axis=1)
    return np.minimum(a, p.shape[1] - 1)


class SeatVectorEnv(VectorEnv):
    """``num_envs`` single-seat tables (``SeatEnv``'s arguments, see its docstring), for
    the rules the batched engine plays (``siete_env.batched.check_rules``).

    Extra arguments: ``copy`` (return fresh arrays; ``False``: views of buffers the next
    step overwrites); ``native`` (default ``True``: uniformly random players and the
    heuristics of ``agents.baselines`` are played inside the kernels, from the state, with
    the same decisions their ``action_probs`` give; ``False``: every opponent is asked
    through ``action_probs``); ``threads`` (default 1: every table on the caller's thread;
    up to numba's thread count, the machine's cores: the tables cut into that many parts,
    each stepped by the same kernels on its own thread, with the same results: every table
    has its own row and random stream; compiled on first use, about 25 s, cached after;
    with numba's OpenMP layer a process forked after using them cannot: start children
    with ``spawn`` or ``forkserver``).
    ``reset(seed=[s0, s1, ...])`` (one seed per table, as Gymnasium's
    vector envs take) seeds table ``i`` as a one-table env reset with ``seed=s_i``; an
    action id out of range, or actions not of shape ``(num_envs,)`` integers, are refused
    with a ``ValueError`` (an illegal id in range ends that table's episode, as ``SeatEnv``).
    ``reset(options={"decks": [...]})`` stacks the first episode's deck
    of each table (a list of ``num_envs`` card-id lists, completed at random as in
    ``SeatEnv``)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1024,
        role: str = "punter",
        rules: Any = "spanish",
        num_players: int = 2,
        opponents: Any = "random",
        copunters: Any = None,
        position: int = 1,
        fold_suits: bool | str = False,
        seed: int | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        copy: bool = True,
        native: bool = True,
        render_mode: str | None = None,
        max_episode_steps: int | None = None,
        threads: int = 1,
    ):
        from ..aec import raw_env

        if role not in ("punter", "banker"):
            raise ValueError(f"role must be 'punter' or 'banker', got {role!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        if (
            isinstance(illegal_reward, bool)
            or not isinstance(illegal_reward, int | float | np.number)
            or not np.isfinite(illegal_reward)
        ):
            raise ValueError(f"illegal_reward must be a finite number, got {shorten(illegal_reward)}")
        if render_mode is not None:
            raise ValueError("the batched view does not render (render_mode must be None); use SeatEnv")
        if max_episode_steps is not None:
            raise ValueError("max_episode_steps is not supported: a hand always ends")
        check_threads(threads)
        for flag, value in (("copy", copy), ("native", native)):
            if value not in (True, False):
                raise ValueError(f"{flag} must be True or False, got {value!r}")
        self.tables = BatchedTables(num_envs, num_players, rules, num_tables_name="num_envs")
        n = self.num_players = self.tables.n
        if role == "punter" and not (
            isinstance(position, int) and not isinstance(position, bool) and 1 <= position <= n - 1
        ):
            raise ValueError(f"position must be 1..{n - 1} (the learner's place among the punters), got {position!r}")
        self.rules = self.tables.rules
        if fold_suits == "auto":
            fold_suits = not suits_matter(self.rules)
        if fold_suits not in (True, False):
            raise ValueError(f"fold_suits must be True, False or 'auto', got {fold_suits!r}")
        self.role, self.position, self.fold = role, position, bool(fold_suits)
        self.illegal_action, self.illegal_reward = illegal_action, float(illegal_reward)
        self.copy = copy
        self.native = native
        self.render_mode = None
        self.num_envs = N = self.tables.N
        self.table = raw_env(num_players=n, rules=self.rules)  # what agent specs are built for
        self.layout = self.tables.layout
        self.action_names = self.tables.action_names
        self.banker_seat = 0 if role == "banker" else (-position) % n
        L = self.layout
        low = L.low if not self.fold else _fold(L.low, L)
        high = L.high if not self.fold else _fold(L.high, L)
        self.single_observation_space = spaces.Box(low, high, (len(low),), dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.tables.A)
        self.observation_space = batch_space(self.single_observation_space, N)
        self.action_space = batch_space(self.single_action_space, N)
        D, A = len(low), self.tables.A
        self._obs = np.zeros((N, D), np.float32)
        self._masks = np.zeros((N, A), np.int8)
        self._final_obs = np.zeros((N, D), np.float32)
        self._obs_pool, self._final_pool = _Recycler((N, D), np.float32), _Recycler((N, D), np.float32)
        self._final_obs = self._final_pool.get() if copy else self._final_obs
        self._final_chips = np.zeros(N, np.int64)
        self._stage = np.zeros(N, np.int64)
        self._before = np.zeros(N, np.int64)
        self._rewards = np.zeros(N, np.float64)
        self._terminated = np.zeros(N, np.bool_)
        self._skipped = np.zeros(N, np.int64)
        self._ok = np.zeros(N, np.bool_)
        self._before_first = np.zeros(N, np.int64)
        self._agent_of = np.full((N, n), -1, np.int64)
        self._seat_native = np.full((N, n), -1, np.int64)
        self.threads = min(int(threads), N)
        self._cut = np.linspace(0, N, self.threads + 1).astype(np.int64)
        self._seeded = False
        self._needs_reset = True
        self.set_opponents(opponents, copunters)
        if seed is not None:
            self._seed_all(self._check_seed(seed))

    # ------------------------------------------------------------------ opponents
    def set_opponents(self, opponents: Any, copunters: Any = None) -> None:
        """Replace the opponent pools (from each table's next episode on), as ``SeatEnv``."""
        items, probs = policy_pool(opponents)
        pools = [([resolve(p, self.table) for p in items], probs)]
        if copunters is not None:
            co_items, co_probs = policy_pool(copunters)
            pools.append(([resolve(p, self.table) for p in co_items], co_probs))
        width = max(len(a) for a, _ in pools)
        cum = np.full((len(pools), width), _PAD)
        agents: list[Any] = [None] * (len(pools) * width)
        params = np.zeros((len(pools) * width, K.N_PARAMS), np.int64)
        for p, (built, pr) in enumerate(pools):
            c = np.cumsum(pr)
            c[-1] = 1.0
            cum[p, : len(built)] = c
            for j, a in enumerate(built):
                agents[p * width + j] = a
                params[p * width + j] = native_params(a) if self.native else EXTERNAL
        n = self.num_players
        seat_pool = np.zeros(n, np.int64)
        seat_pool[0] = -1
        if self.role == "punter" and copunters is not None and n > 2:
            for s in range(1, n):
                if s != self.banker_seat:
                    seat_pool[s] = 1
        self._agents, self._pool_cum, self._params, self._seat_pool = agents, cum, params, seat_pool
        if self._seeded:
            self._seed_opponents()

    def _seed_opponents(self) -> None:
        self._opp_rng = np.random.default_rng(int(self.np_random.integers(2**62)))

    def _check_seed(self, seed: Any) -> int | list[int | None] | None:
        """A reset seed: None, a non-negative integer, or a list of ``num_envs`` of them
        (one per table, as Gymnasium's vector envs take); a clear ``ValueError`` otherwise."""
        if isinstance(seed, list | tuple | np.ndarray):
            seeds = list(np.asarray(seed, dtype=object).reshape(-1)) if isinstance(seed, np.ndarray) else list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(
                    f"reset seed: a list of seeds needs one per table ({self.num_envs}), got {len(seeds)}; "
                    "or give one integer for the batch"
                )
            try:
                return [check_seed(s) for s in seeds]
            except ValueError as e:
                raise ValueError(f"{e} (in the list of seeds)") from None
        return check_seed(seed)

    def _seed_all(self, seed: int | list[int | None] | None) -> None:
        if not isinstance(seed, list):
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
            self.tables.seed(int(self.np_random.integers(2**62)))
        else:  # table i plays as a one-table env reset with seed[i] (None: fresh entropy)
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed[0])
            for i, s in enumerate(seed):
                first = int(gymnasium.utils.seeding.np_random(s)[0].integers(2**62))
                self.tables.rng[i] = np.random.SeedSequence(first).generate_state(1, np.uint64)[0]
        self._seeded = True
        self._seed_opponents()

    # ------------------------------------------------------------------ helpers
    def action_masks(self) -> np.ndarray:
        """``(num_envs, A)`` legal actions of the learner now (``bool``)."""
        return self._masks.astype(bool)

    def _advance(self, games: np.ndarray) -> None:
        """Play the tables on until the learner decides everywhere (opponents in batch)."""
        t = self.tables
        args = (
            t.rng, t.deck_cards, self.banker_seat, self._agent_of, self._pool_cum, self._seat_pool,
            self._params, self._seat_native, self._stage, self._before, self._rewards, self._terminated,
            self._final_obs, self._final_chips, self._skipped, self._before_first, self.fold, MAX_SKIPPED,
        )  # fmt: skip
        while len(games):
            codes = np.empty(len(games), np.int64)
            if self.threads == 1 or len(games) < 2 * self.threads:
                K.advance(t.state, t.cfg, games, 0, len(games), *args, codes)
            else:  # each of numba's threads its own tables
                cut = np.searchsorted(games, self._cut) if len(games) < self.num_envs else self._cut
                K.advance_parts(t.state, t.cfg, games, *args, codes, cut)
            if (codes == -2).any():
                raise RuntimeError(
                    f"the learner had no decision in {MAX_SKIPPED} episodes in a row: check the role and rules"
                )
            games = games[codes == K.PENDING]
            if not len(games):
                return
            seats = t.state[games, K.SEAT].astype(np.int64)
            who = self._agent_of[games, seats]
            for a in np.unique(who):
                sel = who == a
                g, s = games[sel], seats[sel]
                obs, masks = t.observe(g, s)
                t.apply(g, sample_actions(self._agents[a], obs, masks, self._opp_rng))

    def _new_episodes(self, games: np.ndarray, decks: Sequence[Any] | None = None) -> None:
        t = self.tables
        for g in games:
            K.new_episode(
                t.state, t.cfg, g, t.rng, t.deck_cards, self.banker_seat, self._agent_of, self._pool_cum,
                self._seat_pool, self._params, self._seat_native,
            )  # fmt: skip
        if decks is not None:  # stacked first decks: same seats and opponents, given cards
            from ..cards import parse_deck

            stacked = []
            for deck in decks:
                listed = parse_deck(deck, self.rules.deck_cards())
                chosen = set(listed)
                stacked.append(
                    listed + [c for c in self.np_random.permutation(t.deck_cards).tolist() if c not in chosen]
                )
            t.start(games, self.banker_seat, np.array(stacked))

    def _views(self) -> tuple[np.ndarray, np.ndarray]:
        """The learner's observations and masks, written once: into arrays nobody else holds
        (``copy``) or into the buffers the next step overwrites."""
        obs = self._obs_pool.get() if self.copy else self._obs
        t, m = self.tables, self._masks
        if self.threads == 1:
            K.learner_views(t.state, t.cfg, 0, self.num_envs, self.fold, obs, m)
        else:
            K.views_parts(t.state, t.cfg, self.fold, obs, m, self._cut)
        return obs, (self._masks.copy() if self.copy else self._masks)

    def _check_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as ``(num_envs,)`` int64 action ids, or a ``ValueError`` saying what is
        wrong: the shape (one id per table), the type (integers) or the range (an id outside
        the action space is refused, as the single-seat env does; an illegal id in range
        ends that table's episode, or raises with ``illegal_action="raise"``)."""
        N, A = self.num_envs, self.tables.A
        try:
            a = np.asarray(actions)
        except (ValueError, TypeError) as e:  # ragged lists
            raise ValueError(f"actions must be {N} integer action ids (one per table): {e}") from None
        if a.shape != (N,) or a.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an array of shape ({N},): one integer action id per table, got "
                f"{'shape ' + str(a.shape) + ' ' if a.shape != (N,) else ''}dtype {a.dtype}"
            )
        out = (a < 0) | (a >= A)
        if out.any():
            i = int(np.flatnonzero(out)[0])
            raise ValueError(
                f"action {a[i]} of table {i} is outside the action space: action ids are 0..{A - 1} "
                f"({', '.join(self.action_names)})"
            )
        return a.astype(np.int64)

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None):
        firstuse.notice(K.new_episode, "the batched engine")
        if self.threads > 1:
            firstuse.notice(K.advance_parts, "the batched engine's threads")
        seed = self._check_seed(seed)  # a list: one seed per table (Gymnasium's convention)
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict such as {{'decks': [...]}} or None, got {shorten(options)}")
        options = dict(options or {})
        unknown = [k for k in options if k != "decks"]
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; the only option is 'decks' (stacked decks)")
        decks = options.get("decks")
        if decks is not None:
            from ..cards import parse_deck

            if isinstance(decks, str | bytes) or not hasattr(decks, "__len__"):
                raise ValueError(f"decks must be a list of {self.num_envs} decks (card-id lists), got {shorten(decks)}")
            if len(decks) != self.num_envs:
                raise ValueError(f"decks must hold one deck per table ({self.num_envs}), got {len(decks)}")
            for d in decks:
                parse_deck(d, self.rules.deck_cards())
        if seed is not None or not self._seeded:
            self._seed_all(seed)
        games = self.tables.all
        self._stage[:] = 2
        self._skipped[:] = 0
        self._before_first[:] = 0
        self._new_episodes(games, decks)
        self._advance(games)
        self._needs_reset = False
        obs, masks = self._views()
        infos = {
            "action_mask": masks,
            "_action_mask": np.ones(self.num_envs, np.bool_),
            "reward_before_first_decision": self._before_first.astype(np.float64),
            "_reward_before_first_decision": np.ones(self.num_envs, np.bool_),
            "skipped_episodes": self._skipped.copy(),
            "_skipped_episodes": np.ones(self.num_envs, np.bool_),
        }
        return obs, infos

    def step(self, actions):
        if self._needs_reset:
            raise RuntimeError("call reset() before step()")
        t = self.tables
        if self.copy:  # final observations go into an array nobody holds any more
            self._final_obs = self._final_pool.get()
        actions = self._check_actions(actions)
        ok = self._ok
        nbad = K.check_actions(self._masks, actions, ok)
        bad = np.flatnonzero(~ok) if nbad else ()
        illegal_msgs: dict[int, str] = {}
        if nbad:
            for i in bad[:1] if self.illegal_action == "raise" else bad:
                legal = [self.action_names[j] for j in np.flatnonzero(self._masks[i])]
                a = int(actions[i])
                name = self.action_names[a] if 0 <= a < len(self.action_names) else "?"
                illegal_msgs[int(i)] = f"illegal action {a} ({name}) for the learner; legal now: {legal}"
            if self.illegal_action == "raise":
                i = int(bad[0])
                raise ValueError(f"table {i}: {illegal_msgs[i]}")
        outs = (self._stage, self._before, self._rewards, self._terminated, ok)
        if self.threads == 1:
            K.learner_apply(t.state, t.cfg, 0, self.num_envs, actions, *outs)
        else:
            K.apply_parts(t.state, t.cfg, actions, *outs, self._cut)
        if nbad:  # an illegal action ends the episode with illegal_reward (as SeatEnv)
            self._rewards[bad] = self.illegal_reward
            self._terminated[bad] = True
            obs_bad, _ = t.observe(bad, 0, fold=self.fold)  # unchanged: the action was not applied
            self._final_obs[bad] = obs_bad
            self._final_chips[bad] = t.chips[bad, 0]
            self._stage[bad] = 2
            self._skipped[bad] = 0
            self._new_episodes(bad)
        self._advance(t.all)
        obs, masks = self._views()
        term = self._terminated
        infos: dict[str, Any] = {
            "action_mask": masks,
            "_action_mask": np.ones(self.num_envs, np.bool_),
        }
        if term.any():
            mask = term.copy()
            chips = np.where(term, self._final_chips, 0).astype(np.float64)
            final_info: dict[str, Any] = {"chips": chips, "_chips": mask}
            if illegal_msgs:
                msg = np.full(self.num_envs, None, dtype=object)
                for i, m in illegal_msgs.items():
                    msg[i] = m
                final_info["illegal_action"] = msg
                final_info["_illegal_action"] = ~ok
            infos.update(
                final_obs=self._final_obs,
                _final_obs=mask,
                final_info=final_info,
                _final_info=mask,
                reward_before_first_decision=np.where(term, self._before_first, 0).astype(np.float64),
                _reward_before_first_decision=mask,
                skipped_episodes=np.where(term, self._skipped, 0),
                _skipped_episodes=mask,
            )
        return (
            obs,
            self._rewards.copy(),
            term.copy(),
            np.zeros(self.num_envs, np.bool_),
            infos,
        )

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""


def random_legal_actions(masks: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (a fast random player for
    benchmarks and tests); ``rng`` is a one-element ``uint64`` array, the stream's state."""
    out = np.empty(len(masks), np.int64)
    K.random_actions(np.ascontiguousarray(masks), rng, out)
    return out


def make_seat_vector_env(num_envs: int = 1024, **kwargs: Any) -> SeatVectorEnv:
    """The ids' ``vector_entry_point`` (``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``)."""
    return SeatVectorEnv(num_envs=num_envs, **kwargs)


# --------------------------------------------------------------------------- stable-baselines3
def SB3VecEnv(venv: SeatVectorEnv):  # noqa: N802  (a class made on first use: SB3 is optional)
    """``venv`` as a stable-baselines3 ``VecEnv`` (see the module docstring)."""
    return _sb3_class()(venv)


_SB3_CLASS: Any = None


def _sb3_class():
    global _SB3_CLASS
    if _SB3_CLASS is not None:
        return _SB3_CLASS
    from stable_baselines3.common.vec_env import VecEnv

    class _SB3VecEnv(VecEnv):
        """A ``SeatVectorEnv`` for stable-baselines3 / sb3-contrib."""

        def __init__(self, venv: SeatVectorEnv):
            self.venv = venv
            super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
            self._actions: np.ndarray | None = None
            self._seed: int | None = None

        def reset(self):
            seed, self._seed = self._seed, None
            obs, infos = self.venv.reset(seed=seed)
            self.reset_infos = [{} for _ in range(self.num_envs)]
            return obs

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = actions

        def step_wait(self):
            obs, rewards, term, trunc, infos = self.venv.step(self._actions)
            dones = term | trunc
            out = [{} for _ in range(self.num_envs)]
            if dones.any():
                final = infos["final_obs"]
                for i in np.flatnonzero(dones):
                    out[i]["terminal_observation"] = final[i]
                    out[i]["TimeLimit.truncated"] = bool(trunc[i] and not term[i])
            return obs, rewards.astype(np.float32), dones, out

        def seed(self, seed: int | None = None):
            self._seed = seed
            return [seed] * self.num_envs

        def close(self) -> None:
            self.venv.close()

        def _targets(self, indices) -> list[int]:
            return list(self._get_indices(indices))

        def get_attr(self, attr_name: str, indices=None) -> list[Any]:
            return [getattr(self.venv, attr_name)] * len(self._targets(indices))

        def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
            setattr(self.venv, attr_name, value)

        def has_attr(self, attr_name: str) -> bool:
            return hasattr(self.venv, attr_name)

        def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
            targets = self._targets(indices)
            if method_name == "action_masks":
                masks = self.venv.action_masks()
                return list(masks[targets])
            # every table shares one configuration: the method is called once for all of them
            res = getattr(self.venv, method_name)(*method_args, **method_kwargs)
            return [res] * len(targets)

        def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
            return [False] * len(self._targets(indices))

    _SB3_CLASS = _SB3VecEnv
    return _SB3_CLASS


__all__ = [
    "NATIVE_KINDS",
    "SB3VecEnv",
    "SeatVectorEnv",
    "make_seat_vector_env",
    "EXTERNAL",
    "check_threads",
    "native_params",
    "random_legal_actions",
    "sample_actions",
]
