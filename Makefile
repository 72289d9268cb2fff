# Two commands on a fresh machine: `make run` and `make test` (both create .venv when it is missing).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
OUT ?= out
# pytest-xdist's workers for make test: one more than the cores, since a worker waits on its kernels and
# subprocesses part of the time (2 cores: 3 workers 298-312 s, 2 workers 334 s; the same CPU); TEST_WORKERS=1 for one
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
ROOT ?=

.PHONY: run test venv lab clean-lab notebook bench mutate fuzz

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# What `make run` and `make test` need. JupyterLab is apart (`make lab`): its server's dependencies bring jsonschema's
# optional rfc3987-syntax, whose grammar is built on every `import jsonschema`, so every papermill and runbook command
# would start 0.9 s later (nbformat imports jsonschema): ~180 s of the suite's CPU (docs/TESTING.md).
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,fleet]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null  # the notebooks' kernel
	$(BIN)/python -m compileall -q runbook_lib
	touch $(STAMP)

# JupyterLab, for the student edition (notebooks/lab.ipynb) and the class notebook: `make lab`, or `make venv`.
LAB := $(VENV)/.lab
$(LAB): pyproject.toml | $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[lab]'
	touch $(LAB)

lab: $(LAB)

venv: $(STAMP) $(LAB)

# Bytecode for the kernel's imports, even under PYTHONDONTWRITEBYTECODE: recompiled only when a module changed
# (make compares the times itself; a compileall with nothing to do was a Python start-up in every `make run`).
COMPILED := $(VENV)/.compiled
$(COMPILED): $(shell find runbook_lib -name '*.py') | $(STAMP)
	@$(BIN)/python -m compileall -q runbook_lib
	@touch $@

# The catalog as JSON (runbook_lib/findings/catalog.py: CACHE, not committed): the notebook's first cell reads it in
# ~3 ms instead of ~30 ms of YAML; written again whenever findings.yaml changes (a stale one is never read).
CATALOG_CACHE := runbook_lib/data/findings.json
$(CATALOG_CACHE): runbook_lib/data/findings.yaml | $(STAMP)
	@$(BIN)/python -c "from runbook_lib.findings.catalog import write_cache; write_cache()"

# The main job: the runbook on the embedded sandbox root (lab-root/ in this checkout), never on '/'.
run: $(STAMP) $(COMPILED) $(CATALOG_CACHE)
	@mkdir -p $(OUT)
	@$(BIN)/python -m runbook_lib.runner --show --log-level WARNING --no-progress-bar \
		notebooks/run.ipynb $(OUT)/run.ipynb $(if $(ROOT),-p root $(ROOT))

test: $(STAMP) $(CATALOG_CACHE)
	@if [ "$$(id -u)" = "0" ]; then scripts/install-system-deps.sh; fi
	@if command -v go >/dev/null; then scripts/install-containerd2.sh; fi  # real containerd 2.x for tests/real
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup  # tests/xdist_groups.py: a file per worker at a time, longest first

# The fuzzing run of tests/engine/test_fuzz.py at length: fresh random inputs, 1500 per parser and 200 whole roots
# (`make test` runs a fixed 25 and 8 of them). FUZZ_ROOTS=N for another number of roots.
fuzz: $(STAMP)
	RUNBOOK_FUZZ=fuzz RUNBOOK_FUZZ_ROOTS=$(or $(FUZZ_ROOTS),200) $(BIN)/python -m pytest -q -p no:cacheprovider tests/engine/test_fuzz.py

notebook: $(STAMP)
	$(BIN)/python tools/build_notebook.py
	$(BIN)/python tools/build_class_notebook.py

clean-lab:
	rm -rf lab-root $(OUT)

# The benchmark (bench/run.py, docs/BENCHMARKS.md): minutes, never part of `make test`. With JupyterLab installed, as
# an instructor's machine has it.
bench: $(STAMP) $(LAB) $(CATALOG_CACHE)
	$(BIN)/python bench/run.py $(BENCH_ARGS)

# Mutation testing (docs/TESTING.md): the modules that decide verdicts and writes ([tool.mutmut] in pyproject.toml),
# on 2 workers; a second run retries only what changed. Fails while a survivor is neither killed nor explained.
mutate: $(STAMP)
	$(BIN)/python tools/mutants_forget_changed.py  # a changed module's old copy would hide most of its mutants
	$(BIN)/python tools/mutation_record.py restore  # a new machine goes on from the results in the repository
	nice -n 10 $(BIN)/mutmut run --max-children 2; status=$$?; \
	  $(BIN)/python tools/mutation_record.py save; exit $$status  # kept even when the run is stopped
	$(BIN)/python tools/mutation_report.py --check
