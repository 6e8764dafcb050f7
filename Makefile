# One command to set up and open the course, one to set up and run every test.
#   make course   -> venv with the course's dependencies only, then JupyterLab on the start page,
#                    in the learner's working copy my_course/ (git-ignored; scripts/working_copy.py)
#   make test     -> venv with everything, local PostgreSQL/Redis/Chromium, all tests
# Both work on a fresh Debian machine with Python 3.11; `make test` is what CI runs.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# One stamp per set of extras, named for pyproject.toml's checksum: an edit reinstalls.
HASH   := $(shell cksum < pyproject.toml | cut -d' ' -f1)
COURSE_STAMP := $(VENV)/.installed-course-$(HASH)
SITE_STAMP   := $(VENV)/.installed-site-$(HASH)
TEST_STAMP   := $(VENV)/.installed-test-$(HASH)
# The PATH make was started with: $(PYTHON) is looked up there, never in the venv it makes.
SYSTEM_PATH := $(PATH)
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: course site build check test test-fast bench release validate formgrader clean-venv \
	install-n8n install-hub-proxy verify-n8n record-n8n n8n-workflows n8n-pictures verify-cgroup2 check-versions

# install EXTRA: check $(PYTHON) and repair or make the venv (scripts/course_python.py says
# what to install when Python or its venv module is missing or too old), then install this
# project with that extra, editable, showing progress (scripts/course_install.py).
define install
	@PATH='$(SYSTEM_PATH)'; command -v $(PYTHON) >/dev/null 2>&1 || { echo "setup: $(PYTHON) was not found. Install it:  sudo apt-get install python3 python3-venv" >&2; exit 1; }
	@PATH='$(SYSTEM_PATH)' $(PYTHON) scripts/course_python.py --python $(PYTHON) --venv $(VENV)
	@$(BIN)/python scripts/course_install.py $(1)
endef

# The learner's set-up: only what the lessons need (the course extra), not the test stack.
$(COURSE_STAMP): pyproject.toml
	$(call install,course)
	@rm -f $(VENV)/.installed-course-* && touch $@

# The website's builder on top of the course (the site extra includes the course extra).
$(SITE_STAMP): pyproject.toml
	$(call install,site)
	rm -f $(VENV)/.installed-site-* $(VENV)/.installed-course-* && touch $@ $(COURSE_STAMP)

# Everything: the test extra includes the course and site extras.
$(TEST_STAMP): pyproject.toml
	$(call install,test)
	rm -f $(VENV)/.installed-* && touch $@ $(SITE_STAMP) $(COURSE_STAMP)

## course: set up the course extra only, then open the start page in JupyterLab, in your working copy WORK
WORK ?= my_course
course: $(COURSE_STAMP)
	@$(BIN)/python scripts/course_lab.py --work $(WORK)

## site: build the course website from the notebooks' stored outputs, offline, into _build/site/html
site: $(SITE_STAMP)
	$(BIN)/python scripts/build_site.py

## validate: check an assignment before submitting it (NOTEBOOK=path.ipynb); exits 1 if a test fails
validate: $(COURSE_STAMP)
	$(BIN)/validate-assignment $(NOTEBOOK)

## release: regenerate the student versions in release/ from source/ (nbgrader)
release: $(TEST_STAMP)
	$(BIN)/python scripts/release_assignments.py

## lab-extension: rebuild the learner's JupyterLab extension (learner_jupyter/extension) into learner_jupyter/labextensions (needs node and npm)
lab-extension: $(TEST_STAMP)
	cd learner_jupyter/extension && npm ci --no-audit --no-fund --loglevel=error && \
	  PATH="$(abspath $(BIN)):$$PATH" jupyter-builder build .

## formgrader: JupyterLab's formgrader on a graded folder (make formgrader OUT=grades)
OUT ?= grades
formgrader: $(TEST_STAMP)
	$(BIN)/python -m autograder formgrader $(OUT)

