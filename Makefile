# Wenshu: `make run` (set up, then chat with the demo database) and `make test` (set up, then the test suite).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# llama-cpp-python is built from source; only the library is needed.
export CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF

.PHONY: run test install system-deps model doctor bench-perf clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "Installing Wenshu and the embedded runtime (the first build of llama-cpp-python takes several minutes)..."
	$(BIN)/pip install --disable-pip-version-check --progress-bar on -e '.[embedded,dev]'
	@touch $(STAMP)

install: $(STAMP)

model: $(STAMP)
	$(BIN)/wenshu model install

run: model
	@echo "Starting the Wenshu server on the demo database with the embedded model (terminal chat: $(BIN)/wenshu chat)."
	$(BIN)/wenshu serve $(SERVE_ARGS)

doctor: $(STAMP)
	$(BIN)/wenshu doctor

# PostgreSQL, MariaDB and Chromium from Debian: the guard and browser tests use the real thing.
system-deps:
	bash scripts/system-deps.sh

test: model system-deps
	WENSHU_REQUIRE_MODEL=1 WENSHU_REQUIRE_SERVERS=1 \
	WENSHU_TEST_MODEL_PATH="$$($(BIN)/wenshu model status --json | $(BIN)/python -c 'import json,sys; print(json.load(sys.stdin)["path"])')" \
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench-perf: model
	$(BIN)/python -m bench perf

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
