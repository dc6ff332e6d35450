"""The learner seam: what the run driver (``training.driver``) asks of a learner.

A learner plays the generations; the driver owns the run around them (the run folder's
state, the exact measures, the final mixture, the report). The driver calls:

* ``start()``: the learner's processes start, each from its role's newest snapshot in
  the state (a resumed run goes on from there);
* ``generation(gen, state)``: play generation ``gen``; an iterator of the ``Snapshots``
  the learner saves, in order: any taken within the generation, then the generation's
  own (``iteration`` None), always last. The learner reads ``state`` (the snapshots and
  results so far) and never writes it; the driver records each ``Snapshots`` and measures
  it before asking for the next;
* ``stop()``: the processes end (also after an error or Ctrl-C).

The learner behind it: the vine learner (``training.vine_run.VineLearner``); the driver's
``make_learner`` makes it. (The pools learner, MaskablePPO against pools of opponents, was
the other until it was deleted: docs/experiments.md#the-pools-learner.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from training.runs import RunState

__all__ = ["Learner", "Snapshots"]


@dataclass
class Snapshots:
    """Weights a learner saved, one file per role (relative to the run folder), and what
    the learning cost since the learner's previous ``Snapshots``."""

    generation: int
    paths: dict[str, str]
    iteration: int | None = None  # taken after this iteration within the generation; None: the generation's own
    steps: dict[str, int] = field(default_factory=dict)  # env steps played, by role
    seconds: dict[str, float] = field(default_factory=dict)  # each role's own learning seconds
    wall_seconds: float = 0.0  # wall-clock seconds of learning (both roles)


class Learner(Protocol):
    def start(self) -> None: ...

    def generation(self, gen: int, state: RunState) -> Iterator[Snapshots]: ...

    def stop(self) -> None: ...