## build: re-execute the lesson notebooks and regenerate the student versions in release/
build: $(TEST_STAMP)
	$(BIN)/python scripts/execute_notebooks.py course
	$(BIN)/python scripts/course_pages.py
	$(MAKE) release

## check: formatting, lint and types (ruff format, ruff check, mypy as configured in pyproject)
check: $(TEST_STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/python -m mypy

## install-n8n: node 24, n8n 2.41.1 and the @n8n/chat 1.37.0 package into $$WINDOWMEM_N8N_HOME (default verify/n8n/.install), reused when complete
install-n8n:
	bash verify/n8n/install.sh >/dev/null

# $(1) with PostgreSQL and Redis up (services.sh installs them if missing), then both stopped.
define with_services
	eval "$$(bash .ci/services.sh start)" && $(1) ; \
	  status=$$?; bash .ci/services.sh stop >/dev/null 2>&1; exit $$status
endef

## install-hub-proxy: configurable-http-proxy 5.3.0 (npm) into $$WINDOWMEM_HUB_HOME (default ~/.cache/windowmem-hub), for the hub tier (tests/hub)
install-hub-proxy:
	bash .ci/hub_proxy.sh >/dev/null

## verify-n8n: install n8n if needed, start it with the recording model, check every scenario against windowmem
verify-n8n: $(TEST_STAMP) install-n8n
	$(call with_services,$(BIN)/python -m pytest -q -ra tests/n8n)

## record-n8n: run every scenario through n8n again and rewrite the fixtures in src/windowmem/data/n8n_recorded
record-n8n: $(TEST_STAMP) install-n8n
	$(call with_services,$(BIN)/python -m verify.n8n.record)

## n8n-workflows: rewrite lessons 1 to 4's importable workflows in course/workflows from verify/n8n/workflows
n8n-workflows: $(TEST_STAMP)
	$(BIN)/python -m verify.n8n.course_workflows

## n8n-pictures: import lessons 1 to 4's workflows into n8n, chat through them, save the editor's pictures in course/images/n8n
n8n-pictures: $(TEST_STAMP) install-n8n
	$(call with_services,$(BIN)/python -m verify.n8n.pictures)

## verify-cgroup2: boot a cgroup v2 kernel under QEMU and run the sandbox's checks there, as root and as a user with a delegated subtree (an hour or more)
verify-cgroup2: $(TEST_STAMP)
	bash .ci/system_packages.sh
	$(BIN)/python -m pytest -p no:xdist -q -ra -s tests/cgroup2/test_guest.py

## check-versions: each modelled package against the newest its registry serves (a report; --strict to fail)
check-versions: $(TEST_STAMP)
	$(BIN)/python scripts/check_versions.py

## test: set up, check, report the modelled packages' versions, start the services the tests need, run every test (n8n included), then the sandbox's core checks in a cgroup v2 guest (tests/cgroup2/test_guest_core.py; the whole guest tier is make verify-cgroup2, past CI's 90 minutes)
test: check install-n8n install-hub-proxy
	$(BIN)/python scripts/check_versions.py
	bash .ci/system_packages.sh
	eval "$$(bash .ci/services.sh start)" && \
	  $(BIN)/python -m pytest -n 2 --dist loadscope -ra --durations=40 --cov --cov-report=term --ignore=tests/cgroup2 ; \
	  status=$$?; bash .ci/services.sh stop >/dev/null 2>&1; \
	  $(BIN)/python -m pytest -p no:xdist -q -ra -s tests/cgroup2/test_guest_core.py || status=1; \
	  exit $$status

## test-fast: the library's tests only, no services or browser
test-fast: $(TEST_STAMP)
	$(BIN)/python -m pytest -q -m "not browser and not slow and not n8n" tests src/windowmem

## bench: every benchmark; each prints its figures
bench: $(TEST_STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean-venv:
	rm -rf $(VENV)
