"""A training run's folder: its state (``state.json``, read and written as ``RunState``),
its lock, and the specs of its policies.

``state.json`` holds the run's progress: the generations done, the snapshots saved (paths
relative to the run folder), the learners' steps and seconds, the
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
from typing import TYPE_CHECKING, Any
from unittest import mock

from agents.specs import AgentSpec
from siete_env.rules import cut

if TYPE_CHECKING:
    from training.config import TrainConfig

ROLES = ("punter", "banker")
STATE_FILE = "state.json"
FINAL_TABLES = "final.npz"  # a run's final mixture (evaluation.select: mixture)


def json_text(data: Any) -> str:
    """``data`` as the JSON the tools write (indented; anything else as its string)."""
    return json.dumps(data, indent=2, default=str)


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (``training.outputs.write_atomic``): an interruption never
    leaves half a file."""
    from .outputs import write_atomic

    write_atomic(path, json_text(data))


def iterate_snapshot(gen: int, it: int, role: str) -> str:
    """Where a snapshot taken after iteration ``it`` of generation ``gen`` is saved
    (``vine.snapshot_every``), relative to the run folder."""
    return f"gen_{gen:03d}/{role}_it{it:03d}.zip"


def heaviest_member(weights: dict[str, float]) -> str:
    """The snapshot with the largest weight in one role's mixture weights (``FinalMixture.weights[role]``):
    the final mixture's member saved as ``{role}.zip``."""
    return max(weights.items(), key=lambda kv: kv[1])[0]


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
    curves: dict[str, list[Any]] = field(default_factory=lambda: {"generation": []})
    nash_conv: list[dict[str, float]] = field(default_factory=list)  # per generation, exact
    exact_note: str | None = None  # why the exact evaluation was not made
    selected: dict[str, int] = field(default_factory=dict)  # per role: the generation chosen
    final: FinalMixture | None = None
    # snapshots within generations (vine.snapshot_every): generation, iteration, both files, their exact measure
    iterates: list[dict[str, Any]] = field(default_factory=list)
    # evaluation.select: one_step: per candidate generation, its pair's one-step gains (training.selection)
    one_step: list[dict[str, float]] = field(default_factory=list)

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
            if not isinstance(data["final"], dict):
                raise ValueError(f"final must be an object, got {data['final']!r}")
            state.final = FinalMixture(**data["final"])
        return state

    @classmethod
    def load(cls, run_dir: Path) -> RunState:
        """The state of a run folder; a ``ValueError`` naming ``state.json`` if it cannot be
        read, is not JSON (empty, truncated, binary), or is not a run's state (its keys of
        the wrong types, snapshot paths outside the folder)."""
        path = Path(run_dir) / STATE_FILE
        what = f"{path} is not a training run's state"
        try:
            data = json.loads(path.read_bytes().decode("utf-8"))
        except OSError as e:
            raise ValueError(f"cannot read {path}: {e.strerror}") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError(f"{what} (not JSON: {cut(str(e))}); the run cannot go on from it") from None
        if not isinstance(data, dict):
            raise ValueError(f"{what}: it holds a {type(data).__name__}, not an object of keys")
        try:
            state = cls.from_json(data)
            state.check()
        except (TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"{what}: {cut(str(e))}") from None
        return state

    def check(self) -> None:
        """A ``ValueError`` naming the first key of the wrong type or value."""

        def is_int(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        if not is_int(self.generation) or self.generation < 0:
            raise ValueError(f"generation must be a non-negative integer, got {self.generation!r}")
        for role in ROLES:
            snaps = self.snapshots(role)
            if not isinstance(snaps, list) or not all(isinstance(x, str) for x in snaps):
                raise ValueError(f"{role}_snapshots must be a list of paths, got {snaps!r}")
            for x in snaps:
                if Path(x).is_absolute() or ".." in Path(x).parts:
                    raise ValueError(f"{role}_snapshots: {x!r} is not a path inside the run folder")
        for key in ("learn_seconds", "learn_steps", "curves", "selected"):
            if not isinstance(getattr(self, key), dict):
                raise ValueError(f"{key} must be an object, got {getattr(self, key)!r}")
        for key in ("nash_conv", "iterates", "one_step"):
            if not isinstance(getattr(self, key), list):
                raise ValueError(f"{key} must be a list, got {getattr(self, key)!r}")
        for x in self.one_step:
            if not isinstance(x, dict) or not is_int(x.get("generation")):
                raise ValueError(f"one_step: each entry names its generation, got {x!r}")
        for x in self.iterates:
            if not isinstance(x, dict) or not is_int(x.get("generation")) or not is_int(x.get("iteration")):
                raise ValueError(f"iterates: each entry names its generation and iteration, got {x!r}")
            for role in ROLES:
                f = x.get(role)
                if not isinstance(f, str) or Path(f).is_absolute() or ".." in Path(f).parts:
                    raise ValueError(f"iterates: {f!r} is not the path of a {role} snapshot inside the run folder")
        for key in ("learn_wall_seconds", "wall_seconds"):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise ValueError(f"{key} must be a number, got {v!r}")

    def check_snapshots(self, run_dir: Path) -> None:
        """A ``ValueError`` naming the first snapshot ``state.json`` lists that is not in
        the run folder (a resume would load it), or counts that disagree."""
        for role in ROLES:
            snaps = self.snapshots(role)
            if len(snaps) != self.generation:
                raise ValueError(
                    f"{Path(run_dir) / STATE_FILE}: {self.generation} generations done but {len(snaps)} {role} "
                    "snapshots listed; the state does not belong to this run folder's files"
                )
            done = [x[role] for x in self.iterates if x["generation"] <= self.generation]
            for x in snaps + done:
                if not (Path(run_dir) / x).is_file():
                    raise ValueError(
                        f"{Path(run_dir) / STATE_FILE} lists the {role} snapshot {x}, which is missing from the run "
                        "folder: restore it, or start the run again in a new folder"
                    )

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


def begin_learner_process(run_dir: str, parent_pid: int):
    """First thing in a learner process: it dies with its parent (``parent_pid``, even one
    killed by SIGKILL), leaves Ctrl-C to the main process, and holds its share of the run
    folder's lock; returns the lock's file, to keep for the process's life."""
    import signal

    from siete_env.processes import die_with_parent

    die_with_parent(parent_pid)
    lock = hold_as_learner(run_dir)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    return lock


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
    "begin_learner_process",
    "FINAL_TABLES",
    "LOCK_WAIT",
    "ROLES",
    "FinalMixture",
    "RunState",
    "final_specs",
    "hold_as_learner",
    "lock_run_dir",
    "json_text",
    "write_json",
]


