# Almanac: `make up` runs the server with demo data, `make test` runs ruff and the whole test suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

.PHONY: up test lint format install install-dev browser bench clean-db

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/activate
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VENV)/bin/activate
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(VENV)/.installed $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# Debian's Chromium and its driver for the browser tests (Playwright drives /usr/bin/chromium; no download).
browser:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || \
		($(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver)

up: $(VENV)/.installed
	$(PY) manage.py up

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .

format: $(VENV)/.installed-dev
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

test: $(VENV)/.installed-dev browser
	$(VENV)/bin/ruff check .
	$(VENV)/bin/pytest $(PYTEST_ARGS)

bench: $(VENV)/.installed-dev
	for script in bench/*.py; do case $$script in bench/_*) ;; *) $(PY) $$script || exit 1;; esac; done
