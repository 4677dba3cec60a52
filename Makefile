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

# Coverage measures every Python process itself (`patch = ["subprocess"]` in pyproject.toml):
# pytest, its xdist workers and every `gfh` the tests run each write a `.coverage.*` file, and
# they are combined once all of them have exited. (pytest-cov measured the workers a second
# time, and combined before the last of them had written: stray files and a warning.) A file
# combine cannot read (a process killed while it saved) is named by combine and then removed.
# The fifteen slowest tests are listed at the end, to see what makes the suite long.
test: $(VENV)/.test
	@rm -f .coverage .coverage.*
	$(BIN)/python -m coverage run -m pytest -n $(PYTEST_WORKERS) -p no:cacheprovider --durations=15; \
	tests=$$?; \
	$(BIN)/python -m coverage combine --quiet; \
	rm -f .coverage.*; \
	$(BIN)/python -m coverage report; \
	report=$$?; \
	exit $$(( tests ? tests : report ))

test-fast: $(VENV)/.test
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -m "not slow"

lint: $(VENV)/.test
	$(BIN)/pre-commit run --all-files

bench: $(VENV)/.test
	$(BIN)/python -m bench --record

clean:
	rm -rf $(VENV) .coverage .coverage.* .pytest_cache .mypy_cache .ruff_cache build *.egg-info
