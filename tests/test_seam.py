"""The learner seam (``training.seam``): the run driver (``training.driver``) drives any
learner with ``start``, ``generation`` and ``stop``, records what it yields, and owns the
state; a learner that fails mid-run leaves the finished generations resumable."""

from __future__ import annotations

import json

import pytest

from training import driver
from training.config import TrainConfig
from training.runs import ROLES
from training.seam import Snapshots
from training.vine_run import VineLearner

from .test_train_cli import TINY

CFG = {**TINY, "generations": 3, "evaluation": {**TINY["evaluation"], "generation_hands": 0, "select": "last"}}


class FakeLearner:
    """Writes placeholder snapshot files and says what it cost; fails in ``fail_at``."""

    def __init__(self, cfg, run_dir, state, env, calls, fail_at=None):
        self.run_dir, self.calls, self.fail_at = run_dir, calls, fail_at
        self.calls.append(("init", state.generation))

    def start(self):
        self.calls.append("start")

    def generation(self, gen, state):
        self.calls.append(("generation", gen, list(state.punter_snapshots)))
        if gen == self.fail_at:
            raise RuntimeError("the learner failed")
        paths = {r: f"gen_{gen:03d}/{r}.zip" for r in ROLES}
        for rel in paths.values():
            (self.run_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.run_dir / rel).write_bytes(rel.encode())
        yield Snapshots(gen, paths, steps={"punter": 10, "banker": 20}, seconds={"punter": 1.0, "banker": 2.0},
                        wall_seconds=1.5)  # fmt: skip

    def stop(self):
        self.calls.append("stop")


def _run(monkeypatch, tmp_path, fail_at=None, resume=False):
    calls = []
    monkeypatch.setattr(
        driver, "make_learner", lambda cfg, run_dir, state, env: FakeLearner(cfg, run_dir, state, env, calls, fail_at)
    )
    return calls, driver.train(TrainConfig(**CFG), tmp_path, resume=resume)


def test_the_learner_is_behind_the_seam():
    for method in ("start", "generation", "stop"):
        assert callable(getattr(VineLearner, method, None)), method


def test_the_driver_records_what_the_learner_yields(monkeypatch, tmp_path):
    calls, state = _run(monkeypatch, tmp_path)
    assert calls == [("init", 0), "start", ("generation", 1, []), ("generation", 2, ["gen_001/punter.zip"]),
                     ("generation", 3, ["gen_001/punter.zip", "gen_002/punter.zip"]), "stop"]  # fmt: skip
    assert state.generation == 3 and state.banker_snapshots == [f"gen_{g:03d}/banker.zip" for g in (1, 2, 3)]
    assert state.learn_steps == {"punter": 30, "banker": 60}
    assert state.learn_seconds == {"punter": 3.0, "banker": 6.0} and state.learn_wall_seconds == 4.5
    assert (tmp_path / "punter.zip").read_bytes() == b"gen_003/punter.zip"  # select: last
    assert json.loads((tmp_path / "state.json").read_text())["generation"] == 3
    kept = json.loads((tmp_path / "gen_002" / "state.json").read_text())  # as it stood after generation 2
    assert kept["generation"] == 2 and kept["learn_steps"] == {"punter": 20, "banker": 40}


def test_a_failing_learner_is_stopped_and_the_finished_generations_kept(monkeypatch, tmp_path):
    with pytest.raises(RuntimeError, match="the learner failed"):
        _run(monkeypatch, tmp_path, fail_at=2)
    saved = json.loads((tmp_path / "state.json").read_text())
    assert saved["generation"] == 1 and saved["punter_snapshots"] == ["gen_001/punter.zip"]
    calls, state = _run(monkeypatch, tmp_path, resume=True)  # and the run goes on from there
    assert calls[0] == ("init", 1) and calls[2] == ("generation", 2, ["gen_001/punter.zip"])
    assert state.generation == 3 and state.learn_steps == {"punter": 30, "banker": 60}


def test_learners_do_not_reach_back_into_the_driver():
    """Learners never import the driver; the driver names them in ``make_learner`` only."""
    import ast
    from pathlib import Path

    def imports(module: str) -> set[str]:
        tree = ast.parse((Path(driver.__file__).parent / f"{module}.py").read_text())
        found = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        return found | {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}

    for learner in ("vine_run", "vine", "learners", "seam"):
        assert not imports(learner) & {"training.driver", "training.train_cli"}, learner
    import inspect

    source = inspect.getsource(driver).replace(inspect.getsource(driver.make_learner), "")
    assert "vine_run" not in source and "VinePPO" not in source
