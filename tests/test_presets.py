"""Presets and rule options: selection by name, YAML file or dict; clear errors; and
PettingZoo's API and seed tests for every preset at 2, 4 and 8 players."""

from __future__ import annotations

from pathlib import Path

import pytest
from pettingzoo.test import api_test, seed_test

from siete_env import PRESETS, env, raw_env, resolve_rules

CONFIGS = Path(__file__).resolve().parent.parent / "configs" / "rules"


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_preset_yaml_file_matches_the_preset(preset):
    path = CONFIGS / f"{preset}.yaml"
    assert resolve_rules(str(path)) == resolve_rules(preset)
    assert raw_env(rules=str(path)).rules == resolve_rules(preset)


def test_rules_by_name_file_and_dict(tmp_path):
    table = tmp_path / "my_table.yaml"
    table.write_text("preset: latin\nfour_swap: mandatory\n")
    r = resolve_rules(str(table))
    assert r.remove_sotas and r.four_swap == "mandatory" and r.preset == "latin"
    r = resolve_rules({"preset": "spanish", "remove_sotas": True})
    assert r.remove_sotas and r.preset == "spanish"


@pytest.mark.parametrize(
    "content,message",
    [
        ("preset: latin\nfour_swap: [\n", "is not valid YAML"),
        ("- a\n- b\n", "must hold a mapping of rule options"),
        ("foo: 1\n", "unknown rule option.*'foo'"),
        ("all_face_up: true\n", "all_face_up: true and draw_face_down: true clash"),
    ],
)
def test_broken_rules_files_are_refused(tmp_path, content, message):
    f = tmp_path / "bad.yaml"
    f.write_text(content)
    with pytest.raises(ValueError, match=message):
        raw_env(rules=str(f))


def test_missing_rules_file():
    with pytest.raises(ValueError, match="cannot read rules file 'nope/table.yaml'"):
        resolve_rules("nope/table.yaml")


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("n", [2, 4, 8])
def test_api_and_seed_for_every_preset(preset, n):
    api_test(env(num_players=n, rules=preset), num_cycles=200)
    seed_test(lambda: env(num_players=n, rules=preset), num_cycles=200)
