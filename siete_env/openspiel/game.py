"""Siete y Media as an OpenSpiel game: ``python_siete_y_media``.

>>> import pyspiel
>>> import siete_env.openspiel  # registers the game
>>> game = pyspiel.load_game("python_siete_y_media", {"players": 2, "rules": "bet_levels:[1] four_swap:off max_splits:0"})

Built on the engine every API of the project plays (the kernels, one table:
``siete_env.table.Table``): ``siete_env.openspiel.table.Table`` drives it one card at a
time, so the rules live in one place. The game is sequential, imperfect-information, zero-sum, with an explicit
chance node for every card dealt: uniform over the cards not yet dealt from the deck (the
physical deck: a card another player holds face-down is still "unseen" to you, but it is not
in the deck), except where the engine has put a swapped 4 back (``hand.swap_return_position``):
there the chance node has that 4 as its only outcome. With ``banker=-1`` a first chance node
draws the first banker (uniform over the seats). Returns are chips (units of the minimum
stake), the engine's own settlement; ``rewards()`` are the chips moved by the last move (a
punter who busts pays at once), ``returns()`` their sum so far.

Parameters (``pyspiel.load_game("python_siete_y_media", {...})`` or the game string
``python_siete_y_media(players=4,preset=italian)``):

| parameter | default | meaning |
| --- | --- | --- |
| ``players`` | 2 | table size, 2..12 (OpenSpiel player ``i`` is seat ``i``) |
| ``preset`` | ``spanish`` | a rules preset (``siete_env.rules.PRESETS``) or a rules YAML file |
| ``rules`` | ``""`` | rule options on the preset, ``option:value`` separated by spaces, values in YAML (``bet_levels:[1] four_swap:off max_splits:0``); ``on/off/yes/no`` stay words |
| ``banker`` | 0 | the seat of the first banker; ``-1``: drawn by a chance node |
| ``recall`` | ``perfect`` | the information state: ``perfect`` (perfect recall, see below) or ``observation`` (the current observation and the legal actions) |
| ``suits`` | ``auto`` | ``fold``: cards as ranks in every tensor and string (a player's view of suit-isomorphic deals is merged); ``keep``: as cards; ``auto``: ``fold`` when the rules never look at a suit (``siete_env.features.suits_matter``) |

Observations (``observation_tensor`` / ``observation_string``): the player's observation
vector of the PettingZoo environment (``siete_env.encoding``; suit-folded with ``suits``
folding, ``siete_env.features.fold_suits``), and its text (``describe``). At chance nodes a
player observes the table as it was before the card (during the first deal: zeros).

Information states: with ``recall=perfect`` a player's information state is everything it
has seen and done at its own decisions: its observation at each of its earlier decisions
with the action it took there, and its current observation (the tensor: the current
observation, then ``T`` slots of (observation, one-hot action), ``T`` a bound on a player's
decisions in an episode, zero-padded). The observation alone does not have perfect recall:
it holds no order of the cards (a face-up 5 drawn after the hidden 3, or the 3 face-up after
HIT_DOWN on a hidden 5, look the same) and not whether a stake came from a bet or a raise
(which decides whether a raise is still open). With ``recall=observation`` the information
state is the current observation and the legal actions: the abstraction of the project's
CFR+ (``siete_env.solve.cfr``), lossless heads-up for one hand (every order of the same cards has
the same chance probability and the same future), and one information state per row the
exact evaluator asks a policy about, which is what ``siete_env.openspiel.policy`` uses.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np
import pyspiel

from ..cards import CARD_IDS
from ..features import folded_size, suits_matter
from ..game import Status, build_actions
from ..rules import MAX_PLAYERS, Rules, is_rules_file, load_rules_file, parse_rule_value, resolve_rules
from ..table import Table as Engine
from .describe import describe
from .table import Table, engine

GAME_NAME = "python_siete_y_media"
_PARAMS = {"players": 2, "preset": "spanish", "rules": "", "banker": 0, "recall": "perfect", "suits": "auto"}
GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Siete y Media",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMS,
)


def parse_rule_options(text: str) -> dict[str, Any]:
    """``"bet_levels:[1] four_swap:off"`` -> ``{"bet_levels": [1], "four_swap": "off"}`` (each
    value read as ``evaluate.py --rule`` reads it: ``siete_env.rules.parse_rule_value``)."""
    out: dict[str, Any] = {}
    for item in text.split():
        key, sep, raw = item.partition(":")
        if not sep or not key:
            raise ValueError(f"rules parameter {text!r}: {item!r} must look like option:value (e.g. max_splits:0)")
        out[key] = parse_rule_value(key, raw)
    return out


def max_decisions(rules: Rules, n: int) -> int:
    """An upper bound on one player's decisions in an episode."""
    H = 1 + rules.splits_for(n)
    levels = len(rules.bet_levels)
    per_slot = 8 + 1 + 1 + 16 + levels + 1  # swaps or burns, ace, bet, hits and a stand, raises, split
    punter = 2 + H * per_slot  # + a bid for the bank and a side bet
    banker = 1 + 16
    return rules.hands_per_episode * max(punter, banker)


