# Two commands build everything from nothing: `make demo` and `make test`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
DEMO_DIR ?= demo-output
DEMO_PORT ?= 8000

# CPython 3.12 from pyenv when the machine has it, else the python3 on PATH.
BASE_PYTHON := $(shell PYENV_VERSION=3.12.1 python3 -c 'import sys; print(sys.executable)' 2>/dev/null \
	|| ls -d $$HOME/.pyenv/versions/3.12*/bin/python3 2>/dev/null | head -n1 \
	|| command -v python3)

.PHONY: venv js test test-js demo bench bench-report bench-js clean

$(VENV)/.installed: pyproject.toml
	@echo "building $(VENV) with $(BASE_PYTHON)"
	$(BASE_PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

# The JS reader (js/): npm packages from the lockfile, and Debian's Chromium for its browser test
# (playwright-core never downloads a browser). Without root the browser test is skipped.
js: js/node_modules/.installed

js/node_modules/.installed: js/package.json js/package-lock.json
	@test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
		|| echo "warning: could not install chromium; the browser test will be skipped"
	cd js && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
	touch $@

test: venv js
	$(PY) -m pytest -q
	cd js && npm test

test-js: venv js
	cd js && npm test

demo: venv js
	$(PY) -m chronozarr.demo $(DEMO_DIR) --serve --port $(DEMO_PORT)

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
	rm -rf $(VENV) $(DEMO_DIR) js/node_modules
