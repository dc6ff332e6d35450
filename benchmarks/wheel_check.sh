#!/usr/bin/env bash
# The package as a user installs it: a wheel built from a fresh clone of this repository,
# installed in a fresh virtual environment (no torch, no SB3), runs the README's
# PettingZoo example and the pretrained agents from outside the source tree.
#   bash benchmarks/wheel_check.sh            (about 3-5 minutes: the wheel compiles the engine)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
git clone -q "$repo" "$work/clone"
python3 -m venv "$work/build" && "$work/build/bin/pip" install -q --upgrade pip
"$work/build/bin/pip" wheel -q "$work/clone" --no-deps -w "$work/wheels" 2>&1 | grep -iE "deprecat|error" || true
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$work"/wheels/*.whl
sed -n '/^## PettingZoo: the AEC loop/,/^## /p' "$repo/README.md" | sed -n '/^```python/,/^```/p' | sed '1d;$d' > "$work/example.py"
cd "$work"
"$work/venv/bin/python" example.py | tail -n 4
"$work/venv/bin/python" -c "
from siete_env import raw_env
from agents.specs import make_agent
e = raw_env(num_players=2); e.reset(seed=0)
agent = make_agent('pretrained:punter', e, seed=0)
print('pretrained:punter plays', e.action_names[agent(e.observe(e.agent_selection))], 'without torch:', __import__('importlib.util').util.find_spec('torch') is None)
"
ls "$work/venv/bin" | grep '^siete-'
echo "wheel check passed ($(ls "$work"/wheels))"
