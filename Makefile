# Wenshu: `make run` (set up, then chat with the demo database) and `make test` (set up, the import-layer
# contracts of pyproject.toml, then the test suite).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# The embedded runtime: `portable` (default; runs on any x86-64 CPU with AVX2, AVX-512 where present, never
# AMX) or `native` (this CPU only). Flags and why: scripts/build_llama.py and docs/runtime.md.
LLAMA_BUILD ?= portable
LLAMA_FLAGS := $(if $(filter native,$(LLAMA_BUILD)),--native,)

.PHONY: run run-team run-team-down desktop test install runtime system-deps model doctor check-runtime bench-perf clean

$(STAMP): pyproject.toml scripts/build_llama.py
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "Installing the embedded runtime (the first build of llama-cpp-python takes several minutes; cached after)..."
	$(BIN)/python scripts/build_llama.py $(LLAMA_FLAGS)
	@echo "Installing Wenshu..."
	$(BIN)/pip install --disable-pip-version-check --progress-bar on -e '.[embedded,dev]'
	@touch $(STAMP)

install: $(STAMP)

# The desktop window's extra (pywebview + PyGObject, which builds against the Debian headers system-deps installs).
DESKTOP_STAMP := $(VENV)/.desktop-stamp
$(DESKTOP_STAMP): $(STAMP) pyproject.toml | system-deps
	$(BIN)/pip install --disable-pip-version-check --progress-bar on -e '.[desktop]'
	@touch $(DESKTOP_STAMP)

# The web UI in a native window (`wenshu desktop`), on the server it starts or one already running.
desktop: check-runtime $(DESKTOP_STAMP)
	$(BIN)/wenshu desktop $(DESKTOP_ARGS)

# Rebuild the runtime (e.g. `make runtime LLAMA_BUILD=native`), then check it.
runtime:
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python scripts/build_llama.py --force $(LLAMA_FLAGS)
	$(MAKE) check-runtime

model: $(STAMP)
	$(BIN)/wenshu model install

# One real decode in a child process: a runtime built for another CPU is reported here, with the fix.
check-runtime: model
	$(BIN)/wenshu doctor --runtime

run: check-runtime
	@echo "Starting the Wenshu server on the demo database with the embedded model (terminal chat: $(BIN)/wenshu chat)."
	$(BIN)/wenshu serve $(SERVE_ARGS)

# A team service on this machine, no Docker: PostgreSQL and Redis from Debian (`make system-deps`) with their data
# in WENSHU_HOME/team, the app store migrated, `wenshu serve` on both (with TEAM_WORKERS workers where `wenshu serve`
# has --workers). With WENSHU_LLM_BASE_URL set the embedded model is not installed. Stop the servers with
# `make run-team-down`. docs/team.md.
TEAM_WORKERS ?= 2
run-team: $(if $(WENSHU_LLM_BASE_URL),$(STAMP),check-runtime)
	TEAM_WORKERS=$(TEAM_WORKERS) WENSHU=$(BIN)/wenshu bash scripts/run-team.sh serve

run-team-down:
	bash scripts/run-team.sh down

doctor: $(STAMP)
	$(BIN)/wenshu doctor

# PostgreSQL, MariaDB, Redis, Chromium, Xvfb and WebKit2GTK from Debian: the guard, store, browser and
# window tests use the real thing.
system-deps:
	bash scripts/system-deps.sh

# The suite runs in PYTEST_WORKERS processes (pytest-xdist; 0: one process), a whole test file per worker, so
# each file's module fixtures (a Spark session, a server) are built once; then the tests with the real model
# (marker `model`) run alone, so two model runs never share the CPU. Each part must run tests (pytest's exit 5,
# "no tests", fails): for a subset, run `.venv/bin/python -m pytest PATHS` instead of PYTEST_ARGS=PATHS.
PYTEST_WORKERS ?= 2

test: check-runtime system-deps $(DESKTOP_STAMP)
	$(BIN)/lint-imports --no-cache --no-logo
	export WENSHU_REQUIRE_MODEL=1 WENSHU_REQUIRE_SERVERS=1 \
	WENSHU_TEST_MODEL_PATH="$$($(BIN)/wenshu model status --json | $(BIN)/python -c 'import json,sys; print(json.load(sys.stdin)["path"])')" && \
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile -m "not model" $(PYTEST_ARGS) && \
	$(BIN)/python -m pytest -m model $(PYTEST_ARGS)

bench-perf: model
	$(BIN)/python -m bench perf

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
