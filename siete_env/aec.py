"""PettingZoo AEC adapter: seats <-> agent names, spaces, rewards, seeding, rendering.

It translates and never decides rules: the kernels decide what is legal, what happens and
what each seat sees, for one table (``siete_env.table.Table``, the engine every API plays).
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .cards import card_label, format_total
from .game import ActionKind, IllegalActionError, Phase, Status
from .rules import MAX_PLAYERS, Rules, check_table, resolve_rules
from .table import Table

RESET_OPTIONS = ("deck", "banker")
_AUCTION = int(Phase.AUCTION)  # as a plain int for step()
_BATCH = 256
_PER_EPISODE = {"rewards", "terminations", "truncations", "infos", "agent_selection", "agents", "_cumulative_rewards"}


class _ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``contains`` answers a plain ``int`` without numpy casts (the
    same answer as ``Discrete.contains``: ``0 <= x < n``); other types take the usual path.
    ``AssertOutOfBoundsWrapper`` asks it at every step."""

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return 0 <= x < self._n
        return super().contains(x)

    def __init__(self, n: int, seed: int | None = None):
        super().__init__(n, seed=seed)
        self._n = int(n)


def action_index(action: Any) -> int:
    """The action id ``action`` stands for, as a Python ``int``: an ``int``, a numpy integer
    or a 0-d integer array (what SB3's ``model.predict(obs)`` returns for one observation).
    Anything else (a bool, a float, a string, an array of another shape or dtype) raises
    ``IllegalActionError`` saying what it is. The range is not checked here. This is the
    one place actions are converted (``raw_env.step``, the ``env()`` wrappers, ``SeatEnv``)."""
    if type(action) is int:
        return action
    if isinstance(action, np.integer):
        return int(action)
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    if isinstance(action, bool | np.bool_) or (isinstance(action, np.ndarray) and action.dtype.kind == "b"):
        what = "a bool is not an action"
    elif isinstance(action, np.ndarray):
        what = f"an array of dtype {action.dtype} and shape {action.shape}"
    else:
        what = f"a {type(action).__name__}"
    raise IllegalActionError(
        f"action {action!r} is not an action id ({what}); give an integer id "
        "(a Python int, a numpy integer or a 0-d integer array)"
    )


def check_seed(seed: Any) -> int | None:
    """A reset seed: ``None`` or a non-negative integer (as a Python int); a clear ``ValueError`` otherwise."""
    if seed is None:
        return None
    if not isinstance(seed, bool | np.bool_) and isinstance(seed, int | np.integer) and seed >= 0:
        return int(seed)
    raise ValueError(f"reset seed must be None or a non-negative integer, got {seed!r}")


def check_options(options: Any) -> None:
    """Reset options: ``None`` or a mapping; a clear ``ValueError`` otherwise."""
    if options is not None and not isinstance(options, Mapping):
        raise ValueError(
            f"reset options must be a dict such as {{'deck': ['4o', '7c'], 'banker': 0}} or None, "
            f"not {type(options).__name__} {options!r}"
        )


def _check_num_players(num_players: Any) -> int:
    if isinstance(num_players, bool) or not isinstance(num_players, int | np.integer):
        raise ValueError(f"num_players must be an integer 2..{MAX_PLAYERS}, got {num_players!r}")
    if not 2 <= num_players <= MAX_PLAYERS:
        raise ValueError(
            f"num_players must be 2..{MAX_PLAYERS} (one banker and 1..{MAX_PLAYERS - 1} punters), got {num_players}"
        )
    return int(num_players)


