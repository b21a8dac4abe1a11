# gonuts — two commands on a new machine: `make run` (the web app) and `make test` (the whole suite).
#
# Dependencies come from hashed lock files, one per purpose, resolved from PyPI alone for
# Python 3.11, 3.12 and 3.13 (see the README, "Install"):
#   requirements/run.txt       the engine, the CLI and the web server      (make run)
#   requirements/test.txt      + dev tools, research, batch, ray, train     (make test)
#   requirements/research.txt  research, batch, ray and train extras        (documented only)
# One stamp per lock: `make run` then `make test` (or the reverse) upgrade the same .venv/.
# gonuts itself is reinstalled (editable) when pyproject.toml, setup.py or a source changes:
# setup.py compiles the engine's hot modules with mypyc in place (src/gonuts/*.so, ignored by
# git) where a C compiler works, pure Python otherwise; `gonuts --version` says which.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check
RUN_STAMP  := $(VENV)/.run-installed
TEST_STAMP := $(VENV)/.test-installed
# The uv that `make lock` uses (installed into a throwaway venv, never into .venv/).
UV_VERSION ?= 0.13.9

.PHONY: setup setup-test system-deps run play test lint typecheck unit bench screenshots lock \
  check-locks clean image

setup: $(RUN_STAMP)
setup-test: $(TEST_STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

ENGINE_SOURCES := pyproject.toml setup.py $(wildcard src/gonuts/*.py src/gonuts/bots/*.py)

$(RUN_STAMP): requirements/run.txt $(ENGINE_SOURCES) | $(BIN)/python
	@echo "gonuts: installing requirements/run.txt into $(VENV)/"
	$(PIP) install --quiet --require-hashes -r requirements/run.txt
	$(PIP) install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/gonuts --version
	touch $@

$(TEST_STAMP): requirements/test.txt $(ENGINE_SOURCES) | $(BIN)/python
	@echo "gonuts: installing requirements/test.txt into $(VENV)/"
	$(PIP) install --quiet --require-hashes -r requirements/test.txt
	$(PIP) install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/gonuts --version
	touch $@

run: setup
	$(BIN)/gonuts serve

play: setup
	$(BIN)/gonuts play --players 3 --humans 1

lint: setup-test
	$(BIN)/ruff check src tests examples scripts
	$(BIN)/ruff format --check src tests examples scripts

typecheck: setup-test
	$(BIN)/mypy

# Browser tests drive Debian's Chromium (Playwright's own browser download does not work here).
# nginx: the deployment test plays a game through the reverse proxy exactly as docs/deploy.md
# configures it.
system-deps:
	@command -v chromium >/dev/null 2>&1 && { command -v nginx || test -x /usr/sbin/nginx; } \
	  >/dev/null 2>&1 || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium nginx-light; }

# The server tests run on SQLite and on PostgreSQL: GONUTS_TEST_PG_URL, or a local cluster
# that scripts/start-postgres.sh installs (Debian's package), starts and prepares.
unit: setup-test system-deps
	@url="$${GONUTS_TEST_PG_URL:-}"; [ -n "$$url" ] || url=$$(scripts/start-postgres.sh) || exit 1; \
	  GONUTS_TEST_PG_URL="$$url" $(BIN)/pytest -n auto

# `make test` also builds and smoke-tests the container image where buildah and podman are
# installed (`make image`, below; .ci/run installs them).
HAVE_BUILDAH := $(shell command -v buildah >/dev/null 2>&1 && command -v podman >/dev/null 2>&1 && echo yes)
test: lint typecheck unit $(if $(HAVE_BUILDAH),image)

# The container image (docs/deploy.md, "Run the container"): scripts/build-image.sh builds the
# Containerfile with buildah, by default on a Debian bookworm base made here with debootstrap
# (CI can pull from no registry; `make image IMAGE_FLAGS=` builds on the official Python image
# instead), then scripts/smoke-image.sh runs it with podman: /healthz, a game against bots over
# the API, SIGTERM with a socket open, exit 0.
IMAGE ?= localhost/gonuts:latest
IMAGE_FLAGS ?= --local-base
image:
	scripts/build-image.sh $(IMAGE_FLAGS) --tag $(IMAGE)
	scripts/smoke-image.sh $(IMAGE)

bench: setup
	$(BIN)/gonuts bench

# Refresh the README's pictures (docs/screenshots/) from the browser tests.
screenshots: setup-test system-deps
	GONUTS_SCREENSHOTS=1 $(BIN)/pytest -q tests/web/browser

# Regenerate the locks after changing dependencies in pyproject.toml: a universal resolution
# (every platform, Python 3.11 and newer) from PyPI alone. Pins already in a lock are kept
# unless they must change; `make lock UPGRADE=--upgrade` moves everything to the newest.
# The test lock is resolved first; the others are constrained to its versions where they
# overlap, so one .venv/ can hold run and test without reinstalling anything.
UV_COMPILE = $$tmp/bin/uv pip compile --quiet --no-config --universal --python-version 3.11 \
  --fork-strategy fewest --generate-hashes --index-url https://pypi.org/simple --no-emit-index-url $(UPGRADE)
lock:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	  $(PYTHON) -m venv "$$tmp"; "$$tmp/bin/python" -m pip install --quiet uv==$(UV_VERSION); \
	  echo "gonuts: requirements/test.txt"; \
	  $(UV_COMPILE) --extra web --extra dev --extra research --extra batch --extra ray --extra train \
	    -o requirements/test.txt pyproject.toml requirements/build.in; \
	  echo "gonuts: requirements/run.txt"; \
	  $(UV_COMPILE) --extra web -c requirements/test.txt \
	    -o requirements/run.txt pyproject.toml requirements/build.in; \
	  echo "gonuts: requirements/research.txt"; \
	  $(UV_COMPILE) --extra research --extra batch --extra ray --extra train -c requirements/test.txt \
	    -o requirements/research.txt pyproject.toml requirements/build.in

# Check that every lock installs from PyPI alone for Python 3.11-3.13 and the main platforms
# (requirements/check-pythons.sh; downloads about 1 GB).
check-locks:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	  $(PYTHON) -m venv "$$tmp"; "$$tmp/bin/python" -m pip install --quiet uv==$(UV_VERSION); \
	  UV="$$tmp/bin/uv" requirements/check-pythons.sh

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis build src/*.so src/gonuts/*.so src/gonuts/bots/*.so
