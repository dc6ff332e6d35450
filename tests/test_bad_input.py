"""Issue 25: bad input on the newer surfaces (the batched engine, play.py, model and table
files, run folders, config and rules YAML, evaluate.py's outputs). Table-driven, one table
per class of the issue:

- ``SILENT``: inputs that were accepted as if valid: each is now a clear error;
- ``UNHELPFUL``: inputs that ended in a traceback or an unhelpful message: each is now a
  short error naming the input and what is allowed (no traceback, at most a few lines);
- ``LOST``: outputs that lost finished results or wrote where they should not: each is
  now refused before the work, or written atomically with the results kept elsewhere.

Every case is a function of the fixture files returning ``(code, text)``: ``code`` the exit
code (a CLI) or ``"ValueError"`` (an API); the test checks it and that ``text`` holds the
expected words. The count of cases, and how many failed before the fixes, are in
docs/testing.md (the bad-input campaign).
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SINGLE = ["--rule", "bet_levels=[1]", "--rule", "four_swap=off", "--rule", "max_splits=0"]
MAX_MESSAGE = 1500  # characters: an error is a line or two, with the value that is wrong cut short


# --------------------------------------------------------------------------- fixture files
@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Bad files of every kind (and a few good ones to spoil)."""
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    import siete_env  # noqa: F401  (the Gymnasium ids)

    d = tmp_path_factory.mktemp("bad")
    torch.set_num_threads(1)
    for name, n in (("model2", 2), ("model4", 4)):
        e = gym.make("SieteYMedia-Punter-v0", num_players=n, opponents="banker:6")
        MaskablePPO("MlpPolicy", e, n_steps=64, batch_size=64, policy_kwargs={"net_arch": [8]}, seed=0).save(
            d / f"{name}.zip"
        )
    with zipfile.ZipFile(d / "notmodel.zip", "w") as z:
        z.writestr("hello.txt", "hi")
    with zipfile.ZipFile(d / "model2.zip") as zi:
        parts = {n: zi.read(n) for n in zi.namelist()}
    for name, member, junk in (("junkpth", "policy.pth", b"junk"), ("junkdata", "data", b"{not json")):
        with zipfile.ZipFile(d / f"{name}.zip", "w") as zo:
            for n, data in parts.items():
                zo.writestr(n, junk if n == member else data)
    # solution files: the keys evaluate.py --solve writes, tables of the right kind, then spoiled
    from siete_env.solve import evaluator

    rules = {"preset": "spanish", "bet_levels": [1], "four_swap": "off", "max_splits": 0}
    ev = evaluator(rules)  # the tables' shapes for these rules: a table that plays, until spoiled
    bet = np.full((ev.layers[0][1] - ev.layers[0][0], ev.A), 1 / ev.A)
    draw = np.full((ev.n_states, ev.L, 2, ev.A), 1 / ev.A)
    hit = np.full((ev.n_vu * ev.L, ev.n_M), 0.5)
    good = {"rules": np.array(repr(rules)), "iterations": 1, "bet": bet, "draw": draw, "hit": hit,
            "result": np.ones(5), "history": np.zeros((0, 3)), "source": np.array("cfr+")}  # fmt: skip
    spoiled = {
        "nan": {"draw": np.full_like(draw, np.nan)},
        "zeros": {"bet": np.zeros_like(bet), "draw": np.zeros_like(draw)},
        "half": {"bet": bet / 2},
        "negative": {"hit": -hit},
        "over1": {"hit": 3 * hit},
        "resultnan": {"result": np.full(5, np.nan)},
        "ruleslist": {"rules": np.array("[1, 2]")},
        "rulesbad": {"rules": np.array("{'preset': 'klingon'}")},
        "shape": {"bet": bet[:, :3]},
        "good": {},
    }
    for name, change in spoiled.items():
        np.savez(d / f"table_{name}.npz", **{**good, **change})
    (d / "dup.yaml").write_text((ROOT / "configs/train/smoke.yaml").read_text() + "generations: 2\n")
    (d / "duprules.yaml").write_text("preset: spanish\nmax_splits: 0\nmax_splits: 1\n")
    (d / "latin1.yaml").write_bytes("preset: spanish\n# señor\n".encode("latin-1"))
    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    levels += [f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]" for i in range(9)]
    (d / "bomb.yaml").write_text("\n".join(levels) + "\n")
    (d / "deep.yaml").write_text("[" * 5000 + "]" * 5000)
    (d / "moves_latin1.txt").write_bytes("hit # señor\n".encode("latin-1"))
    (d / "a_file").write_text("")
    return d


