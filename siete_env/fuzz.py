"""A fuzz campaign: random-legal play with every invariant checked at every step.

    python -m siete_env.fuzz --hands 100000 --presets all --players 2 3 5 8 12 --random-rules

For each preset it plays at least ``--hands`` hands, through PettingZoo's wrapped ``env()``
and the bare ``raw_env()`` in turn, at the table sizes of ``--players``; with
``--random-rules`` every few episodes draw a random valid combination of rule options on
the preset (combinations the ``Rules`` model or the table size refuse are skipped). Every
action is drawn uniformly from the legal ones and given as an ``int``, a numpy integer or
a 0-d array. After every step it checks:

- the banking game: the step's rewards sum to zero; the points game (``scoring: points``):
  every reward is a score of the points table (none is negative); each agent's rewards so
  far add up to its seat's chips or points (``Table.chips``), the chips sum to zero (the
  points are never negative), and ``infos[agent]["chips"]`` agrees;
- every live agent's observation is inside ``observation_space`` (only the acting agent
  has a non-zero mask) and ``state()`` inside ``state_space`` (finite);
- the acting agent's mask lists exactly ``infos[agent]["legal_actions"]`` (names, in
  action-id order), and is never empty; the others' ``legal_actions`` are empty;
- the cards are conserved (``Table.all_cards()`` is a permutation of the rules' deck);
- the episode terminates (all agents together, within a step bound), with its hands
  played (a points game to ``target_score``: a seat reached it), fewer than two seats
  able to play, or an ``instant_win``, and every agent leaves by dead steps.

It prints hands, steps and violations per preset, then the first violations with what
reproduces each one (``check_episode(rules, players, api, seed)``), and exits with 1 if
there was any. Deterministic under ``--seed`` (each preset's play depends only on the
seed and the preset: ``--workers`` plays presets in parallel with the same results); it
never touches the global ``random`` or ``numpy.random`` generators. docs/testing.md has
a long run's figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .aec import env as make_env
from .aec import raw_env
from .cards import CARD_IDS, RANK, parse_card
from .game import Phase
from .processes import die_with_parent
from .rules import MAX_PLAYERS, PRESETS, check_table, fit_overrides, resolve_rules
from .settle import RuleFacts

APIS = ("env", "raw_env")
HANDS_PER_CONFIG = 40  # hands played with one (rules, players, api) before the next draw
MAX_VIOLATIONS = 20  # a preset stops there (a broken episode may play no hand at all)

# Values a random rule combination draws from, per option (``--random-rules``).
RULE_CHOICES: dict[str, list[Any]] = {
    "deck": ["spanish", "italian", "french"],
    "remove_sotas": [False, True],
    "wild_card": [None, "12o", "7c", "1b", "10e"],
    "reshuffle": ["every_hand", "when_exhausted"],
    "four_swap": ["off", "optional", "mandatory"],
    "burn_three_four": [False, True],
    "ace_half": [False, True],
    "bet_levels": [[1], [1, 2], [1, 2, 3, 4, 5], [2, 5, 10]],
    "raise_on_draw": [False, True],
    "draw_face_down": [False, True],
    "all_face_up": [False, True],
    "reveal_seven_half": [False, True],
    "max_splits": ["auto", 0, 1, 2, 3],
    "split_any_pair": [False, True],
    "fusilar": [False, True],
    "fusilar_pays": [1, 4, 8],
    "canto": [False, True],
    "banker_must_chase": [False, True],
    "banker_policy_rule": ["free", "hit_below_6"],
    "seven_half_pays": [1, 2, 3],
    "banker_seven_half_collects": [1, 2],
    "both_seven_half_collects": [1, 4],
    "reale_pays": [None, 2, 3],
    "banker_reale_collects": [1, 2],
    "both_reale_collects": [1, 2],
    "bank_passes": ["seven_half", "reale", "never", "when_exhausted"],
    "bank_auction": [False, True],
    "auction_bids": [[1, 2, 5, 10], [1], [3, 4]],
    "triplee": [False, True],
    "triplee_pays": [2, 3],
    "side_bets": [False, True],
    "side_bet_stake": [1, 3],
    "hands_per_episode": [1, 2, 3, 6],
    "starting_chips": [None, 1, 3, 10, 30],
    # the options of the sources' readings (docs/rules.md)
    "max_face_down": [1, "all"],
    "face_down_choice": [True, False],
    "wild_whole_only": [False, True],
    "burn_drawn": [False, True],
    "triplee_wild": ["triplee", "seven_half"],
    "triplee_takes_bank": [True, False],
    "split_first_hand_only": [False, True],
}
# The points game's own options (``random_rules`` on a points preset; the banking game's
# options above that it does not play are left out: ``rules.fit_overrides``).
POINTS_CHOICES: dict[str, list[Any]] = {
    "play_to_target": [False, True],
    "target_score": [3, 10, 50],
    "more_cards_win_ties": [False, True],
    "points_otherwise": [0, 1, 2],
    "double_rank": [None, 6, 3],
    "upset": [None, [5, 4.5], [7, 7.5]],
    "bank_passes": ["winner", "never"],
    "instant_win": [None, [4.5, 9], [4.5, 3]],
}


@dataclass
class Violation:
    """A broken invariant, with what reproduces it."""

    preset: str
    rules: dict[str, Any]
    players: int
    api: str
    seed: int
    step: int
    message: str
    call: str = ""  # check_batched's further arguments (", tables=..., threads=..."), where not its defaults

    def __str__(self) -> str:
        if self.preset == "batched":  # api: the learner's role; seed: check_batched's
            return (
                f"batched view, {self.players} players, the {self.api}'s seat, seed {self.seed}, step {self.step}: "
                f'{self.message}\n    rules: {self.rules}\n    reproduce: python -c "from siete_env.fuzz import '
                f'check_batched; print(check_batched({self.rules!r}, {self.players}, {self.api!r}, {self.seed}{self.call}))"'
            )
        return (
            f"{self.preset}, {self.players} players, {self.api}(), episode seed {self.seed}, step {self.step}: "
            f'{self.message}\n    rules: {self.rules}\n    reproduce: python -c "from siete_env.fuzz import '
            f'check_episode; print(check_episode({self.rules!r}, {self.players}, {self.api!r}, {self.seed}))"'
        )


@dataclass
class Tally:
    """One preset's figures."""

    hands: int = 0
    steps: int = 0
    episodes: int = 0
    configs: int = 0
    refused: int = 0  # random rule draws the Rules model or the table size refused
    violations: list[Violation] = field(default_factory=list)


