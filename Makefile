# Two commands do everything on a fresh machine:
#   make demo   set up .venv, run the whole DAG on the bundled demo -> results/report/report.html,
#               then check its figures against the documented ones
#   make test   set up .venv, run the test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# CPU wheel by default; on a GPU cluster use e.g. TORCH_INDEX=https://download.pytorch.org/whl/cu128
TORCH_VERSION ?= 2.13.0
TORCH_INDEX ?=
UV_VERSION ?= 0.13.9
PYTEST_ARGS ?=
# Test workers (pytest-xdist): the whole-workflow tests (the miniature demo DAG's, the Slurm
# cluster's) hold one, the rest share both; tests/conftest.py groups them. TEST_WORKERS=0
# runs in one process.
TEST_WORKERS ?= 2

export PATH := $(abspath $(BIN)):$(PATH)
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: install demo slurm-demo test lint lint-format lint-rules lint-types format schema clean

install: $(VENV)/.installed

# torch first, pinned (an unpinned torch would pull several GB of CUDA packages), with pip,
# which also finds a CPU wheel in a machine's pip find-links; then uv installs the rest: it
# downloads and unpacks in parallel, in less than half pip's time (measured: docs/speed.md,
# section "Figures behind code choices").
# --compile-bytecode: jobs then load compiled modules even where PYTHONDONTWRITEBYTECODE is set.
$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip uv==$(UV_VERSION)
	$(BIN)/pip install --quiet torch==$(TORCH_VERSION) $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/uv pip install --quiet --python $(BIN)/python --compile-bytecode -r requirements.txt -e .
	$(BIN)/python -c "import datasets, torch, transformers, scispacy, pubmed_parser, snakemake"
	touch $@

# The formatter and linters alone (seconds): CI runs them before the tests.
$(VENV)/.lint-installed: requirements-lint.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -r requirements-lint.txt
	touch $@

# Formatting first (seconds, the lint tools alone), then the rules: `snakemake --lint` parses
# the workflow, which imports snakemake and the package, so it runs in the full .venv. It
# exits 1 on any lint warning; the demo config, then one that enables every other stage.
# Then the types (mypy, configured in pyproject.toml's [tool.mypy]).
lint: lint-format lint-rules lint-types

lint-format: $(VENV)/.lint-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/snakefmt --check Snakefile workflow/rules

lint-rules: install
	$(BIN)/snakemake --lint -n
	$(BIN)/snakemake --lint -n --configfile configs/families-demo.yaml

# mypy over src/biocompact in the full .venv: torch, transformers and numpy carry the types it
# checks against, beside the stubs that requirements-lint.txt pins.
lint-types: install $(VENV)/.lint-installed
	$(BIN)/mypy

format: $(VENV)/.lint-installed
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .
	$(BIN)/snakefmt Snakefile workflow/rules

# The config schema (workflow/schemas/config.schema.yaml), generated from the settings classes
# after a change to one of them (a test fails until it is regenerated).
schema: install
	$(BIN)/python -m biocompact.workflow.schema_generation

# The whole DAG, then its figures against the ones README.md and docs/ print (demo/figures.yaml):
# a figure that moved fails the run, naming it.
demo: install
	$(BIN)/snakemake --profile local
	$(BIN)/python demo/check_figures.py

# The demo through the slurm profile on a two-node Slurm cluster started on this machine for
# the run (root; Debian's slurm-wlm and munge, installed when missing): docs/slurm.md.
slurm-demo: install
	slurm/demo-on-this-machine.sh

test: install
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

clean:
	rm -rf results .snakemake
