"""The fuzz campaign (``python -m siete_env.fuzz``): a short run, determinism, and that
each check catches the fault it is there for."""

from __future__ import annotations

import random

import numpy as np
import pytest

from siete_env import fuzz, raw_env
from siete_env.rules import PRESETS, Rules


def test_short_campaign_every_preset_random_rules(capsys):
    """The README/docs command, short: every preset, table sizes 2-12, random rules."""
    argv = ["--hands", "120", "--presets", "all", "--players", "2", "3", "5", "8", "12", "--random-rules"]
    assert fuzz.main(argv) == 0
    out = capsys.readouterr().out
    for p in PRESETS:
        assert f"\n{p} " in out
    assert "violations" in out and "VIOLATION" not in out


def test_campaign_is_deterministic_and_leaves_the_global_generators_alone():
    py, np_state = random.getstate(), np.random.get_state()
    a = fuzz.campaign(60, ["italian", "spanish_full"], [3, 5], True, seed=3)
    b = fuzz.campaign(60, ["spanish_full"], [3, 5], True, seed=3)  # a preset's play: (seed, preset) only
    assert random.getstate() == py and np.random.get_state()[1].tolist() == np_state[1].tolist()
    sa, sb = a["spanish_full"], b["spanish_full"]
    assert (sa.hands, sa.steps, sa.episodes, sa.configs) == (sb.hands, sb.steps, sb.episodes, sb.configs)
    assert a["italian"].hands >= 60 and not a["italian"].violations


def test_an_episode_replays_from_what_a_violation_prints():
    spec = {"preset": "spanish", "hands_per_episode": 3, "starting_chips": 3}
    h1, s1, v1 = fuzz.check_episode(spec, 5, "env", 123)
    table = raw_env(num_players=5, rules=spec)
    fuzz.check_episode(spec, 5, "raw_env", 7, table)  # a reused table plays the same
    h2, s2, v2 = fuzz.check_episode(spec, 5, "raw_env", 123, table)
    assert (h1, s1, v1) == (h2, s2, v2) and not v1 and h1 >= 1 and s1 > 0


@pytest.mark.parametrize(
    "fault, expected",
    [
        ("chips_info", "infos['player_"),
        ("legal_order", "legal_actions"),
        ("rewards", "rewards sum to"),
        ("mask", "has legal actions while"),
        ("observation", "outside observation_space"),
        ("exception", "exception: RuntimeError: boom"),
    ],
)
def test_each_check_catches_its_fault(monkeypatch, capsys, fault, expected):
    if fault == "chips_info":
        orig = raw_env._info
        monkeypatch.setattr(raw_env, "_info", lambda self, seat: {**orig(self, seat), "chips": 99})
    elif fault == "legal_order":
        orig_names = raw_env.legal_action_names
        monkeypatch.setattr(raw_env, "legal_action_names", lambda self: tuple(reversed(orig_names(self))))
    elif fault == "rewards":
        orig_step = raw_env.step

        def step(self, action):
            orig_step(self, action)
            if self.agents and any(self.rewards.values()):
                self.rewards[self.agents[0]] += 1

        monkeypatch.setattr(raw_env, "step", step)
    elif fault in ("mask", "observation"):
        orig_obs = raw_env.observe

        def observe(self, agent):
            d = orig_obs(self, agent)
            if fault == "mask":
                return {**d, "action_mask": np.ones_like(d["action_mask"])}
            return {**d, "observation": d["observation"] + 1e6}

        monkeypatch.setattr(raw_env, "observe", observe)
    else:
        orig_step = raw_env.step

        def step(self, action):
            if self.game.hand_no == 0 and action is not None:
                raise RuntimeError("boom")
            orig_step(self, action)

        monkeypatch.setattr(raw_env, "step", step)
    assert fuzz.main(["--hands", "5", "--presets", "spanish", "--players", "3", "--api", "raw_env"]) == 1
    out = capsys.readouterr().out
    assert "VIOLATION spanish, 3 players, raw_env()" in out and expected in out
    assert "reproduce: python -c" in out and "check_episode(" in out


def test_lost_cards_are_caught(monkeypatch):
    table = raw_env(num_players=2)
    monkeypatch.setattr(Rules, "deck_cards", lambda self: tuple(range(39)))
    _, _, broken = fuzz.check_episode("spanish", 2, "raw_env", 0, table)
    assert broken and "cards not conserved" in broken[0]


def test_random_rules_are_valid_or_skipped():
    rng = np.random.default_rng(0)
    drawn = [fuzz.random_rules("spanish", rng, 2) for _ in range(200)]
    ok = [d for d in drawn if d is not None]
    assert ok and len(ok) < 200  # some clash and are skipped
    assert not any(d.get("side_bets") for d in ok)  # refused heads-up


def test_bad_arguments(capsys):
    for argv in (["--presets", "poker"], ["--players", "1"], ["--hands", "0"], ["--workers", "0"]):
        with pytest.raises(SystemExit) as e:
            fuzz.main(argv)
        assert e.value.code == 2
