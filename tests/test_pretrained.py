"""The pretrained agents shipped with the package: they play by spec without training (no
torch, no SB3), and the shipped file reproduces the exact values stated beside it
(``agents/pretrained/*.json``, quoted in docs/agents.md)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from agents.pretrained import shipped
from agents.specs import PRETRAINED, PRETRAINED_DIR, AgentSpec, make_agent
from siete_env import raw_env

from .tolerance import STATED

META = json.loads((PRETRAINED_DIR / "spanish-headsup.json").read_text())


@pytest.mark.processor
def test_the_stated_exact_values_are_the_shipped_files():
    """NashConv, both best responses and every heuristic pairing, recomputed exactly."""
    from training.ship import exact_values

    got = exact_values(PRETRAINED_DIR / META["file"])
    want = META["exact"]
    for key in ("nash_conv", "ev", "punter_br_value", "banker_br_value"):
        assert got[key] == pytest.approx(want[key], abs=STATED), key
    for side in ("as_punter_vs", "as_banker_vs"):
        assert got[side].keys() == want[side].keys()
        for spec, v in want[side].items():
            assert got[side][spec] == pytest.approx(v, abs=STATED), (side, spec)


def test_docs_quote_the_stated_nash_conv():
    docs = (PRETRAINED_DIR.parent.parent / "docs" / "agents.md").read_text()
    assert f"{META['exact']['nash_conv']:.4f}" in docs


def _play(e, agents, episodes):
    """``episodes`` episodes of ``e``, every move by its seat's agent and legal."""
    for _ in range(episodes):
        for agent in e.agent_iter():
            _, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            obs = e.observe(agent)
            action = agents[e.seat_of(agent)](obs)
            assert obs["action_mask"][action]
            e.step(action)
        e.reset()


@pytest.mark.parametrize("rules", ["spanish", {"preset": "spanish", "max_splits": 0}])
def test_they_play_both_seats_of_a_heads_up_spanish_table(rules):
    e = raw_env(num_players=2, rules=rules)
    e.reset(seed=0)
    agents = {s: make_agent(f"pretrained:{r}", e, seed=s) for s, r in enumerate(("banker", "punter"))}
    _play(e, agents, 30)
    assert sum(e.game.chips) == 0


def test_specs_and_bad_uses():
    assert AgentSpec.parse("pretrained:punter").path == PRETRAINED_DIR and PRETRAINED == ("punter", "banker")
    with pytest.raises(ValueError, match="pretrained:punter, pretrained:banker"):
        AgentSpec.parse("pretrained:dealer")
    for players, rules in ((3, "spanish"), (4, {"preset": "spanish", "max_splits": 0}), (2, "italian")):
        e = raw_env(num_players=players, rules=rules)
        with pytest.raises(ValueError, match="no pretrained agents for this table.*they sit at.*4 players italian"):
            make_agent("pretrained:banker", e)


NETWORK_PAIRS = [s for s in shipped() if s.meta.get("kind") == "networks"]


def test_a_network_pair_for_each_table_people_sit_at():
    """Heads-up spanish with splits, spanish, italian and quattro e mezzo at four seats (issue 48)."""
    tables = {(s.num_players, s.rules["preset"], bool(s.rules["max_splits"])) for s in NETWORK_PAIRS}
    assert {(2, "spanish", True), (4, "spanish", True), (4, "italian", False)} <= tables
    assert any(s.num_players == 4 and s.rules["scoring"] == "points" for s in NETWORK_PAIRS)


@pytest.mark.parametrize("pair", NETWORK_PAIRS, ids=lambda s: s.name)
def test_network_pairs_sit_at_their_table_and_play_every_seat(pair):
    """By spec, at the table the JSON names (rules given as the preset's name where they are
    the preset's): each seat's move is legal, the bank's turns go to the banker network."""
    from agents.pretrained import NetworkPair, NetworkPairAgent

    preset_rules = raw_env(num_players=2, rules=pair.rules["preset"]).rules.model_dump(mode="json")
    rules = pair.rules["preset"] if preset_rules == pair.rules else pair.rules
    e = raw_env(num_players=pair.num_players, rules=rules)
    agents = {s: make_agent(f"pretrained:{('punter', 'banker')[s % 2]}", e, seed=s) for s in range(pair.num_players)}
    assert all(type(a) is NetworkPairAgent for a in agents.values())
    loaded = NetworkPair.shared(pair.file)
    assert agents[0].banker.policy is loaded.banker and agents[1].punter.policy is loaded.punter
    e.reset(seed=0)
    start = list(e.game.chips)
    _play(e, agents, 20)
    if e.rules.scoring == "stakes":
        assert sum(e.game.chips) == sum(start)
    with pytest.raises(ValueError, match="trained for"):
        NetworkPairAgent(raw_env(num_players=3, rules="spanish"), loaded)


def test_network_pairs_quote_their_run_and_docs_quote_them():
    docs = (PRETRAINED_DIR.parent.parent / "docs" / "agents.md").read_text()
    for pair in NETWORK_PAIRS:
        meta = pair.meta
        assert meta["command"].startswith("python train.py --config configs/train/") and meta["commit"]
        rep = meta["report"]
        assert set(rep["learned_best_response_gain"]) == {"banker", "punter"}
        assert f"{rep['punter_worst']['mean']:+.3f}" in docs, pair.name
        assert f"`{pair.name}.npz`" in docs


def test_they_play_without_torch_or_sb3():
    """In a fresh interpreter where importing torch or stable_baselines3 fails."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'stable_baselines3', 'sb3_contrib'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from siete_env import raw_env\n"
        "from agents.specs import make_agent\n"
        "e = raw_env(num_players=2); e.reset(seed=1)\n"
        "a = make_agent('pretrained:punter', e, seed=0)\n"
        "agent = e.agent_selection\n"
        "print(e.action_names[a(e.observe(agent))])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().startswith(("BET_", "STAND", "HIT"))


def test_evaluate_and_play_take_them(tmp_path):
    from agents.play import main as play_main

    script = tmp_path / "moves.txt"
    script.write_text("BET_1\nSTAND\n")
    import io

    from rich.console import Console

    out = io.StringIO()
    rc = play_main(
        [
            "--seat",
            "1",
            "--banker",
            "0",
            "--episodes",
            "1",
            "--opponents",
            "pretrained:banker",
            "--script",
            str(script),
        ],
        console=Console(file=out, width=120),
    )
    assert rc == 0 and "pretrained:banker" in out.getvalue()
    np.testing.assert_equal(len(META["exact"]["as_punter_vs"]), 4)


def test_the_ship_command_states_values_rounded_and_refuses_a_run_without_a_mixture(tmp_path, capsys):
    """``python -m training.ship``: the values it states are rounded to ``STATED_DIGITS``
    decimals (what holds on every processor), and a run folder without ``final.npz`` is
    refused before any work."""
    from training.ship import STATED_DIGITS, main, stated

    assert STATED_DIGITS == 6 and stated(np.float32(0.1234567)) == 0.123457 and type(stated(1)) is float
    with pytest.raises(SystemExit) as err:
        main([str(tmp_path)])
    assert err.value.code == 2 and "final.npz" in capsys.readouterr().err
    r = subprocess.run([sys.executable, "-m", "training.ship", "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "--refresh" in r.stdout
