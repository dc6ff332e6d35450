"""Issue 12: every bad input a clear error, no orphaned processes. One test (or a few) per
finding, each reproducing it as reported."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

from siete_env import IllegalActionError, env, raw_env, resolve_rules

ROOT = Path(__file__).resolve().parent.parent
P0, P1 = "player_0", "player_1"


def _snapshot(e):
    g = e.unwrapped.game
    return (e.agent_selection, g.phase, g.seat, list(g.deck), g.pos, list(g.chips), len(g.events))


def _play_out(e, seed=0):
    """Random legal play to the end of the episode, dead steps included."""
    rng = np.random.default_rng(seed)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# --------------------------------------------------------------------------- 1, 5: action types
@pytest.mark.parametrize("make", [raw_env, env])
@pytest.mark.parametrize("action", [np.array(3), np.array(3, dtype=np.int8), np.int64(3), np.uint8(3)])
def test_numpy_integer_scalars_and_0d_arrays_are_actions(make, action):
    # (1) what SB3's model.predict(obs) returns for one observation
    e = make(num_players=2)
    e.reset(seed=0)
    assert e.action_space(P0).contains(action)
    assert e.unwrapped.game.legal_actions()[0] == 3  # SWAP_FOUR is legal
    ref = make(num_players=2)
    ref.reset(seed=0)
    e.step(action)
    ref.step(3)
    assert _snapshot(e) == _snapshot(ref)


@pytest.mark.parametrize("make", [raw_env, env])
@pytest.mark.parametrize(
    "action, what",
    [
        (True, "a bool is not an action"),
        (False, "a bool is not an action"),
        (np.bool_(True), "a bool is not an action"),
        (np.array(True), "a bool is not an action"),
        (3.0, "float"),
        (np.float32(3), "float32"),
        (np.array(3.0), "float64"),
        (np.array([3]), r"shape \(1,\)"),
        ("3", "str"),
        ([3], "list"),
    ],
)
def test_non_integer_actions_are_refused_naming_the_allowed_ids(make, action, what):
    # (5) env().step(True) raised numpy's "truth value of an array ... is ambiguous"
    e = make(num_players=2)
    e.reset(seed=0)
    before = _snapshot(e)
    with pytest.raises(IllegalActionError, match=what) as err:
        e.step(action)
    msg = str(err.value)
    assert "action ids 0..14" in msg and "SWAP_FOUR" in msg and "player_0" in msg
    assert _snapshot(e) == before  # nothing applied
    assert not any(e.terminations.values())


def test_seat_env_takes_the_same_actions():
    from siete_env import SeatEnv

    a, b = SeatEnv(opponents="random", seed=3), SeatEnv(opponents="random", seed=3)
    a.reset()
    b.reset()
    legal = int(np.flatnonzero(a.action_masks())[0])
    ra, rb = a.step(np.array(legal)), b.step(legal)
    np.testing.assert_array_equal(ra[0], rb[0])
    with pytest.raises(ValueError, match="a bool is not an action"):
        a.step(True)


# --------------------------------------------------------------------------- 2: after the game
def test_raw_env_after_the_game_is_over():
    e = raw_env(num_players=2)
    e.reset(seed=0)
    _play_out(e)
    assert not e.agents
    for call in (lambda: e.step(None), lambda: e.step(0), lambda: e.last()):
        with pytest.raises(RuntimeError, match=r"the episode is over.*reset\(\)"):
            call()
    e.reset(seed=1)  # and a reset starts a new one
    assert e.agents and e.last()[2] is False


def test_env_last_after_the_game_is_over():
    e = env(num_players=2)
    e.reset(seed=0)
    _play_out(e)
    with pytest.raises(RuntimeError, match=r"the episode is over.*reset\(\)"):
        e.last()


# --------------------------------------------------------------------------- 3: before reset
@pytest.mark.parametrize(
    "call",
    [
        lambda e: e.observe(P0),
        lambda e: e.state(),
        lambda e: e.render(),
        lambda e: e.step(0),
        lambda e: e.last(),
    ],
    ids=["observe", "state", "render", "step", "last"],
)
def test_raw_env_before_reset(call):
    e = raw_env(num_players=2, render_mode="ansi")
    with pytest.raises(RuntimeError, match=r"before reset\(\).*call reset\(\) first"):
        call(e)


def test_observe_an_unknown_agent():
    e = raw_env(num_players=2)
    for _ in range(2):  # before and after reset
        with pytest.raises(ValueError, match=r"unknown agent 'player_9'; the agents are player_0\.\.player_1"):
            e.observe("player_9")
        e.reset(seed=0)
    w = env(num_players=2)
    w.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent 'player_9'"):
        w.observe("player_9")


# --------------------------------------------------------------------------- 4: reset arguments
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"options": "deck"}, r"reset options must be a dict.*not str"),
        ({"options": [1, 2]}, r"reset options must be a dict.*not list"),
        ({"options": {"deck": 5}}, r"reset option 'deck': a deck is a list of card ids.*not int 5"),
        ({"options": {"deck": {"4o": 1}}}, r"reset option 'deck': a deck is a list of card ids.*not dict"),
        ({"options": {"deck": ["4o", 7]}}, r"reset option 'deck': unknown card id 7"),
        ({"seed": -1}, r"reset seed must be None or a non-negative integer, got -1"),
        ({"seed": 1.5}, r"reset seed must be None or a non-negative integer, got 1\.5"),
        ({"seed": "1"}, r"reset seed must be None or a non-negative integer, got '1'"),
        ({"seed": True}, r"reset seed must be None or a non-negative integer, got True"),
    ],
)
def test_bad_reset_arguments_name_the_argument_and_change_nothing(kwargs, message):
    e = raw_env(num_players=2)
    e.reset(seed=5)
    before = _snapshot(e)
    with pytest.raises(ValueError, match=message):
        e.reset(**kwargs)
    assert _snapshot(e) == before
    fresh = raw_env(num_players=2)
    with pytest.raises(ValueError, match=message):
        fresh.reset(**kwargs)


def test_numpy_integer_seeds_and_tuple_decks_are_welcome():
    a, b = raw_env(num_players=2), raw_env(num_players=2)
    a.reset(seed=np.int64(7), options={"deck": ("4o", "7c")})
    b.reset(seed=7, options={"deck": ["4o", "7c"]})
    assert _snapshot(a) == _snapshot(b)


# --------------------------------------------------------------------------- 6: rule options
@pytest.mark.parametrize(
    "options, message",
    [
        ({"max_splits": "2"}, r"rule option 'max_splits'.*got '2'"),
        ({"seven_half_pays": "2"}, r"rule option 'seven_half_pays'.*valid integer.*got '2'"),
        ({"remove_sotas": "yes"}, r"rule option 'remove_sotas'.*valid boolean.*got 'yes'"),
        ({"remove_sotas": 1}, r"rule option 'remove_sotas'.*valid boolean.*got 1"),
        ({"hands_per_episode": 2.0}, r"rule option 'hands_per_episode'.*valid integer.*got 2\.0"),
        ({"fusilar_pays": True}, r"rule option 'fusilar_pays'.*valid integer.*got True"),
        ({"bet_levels": ["1", "2"]}, r"rule option 'bet_levels.*valid integer"),
    ],
)
def test_python_rule_options_are_as_strict_as_their_types(options, message):
    with pytest.raises(ValueError, match=message):
        resolve_rules(options)


def test_max_splits_error_reads_as_one_option():
    with pytest.raises(ValueError) as err:
        resolve_rules({"max_splits": "2"})
    assert "max_splits.int" not in str(err.value) and "literal" not in str(err.value)
    assert "'auto' or an integer 0..3" in str(err.value)


def test_lists_yaml_files_and_cli_values_still_work(tmp_path):
    from evaluate import rules_arg

    r = resolve_rules({"bet_levels": [1, 2], "auction_bids": [1, 5], "max_splits": 2})
    assert r.bet_levels == (1, 2) and r.auction_bids == (1, 5) and r.max_splits == 2
    f = tmp_path / "r.yaml"
    f.write_text("preset: italian\nremove_sotas: yes\nmax_splits: 1\nbet_levels: [1, 3]\nwild_card: 12o\n")
    r = resolve_rules(str(f))
    assert r.remove_sotas is True and r.max_splits == 1 and r.bet_levels == (1, 3)
    spec = rules_arg("spanish", ["remove_sotas=yes", "four_swap=off", "canto=on", "fusilar=No", "max_splits=2"])
    r = resolve_rules(spec)
    assert (r.remove_sotas, r.four_swap, r.canto, r.fusilar, r.max_splits) == (True, "off", True, False, 2)
    for p in sorted((ROOT / "configs" / "rules").glob("*.yaml")):
        resolve_rules(str(p))


def test_train_set_rule_values_are_parsed_per_option(tmp_path):
    from training.config import load_config

    cfg = yaml.safe_load((ROOT / "configs" / "train" / "full.yaml").read_text())  # nothing exact asked
    cfg["rules"] = {"preset": "spanish", "max_splits": 0}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    c = load_config(path, ["rules.remove_sotas=yes", "rules.four_swap=off"])
    assert c.rules["remove_sotas"] is True and c.rules["four_swap"] == "off"
    resolve_rules(c.rules)


def test_a_config_extends_another(tmp_path):
    """``extends``: the base file gives every key left out, sections merge key by key, a
    value given replaces the base's; a loop, a missing base or a non-name is refused."""
    from training.config import load_config

    base = load_config(ROOT / "configs" / "train" / "default.yaml")
    (tmp_path / "sub").mkdir()
    child = tmp_path / "sub" / "c.yaml"
    (tmp_path / "base.yaml").write_text((ROOT / "configs" / "train" / "default.yaml").read_text())
    child.write_text("extends: ../base.yaml\nname: c\ngenerations: 2\nvine: {punter_hands: 7}\n")
    c = load_config(child, ["vine.steps=3"])
    assert (c.name, c.generations, c.vine.punter_hands, c.vine.steps) == ("c", 2, 7, 3)
    assert c.vine.banker_hands == base.vine.banker_hands and c.banker == base.banker and c.rules == base.rules
    long = load_config(ROOT / "configs" / "train" / "long.yaml")
    assert (long.generations, long.vine.iterations, long.vine.epochs) == (30, 16, 4) and long.vine.merge
    assert long.vine.alternate == base.vine.alternate and long.punter == base.punter
    assert long.evaluation == base.evaluation
    for text, problem in [
        ("extends: c.yaml\n", "makes a loop"),
        ("extends: nowhere.yaml\n", "no such file"),
        ("extends: [a, b]\n", "must name a config file"),
    ]:
        child.write_text(text)
        with pytest.raises(ValueError, match=problem):
            load_config(child)


