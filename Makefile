# panpriv-teach: one command per job. `make lab` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
.DEFAULT_GOAL := help

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

setup: $(STAMP)  ## create .venv and install the course with its test tools (fast when done)
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

lab: setup  ## make your my_work/ copies, then open the course in JupyterLab (its terminals use .venv)
	$(BIN)/python -m panpriv_teach lab $(LAB_ARGS)

workspace: setup  ## copy exercises/ to my_work/ where you work (never overwrites a file there)
	$(BIN)/python -m panpriv_teach workspace

# Three workers, each module (class, notebook) on one; tests/conftest.py sorts the most
# expensive first (xdist's own reorder, most tests first, would start them last). Three on
# two cores: a third of the suite's time is spent waiting (kernels, browsers, budgets), and
# a third worker fills it (measured: 9 min 42 s against 10 min 59 s with two).
XDIST  := -n 3 --dist loadscope --no-loadscope-reorder

# Lectures and solutions are not run under nbval as well: tests/test_notebook_determinism.py runs
# each once and compares it with its stored outputs, images and widget state included.
test: setup  ## the whole suite: library, checkers, notebooks, grading and browser tests
	$(BIN)/python -m pytest $(XDIST) --durations=20 tests

test-fast: setup  ## the inner loop: library and checkers, no browser, notebooks or slow tests
	$(BIN)/python -m pytest $(XDIST) -m "not browser and not notebooks and not slow" tests

test-false-failures: setup  ## README's measurement: every correct answer under 200 random seeds (~40 CPU-min)
	FALSE_FAILURE_SEEDS=200 $(BIN)/python -m pytest $(XDIST) -rP tests/test_checker_false_failures.py

exercises: setup  ## regenerate exercises/ from solutions/ (refuses edited ones; BACKUP=1 moves them to my_work/)
	$(BIN)/python -m panpriv_teach generate $(if $(BACKUP),--backup,)

notebooks: setup  ## re-execute lectures/ and solutions/ with outputs, then regenerate exercises/
	$(BIN)/python -m panpriv_teach generate $(if $(BACKUP),--backup,)  # refuses edited exercises before the long run
	$(BIN)/python -m panpriv_teach execute lectures/*.ipynb solutions/*.ipynb
	$(BIN)/python -m panpriv_teach generate $(if $(BACKUP),--backup,)

# The scoreboard ends with its own verdict line. An exercise not yet passed is progress, not an
# error: `make check` exits 0 once it has checked, and fails only when it cannot check. A
# pass/fail status (scripts, CI): .venv/bin/python -m panpriv_teach check (0 only if all pass).
check: setup  ## your progress over my_work/, or one scoreboard: make check NB=my_work/01_dp_basics.ipynb
	@$(BIN)/python -m panpriv_teach check $(NB); status=$$?; [ $$status -eq 1 ] || exit $$status

release: setup  ## a student copy without solutions: make release OUT=../panpriv-student
	@test -n "$(OUT)" || { echo "usage: make release OUT=folder"; exit 2; }
	$(BIN)/python -m panpriv_teach release $(OUT)

grade: setup  ## grade a class in a sandbox (needs bubblewrap): make grade SUBMISSIONS=folder OUT=folder [JOBS=n] [BUDGET=s] [NO_SANDBOX=1]
	@test -n "$(SUBMISSIONS)" -a -n "$(OUT)" || { echo "usage: make grade SUBMISSIONS=folder OUT=folder [JOBS=n] [BUDGET=seconds] [NO_SANDBOX=1 (trusted code only)]"; exit 2; }
	$(BIN)/python -m panpriv_teach grade $(SUBMISSIONS) --out $(OUT) $(if $(JOBS),--jobs $(JOBS),) $(if $(BUDGET),--budget $(BUDGET),) $(if $(NO_SANDBOX),--no-sandbox,)

nbgrader: setup  ## an nbgrader course directory: make nbgrader OUT=../panpriv-nbgrader
	@test -n "$(OUT)" || { echo "usage: make nbgrader OUT=folder"; exit 2; }
	$(BIN)/python -m panpriv_teach nbgrader $(OUT)

bench: setup  ## run every benchmark (not part of the test suite; summary in benchmarks/README.md)
	@failed=""; for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || failed="$$failed $$b"; done; \
	if [ -n "$$failed" ]; then echo "targets NOT met in:$$failed"; exit 1; fi

.PHONY: help setup lab workspace test test-fast test-false-failures exercises notebooks check release grade nbgrader bench

slides: setup  ## offline reveal.js decks of the lectures in build/slides/ (open build/slides/index.html)
	$(BIN)/python course/build.py slides

site: setup  ## offline HTML site of the whole course in build/site/ (open build/site/index.html)
	$(BIN)/python course/build.py site

.PHONY: slides site
