# Two commands build everything from nothing: `make demo` and `make test`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
DEMO_DIR ?= demo-output
DEMO_PORT ?= 8000
FUZZ_SECONDS ?= 60
CORPUS_SECONDS ?= 1860
FUZZ_DIR := .fuzz

# CPython 3.12 from pyenv when the machine has it, else the python3 on PATH.
BASE_PYTHON := $(shell PYENV_VERSION=3.12.1 python3 -c 'import sys; print(sys.executable)' 2>/dev/null \
	|| ls -d $$HOME/.pyenv/versions/3.12*/bin/python3 2>/dev/null | head -n1 \
	|| command -v python3)

# pytest-xdist workers of make test and make check: most tests wait on servers, subprocesses and
# Chromium rather than compute, so 3 beat 2 on a 2-core machine (CONTRIBUTING.md has the figures).
PYTEST_WORKERS ?= 3
# What make check leaves out: the markers tests/conftest.py puts on browser, packaging, interop and
# slow tests (registered in pyproject.toml).
CHECK_MARKERS := not browser and not packaging and not interop and not slow
TEST_LOGS := .test-logs

.PHONY: venv js test check lint format format-check test-js fuzz demo bench bench-report bench-js clean

$(VENV)/.installed: pyproject.toml setup.py
	@echo "building $(VENV) with $(BASE_PYTHON)"
	$(BASE_PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

# The JS reader (js/): npm packages from the lockfile, Debian's Chromium for its browser tests
# (playwright-core never downloads a browser) and Debian's ffmpeg, whose ffprobe and ffmpeg read
# back the viewer's time-lapse videos. Without root the browser tests are skipped.
js: js/node_modules/.installed
	@$(MAKE) --no-print-directory js/viewer/dist/viewer.js

js/node_modules/.installed: js/package.json js/package-lock.json
	@test -x /usr/bin/chromium -a -x /usr/bin/ffprobe || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium ffmpeg) \
		|| echo "warning: could not install chromium and ffmpeg; the browser tests will be skipped or fail"
	cd js && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
	touch $@

# The viewer page's bundles (js/build.mjs, with esbuild from js/node_modules or, for the demo,
# js/.tools): made again whenever a module they hold changes.
JS_SOURCES := $(shell find js/src js/lib js/viewer -name '*.js' -not -path 'js/viewer/dist/*' 2>/dev/null)
js/viewer/dist/viewer.js: js/build.mjs $(JS_SOURCES)
	cd js && node build.mjs

# pytest on PYTEST_WORKERS workers, with the node unit tests (js/test) running beside it: they
# mostly wait on the Python processes they start, so they overlap pytest's work. Their output is
# kept in $(TEST_LOGS)/node-unit.log and shown after pytest's, in full when they fail; the recipe
# fails when either fails. $(1): pytest's selection.
define pytest_and_node_unit
	@mkdir -p $(TEST_LOGS)
	status=0; \
	(cd js && npm run --silent test:unit) > $(TEST_LOGS)/node-unit.log 2>&1 & node_unit=$$!; \
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) $(1) || status=1; \
	echo "--- node unit tests (js/test), run beside pytest; their output is in $(TEST_LOGS)/node-unit.log"; \
	if wait $$node_unit; then tail -n 9 $(TEST_LOGS)/node-unit.log; else status=1; cat $(TEST_LOGS)/node-unit.log; fi; \
	exit $$status
endef

# ruff and mypy (make lint) first; tsc checks the JSDoc types of the shipped JS (js/tsconfig.json)
# and, strictly, of the tests, e2e tests and benchmarks (js/tsconfig.tests.json) before any test
# runs; then every pytest and node unit test, and the Chromium e2e tests last, alone, since they
# time the viewer.
test: venv js lint
	cd js && npm run typecheck
	$(call pytest_and_node_unit,)
	cd js && npm run --silent test:e2e

# The edit-test loop (CONTRIBUTING.md): lint, both type checks, the Python tests but the browser,
# packaging, interop and slow ones (CHECK_MARKERS), and the node unit tests; no Chromium.
check: venv js lint
	cd js && npm run typecheck
	$(call pytest_and_node_unit,-m "$(CHECK_MARKERS)")

# ruff and mypy over src/ (configured in pyproject.toml), before any test runs
lint: venv
	$(PY) -m ruff check src
	$(PY) -m mypy src

# The formatters, one per language, at FORMAT_WIDTH columns: ruff format over every Python file
# (pyproject.toml's [tool.ruff.format]), prettier over the JS of js/ and examples/ (.prettierrc.json,
# .prettierignore). `make format` rewrites the files; `make format-check` fails when one would
# change. Not yet part of lint: the tree is formatted once, as one commit, when no branch is open
# (CONTRIBUTING.md); then pyproject.toml's line-length becomes FORMAT_WIDTH and the override goes.
FORMAT_WIDTH := 120
RUFF_FORMAT := $(PY) -m ruff format --config 'line-length = $(FORMAT_WIDTH)'
PRETTIER := js/node_modules/.bin/prettier --log-level warn
JS_FORMATTED := 'js/**/*.{js,mjs}' 'examples/**/*.{js,mjs}'

