# Two commands on a fresh clone: `make run` (set up, start the app) and `make test` (set up, run the tests).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
ARGS   ?= gui

.PHONY: setup run lint test test-fast test-lowest bench mutations eval clean

# --no-compile: pip would compile every module of every package it installs (torch alone: 24 -> 7 s; the whole
# set-up 124 -> 45 s on a quiet 2-core machine, twice that beside two busy processes), most of which nothing here
# ever imports. What the app and its tests import is compiled once, by one process, in the last step (~5 s),
# instead of by every test worker at once.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first and pinned: the CPU build of 2.13.0 installs without a multi-GB CUDA download here.
	$(PY) -m pip install --quiet --no-compile "torch==2.13.0"
	$(PY) -m pip install --quiet --no-compile -e ".[test,ocr]"
	PYTHONDONTWRITEBYTECODE= $(PY) -c "import torch, transformers, onnxruntime, hnswlib, PySide6.QtWidgets, pytest"
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(VENV)/bin/searchapp $(ARGS)

# The gates: ruff (errors, not style) and mypy (strict flags where the code is fully annotated), both configured in
# pyproject.toml; seconds with mypy's cache, about a minute without. `make test` runs them too (mypy beside the tests).
lint: setup
	$(PY) -m ruff check searchapp tests
	$(PY) -m mypy searchapp

# Tests run in parallel (pytest-xdist), as many workers as .ci/workers.py says: two more than the cores (much of
# the suite waits on processes it starts), at most 8 and as many as memory holds. `make test WORKERS=0` runs
# them in this process, one after another. PYTHONDONTWRITEBYTECODE is emptied for the tests (some machines set
# it): otherwise each of the hundreds of processes the suite starts compiles the app's modules again (~0.4 CPU s
# each) and every worker rewrites every test module.
#
# `make test` runs lint's two gates itself: ruff first (under a second), then mypy beside the tests rather than
# before them (decision 0202). mypy is one process of ~11 CPU s and ~0.55 GB without its cache; on a 2-core machine
# kept busy by other programs it took 50-100 s before the first test, where beside the workers it
# takes part of the CPU share they get anyway. Its report is printed after the tests', and either failing fails.
WORKERS ?= $(shell $(PYTHON) .ci/workers.py)
test: setup test-lowest
	$(PY) -m ruff check searchapp tests
	typing_out=$$(mktemp); $(PY) -m mypy searchapp > $$typing_out 2>&1 & typing=$$!; \
	PYTHONDONTWRITEBYTECODE= QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 $(PY) -m pytest -q -n $(WORKERS) --dist worksteal --durations=30; \
	tests=$$?; wait $$typing; typed=$$?; echo "mypy searchapp:"; cat $$typing_out; rm -f $$typing_out; \
	test $$tests -eq 0 && test $$typed -eq 0

# The unit tests alone (tests/unit: one package at a time, no library on disk beyond a tiny one): the quick loop.
test-fast: setup
	PYTHONDONTWRITEBYTECODE= QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 $(PY) -m pytest -q tests/unit

# The tests of what the light dependencies do for us, again with the lowest versions pyproject.toml allows of them
# (.ci/lowest_versions.py), installed in front of the rest: proves the declared lower bounds (~5 s). sqlite-utils
# writes only the OCR cache since decision 0126 (the write-lane test drives its table API); olefile and xlrd read
# the legacy Office files (xls97.py reads each sheet through xlrd's own loader with its put_cell replaced: its caps
# and its cells are tested against the lowest xlrd too). The library's sync tests ran here while the store wrote through sqlite-utils; they
# no longer reach it (decision 0130), and run in the main suite.
LOWEST       := .lowest
LOWEST_TESTS := tests/unit/store/test_store_write_lane.py tests/unit/ingest/test_legacy_office.py \
                tests/unit/ingest/test_xls_caps.py tests/unit/ingest/test_sheet_cells.py
$(LOWEST)/.installed: pyproject.toml .ci/lowest_versions.py $(STAMP)
	rm -rf $(LOWEST)
	$(PY) -m pip install --quiet --no-compile --no-deps --target $(LOWEST) $$($(PY) .ci/lowest_versions.py)
	touch $@

test-lowest: setup $(LOWEST)/.installed
	PYTHONPATH=$(LOWEST) $(PY) -c "import sqlite_utils, importlib.metadata as m; print('lowest:', m.version('sqlite-utils'), sqlite_utils.__file__)"
	PYTHONDONTWRITEBYTECODE= QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 PYTHONPATH=$(LOWEST) $(PY) -m pytest -q -p no:cacheprovider $(LOWEST_TESTS)

bench: setup
	for b in tests/benchmarks/bench_*.py; do $(PY) $$b || exit 1; done

# Do the tests guard what they name? Hand-written mutations of the ranking and data-safety code, each made in a
# copy of the committed tree and run against the tests that should fail on it (tests/benchmarks/mutations.py):
# one JSON line per mutation and a score. Minutes; not part of `make test`.
mutations: setup
	$(PY) tests/benchmarks/mutations.py

clean:
	rm -rf $(VENV) .lowest .pytest_cache .hypothesis .mypy_cache .ruff_cache build dist *.egg-info