def utility_bound(rules: Rules, n: int) -> float:
    """The most chips one seat can win or lose in an episode."""
    H = 1 + rules.splits_for(n)
    mult = max(
        1,
        rules.seven_half_pays,
        rules.reale_pays or 1,
        rules.fusilar_pays,
        rules.triplee_pays,
        rules.banker_seven_half_collects,
        rules.both_seven_half_collects,
        rules.banker_reale_collects,
        rules.both_reale_collects,
    )
    per_hand = (n - 1) * H * rules.bet_levels[-1] * mult
    if rules.side_bets:
        per_hand += (n - 1) * rules.side_bet_stake * mult
    if rules.bank_auction:
        per_hand += max(rules.auction_bids)
    return float(rules.hands_per_episode * per_hand)


class Config:
    """What one parameter set fixes: rules, table, action names, observation sizes."""

    def __init__(self, params: dict[str, Any]):
        p = {**_PARAMS, **params}
        unknown = set(p) - set(_PARAMS)
        if unknown:
            raise ValueError(f"unknown parameter(s) {sorted(unknown)}; parameters: {list(_PARAMS)}")
        self.params = p
        n = int(p["players"])
        if not 2 <= n <= MAX_PLAYERS:
            raise ValueError(f"players must be 2..{MAX_PLAYERS}, got {n}")
        spec = parse_rule_options(p["rules"])
        preset = p["preset"]
        if spec:
            base = load_rules_file(preset) if is_rules_file(preset) else {"preset": preset}
            self.rules = resolve_rules({**base, **spec})
        else:
            self.rules = resolve_rules(preset)
        if self.rules.scoring != "stakes":
            raise ValueError(
                f"python_siete_y_media is the zero-sum banking game (scoring: stakes); these rules have scoring: "
                f"{self.rules.scoring} (quattro e mezzo, a general-sum points game): use siete_env.quattro.env"
            )
        self.n = n
        self.banker = int(p["banker"])
        if not -1 <= self.banker < n:
            raise ValueError(f"banker must be a seat 0..{n - 1} or -1 (drawn by chance), got {self.banker}")
        if p["recall"] not in ("perfect", "observation"):
            raise ValueError(f"recall must be 'perfect' or 'observation', got {p['recall']!r}")
        self.recall = p["recall"]
        if p["suits"] not in ("auto", "fold", "keep"):
            raise ValueError(f"suits must be 'auto', 'fold' or 'keep', got {p['suits']!r}")
        self.fold = p["suits"] == "fold" or (p["suits"] == "auto" and not suits_matter(self.rules))
        self.actions = build_actions(self.rules, n)
        self.action_names = tuple(a.name for a in self.actions)
        self.A = len(self.actions)
        self.engine = engine(self.rules, n)
        self.layout = self.engine.layout
        self.D = folded_size(self.layout) if self.fold else self.layout.size
        self.T = max_decisions(self.rules, n)
        self._texts: dict[bytes, str] = {}  # observation -> describe(observation)
        self.infostates: dict[tuple[int, bytes, tuple[int, ...]], None] = {}  # (player, observation, legal)

    def observe_raw(self, g: Engine, seat: int) -> np.ndarray:
        """``seat``'s observation vector of engine ``g``, as the PettingZoo environment gives it."""
        out = np.empty(self.layout.size, np.float32)
        g.observe(seat, out)
        return out

    def observe(self, g: Engine, seat: int) -> np.ndarray:
        """``seat``'s observation vector of engine ``g`` in this game (folded if it folds suits)."""
        out = np.empty(self.D, np.float32)
        g.observe(seat, out, self.fold)
        return out + np.float32(0.0)  # no -0.0

    def info_string(self, player: int, obs: np.ndarray, legal: list[int]) -> str:
        """The ``recall=observation`` information state: the observation and the legal actions.
        Each one made is remembered (``infostates``) for ``siete_env.openspiel.policy``."""
        self.infostates[(player, obs.tobytes(), tuple(legal))] = None
        names = " ".join(self.action_names[a] for a in legal)
        return f"p{player} {self.text(obs)} | legal {names}"

    def text(self, obs: np.ndarray) -> str:
        key = obs.tobytes()
        s = self._texts.get(key)
        if s is None:
            if len(self._texts) > 1_000_000:
                self._texts.clear()
            s = self._texts[key] = describe(obs, self.layout, self.fold, self.rules.deck)
        return s


