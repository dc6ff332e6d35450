"""Single-agent Gymnasium views of the table: one seat learns, the others are played by
given policies (registered as ``SieteYMedia-Punter-v0`` and ``SieteYMedia-Banker-v0``).

>>> import gymnasium as gym
>>> import siete_env  # registers the ids
>>> e = gym.make("SieteYMedia-Punter-v0", opponents="smart:6")
>>> obs, info = e.reset(seed=0)
>>> mask = e.unwrapped.action_masks()  # for sb3-contrib's MaskablePPO

An episode is one episode of the AEC environment (one hand with the default
``hands_per_episode: 1``). The learner is seat 0; ``role`` says whether it holds the bank
when each episode starts (the banker is seat 0, or the seat ``position`` places before
the learner, so that the learner is the ``position``-th punter to play). Every other seat
is played inside ``step`` by an opponent policy drawn, per episode and per seat, from
``opponents``.

**Rewards are the learner's own**: a step returns the chips the learner won or lost
from its action up to its next decision (or the end of the episode) — never another
seat's reward. Chips that moved before the learner's first decision of an episode (a
banker collects the stake of a punter who busted before the banker plays) were not
earned by any decision of the learner: they are left out of the return and reported in
``info["reward_before_first_decision"]``. An episode in which the learner has no
decision at all (a banker whose punters all bust) is played out inside ``reset``/``step``
and skipped; ``info["skipped_episodes"]`` counts them.

``reset(options={"deck": [...]})`` stacks the first episode's deck as in the AEC env
(first card to the first punter in turn order, the banker's last, then hits from the top).

Observations are the AEC observation vector of the learner (``Box``; the action mask is
``action_masks()`` and ``info["action_mask"]``), or with ``fold_suits=True`` its
suit-folded form (``siete_env.features``; ``"auto"``: folded when the rules never look
at a suit).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from . import opponents as specs
from .aec import action_index, check_options, check_seed, raw_env
from .features import fold_suits as _fold
from .features import folded_size, suits_matter
from .rules import Rules

OpponentSpec = str | Callable[[dict], int]
MAX_SKIPPED = 10_000  # episodes in a row without a learner decision before giving up


def policy_pool(opponents: Any) -> tuple[list[Any], np.ndarray]:
    """``opponents`` as (policies, probabilities): one policy, a list (uniform) or a
    mapping policy -> weight."""
    if opponents is None:
        raise ValueError("opponents is required: an agent spec such as 'smart:6', a callable, a list or a dict")
    if isinstance(opponents, str) or callable(opponents):
        return [opponents], np.ones(1)
    if isinstance(opponents, Mapping):
        items, weights = list(opponents.keys()), np.asarray(list(opponents.values()), np.float64)
    elif isinstance(opponents, Sequence):
        items, weights = list(opponents), np.ones(len(opponents))
    else:
        raise ValueError(f"opponents must be a spec string, a callable, a list or a dict, not {opponents!r}")
    if not items:
        raise ValueError("opponents is empty: give at least one policy")
    if (weights < 0).any() or not np.isfinite(weights).all() or weights.sum() <= 0:
        raise ValueError(f"opponent weights must be non-negative and not all zero, got {weights.tolist()}")
    return items, weights / weights.sum()


class SeatEnv(gymnasium.Env):
    """One seat of a Siete y Media table as a Gymnasium environment (see the module doc).

    Args:
        role: ``"punter"`` or ``"banker"``: the learner's role when an episode starts.
        rules: a preset name, a dict of options or a ``Rules`` (as for ``siete_env.env``).
        num_players: table size, 2..12.
        opponents: the other seats' policies: an agent spec (``"smart:6"``, see
            ``agents.specs``; resolved by ``siete_env.opponents``: ``"random"`` is built
            in), a callable ``obs_dict -> action``, a list of them (drawn uniformly per seat
            and episode) or a dict ``policy -> weight``.
        copunters: for a punter learner at a table of 3 or more, the policies of the other
            punters (same forms as ``opponents``); ``None``: they come from ``opponents``
            too. ``opponents`` then plays the banker.
        position: for a punter, its place in turn order (1 = first to play after the deal).
        fold_suits: give suit-folded observations (``True``, ``False`` or ``"auto"``).
        seed: seeds the table and the opponents (also ``reset(seed=...)``).
        illegal_action: ``"terminate"`` (default, as PettingZoo's ``TerminateIllegalWrapper``:
            an illegal action ends the episode with ``illegal_reward`` and
            ``info["illegal_action"]`` saying what was legal) or ``"raise"`` (a ``ValueError``
            naming the action and the legal ones; nothing is applied).
        illegal_reward: the learner's reward for an illegal action with ``"terminate"``.
        render_mode: ``None``, ``"ansi"`` (the table as text) or ``"rgb_array"`` (as an image,
            ``siete_env.render``; for Gymnasium's ``RecordVideo``).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        role: str = "punter",
        rules: str | dict[str, Any] | Rules | None = "spanish",
        num_players: int = 2,
        opponents: Any = "random",
        copunters: Any = None,
        position: int = 1,
        fold_suits: bool | str = False,
        seed: int | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ):
        if role not in ("punter", "banker"):
            raise ValueError(f"role must be 'punter' or 'banker', got {role!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        self.illegal_action, self.illegal_reward = illegal_action, float(illegal_reward)
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        self.table = raw_env(num_players=num_players, rules=rules)
        n = self.table.num_players
        if role == "punter" and not (isinstance(position, int) and 1 <= position <= n - 1):
            raise ValueError(f"position must be 1..{n - 1} (the learner's place among the punters), got {position!r}")
        if fold_suits == "auto":
            fold_suits = not suits_matter(self.table.rules)
        if fold_suits not in (True, False):
            raise ValueError(f"fold_suits must be True, False or 'auto', got {fold_suits!r}")
        self.role, self.position, self.fold = role, position, bool(fold_suits)
        self.render_mode = render_mode
        self.rules = self.table.rules
        self.num_players = n
        self.layout = self.table.layout
        self.action_names = self.table.action_names
        self.banker_seat = 0 if role == "banker" else (-position) % n
        size = folded_size(self.layout) if self.fold else self.layout.size
        low = self.layout.low if not self.fold else _fold(self.layout.low, self.layout)
        high = self.layout.high if not self.fold else _fold(self.layout.high, self.layout)
        self.observation_space = spaces.Box(low, high, (size,), dtype=np.float32)
        self.action_space = spaces.Discrete(len(self.action_names))
        self._game = self.table.game
        self._mask = np.zeros(len(self.action_names), np.int8)
        self.set_opponents(opponents, copunters)
        self._seeded = False
        self._needs_reset = True
        if seed is not None:
            self._seed_all(seed)

    # ------------------------------------------------------------------ opponents
    def set_opponents(self, opponents: Any, copunters: Any = None) -> None:
        """Replace the opponent pools (takes effect at the next episode). Specs are
        validated and built now: a bad spec fails here, with nothing changed."""
        items, probs = policy_pool(opponents)
        built = [specs.resolve(p, self.table) for p in items]
        co_built, co_probs = built, probs
        if copunters is not None:
            co_items, co_probs = policy_pool(copunters)
            co_built = [specs.resolve(p, self.table) for p in co_items]
        self._pool, self._pool_p = built, probs
        self._co, self._co_p = co_built, co_probs
        if getattr(self, "_seeded", False):
            self._seed_opponents()

    def _seed_all(self, seed: int | None) -> None:
        super().reset(seed=seed)  # self.np_random
        self.table.reset(seed=int(self.np_random.integers(2**62)))
        self._seeded = True
        self._seed_opponents()

    def _seed_opponents(self) -> None:
        for i, agent in enumerate(self._pool + (self._co if self._co is not self._pool else [])):
            if hasattr(agent, "rng"):
                agent.rng = np.random.default_rng([int(self.np_random.integers(2**62)), i])

    # ------------------------------------------------------------------ helpers
    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (``bool``), for sb3-contrib's MaskablePPO."""
        return self._mask.astype(bool)

    def _observe(self) -> np.ndarray:
        obs = self.table.observe(self.table.possible_agents[0])
        self._mask = obs["action_mask"]
        o = obs["observation"]
        self._last_obs = o = _fold(o, self.layout) if self.fold else o
        return o

    def _info(self, **extra: Any) -> dict[str, Any]:
        info = dict(self.table.infos[self.table.possible_agents[0]])
        info["action_mask"] = self._mask.copy()
        info.update(extra)
        return info

    def _new_episode(self, deck: Sequence[str] | None = None) -> None:
        opts: dict[str, Any] = {"banker": self.banker_seat}
        if deck is not None:
            opts["deck"] = deck
        self.table.reset(options=opts)
        n = self.num_players
        picks = self.np_random.choice(len(self._pool), size=n - 1, p=self._pool_p)
        self._seat_agent = [None] + [self._pool[i] for i in picks]
        if self.role == "punter" and self._co is not self._pool and n > 2:
            co = self.np_random.choice(len(self._co), size=n - 1, p=self._co_p)
            for s in range(1, n):
                if s != self.banker_seat:
                    self._seat_agent[s] = self._co[co[s - 1]]
        self._decided = False

    def _play_others(self) -> tuple[float, bool]:
        """Let the other seats act until the learner must decide or the episode ends.
        Returns (the learner's chips in that stretch, whether the episode ended)."""
        t = self.table
        me = t.possible_agents[0]
        got = 0.0
        while True:
            if t.terminations[me]:
                return got, True
            seat = t.seat_of(t.agent_selection)
            if seat == 0:
                return got, False
            agent = t.agent_selection
            t.step(self._seat_agent[seat](t.observe(agent)))
            got += t.rewards[me]

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        seed = check_seed(seed)
        check_options(options)
        options = dict(options or {})
        unknown = [k for k in options if k != "deck"]
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; the only option is 'deck' (a stacked deck)")
        deck = options.get("deck")
        if deck is not None:
            from .cards import parse_deck

            try:  # refuse a bad deck before anything changes
                parse_deck(deck, self.rules.deck_cards())
            except ValueError as e:
                raise ValueError(f"reset option 'deck': {e}") from None
        if seed is not None or not self._seeded:
            self._seed_all(seed)
        skipped = 0
        while True:
            self._new_episode(deck if skipped == 0 else None)
            before, done = self._play_others()
            if not done:
                break
            skipped += 1
            if skipped >= MAX_SKIPPED:
                raise RuntimeError(
                    f"the learner had no decision in {MAX_SKIPPED} episodes in a row: check the role and rules"
                )
        self._needs_reset = False
        obs = self._observe()
        return obs, self._info(reward_before_first_decision=before, skipped_episodes=skipped)

    def step(self, action: int):
        if self._needs_reset:
            raise RuntimeError("call reset() before step() (the episode is over or never started)")
        t = self.table
        me = t.possible_agents[0]
        if type(action) is not int:
            action = action_index(action)  # numpy integers, 0-d integer arrays; a clear error otherwise
        if not 0 <= action < self.action_space.n:
            raise ValueError(f"action {action!r} is outside the action space {self.action_space}")
        if not self._mask[action]:
            legal = [self.action_names[i] for i in np.flatnonzero(self._mask)]
            msg = f"illegal action {action} ({self.action_names[action]}) for the learner; legal now: {legal}"
            if self.illegal_action == "raise":
                raise ValueError(msg)
            self._needs_reset = True
            obs, self._mask = self._last_obs.copy(), np.zeros_like(self._mask)
            return obs, self.illegal_reward, True, False, self._info(illegal_action=msg)
        t.step(action)
        reward = float(t.rewards[me])
        more, done = self._play_others()
        reward += more
        if done:
            self._needs_reset = True
            obs = self._observe()  # the final table, with an all-zero mask
            return obs, reward, True, False, self._info(chips=float(t.game.chips[0]))
        obs = self._observe()
        return obs, reward, False, False, self._info()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return self.table.table_text()
        if self.render_mode == "rgb_array":
            return self.table.table_image()
        return None


def register_envs() -> None:
    """Register the single-seat views with Gymnasium (done when ``siete_env`` is imported)."""
    for game, rules, n in (("SieteYMedia", "spanish", 2), ("QuattroEMezzo", "quattro_e_mezzo", 4)):
        for role in ("punter", "banker"):
            env_id = f"{game}-{role.capitalize()}-v0"
            if env_id not in gymnasium.registry:
                gymnasium.register(
                    id=env_id,
                    entry_point="siete_env.gym_env:SeatEnv",
                    # gymnasium.make_vec(id, num_envs, vectorization_mode="vector_entry_point"): the batched engine
                    vector_entry_point="siete_env.batched.vector:make_seat_vector_env",
                    kwargs={"role": role, "rules": rules, "num_players": n, "opponents": "random"},
                    disable_env_checker=False,
                )


__all__ = ["MAX_SKIPPED", "SeatEnv", "policy_pool", "register_envs"]
