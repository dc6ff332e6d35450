"""``evaluate.py --exact`` from the command line: exact values of a known pair, and a
clear refusal of the rules the exact evaluator does not cover."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .tolerance import FLOAT64

pytestmark = pytest.mark.processor  # run again with NUMBA_CPU_NAME=generic (tests/tolerance.py)

ROOT = Path(__file__).resolve().parent.parent
SINGLE_STAKE = ["--rule", "bet_levels=[1]", "--rule", "four_swap=off", "--rule", "max_splits=0"]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "evaluate.py"), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)  # fmt: skip


def test_exact_values_of_the_threshold_pair(tmp_path):
    out = tmp_path / "exact.json"
    r = _run("--exact", "--punters", "threshold:5.5", "--bankers", "banker:6", *SINGLE_STAKE, "--json", str(out))
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(out.read_text())
    assert abs(row["ev"] - (-0.1777828)) < 1e-6
    # each best response gains at least what the given policy gets, and NashConv adds the gains
    assert row["punter_br_value"] >= row["ev"] and row["banker_br_value"] >= -row["ev"]
    gains = (row["punter_br_value"] - row["ev"]) + (row["banker_br_value"] + row["ev"])
    assert abs(row["nash_conv"] - gains) < FLOAT64 and abs(row["exploitability"] - gains / 2) < FLOAT64
    assert "NashConv" in r.stdout


def test_exact_refuses_rules_it_does_not_cover():
    r = _run("--exact", "--punters", "threshold:5.5", "--bankers", "banker:6")  # the spanish preset splits
    assert r.returncode == 2
    assert r.stderr.startswith("error:") and "max_splits" in r.stderr
    r = _run("--exact", "--players", "3", "--punters", "threshold:5.5", "--bankers", "banker:6", *SINGLE_STAKE)
    assert r.returncode == 2 and "heads-up" in r.stderr
    r = _run("--exact", "--punters", "threshold:5.5", "--bankers", "banker:6", "--rule", "max_splits")
    assert r.returncode == 2 and "option=value" in r.stderr


def test_milestones_say_how_far_nash_conv_is_from_the_targets():
    from training.report import milestones

    assert milestones(0.0413) == (
        "Targets (NashConv, chips per hand): ≤ 0.1: met; ≤ 0.03: not met, 0.0113 above (1.4x); "
        "≤ 0.01: not met, 0.0313 above (4.1x)."
    )
    assert "≤ 0.1: not met, 1.6600 above (17.6x)" in milestones(1.76)
    assert milestones(0.01).endswith("≤ 0.01: met.")


def test_limits_say_which_side_is_more_exploitable():
    from training.report import limits

    text = limits({"ev": -0.11, "punter_br": -0.10, "banker_br": 0.112, "nash_conv": 0.012})
    assert "gains 0.0100 against the final banker" in text and "0.0020 against the final punter" in text
    assert text.endswith("the banker is the more exploitable side.")
