# Every target sets itself up: a virtual environment in .venv with the project installed.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: demo test bench lint clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

demo: $(VENV)/.installed  ## play and print a few hands between simple table players
	$(PY) demo.py

test: $(VENV)/.installed  ## the whole test suite
	$(PY) -m pytest

bench: $(VENV)/.installed  ## throughput side by side with PettingZoo's leduc_holdem_v4
	$(PY) benchmarks/throughput.py

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache *.egg-info