class _Broken(Exception):
    """A broken invariant inside ``check_episode`` (its message says which)."""


def _action(a: int, rng: np.random.Generator) -> Any:
    """The action id as one of the forms ``step`` takes: int, numpy integer, 0-d array."""
    k = int(rng.integers(4))
    if k == 0:
        return np.int64(a)
    if k == 1:
        return np.array(a)
    return a


def check_episode(rules: Any, num_players: int, api: str, seed: int, table: Any = None) -> tuple[int, int, list[str]]:
    """Play one random-legal episode (``reset(seed=seed)``, actions drawn from a generator
    seeded by ``seed``) checking every invariant at every step. ``table``: an environment
    of these rules and players to reuse (the same play as a fresh one). Returns (hands
    played, live steps, the broken invariants: at most one, the episode stops there)."""
    e = table if table is not None else (make_env if api == "env" else raw_env)(num_players=num_players, rules=rules)
    steps = 0
    try:
        steps = _play(e, seed)
    except _Broken as b:
        steps_done, msg = b.args
        return e.unwrapped.game.hand_no, steps_done, [msg]
    except Exception as ex:  # noqa: BLE001  (any exception is a finding)
        tb = traceback.format_exception_only(type(ex), ex)[-1].strip()
        return e.unwrapped.game.hand_no, steps, [f"exception: {tb}"]
    return e.unwrapped.game.hand_no, steps, []


