# gonuts — two commands on a new machine: `make run` (the web app) and `make test` (the whole suite).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup system-deps run play test lint typecheck unit bench screenshots lock clean

setup: $(STAMP)

$(STAMP): requirements/lock.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements/lock.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

run: setup
	$(BIN)/gonuts serve

play: setup
	$(BIN)/gonuts play --players 3 --humans 1

lint: setup
	$(BIN)/ruff check src tests examples
	$(BIN)/ruff format --check src tests examples

typecheck: setup
	$(BIN)/mypy

# Browser tests drive Debian's Chromium (Playwright's own browser download does not work here).
system-deps:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

# The server tests run on SQLite and on PostgreSQL: GONUTS_TEST_PG_URL, or a local cluster
# that scripts/start-postgres.sh installs (Debian's package), starts and prepares.
unit: setup system-deps
	@url="$${GONUTS_TEST_PG_URL:-}"; [ -n "$$url" ] || url=$$(scripts/start-postgres.sh) || exit 1; \
	  GONUTS_TEST_PG_URL="$$url" $(BIN)/pytest -n auto

test: lint typecheck unit

bench: setup
	$(BIN)/gonuts bench

# Refresh the README's pictures (docs/screenshots/) from the browser tests.
screenshots: setup system-deps
	GONUTS_SCREENSHOTS=1 $(BIN)/pytest -q tests/web/browser

# Regenerate the lock file after changing dependencies in pyproject.toml.
lock:
	$(BIN)/python -m pip install --quiet pip-tools
	$(BIN)/pip-compile --quiet --generate-hashes --allow-unsafe --no-emit-index-url \
	  --no-emit-find-links --extra dev --extra research --extra train --extra ray --strip-extras -o requirements/lock.txt \
	  pyproject.toml requirements/build.in

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
