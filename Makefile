# Two commands for a fresh machine: `make serve` (set up, build, serve) and `make test` (set up, run every test).
# The toolkit's maintainers need Node and npm (the prebuilt files: `make prebuilt`); a course author needs only
# `pip install lessonkit` (see README.md).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
PREBUILT := src/lessonkit/_prebuilt/manifest.json
# What the prebuilt files are made from: the page's modules and styles, the block types' folders, labkit, the pins.
PREBUILT_SOURCES := $(shell find src/lessonkit/static src/lessonkit/blocks src/labkit src/lessonkit/prebuild \
	-type f \( -name '*.js' -o -name '*.mjs' -o -name '*.css' -o -name '*.json' -o -name '*.py' \) 2>/dev/null) \
	vendor-manifest.json package-lock.json src/lessonkit/__init__.py src/lessonkit/runtime/releases.py

.PHONY: setup setup-parts prebuilt serve build check scorm cmi5 test lint dist bench docs clean lrs screenshots

# Two at a time: npm and Ralph's venv while the venv installs and the prebuilt files are made.
SETUP := $(VENV)/.installed node_modules/.installed $(PREBUILT) .venv-lrs/.installed
setup:
	@$(MAKE) --no-print-directory -j2 --output-sync=target setup-parts
setup-parts: $(SETUP)
	@:

# Ralph, the xAPI record store the class tests start (tests/browser/test_class.py): a venv of its own, since its
# FastAPI is not the one scormhost (in .venv) needs.
lrs: .venv-lrs/.installed
.venv-lrs/.installed: tests/lrs/requirements.txt
	$(PYTHON) -m venv .venv-lrs
	.venv-lrs/bin/python -m pip install -q -r tests/lrs/requirements.txt
	touch $@

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,lab]"
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund
	touch $@

# The bundles, stylesheet, editor, prepared Pyodide releases and wheels the wheel carries (lessonkit.prebuild).
$(PREBUILT): $(PREBUILT_SOURCES) | $(VENV)/.installed node_modules/.installed
	$(PY) -m lessonkit.prebuild make

prebuilt: $(PREBUILT)

build: setup
	$(PY) build.py build

check: setup
	$(PY) build.py check

serve: setup
	$(PY) build.py serve --port $(PORT)

scorm: setup
	$(PY) build.py scorm

cmi5: setup
	$(PY) build.py cmi5

lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff check lab  # the attention course's lab code, by the course's own rules (lab/ruff.toml)
	$(PY) -m ruff check docs/lab  # the manual's, by its own (docs/lab/ruff.toml)
	$(VENV)/bin/lint-imports
	$(PY) -m lessonkit.prebuild check

# Two workers (pytest-xdist), each test file whole in one of them so its built sites and servers are made once; the
# slowest tests and the time per module are printed at the end.
TEST_WORKERS ?= 2
test: lint
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=20

# The wheel and sdist, each carrying the prebuilt files, into dist/.
dist: setup
	rm -rf dist/lessonkit-*
	$(VENV)/bin/pyproject-build --outdir dist .  # not `python -m build`: build.py here is the course's

bench: setup
	$(PY) tests/bench.py

# Every page of the attention course at 390 and 1280 px, light and dark, as PNGs to look at (tests/screenshots.py).
SHOTS ?= /tmp/lessonkit-shots
screenshots: setup
	$(PY) tests/screenshots.py --out $(SHOTS)

# The manual (docs/, a lessonkit course of its own, its reference made from lessonkit's schemas), into docs/site/.
docs: setup
	$(VENV)/bin/lessonkit build --course docs

clean:
	rm -rf site site.tmp-* site.old-* .cache .lessonkit dist build src/lessonkit/_prebuilt docs/site docs/.lessonkit
