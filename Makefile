# panpriv-teach: one command per job. `make lab` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
NBVAL  := --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg
.DEFAULT_GOAL := help

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

setup: $(STAMP)  ## create .venv and install the course with its test tools (fast when done)
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

lab: setup  ## open the course in JupyterLab (the welcome notebook)
	$(BIN)/python -m jupyterlab $(ROOT_FLAG) --ServerApp.root_dir=$(CURDIR) \
		--LabApp.default_url=/lab/tree/lectures/00_welcome.ipynb

test: setup  ## the whole suite: library, pipeline, notebooks (nbval) and browser tests
	$(BIN)/python -m pytest -n 2 --dist loadscope $(NBVAL) tests lectures solutions

exercises: setup  ## regenerate exercises/ from solutions/ (solutions are the single source)
	$(BIN)/python -m panpriv_teach generate

notebooks: setup  ## re-execute lectures/ and solutions/ with outputs, then regenerate exercises/
	$(BIN)/python -m panpriv_teach execute lectures/*.ipynb solutions/*.ipynb
	$(BIN)/python -m panpriv_teach generate

check: setup  ## score your exercises: make check NB=exercises/01_dp_basics.ipynb
	$(BIN)/python -m panpriv_teach check $(NB)

bench: setup  ## run every benchmark (not part of the test suite; summary in benchmarks/README.md)
	@failed=""; for b in benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || failed="$$failed $$b"; done; \
	if [ -n "$$failed" ]; then echo "targets NOT met in:$$failed"; exit 1; fi

.PHONY: help setup lab test exercises notebooks check bench

slides: setup  ## offline reveal.js decks of the lectures in build/slides/ (open build/slides/index.html)
	$(BIN)/python course/build.py slides

site: setup  ## offline HTML site of the whole course in build/site/ (open build/site/index.html)
	$(BIN)/python course/build.py site

.PHONY: slides site
