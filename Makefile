# Two commands do all the set-up: `make run` starts the app, `make test` runs every test.
# `make run PORT=8080 TREE=sample_trees/random_200.csv` serves a class (see README, "Teaching with one server").
# `make test-fast` is the quick lane (no browser, no benchmark data, nothing marked slow);
# `make lint` runs ruff with the rules in pyproject.toml.
PYTHON ?= python3
VENV   ?= .venv
PORT   ?= 8501
# 127.0.0.1: this machine only. A classroom network: make run ADDRESS=0.0.0.0 (and see the README)
ADDRESS ?= 127.0.0.1
PIP    := $(VENV)/bin/python -m pip

# numba's compiled kernels are cached here, not beside the sources (read-only installs, one cache
# shared by the app, the tests and the CLI).
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache

.PHONY: run test test-fast lint bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# Stamp files: reinstall only when pyproject.toml changes.
$(VENV)/.installed-run: pyproject.toml | $(VENV)/bin/python
	$(PIP) install --quiet -e . --config-settings editable_mode=compat
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/python
	$(PIP) install --quiet -e '.[test]' --config-settings editable_mode=compat
	touch $@ $(VENV)/.installed-run

# Warm-up first (kernels compiled or loaded from the cache, every page rendered once, run workers
# started), then serve on $(ADDRESS) (127.0.0.1 unless ADDRESS=0.0.0.0); TREE=... gives every new
# session the class tree.
run: $(VENV)/.installed-run
	$(VENV)/bin/python -m workbench.serve --port $(PORT) --address $(ADDRESS) $(if $(TREE),--tree '$(TREE)')

test: $(VENV)/.installed-test
	$(VENV)/bin/python -m pytest

test-fast: $(VENV)/.installed-test
	$(VENV)/bin/python -m pytest -m "not browser and not data and not slow"

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check .

bench: $(VENV)/.installed-run
	$(VENV)/bin/python -m engine bench online

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .numba_cache .ruff_cache