def _play(e: Any, seed: int) -> int:
    raw = e.unwrapped
    e.reset(seed=seed)
    g = raw.game
    n = raw.num_players
    names = raw.action_names
    agents = list(raw.possible_agents)
    seat_of = {a: i for i, a in enumerate(agents)}
    deck = sorted(raw.rules.deck_cards())
    obs_space = e.observation_space(agents[0])
    box = obs_space["observation"]
    low, high = box.low, box.high
    state_space = raw.state_space
    rng = np.random.default_rng([seed, 1])
    totals = [0] * n
    facts = RuleFacts(raw.rules)
    points = facts.points_game
    hands = 20 * facts.target if facts.to_target else raw.rules.hands_per_episode
    bound = 200 * n * hands + 50
    steps = 0

    def broken(msg: str) -> _Broken:
        return _Broken(steps, msg)

    def check_table_state() -> None:
        if sorted(g.all_cards()) != deck:
            raise broken("cards not conserved: Table.all_cards() is not a permutation of the deck")
        chips = list(g.chips)
        if points and min(chips) < 0:
            raise broken(f"negative points: {chips}")
        if not points and sum(chips) != 0:
            raise broken(f"chips do not sum to zero: {chips}")
        if totals != chips:
            raise broken(f"rewards so far {totals} differ from the chips {chips}")
        for a, info in e.infos.items():
            if info["chips"] != chips[seat_of[a]]:
                raise broken(f"infos[{a!r}]['chips'] is {info['chips']}, the seat's chips {chips[seat_of[a]]}")
        st = e.state()
        if not state_space.contains(st) or not np.isfinite(st).all():
            raise broken("state() is outside state_space")
        live = list(e.agents)
        if live:
            acting = e.agent_selection
            obs = []
            for a in live:
                d = e.observe(a)
                o = d["observation"]
                if o.dtype != box.dtype or o.shape != box.shape:
                    raise broken(f"observation of {a} has dtype {o.dtype} and shape {o.shape}, not the space's")
                if a != acting and (d["action_mask"].any() or e.infos[a]["legal_actions"]):
                    raise broken(f"{a} has legal actions while {acting} acts")
                obs.append(o)
            stacked = np.stack(obs)
            if not ((stacked >= low).all() and (stacked <= high).all()):
                bad = [a for a, o in zip(live, obs, strict=True) if not box.contains(o)]
                raise broken(f"observations of {bad} are outside observation_space")

    check_table_state()
    while e.agents:
        agent = e.agent_selection
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            if not all(e.terminations[a] or e.truncations[a] for a in e.agents):
                raise broken(f"{agent} ended but not every agent did")
            e.step(None)
            continue
        if not obs_space.contains(obs):
            raise broken(f"the observation of {agent} (acting) is outside observation_space")
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        if not len(legal):
            raise broken(f"{agent} acts with an empty mask")
        listed = tuple(names[i] for i in legal)
        if info["legal_actions"] != listed:
            raise broken(f"infos[{agent!r}]['legal_actions'] {list(info['legal_actions'])} != the mask {list(listed)}")
        e.step(_action(int(legal[rng.integers(len(legal))]), rng))
        steps += 1
        rewards = e.rewards
        if points:
            if any(r and r not in facts.scores and g.instant < 0 for r in rewards.values()):
                raise broken(f"a step's rewards {rewards} are not scores of the points table {sorted(facts.scores)}")
        elif sum(rewards.values()) != 0:
            raise broken(f"the step's rewards sum to {sum(rewards.values())}, not 0: {rewards}")
        for a, r in rewards.items():
            totals[seat_of[a]] += r
        check_table_state()
        if steps > bound:
            raise broken(f"no termination after {bound} steps")
    if raw.game.phase != Phase.OVER:
        raise broken("every agent left but the game is not over")
    if points and (g.instant >= 0 or (facts.to_target and max(g.chips) >= facts.target)):
        return steps  # a game won
    if facts.to_target:
        raise broken(f"the game ended with {g.chips} points, none at the target {facts.target}")
    if g.hand_no != raw.rules.hands_per_episode and sum(g.active(s) for s in range(n)) >= 2:
        raise broken(f"the episode ended after {g.hand_no} of {raw.rules.hands_per_episode} hands")
    return steps


def random_rules(preset: str, rng: np.random.Generator, num_players: int) -> dict[str, Any] | None:
    """A random combination of rule options on ``preset`` (each option drawn with
    probability 0.3), or None if the ``Rules`` model or the table size refuse it."""
    spec: dict[str, Any] = {"preset": preset}
    choices = RULE_CHOICES
    if PRESETS[preset].get("scoring") == "points":
        choices = {**fit_overrides(preset, RULE_CHOICES), **POINTS_CHOICES}
    for name, values in choices.items():
        if rng.random() < 0.3:
            spec[name] = values[int(rng.integers(len(values)))]
    try:
        check_table(resolve_rules(spec), num_players)
    except ValueError:
        return None
    return spec


