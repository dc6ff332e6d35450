"""A training run's folder: its state (``state.json``, read and written as ``RunState``),
its lock, and the specs of its policies.

``state.json`` holds the run's progress: the generations done, the snapshots saved (paths
relative to the run folder), the learners' steps and seconds, the opponent pools, the
learning curves, the exact NashConv per generation, the final choice. ``--resume`` reads it
back; ``evaluate.py --run`` reads it to re-make the report.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from agents.specs import AgentSpec

ROLES = ("punter", "banker")
STATE_FILE = "state.json"
FINAL_TABLES = "final.npz"  # a run's final mixture (evaluation.select: mixture)


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically: an interruption never leaves half a file."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str))
    tmp.replace(path)


@dataclass
class FinalMixture:
    """``evaluation.select: mixture``: the least exploitable mixture of the snapshots."""

    spec: str  # "table:final.npz" (relative to the run folder)
    nash_conv: float
    ev: float
    weights: dict[str, dict[str, float]]  # per role: snapshot -> weight
    seconds: float


@dataclass
class RunState:
    """The progress of a run (``state.json``; the JSON keys are the field names)."""

    generation: int = 0
    punter_snapshots: list[str] = field(default_factory=list)  # "gen_001/punter.zip", ...
    banker_snapshots: list[str] = field(default_factory=list)
    learn_seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(ROLES, 0.0))
    learn_steps: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ROLES, 0))
    learn_wall_seconds: float = 0.0
    wall_seconds: float = 0.0  # the whole training so far (learning, evaluations, exact measures)
    pools: list[dict[str, dict[str, float]]] = field(default_factory=list)  # per generation: role -> spec -> weight
    curves: dict[str, list[Any]] = field(default_factory=lambda: {"generation": []})
    nash_conv: list[dict[str, float]] = field(default_factory=list)  # per generation, exact
    last_results: dict[str, dict[str, float]] = field(default_factory=dict)  # per role: opponent -> mean
    exact_note: str | None = None  # why the exact evaluation was not made
    selected: dict[str, int] = field(default_factory=dict)  # per role: the generation chosen
    final: FinalMixture | None = None

    def snapshots(self, role: str) -> list[str]:
        return self.punter_snapshots if role == "punter" else self.banker_snapshots

    def snapshot_spec(self, run_dir: Path, role: str, index: int = -1, sample: bool = False) -> AgentSpec:
        """The model of one of ``role``'s snapshots (default: the newest), greedy or
        (``sample``: the config's ``opponents.sample``) sampling."""
        return AgentSpec.model(run_dir / self.snapshots(role)[index], sample)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunState:
        known = {f.name for f in fields(cls)}
        state = cls(**{k: v for k, v in data.items() if k in known and k != "final"})
        if data.get("final"):
            state.final = FinalMixture(**data["final"])
        return state

    @classmethod
    def load(cls, run_dir: Path) -> RunState:
        return cls.from_json(json.loads((run_dir / STATE_FILE).read_text()))

    def save(self, run_dir: Path) -> None:
        write_json(run_dir / STATE_FILE, self.to_json())


def final_specs(run_dir: Path, state: RunState, sample: bool = False) -> tuple[str, str]:
    """The agent specs of a run's final punter and banker: its mixture of snapshots
    (``evaluation.select: mixture``; one table file plays both seats) or its two models
    (greedy, or sampling: ``opponents.sample``)."""
    if state.final and (run_dir / FINAL_TABLES).is_file():
        spec = str(AgentSpec.tables(run_dir / FINAL_TABLES))
        return spec, spec
    return str(AgentSpec.model(run_dir / "punter.zip", sample)), str(AgentSpec.model(run_dir / "banker.zip", sample))


# --------------------------------------------------------------------------- the run folder's lock
LOCK_WAIT = 10.0  # seconds a run waits for the learners of an earlier (killed) run to end
_HELD: dict[str, Any] = {}  # run folders this process holds: resolved path -> [lock file, depth]


def _flock(f, mode: int) -> bool:
    """``flock`` without blocking: whether it was granted (always, where there is no fcntl)."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: no lock
        return True
    try:
        fcntl.flock(f, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def lock_run_dir(run_dir: Path, wait: float | None = None) -> Iterator[None]:
    """Hold a run folder for this process (re-entrant): ``.lock``, exclusively; another
    process holding it is refused with a ``ValueError`` naming its pid. A run also waits up
    to ``wait`` seconds (default ``LOCK_WAIT``) for learner processes of an earlier run of
    the folder (one killed a moment ago) to end: each learner holds ``.learners.lock``,
    shared, for its whole life. So a resume never races a previous run's learners."""
    import fcntl

    key = str(Path(run_dir).resolve())
    if key in _HELD:
        _HELD[key][1] += 1
        try:
            yield
        finally:
            _HELD[key][1] -= 1
        return
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    f = open(run_dir / ".lock", "a+")  # held until the end of the run
    try:
        if not _flock(f, fcntl.LOCK_EX):
            f.seek(0)
            pid = f.read().strip() or "unknown"
            raise ValueError(
                f"run folder {run_dir} is in use by another training process (pid {pid}); "
                "wait for it to end, or use another run folder"
            )
        f.seek(0)
        f.truncate()
        f.write(f"{os.getpid()}\n")
        f.flush()
        wait = LOCK_WAIT if wait is None else wait
        with open(run_dir / ".learners.lock", "a") as g:
            deadline = time.monotonic() + wait
            while not _flock(g, fcntl.LOCK_EX):  # released again when g closes
                if time.monotonic() >= deadline:
                    raise ValueError(
                        f"run folder {run_dir}: learner processes of an earlier run still hold it after {wait:g} s "
                        f"(they hold {run_dir / '.learners.lock'}); end them and try again"
                    )
                time.sleep(0.05)
        _HELD[key] = [f, 1]
        yield
    finally:
        _HELD.pop(key, None)
        f.close()  # releases the lock


def hold_as_learner(run_dir: str):
    """A learner's share of its run folder (``.learners.lock``), for its whole life."""
    f = open(Path(run_dir) / ".learners.lock", "a")
    try:
        import fcntl

        fcntl.flock(f, fcntl.LOCK_SH)
    except ImportError:
        pass
    return f


__all__ = [
    "FINAL_TABLES",
    "LOCK_WAIT",
    "ROLES",
    "FinalMixture",
    "RunState",
    "final_specs",
    "hold_as_learner",
    "lock_run_dir",
    "write_json",
]