format: venv js/node_modules/.installed
	$(RUFF_FORMAT) .
	$(PRETTIER) --write $(JS_FORMATTED)

format-check: venv js/node_modules/.installed
	status=0; \
	$(RUFF_FORMAT) --check . || status=1; \
	$(PRETTIER) --check $(JS_FORMATTED) || status=1; \
	exit $$status

test-js: venv js
	cd js && npm run typecheck && npm test

# Every fuzz target for FUZZ_SECONDS (make test runs a short deterministic slice of each), then
# every hostile-store, hostile-host and serve case, then the default timeouts waited out against a
# server that never answers. Meanwhile the hostile corpus (tests/fuzz/corpus.py) gives mutated
# stores to each reader for CORPUS_SECONDS (the Python one with info, validate and doctor), both
# at once. docs/reliability.md is written from the results, failures included.
fuzz: venv js
	rm -rf $(FUZZ_DIR) && mkdir -p $(FUZZ_DIR)
	git rev-parse --short HEAD > $(FUZZ_DIR)/commit
	status=0; \
	$(PY) tests/fuzz/corpus.py --reader python --seconds $(CORPUS_SECONDS) $(FUZZ_DIR)/corpus-python.jsonl > $(FUZZ_DIR)/corpus-python.log 2>&1 & python_corpus=$$!; \
	$(PY) tests/fuzz/corpus.py --reader js --seconds $(CORPUS_SECONDS) $(FUZZ_DIR)/corpus-js.jsonl > $(FUZZ_DIR)/corpus-js.log 2>&1 & js_corpus=$$!; \
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_REPORT=$(CURDIR)/$(FUZZ_DIR)/targets.jsonl \
		$(PY) -m pytest -q tests/fuzz tests/read/test_untrusted.py tests/read/test_hostile_http.py \
		tests/check/test_doctor_hosts.py tests/serve tests/write/test_reproducible.py --junitxml=$(FUZZ_DIR)/cases-python.xml || status=1; \
	(cd js && FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_REPORT=$(CURDIR)/$(FUZZ_DIR)/targets.jsonl \
		node --test --test-reporter=tap --test-reporter-destination=../$(FUZZ_DIR)/cases-js.tap \
		test/fuzz.test.js test/untrusted.test.js test/hosts.test.js) || status=1; \
	FUZZ_REPORT=$(CURDIR)/$(FUZZ_DIR)/targets.jsonl $(PY) tests/fuzz/defaults.py || status=1; \
	(cd js && FUZZ_REPORT=$(CURDIR)/$(FUZZ_DIR)/targets.jsonl node tools/defaults.mjs) || status=1; \
	wait $$python_corpus || status=1; wait $$js_corpus || status=1; \
	FUZZ_SECONDS=$(FUZZ_SECONDS) $(PY) tests/fuzz/reliability.py $(FUZZ_DIR) docs/reliability.md || status=1; \
	exit $$status

# The demo installs what it needs and nothing more: the package without extras, and the viewer's
# npm dependencies without the dev ones (no test tools, no browser, no Debian packages). When
# `make test` has installed everything, that is used as it is.
demo: $(VENV)/.demo js/node_modules/.demo
	@$(MAKE) --no-print-directory js/viewer/dist/viewer.js
	$(PY) -m chronozarr.demo $(DEMO_DIR) --serve --port $(DEMO_PORT)

$(VENV)/.demo: pyproject.toml setup.py
	@test -x $(PY) || (echo "building $(VENV) with $(BASE_PYTHON)" && $(BASE_PYTHON) -m venv $(VENV))
	@test -f $(VENV)/.installed || $(PY) -m pip install --quiet -e .
	touch $@

# The viewer's bundle is built with esbuild, installed on its own beside the runtime packages.
js/node_modules/.demo: js/package.json js/package-lock.json
	@test -f js/node_modules/.installed || (cd js && npm ci --omit=dev --no-audit --no-fund \
		&& npm install --prefix .tools --no-save --no-audit --no-fund esbuild@$$(node -p "require('./package.json').devDependencies.esbuild"))
	touch $@

# Every benchmark, side by side with the tools a user would pick instead, then docs/benchmarks.md
# (tables and charts) from the results JSON. BENCH_QUICK=1 make bench: a few minutes, small sizes.
bench: venv js $(VENV)/.bench
	$(PY) bench/run_all.py

# docs/benchmarks.md again from the committed results, without running anything.
bench-report: $(VENV)/.bench
	$(PY) bench/report.py

$(VENV)/.bench: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	touch $@

# The JS reader against zarrita, and the browser comparison, alone.
bench-js: venv js $(VENV)/.bench
	$(PY) bench/run_all.py --only reader,browser

clean:
	rm -rf $(VENV) $(DEMO_DIR) $(FUZZ_DIR) $(TEST_LOGS) js/node_modules
