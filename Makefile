# The whole set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PYTEST_WORKERS ?= auto

.PHONY: demo test test-fast lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.base: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test,dev]'
	touch $(VENV)/.base $@

demo: $(VENV)/.base
	$(BIN)/gfh demo

test: $(VENV)/.test
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -p no:cacheprovider \
		--cov --cov-branch --cov-report=term:skip-covered

test-fast: $(VENV)/.test
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -m "not slow"

lint: $(VENV)/.test
	$(BIN)/pre-commit run --all-files

bench: $(VENV)/.test
	$(BIN)/python -m bench --record

clean:
	rm -rf $(VENV) .coverage .coverage.* .pytest_cache .mypy_cache .ruff_cache build *.egg-info