def campaign(
    hands: int,
    presets: list[str],
    players: list[int],
    random_rules_: bool = False,
    seed: int = 0,
    apis: tuple[str, ...] = APIS,
    progress: Any = None,
) -> dict[str, Tally]:
    """At least ``hands`` hands per preset (see the module doc). Each preset's play depends
    only on (``seed``, the preset's name) and the other arguments."""
    out: dict[str, Tally] = {}
    for preset in presets:
        t = out[preset] = Tally()
        rng = np.random.default_rng([seed, *preset.encode()])
        k = 0
        while t.hands < hands and len(t.violations) < MAX_VIOLATIONS:
            n = players[k % len(players)]
            api = apis[(k // len(players)) % len(apis)]
            k += 1
            spec: dict[str, Any] | None = {"preset": preset}
            if random_rules_:
                for _ in range(100):
                    spec = random_rules(preset, rng, n)
                    if spec is not None:
                        break
                    t.refused += 1
                if spec is None:
                    continue
            table = (make_env if api == "env" else raw_env)(num_players=n, rules=spec)
            t.configs += 1
            played = 0
            while played < HANDS_PER_CONFIG and t.hands < hands and len(t.violations) < MAX_VIOLATIONS:
                ep_seed = int(rng.integers(2**62))
                h, s, broken = check_episode(spec, n, api, ep_seed, table)
                played += max(h, 1)
                t.hands += h
                t.steps += s
                t.episodes += 1
                for msg in broken:
                    t.violations.append(Violation(preset, spec, n, api, ep_seed, s, msg))
                if broken:
                    table = (make_env if api == "env" else raw_env)(num_players=n, rules=spec)
        if progress:
            progress(preset, t)
    return out


def _worker_init(parent_pid: int) -> None:
    die_with_parent(parent_pid)  # no orphan outlives a killed campaign


def _one_preset(args: tuple) -> Tally:
    hands, preset, players, random_rules_, seed, apis = args
    return campaign(hands, [preset], players, random_rules_, seed, apis)[preset]


def run_parallel(
    hands: int,
    presets: list[str],
    players: list[int],
    random_rules_: bool,
    seed: int,
    apis: tuple[str, ...],
    workers: int,
    progress: Any = None,
) -> dict[str, Tally]:
    """``campaign``, one preset per task in ``workers`` processes (the same results)."""
    if workers <= 1 or len(presets) <= 1:
        return campaign(hands, presets, players, random_rules_, seed, apis, progress)
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    done: dict[str, Tally] = {}
    with ProcessPoolExecutor(
        min(workers, len(presets)), mp_context=mp.get_context("spawn"), initializer=_worker_init,
        initargs=(os.getpid(),),
    ) as pool:  # fmt: skip
        futures = {pool.submit(_one_preset, (hands, p, players, random_rules_, seed, apis)): p for p in presets}
        for f in as_completed(futures):
            done[futures[f]] = f.result()
            if progress:
                progress(futures[f], done[futures[f]])
    return {p: done[p] for p in presets}


# --------------------------------------------------------------------------- the batched engine
def batched_random_rules(rng: np.random.Generator, num_players: int = MAX_PLAYERS) -> dict[str, Any]:
    """A random rule set the batched engine covers (``siete_env.batched.check_rules``) at
    ``num_players`` seats."""
    r: dict[str, Any] = {"preset": "spanish"}
    if rng.random() < 0.5:
        k = int(rng.integers(1, 6))
        r["bet_levels"] = sorted(int(x) for x in rng.choice(np.arange(1, 11), size=k, replace=False))
    if rng.random() < 0.3:
        r["raise_on_draw"] = False
    if rng.random() < 0.5:
        r["max_splits"] = int(rng.integers(0, 4))
    if rng.random() < 0.4:
        r["four_swap"] = str(rng.choice(["off", "mandatory"]))
    if rng.random() < 0.3:
        r["split_any_pair"] = True
    face = rng.random()
    if face < 0.2:
        r["draw_face_down"] = False
    elif face < 0.4:
        r["all_face_up"], r["draw_face_down"] = True, False
    if rng.random() < 0.3:
        r["reveal_seven_half"] = True
    if rng.random() < 0.3:
        r["banker_policy_rule"] = "hit_below_6"
    if rng.random() < 0.3:
        r["remove_sotas"] = True
    if rng.random() < 0.4:
        r["seven_half_pays"] = int(rng.integers(1, 5))
        r["banker_seven_half_collects"] = int(rng.integers(1, 4))
        r["both_seven_half_collects"] = int(rng.integers(1, 5))
    if rng.random() < 0.3:  # the matta: any card but a sota (remove_sotas may take those out)
        r["wild_card"] = str(rng.choice([c for c in CARD_IDS if RANK[parse_card(c)] != 10]))
        if rng.random() < 0.3:
            r["wild_whole_only"] = True
    if rng.random() < 0.3:
        r["reale_pays"] = int(rng.integers(1, 4))
        r["banker_reale_collects"] = int(rng.integers(1, 4))
        r["both_reale_collects"] = int(rng.integers(1, 4))
    if rng.random() < 0.2:
        r["reshuffle"] = "when_exhausted"
    if rng.random() < 0.3:
        r["canto"] = True
    if rng.random() < 0.3:
        r["fusilar"] = True
        r["fusilar_pays"] = int(rng.integers(1, 6))
    if (r.get("canto") or r.get("fusilar")) and rng.random() < 0.6:
        r["banker_must_chase"] = True
    if rng.random() < 0.3:
        r["bank_auction"] = True
        r["auction_bids"] = sorted(
            int(x) for x in rng.choice(np.arange(1, 21), size=int(rng.integers(1, 5)), replace=False)
        )
    _hand_options(r, rng, num_players)
    return r


def _hand_options(r: dict[str, Any], rng: np.random.Generator, num_players: int) -> None:
    """The italian and old-French options of the hand, at random, where ``r`` allows them
    (they clash with some options already drawn: ``Rules`` says which)."""
    if rng.random() < 0.2:
        r["limit"] = float(rng.choice([5.5, 6.0, 6.5, 7.0, 8.0, 9.5, 15.0]))
    if r.get("max_splits", 1) > 0 and rng.random() < 0.2:
        r["split_first_hand_only"] = True
    face_down = r.get("draw_face_down", True)
    if face_down and rng.random() < 0.15:
        r["face_down_choice"] = False
    elif face_down and rng.random() < 0.15:
        r["max_face_down"] = "all"
    if rng.random() < 0.25:
        r["ace_half"] = True
    if r.get("four_swap", "optional") == "off" and rng.random() < 0.4:
        r["burn_three_four"] = True
        r["burn_drawn"] = bool(rng.random() < 0.5)
    if rng.random() < 0.25:
        r["triplee"] = True
        r["triplee_pays"] = int(rng.integers(1, 5))
        if r.get("wild_card") and not r.get("wild_whole_only") and rng.random() < 0.5:
            r["triplee_wild"] = "seven_half"
    if num_players >= 3 and rng.random() < 0.25:  # (a punter backs another punter)
        r["side_bets"] = True
        r["side_bet_stake"] = int(rng.integers(1, 4))


# deterministic heuristics (spec strings): the batched view and SeatEnv then play the same hands
BATCHED_OPPONENTS = {
    "punter": ("banker:6", "smart:6", "banker:5.5"),
    "banker": ("threshold:5", "threshold:5.5", "bold:5.5"),
}


@dataclass
class BatchedTally(Tally):
    """The batched campaign's figures: ``episodes`` compared with the reference, ``bad``
    adversarial calls by kind (each refused, or ending its episode, as it should)."""

    bad: dict[str, int] = field(default_factory=dict)


def _bad_batch(actions: np.ndarray, A: int, rng: np.random.Generator) -> tuple[str, Any]:
    """A batch of actions ``step`` must refuse: an id out of range at one table, or the
    wrong shape or type."""
    k = int(rng.integers(7))
    if k < 3:
        bad = actions.copy()
        bad[int(rng.integers(len(bad)))] = (A, -1, 2**40)[k]
        return "out of range", bad
    if k == 3:
        return "wrong shape", actions[:-1] if len(actions) > 1 else np.concatenate([actions, actions])
    if k == 4:
        return "wrong shape", actions[:, None]
    if k == 5:
        return "wrong type", actions.astype(np.float64)
    return "wrong type", actions.astype(bool)


def check_batched(
    rules: Any, num_players: int, role: str, seed: int, tables: int = 16, adversarial: float = 0.3, threads: int = 1
) -> tuple[int, int, list[str], dict[str, int]]:
    """The first episode of ``tables`` tables of ``gymnasium.make_vec``'s batched view
    (``SeatVectorEnv``) and of one reference ``SeatEnv`` each (the AEC environment: one
    table of the same kernels, its opponents the Python agents where the batched view plays
    the kernels' native heuristics; the kernels themselves are checked against the oracle by
    ``tests/batched_differential.py``), on the same stacked decks against the same
    deterministic heuristics, with the same actions: random
    legal ones, and with probability ``adversarial`` per step a batch ``step`` must refuse
    (an id out of range, the wrong shape or type: a ``ValueError`` from both, nothing
    changed) or an illegal id in range at some tables (their episodes end with
    ``illegal_reward`` and the unchanged observation, in both). After every step: the same
    rewards, terminations, observations (final ones too), masks and chips, every
    observation inside the space and every mask with a legal action. ``threads``: the
    batched view's (``SeatVectorEnv(threads=...)``). Returns (episodes compared, steps,
    violations: at most one, the run stops there, adversarial calls by kind)."""
    from .batched.vector import SeatVectorEnv
    from .cards import CARD_IDS
    from .gym_env import SeatEnv

    rng = np.random.default_rng([seed, 2])
    n = num_players
    opponents = BATCHED_OPPONENTS[role][int(rng.integers(3))]
    kw: dict[str, Any] = {"role": role, "num_players": n, "rules": rules, "opponents": opponents}
    if role == "punter":
        kw["position"] = int(rng.integers(1, n))
    bad: dict[str, int] = {}
    steps = episodes = 0
    try:
        venv = SeatVectorEnv(num_envs=tables, seed=seed, threads=threads, **kw)
        box, A = venv.single_observation_space, venv.single_action_space.n
        decks = [[CARD_IDS[c] for c in rng.permutation(venv.rules.deck_cards())] for _ in range(tables)]
        obs, infos = venv.reset(options={"decks": decks})
        envs, live = [], []
        for i in range(tables):
            e = SeatEnv(seed=i, **kw)
            o, info = e.reset(options={"deck": decks[i]})
            envs.append(e)
            if info["skipped_episodes"] or infos["skipped_episodes"][i]:
                continue  # no learner decision in that deck: each skips to a deck of its own
            if not (np.array_equal(o, obs[i]) and np.array_equal(info["action_mask"], infos["action_mask"][i])):
                return episodes, steps, [f"table {i}: the first observation differs from SeatEnv's"], bad
            live.append(i)
        while live:
            masks = infos["action_mask"]
            legal = [np.flatnonzero(m) for m in masks]
            if not all(len(x) for x in legal):
                return episodes, steps, ["a returned mask has no legal action"], bad
            actions = np.array([x[int(rng.integers(len(x)))] for x in legal], np.int64)
            if rng.random() < adversarial / 2:  # a batch step must refuse, changing nothing
                kind, batch = _bad_batch(actions, A, rng)
                before = venv.tables.state.copy()
                try:
                    venv.step(batch)
                    return episodes, steps, [f"step accepted actions it must refuse ({kind}): {batch!r}"], bad
                except ValueError:
                    pass
                if not np.array_equal(before, venv.tables.state):
                    return episodes, steps, [f"a refused step ({kind}) changed the tables"], bad
                if kind == "out of range":
                    i = int(rng.choice(live))
                    try:
                        envs[i].step(int(batch[np.flatnonzero((batch < 0) | (batch >= A))[0]]))
                        return episodes, steps, ["SeatEnv accepted an action out of range"], bad
                    except ValueError:
                        pass
                bad[kind] = bad.get(kind, 0) + 1
            elif rng.random() < adversarial:  # illegal ids in range at some live tables
                for i in live:
                    illegal = np.flatnonzero(masks[i] == 0)
                    if len(illegal) and rng.random() < 0.3:
                        actions[i] = illegal[int(rng.integers(len(illegal)))]
                        bad["illegal"] = bad.get("illegal", 0) + 1
            obs, rew, term, trunc, infos = venv.step(actions)
            if trunc.any() or not np.isfinite(rew).all():
                return episodes, steps, ["a truncation or a non-finite reward"], bad
            if not ((obs >= box.low).all() and (obs <= box.high).all()):
                return episodes, steps, ["an observation outside the observation space"], bad
            nxt = []
            for i in live:
                o, r, t, _, info = envs[i].step(int(actions[i]))
                steps += 1
                if r != rew[i] or t != term[i]:
                    return (
                        episodes,
                        steps,
                        [f"table {i}: reward {rew[i]} / terminated {term[i]}, SeatEnv {r} / {t}"],
                        bad,
                    )
                if t:
                    episodes += 1
                    if not np.array_equal(o, infos["final_obs"][i]):
                        return episodes, steps, [f"table {i}: the final observation differs from SeatEnv's"], bad
                    if "chips" in info and info["chips"] != infos["final_info"]["chips"][i]:
                        return episodes, steps, [f"table {i}: final chips differ from SeatEnv's"], bad
                else:
                    same_mask = np.array_equal(envs[i].action_masks(), np.asarray(infos["action_mask"][i]) > 0)
                    if not (np.array_equal(o, obs[i]) and same_mask):
                        return episodes, steps, [f"table {i}: the observation or mask differs from SeatEnv's"], bad
                    nxt.append(i)
            live = nxt
    except Exception as ex:  # noqa: BLE001  (any exception is a finding)
        tb = traceback.format_exception_only(type(ex), ex)[-1].strip()
        return episodes, steps, [f"exception: {tb}"], bad
    return episodes, steps, [], bad


def batched_campaign(
    hands: int,
    players: list[int],
    random_rules_: bool = False,
    seed: int = 0,
    tables: int = 16,
    presets: tuple[str, ...] = ("spanish",),
    threads: int = 1,
) -> BatchedTally:
    """At least ``hands`` first episodes through the batched view, compared with the
    reference (``check_batched``): each of ``presets`` in turn at each table size of
    ``players``, both roles in turn, or (``random_rules_``) random rule sets the batched
    engine plays; ``threads``: the batched view's."""
    t = BatchedTally()
    call = (f", tables={tables}" if tables != 16 else "") + (f", threads={threads}" if threads != 1 else "")
    rng = np.random.default_rng([seed, 3])
    k = 0
    while t.hands < hands and len(t.violations) < MAX_VIOLATIONS:
        preset = presets[k % len(presets)]
        n = players[(k // len(presets)) % len(players)]
        role = ("punter", "banker")[(k // (len(presets) * len(players))) % 2]
        k += 1
        spec = batched_random_rules(rng, n) if random_rules_ else {"preset": preset}
        run_seed = int(rng.integers(2**62))
        t.configs += 1
        done, steps, broken, bad = check_batched(spec, n, role, run_seed, tables, threads=threads)
        t.hands += done
        t.episodes += done
        t.steps += steps
        for kind, c in bad.items():
            t.bad[kind] = t.bad.get(kind, 0) + c
        for msg in broken:
            t.violations.append(Violation("batched", spec, n, role, run_seed, steps, msg, call))
    return t


def table_text(tallies: dict[str, Tally]) -> str:
    rows = [("preset", "hands", "steps", "episodes", "rule sets", "violations")]
    for p, t in tallies.items():
        rows.append((p, f"{t.hands:,}", f"{t.steps:,}", f"{t.episodes:,}", f"{t.configs:,}", f"{len(t.violations)}"))
    tot = list(tallies.values())
    rows.append(
        (
            "total",
            f"{sum(t.hands for t in tot):,}",
            f"{sum(t.steps for t in tot):,}",
            f"{sum(t.episodes for t in tot):,}",
            f"{sum(t.configs for t in tot):,}",
            f"{sum(len(t.violations) for t in tot)}",
        )
    )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m siete_env.fuzz",
        description="Random-legal play through env() and raw_env() with every invariant checked at every step.",
    )
    ap.add_argument("--hands", type=int, default=10_000, help="hands per preset (at least; default 10000)")
    ap.add_argument("--presets", nargs="+", default=["all"], help=f"'all' or some of: {', '.join(PRESETS)}")
    ap.add_argument("--players", nargs="+", type=int, default=[2, 3, 5, 8, 12], help="table sizes, 2..12")
    ap.add_argument("--random-rules", action="store_true", help="random valid rule combinations on each preset")
    ap.add_argument("--api", choices=["both", *APIS], default="both", help="which environment (default both)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=5, help="violations printed (default 5)")
    ap.add_argument("--workers", type=int, default=1, help="processes, one preset each at a time (default 1)")
    ap.add_argument(
        "--engine",
        choices=("aec", "batched"),
        default="aec",
        help="aec (default): the PettingZoo environments; batched: gymnasium.make_vec's batched view with random "
        "and adversarial actions, checked against SeatEnv, the AEC environment with Python opponents (--presets, or --random-rules)",
    )
    ap.add_argument("--tables", type=int, default=16, help="with --engine batched: tables per batch (default 16)")
    ap.add_argument(
        "--threads",
        type=int,
        default=1,
        help="with --engine batched: the batched view's threads (make_vec(..., threads=N); default 1)",
    )
    args = ap.parse_args(argv)
    if args.engine == "batched":
        return _main_batched(ap, args, argv)
    if args.tables != 16 or args.threads != 1:
        ap.error("--tables and --threads go with --engine batched")
    presets = list(PRESETS) if args.presets == ["all"] else args.presets
    unknown = [p for p in presets if p not in PRESETS]
    if unknown:
        ap.error(f"unknown preset(s) {unknown}; presets: {', '.join(PRESETS)} or 'all'")
    if any(not 2 <= n <= 12 for n in args.players):
        ap.error(f"--players must be table sizes 2..12, got {args.players}")
    if args.hands < 1 or args.seed < 0 or args.workers < 1:
        ap.error("--hands and --workers must be at least 1, --seed non-negative")
    apis = APIS if args.api == "both" else (args.api,)
    print(
        f"fuzz: {args.hands:,} hands per preset, presets {', '.join(presets)}, players {args.players}, "
        f"{'random' if args.random_rules else 'preset'} rules, {' and '.join(f'{a}()' for a in apis)}, seed {args.seed}",
        flush=True,
    )
    t0 = time.perf_counter()

    def progress(preset: str, t: Tally) -> None:
        print(
            f"  {preset}: {t.hands:,} hands, {t.steps:,} steps, {len(t.violations)} violations "
            f"({time.perf_counter() - t0:.0f} s)",
            flush=True,
        )

    tallies = run_parallel(
        args.hands, presets, args.players, args.random_rules, args.seed, apis, args.workers, progress
    )
    print(table_text(tallies))
    refused = sum(t.refused for t in tallies.values())
    if args.random_rules:
        print(f"random rule draws refused by the Rules model or the table size (skipped): {refused:,}")
    print(f"wall time {time.perf_counter() - t0:.0f} s")
    found = [v for t in tallies.values() for v in t.violations]
    for v in found[: args.show]:
        print(f"VIOLATION {v}")
    return 1 if found else 0


def _main_batched(ap: argparse.ArgumentParser, args: argparse.Namespace, argv: list[str] | None) -> int:
    presets = list(PRESETS) if args.presets == ["all"] else args.presets
    unknown = [p for p in presets if p not in PRESETS]
    if unknown:
        ap.error(f"unknown preset(s) {unknown}; presets: {', '.join(PRESETS)} or 'all'")
    if args.api != "both" or args.workers != 1:
        ap.error("--engine batched runs in one process through make_vec: --api and --workers do not go with it")
    if any(not 2 <= n <= 12 for n in args.players):
        ap.error(f"--players must be table sizes 2..12, got {args.players}")
    if args.hands < 1 or args.seed < 0 or not 1 <= args.tables <= 4096:
        ap.error("--hands must be at least 1, --seed non-negative, --tables 1..4096")
    from .batched.vector import check_threads

    try:
        check_threads(args.threads)
    except ValueError as e:
        ap.error(f"--{e}")
    print(
        f"fuzz: {args.hands:,} hands through the batched view (make_vec) against SeatEnv, players {args.players}, "
        f"{'random' if args.random_rules else ', '.join(presets)} rules, {args.tables} tables a batch"
        f"{f' on {args.threads} threads' if args.threads > 1 else ''}, seed {args.seed}",
        flush=True,
    )
    t0 = time.perf_counter()
    t = batched_campaign(args.hands, args.players, args.random_rules, args.seed, args.tables, tuple(presets),
                         args.threads)  # fmt: skip
    print(table_text({"batched": t}))
    print("adversarial calls (each refused, or ending its episode, as the reference does): "
          + (", ".join(f"{k} {v:,}" for k, v in sorted(t.bad.items())) or "none"))  # fmt: skip
    print(f"wall time {time.perf_counter() - t0:.0f} s")
    for v in t.violations[: args.show]:
        print(f"VIOLATION {v}")
    return 1 if t.violations else 0


if __name__ == "__main__":
    sys.exit(main())
