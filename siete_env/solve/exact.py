"""Exact values of heads-up policy pairs: expected value, best responses, NashConv.

Everything is computed per hand, in chips won by the **punter** (the banker's are the
negative), with the banker at seat 0 and the punter at seat 1 of a ``raw_env(num_players=2,
rules=...)`` table. ``rules`` is anything ``raw_env`` accepts that ``check_rules`` covers,
or an ``ExactEvaluator`` (reused: its enumeration is built once per rule set).

The punter's side is walked forward (the reach of every stood hand under its policy,
``siete_env.solve.punter``) and the banker's backward (the values of the stood hands
against a banker policy or its best response, ``siete_env.solve.banker``); a value is the
reach times the stood values, plus the busts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import banker as banker_side
from . import punter as punter_side
from .evaluator import as_evaluator
from .policy import Policy
from .results import BestResponse, NashConv, PairEvaluation
from .tables import TabularBankerPolicy, TabularPunterPolicy


def expected_value(punter: Policy, banker: Policy, rules: Any = "spanish") -> float:
    """The punter's exact expected chips per hand (the banker's is the negative)."""
    ev = as_evaluator(rules)
    W, bust = ev.punter_forward(*ev.punter_table(punter))
    G = banker_side.policy_values(ev, ev.banker_table(banker))
    return stood_value(W, bust, G)


def best_response(policy: Policy, against: str, rules: Any = "spanish") -> BestResponse:
    """The exact best response to ``policy`` playing the role ``against``: with
    ``against="banker"`` the punter's best response to that banker, with
    ``against="punter"`` the banker's best response to that punter."""
    ev = as_evaluator(rules)
    if against == "banker":
        G = banker_side.policy_values(ev, ev.banker_table(policy))
        value, bact, dact = punter_side.best_response(ev, G)
        return BestResponse("punter", value, TabularPunterPolicy(ev, bact, dact))
    if against == "punter":
        W, bust = ev.punter_forward(*ev.punter_table(policy))
        G_br, br_hit = banker_side.best_response_values(ev, W)
        return BestResponse("banker", -stood_value(W, bust, G_br), TabularBankerPolicy(ev, br_hit))
    raise ValueError(f"against must be 'punter' or 'banker', got {against!r}")


def evaluate_pair(punter: Policy, banker: Policy, rules: Any = "spanish") -> PairEvaluation:
    """EV of the pair, both best responses and NashConv, each policy queried once."""
    ev = as_evaluator(rules)
    bet, draw = ev.punter_table(punter)
    W, bust = ev.punter_forward(bet, draw)
    hit = ev.banker_table(banker)
    G_pol, G_br, br_hit = ev.banker_pass(hit, W)
    assert G_pol is not None and G_br is not None and br_hit is not None
    value = stood_value(W, bust, G_pol)
    p_br, br_bet, br_draw = punter_side.best_response(ev, G_pol)
    b_br = -stood_value(W, bust, G_br)
    return PairEvaluation(NashConv.of(value, p_br, b_br), W, bust, G_pol, hit, br_hit, br_bet, br_draw, bet, draw)


def nash_conv(punter: Policy, banker: Policy, rules: Any = "spanish") -> NashConv:
    """EV of the pair, both best-response values and NashConv (each policy queried once)."""
    return evaluate_pair(punter, banker, rules).result


def stood_value(W: np.ndarray, bust: float, G: np.ndarray) -> float:
    """A punter's value from its stood reach ``W``, its bust losses and the stood values ``G``."""
    return float((W * G).sum() + bust)


__all__ = ["best_response", "evaluate_pair", "expected_value", "nash_conv", "stood_value"]
