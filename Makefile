# Two commands do all set-up on a fresh machine:
#   make demo   type-check the example backend package and show what the tool catches
#   make test   run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.device-types-installed

.PHONY: demo test audit-demo bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/device-types stubs install
	touch $(STAMP)

demo: $(STAMP)
	@$(BIN)/python examples/run_demo.py

test: $(STAMP)
	$(BIN)/device-types stubs install --quiet
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet '.[extra-checkers]'
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache
