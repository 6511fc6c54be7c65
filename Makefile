# Set-up and the two jobs. Each target builds the virtual environment first
# if it is missing or older than pyproject.toml.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-fast bench lint docs docs-serve clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first and pinned: here that is a local CPU build; an unpinned torch pulls a multi-GB CUDA build.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[train,render,plot,sgf,dev,docs,fast,tianshou,ray,openspiel]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/tictacgo demo

test: $(VENV)/.installed
	$(BIN)/python -m pytest

# For contributors: the suite without the tests measured slow (tests/slow_tests.txt), on every core
# (pytest-xdist; `make test-fast XDIST=` runs it in one process); CI runs `make test`, in one process.
XDIST ?= -n auto
test-fast: $(VENV)/.installed
	$(BIN)/python -m pytest -m "not slow" $(XDIST)

# The peers (OpenSpiel, pgx + mctx + jax) come with the bench extra; about 10 minutes (scripts/bench.py).
bench: $(VENV)/.installed
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python scripts/bench.py

# The documentation site (docs/ and the docstrings) into site/, or served at http://127.0.0.1:8000.
# NO_MKDOCS_2_WARNING silences Material's end-of-life notice (it names its successor; the build is unaffected).
docs: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

lint: $(VENV)/.installed
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build *.egg-info
