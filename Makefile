# Every target sets itself up: a virtual environment in .venv with the project installed
# (with its training extras: torch CPU, stable-baselines3, sb3-contrib, tensorboard, ...).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
ARGS ?=

VENV_RLLIB ?= .venv-rllib

.PHONY: train test demo bench bench-batched rllib test-rllib lint clean openspiel browser table

# game.py, encoding.py and settle.py are compiled at install (mypyc, setup.py): an edit to
# them reinstalls, or the stale compiled modules would shadow the source
$(VENV)/.installed: pyproject.toml setup.py siete_env/game.py siete_env/encoding.py siete_env/settle.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,train,web]"
	$(PY) -m siete_env.warmup  # the numba kernels compiled ahead (about 1 minute on two cores), not in the first run
	touch $@

train: $(VENV)/.installed  ## the main job: train both roles (configs/train/default.yaml), then the report
	$(PY) train.py $(ARGS)

# The whole suite (one worker per core: pytest-xdist, a test file per worker; the 15 slowest
# tests printed), then the tests marked `processor` again on another build of the numba
# kernels (NUMBA_CPU_NAME=generic: no FMA, other vector widths), so that a float compared
# tighter than every processor rounds fails here and not on a user's machine (tests/tolerance.py).
test: $(VENV)/.installed browser
	$(PY) -m pytest -n auto --dist loadfile --no-loadscope-reorder --durations=15
	NUMBA_CPU_NAME=generic $(PY) -m pytest -n auto --dist loadfile -m processor

# The web table's browser test drives Debian's Chromium: installed here when missing (as root
# with apt-get, as CI runs); elsewhere the test is skipped with a message saying what to install.
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing Chromium and chromedriver (Debian packages) for the browser test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	else echo "no Chromium: the browser test will be skipped (apt-get install chromium chromium-driver)"; fi

table: $(VENV)/.installed  ## the web table on http://127.0.0.1:8000 against the pretrained agents (docs/web.md)
	$(PY) -m agents.web $(ARGS)

openspiel: $(VENV)/.installed  ## the optional OpenSpiel extra, its tests and a short run of its algorithms (docs/openspiel.md)
	$(PY) -m pip install --quiet -e ".[openspiel]"
	$(PY) -m pytest tests/test_openspiel.py
	$(PY) benchmarks/openspiel_algorithms.py --budget 30 --checkpoints 30 --episodes 2000

demo: $(VENV)/.installed  ## play and print a few hands between simple table players
	$(PY) demo.py

bench: $(VENV)/.installed  ## throughput side by side with PettingZoo's leduc_holdem_v4
	$(PY) benchmarks/throughput.py

bench-batched: $(VENV)/.installed  ## the batched engine beside Pgx's leduc_holdem, the AEC env and leduc_holdem_v4
	$(VENV)/bin/pip install --quiet pgx jax
	$(PY) benchmarks/batched.py $(ARGS)

# Ray RLlib pins its own gymnasium: the rllib extra lives in an environment of its own.
$(VENV_RLLIB)/.installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV_RLLIB)
	$(VENV_RLLIB)/bin/python -m pip install --quiet --upgrade pip
	SIETE_PURE_PYTHON=1 $(VENV_RLLIB)/bin/python -m pip install --quiet -e ".[rllib]" pytest
	touch $@

rllib: $(VENV_RLLIB)/.installed  ## multi-agent training on Ray RLlib (configs/rllib/default.yaml), docs/rllib.md
	$(VENV_RLLIB)/bin/python train_rllib.py $(ARGS)

test-rllib: $(VENV_RLLIB)/.installed  ## the RLlib smoke test (skipped by `make test`, which has no Ray)
	$(VENV_RLLIB)/bin/python -m pytest tests/test_rllib.py

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

clean:
	rm -rf $(VENV) $(VENV_RLLIB) .pytest_cache .hypothesis .ruff_cache *.egg-info