def _cli(main, argv, **kw) -> tuple[int, str]:
    """A command's exit code and everything it printed; a traceback fails the test."""
    from rich.console import Console

    out, err = io.StringIO(), io.StringIO()
    if main.__module__ == "agents.play":
        kw.setdefault("console", Console(file=out, width=200, force_terminal=False, color_system=None))
        kw.setdefault("stdin", io.StringIO("q\n"))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv], **kw)
        except SystemExit as e:  # argparse's own refusals
            code = e.code
    return code, out.getvalue() + err.getvalue()


def _raises(fn) -> tuple[str, str]:
    try:
        fn()
    except ValueError as e:
        return "ValueError", str(e)
    return "accepted", ""


def evaluate(*argv):
    import evaluate as ev

    return _cli(ev.main, argv)


def play(*argv, moves="q\n"):
    from agents.play import main

    return _cli(main, argv, stdin=io.StringIO(moves))


def train(*argv):
    from training.train_cli import main

    return _cli(main, argv)


def vec(n=4, **kw):
    import gymnasium as gym

    import siete_env  # noqa: F401

    return gym.make_vec("SieteYMedia-Punter-v0", num_envs=n, vectorization_mode="vector_entry_point", **kw)


def vec_step(actions):
    e = vec()
    e.reset(seed=0)
    return _raises(lambda: e.step(actions))


def tables(method, *args):
    from siete_env.batched import BatchedTables

    bt = BatchedTables(4)
    return _raises(lambda: getattr(bt, method)(*args))


def load(f, name):
    from siete_env.solve import load_tables

    return _raises(lambda: load_tables(f / f"table_{name}.npz"))


def resume(f, tmp, state: bytes | None, snapshot: bool = True):
    """train.py --resume on a run folder whose state.json holds ``state``."""
    run = tmp / "run"
    run.mkdir(exist_ok=True)
    (run / "config.yaml").write_text((ROOT / "configs" / "train" / "default.yaml").read_text())
    if snapshot:
        (run / "gen_001").mkdir(exist_ok=True)
        (run / "gen_001" / "banker.zip").write_bytes(b"")
    if state is not None:
        (run / "state.json").write_bytes(state)
    return train("--resume", run)


GOOD_STATE = {"generation": 1, "punter_snapshots": ["gen_001/punter.zip"], "banker_snapshots": ["gen_001/banker.zip"]}

