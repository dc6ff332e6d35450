"""Reference equilibria (``reference.json`` beside this module): for the rule sets the
exact evaluator covers and a DCFR run has solved, the game value for the punter, its
bounds (what each side of the solver's average guarantees), and the solver's NashConv
against wall-clock seconds. A training report measures its final pair against them.

``reference(rules)`` is the entry for those rules (compared as resolved ``Rules``), or
``None``. Each entry names the command and the commit that measured it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..rules import resolve_rules

__all__ = ["Reference", "reference"]

_FILE = Path(__file__).with_name("reference.json")


@dataclass(frozen=True)
class Reference:
    name: str
    rules: dict[str, Any]
    value: float  # the game value for the punter, chips per hand
    value_low: float
    value_high: float
    nash_conv: float  # the solver's NashConv at the end of its run
    method: str
    command: str
    measured_on: str
    history: dict[str, list[float]] | None  # iteration, seconds, nash_conv

    def distance(self, ev: float) -> float:
        """How far a pair's value ``ev`` (for the punter) is from the game value."""
        return abs(ev - self.value)


@cache
def _entries() -> tuple[Reference, ...]:
    data = json.loads(_FILE.read_text())
    return tuple(Reference(**e) for e in data["equilibria"])


def reference(rules: Any) -> Reference | None:
    """The reference equilibrium of ``rules`` (anything ``raw_env`` accepts), or ``None``."""
    r = resolve_rules(rules)
    for e in _entries():
        if resolve_rules(e.rules) == r:
            return e
    return None