def start_learners(ctx, target, cfg: TrainConfig, run_dir: Path, state: RunState,
                   env: dict[str, str] | None = None) -> tuple[dict, dict, dict]:  # fmt: skip
    """Both learner processes (``target(role, cfg_data, run_dir, snapshot, conn, counter,
    parent_pid)``), each from its newest snapshot: ``(procs, conns, counters)`` by role.
    ``env``: environment variables the learners start with (set only while they spawn)."""
    procs, conns, counters = {}, {}, {}
    with mock.patch.dict(os.environ, env or {}):
        for role in ROLES:
            parent, child = ctx.Pipe()
            counters[role] = ctx.Value("q", 0)
            snaps = state.snapshots(role)
            procs[role] = ctx.Process(
                target=target,
                args=(
                    role,
                    cfg.model_dump(),
                    str(run_dir),
                    snaps[-1] if snaps else None,
                    child,
                    counters[role],
                    os.getpid(),
                ),  # fmt: skip
                daemon=False,  # a vine learner starts sampler helpers (daemons may not); it dies with
            )  # this process all the same (begin_learner_process), and stop_learners ends it
            procs[role].start()
            child.close()  # only the learner holds its end: its death then reads as EOF here
            conns[role] = parent
    return procs, conns, counters


def stop_learners(conns: dict, procs: dict) -> None:
    """Ask both learners to stop, wait for them, terminate one that does not."""
    for role, c in conns.items():
        try:
            c.send(None)
        except (BrokenPipeError, OSError):
            pass
        procs[role].join(timeout=30)
        if procs[role].is_alive():
            procs[role].terminate()
