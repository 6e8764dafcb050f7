# One command to set up and open the course, one to set up and run every test.
#   make course   -> venv with the course's dependencies, then JupyterLab on course/
#   make test     -> venv with everything, local PostgreSQL/Redis/Chromium, all tests
# Both work on a fresh Debian machine with Python 3.11; `make test` is what CI runs.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: course build check test test-fast bench release formgrader clean-venv

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	if [ -f scripts/fast_jupyter_startup.py ]; then $(BIN)/python scripts/fast_jupyter_startup.py; fi
	rm -f $(VENV)/.installed-* && touch $@

## course: set up, then open the course in JupyterLab (SQLite is the default store; no server needed)
course: $(STAMP)
	cd course && $(abspath $(BIN))/jupyter lab 03_window_buffer_memory.ipynb $(if $(filter 0,$(shell id -u)),--allow-root)

## release: regenerate the student versions in release/ from source/ (nbgrader)
release: $(STAMP)
	$(BIN)/python scripts/release_assignments.py

## formgrader: JupyterLab's formgrader on a graded folder (make formgrader OUT=grades)
OUT ?= grades
formgrader: $(STAMP)
	$(BIN)/python -m autograder formgrader $(OUT)

## build: re-execute the lesson notebooks and regenerate the student versions in release/
build: $(STAMP)
	$(BIN)/python scripts/execute_notebooks.py course
	$(MAKE) release

## check: formatting, lint and types (ruff format, ruff check, mypy as configured in pyproject)
check: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/python -m mypy

## test: set up, check, start the services the tests need, run every test
test: check
	bash .ci/system_packages.sh
	eval "$$(bash .ci/services.sh start)" && \
	  $(BIN)/python -m pytest -n 2 --dist loadscope -ra --cov --cov-report=term ; \
	  status=$$?; bash .ci/services.sh stop >/dev/null 2>&1; exit $$status

## test-fast: the library's tests only, no services or browser
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not browser and not slow" tests src/windowmem

## bench: every benchmark; each prints its figures
bench: $(STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean-venv:
	rm -rf $(VENV)
