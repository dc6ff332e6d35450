"""Exact analysis of heads-up Siete y Media, beside the environment (it depends on the
environment, never the other way): exact values, best responses, NashConv, CFR+
equilibria and mixtures of policies.

Coverage (anything else raises ``ValueError``; ``check_rules``):

* the ``spanish`` preset without splits (``max_splits`` must resolve to 0: the default
  ``spanish`` preset has 3 heads-up), with any ``bet_levels`` and ``raise_on_draw``;
* ``four_swap`` ``off`` / ``optional`` / ``mandatory``, exactly: a swapped 4 goes back
  where the engine puts it (``hand.swap_return_position``: heads-up always absolute deck
  position ``21 + j`` for the ``j``-th swap); those positions are dealt the 4s, every
  other position is drawn without replacement from the cards nobody has seen;
* the payout options ``seven_half_pays``, ``banker_seven_half_collects``,
  ``both_seven_half_collects`` (any values; ``game.Payouts``);
* ``banker_policy_rule: hit_below_6``: the banker's moves are forced, so its best
  response is that forced play and NashConv is the punter's gain alone.

Not covered: splits, and every option that changes what is hidden or how hands are
valued (wild card, reale, fusilar, canto, face-up variants, shoe, ...).

Public API (all values in chips per hand, the punter's unless said)::

    expected_value(punter, banker, rules) -> float
    best_response(policy, against="banker"|"punter", rules) -> BestResponse
        # against="banker": the punter's best response to that banker; "punter": the
        # banker's to that punter. .value = the responder's own EV, .policy = a table
        # agent (action_probs / __call__) that plays it.
    nash_conv(punter, banker, rules) -> NashConv(ev, punter_br_value, banker_br_value,
                                                  nash_conv, exploitability)
    evaluate_pair(punter, banker, rules) -> PairEvaluation   # all of it, and the tables
    check_rules(rules) -> Rules                                # ValueError if not covered
    evaluator(rules) -> ExactEvaluator                         # cached; pass it as rules=
    cfr.solve(rules, iterations) -> CFRSolution                # a CFR+ equilibrium
    mixture.Population(rules)                                  # mixtures of policies
    load_tables(path) -> PolicyTables                          # a saved table pair

A policy is anything with ``action_probs`` (``siete_env.solve.policy.Policy``; e.g.
``agents.specs.make_agent(spec, env)``); ``rules`` is anything ``raw_env`` accepts, or an
``ExactEvaluator``. How long each takes: docs/results.md.

Modules: ``states`` (the enumeration), ``observations`` (the observations and masks shown
to policies, and table states read back), ``punter`` and ``banker`` (the two sides'
passes), ``evaluator`` (``ExactEvaluator``: policies' tables), ``exact`` (the API above),
``tables`` (table policies and their file format), ``cfr``, ``mixture``.
"""

from __future__ import annotations

from . import cfr, mixture
from .evaluator import ExactEvaluator, as_evaluator, evaluator
from .exact import best_response, evaluate_pair, expected_value, nash_conv
from .policy import BankerSummary, Policy
from .results import BestResponse, NashConv, PairEvaluation
from .states import check_rules
from .tables import (
    BestResponseTables,
    CFRSolution,
    MixtureTables,
    PolicyTables,
    TablePairAgent,
    TabularBankerPolicy,
    TabularPunterPolicy,
)
from .tables import load as load_tables

__all__ = [
    "BankerSummary",
    "BestResponse",
    "BestResponseTables",
    "CFRSolution",
    "ExactEvaluator",
    "MixtureTables",
    "NashConv",
    "PairEvaluation",
    "Policy",
    "PolicyTables",
    "TablePairAgent",
    "TabularBankerPolicy",
    "TabularPunterPolicy",
    "as_evaluator",
    "best_response",
    "cfr",
    "check_rules",
    "evaluate_pair",
    "evaluator",
    "expected_value",
    "load_tables",
    "mixture",
    "nash_conv",
]
