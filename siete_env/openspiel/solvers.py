"""The project's exact evaluator and CFR+ for the OpenSpiel code (the one place it imports
them): ``siete_env.solve``'s public API and its ``cfr`` module."""

from __future__ import annotations

from types import ModuleType

from .. import solve


def solvers() -> tuple[ModuleType, ModuleType]:
    """``(solve, cfr)``: ``siete_env.solve`` (``expected_value``, ``nash_conv``,
    ``best_response``, ...) and ``siete_env.solve.cfr`` (``CFRPlus``, ``solve``)."""
    return solve, solve.cfr
