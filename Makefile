# Two commands do all the set-up: `make run` starts the app, `make test` runs every test.
# `make run PORT=8080 TREE=sample_trees/random_200.csv` serves a class (see README, "Teaching with one server");
# `make run WORKERS=4` serves it from 4 app processes behind nginx (workbench/hall.py, docs/runs.md).
# `make test-fast` is the quick lane (no browser, no benchmark data, nothing marked slow);
# `make test-generic-cpu` runs the pinned tests on another CPU's code paths (tests/test_generic_cpu.py);
# `make lint` runs ruff with the rules in pyproject.toml.
PYTHON ?= python3
VENV   ?= .venv
PORT   ?= 8501
# 127.0.0.1: this machine only. A classroom network: make run ADDRESS=0.0.0.0 (and see the README)
ADDRESS ?= 127.0.0.1
# App processes (about one core each); more than one: nginx on PORT in front of ports PORT+1..PORT+WORKERS
WORKERS ?= 1
# Quiet and quick: errors only (pip's warnings about this machine's own index settings are not
# the project's), no byte-compiling of every installed file (Python compiles what it imports, once)
PIP    := $(VENV)/bin/python -m pip install -qq --no-compile --disable-pip-version-check
# The dependencies go in with uv (a Rust installer from the package index, put into .venv by pip
# first: 1 s; then 5-9 s where pip alone took 23 s, the same packages and versions), and with pip
# where pip is told of an index of its own (uv does not read pip's configuration) or when uv cannot
# be had or fails (then said); uv compiles no bytecode either
install = if $(VENV)/bin/python -m pip config list 2>/dev/null | grep -q '\.index-url='; then $(PIP) $(1); \
	elif { $(PIP) uv 2>/dev/null && $(VENV)/bin/uv pip install --quiet --python $(VENV)/bin/python $(1); }; then :; \
	else echo "make: uv could not install them; pip does (about 30 s)"; $(PIP) $(1); fi
# Test processes (pytest-xdist): one more than the cores (3 here), as a browser test spends part
# of its time waiting on its page and its app; the tests marked `waits` (timers, other processes)
# run among the browser tests (tests/conftest.py). On the same warm checkout pytest took 10.0 min
# with 2, 8.9 with 3, 8.8-8.9 with the waiting tests spread (28 November; docs/benchmarks.md).
# `make test TEST_WORKERS=2` sets another count; `make test TEST_WORKERS=0` runs the tests in this process
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
PYTEST := $(VENV)/bin/python -m pytest $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS)) --durations=10

# Python keeps what it compiles (in .venv and the tree's __pycache__): with PYTHONDONTWRITEBYTECODE
# set in the environment (this CI machine sets it) and pip's --no-compile, every process (each test
# worker, each app server or CLI a test starts, each run worker) compiled streamlit, plotly, pandas
# and numba from source again: 4-6 s of CPU each, and pytest rewrote every test module's asserts
# again (collection 25 s instead of 9 s).
unexport PYTHONDONTWRITEBYTECODE

# numba's compiled kernels are cached here, not beside the sources (read-only installs, one cache
# shared by the app, the tests and the CLI).
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache

.PHONY: run test test-fast test-generic-cpu lint bench clean

$(VENV)/bin/python:
	@$(PYTHON) -m venv $(VENV)

# Stamp files: reinstall only when pyproject.toml changes. The app is the `app` extra (`pip install .`
# alone is the engine and its command line, no Streamlit: tests/test_engine_alone.py). The extras are
# named in variables: a comma written inside $(call ...) would split its argument in two.
RUN_EXTRAS  := app
TEST_EXTRAS := app,test
$(VENV)/.installed-run: pyproject.toml | $(VENV)/bin/python
	@echo "make: installing the dependencies into $(VENV) (once per change of pyproject.toml; about 10 s)"
	@$(call install,-e '.[$(RUN_EXTRAS)]')
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/python
	@echo "make: installing the dependencies and the test tools into $(VENV) (about 10 s, once)"
	@$(call install,-e '.[$(TEST_EXTRAS)]')
	@touch $@ $(VENV)/.installed-run

# Warm-up (the first pages' kernels compiled, in parallel, or loaded from the cache; those pages
# rendered once), then serve on $(ADDRESS) (127.0.0.1 unless ADDRESS=0.0.0.0) while the run workers
# compile the learning kernels; TREE=... gives every new session the class tree.
run: $(VENV)/.installed-run
	@$(VENV)/bin/python -m workbench.$(if $(filter-out 1,$(WORKERS)),hall --workers $(WORKERS),serve) --port $(PORT) --address $(ADDRESS) $(if $(TREE),--tree '$(TREE)')

# Every kernel compiled once, in parallel, before the test processes share the cache; then every
# test, in one process more than the cores (TEST_WORKERS), with the ten slowest listed.
test: $(VENV)/.installed-test
	@$(VENV)/bin/python -m engine.warmup --all
	$(PYTEST)

test-fast: $(VENV)/.installed-test
	@$(VENV)/bin/python -m engine.warmup --all
	$(PYTEST) -m "not browser and not data and not slow"

# The tests that check numbers recorded on one machine, on another CPU's code paths: numba compiling
# for a baseline CPU (into .numba_cache/generic-cpu: 85 s of CPU the first time, 10 s once cached),
# NumPy without its SIMD loops, OpenBLAS on its oldest kernels; make test runs it too (a slow test)
test-generic-cpu: $(VENV)/.installed-test
	$(VENV)/bin/python -m tests.test_generic_cpu

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check .

bench: $(VENV)/.installed-run
	$(VENV)/bin/python -m engine bench online

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .numba_cache .ruff_cache
