# Two set-up commands matter: `make lab` (the main job) and `make test`.
# Everything they need is installed from here: Python packages through pyproject.toml,
# Debian's chromium through apt when it is missing and we are root.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
CHROMIUM ?= /usr/bin/chromium
PYTEST_ARGS ?=

.PHONY: lab test bench release chromium clean help

help:
	@echo "make lab      create .venv, install the kit with JupyterLab, start JupyterLab on notebooks/"
	@echo "make test     create .venv with the test extras, make sure Chromium is there, run the whole suite"
	@echo "make bench    run the benchmarks in benchmarks/ and rewrite BENCHMARKS.md"
	@echo "make release  build the student versions of the notebooks with nbgrader generate_assignment"

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "Python 3.10 or newer is needed"'
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.installed-lab: pyproject.toml | $(VENV)/bin/python
	$(PIP) install --quiet -e '.[lab]'
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/python
	$(PIP) install --quiet -e '.[test]'
	@touch $@ $(VENV)/.installed-lab

lab: $(VENV)/.installed-lab
	$(VENV)/bin/mines lab notebooks

chromium:
	@if [ -x "$(CHROMIUM)" ]; then \
	  echo "chromium: $(CHROMIUM)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "chromium is missing: installing Debian's package"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "chromium is missing at $(CHROMIUM): install Debian's 'chromium' package (as root: apt-get install chromium)"; \
	  exit 1; \
	fi

test: $(VENV)/.installed-test chromium
	$(PY) -m pytest $(PYTEST_ARGS)

bench: $(VENV)/.installed-test chromium
	$(PY) -m benchmarks

release: $(VENV)/.installed-lab
	$(PY) -m autograder.release

clean:
	rm -rf $(VENV) build dist *.egg-info test-artifacts release
