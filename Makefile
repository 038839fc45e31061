# Two set-up commands matter: `make lab` (the main job) and `make test` (which runs `make lint` first);
# `make check` is the quick loop while working (lint and the tests that need no browser, nbgrader or venv).
# `make lab` opens the student workspace (workspace/, the student versions of the notebooks, built
# once and never overwritten); instructors open the source notebooks with `make lab-source`.
# Everything they need is installed from here: Python packages through pyproject.toml,
# Debian's chromium, bubblewrap and nodejs through apt when they are missing and we are root.

# The interpreter .venv is made with: the distribution's own (SYSTEM_PYTHON) when it is 3.10 or newer
# and can make a venv, else python3 on PATH; `make PYTHON=...` picks another. Distributions build their
# Python with profile-guided and link-time optimisation; one built from source with the defaults (as
# pyenv does) has neither, and the suite's work costs it about a sixth more CPU (BENCHMARKS.md).
SYSTEM_PYTHON ?= /usr/bin/python3
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell $(SYSTEM_PYTHON) -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 10))' \
            >/dev/null 2>&1 && echo $(SYSTEM_PYTHON) || echo python3)
endif
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
CHROMIUM ?= /usr/bin/chromium
PYTEST_ARGS ?=
# Test workers (pytest-xdist): one more than the cores, the default, keeps every core busy while a
# worker waits on a server, a sleeping submission or a time limit (on 2 cores, the same day, 3
# workers took 7:39 against 8:33 for 2: BENCHMARKS.md); PYTEST_JOBS=0 runs in one process.
PYTEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null) && echo $$((n + 1)) || echo auto)
# What `make check` runs after `make lint`: every test but those marked browser (Chromium and
# JupyterLab), nbgrader (nbgrader's commands or the course they build), venv (a virtual environment
# built) or slow (more than a few seconds). Markers: pyproject.toml, tests/conftest.py.
CHECK_TESTS := not browser and not nbgrader and not venv and not slow
# How the test targets start pytest. The suite starts hundreds of Python processes (graders and their
# pool workers, nbgrader, kernels, inner pytest runs); where PYTHONDONTWRITEBYTECODE is set, each
# would compile the kit and the tests again. Their byte-code goes to .venv/pycache instead: kept
# between processes and runs, and outside the source tree, as that setting wants.
PYTEST := env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(CURDIR)/$(VENV)/pycache $(PY) -m pytest
# What `make lint` checks with ruff and mypy.
LINT_PATHS := minesweeper_kit autograder

.PHONY: lab lab-source lint check test bench release chromium bubblewrap node clean help venv-made-with

help:
	@echo "make lab         create .venv, install the kit with JupyterLab, build the student versions once"
	@echo "                 into workspace/ (yours are never overwritten) and start JupyterLab there;"
	@echo "                 .venv is made with $(PYTHON) (PYTHON=... picks another)"
	@echo "make lab-source  the same JupyterLab on notebooks/, the source versions with every solution (instructors)"
	@echo "make lint        ruff check, ruff format --check and mypy on minesweeper_kit/ and autograder/"
	@echo "make check       the quick loop while working: make lint, then the tests that need no browser, no nbgrader"
	@echo "                 and no venv build and are not slow (a few minutes; PYTEST_ARGS adds pytest options)"
	@echo "make test        create .venv with the test extras, make sure Chromium, bubblewrap and Node are there,"
	@echo "                 run make lint, then the whole suite on cores+1 workers (PYTEST_JOBS=0: in one process);"
	@echo "                 a test that crashes its worker or passes MINESWEEPER_TEST_MEMORY (4G) fails alone"
	@echo "make bench       run the benchmarks in benchmarks/ and rewrite BENCHMARKS.md"
	@echo "make release     build the student versions of the notebooks with nbgrader generate_assignment"

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "Python 3.10 or newer is needed"'
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# A .venv made earlier is kept whatever PYTHON says now (it may hold packages of its own), so a
# .venv made with another interpreter is said once per command (not again by the `make lint` that
# `make test` runs): `make clean` is what remakes it.
# The interpreter beneath a venv, or the interpreter itself outside one, links resolved.
BASE_PYTHON := import os, sys; print(os.path.realpath(sys._base_executable))
venv-made-with:
	@[ "$(MAKELEVEL)" = 0 ] || exit 0; \
	made=$$($(PY) -c '$(BASE_PYTHON)' 2>/dev/null) || exit 0; \
	wanted=$$($(PYTHON) -c '$(BASE_PYTHON)' 2>/dev/null) || exit 0; \
	[ "$$made" = "$$wanted" ] || echo "note: $(VENV) was made with $$made, not with $(PYTHON) ($$wanted); 'make clean' remakes it"

$(VENV)/.installed-lab: pyproject.toml | $(VENV)/bin/python venv-made-with
	$(PIP) install --quiet -e '.[lab]'
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/python venv-made-with
	$(PIP) install --quiet -e '.[test]'
	@touch $@ $(VENV)/.installed-lab

lab: $(VENV)/.installed-lab
	$(VENV)/bin/mines lab

lab-source: $(VENV)/.installed-lab
	$(VENV)/bin/mines lab --source

# $(call debian,PROGRAM,PACKAGE,WHY): make sure PROGRAM (a name or a path) runs, installing Debian's
# PACKAGE when it is missing and we are root; otherwise say what to install and stop.
debian = @if command -v $(1) >/dev/null; then \
	  echo "$(2): $$(command -v $(1))"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "$(1) is missing: installing Debian's '$(2)' package ($(3))"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null; \
	else \
	  echo "$(1) is missing: install Debian's '$(2)' package (as root: apt-get install $(2)); $(3)"; \
	  exit 1; \
	fi

chromium:
	$(call debian,$(CHROMIUM),chromium,the browser tests drive it)

bubblewrap:
	$(call debian,bwrap,bubblewrap,the grader's sandbox needs it)

node:
	$(call debian,node,nodejs,the tests run the board's JavaScript modules with it)

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/ruff format --check $(LINT_PATHS)
	$(VENV)/bin/mypy $(LINT_PATHS)

# `exec`: on SIGTERM make passes the signal on to the process running the recipe line and waits for
# it. Without `exec` that process is a shell whenever PYTEST_ARGS holds quotes: the shell dies, and
# pytest and all it started go on running (`env` in $(PYTEST) execs pytest in turn).
test: $(VENV)/.installed-test chromium bubblewrap node
	$(MAKE) --no-print-directory lint
	exec $(PYTEST) -n $(PYTEST_JOBS) --dist loadgroup --no-loadscope-reorder $(PYTEST_ARGS)

check: $(VENV)/.installed-test bubblewrap node
	$(MAKE) --no-print-directory lint
	exec $(PYTEST) -n $(PYTEST_JOBS) --dist loadgroup --no-loadscope-reorder -m "$(CHECK_TESTS)" $(PYTEST_ARGS)

bench: $(VENV)/.installed-test chromium bubblewrap
	$(PY) -m benchmarks

release: $(VENV)/.installed-lab
	$(PY) -m minesweeper_kit.release

clean:
	rm -rf $(VENV) build dist *.egg-info test-artifacts release