# --------------------------------------------------------------------------- the cases
SILENT = {
    # the batched view: ids out of range, of the wrong shape or type
    "make_vec step 99": (lambda f, t: vec_step([99, 6, 6, 6]), "ValueError", ["99", "0..14"]),
    "make_vec step -1": (lambda f, t: vec_step([-1, 6, 6, 6]), "ValueError", ["-1", "0..14"]),
    "make_vec step 2**40": (lambda f, t: vec_step([2**40, 6, 6, 6]), "ValueError", ["1099511627776", "0..14"]),
    "make_vec step uint64 2**63": (
        lambda f, t: vec_step(np.full(4, 2**63, np.uint64)),
        "ValueError",
        ["9223372036854775808", "0..14"],
    ),
    "make_vec step shape (4, 1)": (lambda f, t: vec_step(np.full((4, 1), 6)), "ValueError", ["(4,)", "(4, 1)"]),
    "make_vec step 3 actions for 4": (lambda f, t: vec_step([6, 6, 6]), "ValueError", ["(4,)", "(3,)"]),
    "make_vec step floats": (lambda f, t: vec_step(np.full(4, 6.0)), "ValueError", ["integer", "float64"]),
    "make_vec step bools": (lambda f, t: vec_step(np.ones(4, bool)), "ValueError", ["integer", "bool"]),
    "make_vec step ragged": (lambda f, t: vec_step([[6], 6, 6, 6]), "ValueError", ["one per table"]),
    "make_vec step scalar": (lambda f, t: vec_step(6), "ValueError", ["(4,)"]),
    "make_vec reset 3 seeds for 4": (
        lambda f, t: _raises(lambda: vec().reset(seed=[1, 2, 3])),
        "ValueError",
        ["one per table (4)", "3"],
    ),
    "make_vec reset seeds with -1": (
        lambda f, t: _raises(lambda: vec().reset(seed=[1, 2, 3, -1])),
        "ValueError",
        ["-1", "non-negative"],
    ),
    "make_vec position True": (
        lambda f, t: _raises(lambda: vec(num_players=3, position=True)),
        "ValueError",
        ["position", "1..2"],
    ),
    "make_vec illegal_reward nan": (
        lambda f, t: _raises(lambda: vec(illegal_reward=float("nan"))),
        "ValueError",
        ["illegal_reward", "finite"],
    ),
    "make_vec copy 'yes'": (lambda f, t: _raises(lambda: vec(copy="yes")), "ValueError", ["copy", "True or False"]),
    "BatchedTables apply at table 7 of 4": (
        lambda f, t: tables("apply", [7], [6]),
        "ValueError",
        ["0..3", "7"],
    ),
    "BatchedTables observe seat 9": (lambda f, t: tables("observe", None, 9), "ValueError", ["seats", "0..1"]),
    "BatchedTables deck not a permutation": (
        lambda f, t: tables("start", [0], 0, np.zeros((1, 40), np.int32)),
        "ValueError",
        ["permutation"],
    ),
    # table files: NaN, zeros, negative, over 1, a NaN result, rules that are not rules
    **{
        f"table file {name}": (lambda f, t, name=name: load(f, name), "ValueError", ["not a solution file", word])
        for name, word in (
            ("nan", "NaN"),
            ("zeros", "all zeros"),
            ("half", "neither 1 nor 0"),
            ("negative", "outside 0..1"),
            ("over1", "outside 0..1"),
            ("resultnan", "not finite"),
            ("ruleslist", "not a dict"),
            ("rulesbad", "klingon"),
            ("shape", "shapes"),
        )
    },
    "evaluate --exact with a NaN table": (
        lambda f, t: evaluate("--exact", "--punters", f"cfr:{f / 'table_nan.npz'}", "--bankers", "banker:6", *SINGLE),
        2,
        ["NaN", "table_nan.npz"],
    ),
    # YAML keys and command-line options given twice
    "config key given twice": (
        lambda f, t: train("--config", f / "dup.yaml", "--run-dir", t / "r"),
        2,
        ["generations", "twice"],
    ),
    "rules key given twice": (
        lambda f, t: evaluate("--rules", f / "duprules.yaml", "--hands", 100),
        2,
        ["max_splits", "twice"],
    ),
    "--rule given twice": (
        lambda f, t: evaluate("--rule", "max_splits=0", "--rule", "max_splits=1", "--hands", 100),
        2,
        ["max_splits", "twice"],
    ),
    "--set given twice": (
        lambda f, t: train("--set", "generations=1", "generations=2", "--run-dir", t / "r"),
        2,
        ["generations", "twice"],
    ),
    # flags a task would ignore, two tasks at once
    "--exact --method cfr+": (
        lambda f, t: evaluate("--exact", "--method", "cfr+", *SINGLE),
        2,
        ["--method", "--exact", "--solve"],
    ),
    "--solve X --exact": (lambda f, t: evaluate("--solve", t / "x.npz", "--exact", *SINGLE), 2, ["--solve", "--exact"]),
    "--solve X --exploit banker": (
        lambda f, t: evaluate("--solve", t / "x.npz", "--exploit", "banker", *SINGLE),
        2,
        ["different tasks"],
    ),
    "--run X --punters": (lambda f, t: evaluate("--run", t, "--punters", "random"), 2, ["--punters", "--run"]),
    "--exact --csv": (lambda f, t: evaluate("--exact", "--csv", t / "x.csv", *SINGLE), 2, ["--csv", "--exact"]),
    "--exact --hands": (lambda f, t: evaluate("--exact", "--hands", 10, *SINGLE), 2, ["--hands", "--exact"]),
    "--exact --seed": (lambda f, t: evaluate("--exact", "--seed", 3, *SINGLE), 2, ["--seed", "--exact"]),
    "--iterations without --solve": (lambda f, t: evaluate("--iterations", 5, "--hands", 100), 2, ["--iterations"]),
    "--exploit --every": (lambda f, t: evaluate("--exploit", "banker", "--every", 3), 2, ["--every", "--exploit"]),
    "--solve out/noext": (lambda f, t: evaluate("--solve", t / "out" / "noext", *SINGLE), 2, ["--solve", ".npz"]),
    # play.py and training configs
    "play --episodes -3": (lambda f, t: play("--episodes", -3), 2, ["--episodes", "at least 1"]),
    "play --episodes 0": (lambda f, t: play("--episodes", 0), 2, ["--episodes", "at least 1"]),
    "config name ../x": (
        lambda f, t: train("--set", "name=../../x", "--run-dir", t / "r"),
        2,
        ["name", "letters, digits"],
    ),
    "config learner: pools": (
        lambda f, t: train("--set", "learner=pools", "--run-dir", t / "r"),
        2,
        ["learner", "the only learner is vine", "docs/experiments.md#the-pools-learner"],
    ),
}

