"""Which pair ends a run without an exact measure (``evaluation.select: one_step``): the
pair of the last generations whose larger one-step gain is least.

The last generation's pair of the game with splits is a draw from a swinging process: a
punter responder gained +0.05 to +0.33 chips a hand against it from run to run, with the
same recipe (docs/experiments.md). A learned best response per candidate costs 5 minutes
a seat; this measure costs seconds. For a pair, each role's decisions are branched over
their legal actions on the batched engine (``training.vine.VineSampler``, the learners'
own sampler) in two independent batches, each merged per distinct observation. At every
observation seen at least ``LEAST`` times in one batch, that batch's best action (its mean
played values) is scored in the other batch: its played value minus the policy's
expected one, weighted by the observation's count there; summed, divided by the hands and
by the punter seats, both directions averaged. Choosing in one batch and scoring in the
other removes the upward bias of a maximum of noisy values, and the threshold keeps the
observations whose choice the data can make: it is what one deviation at a time gains
where the data are thick, not a best response. It ranked the last pairs of seven runs of
the game with splits nearly as their 5-minute learned responders did, and tells a bad swing
from a good pair; among pairs within a few hundredths it chooses by noise (measured:
docs/experiments.md#choosing-the-final-pair-by-its-one-step-gains-evaluationselect-one_step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

HANDS = 40_000  # hands per batch (two batches a role)
LEAST = 30  # the least count of an observation whose choice counts


@dataclass
class OneStep:
    """A pair's one-step gains, chips a hand per punter: a punter's (against the banker)
    and the bank's (against the punters)."""

    punter: float
    banker: float


def _rows(batch) -> dict[bytes, tuple]:
    w = batch.weight if batch.weight is not None else np.ones(len(batch))
    return {
        o.tobytes() + m.tobytes(): (batch.q[i], batch.probs[i], batch.masks[i] > 0, w[i])
        for i, (o, m) in enumerate(zip(batch.obs, batch.masks, strict=True))
    }


def _cross(choose: dict, score: dict, least: float) -> float:
    total = 0.0
    for key, (q, _p, legal, w) in choose.items():
        if w < least or key not in score:
            continue
        a = int(np.argmax(np.where(legal, q, -np.inf)))
        q2, p2, _, w2 = score[key]
        total += w2 * (q2[a] - (p2 * q2).sum())
    return total


def one_step_gains(
    rules: Any,
    num_players: int,
    punter: Any,
    banker: Any,
    seed: int,
    hands: int = HANDS,
    least: float = LEAST,
    tables: int | None = None,
) -> OneStep:
    """``punter`` (at every punter seat) and ``banker``: players of ``VineSampler.seats``
    (actor networks, ``Frozen`` agents). Deterministic under ``seed``. ``tables``: the
    sampler's size (a run's ``vine.tables``; by default ``VineConfig``'s)."""
    from training.config import VineConfig
    from training.vine import BANKER, PUNTER, VineSampler

    if tables is None:
        tables = VineConfig.model_fields["tables"].default

    gains = []
    for role in (PUNTER, BANKER):
        a, b = (
            _rows(s.sample(hands, s.seats(punter, banker), s.record(role), True))
            for s in (VineSampler(rules, tables, seed + 2 * role + k, num_players) for k in (0, 1))
        )
        gains.append(float(0.5 * (_cross(a, b, least) + _cross(b, a, least)) / hands / (num_players - 1)))
    return OneStep(*gains)


def chosen(candidates: list[dict[str, float]]) -> dict[str, float]:
    """Of candidates ``{"generation", "punter", "banker"}`` (``RunState.one_step``), the one
    whose larger gain is least (the later generation on a tie)."""
    return min(candidates, key=lambda c: (max(c["punter"], c["banker"]), -c["generation"]))


def describe(candidates: list[dict[str, float]]) -> str:
    """The candidates' gains in words: ``generation 4 +0.0350 / +0.0071, ...`` (a punter's /
    the bank's), for the run's output and its report."""
    return ", ".join(f"generation {c['generation']} {c['punter']:+.4f} / {c['banker']:+.4f}" for c in candidates)
