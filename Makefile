# Two commands for a fresh machine: `make serve` (set up, build, serve) and `make test` (set up, run every test).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: setup serve build scorm test lint bench clean

setup: $(VENV)/.installed node_modules/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,lab]"
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund
	touch $@

build: setup
	$(PY) build.py

serve: setup
	$(PY) build.py serve

scorm: setup
	$(PY) build.py scorm

test: setup
	$(PY) -m ruff check .
	$(PY) -m lessonkit.runtime check
	$(PY) -m pytest

bench: setup
	$(PY) tests/bench.py

clean:
	rm -rf site site.tmp-* .cache dist