def test_side_bets_need_two_punters():
    with pytest.raises(ValueError, match=r"side_bets: true needs at least 3 players.*2"):
        raw_env(num_players=2, rules={"side_bets": True})
    with pytest.raises(ValueError, match="side_bets"):
        env(num_players=2, rules={"side_bets": True})
    raw_env(num_players=3, rules={"side_bets": True})


# --------------------------------------------------------------------------- 7: agent specs, workers
@pytest.mark.parametrize(
    "spec, message",
    [
        ("cfr:README.md", r"README\.md is not a solution file"),
        ("table:README.md", r"README\.md is not a solution file"),
        ("ppo:README.md", r"README\.md is not a model file"),
        ("smart:6 ", "leading or trailing whitespace"),
        (" smart:6", "leading or trailing whitespace"),
        ("smart: 6", "needs a total such as 5.5"),
        ("threshold:5_5", "needs a total such as 5.5"),
    ],
)
def test_bad_agent_specs_are_refused_clearly(spec, message, monkeypatch):
    from agents.specs import check_spec, make_agent

    monkeypatch.chdir(ROOT)
    with pytest.raises(ValueError, match=message):
        check_spec(spec)
    with pytest.raises(ValueError, match=message):
        make_agent(spec, raw_env())


def test_a_non_solution_npz_is_refused_clearly(tmp_path):
    from siete_env.solve import load_tables

    f = tmp_path / "x.npz"
    np.savez(f, a=np.zeros(3))
    with pytest.raises(ValueError, match=r"x\.npz is not a solution file.*evaluate\.py --solve"):
        load_tables(f)