UNHELPFUL = {
    "play --banker 7": (lambda f, t: play("--banker", 7), 2, ["--banker", "0..1", "7"]),
    "play --banker -1": (lambda f, t: play("--banker", -1), 2, ["--banker", "0..1"]),
    "play --deck zz": (lambda f, t: play("--deck", "zz"), 2, ["--deck", "zz"]),
    "play --deck 1o 1o": (lambda f, t: play("--deck", "1o", "1o"), 2, ["--deck", "twice"]),
    "play --seed -5": (lambda f, t: play("--seed", -5), 2, ["--seed", "non-negative"]),
    "play --script missing": (lambda f, t: play("--script", t / "nope.txt"), 2, ["--script", "no such file"]),
    "play --script a folder": (lambda f, t: play("--script", t), 2, ["--script", "not a regular file"]),
    "play --script not UTF-8": (lambda f, t: play("--script", f / "moves_latin1.txt"), 2, ["--script", "UTF-8"]),
    "play agent for 4 seats at 2": (
        lambda f, t: play("--opponents", f"ppo:{f / 'model4.zip'}"),
        2,
        ["model4.zip", "another table size"],
    ),
    "play junk model": (
        lambda f, t: play("--opponents", f"ppo:{f / 'junkpth.zip'}"),
        2,
        ["junkpth.zip", "not a model"],
    ),
    "play table file at 3 seats": (
        lambda f, t: play("--players", 3, "--opponents", f"cfr:{f / 'table_good.npz'}"),
        2,
        ["heads-up", "3 players"],
    ),
    "play rules file not UTF-8": (lambda f, t: play("--rules", f / "latin1.yaml"), 2, ["latin1.yaml", "UTF-8"]),
    "evaluate a zip that is not a model": (
        lambda f, t: evaluate("--punters", f"ppo:{f / 'notmodel.zip'}", "--hands", 100),
        2,
        ["notmodel.zip", "not a model"],
    ),
    "evaluate a model with a junk policy.pth": (
        lambda f, t: evaluate("--punters", f"ppo:{f / 'junkpth.zip'}", "--hands", 100),
        2,
        ["junkpth.zip", "not a model"],
    ),
    "evaluate a model with junk data": (
        lambda f, t: evaluate("--punters", f"ppo:{f / 'junkdata.zip'}", "--hands", 100),
        2,
        ["junkdata.zip", "not a model"],
    ),
    "evaluate --rules not a regular file": (
        lambda f, t: evaluate("--rules", "/dev/zero", "--hands", 100),
        2,
        ["/dev/zero", "not a regular file"],
    ),
    "train config not UTF-8": (lambda f, t: train("--config", f / "latin1.yaml"), 2, ["latin1.yaml", "UTF-8"]),
    "train config alias bomb": (lambda f, t: train("--config", f / "bomb.yaml"), 2, ["alias", "at most"]),
    "train config nested 5000 deep": (lambda f, t: train("--config", f / "deep.yaml"), 2, ["deep.yaml", "nested"]),
    "train --run-dir a file": (lambda f, t: train("--run-dir", f / "a_file" / "run"), 2, ["--run-dir", "not a folder"]),
    **{
        f"resume, state.json {name}": (
            lambda f, t, state=state: resume(f, t, state),
            2,
            ["state.json", word],
        )
        for name, state, word in (
            ("empty", b"", "not JSON"),
            ("truncated", b'{"generation": 1, "punter_snap', "not JSON"),
            ("binary", b"\xff\xfe\x00\x01", "not JSON"),
            ("a list", b"[1, 2]", "list"),
            ("wrong types", b'{"generation": "two"}', "generation"),
            ("a path outside", json.dumps({**GOOD_STATE, "punter_snapshots": ["../../x.zip"]}).encode(), "inside"),
            ("a snapshot missing", json.dumps(GOOD_STATE).encode(), "punter.zip"),
            ("unknown shape", json.dumps({**GOOD_STATE, "curves": [1]}).encode(), "curves"),
        )
    },
    "make_vec num_envs 10**12": (
        lambda f, t: _raises(lambda: vec(10**12)),
        "ValueError",
        ["num_envs", "would need", "must be 1.."],
    ),
    **{
        f"env().step({a})": (
            lambda f, t, a=a: _aec_step(a),
            "ValueError",
            [str(a), "outside the action space", "0..14", "BET_1"],
        )
        for a in (99, -1, 2**40)
    },
}


