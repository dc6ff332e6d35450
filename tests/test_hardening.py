"""Issue 12: every bad input a clear error, no orphaned processes. One test (or a few) per
finding, each reproducing it as reported."""

from __future__ import annotations

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
    from evaluate import _rules_arg

    r = resolve_rules({"bet_levels": [1, 2], "auction_bids": [1, 5], "max_splits": 2})
    assert r.bet_levels == (1, 2) and r.auction_bids == (1, 5) and r.max_splits == 2
    f = tmp_path / "r.yaml"
    f.write_text("preset: italian\nremove_sotas: yes\nmax_splits: 1\nbet_levels: [1, 3]\nwild_card: 12o\n")
    r = resolve_rules(str(f))
    assert r.remove_sotas is True and r.max_splits == 1 and r.bet_levels == (1, 3)
    spec = _rules_arg("spanish", ["remove_sotas=yes", "four_swap=off", "canto=on", "fusilar=No", "max_splits=2"])
    r = resolve_rules(spec)
    assert (r.remove_sotas, r.four_swap, r.canto, r.fusilar, r.max_splits) == (True, "off", True, False, 2)
    for p in sorted((ROOT / "configs" / "rules").glob("*.yaml")):
        resolve_rules(str(p))


def test_train_set_rule_values_are_parsed_per_option(tmp_path):
    from train import load_config

    cfg = yaml.safe_load((ROOT / "configs" / "train" / "default.yaml").read_text())
    cfg["rules"] = {"preset": "spanish", "max_splits": 0}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    c = load_config(path, ["rules.remove_sotas=yes", "rules.four_swap=off"])
    assert c.rules["remove_sotas"] is True and c.rules["four_swap"] == "off"
    resolve_rules(c.rules)


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
    from siete_env import cfr

    f = tmp_path / "x.npz"
    np.savez(f, a=np.zeros(3))
    with pytest.raises(ValueError, match=r"x\.npz is not a solution file.*evaluate\.py --solve"):
        cfr.load(f)


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
