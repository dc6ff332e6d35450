"""What the exact evaluator asks of a policy.

**Policy** (required): ``action_probs(observations (N, D) float32, masks (N, A) int8) ->
(N, A)``: the probability of each action at each row, given exactly the observations and
masks the environment gives that seat (``agents.specs.make_agent(spec, env)`` builds one
from any spec). The evaluator queries it over every reachable information state in a few
large batches.

A policy may also offer shortcuts; each gives the same values as the observation path
(the tests compare them), only faster:

* ``banker_hit_probabilities(summary: BankerSummary) -> array``: for a banker whose
  decision depends on nothing but the named public summaries of ``BankerSummary`` (its
  own total; the punter hand's visible total, face-down flag, stake and whether it
  stands), its probability of hitting when hitting and standing are both legal, as an
  array that broadcasts against the summary's fields. The evaluator then reads the banker's
  whole table (~20M decisions for the full game) from those summaries instead of building
  an observation for each. The heuristic bankers of ``agents.baselines`` offer it.
* ``exact_punter_table(ev) -> (bet, draw) | None`` and ``exact_banker_table(ev) -> hit |
  None``: a policy that already is a table over the evaluator ``ev``'s states (the table
  policies of ``siete_env.solve.tables``) returns its tables, and one that can compute its
  table faster than through observations does so (a trained network,
  ``agents.learned.PPOAgent``: its banker table from the first layer's parts per view and per
  banker node); ``None``: not for this evaluator, so the generic path runs.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Policy(Protocol):
    def action_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray: ...


class BankerSummary(NamedTuple):
    """The heads-up banker's decision, summarised by the public features simple bankers
    read (``siete_env.encoding``'s hand features of the two hands in play). The fields
    broadcast against each other (e.g. ``own_total (1, n_M)`` against the punter's
    ``(n_V, 1)``)."""

    own_total: np.ndarray  # the banker's total, points
    punter_total: np.ndarray  # the punter hand's visible total, points
    punter_face_down: np.ndarray  # bool: it holds a face-down card
    punter_stake: np.ndarray  # its stake
    punter_stood: np.ndarray  # bool: it stands (the banker plays only against a standing hand)


__all__ = ["BankerSummary", "Policy"]