@functools.lru_cache(maxsize=64)
def _config(key: str) -> Config:
    return Config(json.loads(key))


def config(params: dict[str, Any]) -> Config:
    return _config(json.dumps({**_PARAMS, **dict(params)}, sort_keys=True))


class SieteYMediaGame(pyspiel.Game):
    """Siete y Media for OpenSpiel (see the module docstring for the parameters)."""

    def __init__(self, params: dict[str, Any] | None = None):
        cfg = config(params or {})
        self.cfg = cfg
        rules, n = cfg.rules, cfg.n
        bound = utility_bound(rules, n)
        info = pyspiel.GameInfo(
            num_distinct_actions=cfg.A,
            max_chance_outcomes=max(40, n),
            num_players=n,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=n * cfg.T,
        )
        super().__init__(GAME_TYPE, info, cfg.params)

    def new_initial_state(self) -> SieteYMediaState:
        return SieteYMediaState(self)

    def max_chance_nodes_in_history(self) -> int:
        r = self.cfg.rules
        return 1 + r.hands_per_episode * (40 + 8 * self.cfg.n)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return Observer(self.cfg, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class SieteYMediaState(pyspiel.State):
    """A state: a ``Table`` (the engine and its history)."""

    def __init__(self, game: SieteYMediaGame):
        super().__init__(game)
        cfg = game.cfg
        self._t = Table(cfg.rules, cfg.n, cfg.banker)

    @property
    def table(self) -> Table:
        return self._t

    @property
    def engine(self) -> Engine:
        """The engine at the last completed transition (read-only use)."""
        return self._t.view()

    def current_player(self) -> int:
        p = self._t.current_player()
        if p == -1:
            return pyspiel.PlayerId.CHANCE
        if p == -4:
            return pyspiel.PlayerId.TERMINAL
        return p

    def _legal_actions(self, player: int) -> list[int]:
        if self._t.is_chance or player != self._t.current_player():
            return []
        return sorted(self._t.view().legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        outcomes = self._t.chance_outcomes()
        p = 1.0 / len(outcomes)
        return [(o, p) for o in outcomes]

    def _apply_action(self, action: int) -> None:
        if self._t.is_chance:
            self._t.apply_chance(int(action))
        else:
            self._t.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._t.banker < 0:
                return f"first banker player_{action}"
            return f"deal {CARD_IDS[action]}"
        return self.get_game().cfg.action_names[action]

    def is_terminal(self) -> bool:
        return self._t.is_terminal

    def returns(self) -> list[float]:
        t = self._t
        if not t.started:
            return [0.0] * t.n
        return [float(c) for c in t.view().chips]

    def rewards(self) -> list[float]:
        """The chips moved by the last move (a bust pays at once; the rest at settlement)."""
        return list(self._t.rewards)

    def __str__(self) -> str:
        t = self._t
        names = self.get_game().cfg.action_names
        head = f"banker {t.banker} dealt [{' '.join(CARD_IDS[c] for c in t.cards)}] actions [{' '.join(names[a] for a in t.actions)}]"
        if t.pending is not None and t.pending >= 0:
            head += f" pending {names[t.pending]}"
        if not t.started:
            return head + " (dealing)"
        g = t.view()
        rows = []
        for s in range(t.n):
            hands = []
            for h in range(g.nhands[s]):
                k = g.slot(s, h)
                cards = " ".join(CARD_IDS[c] + ("*" if c == g.hidden[k] else "") for c in g.cards[k])
                hands.append(f"[{cards}] stake {g.stake[k]} status {Status(g.status[k]).name.lower()}")
            rows.append(f"seat {s}{' banker' if s == g.banker else ''} chips {g.chips[s]}: " + "; ".join(hands))
        return head + "\n" + "\n".join(rows)


class Observer:
    """OpenSpiel's Python observer: the tensor and string of one player's view."""

    def __init__(self, cfg: Config, iig_obs_type: Any, params: Any):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError(
                "python_siete_y_media observes a player's own view (public information and its own private "
                "cards): use IIGObservationType(perfect_recall=...) with the default public_info and private_info"
            )
        self.cfg = cfg
        self.info = bool(iig_obs_type.perfect_recall)
        self.perfect = self.info and cfg.recall == "perfect"
        D, A, T = cfg.D, cfg.A, cfg.T
        pieces: list[tuple[str, tuple[int, ...]]] = [("observation", (D,))]
        if self.info and not self.perfect:
            pieces.append(("legal", (A,)))
        if self.perfect:
            pieces.append(("history", (T, D + A)))
        size = sum(int(np.prod(s)) for _, s in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, shape in pieces:
            k = int(np.prod(shape))
            self.dict[name] = self.tensor[at : at + k].reshape(shape)
            at += k

    # ------------------------------------------------------------------ pieces
    def _current(self, t: Table, player: int) -> np.ndarray | None:
        if not t.started:
            return None
        key = ("obs", len(t.actions), player)  # before a pending action: after the completed ones
        obs = t.memo.get(key)
        if obs is None:
            obs = t.memo[key] = self.cfg.observe(t.view(), player)
        return obs

    def _decisions(self, t: Table, player: int) -> list[tuple[np.ndarray, int]]:
        """(observation, action) at each of the player's completed decisions."""
        out = []
        for i, (seat, action) in enumerate(t.log):
            if seat != player:
                continue
            key = ("obs", i, player)
            obs = t.memo.get(key)
            if obs is None:
                obs = t.memo[key] = self.cfg.observe(t.at(i), player)
            out.append((obs, action))
        return out

    def _legal(self, t: Table, player: int) -> list[int]:
        if t.is_chance or t.current_player() != player:
            return []
        return sorted(t.view().legal_actions())

    # ------------------------------------------------------------------ PyObserver API
    def set_from(self, state: SieteYMediaState, player: int) -> None:
        t = state.table
        self.tensor.fill(0.0)
        obs = self._current(t, player)
        if obs is not None:
            self.dict["observation"][:] = obs
        if "legal" in self.dict:
            self.dict["legal"][self._legal(t, player)] = 1.0
        if self.perfect:
            hist = self.dict["history"]
            D = self.cfg.D
            for j, (o, a) in enumerate(self._decisions(t, player)):
                hist[j, :D] = o
                hist[j, D + a] = 1.0

    def string_from(self, state: SieteYMediaState, player: int) -> str:
        t = state.table
        obs = self._current(t, player)
        now = "dealing" if obs is None else self.cfg.text(obs)
        if not self.info:
            return f"p{player} {now}"
        names = self.cfg.action_names
        if not self.perfect:
            if obs is None:
                return f"p{player} {now} | legal"
            return self.cfg.info_string(player, obs, self._legal(t, player))
        past = [f"{self.cfg.text(o)} -> {names[a]}" for o, a in self._decisions(t, player)]
        return f"p{player} " + " || ".join([*past, "now " + now])


pyspiel.register_game(GAME_TYPE, SieteYMediaGame)