@pytest.mark.parametrize("workers", ["0", "-3"])
def test_evaluate_refuses_nonpositive_workers(workers, capsys):
    from evaluate import main

    assert main(["--hands", "100", "--workers", workers]) == 2
    assert f"--workers must be at least 1, got {workers}" in capsys.readouterr().err


# --------------------------------------------------------------------------- 8: output paths
def _evaluate(*args, timeout=60):
    return subprocess.run(
        [sys.executable, str(ROOT / "evaluate.py"), *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize("flag", ["--json", "--csv"])
def test_evaluate_checks_output_paths_before_the_work(flag, tmp_path):
    # 10^8 hands per pairing: the check must come first (the timeout fails the test otherwise)
    r = _evaluate("--hands", 100_000_000, flag, "/no/such/dir/out.json")
    assert r.returncode == 2
    assert f"{flag} /no/such/dir/out.json" in r.stderr and "does not exist" in r.stderr
    r = _evaluate("--hands", 100_000_000, flag, tmp_path)
    assert r.returncode == 2 and "is a folder" in r.stderr


def test_evaluate_checks_the_plots_folder_before_the_work(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = _evaluate("--hands", 100_000_000, "--plots", blocker / "sub")
    assert r.returncode == 2 and "--plots" in r.stderr and "not a folder" in r.stderr


# --------------------------------------------------------------------------- 9: orphans, run lock
def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has died (an init that does not reap keeps it)


TINY_LONG = {  # learners that are still busy in their iterations when their parent is killed
    "name": "orphans",
    "rules": "spanish",
    "generations": 1,
    "threads": 1,
    "vine": {"iterations": 1000, "punter_hands": 2000, "banker_hands": 2000, "tables": 2000, "snapshot_every": 0},
    "punter": {"ppo": {"net_arch": [8]}},
    "banker": {"ppo": {"net_arch": [8]}},
    "evaluation": {
        "punters": ["threshold:5.5"],
        "bankers": ["banker:6"],
        "workers": 1,
        "exact": False,
        "select": "best_worst",
    },
}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_learners_die_with_a_killed_train_py(tmp_path):
    """SIGKILL train.py while the learners are in their iterations: they (and the resource
    tracker) are gone within 2 s and write nothing more into the run folder. ~10 s: two
    spawned interpreters import torch and sb3."""
    cfg, run = tmp_path / "c.yaml", tmp_path / "run"
    cfg.write_text(yaml.safe_dump(TINY_LONG))
    p = subprocess.Popen(
        [sys.executable, str(ROOT / "train.py"), "--config", str(cfg), "--run-dir", str(run), "--no-eval"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not (
            len(list((run / "tb" / "punter").glob("events.*"))) and len(list((run / "tb" / "banker").glob("events.*")))
        ):
            assert p.poll() is None, p.stderr.read().decode()[-3000:]
            assert time.monotonic() < deadline, "the learners never started learning"
            time.sleep(0.1)
        kids = _children(p.pid)
        assert len(kids) >= 2, kids
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        t0 = time.monotonic()
        while any(_alive(k) for k in kids) and time.monotonic() - t0 < 2:
            time.sleep(0.05)
        assert not [k for k in kids if _alive(k)], "processes outlived their parent"
        time.sleep(0.5)
        assert not list(run.glob("gen_*/*.zip"))
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # whatever is left of that session (ours)
        except ProcessLookupError:
            pass


def test_a_run_folder_is_locked(tmp_path):
    from training.runs import lock_run_dir

    with lock_run_dir(tmp_path):
        with lock_run_dir(tmp_path):  # re-entrant in the process that holds it
            pass
        code = (
            "import sys; sys.path.insert(0, sys.argv[2]); from training.runs import lock_run_dir\n"
            "from pathlib import Path\n"
            "try:\n"
            "    with lock_run_dir(Path(sys.argv[1]), wait=0.2): pass\n"
            "except ValueError as e:\n"
            "    print(e); sys.exit(3)\n"
        )
        r = subprocess.run([sys.executable, "-c", code, str(tmp_path), str(ROOT)], capture_output=True, text=True)
        assert r.returncode == 3, r.stderr
        assert f"run folder {tmp_path} is in use by another training process (pid {os.getpid()})" in r.stdout
    with lock_run_dir(tmp_path):  # released
        pass


def test_train_refuses_a_locked_run_folder(tmp_path):
    from training.runs import lock_run_dir

    with lock_run_dir(tmp_path):
        code = (
            "import sys; sys.path.insert(0, sys.argv[2]); import training.runs, training.train_cli as t\n"
            "training.runs.LOCK_WAIT = 0.2\n"
            "sys.exit(t.main(['--run-dir', sys.argv[1], '--set', 'generations=1', '--no-eval']))\n"
        )
        r = subprocess.run([sys.executable, "-c", code, str(tmp_path), str(ROOT)], capture_output=True, text=True)
    assert r.returncode == 2, r.stderr[-2000:]
    assert "is in use by another training process" in r.stderr
    assert not (tmp_path / "state.json").exists() and not (tmp_path / "config.yaml").exists()


# --------------------------------------------------------------------------- 10: legal_actions order
@pytest.mark.parametrize(
    "rules, n",
    [
        ({"preset": "italian", "burn_three_four": True, "ace_half": True, "hands_per_episode": 4}, 3),
        ({"preset": "spanish", "side_bets": True, "fusilar": True, "hands_per_episode": 3}, 5),
        ({"preset": "spanish_full", "hands_per_episode": 3}, 4),
    ],
)
def test_legal_actions_are_listed_in_action_id_order(rules, n):
    e = raw_env(num_players=n, rules=rules)
    rng = np.random.default_rng(0)
    seen = set()
    for ep in range(60):
        e.reset(seed=ep)
        for _agent in e.agent_iter():
            obs, _, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert info["legal_actions"] == tuple(e.action_names[i] for i in legal)
            seen.add(info["legal_actions"][0])
            e.step(int(rng.choice(legal)))
    assert seen  # the mechanics listed out of order before: BURN, ACE_HALF, SIDE_BET_r
    if "burn_three_four" in rules:
        e.reset(seed=0, options={"deck": ["3o", "5c", "7e"], "banker": 0})
        names = e.infos["player_1"]["legal_actions"]
        assert "BURN" in names and names == tuple(sorted(names, key=e.action_id))


def test_illegal_action_message_lists_legal_actions_in_id_order():
    e = raw_env(num_players=2, rules={"preset": "italian", "burn_three_four": True})
    e.reset(seed=0, options={"deck": ["3o", "5c"], "banker": 0})
    with pytest.raises(IllegalActionError, match=r"legal actions now: \['BET_1'.*'BURN'\]"):
        e.step(0)


def test_no_warnings_from_a_clean_episode():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e = raw_env(num_players=3)
        e.reset(seed=0)
        _play_out(e)


@pytest.mark.parametrize("module", ["training.evaluate_cli", "training.driver"])
def test_the_commands_run_numpy_on_one_blas_thread(module):
    """``evaluate.py`` and ``train.py`` set one BLAS thread before numpy loads
    (``training.blas``): a second OpenBLAS thread per process spun against the other
    responder of a pair run side by side and halved both. A value set outside is kept."""
    code = f"import os, {module}, numpy; print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))"
    base = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    }

    def run(**extra):
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env={**base, **extra}, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout.split()

    unset, pinned, outside = run(), run(OPENBLAS_NUM_THREADS="1"), run(OPENBLAS_NUM_THREADS="2")
    assert unset == pinned and unset[0] == "1"  # the same threads as a process told one BLAS thread
    assert outside[0] == "2"