def _aec_step(action):
    from siete_env import env

    e = env(num_players=2)
    e.reset(seed=0)
    return _raises(lambda: e.step(action))


def _copy(src: Path, folder: Path) -> Path:
    (folder / src.name).write_bytes(src.read_bytes())
    return folder / src.name


def _failing_writes(monkeypatch, fail: int = 1):
    """The first ``fail`` atomic writes fail as on a full disk."""
    import training.outputs as outputs

    real, calls = outputs.write_atomic, []

    def write(path, data):
        calls.append(path)
        if len(calls) <= fail:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(path, data)

    monkeypatch.setattr(outputs, "write_atomic", write)
    return calls


LOST = {
    "--json and --csv one file": (
        lambda f, t: evaluate("--hands", 100, "--json", t / "o.json", "--csv", t / "o.json"),
        2,
        ["--json and --csv", "same file"],
    ),
    "--solve X --json X": (
        lambda f, t: evaluate("--solve", t / "s.npz", "--json", t / "s.npz", *SINGLE),
        2,
        ["--json and --solve", "same file"],
    ),
    "--json over the input model": (
        lambda f, t: evaluate("--punters", f"ppo:{f / 'model2.zip'}", "--hands", 100, "--json", f / "model2.zip"),
        2,
        ["--json", "that is the input"],
    ),
    "--json over the rules file": (
        lambda f, t: evaluate("--rules", _copy(ROOT / "configs/rules/spanish.yaml", t), "--json", t / "spanish.yaml"),
        2,
        ["--json", "that is the input"],
    ),
    "--json a 300-character name": (
        lambda f, t: evaluate("--hands", 100, "--json", t / ("x" * 300 + ".json")),
        2,
        ["--json", "at most 200"],
    ),
    "--json a device": (
        lambda f, t: evaluate("--hands", 100, "--json", "/dev/null"),
        2,
        ["/dev/null", "not a regular"],
    ),
    "--csv a device behind a link": (
        lambda f, t: (os.symlink("/dev/null", t / "null.csv"), evaluate("--hands", 100, "--csv", t / "null.csv"))[1],
        2,
        ["null.csv", "not a regular"],
    ),
}


@pytest.mark.parametrize("case", list(SILENT))
def test_silently_accepted_input_is_now_refused(case, files, tmp_path):
    _check(SILENT[case], files, tmp_path)


@pytest.mark.parametrize("case", list(UNHELPFUL))
def test_tracebacks_and_unhelpful_messages_are_now_clear_errors(case, files, tmp_path):
    _check(UNHELPFUL[case], files, tmp_path)


