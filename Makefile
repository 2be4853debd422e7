# Two commands matter: `make demo` and `make test`. Each sets up what it needs.
SHELL := /bin/bash
PYTHON ?= python3
UV_VERSION := 0.13.9
BOOT := .bootstrap
UV := $(BOOT)/bin/uv
VENV := .venv
PY := $(VENV)/bin/python
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(VENV)

.PHONY: setup demo test lint typecheck pytest bench clean

setup: $(VENV)/.synced

# uv itself comes from PyPI at a pinned version; the environment comes from uv.lock.
$(UV):
	$(PYTHON) -m venv $(BOOT)
	$(BOOT)/bin/pip install --quiet --disable-pip-version-check "uv==$(UV_VERSION)"

$(VENV)/.synced: $(UV) uv.lock pyproject.toml
	$(UV) sync --frozen --python $(PYTHON)
	touch $@

demo: setup
	$(VENV)/bin/mcp-elicit demo

lint: setup
	$(VENV)/bin/ruff check src tests bench examples
	$(VENV)/bin/ruff format --check src tests bench examples

typecheck: setup
	$(VENV)/bin/mypy --strict src

pytest: setup
	$(PY) -m pytest

test: lint typecheck pytest

bench: setup
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) $(BOOT) .pytest_cache .mypy_cache .ruff_cache .hypothesis