class raw_env(AECEnv):
    """Siete y Media, a banker against 1..11 punters. See the package README and
    ``siete_env.encoding`` for the observation layout, and ``action_names`` for actions."""

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "siete_y_media_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 2,
        rules: str | dict[str, Any] | Rules | None = "spanish",
        render_mode: str | None = None,
    ):
        super().__init__()
        n = _check_num_players(num_players)
        self.rules = resolve_rules(rules)
        check_table(self.rules, n)
        if render_mode not in (None, "ansi", "human", "rgb_array"):
            raise ValueError(f"render_mode must be None, 'ansi', 'human' or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self.num_players = n
        self._rng: np.random.Generator | None = None
        self.game = Table(self.rules, n)
        self.layout = self.game.layout
        self.action_names: tuple[str, ...] = tuple(a.name for a in self.game.actions)
        self._action_ids = {name: i for i, name in enumerate(self.action_names)}
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        n_act = len(self.action_names)
        self._action_space = _ActionSpace(n_act)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(self.layout.low, self.layout.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (n_act,), dtype=np.int8),
            }
        )
        state_size = self.layout.size
        self.state_space = spaces.Box(-np.inf, np.inf, (state_size,), dtype=np.float32)
        self._zero_mask = np.zeros(n_act, np.int8)
        self._zero_mask.flags.writeable = False
        self._mask_cache: dict[tuple[int, ...], np.ndarray] = {}
        self._names_cache: dict[tuple[int, ...], tuple[str, ...]] = {}
        self._deck_cards = self.rules.deck_cards()
        self._deck_array = np.array(self._deck_cards, dtype=np.int8)
        self._rewarded = False
        self._started = False  # True from the first reset on
        self.hands_before = 0  # hands played in earlier episodes of this env: the header's running count

    def __getattr__(self, name: str) -> Any:
        # Only reached for attributes that do not exist: the per-episode ones before reset.
        if name in _PER_EPISODE:
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _not_started(self, what: str) -> RuntimeError:
        return RuntimeError(f"{what} called before reset(): call reset() first (e.g. reset(seed=0))")

    def _episode_over(self, what: str) -> RuntimeError:
        return RuntimeError(
            f"{what}: the episode is over and every agent has left (agents is empty); "
            "call reset() to start a new episode"
        )

    def _out_of_range(self, action: int) -> IllegalActionError:
        """The error for an action id outside the action space (the range and the legal ids)."""
        legal = [self.action_names[a] for a in sorted(self.game.legal_actions())]
        return IllegalActionError(
            f"{self.agent_selection}: action {action} is outside the action space (action ids "
            f"0..{len(self.action_names) - 1}); legal actions now: {legal}"
        )

    def _as_action(self, action: Any) -> int:
        """``action_index(action)``, its error naming the agent and the legal actions."""
        try:
            return action_index(action)
        except IllegalActionError as e:
            g = self.game
            legal = [self.action_names[a] for a in sorted(g.legal_actions())]
            raise IllegalActionError(
                f"{self.agent_selection}: {e}; legal actions now: {legal} (action ids 0..{len(self.action_names) - 1})"
            ) from None

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_space

    def seat_of(self, agent: str) -> int:
        """The seat of an agent name (``"player_2"`` -> 2)."""
        return self._seat_of[agent]

    def action_id(self, name: str) -> int:
        """The action index of an action name (``"HIT_DOWN"`` -> 2)."""
        try:
            return self._action_ids[name]
        except KeyError:
            raise ValueError(f"unknown action name {name!r}; actions: {list(self.action_names)}") from None

    # ------------------------------------------------------------------ randomness
    def _shuffled_deck(self) -> list[int]:
        # Shuffles are drawn from the env's generator in batches (one numpy call per
        # _BATCH hands instead of one per hand); the sequence is fixed by the seed.
        if self._next_perm >= _BATCH:
            self._perms = self._rng.permuted(np.tile(self._deck_array, (_BATCH, 1)), axis=1).tolist()
            self._next_perm = 0
        self._next_perm += 1
        return self._perms[self._next_perm - 1]

    def _draw_banker(self) -> int:
        if self._next_lot >= _BATCH:
            self._lots = (self._rng.random(_BATCH) * self.num_players).astype(np.int64).tolist()
            self._next_lot = 0
        self._next_lot += 1
        return self._lots[self._next_lot - 1]

    def _seed(self, seed: int | None) -> None:
        ss = np.random.SeedSequence(seed)
        self._rng = np.random.default_rng(ss)  # the same stream as default_rng(seed)
        # the seeds of each session's later decks and reshuffles (the kernels draw them), from
        # a generator of their own: the episodes' first decks and bankers never depend on them
        self._session_rng = np.random.default_rng(ss.spawn(1)[0])
        self._next_perm = self._next_lot = _BATCH
        self._skip_agent_selection = None  # AECEnv's dead-step bookkeeping

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None and not options and self._rng is not None:
            check_options(options)  # {} and None only
            return self._start(self._draw_banker(), self._shuffled_deck())
        seed, listed, banker = self._check_reset(seed, options, stacklevel=3)
        # Validation done: from here on nothing can fail half-way.
        if seed is not None or self._rng is None:
            self._seed(seed)
        if banker is None:
            banker = self._draw_banker()
        deck = self._shuffled_deck()
        if listed:
            chosen = set(listed)
            deck = listed + [c for c in deck if c not in chosen]
        self._start(int(banker), deck)

    def _check_reset(
        self, seed: Any, options: Any, stacklevel: int = 2, warn: bool = True
    ) -> tuple[int | None, list[int], int | None]:
        """``reset``'s arguments validated (nothing changes): the seed, the stacked cards
        and the banker option. A clear ``ValueError`` naming the argument otherwise."""
        seed = check_seed(seed)
        check_options(options)
        options = dict(options or {})
        # "options": the key PettingZoo's api_test passes through (reset(options={"options": 1})),
        # ignored without a warning
        unknown = [k for k in options if k not in RESET_OPTIONS and k != "options"]
        if unknown and warn:
            # Gymnasium/PettingZoo convention (and PettingZoo's api_test): unknown reset
            # options are ignored, but never silently.
            warnings.warn(
                f"ignoring unknown reset option(s) {unknown}; known options: {list(RESET_OPTIONS)}",
                stacklevel=stacklevel,
            )
        listed: list[int] = []
        if options.get("deck") is not None:
            from .cards import parse_deck

            try:
                listed = parse_deck(options["deck"], self._deck_cards)
            except ValueError as e:
                raise ValueError(f"reset option 'deck': {e}") from None
        banker = options.get("banker")
        if banker is not None:
            if (
                isinstance(banker, bool)
                or not isinstance(banker, int | np.integer)
                or not 0 <= banker < self.num_players
            ):
                raise ValueError(f"reset option 'banker' must be a seat 0..{self.num_players - 1}, got {banker!r}")
            banker = int(banker)
        return seed, listed, banker

    def _start(self, banker: int, deck: list[int]) -> None:
        g = self.game
        if self._started:
            self.hands_before += g.hand_no  # the hands the last episode settled
        g.start(banker, deck, int(self._session_rng.integers(1 << 62)) if g.session else 0)
        agents = self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(agents, 0)
        self._cumulative_rewards = dict.fromkeys(agents, 0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        info = self._info
        self.infos = {a: info(i) for i, a in enumerate(agents)}
        self._rewarded = False
        self._hand_no, self._banker = 0, g.banker
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[g.acting_seat]
        self._started = True

    # ------------------------------------------------------------------ step
    def step(self, action: int | None) -> None:
        if not self._started:
            raise self._not_started("step()")
        agent = self.agent_selection
        try:
            dead = self.terminations[agent] or self.truncations[agent]
        except KeyError:  # every agent has left
            raise self._episode_over("step()") from None
        if dead:
            self._was_dead_step(action)
            return
        g = self.game
        auction = g.phase == _AUCTION
        if type(action) is not int:  # numpy integers and 0-d integer arrays are welcome
            action = self._as_action(action)
        before = g.chips
        try:
            g.apply(action)
        except IllegalActionError as e:
            raise IllegalActionError(f"{agent}: {e}") from None
        rewards = self.rewards
        if self._rewarded:
            for a in rewards:
                rewards[a] = 0
            self._rewarded = False
        self._cumulative_rewards[agent] = 0
        names = self.possible_agents
        paid: Any = ()
        after = g.chips
        if after != before:
            paid = []  # seats whose chips moved: their infos are refreshed below
            for s, (b, a) in enumerate(zip(before, after, strict=True)):
                if a != b:
                    rewards[names[s]] += a - b
                    paid.append(s)
            self._rewarded = True
            cum = self._cumulative_rewards
            for a, r in rewards.items():
                cum[a] += r
        seat = g.acting_seat
        prev = self._seat_of[agent]
        if seat < 0 or g.hand_no != self._hand_no or g.banker != self._banker or (auction and g.phase != _AUCTION):
            # the episode ended, or a new hand, banker or deal
            self._hand_no, self._banker = g.hand_no, g.banker
            for i, a in enumerate(names):
                self.infos[a] = self._info(i)
            if seat < 0:
                for a in names:
                    self.terminations[a] = True
                return
            self.agent_selection = names[seat]
            return
        self.infos[agent] = self._info(prev)
        if seat != prev:
            nxt = names[seat]
            self.infos[nxt] = self._info(seat)
            self.agent_selection = nxt
        for p in paid:
            if p != prev and p != seat:
                self.infos[names[p]] = self._info(p)

    def _was_dead_step(self, action: None) -> None:
        """AECEnv's dead step, specialised: here every agent ends together, so the next
        agent to remove is simply the first one left (same result, less work)."""
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        agent = self.agent_selection
        if not (self.terminations[agent] or self.truncations[agent]):
            raise AssertionError("an agent that was not dead as attempted to be removed")
        del self.terminations[agent], self.truncations[agent], self.rewards[agent]
        del self._cumulative_rewards[agent], self.infos[agent]
        agents = self.agents
        agents.remove(agent)
        if agents:
            if not all(self.terminations[a] or self.truncations[a] for a in agents):
                raise AssertionError("all agents end together in this environment")
            if self._skip_agent_selection is None:
                self._skip_agent_selection = agent
            self.agent_selection = agents[0]
        else:
            if self._skip_agent_selection is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        rewards = self.rewards
        for a in rewards:
            rewards[a] = 0

    # ------------------------------------------------------------------ observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        try:
            seat = self._seat_of[agent]
        except (KeyError, TypeError):
            raise ValueError(
                f"unknown agent {agent!r}; the agents are player_0..player_{self.num_players - 1}"
            ) from None
        if not self._started:
            raise self._not_started("observe()")
        g = self.game
        if seat == g.seat and g.phase != Phase.OVER:
            legal = g.legal_actions()
            mask = self._mask_cache.get(legal)
            if mask is None:
                mask = np.zeros(len(self.action_names), np.int8)
                mask[list(legal)] = 1
                mask.flags.writeable = False
                self._mask_cache[legal] = mask
        else:
            mask = self._zero_mask
        # Masks are shared read-only arrays (one per set of legal actions): copy to modify.
        obs = np.empty(self.layout.size, np.float32)
        g.observe(seat, obs)
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last``, with clear errors before ``reset`` and after the episode."""
        if not self._started:
            raise self._not_started("last()")
        agent = self.agent_selection
        if agent not in self.terminations:
            raise self._episode_over("last()")
        obs = self.observe(agent) if observe else None
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def state(self) -> np.ndarray:
        if not self._started:
            raise self._not_started("state()")
        return self.game.state_vector()

    def legal_action_names(self) -> tuple[str, ...]:
        """The names of the legal actions, in action-id order (the order of the mask)."""
        legal = self.game.legal_actions()
        names = self._names_cache.get(legal)
        if names is None:
            names = self._names_cache[legal] = tuple(self.action_names[a] for a in sorted(legal))
        return names

    def _info(self, seat: int) -> dict[str, Any]:
        legal = self.legal_action_names() if (seat == self.game.seat and self.game.phase != Phase.OVER) else ()
        return self.game.info(seat, legal)

    # ------------------------------------------------------------------ render
    def render(self) -> str | np.ndarray | None:
        if not self._started:
            raise self._not_started("render()")
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return self.table_image()
        text = self.table_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (text and numpy rendering only)."""

    def table_image(self) -> np.ndarray:
        """The table as an RGB frame (``siete_env.render``): face-down cards as backs."""
        if not self._started:
            raise self._not_started("table_image()")
        from .render import table_image

        return table_image(self.game, self.rules.deck, self.rules.hands_per_episode, hands_before=self.hands_before)

    def table_text(self) -> str:
        """The table as a player watching it sees it, plus the hidden cards in brackets; the
        header counts the hands over the env's episodes, and a settled hand ends with why
        each hand was paid (``siete_env.render.result_lines``)."""
        if not self._started:
            raise self._not_started("table_text()")
        g = self.game
        deck, label = self.rules.deck, card_label
        from .render import amount, header_text, result_lines, unit_of

        unit = unit_of(g)
        lines = [header_text(g, self.rules.hands_per_episode, self.hands_before)]
        for s in [*g.order, g.banker]:
            role = "banker" if s == g.banker else "punter"
            for h in range(g.nhands[s]):
                k = g.slot(s, h)
                st = Status(g.status[k]).name.lower()
                cards = " ".join(f"[{label(c, deck)}]" if c == g.hidden[k] else label(c, deck) for c in g.cards[k])
                mark = ">" if (s == g.acting_seat and h == g.hand) else " "
                stake = f" stake {g.stake[k]}" if role == "punter" else ""
                chips = amount(g.chips[s], unit).replace(str(g.chips[s]), f"{g.chips[s]:+d}", 1)
                lines.append(
                    f"{mark} player_{s} {role:6s} hand {h}: {cards:20s} total {format_total(g.total[k]):>3s} {st}{stake}  {chips}"
                )
        lines += [f"  why: {line}" for line in result_lines(g)]
        return "\n".join(lines)


# --------------------------------------------------------------------------- wrappers
_FORWARDED = ("agent_selection", "agents", "terminations", "truncations", "infos", "rewards",
              "_cumulative_rewards", "num_agents", "possible_agents", "max_num_agents")  # fmt: skip


def _forwarding(cls: type) -> type:
    """A subclass of a standard PettingZoo wrapper whose hot attributes (``agent_selection``,
    ``terminations``, ...) are read straight from the unwrapped env by C-level
    ``attrgetter`` properties, instead of through ``__getattr__`` at every wrapper level
    (which raises and catches an ``AttributeError`` per level; the cost: docs/results.md). The
    standard wrappers never shadow these attributes, so the values are the same; the
    wrappers' own logic (illegal-move termination, bounds assertion, order checks) runs
    unchanged. Before ``reset`` the raw env raises OrderEnforcingWrapper's own message."""

    def prop(name: str) -> property:
        return property(operator.attrgetter("_siete_raw." + name), lambda self, v: setattr(self._siete_raw, name, v))

    def __init__(self, env, *args, **kwargs):
        cls.__init__(self, env, *args, **kwargs)
        self.__dict__["_siete_raw"] = env.unwrapped

    def action_space(self, agent):
        return self._siete_raw.action_space(agent)

    def observation_space(self, agent):
        return self._siete_raw.observation_space(agent)

    def last(self, observe=True):
        raw = self._siete_raw
        if raw._started and raw.agent_selection not in raw.terminations:
            raise raw._episode_over("last()")
        return cls.last(self, observe)

    ns: dict[str, Any] = {n: prop(n) for n in _FORWARDED}
    ns |= {
        "__module__": __name__,
        "__init__": __init__,
        "action_space": action_space,
        "observation_space": observation_space,
        "last": last,
    }
    if cls is wrappers.OrderEnforcingWrapper:  # the outermost: validates before any wrapper changes

        def reset(self, seed=None, options=None):
            self._siete_raw._check_reset(seed, options, warn=False)
            cls.reset(self, seed=seed, options=options)

        ns["reset"] = reset
    if cls is wrappers.AssertOutOfBoundsWrapper:

        def step(self, action):
            # numpy integers and 0-d integer arrays become ints here, before the wrappers
            # below index the mask with them; anything else is refused by name
            raw = self._siete_raw
            if action is not None and type(action) is not int:
                action = raw._as_action(action)
            if action is not None and not 0 <= action < len(raw.action_names) and raw._started:
                agent = raw.agent_selection
                if agent in raw.terminations and not (raw.terminations[agent] or raw.truncations[agent]):
                    raise raw._out_of_range(action)  # our message (with the range), not the wrapper's bare assert
            cls.step(self, action)

        ns["step"] = step
    return type(cls.__name__, (cls,), ns)


TerminateIllegalWrapper = _forwarding(wrappers.TerminateIllegalWrapper)
AssertOutOfBoundsWrapper = _forwarding(wrappers.AssertOutOfBoundsWrapper)
OrderEnforcingWrapper = _forwarding(wrappers.OrderEnforcingWrapper)


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` in PettingZoo's standard wrappers: an illegal action ends the game with
    reward -1 for the offender, an action outside the space asserts, and the API order is
    enforced."""
    e = raw_env(**kwargs)
    e = TerminateIllegalWrapper(e, illegal_reward=-1)
    e = AssertOutOfBoundsWrapper(e)
    e = OrderEnforcingWrapper(e)
    return e


__all__ = ["ActionKind", "env", "raw_env"]