@pytest.mark.parametrize("case", list(LOST))
def test_outputs_that_could_lose_results_are_refused_before_the_work(case, files, tmp_path):
    _check(LOST[case], files, tmp_path)


def _check(case, files, tmp_path):
    fn, code, words = case
    got, text = fn(files, tmp_path)
    assert got == code, text[-2000:]
    for w in words:
        assert w in text, (w, text[-2000:])
    assert "Traceback" not in text and len(text.strip()) < MAX_MESSAGE, text[-2000:]


# --------------------------------------------------------------------------- behaviour kept or documented
def test_a_list_of_seeds_seeds_each_table_as_a_one_table_env():
    obs4, _ = vec(opponents="banker:6").reset(seed=[5, 6, 7, 8])
    for i, s in enumerate([5, 6, 7, 8]):
        obs1, _ = vec(1, opponents="banker:6").reset(seed=s)
        np.testing.assert_array_equal(obs4[i], obs1[0])
    again, _ = vec(opponents="banker:6").reset(seed=np.array([5, 6, 7, 8]))
    np.testing.assert_array_equal(obs4, again)


def test_a_typed_move_that_is_no_number_is_answered(files):
    code, text = play("--deck", "1o", "--script", "-", moves="²\n[/x]\n99999999999999999999999999999\n١\nq\n")
    assert code == 0 and "Traceback" not in text
    assert text.count("is not one of your legal actions") == 4 and "'[/x]'" in text


def test_a_failed_write_keeps_the_results(monkeypatch, tmp_path, capsys):
    import evaluate as ev

    calls = _failing_writes(monkeypatch)
    rc = ev.main(
        ["--hands", "200", "--workers", "1", "--json", str(tmp_path / "r.json"), "--csv", str(tmp_path / "r.csv")]
    )
    err = capsys.readouterr().err
    assert rc == 1 and "No space left on device" in err and "saved to" in err
    fallback = Path(calls[1])
    assert json.loads(fallback.read_text())["matches"] and (tmp_path / "r.csv").read_text().startswith("banker,")
    fallback.unlink()
    # nowhere to save: the JSON is printed
    calls = _failing_writes(monkeypatch, fail=2)
    rc = ev.main(["--hands", "200", "--workers", "1", "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert rc == 1 and '"matches"' in out


def test_writes_are_atomic_and_follow_links(tmp_path):
    from training.outputs import write_atomic

    target, link = tmp_path / "t.json", tmp_path / "link.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    link.symlink_to(target)
    write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new" and (target.stat().st_mode & 0o777) == 0o640

    def broken(f):
        f.write(b"half")
        raise OSError(errno.ENOSPC, "full")

    with pytest.raises(OSError):
        write_atomic(target, broken)
    assert target.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "t.json"]


def test_yaml_anchors_and_merge_keys_still_load(tmp_path):
    from siete_env.rules import read_yaml_mapping

    p = tmp_path / "ok.yaml"
    p.write_text("base: &b {n_steps: 64, gamma: 1.0}\npunter:\n  <<: *b\n  gamma: 0.9\nbanker: *b\n")
    assert read_yaml_mapping(p) == {
        "base": {"n_steps": 64, "gamma": 1.0},
        "punter": {"n_steps": 64, "gamma": 0.9},
        "banker": {"n_steps": 64, "gamma": 1.0},
    }


def test_fuzz_of_the_batched_engine(capsys):
    from siete_env import fuzz

    assert fuzz.main(["--engine", "batched", "--hands", "60", "--players", "2", "4", "--random-rules"]) == 0
    out = capsys.readouterr().out
    assert "batched" in out and "adversarial calls" in out


def test_fuzz_of_the_batched_engine_catches_a_fault(monkeypatch):
    from siete_env import fuzz
    from siete_env.batched.vector import SeatVectorEnv

    real = SeatVectorEnv._check_actions
    monkeypatch.setattr(SeatVectorEnv, "_check_actions", lambda self, a: np.asarray(real(self, np.clip(a, 0, 14))))
    t = fuzz.batched_campaign(200, [2], seed=1)
    assert t.violations and "must refuse" in t.violations[0].message
    assert "check_batched(" in str(t.violations[0])
