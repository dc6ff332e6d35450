"""Head-to-head matches and round-robin tournaments between agent specs.

A **match** puts one agent in the bank (seat 0 when every episode starts) and punter
agents in the other seats, and plays ``hands`` hands. The result per seat is its mean
chips per hand with a 95% confidence interval (normal approximation over episodes:
``mean ± 1.96·sd/√episodes``). Punters' results are also pooled ("the punter": the mean
over the punter seats, per episode).

Every match with the same ``seed`` is dealt the same sequence of decks (each hand takes
one fresh permutation from the table's seeded generator, whatever is drawn from it), so
the pairings of a tournament are compared on common cards; random agents have their own
generators, seeded from ``seed`` too.

The loop drives the engine of a ``raw_env`` directly (``observe`` → agent → ``apply``),
the same calls ``env()`` makes without its bookkeeping; a test checks that a match gives
exactly the chips of the same hands played through the AEC API. Where the batched engine
plays the rules (``siete_env.batched``) and no recorder is given, a match is played
through it instead (``agents.batched_play``: agents queried in batch, hand ``i`` dealt a
deck that depends on ``(seed, i)`` only), which agrees with the loop in distribution;
``engine="aec"`` keeps the loop.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from siete_env import raw_env
from siete_env.game import Phase
from siete_env.processes import die_with_parent

from .specs import make_agent

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """A mean chips-per-hand figure with its 95% confidence interval half-width."""

    mean: float
    ci95: float
    sd: float
    n: int

    @classmethod
    def of(cls, values: np.ndarray) -> Estimate:
        n = len(values)
        sd = float(values.std(ddof=1)) if n > 1 else math.inf
        return cls(float(values.mean()), Z95 * sd / math.sqrt(n) if n > 1 else math.inf, sd, n)

    @property
    def low(self) -> float:
        return self.mean - self.ci95

    @property
    def high(self) -> float:
        return self.mean + self.ci95

    def __str__(self) -> str:
        return f"{self.mean:+.4f} ± {self.ci95:.4f}"


@dataclass
class MatchResult:
    """The result of one match (``banker`` against ``punters``)."""

    banker: str
    punters: tuple[str, ...]
    rules: str
    num_players: int
    hands: int
    seed: int
    seats: list[Estimate]
    punter: Estimate
    banker_result: Estimate
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["punters"] = list(self.punters)
        return d


Recorder = Callable[[int, dict, int], None]


def _rules_label(rules: Any) -> str:
    """``"spanish"``, or the preset and its overrides: ``"spanish max_splits=0"``."""
    if isinstance(rules, str):
        return rules
    if isinstance(rules, dict):
        extra = " ".join(f"{k}={v}" for k, v in rules.items() if k != "preset")
        return f"{rules.get('preset', 'spanish')} {extra}".strip()
    return getattr(rules, "preset", "custom")


def _name(spec: Any) -> str:
    return spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)


def play_match(
    banker: Any,
    punters: Any,
    rules: Any = "spanish",
    num_players: int = 2,
    hands: int = 200_000,
    seed: int = 0,
    recorder: Recorder | None = None,
    engine: str = "auto",
) -> MatchResult:
    """Play ``hands`` hands with ``banker`` in the bank at the start of every episode and
    ``punters`` (one spec for every punter seat, or a list, one per seat 1..n-1).

    ``recorder(seat, obs_dict, action)``, if given, is called at every decision.
    ``engine``: ``"batched"`` plays the hands through the batched engine with batched
    policy inference (``agents.batched_play``), ``"aec"`` one decision at a time through
    the AEC engine; ``"auto"`` (default) is batched when the batched engine plays these
    rules and no recorder is given. Both deal every pairing with the same ``seed`` the
    same decks (each its own sequence: the results agree in distribution)."""
    import time

    t0 = time.perf_counter()
    chips, hpe, used, punter_specs = match_chips(banker, punters, rules, num_players, hands, seed, recorder, engine)
    return _result(banker, punter_specs, rules, chips.shape[1], len(chips), hpe, seed, chips, t0, used)


def match_chips(
    banker: Any,
    punters: Any,
    rules: Any = "spanish",
    num_players: int = 2,
    hands: int = 200_000,
    seed: int = 0,
    recorder: Recorder | None = None,
    engine: str = "auto",
) -> tuple[np.ndarray, int, str, list[Any]]:
    """``play_match``'s hands, unsummarised: ``(chips, hands_per_episode, engine,
    punter_specs)`` with ``chips`` the ``(episodes, n)`` chips of each seat per episode.
    Two calls with the same ``seed`` and ``engine`` deal the same decks, whoever plays
    (paired comparisons: ``training.exploit``)."""
    e = raw_env(num_players=num_players, rules=rules)
    n = e.num_players
    punter_specs = [punters] * (n - 1) if isinstance(punters, str) or callable(punters) else list(punters)
    if len(punter_specs) != n - 1:
        raise ValueError(f"{n - 1} punter seats but {len(punter_specs)} punter specs were given")
    specs = [banker, *punter_specs]
    seeds = np.random.SeedSequence(seed).spawn(n + 1)
    agents = [make_agent(s, e, seed=int(seeds[i + 1].generate_state(1)[0])) for i, s in enumerate(specs)]
    hpe = e.rules.hands_per_episode
    episodes = max(1, math.ceil(hands / hpe))
    chips = np.zeros((episodes, n))
    g = e.game
    names = e.possible_agents
    observe = e.observe
    table_seed = int(seeds[0].generate_state(1)[0])
    if engine not in ("auto", "aec", "batched"):
        raise ValueError(f"engine must be 'auto', 'aec' or 'batched', got {engine!r}")
    if engine == "batched" or (engine == "auto" and recorder is None and _batched_plays(e.rules, n)):
        if recorder is not None:
            raise ValueError("a recorder needs engine='aec' (the batched engine does not call it)")
        from .batched_play import play_chips

        return play_chips(agents, e.rules, n, episodes, seed, table_seed=table_seed), hpe, "batched", punter_specs
    over = int(Phase.OVER)
    for ep in range(episodes):
        e.reset(seed=table_seed if ep == 0 else None, options={"banker": 0})
        while g.phase != over:
            s = g.seat
            obs = observe(names[s])
            a = agents[s](obs)
            if recorder is not None:
                recorder(s, obs, a)
            g.apply(a)
        chips[ep] = g.chips
    return chips, hpe, "aec", punter_specs


def _batched_plays(rules: Any, n: int) -> bool:
    """Whether the batched engine plays these rules (and numba is there)."""
    try:
        from siete_env.batched import supported
    except ImportError:
        return False
    return supported(rules, n)


def _result(banker, punter_specs, rules, n, episodes, hpe, seed, chips, t0, engine) -> MatchResult:
    import time

    per_hand = chips / hpe
    seats = [Estimate.of(per_hand[:, s]) for s in range(n)]
    return MatchResult(
        banker=_name(banker),
        punters=tuple(_name(p) for p in punter_specs),
        rules=_rules_label(rules),
        num_players=n,
        hands=episodes * hpe,
        seed=seed,
        seats=seats,
        punter=Estimate.of(per_hand[:, 1:].mean(axis=1)),
        banker_result=seats[0],
        seconds=time.perf_counter() - t0,
        extra={"engine": engine},
    )


def _play(kwargs: dict[str, Any]) -> MatchResult:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    try:  # a worker process: one thread for numpy/torch
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    return play_match(**kwargs)


def play_matches(
    jobs: Sequence[dict[str, Any]], workers: int = 1, progress: Callable | None = None
) -> list[MatchResult]:
    """Play several matches (keyword arguments of ``play_match`` each), in ``workers``
    processes. Results come back in the order of ``jobs``. Specs must be strings when
    ``workers > 1``."""
    results: list[MatchResult | None] = [None] * len(jobs)
    if workers <= 1 or len(jobs) <= 1:
        for i, job in enumerate(jobs):
            results[i] = play_match(**job)
            if progress:
                progress(results[i])
        return results  # type: ignore[return-value]
    import multiprocessing as mp

    workers = min(workers, len(jobs), os.cpu_count() or 1)
    # Longest jobs first: a match's cost grows with its hands.
    order = sorted(range(len(jobs)), key=lambda i: -jobs[i].get("hands", 200_000))
    # spawn: fresh interpreters (the caller may have torch loaded; a fork would copy it)
    with mp.get_context("spawn").Pool(workers, initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
        for i, res in zip(order, pool.imap(_play, [jobs[i] for i in order]), strict=True):
            results[i] = res
            if progress:
                progress(res)
    return results  # type: ignore[return-value]


@dataclass
class Tournament:
    """Every punter spec against every banker spec (a round robin by role)."""

    punters: list[str]
    bankers: list[str]
    results: dict[tuple[str, str], MatchResult]

    def punter_worst(self, punter: str) -> MatchResult:
        """The punter's worst match (lowest mean) over the bankers."""
        played = [self.results[(punter, b)] for b in self.bankers if (punter, b) in self.results]
        return min(played, key=lambda r: r.punter.mean)

    def banker_worst(self, banker: str) -> MatchResult:
        """The banker's worst match over the punters."""
        played = [self.results[(p, banker)] for p in self.punters if (p, banker) in self.results]
        return min(played, key=lambda r: r.banker_result.mean)

    def to_dict(self) -> dict[str, Any]:
        return {
            "punters": self.punters,
            "bankers": self.bankers,
            "matches": [r.to_dict() for r in self.results.values()],
        }


def round_robin(
    punters: Sequence[str],
    bankers: Sequence[str],
    rules: Any = "spanish",
    num_players: int = 2,
    hands: int = 200_000,
    seed: int = 0,
    workers: int = 1,
    progress: Callable | None = None,
    skip: Callable[[str, str], bool] | None = None,
) -> Tournament:
    """Every punter against every banker (``skip(punter, banker)`` leaves pairs out)."""
    pairs = [(p, b) for p in punters for b in bankers if not (skip and skip(p, b))]
    jobs = [
        {"banker": b, "punters": p, "rules": rules, "num_players": num_players, "hands": hands, "seed": seed}
        for p, b in pairs
    ]
    res = play_matches(jobs, workers=workers, progress=progress)
    return Tournament(list(punters), list(bankers), dict(zip(pairs, res, strict=True)))
