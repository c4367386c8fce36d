# Two commands build everything from nothing: `make demo` and `make test`.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
DEMO_DIR ?= demo-output

# CPython 3.12 from pyenv when the machine has it, else the python3 on PATH.
BASE_PYTHON := $(shell PYENV_VERSION=3.12.1 python3 -c 'import sys; print(sys.executable)' 2>/dev/null \
	|| ls -d $$HOME/.pyenv/versions/3.12*/bin/python3 2>/dev/null | head -n1 \
	|| command -v python3)

.PHONY: venv test demo bench clean

$(VENV)/.installed: pyproject.toml
	@echo "building $(VENV) with $(BASE_PYTHON)"
	$(BASE_PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

test: venv
	$(PY) -m pytest -q

demo: venv
	$(PY) -m chronozarr.demo $(DEMO_DIR)

bench: venv
	$(PY) bench/encode.py

clean:
	rm -rf $(VENV) $(DEMO_DIR)
