"""The project's exact evaluator and CFR+ (one place, whichever module path they live at)."""

from __future__ import annotations

from types import ModuleType


def solvers() -> tuple[ModuleType, ModuleType]:
    """``(exact, cfr)``: ``siete_env.solve.exact`` / ``.cfr`` if the package has them, else
    ``siete_env.exact`` / ``siete_env.cfr``."""
    try:
        from siete_env.solve import cfr, exact  # type: ignore[attr-defined]
    except ImportError:
        from siete_env import cfr, exact
    return exact, cfr
